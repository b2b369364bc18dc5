"""Where the examples of ``hallucheck eval`` and ``hallucheck check`` run.

- ``local`` (default): threads in this process (``--workers``).
- ``ray``: batches on Ray actors, on this machine or a cluster (``--engine ray``; the ``ray``
  extra). Each actor builds the method once from a picklable :class:`MethodSpec`.

Both hand every record to the runner's writer in this process, so ``results.jsonl``, resuming,
reports and metrics do not depend on the engine. See ``docs/scaling.md``.
"""

from __future__ import annotations

import argparse
from typing import Any

from .local import LocalEngine
from .spec import LLMDescription, MethodSpec, spec_from_method

ENGINES = ("local", "ray")


def add_engine_arguments(p: argparse.ArgumentParser) -> None:
    """The engine options of ``eval`` and ``check``."""
    g = p.add_argument_group("engine")
    g.add_argument(
        "--engine",
        choices=ENGINES,
        default="local",
        help="local: --workers threads here (default); ray: batches on Ray actors (the ray extra), each "
        "building the method once; --workers is then threads per actor",
    )
    g.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="join a running Ray cluster (auto, or ray://HEAD:10001); default: start a local Ray instance",
    )
    g.add_argument(
        "--actors", type=_positive_int, metavar="N", help="Ray actors (default: cluster CPUs / --actor-cpus)"
    )
    g.add_argument("--actor-cpus", type=_non_negative, default=1.0, metavar="C", help="CPUs per actor (default 1)")
    g.add_argument("--actor-gpus", type=_non_negative, default=0.0, metavar="G", help="GPUs per actor (default 0)")
    g.add_argument(
        "--batch-size",
        type=_positive_int,
        metavar="B",
        help="examples per Ray batch (default: ~4 batches per actor, <= 32)",
    )


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1; got {value}")
    return value


def _non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0; got {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number >= 0; got {text}")
    return value


def engine_from_args(args: argparse.Namespace, spec: MethodSpec) -> Any:
    """The engine the options name; None for the local one (the runner's default)."""
    if getattr(args, "engine", "local") != "ray":
        return None
    from .ray import RayEngine, import_ray

    import_ray()  # a missing extra is reported before any work
    return RayEngine(
        spec,
        address=args.ray_address,
        actors=args.actors,
        actor_cpus=args.actor_cpus,
        actor_gpus=args.actor_gpus,
        threads=args.workers,
        batch_size=args.batch_size,
        verbose=not getattr(args, "quiet", False),
    )


__all__ = [
    "ENGINES",
    "LocalEngine",
    "LLMDescription",
    "MethodSpec",
    "add_engine_arguments",
    "engine_from_args",
    "spec_from_method",
]
