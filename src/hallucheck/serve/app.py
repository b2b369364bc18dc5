"""The ASGI app of ``hallucheck serve``.

- ``POST /v1/detect``, ``POST /v1/mitigate``: one answer; the reply is ``{"status", "exit_code",
  "detection" | "mitigation"}`` where ``status`` is the CLI's exit-code meaning (``grounded`` /
  ``hallucinated`` / ``could_not_verify`` / ``error``) and the payload is ``to_dict()``.
- ``POST /v1/check``: a batch job (run with :func:`hallucheck.eval.check.run_check`, one record
  written per finished row); ``GET /v1/jobs/{id}``: its progress and results.
- ``GET /v1/methods``, ``GET /healthz``, ``GET /metrics`` (Prometheus text), ``GET /`` (the page).

At most ``workers`` detections run at once, behind a bounded queue: on the event loop when the LLM
is an OpenAI-compatible endpoint (``Pipeline.arun``: its requests are awaited there, no thread held
per request; local models run in the loop's executor), else on ``workers`` threads. When the queue
is full the request gets ``503`` with ``Retry-After`` at once, so there is never an unbounded
backlog. A request that takes longer than the timeout gets ``504`` (its work finishes in the
background and keeps its slot until then, so the bound stays true).

This module assembles the app (:func:`create_app`): its start and stop, the shape of every refusal,
the routers and the gate around them. The routes are in :mod:`.routes`, one router per concern;
what they share (the server state, the pool, the refusals) in :mod:`.work`; the request and
response bodies in :mod:`.schemas`, the work pool, metrics and gate middleware in :mod:`.runtime`,
and the settings and server state in :mod:`.state` (the names in ``__all__`` stay importable from
here).
"""

from __future__ import annotations

import asyncio
import json
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .._version import __version__
from .jobs import retention_timer
from .routes import ROUTERS
from .runtime import Gate, Metrics, WorkPool, error_response
from .schemas import CheckRequest, DetectRequest, DetectResponse, MitigateResponse
from .state import ServeConfig, ServerState


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Start: load the default method first when asked (``preload``), and the timer that deletes
    expired jobs. Stop: the timer, the pools and the job directory."""
    state: ServerState = app.state.hallucheck
    if state.config.preload:
        await asyncio.get_running_loop().run_in_executor(None, state.preload)
    sweeper = asyncio.create_task(retention_timer(state))
    yield
    sweeper.cancel()
    state.close()


async def bad_body(request: Request, exc: RequestValidationError) -> JSONResponse:
    errors = exc.errors()
    first = errors[0] if errors else {}
    loc = [str(p) for p in first.get("loc", ()) if p != "body"]
    name = ".".join(loc) or "body"
    msg = first.get("msg", "invalid request body")
    detail = [{k: v for k, v in e.items() if k not in ("input", "ctx", "url")} for e in errors]  # no echo of the texts
    return JSONResponse(
        {
            "status": "error",
            "error": f"{name}: {msg}",
            "field": name,
            "detail": json.loads(json.dumps(detail, default=str)),
        },
        status_code=422,
    )


async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    """Every refusal has the documented shape. FastAPI answers 400 when the body cannot be
    parsed at all (e.g. JSON nested too deeply for the parser): that is a bad body, 422."""
    if exc.status_code == 400:
        return error_response(
            422, "error", "body: not a JSON object this server can read (malformed or nested too deeply)", "body"
        )
    return error_response(exc.status_code, "error", str(exc.detail), None, headers=getattr(exc, "headers", None))


def create_app(config: ServeConfig | None = None) -> Any:
    """The ASGI app: the FastAPI app (``.app``) inside the gate middleware (token, body limit,
    metrics); ``.state`` is the :class:`ServerState` (pool, jobs, metrics)."""
    state = ServerState(config or ServeConfig())
    app = FastAPI(
        title="hallucheck",
        version=__version__,
        lifespan=lifespan,
        description="Find and fix ungrounded hallucinations in LLM answers against their reference text.",
    )
    app.state.hallucheck = state
    app.add_exception_handler(RequestValidationError, bad_body)  # type: ignore[arg-type]
    app.add_exception_handler(StarletteHTTPException, http_error)  # type: ignore[arg-type]
    for router in ROUTERS:
        app.include_router(router)
    cfg = state.config
    return Gate(  # type: ignore[return-value]
        app,
        metrics=state.metrics,
        allowed_hosts=state.allowed_hosts,
        cors_origins=cfg.cors_origins,
        token=cfg.token,
        max_body_bytes=cfg.max_body_bytes,
    )


__all__ = [
    "ServeConfig",
    "create_app",
    "DetectRequest",
    "DetectResponse",
    "MitigateResponse",
    "CheckRequest",
    "WorkPool",
    "Metrics",
]
