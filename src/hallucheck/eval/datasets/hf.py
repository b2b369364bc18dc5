"""Hugging Face hub versions (HaluBench, RAGTruth, BioASQ rag-mini) through the optional ``datasets`` package."""

from __future__ import annotations

import ast
import importlib
import json
from typing import Any, Callable, Iterable, Mapping

from ...errors import ConfigError, InputError, MissingDependencyError, install_hint
from ._files import check_unique, not_empty
from .example import Example
from .ragtruth import RAGTRUTH_TASKS, ragtruth_spans


def _hf_module() -> Any:
    try:
        return importlib.import_module("datasets")
    except ImportError:
        raise MissingDependencyError("Hugging Face datasets", install_hint("hf")) from None


def _hf_label_passfail(value: Any, where: str) -> int:
    if isinstance(value, str):
        v = value.strip().upper()
        if v == "FAIL":
            return 1
        if v == "PASS":
            return 0
    elif not isinstance(value, bool) and value in (0, 1):
        return int(value)
    raise InputError(f"{where}: column 'label' must be PASS or FAIL, got {value!r}", field="label")


def _row_str(row: Mapping[str, Any], key: str, where: str, *, optional: bool = False) -> str | None:
    if key not in row or row[key] is None:
        if optional:
            return None
        raise InputError(f"{where}: column {key!r} is missing", field=key)
    value = row[key]
    if not isinstance(value, str):
        raise InputError(f"{where}: column {key!r} must be text, got {type(value).__name__}", field=key)
    return value


def _map_halubench(rows: Iterable[Mapping[str, Any]], where: str, **_: Any) -> list[Example]:
    out = []
    for i, row in enumerate(rows):
        w = f"{where} row {i}"
        meta = {"source_ds": row.get("source_ds"), "orig_id": row.get("id")}
        out.append(
            Example(
                id=f"halubench-{i}",
                dataset="halubench",
                task="qa",
                question=_row_str(row, "question", w, optional=True),
                reference=_row_str(row, "passage", w) or "",
                answer=_row_str(row, "answer", w) or "",
                label=_hf_label_passfail(row.get("label"), w),
                meta=meta,
            )
        )
    return out


def _parse_structured(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    for parse in (json.loads, ast.literal_eval):
        try:
            return parse(value)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return None


def _map_ragtruth_hf(rows: Iterable[Mapping[str, Any]], where: str, **_: Any) -> list[Example]:
    out = []
    for i, row in enumerate(rows):
        w = f"{where} row {i}"
        output = _row_str(row, "output", w) or ""
        task_type = str(row.get("task_type") or "")
        task = RAGTRUTH_TASKS.get(task_type.lower(), task_type.lower() or "rag")
        labels = _parse_structured(row.get("hallucination_labels"))
        spans: list[list[int]] | None = None
        types: list[Any] = []
        if isinstance(labels, list):
            spans, types, _implicit = ragtruth_spans(labels, output, w)
        counts = row.get("hallucination_labels_processed")
        if spans is not None:
            label = int(bool(spans))
        elif isinstance(counts, Mapping):
            label = int(any((v or 0) > 0 for v in counts.values()))
        else:
            raise InputError(
                f"{w}: neither 'hallucination_labels' nor 'hallucination_labels_processed' can be read",
                field="hallucination_labels",
            )
        query = row.get("query")
        meta: dict[str, Any] = {"spans": spans, "span_types": types, "task_type": task_type, "orig_id": row.get("id")}
        for key in ("model", "temperature", "quality"):
            if key in row:
                meta[key] = row[key]
        out.append(
            Example(
                id=f"ragtruth-{row.get('id', i)}",
                dataset="ragtruth",
                task=task,
                question=query if task == "qa" and isinstance(query, str) and query else None,
                reference=_row_str(row, "context", w) or "",
                answer=output,
                label=label,
                meta=meta,
            )
        )
    return out


def _passage_ids(value: Any, where: str) -> list[Any]:
    ids = _parse_structured(value)
    if not isinstance(ids, (list, tuple)):
        raise InputError(
            f"{where}: column 'relevant_passage_ids' must be a list of passage ids, got {value!r}",
            field="relevant_passage_ids",
        )
    return list(ids)


def _map_bioasq(
    rows: Iterable[Mapping[str, Any]], where: str, *, corpus: Iterable[Mapping[str, Any]] = (), **_: Any
) -> list[Example]:
    passages: dict[str, str] = {}
    for j, prow in enumerate(corpus):
        passages[str(prow.get("id"))] = _row_str(prow, "passage", f"{where} corpus row {j}") or ""
    out = []
    for i, row in enumerate(rows):
        w = f"{where} row {i}"
        texts = []
        for pid in _passage_ids(row.get("relevant_passage_ids"), w):
            if str(pid) not in passages:
                raise InputError(
                    f"{w}: passage id {pid!r} is not in the text corpus ({len(passages)} passages)",
                    field="relevant_passage_ids",
                )
            texts.append(passages[str(pid)])
        answer = _row_str(row, "answer", w) or ""
        out.append(
            Example(
                id=f"bioasq-{row.get('id', i)}",
                dataset="bioasq",
                task="qa",
                question=_row_str(row, "question", w),
                reference="\n\n".join(texts),
                answer=answer,
                label=None,
                meta={"right_answer": answer},
            )
        )
    return out


# name -> (hub repository, config, default split, mapper, corpus (config, split) or None)
HF_DATASETS: dict[str, tuple[str, str | None, str, Callable[..., list[Example]], tuple[str, str] | None]] = {
    "halubench": ("PatronusAI/HaluBench", None, "test", _map_halubench, None),
    "ragtruth": ("wandb/RAGTruth-processed", None, "test", _map_ragtruth_hf, None),
    "bioasq": (
        "rag-datasets/rag-mini-bioasq",
        "question-answer-passages",
        "test",
        _map_bioasq,
        ("text-corpus", "passages"),
    ),
}
HF_ALIASES = {
    "patronusai/halubench": "halubench",
    "wandb/ragtruth-processed": "ragtruth",
    "rag-mini-bioasq": "bioasq",
    "rag-datasets/rag-mini-bioasq": "bioasq",
    "bioasq-rag-mini": "bioasq",
}


def _hf_builder(files: Any) -> str:
    first = files
    while isinstance(first, Mapping):
        first = next(iter(first.values()), "")
    if isinstance(first, (list, tuple)):
        first = first[0] if first else ""
    name = str(first).lower()
    if name.endswith((".json", ".jsonl", ".json.gz", ".jsonl.gz")):
        return "json"
    if name.endswith((".csv", ".tsv")):
        return "csv"
    if name.endswith(".parquet"):
        return "parquet"
    raise ConfigError(f"cannot tell the format of data file {first!r}; use .jsonl, .json, .csv or .parquet")


def _hf_load(hf: Any, repo: str, config: str | None, split: str, files: Any, **kwargs: Any) -> Any:
    if files is None:
        args = (repo, config) if config else (repo,)
        return hf.load_dataset(*args, split=split, **kwargs)
    # local files: datasets names an unsplit file set "train"
    file_split = split if isinstance(files, Mapping) else "train"
    return hf.load_dataset(_hf_builder(files), data_files=files, split=file_split, **kwargs)


def load_hf(
    name: str,
    split: str | None = None,
    *,
    config: str | None = None,
    data_files: Any = None,
    corpus_files: Any = None,
    limit: int | None = None,
    **load_kwargs: Any,
) -> list[Example]:
    """Load HaluBench, RAGTruth or BioASQ (rag-mini) with the Hugging Face ``datasets`` package
    (an optional dependency: the ``hf`` extra).

    ``name`` is ``"halubench"``, ``"ragtruth"`` or ``"bioasq"`` (or the hub ids below).
    ``data_files`` loads local files instead of the hub (a path, a list of paths, or a dict
    ``{split: paths}``; .jsonl/.json/.csv/.parquet), which also works offline. For BioASQ the
    passages come from ``corpus_files`` (local) or the hub's ``text-corpus`` config.
    Extra keyword arguments go to ``datasets.load_dataset``.

    Assumed columns:

    * HaluBench (``PatronusAI/HaluBench``, split ``test``): ``id``, ``passage`` (reference),
      ``question``, ``answer``, ``label`` (``FAIL`` -> 1 hallucinated, ``PASS`` -> 0),
      ``source_ds`` (kept in meta). Ids are ``halubench-<row>``, the original id goes to
      ``meta["orig_id"]``.
    * RAGTruth (``wandb/RAGTruth-processed``, splits ``train``/``test``): ``id``, ``query``
      (question for QA rows), ``context`` (reference), ``output`` (answer), ``task_type``,
      ``hallucination_labels`` (JSON text of RAGTruth spans; label 1 if any) and
      ``hallucination_labels_processed`` (``{evident_conflict, baseless_info}`` counts, used when
      the spans cannot be read), ``model``, ``temperature``, ``quality``.
    * BioASQ rag-mini (``rag-datasets/rag-mini-bioasq``): config ``question-answer-passages``
      (split ``test``; ``id``, ``question``, ``answer``, ``relevant_passage_ids``) and config
      ``text-corpus`` (split ``passages``; ``id``, ``passage``). The reference is the relevant
      passages joined by blank lines; the answer is the gold answer, the label ``None`` (BioASQ has
      no hallucination labels; use it to generate and check answers).
    """
    key = HF_ALIASES.get(name.lower(), name.lower())
    if key not in HF_DATASETS:
        raise ConfigError(f"unknown Hugging Face dataset {name!r}; known: {', '.join(HF_DATASETS)}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ConfigError(f"limit must be a positive integer, got {limit!r}")
    hf = _hf_module()
    repo, default_config, default_split, mapper, corpus_spec = HF_DATASETS[key]
    use_split = split or default_split
    use_config = config or default_config
    rows = _hf_load(hf, repo, use_config, use_split, data_files, **load_kwargs)
    where = f"{name} ({'local files' if data_files is not None else repo}, split {use_split})"
    extra: dict[str, Any] = {}
    if corpus_spec is not None:
        if data_files is not None:
            if corpus_files is None:
                raise InputError(
                    f"{name}: with data_files= also pass corpus_files= (the text-corpus passages "
                    f"with columns id and passage)"
                )
            corpus_split = next(iter(corpus_files)) if isinstance(corpus_files, Mapping) else "train"
            extra["corpus"] = _hf_load(hf, repo, None, corpus_split, corpus_files)
        else:
            extra["corpus"] = hf.load_dataset(repo, corpus_spec[0], split=corpus_spec[1])
    if limit is not None:
        rows = (row for i, row in zip(range(limit), rows))
    examples = mapper(rows, where, **extra)
    check_unique(examples, where)
    return not_empty(examples, where)
