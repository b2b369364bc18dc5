"""Check a file of answers without labels: ``hallucheck check FILE --out DIR``.

The eval runner without gold labels. Rows are read from JSON lines (or a JSON list), CSV, or
Parquet (with pandas and pyarrow), each with an ``answer``, a ``reference`` (or ``contexts`` /
``passages``: a list of passages), an optional ``question`` and an optional ``id`` (default
``row-<n>``, 1-based). A row that marks its wrong sentences or spans (:mod:`.marks`) adds the
sentence-level figures to the summary. The run is the one of :func:`~hallucheck.eval.runner.run_eval`: one record
per finished row in ``DIR/results.jsonl``, resumable, locked, failed rows retried on a rerun.
:func:`check_summary` counts what was flagged; :func:`check_exit_code` turns it into a CI gate.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from .._files import max_data_file_bytes, too_large
from ..base import MAX_TEXT_CHARS
from ..errors import InputError, MissingDependencyError
from ..text.passages import SEP as PASSAGE_SEP
from ..types import EXIT_CODES, Outcome, outcome, shown_score
from .datasets import Example
from .datasets._files import iter_json_records, read_text
from .marks import MARK_FIELDS, read_marks, sentence_metrics
from .runner import read_results, run_eval

PASSAGE_FIELDS = ("contexts", "passages")
TABLE_FORMATS = ("jsonl", "csv")
SUMMARY = "summary.json"


def _passages(value: Any, where: str, key: str) -> list[str]:
    if isinstance(value, str):  # a CSV cell holding a JSON list
        try:
            value = json.loads(value)
        except ValueError:
            raise InputError(
                f"{where}: field {key!r} must be a list of passages (in CSV: a JSON list such as "
                f'["first passage", "second"]); got text that is not JSON',
                field=key,
            ) from None
    if not isinstance(value, (list, tuple)) or not value:
        raise InputError(f"{where}: field {key!r} must be a non-empty list of passages; got {value!r:.60}", field=key)
    for i, p in enumerate(value):
        if not isinstance(p, str):
            raise InputError(
                f"{where}: passage {i} of field {key!r} must be a string, got {type(p).__name__}", field=key
            )
    return list(value)


def row_to_example(row: Mapping[str, Any], n: int, where: str, dataset: str) -> Example:
    """One input row (a mapping) as an unlabelled :class:`Example`. ``n`` is the 1-based row number."""
    if not isinstance(row, Mapping):
        raise InputError(f"{where}: expected an object with 'answer' and 'reference', got {type(row).__name__}")

    def present(key: str) -> bool:
        v = row.get(key)
        return v is not None and not (isinstance(v, float) and v != v) and v != ""  # CSV/Parquet blanks are absent

    answer = row.get("answer")
    if not present("answer"):
        raise InputError(f"{where}: field 'answer' is missing", field="answer")
    if not isinstance(answer, str):
        raise InputError(f"{where}: field 'answer' must be a string, got {type(answer).__name__}", field="answer")
    meta: dict[str, Any] = {}
    key = next((k for k in PASSAGE_FIELDS if present(k)), None)
    if key is not None:
        passages = _passages(row[key], where, key)
        meta["passages"] = passages
        reference = PASSAGE_SEP.join(passages)
    elif present("reference"):
        reference = row["reference"]
        if isinstance(reference, (list, tuple)):
            meta["passages"] = _passages(reference, where, "reference")
            reference = PASSAGE_SEP.join(meta["passages"])
        elif not isinstance(reference, str):
            raise InputError(
                f"{where}: field 'reference' must be a string or a list of passages, got {type(reference).__name__}",
                field="reference",
            )
    else:
        raise InputError(
            f"{where}: field 'reference' is missing (give 'reference', or 'contexts' / 'passages': a list of passages)",
            field="reference",
        )
    question = row.get("question") if present("question") else None
    if question is not None and not isinstance(question, str):
        raise InputError(f"{where}: field 'question' must be a string, got {type(question).__name__}", field="question")
    rid = row.get("id") if present("id") else None
    if rid is None:
        rid = f"row-{n}"
    elif isinstance(rid, bool) or not isinstance(rid, (str, int)):
        raise InputError(f"{where}: field 'id' must be a string or an integer, got {type(rid).__name__}", field="id")
    marked = any(present(k) for k in MARK_FIELDS) or "bad_sentence" in row  # bad_sentence null: none is wrong
    marks = read_marks(row, answer, where) if marked else None
    if marks is not None:
        meta["sentence_marks"] = marks
    return Example(
        id=str(rid),
        dataset=dataset,
        task="qa" if question else "check",
        question=question,
        reference=reference,
        answer=answer,
        label=None,
        meta=meta,
    )


def _parquet_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    try:
        import pandas as pd
        import pyarrow  # noqa: F401
    except ImportError:
        raise MissingDependencyError(
            f"Reading Parquet ({path.name}) needs pandas and pyarrow, which",
            "pip install pandas pyarrow   (or give the rows as JSONL or CSV)",
        ) from None
    frame = pd.read_parquet(path)
    rows = []
    for i, rec in enumerate(frame.to_dict(orient="records"), start=1):
        rows.append(
            (i, {k: (list(v) if hasattr(v, "tolist") and not isinstance(v, str) else v) for k, v in rec.items()})
        )
    return rows


def load_check_rows(
    path: str | os.PathLike[str], *, encoding: str = "utf-8", limit: int | None = None
) -> list[Example]:
    """Rows to check from a ``.jsonl``/``.json`` (JSON lines or a JSON list), ``.csv`` or ``.parquet``
    file. Errors name the file and the line (for CSV: the line of the row, header = line 1)."""
    p = Path(path)
    suffix = p.suffix.lower()
    dataset = p.stem or "rows"
    if suffix == ".parquet":
        if not p.is_file():
            raise InputError(f"{p}: file not found")
        if p.stat().st_size > max_data_file_bytes():  # a Parquet file is a regular file: its size is known
            raise too_large(p, max_data_file_bytes())
        rows = _parquet_rows(p)
        unit = "row"
    elif suffix == ".csv":
        text = read_text(p, encoding)
        # the csv module's default cell limit (128 KiB) is far below the input limit of a text
        csv.field_size_limit(max(csv.field_size_limit(), MAX_TEXT_CHARS * 4 + 1))
        reader = csv.DictReader(io.StringIO(text, newline=""))
        if not reader.fieldnames:
            raise InputError(
                f"{p}: contains no header row (expected columns answer, reference or contexts, and "
                "optionally question, id)"
            )
        try:
            rows = [(reader.line_num, dict(r)) for r in reader]
        except csv.Error as exc:
            raise InputError(f"{p} line {reader.line_num}: not a readable CSV row ({exc})") from None
        unit = "line"
    else:
        text = read_text(p, encoding)
        rows = list(iter_json_records(p, text))
        unit = "line"
    examples: list[Example] = []
    first: dict[str, int] = {}
    for i, (line, row) in enumerate(rows, start=1):
        where = f"{p} {unit} {line}"
        ex = row_to_example(row, i, where, dataset)
        if ex.id in first:
            raise InputError(f"{where}: id {ex.id!r} already used on {unit} {first[ex.id]}", field="id")
        first[ex.id] = line
        examples.append(ex)
        if limit is not None and len(examples) >= limit:
            break
    if not examples:
        raise InputError(f"{p}: contains no rows to check")
    return examples


def check_summary(records: Sequence[Mapping[str, Any]], *, total: int | None = None) -> dict[str, Any]:
    """How many rows were flagged, grounded, could not be verified, or failed.

    ``flagged_share`` is flagged / verified rows (None when none was verified); ``complete`` is
    whether every one of ``total`` rows has a record."""
    n = len(records)
    outcomes = [row_outcome(r) for r in records]
    errors, hallucinated, grounded = (outcomes.count(o) for o in ("error", "hallucinated", "grounded"))
    unverified = outcomes.count("could_not_verify")
    checked = hallucinated + grounded
    total = n if total is None else total
    return {
        "rows": total,
        "done": n,
        "hallucinated": hallucinated,
        "grounded": grounded,
        "unverified": unverified,
        "errors": errors,
        "flagged_share": hallucinated / checked if checked else None,
        "complete": n == total,
        "unsupported_claims": sum(
            sum(1 for v in r["detection"]["verdicts"] if v.get("hallucinated")) for r in records if r.get("detection")
        ),
    }


def check_exit_code(summary: Mapping[str, Any], fail_above: float | None = None) -> int:
    """The CI gate: 1 when the flagged share is above ``fail_above`` — even counting every row
    not verified as grounded (so the verdict cannot change when they are); otherwise 3 when some
    rows could not be verified (errors, unverified, or not run); otherwise 1 when the flagged
    share is above the rate; 0 otherwise. Without ``fail_above`` flagged rows never fail the run.
    The codes are those of :data:`~hallucheck.types.EXIT_CODES`."""
    if fail_above is not None and summary["rows"] and summary["hallucinated"] / summary["rows"] > fail_above:
        return EXIT_CODES["hallucinated"]
    if summary["errors"] or summary["unverified"] or not summary["complete"]:
        return EXIT_CODES["could_not_verify"]
    share = summary["flagged_share"]
    if fail_above is not None and share is not None and share > fail_above:
        return EXIT_CODES["hallucinated"]
    return EXIT_CODES["grounded"]


def row_outcome(rec: Mapping[str, Any]) -> Outcome:
    """The outcome of one record (:func:`hallucheck.types.outcome`), except that a row whose run
    failed is ``"error"`` (its ``error`` says why; the run's exit code counts it as not verified)."""
    if rec.get("status") == "error":
        return "error"
    return outcome(rec.get("hallucinated"))


def table_rows(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One flat row per record: id, verdict, score, the unsupported claims and their offsets, error
    (scores rounded as people read them, :func:`~hallucheck.types.shown_score`)."""
    rows = []
    for r in records:
        det = r.get("detection") or {}
        flagged = [v for v in det.get("verdicts") or () if v.get("hallucinated")]
        rows.append(
            {
                "id": r["id"],
                "verdict": row_outcome(r),
                "score": shown_score(r.get("score")),
                "claims": len(det.get("verdicts") or ()),
                "unsupported": len(flagged),
                "unsupported_claims": [
                    {
                        "text": v["claim"]["text"],
                        "start": v["claim"]["start"],
                        "end": v["claim"]["end"],
                        "score": shown_score(v.get("score")),
                        "reason": v.get("reason", ""),
                    }
                    for v in flagged
                ],
                "error": r.get("error"),
                "question": det.get("question"),
                "answer": det.get("answer"),
            }
        )
    return rows


# a spreadsheet runs a cell that starts with one of these as a formula (OWASP "CSV injection")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A text cell that a spreadsheet would read as a formula gets a leading single quote (the
    OWASP rule); numbers and other cells are written as they are. Answers are attacker-influenced
    text, and CI artefacts get opened in spreadsheets."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def write_table(path: Path, rows: Sequence[Mapping[str, Any]], fmt: str) -> Path:
    if fmt not in TABLE_FORMATS:
        raise InputError(f"The table format must be one of {', '.join(TABLE_FORMATS)}; got {fmt!r}.", field="format")
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        if fmt == "jsonl":
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        else:
            cols = [
                "id",
                "verdict",
                "score",
                "claims",
                "unsupported",
                "unsupported_claims",
                "error",
                "question",
                "answer",
            ]
            w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
            w.writeheader()
            for row in rows:
                cells = {**row, "unsupported_claims": " | ".join(c["text"] for c in row["unsupported_claims"])}
                w.writerow({k: csv_cell(v) for k, v in cells.items()})
    os.replace(tmp, path)
    return path


def run_check(
    method: Any,
    rows: Sequence[Example],
    *,
    out_dir: str | os.PathLike[str],
    manifest: dict[str, Any] | None = None,
    workers: int = 1,
    max_errors: int | None = None,
    progress: bool = True,
    count_tokens: Callable[[str], int] | None = None,
    retry_failed: bool = True,
    table_format: str = "jsonl",
    engine: Any = None,
) -> dict[str, Any]:
    """Check ``rows`` (from :func:`load_check_rows`) with ``method`` into ``out_dir`` and return the
    summary (see :func:`check_summary`), with the files written under ``"files"``.

    Writes ``results.jsonl`` (the runner's records, resumable), ``check.jsonl`` or ``check.csv``
    (one flat row per input row) and ``summary.json``. A run stopped by ``max_errors`` raises
    :class:`~hallucheck.eval.runner.StopRun` after its finished rows are saved; call
    :func:`finish_check` to write the files for what was done. ``engine``: as for
    :func:`~hallucheck.eval.runner.run_eval` (default: local threads)."""
    if table_format not in TABLE_FORMATS:
        raise InputError(
            f"The table format must be one of {', '.join(TABLE_FORMATS)}; got {table_format!r}.", field="format"
        )
    records = run_eval(
        method,
        rows,
        out_dir=out_dir,
        manifest=manifest,
        workers=workers,
        max_errors=max_errors,
        progress=progress,
        count_tokens=count_tokens,
        retry_failed=retry_failed,
        engine=engine,
    )
    return finish_check(out_dir, rows, records, table_format=table_format, manifest=manifest)


def finish_check(
    out_dir: str | os.PathLike[str],
    rows: Sequence[Example],
    records: Sequence[Mapping[str, Any]] | None = None,
    *,
    table_format: str = "jsonl",
    manifest: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Write the table, summary and report.html of a check run (``records`` default: what
    ``out_dir`` holds for ``rows``)."""
    from .html_report import render_check_html, run_warnings
    from .plots import method_threshold
    from .report import plot_title, render_plots

    out = Path(out_dir)
    if records is None:
        done = {r["id"]: r for r in read_results(out)}
        records = [done[ex.id] for ex in rows if ex.id in done]
    summary = check_summary(records, total=len(rows))
    sentences = sentence_metrics(rows, records)
    if sentences is not None:
        summary["sentences"] = sentences
    warnings = run_warnings(records)
    if warnings:  # each once for the run, with how many rows it concerns
        summary["warnings"] = [{"warning": w, "rows": k} for w, k in warnings]
    table = write_table(out / f"check.{table_format}", table_rows(records), table_format)
    summary["files"] = [str(out / "results.jsonl"), str(table), str(out / SUMMARY), str(out / "report.html")]
    (out / SUMMARY).write_text(json.dumps(summary, indent=2), encoding="utf-8")
    m = dict(manifest) if manifest else None
    t = method_threshold(m, records)
    plots = render_plots(records, title=plot_title(m), threshold=t, threshold_label="method threshold")  # type: ignore[arg-type]
    html = render_check_html(records, summary, m, [(name, svg) for name, svg, _ in plots])
    (out / "report.html").write_text(html, encoding="utf-8")
    return summary


__all__ = [
    "load_check_rows",
    "row_to_example",
    "run_check",
    "finish_check",
    "check_summary",
    "check_exit_code",
    "table_rows",
    "write_table",
    "PASSAGE_SEP",
]
