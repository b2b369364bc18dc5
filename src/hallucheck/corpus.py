"""A user corpus for retrieval-augmented generation: files chunked into passages, BM25 search.

``Corpus.load(path)`` reads a folder (recursively) of ``.txt`` / ``.md`` files and ``.jsonl``
files (one object per line with a ``text`` field and optional ``id`` and ``title``), or one
such file. Each document is cut into passages of about ``passage_words`` words (DRAD, Su et
al. 2024, §4.4: Wikipedia "segmented into 100-token passages"): whole sentences are packed
until the next one would overflow, a longer sentence is cut at word boundaries, and a
passage never crosses a blank line unless the paragraph before is tiny (a heading).

The BM25 index (:class:`hallucheck.text.bm25.BM25Index`, the one BM25 of hallucheck) is saved as
JSON, by default under ``<cache dir>/corpora/`` named by a fingerprint of the files' bytes
and the chunking settings, and reused while the corpus is unchanged; any change to a file
builds a new index.

Files that are not valid UTF-8 raise :class:`InputError` naming the file, unless
``on_bad_file="skip"``, which skips them with a :class:`UserWarning` (and records them in
``Corpus.skipped``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from .errors import ConfigError, InputError
from .text.bm25 import BM25Index
from .text.segment import split_sentences, words
from .types import Serialisable

INDEX_FORMAT = 1
TEXT_SUFFIXES = (".txt", ".md")
JSONL_SUFFIXES = (".jsonl",)
_PARA = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True)
class Passage(Serialisable):
    """A chunk of one corpus document. ``start``/``end`` are offsets into that document's
    text (the file's text, or the ``text`` field of a JSONL record); ``score`` is set on
    search results (BM25, higher = more relevant)."""

    id: str
    text: str
    source: str
    start: int
    end: int
    title: str = ""
    score: float | None = None


# -- chunking ---------------------------------------------------------------------------------
def chunk_text(text: str, *, passage_words: int = 100, min_paragraph_words: int = 8) -> list[tuple[int, int]]:
    """Half-open spans of ``text``, each about ``passage_words`` words or fewer (see module doc)."""
    if passage_words < 1:
        raise ConfigError(f"passage_words must be a positive integer; got {passage_words!r}.")
    units: list[tuple[int, int, int, bool]] = []  # (start, end, n_words, starts_paragraph)
    prev_end = 0
    for s in split_sentences(text):
        ws = words(s.text)
        new_para = prev_end == 0 or bool(_PARA.search(text[prev_end : s.start]))
        prev_end = s.end
        if len(ws) <= passage_words:
            units.append((s.start, s.end, len(ws), new_para))
            continue
        for i in range(0, len(ws), passage_words):  # an over-long sentence: cut at word boundaries
            part = ws[i : i + passage_words]
            a = s.start + part[0].start
            b = s.start + (ws[i + passage_words].start if i + passage_words < len(ws) else len(s.text))
            b = a + len(text[a:b].rstrip())
            units.append((a, b, len(part), new_para and i == 0))
    spans: list[tuple[int, int]] = []
    cur: list[int] = []  # [start, end, words]
    for start, end, n, new_para in units:
        if cur and (cur[2] + n > passage_words or (new_para and cur[2] >= min_paragraph_words)):
            spans.append((cur[0], cur[1]))
            cur = []
        if cur:
            cur[1], cur[2] = end, cur[2] + n
        else:
            cur = [start, end, n]
    if cur:
        spans.append((cur[0], cur[1]))
    return spans


# -- reading files ----------------------------------------------------------------------------
def _corpus_files(root: Path) -> list[Path]:
    if root.is_file():
        if root.suffix.lower() not in TEXT_SUFFIXES + JSONL_SUFFIXES:
            raise InputError(
                f"The corpus file {str(root)!r} is not .txt, .md or .jsonl. Give such a file or a folder of them.",
                field="corpus",
            )
        return [root]
    files = [
        p
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and p.suffix.lower() in TEXT_SUFFIXES + JSONL_SUFFIXES
        and not any(part.startswith(".") for part in p.relative_to(root).parts)
    ]
    if not files:
        raise InputError(
            f"The corpus folder {str(root)!r} holds no .txt, .md or .jsonl files. Put the documents to retrieve "
            "from there (one document per .txt/.md file, or JSONL lines with a 'text' field).",
            field="corpus",
        )
    return files


def _decode(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"The corpus file {str(path)!r} is not valid UTF-8 (byte {data[exc.start : exc.start + 1]!r} at offset "
            f"{exc.start}). Convert it (e.g. iconv -f latin1 -t utf-8), remove it, or skip such files with "
            "on_bad_file='skip' (CLI: --skip-bad-files).",
            field="corpus",
        ) from None


def _documents(path: Path, rel: str, text: str) -> Iterator[tuple[str, str, str]]:
    """(source, title, text) of each document in one decoded file."""
    if path.suffix.lower() not in JSONL_SUFFIXES:
        yield rel, "", text
        return
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError as exc:
            raise InputError(
                f"{rel} line {lineno} is not valid JSON ({exc.msg}). Each line must be an object with a 'text' field.",
                field="corpus",
            ) from None
        if not isinstance(rec, dict) or not isinstance(rec.get("text"), str):
            raise InputError(
                f"{rel} line {lineno} has no string 'text' field. Each line must be an object like "
                '{"id": "doc1", "title": "...", "text": "..."}.',
                field="corpus",
            )
        doc_id = str(rec.get("id", lineno))
        yield f"{rel}#{doc_id}", str(rec.get("title") or ""), rec["text"]


def default_index_dir() -> Path:
    from .llm.cache import default_cache_dir

    return default_cache_dir() / "corpora"


# -- the corpus -------------------------------------------------------------------------------
class Corpus:
    """Passages of a user corpus with a persisted BM25 index. Build with :meth:`load`."""

    def __init__(
        self,
        passages: Sequence[Passage],
        index: BM25Index,
        *,
        root: str = "",
        fingerprint: str = "",
        index_path: str | None = None,
        reused: bool = False,
        skipped: Sequence[str] = (),
    ) -> None:
        self.passages = list(passages)
        self.index = index
        self.root = root
        self.fingerprint = fingerprint
        self.index_path = index_path
        self.reused = reused
        self.skipped = list(skipped)

    def __len__(self) -> int:
        return len(self.passages)

    @classmethod
    def from_texts(cls, texts: Sequence[str], *, passage_words: int = 100) -> "Corpus":
        """An in-memory corpus (nothing saved): each text is one document named ``doc<i>``."""
        passages = []
        for i, text in enumerate(texts):
            for j, (a, b) in enumerate(chunk_text(text, passage_words=passage_words)):
                passages.append(Passage(f"doc{i}#{j}", text[a:b], f"doc{i}", a, b))
        if not passages:
            raise InputError("The corpus is empty: give at least one non-empty text.", field="corpus")
        return cls(passages, BM25Index.build([p.text for p in passages]))

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        *,
        passage_words: int = 100,
        index_path: str | os.PathLike[str] | None = None,
        save_index: bool = True,
        on_bad_file: str = "raise",
    ) -> "Corpus":
        """Read, chunk and index ``path`` (a folder or one file), reusing a saved index when the
        files and settings are unchanged. ``index_path``: where to keep the index (default:
        ``<cache dir>/corpora/<fingerprint>.json``); ``save_index=False`` keeps it in memory."""
        if on_bad_file not in ("raise", "skip"):
            raise ConfigError(f"on_bad_file must be 'raise' or 'skip'; got {on_bad_file!r}.")
        if isinstance(passage_words, bool) or not isinstance(passage_words, int) or passage_words < 1:
            raise ConfigError(f"passage_words must be a positive integer; got {passage_words!r}.")
        root = Path(path).expanduser()
        if not root.exists():
            raise InputError(
                f"The corpus path {str(root)!r} does not exist. Give a folder of .txt/.md/.jsonl files "
                "(e.g. examples/drad/corpus).",
                field="corpus",
            )
        decoded, skipped, fingerprint = _read_files(root, passage_words, on_bad_file)
        target = Path(index_path) if index_path is not None else default_index_dir() / f"{fingerprint[:24]}.json"
        if save_index and target.is_file():
            saved = _saved_index(target, fingerprint)
            if saved is not None:
                return cls(
                    *saved,
                    root=str(root),
                    fingerprint=fingerprint,
                    index_path=str(target),
                    reused=True,
                    skipped=skipped,
                )
        passages: list[Passage] = []
        for f, rel, text in decoded:
            for source, title, doc in _documents(f, rel, text):
                for j, (a, b) in enumerate(chunk_text(doc, passage_words=passage_words)):
                    passages.append(Passage(f"{source}:{j}", doc[a:b], source, a, b, title))
        if not passages:
            raise InputError(
                f"The corpus at {str(root)!r} has no text"
                + (f" (skipped: {', '.join(skipped)})" if skipped else "")
                + ". Add documents with some text.",
                field="corpus",
            )
        index = BM25Index.build([f"{p.title}\n{p.text}" if p.title else p.text for p in passages])
        corpus = cls(
            passages,
            index,
            root=str(root),
            fingerprint=fingerprint,
            index_path=str(target) if save_index else None,
            skipped=skipped,
        )
        if save_index:
            _save_index(target, fingerprint, root, passage_words, passages, index)
        return corpus

    def search(self, query: str, k: int = 3) -> list[Passage]:
        """The top-``k`` passages by BM25 (ties keep corpus order); passages sharing no term
        with the query are never returned, so the list may be shorter than ``k``."""
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ConfigError(f"k must be a positive integer; got {k!r}.")
        scores = self.index.scores(query)
        order = sorted((i for i in range(len(scores)) if scores[i] > 0), key=lambda i: (-scores[i], i))[:k]
        out = []
        for i in order:
            p = self.passages[i]
            out.append(Passage(p.id, p.text, p.source, p.start, p.end, p.title, float(scores[i])))
        return out

    def describe(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "passages": len(self.passages),
            "fingerprint": self.fingerprint,
            "index_path": self.index_path,
            "skipped": list(self.skipped),
        }


def _read_files(root: Path, passage_words: int, on_bad_file: str) -> tuple[list[tuple[Path, str, str]], list[str], str]:
    """The corpus files decoded (path, name relative to the corpus, text), the names of those
    skipped as unreadable, and the fingerprint of the files read and the settings."""
    base = root if root.is_dir() else root.parent
    decoded: list[tuple[Path, str, str]] = []
    skipped: list[str] = []
    digest = hashlib.sha256(json.dumps({"format": INDEX_FORMAT, "passage_words": passage_words}).encode())
    for f in _corpus_files(root):
        data = f.read_bytes()
        rel = f.relative_to(base).as_posix()
        try:
            text = _decode(f, data)
        except InputError as exc:
            if on_bad_file == "raise":
                raise
            warnings.warn(f"Skipping corpus file {rel}: {exc}", UserWarning, stacklevel=3)  # at load's caller
            skipped.append(rel)
            continue
        digest.update(rel.encode("utf-8") + b"\0" + hashlib.sha256(data).digest())
        decoded.append((f, rel, text))
    return decoded, skipped, digest.hexdigest()


def _saved_index(target: Path, fingerprint: str) -> tuple[list[Passage], BM25Index] | None:
    """The passages and index saved at ``target`` for these files and settings, or None (unreadable or stale)."""
    try:
        saved = json.loads(target.read_text(encoding="utf-8"))
        if saved.get("fingerprint") == fingerprint and saved.get("format") == INDEX_FORMAT:
            return [Passage.from_dict(p) for p in saved["passages"]], BM25Index.from_dict(saved["index"])
    except (ValueError, KeyError, TypeError):
        pass
    return None


def _save_index(
    target: Path, fingerprint: str, root: Path, passage_words: int, passages: list[Passage], index: BM25Index
) -> None:
    """Write the index atomically (another process may be reading or writing the same file)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(
        json.dumps(
            {
                "format": INDEX_FORMAT,
                "fingerprint": fingerprint,
                "root": str(root),
                "passage_words": passage_words,
                "passages": [p.to_dict() for p in passages],
                "index": index.to_dict(),
            },
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    os.replace(tmp, target)


__all__ = ["BM25Index", "Corpus", "Passage", "chunk_text"]
