"""What every contrast rule shares (:mod:`hallucheck.datagen.contrast`): the edit a rule makes to a
reference sentence (:class:`Change`, applied with :func:`apply_changes`), the sentence's words with
their offsets (:func:`tokens`, from :func:`hallucheck.text.segment.words`), case and article fixes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Sequence

from ..text.edits import apply_edits
from ..text.segment import Span, words
from ..types import Edit


@dataclass(frozen=True)
class Change:
    """``sentence[start:end]`` (= ``before``) replaced with ``after``; an insertion has ``start ==
    end`` and ``before == ""``, a deletion ``after == ""``. Offsets are into the reference sentence."""

    start: int
    end: int
    before: str
    after: str

    def to_dict(self) -> dict:
        return {"start": self.start, "end": self.end, "before": self.before, "after": self.after}

    @classmethod
    def from_dict(cls, d: dict) -> "Change":
        return cls(int(d["start"]), int(d["end"]), str(d["before"]), str(d["after"]))


Candidate = tuple[Change, ...]  # one way a rule can change a sentence


def change(sentence: str, start: int, end: int, after: str) -> Change:
    return Change(start, end, sentence[start:end], after)


def apply_changes(sentence: str, changes: Sequence[Change]) -> str:
    """``sentence`` with ``changes`` made (they must not overlap; adjacent is fine)."""
    return apply_edits(sentence, [Edit(c.start, c.end, c.after) for c in changes])


@dataclass(frozen=True)
class Tokens:
    """The words of a sentence (:func:`~hallucheck.text.segment.words`: inner hyphens and apostrophes
    stay in the word, so "isn't" and "above-mentioned" are one word each) and their lower-case forms
    with curly apostrophes made straight."""

    sentence: str
    spans: tuple[Span, ...]
    low: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.spans)

    def word(self, i: int) -> str:
        """The lower-case word ``i``, ``""`` outside the sentence."""
        return self.low[i] if 0 <= i < len(self.low) else ""

    def gap(self, i: int) -> str:
        """The text between word ``i`` and word ``i + 1`` (``None``-safe: ``"."`` past the end)."""
        if i + 1 >= len(self.spans):
            return "."
        return self.sentence[self.spans[i].end : self.spans[i + 1].start]

    def plain_gap(self, i: int) -> bool:
        """Only spaces between word ``i`` and the next one (no punctuation, no line break)."""
        return self.gap(i) in (" ", "\u00a0")

    def mid_capital(self, i: int) -> bool:
        """Word ``i`` is capitalised and not the sentence's first word (a name: "May", "Lower Manhattan")."""
        return i > 0 and self.spans[i].text[:1].isupper() and not self._after_opening_mark(i)

    def in_name(self, i: int) -> bool:
        """Word ``i`` is capitalised mid-sentence, or opens the sentence before another capitalised word
        ("Greater London", "North Korea"): part of a name."""
        if self.mid_capital(i):
            return True
        nxt = self.spans[i + 1].text if i + 1 < len(self.spans) else ""
        return i == 0 and self.spans[0].text[:1].isupper() and nxt[:1].isupper() and self.plain_gap(0)

    def _after_opening_mark(self, i: int) -> bool:
        before = self.sentence[self.spans[i - 1].end : self.spans[i].start]
        return bool(re.search(r"[:\"“‘(]\s*$", before))


def tokens(sentence: str) -> Tokens:
    spans = tuple(words(sentence))
    return Tokens(sentence, spans, tuple(s.text.lower().replace("’", "'") for s in spans))


def cased(model: str, word: str) -> str:
    """``word`` in the case of ``model``: ALL CAPS, Capitalised, or as given."""
    if len(model) > 1 and model.isupper():
        return word.upper()
    if model[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def replace_word(tok: Tokens, i: int, new: str) -> Candidate:
    """Word ``i`` replaced with ``new`` (in its case); an article "a"/"an" just before it follows the
    new word's first sound ("an increase" -> "a decrease")."""
    s, span = tok.sentence, tok.spans[i]
    new = cased(span.text, new)
    if i > 0 and tok.word(i - 1) in ("a", "an") and tok.plain_gap(i - 1):
        art = article_for(new)
        old_art = tok.spans[i - 1].text
        if art != old_art.lower():
            start = tok.spans[i - 1].start
            return (change(s, start, span.end, cased(old_art, art) + tok.gap(i - 1) + new),)
    return (change(s, span.start, span.end, new),)


def article_for(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def first_upper(text: str) -> str:
    return text[:1].upper() + text[1:]


# sentence openers that are no name: lower-cased when the word stops opening the sentence
COMMON_OPENERS = frozenset(
    """the a an this that these those it its he she they we you i his her their our my your there some many most
    all each every both no one two three several few such other another any officials police researchers
    scientists experts people children patients users""".split()
)


def lower_opener(text: str) -> str | None:
    """``text`` with its first word lower-cased when that word is a common opener (not a name);
    ``text`` unchanged when the first word is already lower case; None when it may be a name
    (then moving it out of first place cannot be done safely)."""
    m = re.match(r"\w+", text)
    if not m:
        return None
    w = m.group()
    if w.islower():
        return text
    if w.lower() in COMMON_OPENERS and w[1:].islower():
        return (w[0].lower() if w != "I" else w[0]) + text[1:]
    return None


# a word or one mark, with the spaces after it: the pieces concatenate back to the text
_PIECE = re.compile(r"\w+(?:['’-]\w+)*\s*|[^\w\s]\s*|\s+")


def diff_changes(before: str, after: str) -> tuple[Change, ...]:
    """The word-level changes that turn ``before`` into ``after`` (``apply_changes(before, result) ==
    after``): how a twin or a moved clause differs from its sentence."""
    a, b = _PIECE.findall(before), _PIECE.findall(after)
    a_at, b_at = _offsets(a), _offsets(b)
    out = []
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            out.append(Change(a_at[i1], a_at[i2], before[a_at[i1] : a_at[i2]], after[b_at[j1] : b_at[j2]]))
    return tuple(out)


def _offsets(pieces: list[str]) -> list[int]:
    at = [0]
    for p in pieces:
        at.append(at[-1] + len(p))
    return at


_NORM = re.compile(r"[^\W_]+")


def norm(text: str) -> str:
    """Lower-case words joined by single spaces (punctuation and case aside)."""
    return " ".join(_NORM.findall(text.lower().replace("’", "'")))


__all__ = [
    "COMMON_OPENERS",
    "Candidate",
    "Change",
    "Tokens",
    "apply_changes",
    "article_for",
    "cased",
    "change",
    "diff_changes",
    "first_upper",
    "lower_opener",
    "norm",
    "replace_word",
    "tokens",
]
