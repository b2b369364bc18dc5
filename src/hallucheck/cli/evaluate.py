"""``hallucheck eval``: measure a method on a labelled dataset (resumable). The run itself is
:func:`hallucheck.eval.evaluate`; this module parses its arguments and prints the outcome."""

from __future__ import annotations

import argparse
import sys

from ._common import ERROR_EXITS, EXIT_UNVERIFIED, add_run_options, int_at_least, run_options

HELP = "measure a method on a labelled dataset (resumable)"
# examples and exit codes, printed at the end of --help as written
EPILOG = f"""\
examples:
  hallucheck eval --method sim_overlap --data examples/eval_sample.jsonl --out runs/sample
  hallucheck eval --data my.jsonl --llm none --limit 200 --workers 4
  hallucheck eval --method sim_overlap --data my_test.jsonl --threshold-from runs/sample

exit codes:
  0  every example was run and verified (the metrics are in OUT/)
{ERROR_EXITS}; also when any example failed or could not be verified (rerun to retry)"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data",
        required=True,
        metavar="PATH|NAME",
        help="a dataset file/directory (shared JSONL, HaluEval, SummEval TSV, SummEdits, DelucionQA CSV, "
        "RAGTruth) or a name such as halueval_qa",
    )
    p.add_argument("--split", help="split to use where the dataset has them")
    p.add_argument("--limit", type=int_at_least(1), help="first N examples only (after --offset)")
    p.add_argument(
        "--offset",
        type=int_at_least(0),
        default=0,
        help="skip the first N examples, e.g. tune on --offset 40 what you report on --limit 40",
    )
    p.add_argument("--out", help="run directory (default runs/<method>-<data>); rerun with the same --out to resume")
    p.add_argument(
        "--workers", type=int_at_least(1), default=1, help="examples in parallel (useful with remote endpoints)"
    )
    p.add_argument("--max-errors", type=int_at_least(0), help="stop after more than this many failed examples")
    p.add_argument("--threshold", type=float, help="also score with this fixed threshold (score >= t => hallucinated)")
    p.add_argument("--threshold-from", metavar="DIR", help="use the threshold tuned in an earlier (dev) run directory")
    p.add_argument("--mitigate", action="store_true", help="also revise each answer and measure the revisions")
    p.add_argument(
        "--retry-failed",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="on a resumed run, run again the examples that failed or could not be verified (default: yes)",
    )
    add_run_options(p)


def cmd_eval(args: argparse.Namespace) -> int:
    from ..eval.api import Selection, evaluate
    from ..eval.html_report import run_warnings
    from ..eval.marks import sentence_lines

    run = evaluate(
        args.data,
        args.method,
        select=Selection(split=args.split, limit=args.limit, offset=args.offset),
        threshold=args.threshold,
        threshold_from=args.threshold_from,
        mitigate=args.mitigate,
        **run_options(args),
    )
    metrics = run.metrics
    d = metrics.get("decisions") or {}
    sc = metrics.get("scores") or {}
    summary = f"{run.method} on {run.data}: n={metrics['examples']} errors={metrics['errors']} unverified={metrics['unverified']}"
    if d:
        ba = d.get("balanced_accuracy")
        summary += f"  macro-F1={100 * d['macro_f1']:.1f}  BA={'undefined' if ba is None else format(100 * ba, '.1f')}"
    if sc:
        summary += f"  AUROC={100 * sc['auroc']:.1f}"
    print(summary)
    for line in sentence_lines(metrics.get("sentences")):
        print(f"  {line}")
    for warning, rows in run_warnings(run.records):  # once for the run, not once per example
        print(f"warning: {warning} ({rows} of {len(run.records)} examples)", file=sys.stderr)
    print("wrote " + ", ".join(str(f) for f in run.files))
    if run.stopped:
        print(f"hallucheck: {run.stopped}", file=sys.stderr)
        return EXIT_UNVERIFIED
    if not run.ok:
        # the run did not verify everything: not a success, whatever the metrics of the rest say
        print(
            f"hallucheck: {run.failed} of {run.examples} examples could not be verified (errors={metrics['errors']}, "
            f"unverified={metrics['unverified']}); rerun the same command to retry them (see --no-retry-failed).",
            file=sys.stderr,
        )
        return EXIT_UNVERIFIED
    return 0
