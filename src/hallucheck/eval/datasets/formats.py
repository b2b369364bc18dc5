"""The format table and :func:`load_dataset`, which picks a loader from a path or a name.

Each :class:`Format` names a dataset layout, says how to recognise a file or a directory of it,
and how to load it. :func:`load_dataset` tries :data:`FILE_FORMATS` (for a file) or
:data:`DIR_FORMATS` (for a directory) in order and uses the first that matches; a new layout
is a loader module beside the others plus one row here.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Callable

from ...errors import ConfigError, InputError
from .delucionqa import load_delucionqa_csv
from .example import Example
from .halueval import load_halueval
from .hf import HF_ALIASES, HF_DATASETS, load_hf
from .jsonl import load_jsonl
from .ragtruth import load_ragtruth
from .summedits import load_summedits
from .summeval import TSV_SUFFIX, load_summeval_tsv


def data_dirs() -> list[Path]:
    """The directories a bare dataset name is looked up in: ``$HALLUCHECK_DATA_DIR`` (joined with
    ``os.pathsep``), nothing else -- the library assumes no data next to it; benchmarks and tests
    pass their data directory in."""
    env = os.environ.get("HALLUCHECK_DATA_DIR", "")
    return [Path(p).expanduser() for p in env.split(os.pathsep) if p]


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


class FileHints:
    """What detection looks at in a file: its lower-case name and, for JSON files only (read on
    first use, once), whether it is JSON lines or a list and the keys of its first record."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = path.name.lower()
        self.is_json = self.name.endswith((".json", ".jsonl"))

    @cached_property
    def _peek(self) -> tuple[str, set[str]]:
        return _peek_json_keys(self.path) if self.is_json else ("", set())

    @property
    def kind(self) -> str:
        return self._peek[0]

    @property
    def keys(self) -> set[str]:
        return self._peek[1]


# A loader takes (path, split, loader options) and returns (examples, whether it applied the split).
Loader = Callable[[Path, "str | None", "dict[str, Any]"], "tuple[list[Example], bool]"]


@dataclass(frozen=True)
class Format:
    """One dataset layout: ``matches`` recognises it (a :class:`FileHints` for files, a directory
    path for directories) and ``load`` loads it."""

    name: str
    matches: Callable[[Any], bool]
    load: Loader


def _no_split(loader: Callable[..., list[Example]], *args: Any) -> Loader:
    """A loader for a layout without splits of its own (``split`` is applied afterwards from
    ``meta["split"]``)."""
    return lambda path, split, options: (loader(path, *args, **options), False)


def _halueval_keys(right: str, hallucinated: str) -> Callable[[FileHints], bool]:
    return lambda f: f.is_json and {right, hallucinated} <= f.keys


def _is_ragtruth_dir(path: Path) -> bool:
    return (path / "response.jsonl").is_file() and (path / "source_info.jsonl").is_file()


def _delucionqa_splits(path: Path) -> list[str]:
    return [s for s in ("train", "dev", "test") if (path / f"{s}.csv").is_file()]


def _load_delucionqa_dir(path: Path, split: str | None, options: dict[str, Any]) -> tuple[list[Example], bool]:
    splits = _delucionqa_splits(path)
    if split is not None:
        if split not in splits:
            raise ConfigError(f"{path}: no {split}.csv; available splits: {', '.join(splits)}")
        return load_delucionqa_csv(path / f"{split}.csv", **options), True
    out: list[Example] = []
    for s in splits:
        out.extend(load_delucionqa_csv(path / f"{s}.csv", **options))
    return out, False


FILE_FORMATS: tuple[Format, ...] = (
    Format(
        "ragtruth",
        lambda f: f.name == "response.jsonl" and (f.path.parent / "source_info.jsonl").is_file(),
        lambda path, split, options: (load_ragtruth(path.parent, split, **options), True),
    ),
    Format("summeval_tsv", lambda f: f.name.endswith(TSV_SUFFIX), _no_split(load_summeval_tsv)),
    Format("delucionqa_csv", lambda f: f.name.endswith(".csv"), _no_split(load_delucionqa_csv)),
    Format(
        "summedits",
        lambda f: f.is_json and f.kind == "list" and {"doc", "summary"} <= f.keys,
        _no_split(load_summedits),
    ),
    Format("halueval_qa", _halueval_keys("right_answer", "hallucinated_answer"), _no_split(load_halueval, "qa")),
    Format(
        "halueval_summarization",
        _halueval_keys("right_summary", "hallucinated_summary"),
        _no_split(load_halueval, "summarization"),
    ),
    Format(
        "halueval_dialogue",
        _halueval_keys("right_response", "hallucinated_response"),
        _no_split(load_halueval, "dialogue"),
    ),
    Format(
        "jsonl",
        lambda f: (
            f.is_json and ({"id", "reference", "answer"} <= f.keys or (f.kind == "lines" and f.name.endswith(".jsonl")))
        ),
        _no_split(load_jsonl),
    ),
)
"""File layouts, tried in order (the first match loads the file)."""

DIR_FORMATS: tuple[Format, ...] = (
    Format("ragtruth", _is_ragtruth_dir, lambda path, split, options: (load_ragtruth(path, split, **options), True)),
    Format("summeval_tsv", lambda path: bool(list(path.glob(f"*{TSV_SUFFIX}"))), _no_split(load_summeval_tsv)),
    Format("delucionqa_csv", lambda path: bool(_delucionqa_splits(path)), _load_delucionqa_dir),
)
"""Directory layouts, tried in order."""


def detect_format(path: str | os.PathLike[str]) -> Format:
    """The format of a dataset file or directory, or :class:`InputError` naming what is accepted."""
    p = Path(path)
    if p.is_dir():
        found = next((f for f in DIR_FORMATS if f.matches(p)), None)
        if found is None:
            raise InputError(f"{p}: directory holds no known dataset layout. {_ACCEPTED}")
        return found
    hints = FileHints(p)
    found = next((f for f in FILE_FORMATS if f.matches(hints)), None)
    if found is None:
        raise InputError(f"{p}: cannot tell which dataset format this file is. {_ACCEPTED}")
    return found


_ACCEPTED = (
    "load_dataset accepts: a .jsonl file in the shared schema; an original HaluEval .json/.jsonl file; a "
    "SummEdits .json list; a DelucionQA .csv, or a directory with train/dev/test.csv; a "
    "*_raw_response.tsv (SummEval/QAGS) or its directory; a RAGTruth directory (response.jsonl + "
    "source_info.jsonl); a name such as 'halueval_qa' for <name>.jsonl in $HALLUCHECK_DATA_DIR "
    "(HALLUCHECK_DATA_DIR=DIR; several joined with the path separator); 'hf:<name>' or one of "
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
      (several directories may be joined with ``os.pathsep``);
    * ``"hf:<name>"``, or a bare ``halubench`` / ``ragtruth`` / ``bioasq`` with no local file:
      :func:`load_hf`.

    The file and directory rules are the rows of :data:`FILE_FORMATS` and :data:`DIR_FORMATS`
    (see :func:`detect_format`).

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
    if path.is_dir() or path.is_file():
        examples, split_done = detect_format(path).load(path, split, options)
    elif re.fullmatch(r"[A-Za-z0-9_.\-]+", text) and not text.lower().endswith((".jsonl", ".json", ".csv", ".tsv")):
        found = next((d / f"{text}.jsonl" for d in data_dirs() if (d / f"{text}.jsonl").is_file()), None)
        if found is not None:
            examples = load_jsonl(found, **options)
        elif HF_ALIASES.get(text.lower(), text.lower()) in HF_DATASETS:
            return load_hf(text, split, limit=limit, **options)
        else:
            dirs = data_dirs()
            where = (
                f"no {text}.jsonl in {', '.join(str(d) for d in dirs)}"
                if dirs
                else "it is not a file, and HALLUCHECK_DATA_DIR (where bare names are looked up) is not set"
            )
            raise InputError(f"unknown dataset {text!r}: {where}. {_ACCEPTED}")
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
