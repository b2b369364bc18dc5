"""What the server offers and how it is: ``GET /v1/methods``, ``GET /healthz`` (cached state, or a
rate-limited live probe of the LLM) and ``GET /metrics`` (Prometheus text)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from ..._version import __version__
from ..runtime import authorized, error_response
from ..state import ServerState
from ..work import Server

router = APIRouter()


@router.get("/v1/methods")
async def methods(server: Server) -> Any:
    rows = await asyncio.get_running_loop().run_in_executor(None, server.methods)
    return {"default": server.config.method, "llm": server.config.llm_spec, "methods": rows}


@router.get("/healthz")
async def healthz(request: Request, server: Server, probe: bool = False) -> Any:
    """Cached state only: no LLM call, no model load. ``?probe=true`` asks the LLM now: it needs
    the token (when the server has one), starts at most once every ``probe_interval`` seconds
    (else 429), runs on its own thread and is waited for at most ``probe_deadline`` seconds."""
    config = server.config
    probed = None
    trusted = authorized({k.lower(): v for k, v in request.headers.items()}, config.token)
    if probe and config.llm is not None:
        if not trusted:
            return error_response(
                401,
                "error",
                "a live LLM probe needs the bearer token (plain /healthz does not)",
                "authorization",
                headers={"WWW-Authenticate": "Bearer"},
            )
        probed = await live_probe(server)
        if isinstance(probed, JSONResponse):
            return probed
    llm = server.llm_state()
    if probed is not None:
        llm["probe"] = probed
    ok = llm.get("reachable") is not False
    if not trusted:  # without the token: whether it works, not where it is or what it said
        llm = {"reachable": llm.get("reachable"), "checked": llm.get("checked")}
    body = {
        "status": "ok" if ok else "degraded",
        "version": __version__,
        "method": config.method,
        "model_loaded": server.model_loaded,
        "llm": {"spec": config.llm_spec, **llm} if trusted else llm,
        "queue": {
            "waiting": server.pool.waiting,
            "running": server.pool.running,
            "capacity": server.pool.capacity,
            "abandoned": server.pool.abandoned,  # timed out, still stopping, outside the count
        },
    }
    return JSONResponse(body, status_code=200 if ok else 503)


async def live_probe(server: ServerState) -> str | JSONResponse:
    """Ask the LLM now, on the probe's own thread: what came of it, or 429 when a probe started
    less than ``probe_interval`` seconds ago."""
    config = server.config
    fut = server.start_probe()
    if fut is None:
        return error_response(
            429,
            "error",
            f"a live LLM probe runs at most once every {config.probe_interval:g} s; retry later",
            "probe",
            headers={"Retry-After": str(server.probe_retry_after())},
        )
    try:
        await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(fut)), timeout=config.probe_deadline)
        return "answered"
    except asyncio.TimeoutError:
        server.note_llm(False, f"the probe got no answer within {config.probe_deadline:g} s")
        return f"no answer within {config.probe_deadline:g} s"


@router.get("/metrics", response_class=PlainTextResponse)
async def metrics(server: Server) -> Any:
    jobs: dict[str, float] = {s: 0 for s in ("queued", "running", "done", "failed")}
    for j in list(server.jobs.values()):
        jobs[j.state] += 1
    pool = server.pool
    gauges = {
        "hallucheck_queue_depth": ("Requests waiting for a worker.", float(pool.waiting)),
        "hallucheck_requests_in_progress": ("Requests being worked on.", float(pool.running)),
        "hallucheck_queue_capacity": ("Workers plus queue slots; beyond this: 503.", float(pool.capacity)),
        "hallucheck_model_loaded": ("1 when the default method's models are loaded.", float(server.model_loaded)),
        "hallucheck_jobs": ("Batch jobs by state.", jobs),
    }
    return PlainTextResponse(server.metrics.render(gauges), media_type="text/plain; version=0.0.4; charset=utf-8")
