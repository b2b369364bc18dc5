"""The ASGI app of ``hallucheck serve``.

- ``POST /v1/detect``, ``POST /v1/mitigate``: one answer; the reply is ``{"status", "exit_code",
  "detection" | "mitigation"}`` where ``status`` is the CLI's exit-code meaning (``grounded`` /
  ``hallucinated`` / ``could_not_verify`` / ``error``) and the payload is ``to_dict()``.
- ``POST /v1/check``: a batch job (run with :func:`hallucheck.eval.check.run_check`, one record
  written per finished row); ``GET /v1/jobs/{id}``: its progress and results.
- ``GET /v1/methods``, ``GET /healthz``, ``GET /metrics`` (Prometheus text), ``GET /`` (the page).

Work runs on a fixed pool of threads behind a bounded queue: when the queue is full the request
gets ``503`` with ``Retry-After`` at once, so there is never an unbounded backlog. A request that
takes longer than the timeout gets ``504`` (its work finishes in the background and keeps its
slot until then, so the bound stays true).
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import hmac
import json
import math
import tempfile
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Literal

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field

from .. import DEFAULT_METHOD, __version__
from ..errors import BackendError, HallucheckError, InputError, ParseError
from ..types import Detection, Mitigation, Usage

Status = Literal["grounded", "hallucinated", "could_not_verify", "error"]
EXIT_STATUS = {0: "grounded", 1: "hallucinated", 2: "error", 3: "could_not_verify"}
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
MAX_FINISHED_JOBS = 1000  # finished jobs the server remembers (oldest forgotten first)
NO_AUTH_PATHS = frozenset({"/healthz", "/"})  # "/" is the static page: no data; its API calls carry the token


@dataclass
class ServeConfig:
    """Settings of one server process (one model per process, shared by every request)."""

    method: str = DEFAULT_METHOD
    llm: Any = None  # an LLMClient, or None (``--llm none``)
    llm_spec: str = "none"
    workers: int = 2  # threads that run detections
    queue_size: int = 16  # requests that may wait for a worker; beyond that: 503
    timeout: float = 120.0  # seconds per request (504 after)
    max_body_bytes: int = 4_000_000  # 413 above
    token: str | None = None  # bearer token required for everything but /healthz (and the static page)
    jobs_dir: str | None = None  # where batch jobs write their results (default: a temporary directory)
    max_jobs: int = 8  # batch jobs queued or running; beyond that: 503
    max_rows: int = 10_000  # rows per batch job
    preload: bool = False  # load the default method's models (and probe the LLM) at start-up
    probe_interval: float = 30.0  # /healthz probes the LLM at most this often
    quiet: bool = True


# -- request and response bodies --------------------------------------------------------------
class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DetectRequest(_Body):
    answer: str = Field(description="the answer to check")
    reference: str | list[str] = Field(description="the reference text, or a list of passages")
    question: str | None = Field(default=None, description="the question the answer responds to (QA)")
    method: str | None = Field(default=None, description="method name (default: the server's --method)")
    params: dict[str, Any] = Field(default_factory=dict, description='method parameters, e.g. {"t2": 0.2}')


class CheckRequest(_Body):
    rows: list[dict[str, Any]] = Field(
        min_length=1,
        description="rows with answer, reference (or contexts: a list of passages), and optionally question and id",
    )
    method: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)


class DetectResponse(BaseModel):
    status: Status
    exit_code: int = Field(description="the CLI's exit code: 0 grounded, 1 hallucinated, 2 error, 3 could not verify")
    detection: dict[str, Any] = Field(description="Detection.to_dict()")


class MitigateResponse(BaseModel):
    status: Status = Field(
        description="of the re-check of the revised answer (of the first check when nothing changed)"
    )
    exit_code: int
    mitigation: dict[str, Any] = Field(description="Mitigation.to_dict()")


class ErrorResponse(BaseModel):
    status: Status
    error: str
    field: str | None = None


class JobCreated(BaseModel):
    id: str
    state: str
    total: int
    url: str


class JobStatus(BaseModel):
    id: str
    state: Literal["queued", "running", "done", "failed"]
    total: int
    done: int
    method: str
    error: str | None = None
    summary: dict[str, Any] | None = None
    results: list[dict[str, Any]] = Field(default_factory=list)


# -- helpers ----------------------------------------------------------------------------------
def detection_exit_code(det: Detection) -> int:
    if det.hallucinated:
        return 1
    if det.hallucinated is False and det.status == "ok":
        return 0
    return 3


def _error(
    code: int, status: str, message: str, field: str | None = None, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse({"status": status, "error": message, "field": field}, status_code=code, headers=headers)


class QueueFull(Exception):
    pass


class WorkPool:
    """A fixed number of worker threads and a bounded number of waiting tasks."""

    def __init__(self, workers: int, queue_size: int) -> None:
        self.workers = workers
        self.capacity = workers + queue_size
        self._executor = cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hallucheck-serve")
        self._lock = threading.Lock()
        self.admitted = 0  # waiting + running
        self.running = 0
        self._ewma = 0.05  # seconds per task, for Retry-After

    @property
    def waiting(self) -> int:
        return self.admitted - self.running

    def retry_after(self) -> int:
        return max(1, math.ceil(self._ewma * (self.waiting + 1) / self.workers))

    def submit(self, fn: Callable[[], Any]) -> cf.Future:
        with self._lock:
            if self.admitted >= self.capacity:
                raise QueueFull
            self.admitted += 1

        def run() -> Any:
            with self._lock:
                self.running += 1
            t0 = time.perf_counter()
            try:
                return fn()
            finally:
                with self._lock:
                    self.running -= 1
                    self.admitted -= 1
                    self._ewma = 0.8 * self._ewma + 0.2 * (time.perf_counter() - t0)

        try:
            return self._executor.submit(run)
        except RuntimeError:  # shut down
            with self._lock:
                self.admitted -= 1
            raise QueueFull from None

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


class Metrics:
    """Prometheus text exposition, written by hand (no client library)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: dict[tuple[str, str, int], int] = {}
        self.latency: dict[str, list[float]] = {}  # route -> bucket counts (+Inf last), then sum and count
        self.llm = Usage()

    def observe(self, method: str, route: str, code: int, seconds: float) -> None:
        with self._lock:
            key = (method, route, code)
            self.requests[key] = self.requests.get(key, 0) + 1
            h = self.latency.setdefault(route, [0.0] * (len(LATENCY_BUCKETS) + 3))
            for i, b in enumerate(LATENCY_BUCKETS):
                if seconds <= b:
                    h[i] += 1
            h[len(LATENCY_BUCKETS)] += 1  # +Inf
            h[-2] += seconds
            h[-1] += 1

    def add_usage(self, usage: Usage) -> None:
        with self._lock:
            self.llm = self.llm + usage

    def render(self, gauges: dict[str, tuple[str, float | dict[str, float]]]) -> str:
        out: list[str] = []
        with self._lock:
            out += [
                "# HELP hallucheck_http_requests_total HTTP requests by method, route and status code.",
                "# TYPE hallucheck_http_requests_total counter",
            ]
            for (m, route, code), n in sorted(self.requests.items()):
                out.append(f'hallucheck_http_requests_total{{method="{m}",route="{route}",code="{code}"}} {n}')
            out += [
                "# HELP hallucheck_http_request_duration_seconds Time from request to response.",
                "# TYPE hallucheck_http_request_duration_seconds histogram",
            ]
            for route, h in sorted(self.latency.items()):
                for i, b in enumerate(LATENCY_BUCKETS):
                    out.append(
                        f'hallucheck_http_request_duration_seconds_bucket{{route="{route}",le="{b:g}"}} {h[i]:g}'
                    )
                out.append(
                    f'hallucheck_http_request_duration_seconds_bucket{{route="{route}",le="+Inf"}} {h[len(LATENCY_BUCKETS)]:g}'
                )
                out.append(f'hallucheck_http_request_duration_seconds_sum{{route="{route}"}} {h[-2]:.6f}')
                out.append(f'hallucheck_http_request_duration_seconds_count{{route="{route}"}} {h[-1]:g}')
            u = self.llm
        out += [
            "# HELP hallucheck_llm_calls_total LLM calls made (not answered from the cache).",
            "# TYPE hallucheck_llm_calls_total counter",
            f"hallucheck_llm_calls_total {u.calls}",
            "# HELP hallucheck_llm_cached_calls_total LLM calls answered from the response cache.",
            "# TYPE hallucheck_llm_cached_calls_total counter",
            f"hallucheck_llm_cached_calls_total {u.cached_calls}",
            "# HELP hallucheck_llm_tokens_total LLM tokens by kind.",
            "# TYPE hallucheck_llm_tokens_total counter",
            f'hallucheck_llm_tokens_total{{kind="prompt"}} {u.prompt_tokens}',
            f'hallucheck_llm_tokens_total{{kind="completion"}} {u.completion_tokens}',
            "# HELP hallucheck_llm_seconds_total Seconds spent in LLM calls.",
            "# TYPE hallucheck_llm_seconds_total counter",
            f"hallucheck_llm_seconds_total {u.seconds:.6f}",
        ]
        for name, (help_text, value) in gauges.items():
            out += [f"# HELP {name} {help_text}", f"# TYPE {name} gauge"]
            if isinstance(value, dict):
                for label, v in sorted(value.items()):
                    out.append(f'{name}{{state="{label}"}} {v:g}')
            else:
                out.append(f"{name} {value:g}")
        return "\n".join(out) + "\n"


ROUTES = (
    "/v1/detect",
    "/v1/mitigate",
    "/v1/check",
    "/v1/methods",
    "/healthz",
    "/metrics",
    "/",
    "/docs",
    "/openapi.json",
)


def _route_label(path: str) -> str:
    if path in ROUTES:
        return path
    if path.startswith("/v1/jobs/"):
        return "/v1/jobs/{id}"
    return "other"


class Gate:
    """ASGI middleware: bearer token, request size limit (413), request metrics."""

    def __init__(self, app: Any, *, state: "ServerState") -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()
        path = scope.get("path", "")
        code_box = [500]

        async def send_wrapper(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                code_box[0] = message["status"]
            await send(message)

        try:
            await self._handle(scope, receive, send_wrapper, path)
        finally:
            self.state.metrics.observe(
                scope.get("method", ""), _route_label(path), code_box[0], time.perf_counter() - t0
            )

    async def _reply(self, scope: dict[str, Any], receive: Any, send: Any, response: Any) -> None:
        await response(scope, receive, send)

    async def _handle(self, scope: dict[str, Any], receive: Any, send: Any, path: str) -> None:
        cfg = self.state.config
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if cfg.token and path not in NO_AUTH_PATHS:
            auth = headers.get("authorization", "")
            given = auth[7:] if auth[:7].lower() == "bearer " else ""
            if not hmac.compare_digest(given.encode(), cfg.token.encode()):
                await self._reply(
                    scope,
                    receive,
                    send,
                    _error(
                        401,
                        "error",
                        "missing or wrong bearer token (send Authorization: Bearer <token>)",
                        "authorization",
                        headers={"WWW-Authenticate": "Bearer"},
                    ),
                )
                return
        limit = cfg.max_body_bytes
        too_big = _error(413, "error", f"the request body is larger than the limit of {limit} bytes", "body")
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            await self._reply(scope, receive, send, too_big)
            return
        if scope.get("method") in ("POST", "PUT", "PATCH"):
            chunks, size, more = [], 0, True
            while more:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > limit:
                    await self._reply(scope, receive, send, too_big)
                    return
                chunks.append(chunk)
                more = message.get("more_body", False)
            body = b"".join(chunks)
            sent = [False]

            async def replay() -> dict[str, Any]:
                if not sent[0]:
                    sent[0] = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            await self.app(scope, replay, send)
            return
        await self.app(scope, receive, send)


@dataclass
class Job:
    id: str
    dir: Path
    total: int
    method: str
    state: str = "queued"
    error: str | None = None
    summary: dict[str, Any] | None = None
    created: float = field(default_factory=time.time)


class ServerState:
    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.metrics = Metrics()
        self.pool = WorkPool(config.workers, config.queue_size)
        self.job_pool = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="hallucheck-job")
        self._pipelines: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.jobs: dict[str, Job] = {}
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if config.jobs_dir:
            self.jobs_dir = Path(config.jobs_dir)
        else:
            self._tmp = tempfile.TemporaryDirectory(prefix="hallucheck-jobs-")
            self.jobs_dir = Path(self._tmp.name)
        self.jobs_dir.mkdir(parents=True, exist_ok=True)
        self.model_loaded = False
        self.llm_probe: dict[str, Any] = {"reachable": None, "error": None, "checked": None}
        self._methods: list[dict[str, Any]] | None = None

    # -- methods ------------------------------------------------------------------------------
    def pipeline(self, method: str | None, params: dict[str, Any]) -> Any:
        """The configured method (cached per name and parameters: models load once per process)."""
        from .. import load_method
        from ..registry import entry

        found = entry("method", method or self.config.method)  # unknown -> did-you-mean (ConfigError)
        name = found.name
        if "llm" in params:
            raise InputError(
                "The LLM is the server's (hallucheck serve --llm ...); it is not a method parameter.",
                field="params.llm",
            )
        key = json.dumps([name, params], sort_keys=True, default=str)
        with self._lock:
            if key in self._pipelines:
                self._pipelines.move_to_end(key)
                return self._pipelines[key]
        llm = self.config.llm
        if llm is None:
            pipe = load_method(name, llm="none", **params)
        else:
            pipe = load_method(name, llm=llm if found.needs_llm else None, **params)
        with self._lock:
            self._pipelines[key] = pipe
            while len(self._pipelines) > 32:
                self._pipelines.popitem(last=False)
        return pipe

    def methods(self) -> list[dict[str, Any]]:
        if self._methods is None:
            from ..registry import available, mitigates

            rows = []
            for e in available("method"):
                needs = not e.runs_without_llm
                rows.append(
                    {
                        "name": e.name,
                        "summary": e.summary,
                        "needs_llm": needs,
                        "uses_llm": e.needs_llm,
                        "mitigates": mitigates(e.name),
                        "default": e.name == self.config.method,
                        "available": not (needs and self.config.llm is None),
                    }
                )
            self._methods = rows
        return self._methods

    # -- health -------------------------------------------------------------------------------
    def probe_llm(self, force: bool = False) -> dict[str, Any]:
        llm = self.config.llm
        if llm is None:
            return {"reachable": None, "error": None, "checked": None}
        last = self.llm_probe.get("checked")
        if not force and last is not None and time.time() - last < self.config.probe_interval:
            return self.llm_probe
        from ..llm.base import LLMRequest, Message

        try:  # straight to the backend: a cached reply would say nothing about reachability
            llm._complete(LLMRequest(messages=(Message("user", "Reply with OK."),), max_tokens=1, prompt="healthz"))
            self.llm_probe = {"reachable": True, "error": None, "checked": time.time()}
        except Exception as exc:  # any failure means: not reachable now
            self.llm_probe = {"reachable": False, "error": f"{type(exc).__name__}: {exc}"[:300], "checked": time.time()}
        return self.llm_probe

    def preload(self) -> None:
        """Build the default method and run it once, so its models are in memory before the first request."""
        pipe = self.pipeline(None, {})
        try:
            pipe.run("The car has four wheels.", "The car has four wheels and one spare tyre.")
        except HallucheckError:
            pass
        self.model_loaded = True
        if self.config.llm is not None:
            self.probe_llm(force=True)

    def close(self) -> None:
        self.pool.shutdown()
        self.job_pool.shutdown(wait=False, cancel_futures=True)
        if self._tmp is not None:
            self._tmp.cleanup()


# -- work -------------------------------------------------------------------------------------
def _reference(ref: str | list[str]) -> str | list[str]:
    return list(ref) if isinstance(ref, list) else ref


async def _run_in_pool(state: ServerState, fn: Callable[[], Any]) -> Any:
    """Run ``fn`` on the pool; raises QueueFull or asyncio.TimeoutError."""
    fut = state.pool.submit(fn)
    return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(fut)), timeout=state.config.timeout)


def _failure(exc: BaseException) -> JSONResponse:
    if isinstance(exc, (BackendError, ParseError)):  # e.g. a model that failed to load
        return _error(502, "could_not_verify", f"could not verify: {exc}"[:500])
    if isinstance(exc, HallucheckError):
        return _error(422, "error", str(exc), getattr(exc, "field", None) or _guess_field(str(exc)))
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    return _error(500, "could_not_verify", f"unexpected {type(exc).__name__}: {first}")


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
        yield
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

    def busy() -> JSONResponse:
        return _error(
            503,
            "error",
            "the server is busy (work queue full); retry later",
            None,
            headers={"Retry-After": str(state.pool.retry_after())},
        )

    def timed_out() -> JSONResponse:
        return _error(
            504, "could_not_verify", f"the request took longer than {config.timeout:g} s; it was not verified"
        )

    responses: dict[int | str, dict[str, Any]] = {
        422: {"model": ErrorResponse, "description": "bad body (field named) or bad method/parameters"},
        413: {"model": ErrorResponse},
        503: {"model": ErrorResponse, "description": "queue full; see Retry-After"},
        504: {"model": ErrorResponse, "description": "timed out"},
        401: {"model": ErrorResponse},
    }

    async def pooled(work: Any) -> Any:
        """The work's result from the bounded pool, or the response that says why there is none
        (503 queue full, 504 timeout, 500 unexpected)."""
        try:
            return await _run_in_pool(state, work)
        except QueueFull:
            return busy()
        except asyncio.TimeoutError:
            return timed_out()
        except Exception as exc:
            return _failure(exc)

    @app.post("/v1/detect", response_model=DetectResponse, responses=responses)
    async def detect(body: DetectRequest) -> Any:
        def work() -> Any:
            pipe = state.pipeline(body.method, body.params)
            try:
                det = pipe.run(body.answer, _reference(body.reference), question=body.question)
                if pipe.name == config.method and not body.params and det.status == "ok":
                    state.model_loaded = True  # the default method has run: its models are in memory
                return det
            except (BackendError, ParseError) as exc:
                return pipe.error_detection(body.model_dump(), exc)

        det = await pooled(work)
        if isinstance(det, JSONResponse):
            return det
        state.metrics.add_usage(det.usage)
        code = detection_exit_code(det)
        return JSONResponse({"status": EXIT_STATUS[code], "exit_code": code, "detection": det.to_dict()})

    @app.post("/v1/mitigate", response_model=MitigateResponse, responses=responses)
    async def mitigate(body: DetectRequest) -> Any:
        def work() -> Any:
            pipe = state.pipeline(body.method, body.params)
            try:
                return pipe.mitigate(body.answer, _reference(body.reference), question=body.question)
            except (BackendError, ParseError) as exc:
                det = pipe.error_detection(body.model_dump(), exc)
                return Mitigation(body.answer, body.answer, (), det, None, Usage(), (f"could not verify: {exc}",))

        mit = await pooled(work)
        if isinstance(mit, JSONResponse):
            return mit
        state.metrics.add_usage(mit.usage)
        code = detection_exit_code(mit.after or mit.before)
        return JSONResponse({"status": EXIT_STATUS[code], "exit_code": code, "mitigation": mit.to_dict()})

    @app.post("/v1/check", response_model=JobCreated, status_code=202, responses=responses)
    async def check(body: CheckRequest) -> Any:
        from ..eval.check import row_to_example

        if len(body.rows) > config.max_rows:
            return _error(413, "error", f"a job takes at most {config.max_rows} rows; got {len(body.rows)}", "rows")
        examples, seen = [], set()
        for i, row in enumerate(body.rows):
            try:
                ex = row_to_example(row, i + 1, f"rows[{i}]", "job")
            except InputError as exc:
                return _error(422, "error", str(exc), f"rows[{i}].{exc.field}" if exc.field else f"rows[{i}]")
            if ex.id in seen:
                return _error(422, "error", f"rows[{i}]: id {ex.id!r} is used twice", f"rows[{i}].id")
            seen.add(ex.id)
            examples.append(ex)
        try:
            pipe = state.pipeline(body.method, body.params)
        except Exception as exc:
            return _failure(exc)
        active = sum(1 for j in state.jobs.values() if j.state in ("queued", "running"))
        if active >= config.max_jobs:
            return _error(
                503,
                "error",
                f"{active} jobs are queued or running (the limit); retry later",
                None,
                headers={"Retry-After": "10"},
            )
        job = Job(id=uuid.uuid4().hex, dir=state.jobs_dir / "pending", total=len(examples), method=pipe.name)
        job.dir = state.jobs_dir / job.id
        finished = [j for j in state.jobs.values() if j.state in ("done", "failed")]
        for old in sorted(finished, key=lambda j: j.created)[: max(0, len(finished) - MAX_FINISHED_JOBS)]:
            state.jobs.pop(old.id, None)  # forgotten by the server; its files stay in the jobs directory
        state.jobs[job.id] = job

        def run_job() -> None:
            from ..eval.check import run_check
            from ..eval.runner import read_results

            job.state = "running"
            try:
                job.summary = run_check(pipe, examples, out_dir=job.dir, workers=config.workers, progress=False)
                job.state = "done"
            except Exception as exc:  # the rows that finished stay on disk and in the results
                job.state, job.error = "failed", f"{type(exc).__name__}: {exc}"[:500]
            usage = Usage()
            for rec in read_results(job.dir):
                usage = usage + Usage.from_dict((rec.get("detection") or {}).get("usage") or {})
            state.metrics.add_usage(usage)

        state.job_pool.submit(run_job)  # not tied to the request: survives a client disconnect
        return JSONResponse(
            {"id": job.id, "state": job.state, "total": job.total, "url": f"/v1/jobs/{job.id}"}, status_code=202
        )

    @app.get("/v1/jobs/{job_id}", response_model=JobStatus, responses={404: {"model": ErrorResponse}})
    async def job_status(job_id: str) -> Any:
        from ..eval.check import _status
        from ..eval.runner import read_results

        job = state.jobs.get(job_id)
        if job is None:
            return _error(404, "error", f"no job {job_id!r} (jobs live as long as the server process)", "id")
        records = read_results(job.dir) if job.dir.exists() else []
        results = [
            {
                "id": r["id"],
                "status": _status(r).replace(" ", "_"),
                "score": r.get("score"),
                "error": r.get("error"),
                "detection": r.get("detection"),
            }
            for r in records
        ]
        return {
            "id": job.id,
            "state": job.state,
            "total": job.total,
            "done": len(records),
            "method": job.method,
            "error": job.error,
            "summary": {k: v for k, v in job.summary.items() if k != "files"} if job.summary else None,
            "results": results,
        }

    @app.get("/v1/methods")
    async def methods() -> Any:
        rows = await asyncio.get_running_loop().run_in_executor(None, state.methods)
        return {"default": config.method, "llm": config.llm_spec, "methods": rows}

    @app.get("/healthz")
    async def healthz(probe: bool = False) -> Any:
        llm = await asyncio.get_running_loop().run_in_executor(None, state.probe_llm, probe)
        ok = llm.get("reachable") is not False
        body = {
            "status": "ok" if ok else "degraded",
            "version": __version__,
            "method": config.method,
            "model_loaded": state.model_loaded,
            "llm": {"spec": config.llm_spec, **llm},
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
                "script-src 'unsafe-inline'; img-src 'self' data:"
            },
        )

    return Gate(app, state=state)  # type: ignore[return-value]


__all__ = [
    "ServeConfig",
    "create_app",
    "DetectRequest",
    "DetectResponse",
    "MitigateResponse",
    "CheckRequest",
    "detection_exit_code",
    "WorkPool",
    "Metrics",
]
