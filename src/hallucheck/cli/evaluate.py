"""``hallucheck eval``: measure a method on a labelled dataset (resumable)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..errors import InputError
from ._common import EXIT_UNVERIFIED, _int_at_least, _load_pipeline, add_llm_options, add_method_options


def add_arguments(p: argparse.ArgumentParser) -> None:
    from .. import DEFAULT_METHOD

    p.add_argument(
        "--data",
        required=True,
        metavar="PATH|NAME",
        help="a dataset file/directory (shared JSONL, HaluEval, SummEval TSV, SummEdits, DelucionQA CSV, "
        "RAGTruth) or a name such as halueval_qa",
    )
    p.add_argument("--split", help="split to use where the dataset has them")
    p.add_argument("--limit", type=_int_at_least(1), help="first N examples only (after --offset)")
    p.add_argument(
        "--offset",
        type=_int_at_least(0),
        default=0,
        help="skip the first N examples, e.g. tune on --offset 40 what you report on --limit 40",
    )
    p.add_argument("--out", help="run directory (default runs/<method>-<data>); rerun with the same --out to resume")
    p.add_argument(
        "--workers", type=_int_at_least(1), default=1, help="examples in parallel (useful with remote endpoints)"
    )
    p.add_argument("--max-errors", type=_int_at_least(0), help="stop after more than this many failed examples")
    p.add_argument("--threshold", type=float, help="also score with this fixed threshold (score >= t => hallucinated)")
    p.add_argument("--threshold-from", metavar="DIR", help="use the threshold tuned in an earlier (dev) run directory")
    p.add_argument("--mitigate", action="store_true", help="also revise each answer and measure the revisions")
    p.add_argument(
        "--retry-failed",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="on a resumed run, run again the examples that failed or could not be verified (default: yes)",
    )
    add_method_options(p, DEFAULT_METHOD)
    add_llm_options(p)


def _data_file(spec: str) -> str | None:
    from pathlib import Path

    from ..eval import datasets

    p = Path(spec).expanduser()
    if p.exists():
        return str(p)
    for d in datasets._data_dirs():
        if (d / f"{spec}.jsonl").is_file():
            return str(d / f"{spec}.jsonl")
    return None


def cmd_eval(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..eval.datasets import load_dataset
    from ..eval.mitigation import mitigation_metrics
    from ..eval.report import compute_metrics, write_report
    from ..eval.runner import StopRun, build_manifest, run_eval

    examples = load_dataset(args.data, split=args.split, limit=args.limit, offset=args.offset)
    pipeline, llm = _load_pipeline(args)
    data_name = Path(args.data).stem if os.path.exists(args.data) else args.data
    out = Path(
        args.out or os.path.join("runs", f"{pipeline.name}-{data_name}" + (f"-{args.split}" if args.split else ""))
    )
    manifest = build_manifest(
        pipeline,
        data=data_name,
        data_path=_data_file(args.data),
        split=args.split,
        limit=args.limit,
        offset=args.offset,
        llm=llm,
    )
    threshold = args.threshold
    if args.threshold_from:
        tuned_file = Path(args.threshold_from) / "metrics.json"
        if not tuned_file.is_file():
            raise InputError(
                f"--threshold-from {args.threshold_from}: there is no {tuned_file} (give the --out directory "
                "of an earlier eval run).",
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
            raise InputError(f"{args.threshold_from}/metrics.json has no tuned threshold (the run had no scores).")
        manifest["threshold_from"] = str(args.threshold_from)
    print(f"Evaluating {pipeline.name} on {data_name}: {len(examples)} examples -> {out}", file=sys.stderr)
    stopped = None
    try:
        records = run_eval(
            pipeline,
            examples,
            out_dir=out,
            manifest=manifest,
            workers=args.workers,
            max_errors=args.max_errors,
            progress=not args.quiet,
            count_tokens=llm.count_tokens if llm is not None else None,
            mitigate=args.mitigate,
            retry_failed=args.retry_failed,
        )
    except StopRun as exc:
        from ..eval.runner import read_results

        stopped = str(exc)
        done = {r["id"]: r for r in read_results(out)}
        records = [done[e.id] for e in examples if e.id in done]
    metrics = compute_metrics(records, threshold=threshold)
    if args.mitigate:
        metrics["mitigation"] = mitigation_metrics(records)
    metrics["complete"] = len(records) == len(examples)
    files = write_report(out, records, metrics, manifest)
    d = metrics.get("decisions") or {}
    sc = metrics.get("scores") or {}
    summary = (
        f"{pipeline.name} on {data_name}: n={metrics['examples']} errors={metrics['errors']} "
        f"unverified={metrics['unverified']}"
    )
    if d:
        ba = d.get("balanced_accuracy")
        summary += f"  macro-F1={100 * d['macro_f1']:.1f}  BA={'undefined' if ba is None else format(100 * ba, '.1f')}"
    if sc:
        summary += f"  AUROC={100 * sc['auroc']:.1f}"
    print(summary)
    print("wrote " + ", ".join(str(f) for f in files))
    if stopped:
        print(f"hallucheck: {stopped}", file=sys.stderr)
        return EXIT_UNVERIFIED
    failed = metrics["errors"] + metrics["unverified"]
    if failed or not metrics["complete"]:
        # the run did not verify everything: not a success, whatever the metrics of the rest say
        print(
            f"hallucheck: {failed} of {len(examples)} examples could not be verified (errors={metrics['errors']}, "
            f"unverified={metrics['unverified']}); rerun the same command to retry them (see --no-retry-failed).",
            file=sys.stderr,
        )
        return EXIT_UNVERIFIED
    return 0
