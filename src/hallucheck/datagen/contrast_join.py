"""Sentences joined into one ("A, and B." / "A; B."): the ``invented_clause`` contrast rule (a reference
sentence joined to a clause made from a sentence of another reference, which the reference does not
hold) and its supported twin (the same sentence joined the same way to a neighbour of its own)."""

from __future__ import annotations

import random
import re
from typing import Sequence

from ..text.premise import content_words
from ..text.stopwords import STOP_WORDS
from .contrast_base import Candidate, Change, lower_opener

CLAUSE_WORDS = (5, 25)  # words of a sentence joined to another
MAX_HOST_WORDS = 35  # words of a sentence another is joined to
CONNECTORS = (", and ", "; ")
_HOST_END = re.compile(r"(?<=[\w)%])\.$")
_QUOTES = re.compile(r"[\"“”‘’]")
_LEADING_LINK = re.compile(r"^(?:But|And|So|However|Meanwhile|Also)\b,?\s*")
_CAPITAL = re.compile(r"[A-Z][\w'’-]")
_TITLES = frozenset("Dr Mr Mrs Ms Prof Sir Dame Lord Lady President Senator Judge Gen Capt Rev St".split())
# capitalised only because they open a sentence (besides STOP_WORDS and COMMON_OPENERS)
_OPENING_WORDS = frozenset(
    """following according meanwhile additionally finally currently recently previously initially originally
    eventually unfortunately however today yesterday earlier later since despite although while instead
    nevertheless still yet now""".split()
)


def as_clause(sentence: str) -> str | None:
    """``sentence`` as a clause to join after another: no final stop, no leading "But"/"However", its
    first word lower-cased unless it is a name; None when it does not read as one (quoted, too short or
    long, a capitalised first word that may be a name or not)."""
    n = len(sentence.split())
    if not CLAUSE_WORDS[0] <= n <= CLAUSE_WORDS[1] or _QUOTES.search(sentence) or not _HOST_END.search(sentence):
        return None
    body = _LEADING_LINK.sub("", sentence[:-1]).strip()
    first = re.match(r"[\w'’-]+", body)
    if not first:
        return None
    lowered = lower_opener(body)
    if lowered is not None:
        return lowered
    word = first.group()
    if word in _TITLES:
        return body  # "Dr. Alice Brown said ..."
    if word.lower() in STOP_WORDS or word.lower() in _OPENING_WORDS:
        return word.lower() + body[len(word) :]  # "In 2010 ...", "Following the ...": no name
    # a run of capitalised words ("Carlos Watson said") or an acronym is a name, kept as it is
    return body if _CAPITAL.match(body[len(word) :].lstrip()) or word.isupper() else None


def host(sentence: str) -> str | None:
    """``sentence`` without its final full stop, when another can be joined to it."""
    if len(sentence.split()) > MAX_HOST_WORDS or _QUOTES.search(sentence) or not _HOST_END.search(sentence):
        return None
    return sentence[:-1]


def invented_clause(
    sentence: str, reference_words: set[str], foreign: Sequence[str], rng: random.Random
) -> Candidate | None:
    """``sentence`` joined to a clause made from one of the ``foreign`` sentences that the reference
    (its content words ``reference_words``) does not hold: at least three content words the reference
    lacks, at most half of its content words in the reference. Of those, one of the three that share
    most words with the reference (the most plausible), chosen with ``rng``."""
    base = host(sentence)
    if base is None:
        return None
    scored = []
    for text in foreign:
        clause = as_clause(text)
        if clause is None:
            continue
        words = set(content_words(clause))
        if len(words - reference_words) < 3 or len(words & reference_words) > 0.5 * len(words):
            continue
        scored.append((len(words & reference_words), text, clause))
    if not scored:
        return None
    scored.sort(key=lambda t: (-t[0], t[1]))
    _, _, clause = rng.choice(scored[:3])
    joined = rng.choice(CONNECTORS) + clause + "."
    return (Change(len(base), len(sentence), sentence[len(base) :], joined),)


def fused(sentence: str, other: str, connector: str) -> str | None:
    """``sentence`` joined to ``other`` (a sentence of the same reference) with ``connector``."""
    base, clause = host(sentence), as_clause(other)
    return None if base is None or clause is None else f"{base}{connector}{clause}."


__all__ = ["CLAUSE_WORDS", "CONNECTORS", "as_clause", "fused", "host", "invented_clause"]
