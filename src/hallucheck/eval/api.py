"""One call for a whole evaluation or check run: what ``hallucheck eval`` and ``hallucheck check`` do.

>>> from hallucheck.eval import evaluate
>>> run = evaluate("halueval_qa", method="sim_overlap", select=Selection(limit=40), out="runs/dev")  # doctest: +SKIP
>>> run.metrics["decisions"]["macro_f1"], run.files                                 # doctest: +SKIP

:func:`evaluate` resolves the data (a file, a directory or a dataset name), builds the method and
its LLM client, fixes the run's manifest, reads a tuned threshold from an earlier run, runs every
example (resumable in ``out``), computes the metrics and writes the report. :func:`check_file`
does the same for a file of unlabelled answers. The commands only parse their arguments, call
these, and print; a Python caller gets the same run directory and the same numbers.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ..errors import InputError
from ..loader import LLMInput, MethodInput, MethodSpec
from ..loader import method_and_llm as method_and_llm  # an alias kept for one release
from ..loader import method_spec as method_spec  # an alias kept for one release

if TYPE_CHECKING:
    from ..engines import Engine, EngineInput
    from ..llm.base import LLMClient
    from ..pipeline import Pipeline

Log = Callable[[str], None]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


def prepare(
    method: MethodInput,
    *,
    params: Mapping[str, Any] | None,
    llm: LLMInput,
    llm_options: Mapping[str, Any] | None,
    engine: EngineInput,
    progress: bool,
) -> tuple[Pipeline, LLMClient | None, Engine]:
    """(pipeline, LLM client or None, engine object): what :func:`evaluate` and :func:`check_file`
    run with. The method comes from :meth:`hallucheck.loader.MethodSpec.build`; the engine from
    :func:`hallucheck.engines.make_engine`, and an engine that rebuilds the method elsewhere (Ray)
    gets its picklable spec."""
    from ..engines import make_engine

    built = MethodSpec.of(method, params=params, llm=llm, llm_options=llm_options).build()
    return built.method, built.llm, make_engine(engine, built.for_workers, verbose=progress)


def data_file(spec: str | os.PathLike[str]) -> str | None:
    """The file (or directory) behind a ``--data`` value: the path itself when it exists, else
    ``<name>.jsonl`` in the shared data directories; None when neither is there."""
    from .datasets.formats import data_dirs

    p = Path(spec).expanduser()
    if p.exists():
        return str(p)
    for d in data_dirs():
        if (d / f"{spec}.jsonl").is_file():
            return str(d / f"{spec}.jsonl")
    return None


def tuned_threshold(run_dir: str | os.PathLike[str]) -> float:
    """The oracle threshold tuned in an earlier eval run (its ``metrics.json``)."""
    tuned_file = Path(run_dir) / "metrics.json"
    if not tuned_file.is_file():
        raise InputError(
            f"--threshold-from {run_dir}: there is no {tuned_file} (give the --out directory of an earlier eval run).",
            field="threshold_from",
        )
    try:
        tuned = json.loads(tuned_file.read_text(encoding="utf-8"))
        oracle = tuned.get("oracle_threshold")
        threshold = float(oracle["threshold"]) if oracle else None
    except (ValueError, UnicodeDecodeError, TypeError, KeyError, AttributeError) as exc:
        raise InputError(
            f"{tuned_file} is not a readable metrics file ({type(exc).__name__}: {exc}).", field="threshold_from"
        ) from None
    if threshold is None:
        raise InputError(f"{run_dir}/metrics.json has no tuned threshold (the run had no scores).")
    return threshold


@dataclass
class EvalRun:
    """What :func:`evaluate` did: the records, the metrics (as in ``metrics.json``), the files written."""

    method: str
    data: str
    out: Path
    examples: int
    records: list[dict[str, Any]]
    metrics: dict[str, Any]
    manifest: dict[str, Any]
    files: list[Path] = field(default_factory=list)
    stopped: str | None = None  # the reason when ``max_errors`` stopped the run

    @property
    def failed(self) -> int:
        """Examples with an error or no verdict."""
        return int(self.metrics["errors"]) + int(self.metrics["unverified"])

    @property
    def ok(self) -> bool:
        """True when every example was run and verified (the command exits 0)."""
        return self.stopped is None and not self.failed and bool(self.metrics["complete"])


@dataclass(frozen=True)
class Selection:
    """Which examples of a dataset :func:`evaluate` runs: the ``split`` (where the dataset has
    them), then ``offset`` examples skipped and the next ``limit`` kept (None: all). The manifest
    records the three, so a resumed or compared run knows what it ran on; e.g. tune on
    ``Selection(offset=40)`` what you report on ``Selection(limit=40)``. The fields are the
    ``eval`` command's ``--split``, ``--offset`` and ``--limit``."""

    split: str | None = None
    limit: int | None = None
    offset: int = 0

    def __post_init__(self) -> None:
        if self.limit is not None and (
            not isinstance(self.limit, int) or isinstance(self.limit, bool) or self.limit < 1
        ):
            raise InputError(f"Selection.limit must be a whole number >= 1 or None; got {self.limit!r}.", field="limit")
        if not isinstance(self.offset, int) or isinstance(self.offset, bool) or self.offset < 0:
            raise InputError(f"Selection.offset must be a whole number >= 0; got {self.offset!r}.", field="offset")
        if self.split is not None and not isinstance(self.split, str):
            raise InputError(f"Selection.split must be a split name or None; got {self.split!r}.", field="split")


def inferred_fields(examples: Any) -> dict[str, Any] | None:
    """What the loader filled in because the data did not say (``meta["inferred"]``): how many
    rows, and for each field the values given and how many rows got each, e.g.
    ``{"rows": 12, "dataset": {"eval_sample": 12}, "task": {"qa": 8, "summarization": 4}}``;
    ``None`` when every row named its dataset and task."""
    rows = [ex for ex in examples if ex.meta.get("inferred")]
    if not rows:
        return None
    out: dict[str, Any] = {"rows": len(rows)}
    for name in ("dataset", "task"):
        values = Counter(str(getattr(ex, name)) for ex in rows if name in ex.meta["inferred"])
        if values:
            out[name] = dict(sorted(values.items()))
    return out


def evaluate(
    data: str | os.PathLike[str],
    method: MethodInput = None,
    *,
    params: Mapping[str, Any] | None = None,
    llm: LLMInput = None,
    llm_options: Mapping[str, Any] | None = None,
    out: str | os.PathLike[str] | None = None,
    select: Selection | None = None,
    max_errors: int | None = None,
    threshold: float | None = None,
    threshold_from: str | os.PathLike[str] | None = None,
    mitigate: bool = False,
    retry_failed: bool = True,
    engine: EngineInput = "local",
    progress: bool = True,
    log: Log | None = _stderr,
) -> EvalRun:
    """Measure ``method`` on the labelled dataset ``data``: ``hallucheck eval`` as a function.

    ``data`` is a dataset file or directory, or a name such as ``"halueval_qa"`` (see
    :func:`~hallucheck.eval.datasets.load_dataset`); ``select`` (a :class:`Selection`: split,
    offset, limit) chooses the examples (default: all). ``method`` is a registered name (default: the default method) configured with
    ``params``, or a pipeline; ``llm`` and ``llm_options`` as in :meth:`hallucheck.loader.MethodSpec.of`.
    ``out`` is the run directory (default ``runs/<method>-<data>[-<split>]``); a second call with
    the same ``out`` resumes the run, running again the examples that failed unless
    ``retry_failed=False``. ``threshold`` (or the one tuned in the run directory
    ``threshold_from``) adds fixed-threshold metrics; ``mitigate`` also revises every answer and
    measures the revisions. ``log`` gets the one-line announcement (``None``: silent);
    ``progress`` shows the progress bar. A run stopped by ``max_errors`` is returned with
    ``stopped`` set and the metrics of what finished.

    ``engine`` runs the examples: a name (``"local"``, default: one thread here; ``"ray"``: batches
    on Ray actors, the ``ray`` extra, each rebuilding the method from its picklable spec), an
    :class:`~hallucheck.engines.EngineConfig` that also sizes it (``workers`` threads here or per
    actor, ``ray_address``, ``actors``, ``actor_cpus``, ``actor_gpus``, ``batch_size``), or an
    engine object (e.g. a :class:`~hallucheck.engines.ray.RayEngine`). The run directory does not
    depend on it."""
    from .datasets import load_dataset
    from .marks import sentence_metrics
    from .mitigation import mitigation_metrics
    from .report import compute_metrics, write_report
    from .runner import StopRun, build_manifest, read_results, run_eval

    if select is None:
        select = Selection()
    elif not isinstance(select, Selection):
        raise InputError(
            f"select takes a Selection (e.g. Selection(split='dev', limit=40)); got {type(select).__name__}.",
            field="select",
        )
    split = select.split
    spec = os.fspath(data)
    examples = load_dataset(spec, split=split, limit=select.limit, offset=select.offset)
    pipeline, client, engine = prepare(
        method, params=params, llm=llm, llm_options=llm_options, engine=engine, progress=progress
    )
    data_name = Path(spec).stem if os.path.exists(spec) else spec
    run_dir = Path(out or os.path.join("runs", f"{pipeline.name}-{data_name}" + (f"-{split}" if split else "")))
    manifest = build_manifest(
        pipeline,
        data=data_name,
        data_path=data_file(spec),
        split=split,
        limit=select.limit,
        offset=select.offset,
        llm=client,
    )
    inferred = inferred_fields(examples)
    if inferred:
        manifest["inferred"] = inferred
    if threshold_from:
        threshold = tuned_threshold(threshold_from)
        manifest["threshold_from"] = str(threshold_from)
    if log is not None:
        log(f"Evaluating {pipeline.name} on {data_name}: {len(examples)} examples -> {run_dir}")
    stopped = None
    run = _run_keywords(run_dir, manifest, client, max_errors=max_errors, progress=progress, retry_failed=retry_failed)
    try:
        records = run_eval(pipeline, examples, mitigate=mitigate, engine=engine, **run)
    except StopRun as exc:
        stopped = str(exc)
        done = {r["id"]: r for r in read_results(run_dir)}
        records = [done[e.id] for e in examples if e.id in done]
    metrics = compute_metrics(records, threshold=threshold)
    sentences = sentence_metrics(examples, records)
    if sentences is not None:
        metrics["sentences"] = sentences
    if mitigate:
        metrics["mitigation"] = mitigation_metrics(records)
    metrics["complete"] = len(records) == len(examples)
    files = write_report(run_dir, records, metrics, manifest)
    return EvalRun(pipeline.name, data_name, run_dir, len(examples), records, metrics, manifest, files, stopped)


@dataclass
class CheckRun:
    """What :func:`check_file` did: the summary (as in ``summary.json``) and the CI gate's exit code."""

    method: str
    name: str
    out: Path
    rows: int
    summary: dict[str, Any]
    manifest: dict[str, Any]
    exit_code: int
    stopped: str | None = None

    @property
    def files(self) -> list[str]:
        return list(self.summary["files"])


def check_file(
    file: str | os.PathLike[str],
    method: MethodInput = None,
    *,
    params: Mapping[str, Any] | None = None,
    llm: LLMInput = None,
    llm_options: Mapping[str, Any] | None = None,
    out: str | os.PathLike[str] | None = None,
    table_format: str = "jsonl",
    fail_above: float | None = None,
    limit: int | None = None,
    max_errors: int | None = None,
    retry_failed: bool = True,
    encoding: str = "utf-8",
    engine: EngineInput = "local",
    progress: bool = True,
    log: Log | None = _stderr,
) -> CheckRun:
    """Check every row of ``file`` (answers without labels): ``hallucheck check`` as a function.

    Rows as in :func:`~hallucheck.eval.check.load_check_rows`; ``method``, ``params``, ``llm``,
    ``llm_options``, ``max_errors``, ``retry_failed``, ``engine``, ``progress`` and ``log`` as in
    :func:`evaluate`. Writes ``OUT/check.<table_format>``, ``summary.json`` and ``report.html``
    (``out`` default ``runs/check-<method>-<file>``). ``exit_code`` is the CI gate of
    :func:`~hallucheck.eval.check.check_exit_code` with ``fail_above``."""
    from .check import check_exit_code, finish_check, load_check_rows, run_check
    from .runner import StopRun, build_manifest

    if fail_above is not None and not 0.0 <= fail_above <= 1.0:
        raise InputError(
            f"--fail-above takes a share of rows in [0, 1] (e.g. 0.05 for 5 %); got {fail_above}.",
            field="fail_above",
        )
    path = os.fspath(file)
    rows = load_check_rows(path, encoding=encoding, limit=limit)
    pipeline, client, engine = prepare(
        method, params=params, llm=llm, llm_options=llm_options, engine=engine, progress=progress
    )
    name = Path(path).stem
    run_dir = Path(out or os.path.join("runs", f"check-{pipeline.name}-{name}"))
    manifest = build_manifest(pipeline, data=name, data_path=path, split=None, limit=limit, llm=client)
    manifest["command"] = "check"
    if log is not None:
        log(f"Checking {len(rows)} rows of {path} with {pipeline.name} -> {run_dir}")
    stopped = None
    run = _run_keywords(run_dir, manifest, client, max_errors=max_errors, progress=progress, retry_failed=retry_failed)
    try:
        summary = run_check(pipeline, rows, table_format=table_format, engine=engine, **run)
    except StopRun as exc:
        stopped = str(exc)
        summary = finish_check(run_dir, rows, table_format=table_format, manifest=manifest)
    code = check_exit_code(summary, fail_above)
    return CheckRun(pipeline.name, name, run_dir, len(rows), summary, manifest, code, stopped)


def _run_keywords(
    run_dir: Path, manifest: dict[str, Any], client: Any, *, max_errors: int | None, progress: bool, retry_failed: bool
) -> dict[str, Any]:
    """What an eval run and a check run are both given: where they write, their manifest, when they stop,
    whether to show progress and to run failed rows again, and how to count the LLM's tokens."""
    return {
        "out_dir": run_dir,
        "manifest": manifest,
        "max_errors": max_errors,
        "progress": progress,
        "count_tokens": client.count_tokens if client is not None else None,
        "retry_failed": retry_failed,
    }


__all__ = [
    "evaluate",
    "EvalRun",
    "Selection",
    "check_file",
    "CheckRun",
    "method_and_llm",
    "method_spec",
    "prepare",
    "data_file",
    "tuned_threshold",
]
