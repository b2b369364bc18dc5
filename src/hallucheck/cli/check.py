"""``hallucheck check``: check a file of answers without labels (resumable; a CI gate with ``--fail-above``).
The run itself is :func:`hallucheck.eval.check_file`; this module parses its arguments and prints the outcome."""

from __future__ import annotations

import argparse
import sys

from ._common import (
    ERROR_EXITS,
    EXIT_HALLUCINATED,
    EXIT_UNVERIFIED,
    add_run_options,
    int_at_least,
    run_options,
)

HELP = "check a file of answers without labels (resumable; a CI gate with --fail-above)"
# examples and exit codes, printed at the end of --help as written
EPILOG = f"""\
examples:
  hallucheck check answers.jsonl --out runs/nightly --method sim_overlap --fail-above 0.05
  hallucheck check answers.csv --llm none --format csv

exit codes:
  0  every row verified, flagged share at most --fail-above
  1  the flagged share is above --fail-above
{ERROR_EXITS}; also when any row could not be verified"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file",
        metavar="FILE",
        help="rows to check: .jsonl/.json, .csv or .parquet with answer, reference (or contexts: a list of "
        "passages), and optionally question and id",
    )
    p.add_argument(
        "--out", help="run directory (default runs/check-<method>-<file>); rerun with the same --out to resume"
    )
    p.add_argument("--format", choices=("jsonl", "csv"), default="jsonl", help="format of the table OUT/check.<format>")
    p.add_argument(
        "--fail-above",
        type=float,
        metavar="RATE",
        help="exit 1 when the share of flagged rows is above RATE (e.g. 0.05); without it flagged rows do not fail",
    )
    p.add_argument("--limit", type=int_at_least(1), help="first N rows only")
    p.add_argument("--workers", type=int_at_least(1), default=1, help="rows in parallel (useful with remote endpoints)")
    p.add_argument("--max-errors", type=int_at_least(0), help="stop after more than this many failed rows")
    p.add_argument(
        "--retry-failed",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="on a resumed run, run again the rows that failed or could not be verified (default: yes)",
    )
    p.add_argument("--encoding", default="utf-8", help="encoding of the input file (default utf-8)")
    add_run_options(p)


def cmd_check(args: argparse.Namespace) -> int:
    from ..eval.api import check_file
    from ..eval.marks import sentence_lines

    run = check_file(
        args.file,
        args.method,
        table_format=args.format,
        fail_above=args.fail_above,
        limit=args.limit,
        encoding=args.encoding,
        **run_options(args),
    )
    summary = run.summary
    share = summary["flagged_share"]
    print(
        f"{run.method} on {run.name}: {summary['rows']} rows, {summary['hallucinated']} hallucinated, "
        f"{summary['grounded']} grounded, {summary['unverified']} could not be verified, {summary['errors']} errors; "
        f"flagged share {'–' if share is None else format(100 * share, '.1f') + ' %'} of the verified rows"
        + (f" (gate: --fail-above {100 * args.fail_above:g} %)" if args.fail_above is not None else "")
    )
    for line in sentence_lines(summary.get("sentences")):
        print(f"  {line}")
    for w in summary.get("warnings") or ():
        print(f"warning: {w['warning']} ({w['rows']} of {summary['done']} rows)", file=sys.stderr)
    print("wrote " + ", ".join(run.files))
    code = run.exit_code
    if run.stopped:
        print(f"hallucheck: {run.stopped}", file=sys.stderr)
    if code == EXIT_UNVERIFIED:
        missing = summary["rows"] - summary["done"]
        print(
            f"hallucheck: {summary['errors'] + summary['unverified'] + missing} of {summary['rows']} rows could not be "
            f"verified (errors={summary['errors']}, unverified={summary['unverified']}, not run={missing}); rerun the "
            "same command to retry them.",
            file=sys.stderr,
        )
    elif code == EXIT_HALLUCINATED:
        print(f"hallucheck: the flagged share is above --fail-above {args.fail_above:g}", file=sys.stderr)
    return code
