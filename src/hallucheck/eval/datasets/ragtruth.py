"""RAGTruth (original release): a directory with ``response.jsonl`` and ``source_info.jsonl``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping

from ...errors import InputError
from ._files import iter_json_lines, not_empty, read_text, require_object, require_str
from .example import Example, FirstLines

RAGTRUTH_TASKS = {"qa": "qa", "summary": "summarization", "data2txt": "data2text"}


def _ragtruth_reference(task_type: str, info: Any, where: str) -> tuple[str, str | None]:
    """(reference, question) from a RAGTruth ``source_info`` value."""
    if isinstance(info, str):
        return info, None
    if not isinstance(info, Mapping):
        raise InputError(
            f"{where}: field 'source_info' must be a string or an object, got {type(info).__name__}",
            field="source_info",
        )
    if task_type.lower() == "qa":
        passages = info.get("passages")
        question = info.get("question")
        if not isinstance(passages, str):
            raise InputError(f"{where}: QA source_info needs a string 'passages'", field="source_info")
        return passages, question if isinstance(question, str) else None
    # Data2txt: structured business data; kept as compact JSON text
    return json.dumps(info, ensure_ascii=False), None


def ragtruth_spans(labels: Any, response: str, where: str) -> tuple[list[list[int]], list[Any], list[Any]]:
    if labels is None:
        return [], [], []
    if not isinstance(labels, list):
        raise InputError(
            f"{where}: field 'labels' must be a list of spans, got {type(labels).__name__}", field="labels"
        )
    spans, types, implicit = [], [], []
    for j, lab in enumerate(labels):
        if not isinstance(lab, Mapping):
            raise InputError(f"{where}: labels[{j}] must be an object with start and end", field="labels")
        start, end = lab.get("start"), lab.get("end")
        if (
            isinstance(start, bool)
            or isinstance(end, bool)
            or not isinstance(start, int)
            or not isinstance(end, int)
            or start < 0
            or end < start
        ):
            raise InputError(
                f"{where}: labels[{j}] needs integer offsets 0 <= start <= end, got start={start!r}, end={end!r}",
                field="labels",
            )
        spans.append([start, min(end, len(response))])
        types.append(lab.get("label_type"))
        implicit.append(bool(lab.get("implicit_true", False)))
    order = sorted(range(len(spans)), key=lambda k: spans[k])
    return [spans[k] for k in order], [types[k] for k in order], [implicit[k] for k in order]


def load_ragtruth(dir: str | os.PathLike[str], split: str | None = None, *, encoding: str = "utf-8") -> list[Example]:
    """Load the RAGTruth release: ``response.jsonl`` and ``source_info.jsonl`` in ``dir``.

    Response rows: ``id``, ``source_id``, ``response``, ``labels`` (a list of
    ``{start, end, text, label_type, ...}`` character spans of the response), and optionally
    ``model``, ``temperature``, ``split`` (train/test), ``quality``. Source rows: ``source_id``,
    ``task_type`` (QA, Summary, Data2txt), ``source_info`` (a string for Summary; for QA an object
    with ``question`` and ``passages``; for Data2txt structured data, turned into compact JSON
    text here), and optionally ``source`` and ``prompt``.

    One example per response, id ``ragtruth-<id>``, label 1 if it has any labelled span (spans
    flagged ``implicit_true`` included; their flags are kept in ``meta["implicit_true"]``).
    ``meta["spans"]`` holds ``[[start, end], ...]`` sorted by position (an end past the response
    is clipped to its length), ``meta["span_types"]`` the label types; ``model``, ``temperature``,
    ``split``, ``quality``, ``source`` and ``source_id`` are kept too. ``split`` keeps only the
    responses of that split. Filter on ``meta["quality"] == "good"`` to drop truncated answers and
    refusals, as the RAGTruth baselines do.
    """
    d = Path(dir)
    if not d.is_dir():
        raise InputError(f"{d}: expected the RAGTruth directory holding response.jsonl and source_info.jsonl")
    resp_path, src_path = d / "response.jsonl", d / "source_info.jsonl"
    for fp in (resp_path, src_path):
        if not fp.is_file():
            raise InputError(f"{fp}: file not found (a RAGTruth directory needs response.jsonl and source_info.jsonl)")

    sources = _sources(src_path, encoding)

    examples: list[Example] = []
    first_line = FirstLines()
    for n, record in iter_json_lines(resp_path, read_text(resp_path, encoding)):
        where = f"{resp_path} line {n}"
        record = require_object(record, where, required=("id", "source_id", "labels"))
        response = require_str(record, "response", where)
        if split is not None and record.get("split") != split:
            continue
        source_id = str(record["source_id"])
        if source_id not in sources:
            raise InputError(f"{where}: source_id {source_id!r} is not in {src_path.name}", field="source_id")
        src, task_type, task, reference, question = _source_of(src_path, *sources[source_id])
        spans, types, implicit = ragtruth_spans(record["labels"], response, where)
        meta: dict[str, Any] = {
            "spans": spans,
            "span_types": types,
            "implicit_true": implicit,
            "source_id": source_id,
            "task_type": task_type,
        }
        for key in ("model", "temperature", "split", "quality"):
            if key in record:
                meta[key] = record[key]
        if "source" in src:
            meta["source"] = src["source"]
        examples.append(
            first_line.example(
                "ragtruth",
                record,
                n,
                where,
                task=task,
                question=question,
                reference=reference,
                answer=response,
                label=int(bool(spans)),
                meta=meta,
            )
        )
    if not examples and split is not None:
        raise InputError(f"{resp_path}: no response with split {split!r}")
    return not_empty(examples, resp_path)


def _sources(src_path: Path, encoding: str) -> dict[str, tuple[int, Mapping[str, Any]]]:
    """The rows of ``source_info.jsonl`` by source id, each with its line."""
    sources: dict[str, tuple[int, Mapping[str, Any]]] = {}
    for n, record in iter_json_lines(src_path, read_text(src_path, encoding)):
        where = f"{src_path} line {n}"
        record = require_object(record, where, required=("source_id", "task_type", "source_info"))
        sources[str(record["source_id"])] = (n, record)
    return sources


def _source_of(
    src_path: Path, src_line: int, src: Mapping[str, Any]
) -> tuple[Mapping[str, Any], str, str, str, str | None]:
    """A source row, its task type as written and as a task, and the reference and question it gives."""
    task_type = str(src["task_type"])
    task = RAGTRUTH_TASKS.get(task_type.lower())
    if task is None:
        raise InputError(
            f"{src_path} line {src_line}: unknown task_type {task_type!r}; expected QA, Summary or Data2txt",
            field="task_type",
        )
    reference, question = _ragtruth_reference(task_type, src["source_info"], f"{src_path} line {src_line}")
    return src, task_type, task, reference, question
