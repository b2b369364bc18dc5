"""The server's settings (:class:`ServeConfig`) and state: configured methods, batch jobs, the LLM probe."""

from __future__ import annotations

import concurrent.futures as cf
import gc
import json
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import _aio
from .._lru import LRUCache
from ..errors import HallucheckError, InputError
from ..loader import DEFAULT_METHOD
from .limits import RequestBudget, check_max_tokens, hub_refusal
from .params import check_request_params
from .runtime import Metrics, WorkPool, allowed_hosts

MAX_FINISHED_JOBS = 1000  # finished jobs the server remembers (oldest forgotten first)


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
    max_response_bytes: int = 16_000_000  # a response (or a page of job results) larger than this: 413
    max_llm_calls: int | None = 500  # LLM calls one request may make (cached replies are free); None: no limit
    max_tokens: int | None = 2048  # tokens one LLM call may generate (requests asking more are lowered)
    token: str | None = None  # bearer token required for everything but /healthz (and the static page)
    jobs_dir: str | None = None  # where batch jobs write their results (default: a temporary directory)
    max_jobs: int = 8  # batch jobs queued or running; beyond that: 503
    max_rows: int = 10_000  # rows per batch job
    job_retention: float = 3600.0  # seconds a finished job's results are kept (then deleted, and the job forgotten)
    jobs_max_bytes: int = 500_000_000  # disk the job files may take; the oldest finished jobs go first, then 503
    preload: bool = False  # load the default method's models (and probe the LLM) at start-up
    probe_interval: float = 10.0  # a live LLM probe (/healthz?probe=true) starts at most this often
    probe_deadline: float = 3.0  # seconds /healthz?probe=true waits for the probe before answering
    host: str = "127.0.0.1"  # the address bound (its name is an allowed Host)
    allowed_hosts: tuple[str, ...] | None = None  # Host names answered (None: loopback names + host; "*": any)
    cors_origins: tuple[str, ...] = ()  # origins allowed to call the API from a browser (none by default)
    methods: tuple[str, ...] | None = None  # the methods a request may name (None: every registered one)
    method_params: dict[str, dict[str, Any]] = field(default_factory=dict)  # the operator's fixed parameters
    quiet: bool = True


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
    finished: float | None = None


class ServerState:
    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.metrics = Metrics()
        self.pool = WorkPool(config.workers, config.queue_size)
        self.job_pool = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="hallucheck-job")
        self._pipelines = LRUCache(32)  # configured methods: models load once per process
        self._unsettled: dict[int, Any] = {}  # pipelines built but not yet run to the end once
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
        self.probe_pool = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="hallucheck-probe")
        self._probe: cf.Future | None = None
        self._probe_started: float | None = None
        self.allowed_hosts = allowed_hosts(config.host, config.allowed_hosts)

    @property
    def awaits_llm(self) -> bool:
        """Detections run on the event loop (``Pipeline.arun``): the LLM's requests can be awaited
        there (the OpenAI-compatible client, with the ``async`` extra). Otherwise a detection holds
        a worker thread, which a local LLM or model needs anyway."""
        return bool(getattr(self.config.llm, "async_native", False)) and _aio.available()

    # -- job files ----------------------------------------------------------------------------
    def forget_job(self, job: Job) -> None:
        self.jobs.pop(job.id, None)
        shutil.rmtree(job.dir, ignore_errors=True)

    def jobs_bytes(self) -> int:
        total = 0
        for job in list(self.jobs.values()):
            if job.dir.is_dir():
                total += sum(f.stat().st_size for f in job.dir.rglob("*") if f.is_file())
        return total

    def prune_jobs(self) -> int:
        """Delete the files of finished jobs older than ``job_retention`` and, while the job files
        take more than ``jobs_max_bytes``, of the oldest finished jobs; returns the bytes left.
        Only the directories of this server's jobs are touched."""
        with self._lock:
            now = time.time()
            finished = sorted(
                (j for j in self.jobs.values() if j.state in ("done", "failed")), key=lambda j: j.finished or j.created
            )
            for job in finished:
                if now - (job.finished or job.created) > self.config.job_retention:
                    self.forget_job(job)
            finished = [j for j in finished if j.id in self.jobs]
            for job in finished[: max(0, len(finished) - MAX_FINISHED_JOBS)]:
                self.forget_job(job)
            finished = [j for j in finished if j.id in self.jobs]
            total = self.jobs_bytes()
            while total > self.config.jobs_max_bytes and finished:
                self.forget_job(finished.pop(0))
                total = self.jobs_bytes()
            return total

    # -- methods ------------------------------------------------------------------------------
    def pipeline(self, method: str | None, params: dict[str, Any]) -> Any:
        """The configured method (cached per name and parameters: models load once per process)."""
        from ..loader import MethodSpec
        from ..registry import entry

        found = entry("method", method or self.config.method)  # unknown -> did-you-mean (ConfigError)
        name = found.name
        allowed = self.config.methods
        if allowed is not None and name not in allowed and name != self.config.method:
            raise InputError(
                f"The method {name!r} is not offered by this server; it offers {', '.join(self.offered())}.",
                field="method",
            )
        fixed = self.config.method_params.get(name, {})
        refused = hub_refusal(name, fixed)
        if refused:
            raise InputError(refused, field="method")
        check_request_params(name, params, fixed)
        check_max_tokens(params, self.config.max_tokens)
        params = {**fixed, **params}
        key = json.dumps([name, params], sort_keys=True, default=str)
        pipe = self._pipelines.get(key)
        if pipe is not None:
            return pipe
        llm = "none" if self.config.llm is None else self.config.llm
        # a first build may load models: off the event loop when a detection runs there
        try:
            pipe = _aio.blocking(MethodSpec.of(name, params=params, llm=llm).build).method
        except (TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
            if isinstance(exc, HallucheckError) or not params:
                raise
            # a value of the right JSON type that the method cannot take: the request's, so 422
            raise InputError(
                f"params: a value {name!r} cannot take ({type(exc).__name__}: {exc})"[:300], field="params"
            ) from None

        self._pipelines.put(key, pipe)
        with self._lock:
            self._unsettled[id(pipe)] = pipe
        return pipe

    def settle(self, pipe: Any) -> None:
        """Called when a run of ``pipe`` has ended: after its first run, whatever it loaded (models,
        vocabularies, tokenizers) lives as long as the process, so every object alive now is moved
        out of the garbage collector's reach (``gc.freeze``). A full collection otherwise walks
        every object the models hold while holding the interpreter lock, and every thread waits
        for it, the event loop that answers /healthz, 503 and 504 too. Objects frozen
        are still freed when nothing refers to them; only cycles among them are never collected,
        and a pipeline is frozen once."""
        with self._lock:
            if self._unsettled.pop(id(pipe), None) is None:
                return
        gc.freeze()

    def budget(self) -> RequestBudget:
        """The limits of one request's LLM calls (none without an LLM)."""
        cfg = self.config
        return RequestBudget(cfg.max_llm_calls, cfg.max_tokens)

    def offered(self) -> list[str]:
        from ..registry import available

        names = [e.name for e in available("method")]
        allowed = self.config.methods
        return [n for n in names if allowed is None or n in allowed or n == self.config.method]

    def methods(self) -> list[dict[str, Any]]:
        if self._methods is None:
            from ..loader import mitigates
            from ..registry import available

            rows = []
            offered = set(self.offered())
            for e in available("method"):
                if e.name not in offered:
                    continue
                needs = not e.runs_without_llm
                repairs_with_llm = mitigates(e.name)
                # a method whose repair rewrites with the LLM cannot repair on a server without one;
                # one that also runs without an LLM repairs contradicted figures from the reference there
                repair_needs_llm = repairs_with_llm and e.needs_llm and not e.llm_optional and self.config.llm is None
                rows.append(
                    {
                        "name": e.name,
                        "summary": e.summary,
                        "needs_llm": needs,
                        "uses_llm": e.needs_llm,
                        "mitigates": repairs_with_llm,
                        "repairs": repairs_with_llm and not repair_needs_llm,
                        "repair_note": (
                            "repairing needs an LLM: this server runs without one (--llm none)"
                            if repair_needs_llm
                            else None
                        ),
                        "default": e.name == self.config.method,
                        "available": not (needs and self.config.llm is None)
                        and not hub_refusal(e.name, self.config.method_params.get(e.name, {})),
                    }
                )
            self._methods = rows
        return self._methods

    # -- health -------------------------------------------------------------------------------
    def llm_state(self) -> dict[str, Any]:
        """What is known about the LLM, without asking it (the last probe, or the last request's outcome)."""
        if self.config.llm is None:
            return {"reachable": None, "error": None, "checked": None}
        return dict(self.llm_probe)

    def note_llm(self, ok: bool, error: str | None = None) -> None:
        """A request's LLM calls answered (``ok``) or the backend failed: the health state follows."""
        if self.config.llm is not None:
            self.llm_probe = {"reachable": ok, "error": None if ok else (error or "")[:300], "checked": time.time()}

    def start_probe(self) -> cf.Future | None:
        """Start one live probe of the LLM on its own thread (never on a request worker); None when
        rate-limited (one every ``probe_interval`` seconds, one at a time)."""
        if self.config.llm is None:
            return None
        with self._lock:
            now = time.monotonic()
            running = self._probe is not None and not self._probe.done()
            if running or (self._probe_started is not None and now - self._probe_started < self.config.probe_interval):
                return None
            self._probe_started = now
            self._probe = self.probe_pool.submit(self.probe_llm)
            return self._probe

    def probe_retry_after(self) -> int:
        started = self._probe_started or 0.0
        return max(1, int(self.config.probe_interval - (time.monotonic() - started)) + 1)

    def probe_llm(self) -> dict[str, Any]:
        llm = self.config.llm
        if llm is None:
            return self.llm_state()
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
        self.settle(pipe)
        self.model_loaded = True
        if self.config.llm is not None:
            self.probe_llm()

    def close(self) -> None:
        self.pool.shutdown()
        self.job_pool.shutdown(wait=False, cancel_futures=True)
        self.probe_pool.shutdown(wait=False, cancel_futures=True)
        if self._tmp is not None:
            self._tmp.cleanup()
