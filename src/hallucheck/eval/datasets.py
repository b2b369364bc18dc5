"""Benchmark loaders: every dataset becomes a list of :class:`Example`.

Loaders for the shared JSON-lines schema (``/work/shared/data/README.md``) and for the original
release formats of HaluEval, SummEval (CoNLI test-suite layout), SummEdits, DelucionQA and RAGTruth,
plus Hugging Face hub versions of HaluBench, RAGTruth and BioASQ (rag-mini) through the optional
``datasets`` package. :func:`load_dataset` picks the right loader from a path or a name.

Every problem with the data raises :class:`~hallucheck.errors.InputError` naming the file, the
line (1-based) and what is wrong, e.g. ``halueval_qa.jsonl line 7: field 'answer' is missing``.
Files are read as UTF-8 (a UTF-8 byte-order mark is accepted); other encodings raise an
``InputError`` that suggests the likely encoding and how to pass it (``encoding=``). SummEval
article files are the exception: they are Latin-1 by design.

Ids
---
Loaders build ids that are unique within a dataset and stable across runs, matching the ids of the
shared ``dev/`` files where those exist: ``halueval-qa-<i>-r`` / ``-h`` (``i`` is the 0-based item
index in the file), ``summeval-<DataID>``, ``summedits-<id>``, ``delucionqa-<sample_id>``,
``ragtruth-<id>``.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import importlib
import io
import json
import os
import re
from dataclasses import dataclass, field
from numbers import Integral
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from ..errors import ConfigError, InputError, MissingDependencyError

__all__ = [
    "Example",
    "load_jsonl",
    "load_halueval",
    "load_summeval_tsv",
    "load_summedits",
    "load_delucionqa_csv",
    "load_ragtruth",
    "load_hf",
    "load_dataset",
    "HF_DATASETS",
]

# --------------------------------------------------------------------------------------------
# Example
# --------------------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """A JSON-friendly deep copy (mappings -> dicts, tuples -> lists)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _check_label(label: Any) -> int | None:
    if label is None:
        return None
    if isinstance(label, bool) or not isinstance(label, Integral) or label not in (0, 1):
        raise InputError(f"field 'label' must be 0 (grounded), 1 (hallucinated) or null, got {label!r}", field="label")
    return int(label)


@dataclass(frozen=True, repr=False)
class Example:
    """One item to check: does ``answer`` contain a hallucination with respect to ``reference``?

    ``label`` is 1 (hallucinated), 0 (grounded) or ``None`` (unknown). ``meta`` keeps
    dataset-specific extras, e.g. ``right_answer`` (the grounded answer, HaluEval and SummEdits;
    used to evaluate mitigation), ``spans`` (RAGTruth hallucinated character spans of ``answer`` as
    ``[[start, end], ...]``), ``domain`` (SummEdits), ``consistency`` (SummEval expert score).
    """

    id: str
    dataset: str
    task: str
    question: str | None
    reference: str
    answer: str
    label: int | None
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("id", "dataset", "task"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise InputError(f"field {name!r} must be a non-empty string, got {value!r}", field=name)
        for name in ("reference", "answer"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise InputError(f"field {name!r} must be a string, got {type(value).__name__}", field=name)
        if self.question is not None and not isinstance(self.question, str):
            raise InputError(
                f"field 'question' must be a string or null, got {type(self.question).__name__}", field="question"
            )
        object.__setattr__(self, "label", _check_label(self.label))
        if not isinstance(self.meta, Mapping):
            raise InputError(f"field 'meta' must be an object, got {type(self.meta).__name__}", field="meta")
        object.__setattr__(self, "meta", dict(self.meta))

    def __repr__(self) -> str:
        def short(text: str | None) -> str:
            return repr(text) if text is None or len(text) <= 60 else repr(text[:57] + "...")

        return (
            f"Example(id={self.id!r}, dataset={self.dataset!r}, task={self.task!r}, "
            f"question={short(self.question)}, reference={short(self.reference)}, answer={short(self.answer)}, "
            f"label={self.label!r}, meta=<{len(self.meta)} keys>)"
        )

    def to_dict(self) -> dict[str, Any]:
        """The shared-schema record (JSON-serialisable if ``meta`` is)."""
        return {
            "id": self.id,
            "dataset": self.dataset,
            "task": self.task,
            "question": self.question,
            "reference": self.reference,
            "answer": self.answer,
            "label": self.label,
            "meta": _plain(self.meta),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Example":
        """Build from a shared-schema record. ``id``, ``dataset``, ``task``, ``reference``,
        ``answer`` and ``label`` are required (``label`` may be null); ``question`` defaults to
        null and ``meta`` to ``{}``. Other keys are ignored. Instead of a ``reference`` text, a
        record may give ``contexts`` or ``passages``: a list of
        passages: they are kept in ``meta["passages"]`` (the runner checks against them) and
        ``reference`` is their join by a blank line."""
        if not isinstance(d, Mapping):
            raise InputError(f"expected a JSON object, got {type(d).__name__}")
        passages_key = next((k for k in ("contexts", "passages") if d.get(k) is not None), None)
        for name in ("id", "dataset", "task", "reference", "answer", "label"):
            if name not in d and not (name == "reference" and passages_key):
                raise InputError(
                    f"field {name!r} is missing (or give 'contexts': a list of passages)"
                    if name == "reference"
                    else f"field {name!r} is missing",
                    field=name,
                )
        meta = d.get("meta")
        meta = {} if meta is None else meta
        reference = d.get("reference")
        if passages_key is not None:
            from ..text.passages import SEP, check_passages

            passages = list(check_passages(d[passages_key], field=passages_key))
            if not isinstance(meta, Mapping):
                raise InputError(f"field 'meta' must be an object, got {type(meta).__name__}", field="meta")
            meta = {**meta, "passages": passages}
            reference = SEP.join(passages)
        return cls(
            id=d["id"],
            dataset=d["dataset"],
            task=d["task"],
            question=d.get("question"),
            reference=reference,
            answer=d["answer"],
            label=d["label"],
            meta=meta,
        )


# --------------------------------------------------------------------------------------------
# file helpers
# --------------------------------------------------------------------------------------------


def _guess_encoding(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    try:
        data.decode("cp1252")
        return "cp1252"
    except UnicodeDecodeError:
        return "latin-1"


def _read_text(path: Path, encoding: str = "utf-8") -> str:
    if not path.exists():
        raise InputError(f"{path}: file not found")
    if path.is_dir():
        raise InputError(f"{path}: is a directory, expected a file")
    data = path.read_bytes()
    codec = "utf-8-sig" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding
    try:
        return data.decode(codec)
    except LookupError:
        raise ConfigError(f"unknown encoding {encoding!r}") from None
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        guess = _guess_encoding(data)
        raise InputError(
            f"{path}: not valid {encoding} text (byte 0x{data[e.start]:02x} on line {line}). The file looks "
            f"{guess}-encoded: convert it (iconv -f {guess} -t utf-8) or pass encoding={guess!r} to the loader."
        ) from None


def _lines(text: str) -> list[str]:
    # split on "\n" only: str.splitlines() would also split on U+2028 etc. inside JSON strings
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def _iter_json_lines(path: Path, text: str) -> Iterator[tuple[int, Any]]:
    """(line number, decoded value) for every non-blank line."""
    for n, line in enumerate(_lines(text), start=1):
        if not line.strip():
            continue
        try:
            yield n, json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{path} line {n}: not valid JSON ({e.msg} at column {e.colno})") from None


_WS = re.compile(r"[ \t\r\n]*")


def _skip_ws(text: str, pos: int) -> int:
    match = _WS.match(text, pos)
    return match.end() if match else pos


def _iter_json_array(path: Path, text: str) -> Iterator[tuple[int, Any]]:
    """(line on which the item starts, item) for every element of a top-level JSON array."""
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    if text.startswith("\ufeff", pos):
        pos = _skip_ws(text, pos + 1)
    if not text.startswith("[", pos):
        raise InputError(f"{path}: expected a JSON list of records (the file should start with '[')")
    pos = _skip_ws(text, pos + 1)
    line = 1 + text.count("\n", 0, pos)
    last = pos
    if text.startswith("]", pos):
        return
    while True:
        line += text.count("\n", last, pos)
        last = pos
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            raise InputError(f"{path} line {e.lineno}: not valid JSON ({e.msg} at column {e.colno})") from None
        yield line, value
        pos = _skip_ws(text, end)
        if text.startswith(",", pos):
            pos = _skip_ws(text, pos + 1)
            continue
        if text.startswith("]", pos):
            return
        bad_line = 1 + text.count("\n", 0, pos)
        raise InputError(f"{path} line {bad_line}: expected ',' or ']' after a list item")


def _iter_json_records(path: Path, text: str) -> Iterator[tuple[int, Any]]:
    """JSON lines, or a JSON list if the file starts with '['."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("["):
        return _iter_json_array(path, text)
    return _iter_json_lines(path, text)


def _require_str(record: Mapping[str, Any], key: str, where: str) -> str:
    if key not in record:
        raise InputError(f"{where}: field {key!r} is missing", field=key)
    value = record[key]
    if not isinstance(value, str):
        raise InputError(f"{where}: field {key!r} must be a string, got {type(value).__name__}", field=key)
    return value


def _require_object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InputError(f"{where}: expected a JSON object, got {type(value).__name__}")
    return value


def _check_unique(examples: list[Example], where: str) -> None:
    seen: dict[str, int] = {}
    for i, ex in enumerate(examples):
        if ex.id in seen:
            raise InputError(f"{where}: id {ex.id!r} occurs more than once (rows {seen[ex.id]} and {i})")
        seen[ex.id] = i


def _not_empty(examples: list[Example], path: Any) -> list[Example]:
    if not examples:
        raise InputError(f"{path}: contains no examples")
    return examples


# --------------------------------------------------------------------------------------------
# shared schema
# --------------------------------------------------------------------------------------------


def load_jsonl(path: str | os.PathLike[str], *, encoding: str = "utf-8") -> list[Example]:
    """Load a file in the shared JSON-lines schema (one :meth:`Example.from_dict` record a line,
    blank lines ignored). Ids must be unique within the file."""
    p = Path(path)
    text = _read_text(p, encoding)
    examples: list[Example] = []
    first_line: dict[str, int] = {}
    for n, record in _iter_json_lines(p, text):
        try:
            ex = Example.from_dict(_require_object(record, "record"))
        except InputError as e:
            raise InputError(f"{p} line {n}: {_strip_where(e)}", field=e.field) from None
        if ex.id in first_line:
            raise InputError(f"{p} line {n}: id {ex.id!r} already used on line {first_line[ex.id]}", field="id")
        first_line[ex.id] = n
        examples.append(ex)
    return _not_empty(examples, p)


def _strip_where(e: InputError) -> str:
    msg = str(e)
    return msg[len("record: ") :] if msg.startswith("record: ") else msg


# --------------------------------------------------------------------------------------------
# HaluEval
# --------------------------------------------------------------------------------------------

# task -> (dataset name, id prefix, reference key, question key or None, right key, hallucinated key)
_HALUEVAL_TASKS: dict[str, tuple[str, str, str, str | None, str, str]] = {
    "qa": ("halueval_qa", "halueval-qa", "knowledge", "question", "right_answer", "hallucinated_answer"),
    "summarization": ("halueval_summ", "halueval-summ", "document", None, "right_summary", "hallucinated_summary"),
    "dialogue": (
        "halueval_dialogue",
        "halueval-dialogue",
        "knowledge",
        "dialogue_history",
        "right_response",
        "hallucinated_response",
    ),
}
_HALUEVAL_ALIASES = {"summ": "summarization", "summary": "summarization", "dialog": "dialogue"}


def load_halueval(path: str | os.PathLike[str], task: str = "qa", *, encoding: str = "utf-8") -> list[Example]:
    """Load an original HaluEval file (``qa_data.json``, ``summarization_data.json``,
    ``dialogue_data.json``: JSON lines, or a JSON list).

    Fields per task: ``qa`` knowledge / question / right_answer / hallucinated_answer;
    ``summarization`` document / right_summary / hallucinated_summary; ``dialogue`` knowledge /
    dialogue_history (used as the question) / right_response / hallucinated_response.

    Item ``i`` (0-based) gives two examples: the right answer (label 0, id
    ``halueval-<qa|summ|dialogue>-<i>-r``) and the hallucinated one (label 1, id ``...-h``). Both
    carry the right answer in ``meta["right_answer"]``. Dataset names are ``halueval_qa``,
    ``halueval_summ`` and ``halueval_dialogue``, as in the shared dev files.
    """
    key = _HALUEVAL_ALIASES.get(task, task)
    if key not in _HALUEVAL_TASKS:
        raise ConfigError(f"unknown HaluEval task {task!r}; choose one of {', '.join(_HALUEVAL_TASKS)}")
    dataset, prefix, ref_key, q_key, right_key, hall_key = _HALUEVAL_TASKS[key]
    p = Path(path)
    text = _read_text(p, encoding)
    examples: list[Example] = []
    for i, (n, record) in enumerate(_iter_json_records(p, text)):
        where = f"{p} line {n}"
        record = _require_object(record, where)
        reference = _require_str(record, ref_key, where)
        question = _require_str(record, q_key, where) if q_key else None
        right = _require_str(record, right_key, where)
        hallucinated = _require_str(record, hall_key, where)
        for suffix, answer, label in (("r", right, 0), ("h", hallucinated, 1)):
            examples.append(
                Example(
                    id=f"{prefix}-{i}-{suffix}",
                    dataset=dataset,
                    task=key,
                    question=question,
                    reference=reference,
                    answer=answer,
                    label=label,
                    meta={"right_answer": right},
                )
            )
    return _not_empty(examples, p)


# --------------------------------------------------------------------------------------------
# SummEval / QAGS (CoNLI test-suite layout)
# --------------------------------------------------------------------------------------------

_TSV_SUFFIX = "_raw_response.tsv"


def _find_tsv(dir_or_tsv: Path) -> Path:
    if dir_or_tsv.is_dir():
        found = sorted(dir_or_tsv.glob(f"*{_TSV_SUFFIX}"))
        if not found:
            raise InputError(f"{dir_or_tsv}: no *{_TSV_SUFFIX} file in this directory")
        if len(found) > 1:
            names = ", ".join(f.name for f in found)
            raise InputError(f"{dir_or_tsv}: several *{_TSV_SUFFIX} files ({names}); pass the one to load")
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
    name = dataset or (tsv.name[: -len(_TSV_SUFFIX)] if tsv.name.endswith(_TSV_SUFFIX) else tsv.stem)
    src_dir = tsv.parent / "src"
    lines = _lines(_read_text(tsv, encoding))
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
        sent_id = 1
        if "sentenceid" in col:
            try:
                sent_id = int(cells[col["sentenceid"]])
            except ValueError:
                raise InputError(
                    f"{where}: column 'SentenceID' must be an integer, got {cells[col['sentenceid']]!r}",
                    field="SentenceID",
                ) from None
        consistency = None
        if "consistency" in col and cells[col["consistency"]].strip():
            try:
                consistency = float(cells[col["consistency"]])
            except ValueError:
                raise InputError(
                    f"{where}: column 'Consistency' must be a number, got {cells[col['consistency']]!r}",
                    field="Consistency",
                ) from None
        if "ishallucination" in col:
            label = _parse_flag(cells[col["ishallucination"]], where, "IsHallucination")
        elif consistency is not None:
            label = int(consistency < 5.0)
        else:
            raise InputError(f"{where}: no IsHallucination column and an empty Consistency value")
        groups.setdefault(data_id, []).append((n, sent_id, cells[col["sentence"]], label, consistency))

    examples: list[Example] = []
    for data_id, rows in groups.items():
        rows.sort(key=lambda r: r[1])
        article_path = src_dir / f"{data_id}.txt"
        if not article_path.is_file():
            raise InputError(f"{tsv} line {rows[0][0]}: article file {article_path} not found (DataID {data_id})")
        raw = article_path.read_bytes()
        reference = raw.decode("latin-1").rstrip("\r\n")  # Latin-1 by design in this layout
        meta: dict[str, Any] = {"article": hashlib.sha1(raw).hexdigest()[:10]}
        if rows[0][4] is not None:
            meta["consistency"] = rows[0][4]
        if len(rows) > 1:
            meta["sentence_labels"] = [r[3] for r in rows]
        examples.append(
            Example(
                id=f"{name}-{data_id}",
                dataset=name,
                task="summarization",
                question=None,
                reference=reference,
                answer=" ".join(r[2] for r in rows),
                label=max(r[3] for r in rows),
                meta=meta,
            )
        )
    return _not_empty(examples, tsv)


# --------------------------------------------------------------------------------------------
# SummEdits
# --------------------------------------------------------------------------------------------

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
    text = _read_text(p, encoding)
    examples: list[Example] = []
    first_line: dict[str, int] = {}
    for n, record in _iter_json_array(p, text):
        where = f"{p} line {n}"
        record = _require_object(record, where)
        if "id" not in record:
            raise InputError(f"{where}: field 'id' is missing", field="id")
        doc = _require_str(record, "doc", where)
        summary = _require_str(record, "summary", where)
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
        ex_id = f"summedits-{record['id']}"
        if ex_id in first_line:
            raise InputError(f"{where}: id {record['id']!r} already used on line {first_line[ex_id]}", field="id")
        first_line[ex_id] = n
        examples.append(
            Example(
                id=ex_id,
                dataset="summedits",
                task="summarization",
                question=None,
                reference=doc,
                answer=summary,
                label=1 - int(raw_label),
                meta=meta,
            )
        )
    return _not_empty(examples, p)


# --------------------------------------------------------------------------------------------
# DelucionQA
# --------------------------------------------------------------------------------------------

_DELUCION_LABELS = {
    "hallucinated": 1,
    "1": 1,
    "yes": 1,
    "not hallucinated": 0,
    "not_hallucinated": 0,
    "nothallucinated": 0,
    "0": 0,
    "no": 0,
}
_VOCAB_HELP = (
    "DelucionQA releases the car-manual context as word ids (for licensing reasons). Rebuild the "
    "vocabulary with the context-reconstruction step of the DelucionQA repository (it writes "
    "id_to_word.json) and pass it: load_delucionqa_csv(path, vocabulary='id_to_word.json') or "
    "load_dataset(path, vocabulary=...). A vocabulary is a JSON object {id: word}, a JSON list, a "
    "text file with one word per line (line 1 = id 0), or a Python dict {id: word}."
)


def _norm_column(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def _load_vocabulary(vocabulary: Any) -> dict[int, str]:
    if isinstance(vocabulary, Mapping):
        items = vocabulary.items()
        where = "vocabulary"
    elif isinstance(vocabulary, (list, tuple)):
        items = enumerate(vocabulary)
        where = "vocabulary"
    elif isinstance(vocabulary, (str, os.PathLike)):
        vp = Path(vocabulary)
        text = _read_text(vp)
        where = str(vp)
        if vp.suffix.lower() == ".json":
            try:
                data = json.loads(text)
            except json.JSONDecodeError as e:
                raise InputError(f"{vp} line {e.lineno}: not valid JSON ({e.msg})") from None
            if isinstance(data, Mapping):
                items = data.items()
            elif isinstance(data, list):
                items = enumerate(data)
            else:
                raise InputError(f"{vp}: a JSON vocabulary must be an object {{id: word}} or a list of words")
        else:
            lines = _lines(text)
            if lines and lines[-1] == "":
                lines = lines[:-1]
            items = enumerate(lines)
    else:
        raise ConfigError(f"vocabulary must be a path, a dict or a list, got {type(vocabulary).__name__}")
    vocab: dict[int, str] = {}
    for k, w in items:
        try:
            vocab[int(k)] = str(w)
        except (TypeError, ValueError):
            raise InputError(f"{where}: vocabulary key {k!r} is not an integer id") from None
    return vocab


def _word_ids(value: str) -> list[int] | None:
    """The ids if ``value`` is a list of integers such as ``[12, 7, 3]``, else None."""
    v = value.strip()
    if not (v.startswith("[") and v.endswith("]")):
        return None
    try:
        ids = json.loads(v)
    except json.JSONDecodeError:
        return None
    if isinstance(ids, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        return ids
    return None


def _literal(value: str, where: str, column: str) -> Any:
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise InputError(
            f"{where}: column {column!r} is not a valid list/dict literal: {value[:80]!r}", field=column
        ) from None


def _parse_bool(value: str) -> Any:
    v = value.strip().lower()
    if v in ("true", "1", "yes"):
        return True
    if v in ("false", "0", "no"):
        return False
    return value


def load_delucionqa_csv(
    path: str | os.PathLike[str], vocabulary: Any = None, *, encoding: str = "utf-8"
) -> list[Example]:
    """Load a DelucionQA split (``train.csv``, ``dev.csv``, ``test.csv`` of the DelucionQA release).

    Columns (names matched case-insensitively; spaces and hyphens count as underscores):

    * required: ``Question``, ``Context``, ``Answer``;
    * ``Label``: ``Hallucinated`` -> 1, ``Not Hallucinated`` -> 0 (also 1/0, yes/no); a missing
      column or empty cell gives label ``None``;
    * optional: ``sample_id`` (or ``id``; else the row number is used), ``Retreival Setting``
      (sic), ``Answer_sent_tokenized`` (a Python list literal), ``Sentence_labels`` (a Python
      dict literal such as ``{'R1': 'Supported', 'R2': 'Neither'}``), ``Answerable``,
      ``Does_not_answer`` (TRUE/FALSE). Other columns are ignored.

    The released ``Context`` holds word ids (``[1476, 6203, ...]``) instead of text. Such contexts
    are turned into text with ``vocabulary`` (words joined by single spaces, as the official
    reconstruction script does); without a vocabulary an :class:`InputError` explains how to get
    one. Contexts that are already text are used as they are.

    Ids are ``delucionqa-<sample_id>``; ``meta`` keeps ``retrieval_setting``, ``sentences``,
    ``sentence_labels``, ``answerable`` and ``does_not_answer`` when present.
    """
    p = Path(path)
    text = _read_text(p, encoding)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise InputError(f"{p}: the file is empty") from None
    except csv.Error as e:
        raise InputError(f"{p} line 1: not valid CSV ({e})") from None
    col = {_norm_column(h): i for i, h in enumerate(header)}
    missing = [c for c in ("question", "context", "answer") if c not in col]
    if missing:
        raise InputError(f"{p} line 1: missing column(s) {', '.join(missing)}; found {', '.join(header)}")
    id_col = col.get("sample_id", col.get("id"))
    vocab = _load_vocabulary(vocabulary) if vocabulary is not None else None

    examples: list[Example] = []
    first_line: dict[str, int] = {}
    start = 2
    row_no = 0
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as e:
            raise InputError(f"{p} line {start}: not valid CSV ({e})") from None
        row_line = start
        where = f"{p} line {row_line}"
        start = reader.line_num + 1
        if not any(c.strip() for c in cells):
            continue
        row_no += 1
        if len(cells) < len(header):
            raise InputError(f"{where}: expected {len(header)} columns, found {len(cells)}")

        def cell(name: str) -> str | None:
            i = col.get(name)
            return cells[i] if i is not None else None  # noqa: B023 (called inside the loop)

        context = cell("context") or ""
        ids = _word_ids(context)
        if ids is not None:
            if vocab is None:
                raise InputError(f"{where}: column 'Context' holds word ids, not text. {_VOCAB_HELP}", field="Context")
            unknown = [i for i in ids if i not in vocab]
            if unknown:
                raise InputError(
                    f"{where}: word id {unknown[0]} of column 'Context' is not in the vocabulary "
                    f"({len(vocab)} words); is it the vocabulary of this DelucionQA release?",
                    field="Context",
                )
            context = " ".join(vocab[i] for i in ids)

        label: int | None = None
        raw_label = cell("label")
        if raw_label is not None and raw_label.strip():
            key = " ".join(raw_label.strip().lower().split())
            if key not in _DELUCION_LABELS:
                raise InputError(
                    f"{where}: column 'Label' must be 'Hallucinated' or 'Not Hallucinated', got {raw_label!r}",
                    field="Label",
                )
            label = _DELUCION_LABELS[key]

        meta: dict[str, Any] = {}
        setting = cell("retreival_setting")  # sic, as in the release
        if setting is None:
            setting = cell("retrieval_setting")
        if setting is not None:
            meta["retrieval_setting"] = setting
        sents = cell("answer_sent_tokenized")
        if sents is not None and sents.strip():
            meta["sentences"] = _literal(sents, where, "Answer_sent_tokenized")
        sent_labels = cell("sentence_labels")
        if sent_labels is not None and sent_labels.strip():
            meta["sentence_labels"] = _literal(sent_labels, where, "Sentence_labels")
        for name in ("answerable", "does_not_answer"):
            value = cell(name)
            if value is not None and value.strip():
                meta[name] = _parse_bool(value)

        sample_id = cells[id_col].strip() if id_col is not None else ""
        ex_id = f"delucionqa-{sample_id or row_no - 1}"
        if ex_id in first_line:
            raise InputError(
                f"{where}: sample id {sample_id!r} already used on line {first_line[ex_id]}", field="sample_id"
            )
        first_line[ex_id] = row_line
        question = cell("question")
        examples.append(
            Example(
                id=ex_id,
                dataset="delucionqa",
                task="qa",
                question=question if question and question.strip() else None,
                reference=context,
                answer=cell("answer") or "",
                label=label,
                meta=meta,
            )
        )
    return _not_empty(examples, p)


# --------------------------------------------------------------------------------------------
# RAGTruth
# --------------------------------------------------------------------------------------------

_RAGTRUTH_TASKS = {"qa": "qa", "summary": "summarization", "data2txt": "data2text"}


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


def _ragtruth_spans(labels: Any, response: str, where: str) -> tuple[list[list[int]], list[Any], list[Any]]:
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

    sources: dict[str, tuple[int, Mapping[str, Any]]] = {}
    for n, record in _iter_json_lines(src_path, _read_text(src_path, encoding)):
        where = f"{src_path} line {n}"
        record = _require_object(record, where)
        for key in ("source_id", "task_type", "source_info"):
            if key not in record:
                raise InputError(f"{where}: field {key!r} is missing", field=key)
        sources[str(record["source_id"])] = (n, record)

    examples: list[Example] = []
    first_line: dict[str, int] = {}
    for n, record in _iter_json_lines(resp_path, _read_text(resp_path, encoding)):
        where = f"{resp_path} line {n}"
        record = _require_object(record, where)
        for key in ("id", "source_id", "labels"):
            if key not in record:
                raise InputError(f"{where}: field {key!r} is missing", field=key)
        response = _require_str(record, "response", where)
        if split is not None and record.get("split") != split:
            continue
        source_id = str(record["source_id"])
        if source_id not in sources:
            raise InputError(f"{where}: source_id {source_id!r} is not in {src_path.name}", field="source_id")
        src_line, src = sources[source_id]
        task_type = str(src["task_type"])
        task = _RAGTRUTH_TASKS.get(task_type.lower())
        if task is None:
            raise InputError(
                f"{src_path} line {src_line}: unknown task_type {task_type!r}; expected QA, Summary or Data2txt",
                field="task_type",
            )
        reference, question = _ragtruth_reference(task_type, src["source_info"], f"{src_path} line {src_line}")
        spans, types, implicit = _ragtruth_spans(record["labels"], response, where)
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
        ex_id = f"ragtruth-{record['id']}"
        if ex_id in first_line:
            raise InputError(f"{where}: id {record['id']!r} already used on line {first_line[ex_id]}", field="id")
        first_line[ex_id] = n
        examples.append(
            Example(
                id=ex_id,
                dataset="ragtruth",
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
    return _not_empty(examples, resp_path)


# --------------------------------------------------------------------------------------------
# Hugging Face hub (optional `datasets` package)
# --------------------------------------------------------------------------------------------


def _hf_module() -> Any:
    try:
        return importlib.import_module("datasets")
    except ImportError:
        raise MissingDependencyError("Hugging Face datasets", "pip install 'hallucheck[hf]'") from None


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
        task = _RAGTRUTH_TASKS.get(task_type.lower(), task_type.lower() or "rag")
        labels = _parse_structured(row.get("hallucination_labels"))
        spans: list[list[int]] | None = None
        types: list[Any] = []
        if isinstance(labels, list):
            spans, types, _implicit = _ragtruth_spans(labels, output, w)
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
_HF_ALIASES = {
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
    (an optional dependency: ``pip install 'hallucheck[hf]'``).

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
    key = _HF_ALIASES.get(name.lower(), name.lower())
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
    _check_unique(examples, where)
    return _not_empty(examples, where)


# --------------------------------------------------------------------------------------------
# dispatch
# --------------------------------------------------------------------------------------------


def _data_dirs() -> list[Path]:
    dirs = []
    env = os.environ.get("HALLUCHECK_DATA_DIR")
    if env:
        dirs.extend(Path(p) for p in env.split(os.pathsep) if p)
    dirs.append((Path.cwd() / ".." / "shared" / "data" / "dev").resolve())
    return dirs


def _peek_json_keys(path: Path) -> tuple[str, set[str]]:
    """('lines' | 'list', keys of the first record) without reading a huge file twice."""
    with open(path, "rb") as fh:
        head = fh.read(1 << 20)
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if text.startswith("["):
        start = len(text) - len(text[1:].lstrip(" \t\r\n"))
        try:
            record, _ = json.JSONDecoder().raw_decode(text, start)
        except json.JSONDecodeError:  # first record longer than the peeked head
            return "list", set(re.findall(r'"([A-Za-z_]+)"\s*:', text))
        return "list", set(record) if isinstance(record, dict) else set()
    first = text.split("\n", 1)[0]
    try:
        record = json.loads(first)
    except json.JSONDecodeError:
        return "lines", set()
    return "lines", set(record) if isinstance(record, dict) else set()


def _load_file(path: Path, options: dict[str, Any]) -> list[Example]:
    name = path.name.lower()
    if name.endswith(_TSV_SUFFIX):
        return load_summeval_tsv(path, **options)
    if name.endswith(".csv"):
        return load_delucionqa_csv(path, **options)
    if name.endswith((".json", ".jsonl")):
        kind, keys = _peek_json_keys(path)
        if kind == "list" and {"doc", "summary"} <= keys:
            return load_summedits(path, **options)
        if {"right_answer", "hallucinated_answer"} <= keys:
            return load_halueval(path, "qa", **options)
        if {"right_summary", "hallucinated_summary"} <= keys:
            return load_halueval(path, "summarization", **options)
        if {"right_response", "hallucinated_response"} <= keys:
            return load_halueval(path, "dialogue", **options)
        if {"id", "reference", "answer"} <= keys or (kind == "lines" and name.endswith(".jsonl")):
            return load_jsonl(path, **options)
    raise InputError(f"{path}: cannot tell which dataset format this file is. {_ACCEPTED}")


def _load_dir(path: Path, split: str | None, options: dict[str, Any]) -> tuple[list[Example], bool]:
    """(examples, split already applied)."""
    if (path / "response.jsonl").is_file() and (path / "source_info.jsonl").is_file():
        return load_ragtruth(path, split, **options), True
    if list(path.glob(f"*{_TSV_SUFFIX}")):
        return load_summeval_tsv(path, **options), False
    splits = [s for s in ("train", "dev", "test") if (path / f"{s}.csv").is_file()]
    if splits:
        if split is not None:
            if split not in splits:
                raise ConfigError(f"{path}: no {split}.csv; available splits: {', '.join(splits)}")
            return load_delucionqa_csv(path / f"{split}.csv", **options), True
        out: list[Example] = []
        for s in splits:
            out.extend(load_delucionqa_csv(path / f"{s}.csv", **options))
        return out, False
    raise InputError(f"{path}: directory holds no known dataset layout. {_ACCEPTED}")


_ACCEPTED = (
    "load_dataset accepts: a .jsonl file in the shared schema; an original HaluEval .json/.jsonl file; a "
    "SummEdits .json list; a DelucionQA .csv, or a directory with train/dev/test.csv; a "
    "*_raw_response.tsv (SummEval/QAGS) or its directory; a RAGTruth directory (response.jsonl + "
    "source_info.jsonl); a name such as 'halueval_qa' for <name>.jsonl in $HALLUCHECK_DATA_DIR or "
    "../shared/data/dev; 'hf:<name>' or one of "
    + ", ".join(repr(k) for k in HF_DATASETS)
    + " for the Hugging Face versions."
)


def load_dataset(
    spec: str | os.PathLike[str], split: str | None = None, limit: int | None = None, offset: int = 0, **options: Any
) -> list[Example]:
    """Load a dataset from a path or a name, choosing the loader automatically.

    * a file: ``*_raw_response.tsv`` -> :func:`load_summeval_tsv`; ``.csv`` ->
      :func:`load_delucionqa_csv`; ``response.jsonl`` next to ``source_info.jsonl`` ->
      :func:`load_ragtruth`; a ``.json``/``.jsonl`` whose first record has HaluEval fields ->
      :func:`load_halueval` (task inferred); a JSON list of ``doc``/``summary`` records ->
      :func:`load_summedits`; other ``.jsonl`` -> :func:`load_jsonl` (shared schema);
    * a directory: a RAGTruth directory, a SummEval/QAGS directory, or a DelucionQA directory with
      ``train.csv`` / ``dev.csv`` / ``test.csv`` (``split`` picks one; all by default);
    * a bare name such as ``"halueval_qa"``: ``<name>.jsonl`` in ``$HALLUCHECK_DATA_DIR``
      (several directories may be joined with ``os.pathsep``), then in ``../shared/data/dev``
      relative to the working directory;
    * ``"hf:<name>"``, or a bare ``halubench`` / ``ragtruth`` / ``bioasq`` with no local file:
      :func:`load_hf`.

    ``split`` selects a split where the source has them (RAGTruth, DelucionQA directories, the
    Hugging Face datasets, or examples carrying ``meta["split"]`` such as SummEdits); asking for
    a split of a source without splits raises :class:`ConfigError`. ``offset`` skips the first
    ``offset`` examples (of the split) and ``limit`` keeps the next ``limit``: e.g. report on the
    first 40 rows of a dev set and tune thresholds on ``offset=40``. Other keyword arguments go
    to the chosen loader (``encoding=``, ``vocabulary=``, ``domain=``...).
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ConfigError(f"limit must be a positive integer, got {limit!r}")
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise ConfigError(f"offset must be a non-negative integer, got {offset!r}")
    if offset:
        rows = load_dataset(spec, split=split, limit=None if limit is None else offset + limit, **options)
        if offset >= len(rows):
            raise ConfigError(f"{os.fspath(spec)!s}: offset {offset} skips all {len(rows)} examples")
        return rows[offset:]
    text = os.fspath(spec)
    if isinstance(text, bytes):
        text = text.decode()
    split_done = False
    if text.lower().startswith("hf:"):
        return load_hf(text[3:], split, limit=limit, **options)
    path = Path(text).expanduser()
    if path.is_dir():
        examples, split_done = _load_dir(path, split, options)
    elif path.is_file():
        if path.name.lower() == "response.jsonl" and (path.parent / "source_info.jsonl").is_file():
            examples, split_done = load_ragtruth(path.parent, split, **options), True
        else:
            examples = _load_file(path, options)
    elif re.fullmatch(r"[A-Za-z0-9_.\-]+", text) and not text.lower().endswith((".jsonl", ".json", ".csv", ".tsv")):
        found = next((d / f"{text}.jsonl" for d in _data_dirs() if (d / f"{text}.jsonl").is_file()), None)
        if found is not None:
            examples = load_jsonl(found, **options)
        elif _HF_ALIASES.get(text.lower(), text.lower()) in HF_DATASETS:
            return load_hf(text, split, limit=limit, **options)
        else:
            searched = ", ".join(str(d) for d in _data_dirs())
            raise InputError(f"unknown dataset {text!r}: no {text}.jsonl in {searched}. {_ACCEPTED}")
    else:
        raise InputError(f"{text}: no such file or directory. {_ACCEPTED}")

    if split is not None and not split_done:
        available = sorted({str(ex.meta["split"]) for ex in examples if "split" in ex.meta})
        if not available:
            raise ConfigError(f"{text}: this dataset has no splits; call load_dataset without split=")
        examples = [ex for ex in examples if str(ex.meta.get("split")) == split]
        if not examples:
            raise ConfigError(f"{text}: no examples in split {split!r}; available: {', '.join(available)}")
    if limit is not None:
        examples = examples[:limit]
    return examples
