"""CoNLI entity categories (paper 001, Appendix B): spaCy entities mapped onto the nine categories, and
the tagged hypothesis of the entity-level pass."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

CONLI_CATEGORIES: tuple[str, ...] = (
    "PERSON",
    "PERSONTYPE",
    "LOCATION",
    "EVENT",
    "SKILL",
    "DATETIME-DATERANGE",
    "DATETIME-DURATION",
    "QUANTITY-NUMBER",
    "QUANTITY-CURRENCY",
)
# spaCy label -> CoNLI category (DATE and TIME are split into range/duration by their text)
SPACY_TO_CONLI: Mapping[str, str] = {
    "PERSON": "PERSON",
    "GPE": "LOCATION",
    "LOC": "LOCATION",
    "FAC": "LOCATION",
    "EVENT": "EVENT",
    "CARDINAL": "QUANTITY-NUMBER",
    "MONEY": "QUANTITY-CURRENCY",
}
SPACY_LABELS = frozenset(
    {
        "PERSON",
        "NORP",
        "FAC",
        "ORG",
        "GPE",
        "LOC",
        "PRODUCT",
        "EVENT",
        "WORK_OF_ART",
        "LAW",
        "LANGUAGE",
        "DATE",
        "TIME",
        "PERCENT",
        "MONEY",
        "QUANTITY",
        "ORDINAL",
        "CARDINAL",
    }
)

_NUM_WORD = (
    r"(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|"
    r"fifty|hundred|a|an|several|few|many|some|couple of|half an?|a few)"
)
_UNIT = (
    r"(?:seconds?|minutes?|hours?|days?|weeks?|fortnights?|months?|years?|decades?|centur(?:y|ies)|millenni(?:um|a))"
)
_DURATION = re.compile(rf"\b{_NUM_WORD}(?:[\s-]+\w+)?[\s-]+{_UNIT}\b", re.IGNORECASE)
_NOT_DURATION = re.compile(r"\b(?:ago|old|later|earlier|before|after|since)\b", re.IGNORECASE)
_RANGE = re.compile(
    r"\d\s*[-–—]\s*\d|\bfrom\b.+\b(?:to|until|till|through)\b|\bbetween\b.+\band\b|\b(?:through|until|till)\b"
    r"|\b\d{2,4}'?s\b|\b(?:\d{1,2}(?:st|nd|rd|th)|[a-z]+(?:teenth|tieth|first|second|third|fifth|eighth|ninth))\s+centur"
    r"|\b(?:early|mid|late)[\s-]+\d{2,4}'?s?\b|\b(?:last|past|next|this|coming)\s+(?:\w+\s+)?" + _UNIT,
    re.IGNORECASE,
)


def date_category(text: str) -> str | None:
    """DATETIME-DATERANGE, DATETIME-DURATION or None (a plain date or time: not checked)."""
    if _RANGE.search(text):
        return "DATETIME-DATERANGE"
    if _DURATION.search(text) and not _NOT_DURATION.search(text):
        return "DATETIME-DURATION"
    return None


def conli_category(spacy_label: str, text: str) -> str | None:
    """The Appendix B category of a spaCy entity, or None when it is not one of the nine."""
    if spacy_label in ("DATE", "TIME"):
        return date_category(text)
    return SPACY_TO_CONLI.get(spacy_label)


@dataclass(frozen=True)
class TaggedEntity:
    text: str
    start: int  # offsets into the sentence
    end: int
    spacy_label: str
    category: str


def select_entities(sentence: str, categories: Sequence[str], *, model: str) -> list[TaggedEntity]:
    """Entities of ``sentence`` in ``categories`` (CoNLI names or raw spaCy labels), each
    distinct entity text once (its first occurrence), in order."""
    from ...models import ner

    wanted = set(categories)
    out: list[TaggedEntity] = []
    seen: set[str] = set()
    for e in ner.extract_entities(sentence, model=model):
        cat = conli_category(e.label, e.text)
        if cat in wanted:
            category = cat
        elif e.label in wanted:
            category = e.label
        else:
            continue
        key = e.text.strip().lower()
        if not key or key in seen:
            continue
        seen.add(key)
        out.append(TaggedEntity(e.text, e.start, e.end, e.label, category))
    return out


def tag_entity(sentence: str, start: int, end: int) -> str:
    """The sentence with ``sentence[start:end]`` tagged as the paper does: ``[ entity ]``."""
    return f"{sentence[:start]}[ {sentence[start:end]} ]{sentence[end:]}"
