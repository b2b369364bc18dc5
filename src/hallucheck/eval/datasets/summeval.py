"""SummEval / QAGS in the CoNLI test-suite layout (``*_raw_response.tsv`` beside the article files)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Callable, TypeVar

from ...errors import InputError
from ._files import not_empty, read_text, split_lines
from .example import Example

T = TypeVar("T")

TSV_SUFFIX = "_raw_response.tsv"


def _find_tsv(dir_or_tsv: Path) -> Path:
    if dir_or_tsv.is_dir():
        found = sorted(dir_or_tsv.glob(f"*{TSV_SUFFIX}"))
        if not found:
            raise InputError(f"{dir_or_tsv}: no *{TSV_SUFFIX} file in this directory")
        if len(found) > 1:
            names = ", ".join(f.name for f in found)
            raise InputError(f"{dir_or_tsv}: several *{TSV_SUFFIX} files ({names}); pass the one to load")
        return found[0]
    if not dir_or_tsv.exists():
        raise InputError(f"{dir_or_tsv}: file not found")
    return dir_or_tsv


def _parse_flag(value: str, where: str, column: str) -> int:
    v = value.strip().lower()
    if v in ("1", "1.0", "true", "yes"):
        return 1
    if v in ("0", "0.0", "false", "no"):
        return 0
    raise InputError(f"{where}: column {column!r} must be 0 or 1, got {value!r}", field=column)


def _safe_file_stem(name: str) -> bool:
    """True when ``name`` names a file inside a folder and nothing else: no separator (of any
    platform), not ``.``/``..``, no control characters, not a drive or absolute path."""
    if name in (".", "..") or any(ch in name for ch in "/\\:") or any(ord(ch) < 32 for ch in name):
        return False
    return os.path.basename(name) == name and not os.path.isabs(name)


def load_summeval_tsv(
    dir_or_tsv: str | os.PathLike[str], *, dataset: str | None = None, encoding: str = "utf-8"
) -> list[Example]:
    """Load the SummEval / QAGS layout of the CoNLI test suite: ``<name>_raw_response.tsv`` next to
    a ``src/`` folder holding ``<DataID>.txt`` (the source article, Latin-1 encoded).

    Assumed TSV columns (header required, names matched case-insensitively):

    * ``DataID`` -- the summary id; also names the article file ``src/<DataID>.txt``.
    * ``SentenceID`` -- position of the row's text within the summary. In the released files every
      summary is a single row with SentenceID 1; if a summary is split over several rows they are
      joined with a space in SentenceID order and the example is hallucinated if any row is.
    * ``Sentence`` -- the summary text (tokenised, as released).
    * ``IsHallucination`` -- 1 if the summary is inconsistent with the article, else 0.
    * ``Consistency`` (optional) -- mean expert consistency score on 1-5. In SummEval
      IsHallucination is 1 exactly when this is below 5; if IsHallucination is absent the label
      is derived that way.

    One example per DataID: id ``<dataset>-<DataID>``, where ``dataset`` defaults to the TSV name
    before ``_raw_response.tsv`` (``summeval``); ``meta["article"]`` is the first 10 hex digits of
    the SHA-1 of the article file (to group the summaries of one article), ``meta["consistency"]``
    the expert score when present.
    """
    tsv = _find_tsv(Path(dir_or_tsv))
    name = dataset or (tsv.name[: -len(TSV_SUFFIX)] if tsv.name.endswith(TSV_SUFFIX) else tsv.stem)
    lines = split_lines(read_text(tsv, encoding))
    header = [h.strip().lower() for h in lines[0].split("\t")] if lines else []
    col = {h: i for i, h in enumerate(header)}
    for needed in ("dataid", "sentence"):
        if needed not in col:
            raise InputError(
                f"{tsv} line 1: header must name the columns DataID, SentenceID, Sentence, "
                f"IsHallucination (and optionally Consistency); found {lines[0][:200]!r}"
            )
    if "ishallucination" not in col and "consistency" not in col:
        raise InputError(f"{tsv} line 1: need an IsHallucination or a Consistency column to label the rows")

    groups: dict[str, list[tuple[int, int, str, int, float | None]]] = {}
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split("\t")
        where = f"{tsv} line {n}"
        if len(cells) < len(header):
            raise InputError(f"{where}: expected {len(header)} tab-separated columns, found {len(cells)}")
        data_id, sent_id, label, consistency = _read_row(cells, col, where)
        groups.setdefault(data_id, []).append((n, sent_id, cells[col["sentence"]], label, consistency))
    examples = [_summary(tsv, name, data_id, rows) for data_id, rows in groups.items()]
    return not_empty(examples, tsv)


def _read_row(cells: list[str], col: dict[str, int], where: str) -> tuple[str, int, int, float | None]:
    """A row's DataID, SentenceID, label and consistency score, each checked."""
    data_id = cells[col["dataid"]].strip()
    if not data_id:
        raise InputError(f"{where}: column 'DataID' is empty", field="DataID")
    if not _safe_file_stem(data_id):
        # the id names the file src/<DataID>.txt: one that leaves the src/ folder could read any .txt file
        raise InputError(
            f"{where}: DataID {data_id!r} is not a plain file name (it must not contain a path separator, "
            "'..' or control characters), so it cannot name an article in src/.",
            field="DataID",
        )
    sent_id = _read_cell(cells[col["sentenceid"]], int, "SentenceID", "an integer", where) if "sentenceid" in col else 1
    consistency = None
    if "consistency" in col and cells[col["consistency"]].strip():
        consistency = _read_cell(cells[col["consistency"]], float, "Consistency", "a number", where)
    if "ishallucination" in col:
        label = _parse_flag(cells[col["ishallucination"]], where, "IsHallucination")
    elif consistency is not None:
        label = int(consistency < 5.0)
    else:
        raise InputError(f"{where}: no IsHallucination column and an empty Consistency value")
    return data_id, sent_id, label, consistency


def _read_cell(cell: str, convert: Callable[[str], T], column: str, kind: str, where: str) -> T:
    """``cell`` of ``column`` read by ``convert``; a usage error when it is not ``kind``."""
    try:
        return convert(cell)
    except ValueError:
        raise InputError(f"{where}: column '{column}' must be {kind}, got {cell!r}", field=column) from None


def _summary(tsv: Path, name: str, data_id: str, rows: list[tuple[int, int, str, int, float | None]]) -> Example:
    """One summary: its rows joined in SentenceID order, checked against ``src/<DataID>.txt``."""
    rows.sort(key=lambda r: r[1])
    article_path = tsv.parent / "src" / f"{data_id}.txt"
    if not article_path.is_file():
        raise InputError(f"{tsv} line {rows[0][0]}: article file {article_path} not found (DataID {data_id})")
    raw = article_path.read_bytes()
    reference = raw.decode("latin-1").rstrip("\r\n")  # Latin-1 by design in this layout
    meta: dict[str, Any] = {"article": hashlib.sha1(raw).hexdigest()[:10]}
    if rows[0][4] is not None:
        meta["consistency"] = rows[0][4]
    if len(rows) > 1:
        meta["sentence_labels"] = [r[3] for r in rows]
    return Example(
        id=f"{name}-{data_id}",
        dataset=name,
        task="summarization",
        question=None,
        reference=reference,
        answer=" ".join(r[2] for r in rows),
        label=max(r[3] for r in rows),
        meta=meta,
    )
