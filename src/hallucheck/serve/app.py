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

This module holds the routes (:func:`create_app`); the request and response bodies are in
:mod:`.schemas`, the work pool, metrics and gate middleware in :mod:`.runtime`, and the settings
and server state in :mod:`.state` (the names in ``__all__`` stay importable from here).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from importlib import resources
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from .._version import __version__
from ..errors import BackendError, HallucheckError, InputError, ParseError
from ..llm.base import call_guard
from ..types import Mitigation, Usage
from .jobs import MAX_PAGE, job_page, json_response, retention_timer, run_job
from .limits import CallRefused, RequestBudget, response_too_large
from .runtime import Gate, Metrics, QueueFull, WorkPool, authorized, error_response
from .schemas import (
    CheckRequest,
    DetectRequest,
    DetectResponse,
    ErrorResponse,
    JobCreated,
    JobStatus,
    MitigateResponse,
    bounded_detection,
)
from .state import Job, ServeConfig, ServerState


# -- work -------------------------------------------------------------------------------------
def _reference(ref: str | list[str]) -> str | list[str]:
    return list(ref) if isinstance(ref, list) else ref


def _reply(payload: Any, cap: int) -> Response:
    """A detection's response, serialised on the worker (never on the event loop); one over the
    operator's response limit is refused (413) rather than sent."""
    response = json_response(payload)
    if len(response.body) > cap:
        exc = response_too_large(len(response.body), cap)
        return error_response(413, "error", str(exc), exc.field)
    return response


def _failure(exc: BaseException) -> JSONResponse:
    if isinstance(exc, (BackendError, ParseError)):  # e.g. a model that failed to load
        return error_response(502, "could_not_verify", f"could not verify: {exc}"[:500])
    if isinstance(exc, HallucheckError):
        return error_response(422, "error", str(exc), getattr(exc, "field", None) or _guess_field(str(exc)))
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    return error_response(500, "could_not_verify", f"unexpected {type(exc).__name__}: {first}")


def _guess_field(message: str) -> str | None:
    low = message.lower()
    if "method" in low:
        return "method"
    if "parameter" in low:
        return "params"
    return None


def create_app(config: ServeConfig | None = None) -> Any:
    """The ASGI app: the FastAPI app (``.app``) inside the gate middleware (token, body limit,
    metrics); ``.state`` is the :class:`ServerState` (pool, jobs, metrics)."""
    config = config or ServeConfig()
    state = ServerState(config)
    page = resources.files(__package__).joinpath("page.html").read_text(encoding="utf-8")

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        if config.preload:
            await asyncio.get_running_loop().run_in_executor(None, state.preload)
        sweeper = asyncio.create_task(retention_timer(state))
        yield
        sweeper.cancel()
        state.close()

    app = FastAPI(
        title="hallucheck",
        version=__version__,
        lifespan=lifespan,
        description="Find and fix ungrounded hallucinations in LLM answers against their reference text.",
    )
    app.state.hallucheck = state

    @app.exception_handler(RequestValidationError)
    async def bad_body(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        first = errors[0] if errors else {}
        loc = [str(p) for p in first.get("loc", ()) if p != "body"]
        name = ".".join(loc) or "body"
        msg = first.get("msg", "invalid request body")
        detail = [
            {k: v for k, v in e.items() if k not in ("input", "ctx", "url")} for e in errors
        ]  # no echo of the texts
        return JSONResponse(
            {
                "status": "error",
                "error": f"{name}: {msg}",
                "field": name,
                "detail": json.loads(json.dumps(detail, default=str)),
            },
            status_code=422,
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        """Every refusal has the documented shape. FastAPI answers 400 when the body cannot be
        parsed at all (e.g. JSON nested too deeply for the parser): that is a bad body, 422."""
        if exc.status_code == 400:
            return error_response(
                422, "error", "body: not a JSON object this server can read (malformed or nested too deeply)", "body"
            )
        return error_response(exc.status_code, "error", str(exc.detail), None, headers=getattr(exc, "headers", None))

    def busy() -> JSONResponse:
        return error_response(
            503,
            "error",
            "the server is busy (work queue full); retry later",
            None,
            headers={"Retry-After": str(state.pool.retry_after())},
        )

    def timed_out() -> JSONResponse:
        return error_response(
            504, "could_not_verify", f"the request took longer than {config.timeout:g} s; it was not verified"
        )

    responses: dict[int | str, dict[str, Any]] = {
        422: {"model": ErrorResponse, "description": "bad body (field named) or bad method/parameters"},
        413: {"model": ErrorResponse},
        503: {"model": ErrorResponse, "description": "queue full; see Retry-After"},
        504: {"model": ErrorResponse, "description": "timed out"},
        401: {"model": ErrorResponse},
    }

    async def pooled(work: Any, budget: RequestBudget) -> Any:
        """The work's result from the bounded pool (never on this event loop: see :mod:`.pool`), or
        the response that says why there is none (503 queue full, 504 timeout: the work makes no
        further LLM call, 500 unexpected)."""
        try:
            return await state.pool.run(
                work,
                timeout=config.timeout,
                on_loop=state.awaits_llm,
                on_timeout=lambda: budget.stop(f"the request took longer than {config.timeout:g} s"),
            )
        except QueueFull:
            return busy()
        except asyncio.TimeoutError:
            return timed_out()
        except Exception as exc:
            return _failure(exc)

    @app.post("/v1/detect", response_model=DetectResponse, responses=responses)
    async def detect(body: DetectRequest) -> Any:
        budget = state.budget()

        def work() -> Any:  # Pipeline.run, as arun runs it when the pool runs it on the I/O loop
            pipe = state.pipeline(body.method, body.params)
            try:
                with call_guard(budget):
                    det = pipe.run(body.answer, _reference(body.reference), question=body.question)
                if pipe.name == config.method and not body.params and det.status == "ok":
                    state.model_loaded = True  # the default method has run: its models are in memory
                if det.usage.calls and det.status == "ok":
                    state.note_llm(True)  # the LLM answered: /healthz says so without asking it again
                return det
            except (BackendError, ParseError) as exc:
                if isinstance(exc, BackendError) and not isinstance(exc, CallRefused):
                    state.note_llm(False, f"{type(exc).__name__}: {exc}")
                return pipe.error_detection(body.model_dump(), exc)
            finally:
                state.settle(pipe)

        def answer() -> Any:
            det = work()
            state.metrics.add_usage(det.usage)
            d = det.to_dict()
            payload = {
                "status": det.outcome,
                "exit_code": det.exit_code,
                "detection": d if body.echo else bounded_detection(d),
            }
            return _reply(payload, config.max_response_bytes)

        return await pooled(answer, budget)

    @app.post("/v1/mitigate", response_model=MitigateResponse, responses=responses)
    async def mitigate(body: DetectRequest) -> Any:
        budget = state.budget()

        def work() -> Any:
            pipe = state.pipeline(body.method, body.params)
            try:
                with call_guard(budget):
                    return pipe.mitigate(body.answer, _reference(body.reference), question=body.question)
            except (BackendError, ParseError) as exc:
                det = pipe.error_detection(body.model_dump(), exc)
                return Mitigation(body.answer, body.answer, (), det, None, Usage(), (f"could not verify: {exc}",))
            finally:
                state.settle(pipe)

        def answer() -> Any:
            mit = work()
            state.metrics.add_usage(mit.usage)
            final = mit.after or mit.before
            d = mit.to_dict()
            if not body.echo:
                d = {
                    **d,
                    "original": None,
                    "before": bounded_detection(d["before"]),
                    "after": None if d.get("after") is None else bounded_detection(d["after"]),
                }
            payload = {"status": final.outcome, "exit_code": final.exit_code, "mitigation": d}
            return _reply(payload, config.max_response_bytes)

        return await pooled(answer, budget)

    @app.post("/v1/check", response_model=JobCreated, status_code=202, responses=responses)
    async def check(body: CheckRequest) -> Any:
        from ..eval.check import row_to_example

        if len(body.rows) > config.max_rows:
            return error_response(
                413, "error", f"a job takes at most {config.max_rows} rows; got {len(body.rows)}", "rows"
            )
        examples, seen = [], set()
        for i, row in enumerate(body.rows):
            try:
                ex = row_to_example(row, i + 1, f"rows[{i}]", "job")
            except InputError as exc:
                return error_response(422, "error", str(exc), f"rows[{i}].{exc.field}" if exc.field else f"rows[{i}]")
            if ex.id in seen:
                return error_response(422, "error", f"rows[{i}]: id {ex.id!r} is used twice", f"rows[{i}].id")
            seen.add(ex.id)
            examples.append(ex)
        try:
            pipe = state.pipeline(body.method, body.params)
        except Exception as exc:
            return _failure(exc)
        active = sum(1 for j in state.jobs.values() if j.state in ("queued", "running"))
        if active >= config.max_jobs:
            return error_response(
                503,
                "error",
                f"{active} jobs are queued or running (the limit); retry later",
                None,
                headers={"Retry-After": "10"},
            )
        used = await asyncio.to_thread(state.prune_jobs)
        if used > config.jobs_max_bytes:
            return error_response(
                503,
                "error",
                "the job files of running jobs fill the server's job storage; retry later",
                None,
                headers={"Retry-After": "60"},
            )
        job = Job(id=uuid.uuid4().hex, dir=state.jobs_dir / "pending", total=len(examples), method=pipe.name)
        job.dir = state.jobs_dir / job.id
        state.jobs[job.id] = job

        cap = config.jobs_max_bytes - used  # the disk this job's files may take
        state.job_pool.submit(
            run_job, state, job, pipe, examples, cap
        )  # not tied to the request: survives a client disconnect
        return JSONResponse(
            {"id": job.id, "state": job.state, "total": job.total, "url": f"/v1/jobs/{job.id}"}, status_code=202
        )

    @app.get("/v1/jobs/{job_id}", response_model=JobStatus, responses={404: {"model": ErrorResponse}})
    async def job_status(job_id: str, offset: int = 0, limit: int = 100, detail: bool = False) -> Any:
        """Progress and one page of results (``offset``, ``limit`` at most 1000; ``next_offset``
        names the next page). Each result has its id, status, score and error; ``detail=true`` adds
        its detection (inputs not echoed). The file is read and the body built off the event loop."""
        job = state.jobs.get(job_id)
        if job is None:
            return error_response(
                404, "error", f"no job {job_id!r} (finished jobs are kept for a while, then deleted)", "id"
            )
        if offset < 0 or not 1 <= limit <= MAX_PAGE:
            return error_response(422, "error", f"offset must be >= 0 and limit in [1, {MAX_PAGE}]", "limit")
        return await asyncio.to_thread(job_page, job, offset, limit, detail, config.max_response_bytes)

    @app.get("/v1/methods")
    async def methods() -> Any:
        rows = await asyncio.get_running_loop().run_in_executor(None, state.methods)
        return {"default": config.method, "llm": config.llm_spec, "methods": rows}

    @app.get("/healthz")
    async def healthz(request: Request, probe: bool = False) -> Any:
        """Cached state only: no LLM call, no model load. ``?probe=true`` asks the LLM now: it needs
        the token (when the server has one), starts at most once every ``probe_interval`` seconds
        (else 429), runs on its own thread and is waited for at most ``probe_deadline`` seconds."""
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
            fut = state.start_probe()
            if fut is None:
                return error_response(
                    429,
                    "error",
                    f"a live LLM probe runs at most once every {config.probe_interval:g} s; retry later",
                    "probe",
                    headers={"Retry-After": str(state.probe_retry_after())},
                )
            try:
                await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(fut)), timeout=config.probe_deadline)
                probed = "answered"
            except asyncio.TimeoutError:
                probed = f"no answer within {config.probe_deadline:g} s"
                state.note_llm(False, f"the probe got no answer within {config.probe_deadline:g} s")
        llm = state.llm_state()
        if probed is not None:
            llm["probe"] = probed
        ok = llm.get("reachable") is not False
        if not trusted:  # without the token: whether it works, not where it is or what it said
            llm = {"reachable": llm.get("reachable"), "checked": llm.get("checked")}
        body = {
            "status": "ok" if ok else "degraded",
            "version": __version__,
            "method": config.method,
            "model_loaded": state.model_loaded,
            "llm": {"spec": config.llm_spec, **llm} if trusted else llm,
            "queue": {"waiting": state.pool.waiting, "running": state.pool.running, "capacity": state.pool.capacity},
        }
        return JSONResponse(body, status_code=200 if ok else 503)

    @app.get("/metrics", response_class=PlainTextResponse)
    async def metrics() -> Any:
        jobs: dict[str, float] = {s: 0 for s in ("queued", "running", "done", "failed")}
        for j in list(state.jobs.values()):
            jobs[j.state] += 1
        gauges = {
            "hallucheck_queue_depth": ("Requests waiting for a worker.", float(state.pool.waiting)),
            "hallucheck_requests_in_progress": ("Requests being worked on.", float(state.pool.running)),
            "hallucheck_queue_capacity": ("Workers plus queue slots; beyond this: 503.", float(state.pool.capacity)),
            "hallucheck_model_loaded": ("1 when the default method's models are loaded.", float(state.model_loaded)),
            "hallucheck_jobs": ("Batch jobs by state.", jobs),
        }
        return PlainTextResponse(state.metrics.render(gauges), media_type="text/plain; version=0.0.4; charset=utf-8")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index() -> Any:
        return HTMLResponse(
            page,
            headers={
                "Content-Security-Policy": "default-src 'self'; style-src 'unsafe-inline'; "
                "script-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; "
                "form-action 'self'",
                "X-Frame-Options": "DENY",
            },
        )

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
