"""The server's settings (:class:`ServeConfig`) and state: configured methods, batch jobs, the LLM probe."""

from __future__ import annotations

import concurrent.futures as cf
import json
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import DEFAULT_METHOD
from .._lru import LRUCache
from ..errors import HallucheckError, InputError
from .runtime import Metrics, WorkPool

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
    token: str | None = None  # bearer token required for everything but /healthz (and the static page)
    jobs_dir: str | None = None  # where batch jobs write their results (default: a temporary directory)
    max_jobs: int = 8  # batch jobs queued or running; beyond that: 503
    max_rows: int = 10_000  # rows per batch job
    preload: bool = False  # load the default method's models (and probe the LLM) at start-up
    probe_interval: float = 30.0  # /healthz probes the LLM at most this often
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


class ServerState:
    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.metrics = Metrics()
        self.pool = WorkPool(config.workers, config.queue_size)
        self.job_pool = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="hallucheck-job")
        self._pipelines = LRUCache(32)  # configured methods: models load once per process
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
        pipe = self._pipelines.get(key)
        if pipe is not None:
            return pipe
        llm = self.config.llm
        if llm is None:
            pipe = load_method(name, llm="none", **params)
        else:
            pipe = load_method(name, llm=llm if found.needs_llm else None, **params)
        self._pipelines.put(key, pipe)
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
