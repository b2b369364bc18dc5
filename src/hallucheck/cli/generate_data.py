"""``hallucheck generate-data``: make a labelled hallucinated-answer dataset (Osmanaj 2025's generator, docs/references.md).
The run is :func:`hallucheck.datagen.generate_from_file`; this module parses its options and prints
what it wrote."""

from __future__ import annotations

import argparse
import sys

from ._common import ERROR_EXITS, EXIT_UNVERIFIED, add_llm_options, llm_client

HELP = "make a labelled hallucinated-answer dataset (an LLM writes answers with known errors)"
# examples and exit codes, printed at the end of --help as written
EPILOG = f"""\
examples:
  hallucheck generate-data --input rows.jsonl --out generated.jsonl --llm embedded
  hallucheck generate-data --input rows.jsonl --out generated.jsonl --limit 50 --llm openai:MODEL --base-url URL

exit codes:
  0  the dataset was written
{ERROR_EXITS}; also when rows failed"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--input", required=True, metavar="FILE", help="JSONL rows with question and reference")
    p.add_argument(
        "--out", required=True, metavar="FILE", help="output JSONL (appended as rows are produced; rerun to resume)"
    )
    p.add_argument(
        "--types",
        nargs="+",
        default=["all"],
        metavar="TYPE",
        help="hallucination types: absolute_fabrication, contextual_fabrication, "
        "detailed_information_modification (aliases absolute, contextual, detail), or all",
    )
    p.add_argument("--limit", type=int, help="first N input rows only")
    p.add_argument("--include-faithful", action="store_true", help="also write each faithful answer as a label-0 row")
    p.add_argument(
        "--confirm-with-llm",
        action="store_true",
        help="label a triplet only if a second LLM check agrees that it is wrong (one more call per row)",
    )
    p.add_argument("--max-triplets", type=int, default=24, help="at most this many triplets per answer")
    p.add_argument("--dataset", help="dataset name for the output rows (default <input dataset>_triplet_gen)")
    add_llm_options(p)


def cmd_generate_data(args: argparse.Namespace) -> int:
    """0 when every (row, type) was produced, 3 when some failed (rerun with the same --out to retry them)."""
    from ..datagen import generate_from_file

    def progress(msg: str) -> None:
        if not args.quiet:
            print(f"[hallucheck] {msg}", file=sys.stderr, flush=True)

    report = generate_from_file(
        args.input,
        args.out,
        llm_client(args),
        types=args.types or ["all"],
        limit=args.limit,
        include_faithful=args.include_faithful,
        confirm_with_llm=args.confirm_with_llm,
        max_triplets=args.max_triplets or 24,
        dataset=args.dataset,
        progress=progress,
    )
    print(
        f"generate-data: wrote {len(report.rows)} rows to {args.out}; skipped {report.skipped} already there"
        + (f", {report.duplicates} repeated (question, reference) inputs" if report.duplicates else "")
        + (f"; {report.regenerated} generated again (no hallucinated triplet at first)" if report.regenerated else "")
        + (f"; {len(report.dropped)} dropped (no sample had a hallucinated triplet)" if report.dropped else "")
        + (f"; {len(report.failed)} failed (rerun to retry)" if report.failed else "")
        + ".",
        file=sys.stderr,
    )
    return EXIT_UNVERIFIED if report.failed else 0
