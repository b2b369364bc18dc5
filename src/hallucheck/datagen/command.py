"""`hallucheck generate-data`: reading the input rows, the command options and the command itself."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..errors import ConfigError, InputError
from ..llm.base import LLMClient
from .rows import generate_dataset
from .sample import normalise_types

# ---------------------------------------------------------------------------------------------
# command line (wired by cli.py as `hallucheck generate-data`)
# ---------------------------------------------------------------------------------------------


def read_input_rows(path: str) -> list[dict[str, Any]]:
    """Rows of a JSONL file (or a JSON list) with at least ``reference`` (and ``question``)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"Input file not found: {path}", field="input")
    text = p.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except ValueError as exc:
            raise InputError(f"{path} is not valid JSON: {exc}", field="input") from None
    else:
        rows = []
        for k, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                raise InputError(f"{path}, line {k}: not valid JSON ({exc}).", field="input") from None
    for k, row in enumerate(rows, 1):
        if not isinstance(row, dict) or not isinstance(row.get("reference"), str) or not row["reference"].strip():
            raise InputError(
                f"{path}, row {k}: every row needs a non-empty 'reference' (the shared JSONL schema: id, "
                "question, reference, ...).",
                field="input",
            )
    return rows


def add_generate_data_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of ``hallucheck generate-data`` other than the LLM ones (--llm, --base-url, ...,
    --quiet), which the CLI adds and turns into a client as for every other command."""
    parser.add_argument("--input", required=True, metavar="FILE", help="JSONL rows with question and reference")
    parser.add_argument(
        "--out", required=True, metavar="FILE", help="output JSONL (appended as rows are produced; rerun to resume)"
    )
    parser.add_argument(
        "--types",
        nargs="+",
        default=["all"],
        metavar="TYPE",
        help="hallucination types: absolute_fabrication, contextual_fabrication, "
        "detailed_information_modification (aliases absolute, contextual, detail), or all",
    )
    parser.add_argument("--limit", type=int, help="first N input rows only")
    parser.add_argument(
        "--include-faithful", action="store_true", help="also write each faithful answer as a label-0 row"
    )
    parser.add_argument(
        "--confirm-with-llm",
        action="store_true",
        help="label a triplet only if the thesis' A.2.2 LLM check agrees (one more call per row)",
    )
    parser.add_argument("--max-triplets", type=int, default=24, help="at most this many triplets per answer")
    parser.add_argument("--dataset", help="dataset name for the output rows (default <input dataset>_triplet_gen)")
    return parser


def main_generate_data(args: argparse.Namespace, *, llm: LLMClient) -> int:
    """``hallucheck generate-data`` with the client the CLI built from its LLM options: returns 0
    when every (row, type) was produced, 3 when some failed (rerun with the same --out to retry
    them)."""
    quiet = bool(getattr(args, "quiet", False))
    rows = read_input_rows(args.input)
    if getattr(args, "limit", None) is not None:
        if args.limit < 1:
            raise ConfigError(f"--limit must be a positive integer; got {args.limit}.")
        rows = rows[: args.limit]
    types = normalise_types(getattr(args, "types", None) or ["all"])

    def progress(msg: str) -> None:
        if not quiet:
            print(f"[hallucheck] {msg}", file=sys.stderr, flush=True)

    report = generate_dataset(
        rows,
        types,
        llm,
        out=args.out,
        include_faithful=bool(getattr(args, "include_faithful", False)),
        confirm_with_llm=bool(getattr(args, "confirm_with_llm", False)),
        max_triplets=int(getattr(args, "max_triplets", 24) or 24),
        dataset=getattr(args, "dataset", None),
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
    return 3 if report.failed else 0
