"""The Ray engine: examples in batches on Ray actors, records written by the driver.

Each actor builds the method once, from a :class:`~hallucheck.loader.MethodSpec` (models
load once per actor, never travel), and turns batches of examples into records with the same
:class:`~hallucheck.engines.task.RecordTask` the local engine runs. The driver keeps at most
``in_flight`` batches queued per actor, and hands each record to the runner's writer as its
batch comes back: ``results.jsonl``, resuming, ``--max-errors``, reports and metrics are the
local engine's.

Faults: a batch whose actor dies (killed, out of memory, node lost) goes back to the queue and
runs on another actor; a replacement actor is started while the restart budget lasts. A batch
arrives whole or not at all, and an id is written once, so nothing is lost or written twice. An
example that raises is recorded with its error inside the batch, as locally. A method that cannot
be built (bad parameter, missing model) stops the run with that error.
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import contextvars
import math
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..errors import BackendError, ConfigError, MissingDependencyError, install_hint
from ..loader import MethodSpec
from .task import RecordTask

# a batch that killed this many actors in a row is not tried again (it would kill them all)
MAX_BATCH_ATTEMPTS = 3


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise MissingDependencyError("The Ray engine (--engine ray) needs Ray, which", install_hint("ray")) from None
    return ray


def from_config(
    config: Any, spec: MethodSpec | Callable[[], MethodSpec] | None, *, verbose: bool = True
) -> "RayEngine":
    """The Ray engine of an :class:`~hallucheck.engines.EngineConfig`: Ray is imported first (a
    missing extra is reported before any work), then ``spec`` (or the function that makes it)
    describes the method every actor builds."""
    import_ray()
    if callable(spec) and not isinstance(spec, MethodSpec):
        spec = spec()
    if spec is None:
        raise ConfigError("The Ray engine needs a MethodSpec describing the method.")
    return RayEngine(
        spec,
        address=config.ray_address,
        actors=config.actors,
        actor_cpus=config.actor_cpus,
        actor_gpus=config.actor_gpus,
        threads=config.workers,
        batch_size=config.batch_size,
        verbose=verbose,
    )


class ExampleWorker:
    """The actor (wrapped with ``ray.remote`` when the engine starts): builds the method in
    :meth:`setup`, then runs batches with ``threads`` threads."""

    def __init__(
        self, spec: MethodSpec, mitigate: bool, count_tokens: bool, threads: int = 1, cpus: float = 0.0
    ) -> None:
        self.spec, self.mitigate, self.count, self.threads = spec, mitigate, count_tokens, max(1, threads)
        self.cpus = cpus
        self.task: Any = None

    def setup(self) -> dict[str, Any]:
        t0 = time.perf_counter()
        built = self.spec.build()
        method, llm = built.method, built.llm
        cores = int(self.cpus)
        if (
            cores >= 1
            and llm is not None
            and getattr(llm, "_llm", "loaded") is None
            and getattr(llm, "n_threads", 0) > cores
        ):
            # an in-process model (llama.cpp) not loaded yet: use the cores this actor reserved, not
            # every core of the node (two actors on two cores would otherwise run four threads)
            llm.n_threads = cores
        count = llm.count_tokens if (self.count and llm is not None) else None
        self.task = RecordTask(method, mitigate=self.mitigate, count_tokens=count)
        return {"pid": os.getpid(), "host": os.uname().nodename, "seconds": time.perf_counter() - t0}

    def run_batch(self, examples: Sequence[Any]) -> list[dict[str, Any]]:
        if self.task is None:
            raise RuntimeError("run_batch before setup")
        if self.threads <= 1 or len(examples) <= 1:
            return [self.task(ex) for ex in examples]
        with cf.ThreadPoolExecutor(max_workers=self.threads) as pool:
            return list(pool.map(lambda ex: contextvars.copy_context().run(self.task, ex), examples))


@dataclass
class _Actor:
    number: int
    handle: Any
    ready: bool = False
    dead: bool = False
    in_flight: set[Any] = field(default_factory=set)


@dataclass
class RayEngine:
    """Run a method over examples on Ray actors.

    - ``spec``: how each actor builds the method (:class:`~hallucheck.loader.MethodSpec`).
    - ``address``: a running cluster to join (``"auto"``, ``"ray://head:10001"``); None starts a
      local Ray instance for the run (or uses the one this process already started).
    - ``actors``: how many (default: as many as the cluster's CPUs / ``actor_cpus`` allow, at
      most one per batch); ``actor_cpus`` / ``actor_gpus``: Ray resources each one reserves.
    - ``threads``: examples in parallel inside an actor (useful when the LLM is an endpoint).
    - ``batch_size``: examples per batch (default: about four batches per actor, at most 32).
    - ``max_restarts``: replacement actors started in all when actors die (default: ``actors``).
    """

    spec: MethodSpec
    address: str | None = None
    actors: int | None = None
    actor_cpus: float = 1.0
    actor_gpus: float = 0.0
    threads: int = 1
    batch_size: int | None = None
    max_restarts: int | None = None
    in_flight: int = 2
    init_kwargs: dict[str, Any] = field(default_factory=dict)
    verbose: bool = True
    stats: dict[str, Any] = field(default_factory=dict)
    _actors: list[_Actor] = field(default_factory=list, repr=False)

    name = "ray"

    # -- what a test or an operator may look at ------------------------------------------------
    def live_actors(self) -> list[Any]:
        """Handles of the actors alive now, the busiest first."""
        alive = [a for a in self._actors if not a.dead]
        return [a.handle for a in sorted(alive, key=lambda a: -len(a.in_flight))]

    def describe(self) -> dict[str, Any]:
        return {
            "engine": self.name,
            "address": self.address or "local",
            "actors": self.actors,
            "actor_cpus": self.actor_cpus,
            "actor_gpus": self.actor_gpus,
            "threads": self.threads,
        }

    def _say(self, text: str) -> None:
        if self.verbose:
            sys.stderr.write(f"[hallucheck] ray: {text}\n")
            sys.stderr.flush()

    # -- the run ---------------------------------------------------------------------------------
    def execute(
        self,
        todo: Sequence[Any],
        task: Any,
        finish: Callable[[dict[str, Any]], None],
        progress: Any = None,
    ) -> None:
        """Run ``task``'s work (its ``mitigate`` and whether it counts tokens; the method is the
        actors' own) over ``todo`` and hand each record to ``finish`` in the driver."""
        if not todo:
            return
        ray = import_ray()
        started_here = not ray.is_initialized()
        if started_here:
            kwargs = {"include_dashboard": False, **self.init_kwargs}
            if self.address:
                kwargs["address"] = self.address
            try:
                ray.init(**kwargs)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = f"the Ray cluster at {self.address}" if self.address else "a local Ray instance"
                raise ConfigError(
                    f"Could not start or join {where}: {exc}. Check --ray-address (auto, or ray://HEAD:10001), "
                    "or leave it out to start a local instance."
                ) from None
        try:
            self._run(ray, list(todo), task, finish, progress)
        finally:
            for a in self._actors:
                if not a.dead:
                    try:
                        ray.kill(a.handle)
                    except Exception:  # already gone
                        pass
                    a.dead = True
            if started_here:
                ray.shutdown()

    def _plan(self, ray: Any, n: int) -> tuple[int, int]:
        resources = ray.cluster_resources()
        cpus, gpus = resources.get("CPU", 1.0), resources.get("GPU", 0.0)
        if self.actors is not None:
            actors = self.actors
        else:
            actors = int(cpus // self.actor_cpus) if self.actor_cpus > 0 else 1
            if self.actor_gpus > 0:
                actors = min(actors, int(gpus // self.actor_gpus))
            actors = max(1, actors)
        if self.actors is not None and (actors * self.actor_cpus > cpus or actors * self.actor_gpus > gpus):
            self._say(
                f"{actors} actors x ({self.actor_cpus:g} CPU, {self.actor_gpus:g} GPU) is more than the cluster "
                f"has now ({cpus:g} CPU, {gpus:g} GPU): the others wait until the cluster grows"
            )
        size = self.batch_size or max(1, min(32, math.ceil(n / (actors * 4))))
        return min(actors, math.ceil(n / size)), size

    def _run(
        self, ray: Any, todo: list[Any], task: Any, finish: Callable[[dict[str, Any]], None], progress: Any
    ) -> None:
        from ray.exceptions import RayActorError, RayTaskError

        n_actors, size = self._plan(ray, len(todo))
        batches = [todo[i : i + size] for i in range(0, len(todo), size)]
        queue: collections.deque[int] = collections.deque(range(len(batches)))
        attempts: collections.Counter[int] = collections.Counter()
        restarts = self.max_restarts if self.max_restarts is not None else n_actors
        worker = ray.remote(ExampleWorker)
        options: dict[str, Any] = {"num_cpus": self.actor_cpus, "max_restarts": 0}
        if self.actor_gpus:
            options["num_gpus"] = self.actor_gpus
        pending: dict[Any, tuple[str, _Actor, int]] = {}
        written: set[str] = set()
        self.stats = {"actors": n_actors, "batch_size": size, "batches": len(batches), "actor_deaths": 0, "retried": 0}
        t_start = time.perf_counter()
        self._actors = []

        def spawn() -> None:
            handle = worker.options(**options).remote(
                self.spec, bool(task.mitigate), task.count_tokens is not None, self.threads, self.actor_cpus
            )
            actor = _Actor(len(self._actors) + 1, handle)
            self._actors.append(actor)
            pending[handle.setup.remote()] = ("setup", actor, -1)

        def show() -> None:
            if progress is not None:
                ready = sum(1 for a in self._actors if a.ready and not a.dead)
                progress.detail = f"ray actors {ready}/{n_actors}" + (
                    f" (restarted {self.stats['actor_deaths']})" if self.stats["actor_deaths"] else ""
                )

        self._say(
            f"{len(todo)} examples in {len(batches)} batches of up to {size} on {n_actors} actors "
            f"({self.actor_cpus:g} CPU, {self.actor_gpus:g} GPU each"
            + (f", {self.threads} threads" if self.threads > 1 else "")
            + f"); cluster {ray.cluster_resources().get('CPU', 0):g} CPUs"
        )
        for _ in range(n_actors):
            spawn()
        show()
        while queue or any(kind == "batch" for kind, _, _ in pending.values()):
            for a in self._actors:
                while a.ready and not a.dead and queue and len(a.in_flight) < self.in_flight:
                    b = queue.popleft()
                    ref = a.handle.run_batch.remote(batches[b])
                    a.in_flight.add(ref)
                    pending[ref] = ("batch", a, b)
            if not pending:
                raise BackendError("No Ray actor is left to run the remaining batches (all died).")
            done, _ = ray.wait(list(pending), num_returns=1, timeout=10.0)
            for ref in done:
                kind, actor, b = pending.pop(ref)
                actor.in_flight.discard(ref)
                try:
                    value = ray.get(ref)
                except RayActorError as exc:
                    if not actor.dead:
                        actor.dead = True
                        self.stats["actor_deaths"] += 1
                        more = restarts > 0
                        self._say(
                            f"actor {actor.number} died ({type(exc).__name__}); "
                            + ("starting a replacement" if more else "no restarts left")
                        )
                        if more:
                            restarts -= 1
                            spawn()
                    if kind == "batch":
                        attempts[b] += 1
                        if attempts[b] >= MAX_BATCH_ATTEMPTS:
                            ids = ", ".join(str(ex.id) for ex in batches[b][:5])
                            raise BackendError(
                                f"A batch of {len(batches[b])} examples ({ids}, ...) was lost with its actor "
                                f"{attempts[b]} times; stopping. Finished examples are saved: find the cause "
                                "(memory, a crashing model) and rerun with the same --out to resume."
                            ) from exc
                        self.stats["retried"] += 1
                        queue.appendleft(b)
                    show()
                    continue
                except RayTaskError as exc:
                    # the method could not be built, or something outside the per-example error
                    # handling failed: the same everywhere, so stop with the cause
                    raise (getattr(exc, "cause", None) or exc) from None
                if kind == "setup":
                    if progress is not None and not any(a.ready for a in self._actors) and progress.done == 0:
                        # examples/s and the ETA count from the first actor ready, not from Ray's start-up
                        progress.started = progress._last = time.perf_counter()
                    if not any(a.ready for a in self._actors):
                        self.stats["first_ready_seconds"] = time.perf_counter() - t_start  # actor start + method build
                    actor.ready = True
                    if actor.number <= n_actors:
                        self._say(f"actor {actor.number} ready on {value['host']} (built in {value['seconds']:.1f} s)")
                    else:
                        self._say(f"replacement actor {actor.number} ready on {value['host']}")
                    show()
                    continue
                for rec in value:
                    if rec["id"] in written:  # never written twice, whatever happened to the batch
                        continue
                    written.add(rec["id"])
                    finish(rec)


__all__ = ["RayEngine", "ExampleWorker", "import_ray", "MAX_BATCH_ATTEMPTS"]
