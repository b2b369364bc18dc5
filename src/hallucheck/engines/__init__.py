"""Where the examples of ``hallucheck eval`` and ``hallucheck check`` run.

- ``local`` (default): threads in this process (``--workers``).
- ``ray``: batches on Ray actors, on this machine or a cluster (``--engine ray``; the ``ray``
  extra). Each actor builds the method once from a picklable :class:`MethodSpec`.

An :class:`EngineConfig` says which engine and how it is sized; it is the one object the CLI's
engine options, :func:`hallucheck.eval.evaluate` and :func:`~hallucheck.eval.check_file` hand
on (the CLI makes it from its options: :func:`hallucheck.cli._common.engine_config`). Engines are
rows of :data:`ENGINES` (name -> ``"module:function"`` that makes the engine from
the config): a new engine is a module with that function and one row. Every engine runs the same
:class:`~hallucheck.engines.task.RecordTask` per example and hands every record to the runner's
writer in this process, so ``results.jsonl``, resuming, reports and metrics do not depend on the
engine. See ``docs/scaling.md``.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence, Union, runtime_checkable

from ..errors import ConfigError
from ..loader import LLMDescription, MethodSpec, spec_from_method  # spec_from_method: an alias for one release
from .local import LocalEngine
from .task import RecordTask

# name -> the function that makes the engine: fn(config, spec, verbose=...) with ``spec`` a
# MethodSpec or a function that makes one (called only by engines that rebuild the method).
ENGINES: dict[str, str] = {
    "local": "hallucheck.engines.local:from_config",
    "ray": "hallucheck.engines.ray:from_config",
}


@runtime_checkable
class Engine(Protocol):
    """What runs a run's examples: ``execute`` calls ``task`` on each example of ``todo`` and hands
    each record to ``finish``; ``describe`` says how it ran (recorded in the manifest)."""

    def execute(
        self,
        todo: Sequence[Any],
        task: Callable[[Any], dict[str, Any]],
        finish: Callable[[dict[str, Any]], None],
        progress: Any = None,
    ) -> None: ...

    def describe(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class EngineConfig:
    """Which engine runs a run's examples, and its size: ``name`` (a row of :data:`ENGINES`);
    ``workers``: threads here (local) or per actor (Ray); for Ray, ``ray_address`` (a running
    cluster: ``"auto"``, ``"ray://HEAD:10001"``; None starts a local instance), ``actors``
    (default: cluster CPUs / ``actor_cpus``), ``actor_cpus`` / ``actor_gpus`` (reserved per actor)
    and ``batch_size`` (examples per batch). The fields are the command's options by the same names."""

    name: str = "local"
    workers: int = 1
    ray_address: str | None = None
    actors: int | None = None
    actor_cpus: float = 1.0
    actor_gpus: float = 0.0
    batch_size: int | None = None

    def __post_init__(self) -> None:
        if self.name not in ENGINES:
            close = difflib.get_close_matches(str(self.name), list(ENGINES), n=1, cutoff=0.5)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"Unknown engine {self.name!r}.{hint} Use one of {', '.join(ENGINES)}.")
        if not isinstance(self.workers, int) or isinstance(self.workers, bool) or self.workers < 1:
            raise ConfigError(f"EngineConfig.workers must be a whole number >= 1; got {self.workers!r}.")

    def build(self, spec: MethodSpec | Callable[[], MethodSpec] | None = None, *, verbose: bool = True) -> Engine:
        """The engine object (with ``execute`` and ``describe``) this config names."""
        module, _, attr = ENGINES[self.name].partition(":")
        engine: Engine = getattr(importlib.import_module(module), attr)(self, spec, verbose=verbose)
        return engine


# What a caller may name as the engine: a row of ENGINES, a sized config, an engine object, or None (local).
EngineInput = Union[str, EngineConfig, Engine, None]


def make_engine(
    engine: EngineInput = None, spec: MethodSpec | Callable[[], MethodSpec] | None = None, *, verbose: bool = True
) -> Engine:
    """The engine object for ``engine``: a name of :data:`ENGINES` or an :class:`EngineConfig`
    (None: the local engine, one thread), built with ``spec`` (or a function that makes it,
    called only by engines that rebuild the method, such as Ray); or ``engine`` itself when it is
    already an engine object."""
    if engine is None:
        engine = EngineConfig()
    elif isinstance(engine, str):
        engine = EngineConfig(name=engine)
    if isinstance(engine, EngineConfig):
        return engine.build(spec, verbose=verbose)
    if not callable(getattr(engine, "execute", None)):
        raise ConfigError(
            f"engine must be a name ({', '.join(ENGINES)}), an EngineConfig or an engine object with execute(); "
            f"got {type(engine).__name__}."
        )
    return engine


__all__ = [
    "ENGINES",
    "Engine",
    "EngineConfig",
    "EngineInput",
    "LocalEngine",
    "LLMDescription",
    "MethodSpec",
    "RecordTask",
    "make_engine",
    "spec_from_method",
]
