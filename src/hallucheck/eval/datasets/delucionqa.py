"""DelucionQA: CSV files (``train/dev/test.csv``), contexts possibly as word-id lists."""

from __future__ import annotations

import ast
import csv
import io
import json
import os
import re
from pathlib import Path
from typing import Any, Iterator, Mapping

from ...errors import ConfigError, InputError
from ._files import not_empty, read_text, split_lines
from .example import Example, FirstLines

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
        text = read_text(vp)
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
            lines = split_lines(text)
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
    reader = csv.reader(io.StringIO(read_text(p, encoding), newline=""))
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
    first_line = FirstLines()
    for row_no, (row_line, cells) in enumerate(_rows(reader, p, len(header)), 1):
        where = f"{p} line {row_line}"
        row = {name: cells[i] for name, i in col.items()}
        context = _context_text(row.get("context") or "", vocab, where)
        label = _label(row.get("label"), where)
        meta = _meta(row, where)
        sample_id = cells[id_col].strip() if id_col is not None else ""
        ex_id = f"delucionqa-{sample_id or row_no - 1}"
        first_line.add(ex_id, row_line, f"{where}: sample id {sample_id!r}", field="sample_id")
        question = row.get("question")
        examples.append(
            Example(
                id=ex_id,
                dataset="delucionqa",
                task="qa",
                question=question if question and question.strip() else None,
                reference=context,
                answer=row.get("answer") or "",
                label=label,
                meta=meta,
            )
        )
    return not_empty(examples, p)


def _rows(reader: Any, p: Path, width: int) -> Iterator[tuple[int, list[str]]]:
    """The rows after the header that are not blank, each with the line it starts on."""
    start = 2
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            raise InputError(f"{p} line {start}: not valid CSV ({e})") from None
        row_line, start = start, reader.line_num + 1
        if not any(c.strip() for c in cells):
            continue
        if len(cells) < width:
            raise InputError(f"{p} line {row_line}: expected {width} columns, found {len(cells)}")
        yield row_line, cells


def _context_text(context: str, vocab: Mapping[int, str] | None, where: str) -> str:
    """The context as text: word ids looked up in ``vocab``, text as it is."""
    ids = _word_ids(context)
    if ids is None:
        return context
    if vocab is None:
        raise InputError(f"{where}: column 'Context' holds word ids, not text. {_VOCAB_HELP}", field="Context")
    unknown = [i for i in ids if i not in vocab]
    if unknown:
        raise InputError(
            f"{where}: word id {unknown[0]} of column 'Context' is not in the vocabulary "
            f"({len(vocab)} words); is it the vocabulary of this DelucionQA release?",
            field="Context",
        )
    return " ".join(vocab[i] for i in ids)


def _label(raw_label: str | None, where: str) -> int | None:
    if raw_label is None or not raw_label.strip():
        return None
    key = " ".join(raw_label.strip().lower().split())
    if key not in _DELUCION_LABELS:
        raise InputError(
            f"{where}: column 'Label' must be 'Hallucinated' or 'Not Hallucinated', got {raw_label!r}",
            field="Label",
        )
    return _DELUCION_LABELS[key]


def _meta(row: Mapping[str, str], where: str) -> dict[str, Any]:
    """The optional columns a row has: retrieval setting, answer sentences and their labels, answerability."""
    meta: dict[str, Any] = {}
    setting = row.get("retreival_setting")  # sic, as in the release
    if setting is None:
        setting = row.get("retrieval_setting")
    if setting is not None:
        meta["retrieval_setting"] = setting
    sents = row.get("answer_sent_tokenized")
    if sents is not None and sents.strip():
        meta["sentences"] = _literal(sents, where, "Answer_sent_tokenized")
    sent_labels = row.get("sentence_labels")
    if sent_labels is not None and sent_labels.strip():
        meta["sentence_labels"] = _literal(sent_labels, where, "Sentence_labels")
    for name in ("answerable", "does_not_answer"):
        value = row.get(name)
        if value is not None and value.strip():
            meta[name] = _parse_bool(value)
    return meta
