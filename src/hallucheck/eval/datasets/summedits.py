"""SummEdits: a JSON list of ``doc`` / ``summary`` records, one file per domain."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

from ...errors import InputError
from ._files import iter_json_array, not_empty, read_text, require_object, require_str
from .example import Example, FirstLines

_SUMMEDITS_DOMAINS = (
    "news",
    "podcast",
    "billsum",
    "samsum",
    "sales_call",
    "sales_email",
    "shakespeare",
    "scitldr",
    "qmsum",
    "ectsum",
)


def _summedits_domain(record: Mapping[str, Any], path: Path, explicit: str | None) -> str | None:
    if explicit:
        return explicit
    if isinstance(record.get("domain"), str):
        return record["domain"]
    rid = str(record.get("id", ""))
    for d in _SUMMEDITS_DOMAINS:  # ids such as "sales_email_30_34"
        if rid.startswith(d + "_"):
            return d
    stem = path.stem.lower()
    for d in _SUMMEDITS_DOMAINS:  # files such as "summedits_podcast.json"
        if stem == d or stem.endswith("_" + d):
            return d
    return None


def load_summedits(
    path: str | os.PathLike[str], *, domain: str | None = None, encoding: str = "utf-8"
) -> list[Example]:
    """Load a SummEdits file (a JSON list of records with ``id``, ``doc``, ``summary``, ``label``
    and optionally ``original_summary``, ``edit_types``, ``split``, ``domain``).

    SummEdits labels 1 = consistent; here the label is inverted so 1 = inconsistent
    (hallucinated). Ids are ``summedits-<id>``. ``meta["domain"]`` comes from ``domain=``, else the
    record's ``domain`` field, else the id prefix (``sales_email_...``), else the file name
    (``summedits_<domain>.json``), else ``None``. ``meta`` also keeps ``split``, ``edit_types`` and
    the seed summary as ``original_summary`` and ``right_answer`` (it is verified consistent).
    """
    p = Path(path)
    text = read_text(p, encoding)
    examples: list[Example] = []
    first_line = FirstLines()
    for n, record in iter_json_array(p, text):
        where = f"{p} line {n}"
        record = require_object(record, where)
        if "id" not in record:
            raise InputError(f"{where}: field 'id' is missing", field="id")
        doc = require_str(record, "doc", where)
        summary = require_str(record, "summary", where)
        if "label" not in record:
            raise InputError(f"{where}: field 'label' is missing", field="label")
        raw_label = record["label"]
        if isinstance(raw_label, bool) or raw_label not in (0, 1):
            raise InputError(
                f"{where}: field 'label' must be 0 or 1 (SummEdits: 1 = consistent), got {raw_label!r}", field="label"
            )
        meta: dict[str, Any] = {"domain": _summedits_domain(record, p, domain)}
        for key in ("split", "edit_types"):
            if key in record:
                meta[key] = record[key]
        if isinstance(record.get("original_summary"), str):
            meta["original_summary"] = record["original_summary"]
            meta["right_answer"] = record["original_summary"]
        examples.append(
            first_line.example(
                "summedits",
                record,
                n,
                where,
                task="summarization",
                question=None,
                reference=doc,
                answer=summary,
                label=1 - int(raw_label),
                meta=meta,
            )
        )
    return not_empty(examples, p)
