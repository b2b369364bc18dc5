"""The reference as the stages read it, parsed once and shared: :class:`PreparedReference`.

Every stage that reads a reference takes what it needs of it from :func:`prepare`: its sentences, the
gate's parsed figures and names (:class:`~hallucheck.stages.gate.figures.ReferenceFacts`), the words
the verifier's premises are chosen by (:class:`~hallucheck.text.premise.PremiseIndex`), the overlap
signal's index, the copy rule's index, the retrievers' sentence vectors. Each part is built on first
use, once, under the reference's own lock (checks of one reference run on several threads at once).

:data:`REFERENCES` keeps the references last prepared, keyed by the SHA-256 of the text and its
language, so the second sentence of an answer, and the next request with the same reference, reuse
what the first one parsed. It is bounded by the number of references and by their characters in all
(parsed, a reference takes some 100-150 bytes of memory a character); the least recently used go first,
and a reference longer than the whole bound is not kept (each stage that reads it parses it again).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, Hashable, TypeVar

if TYPE_CHECKING:
    import numpy as np

    from ..text.premise import PremiseIndex
    from ..text.segment import Span
    from .copy_rule import CopyIndex
    from .gate.figures import ReferenceFacts
    from .similarity import OverlapIndex

T = TypeVar("T")

MAX_REFERENCES = 32  # references kept at most
# characters of reference text kept in all: parsed, a reference takes about 100-150 bytes a character
# (most for text dense with figures), so this bound is some 200-300 MB at most
MAX_CHARS = 2_000_000


class PreparedReference:
    """One reference text and what the stages parsed of it, each part built once (thread-safe)."""

    def __init__(self, text: str, lang: str) -> None:
        self.text = text
        self.lang = lang  # the reference's detected language (hallucheck.text.lang)
        self._parts: dict[Hashable, Any] = {}
        self._lock = threading.RLock()

    def part(self, key: Hashable, build: Callable[[], T]) -> T:
        """The part named ``key``, built by ``build()`` the first time it is asked for."""
        try:
            return self._parts[key]  # type: ignore[no-any-return]
        except KeyError:
            pass
        with self._lock:  # re-entrant: a part may be built from others
            if key not in self._parts:
                self._parts[key] = build()
            return self._parts[key]  # type: ignore[no-any-return]

    @property
    def sentences(self) -> list[Span]:
        """The reference's sentences (:func:`~hallucheck.text.segment.split_sentences`)."""
        from ..text.segment import split_sentences

        return self.part("sentences", lambda: split_sentences(self.text))

    @property
    def premises(self) -> PremiseIndex:
        """The words of each sentence and their IDF: the verifier's and the lexical retriever's premises."""
        from ..text.premise import PremiseIndex

        return self.part("premises", lambda: PremiseIndex([s.text for s in self.sentences]))

    @property
    def overlap(self) -> OverlapIndex:
        """The overlap signal's index of the sentences (the whole text when it has none)."""
        from .similarity import OverlapIndex

        return self.part("overlap", lambda: OverlapIndex([s.text for s in self.sentences] or [self.text]))

    @property
    def copies(self) -> CopyIndex:
        """The copy rule's index (:class:`~hallucheck.stages.copy_rule.CopyIndex`)."""
        from .copy_rule import CopyIndex

        return self.part("copies", lambda: CopyIndex(self.text, self.sentences))

    def facts(self, lang: str | None, *, names: bool = True) -> ReferenceFacts:
        """The gate's parsed reference, its figures read as ``lang`` (None: not known). The names it
        tags depend on the languages being checked (:func:`~hallucheck.models.ner.ner_applies`), so one
        is kept per such scope; ``names=False``: the caller reads figures only, which are the same in
        any scope, so any one kept for ``lang`` serves."""
        from ..text.lang import UNDETERMINED, scoped_languages
        from .gate.figures import ReferenceFacts

        if not names:
            with self._lock:
                kept = [v for k, v in self._parts.items() if isinstance(k, tuple) and k[:2] == ("facts", lang)]
            if kept:
                return kept[0]  # type: ignore[no-any-return]
        scope = tuple(sorted({x for x in scoped_languages() if x != UNDETERMINED}))
        return self.part(("facts", lang, scope), lambda: ReferenceFacts(self.text, lang=lang))

    def vectors(self, embedder: Any) -> np.ndarray:
        """The sentences' embeddings by ``embedder`` (one row each)."""
        from .similarity import embed_cached

        name = getattr(embedder, "name", type(embedder).__name__)
        return self.part(("vectors", name), lambda: embed_cached(embedder, [s.text for s in self.sentences]))


class ReferenceCache:
    """The :class:`PreparedReference` of the texts last prepared: at most ``max_references`` of them and
    ``max_chars`` characters in all, least recently used first out; thread-safe. ``max_references=0``
    keeps none (each :meth:`get` parses anew). ``hits``, ``misses`` count :meth:`get` calls."""

    def __init__(self, max_references: int = MAX_REFERENCES, max_chars: int = MAX_CHARS) -> None:
        self._data: OrderedDict[tuple[str, str], PreparedReference] = OrderedDict()
        self._lock = threading.Lock()
        self._chars = 0
        self._last: tuple[str, str, tuple[str, str]] | None = None  # the last text got, its language and key
        self.hits = self.misses = 0
        self.configure(max_references, max_chars)

    def configure(self, max_references: int | None = None, max_chars: int | None = None) -> None:
        """Change the bounds (None: keep that one); what no longer fits is dropped."""
        for name, value in (("max_references", max_references), ("max_chars", max_chars)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"{name} is an integer >= 0; got {value!r}")
        with self._lock:
            if max_references is not None:
                self.max_references = max_references
            if max_chars is not None:
                self.max_chars = max_chars
            self._trim()

    def get(self, text: str, lang: str) -> PreparedReference:
        """The prepared form of ``text`` (of language ``lang``): the kept one, or a new one, kept if it fits."""
        last = self._last
        if last is not None and last[0] is text and last[1] == lang:  # the same string again: no hashing
            key = last[2]
        else:
            key = (hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(), lang)
        with self._lock:
            self._last = (text, lang, key)
            found = self._data.get(key)
            if found is not None:
                self._data.move_to_end(key)
                self.hits += 1
                return found
            self.misses += 1
            prepared = PreparedReference(text, lang)
            if self.max_references and len(text) <= self.max_chars:
                self._data[key] = prepared
                self._chars += len(text)
                self._trim()
            return prepared

    def _trim(self) -> None:
        while self._data and (len(self._data) > self.max_references or self._chars > self.max_chars):
            _, old = self._data.popitem(last=False)
            self._chars -= len(old.text)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._chars = 0
            self._last = None

    @property
    def chars(self) -> int:
        """Characters of reference text kept."""
        return self._chars

    def __len__(self) -> int:
        return len(self._data)


REFERENCES = ReferenceCache()


def prepare(reference: str) -> PreparedReference:
    """``reference`` prepared for the stages: from :data:`REFERENCES` when it was prepared lately."""
    from ..text.lang import detect_language

    return REFERENCES.get(reference, detect_language(reference))


__all__ = ["MAX_CHARS", "MAX_REFERENCES", "REFERENCES", "PreparedReference", "ReferenceCache", "prepare"]
