"""The words around a value or a name, for :mod:`hallucheck.stages.gate.figures`: content words stemmed
(:func:`stems`), a clause window cut at commas, brackets and "and"/"or" (:class:`Clauses`,
:func:`clause_lists`), and what a sentence says its value is about, weighted by distance
(:func:`value_context`). Two values compare as about the same thing when their contexts share words.
"""

from __future__ import annotations

import bisect
import re
from typing import Sequence

from ...text.quantities import Quantity
from ...text.stopwords import STOP_WORDS

_WORD = re.compile(
    r"[\u3400-\u4dbf\u4e00-\u9fff]|[^\W\d_\u3400-\u4dbf\u4e00-\u9fff]+", re.UNICODE
)  # a CJK character is a word
_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_NEAR = 30  # characters between two values of one phrase
_COORDINATION = r"\s(?:and|or|but|while|whereas|und|oder|aber|et|ou|mais|y|o|pero|e)\s|[和或但]"
_CLAUSE = re.compile(rf"[,;:，；：]|{_COORDINATION}", re.IGNORECASE)
_COORD = re.compile(rf"\s*(?:{_COORDINATION})\s*", re.IGNORECASE)
_BRACKETS = re.compile(r"\([^()]*\)|\[[^\[\]]*\]|（[^（）]*）")


# function words of the other languages the quantity checks read (English ones: STOP_WORDS)
_FOREIGN_STOP_WORDS = frozenset(
    """der die das den dem des ein eine einen einem einer und oder mit von zu zum zur im am auf für bei ist sind
    wird werden nicht sie es als wie auch le la les l un une des du de et ou en au aux à est sont pour par avec
    dans ne pas se ce que qui il elle el los las lo uno una unos unas y o en del al es son para por con que se no
    su sus""".split()
)


def content_tokens(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS and w not in _FOREIGN_STOP_WORDS]


def stem(w: str) -> str:
    return w[:6] if len(w) > 6 else w.rstrip("s")


def stems(text: str) -> set[str]:
    return {stem(w) for w in content_tokens(text)}


def clause_words(
    text: str, start: int, end: int, masks: Sequence[tuple[int, int]] = (), *, elliptic: bool = False
) -> set[str]:
    """Stemmed content words around ``text[start:end]`` within its clause (:func:`clause_lists`)."""
    before, after = clause_lists(text, start, end, masks, elliptic=elliptic)
    return {*before, *after}


def clause_lists(
    text: str,
    start: int,
    end: int,
    masks: Sequence[tuple[int, int]] = (),
    *,
    elliptic: bool = False,
    window: int = 6,
) -> tuple[list[str], list[str]]:
    """Stemmed content words before and after (in text order) ``text[start:end]`` within its clause
    (:meth:`Clauses.lists`); spans in ``masks`` are left out."""
    return Clauses(text, masks).lists(start, end, elliptic=elliptic, window=window)


_SPAN = 400  # characters looked at either side of a value for its few words (bounds the work)


class Clauses:
    """A text prepared once for the clause windows of all its values: the values blanked, asides in
    brackets blanked, clause cuts found."""

    def __init__(self, text: str, masks: Sequence[tuple[int, int]]) -> None:
        self.masks = sorted(masks)
        self.mask_starts = [a for a, _ in self.masks]
        chars = list(text)
        for a, b in self.masks:
            chars[a:b] = " " * (b - a)
        self.flat = "".join(chars)  # the values blanked
        self.brackets = [(m.start(), m.end()) for m in _BRACKETS.finditer(text)]
        for a, b in self.brackets:
            chars[a:b] = " " * (b - a)
        self.outside = "".join(chars)  # the values and the asides blanked
        self.cuts = [(m.start(), m.end(), m.group()) for m in _CLAUSE.finditer(self.outside)]
        self.cut_starts = [c[0] for c in self.cuts]
        self.cut_ends = [c[1] for c in self.cuts]
        self.cjk = bool(_CJK_CHAR.search(text))
        self._rest: set[str] | None = None

    @property
    def rest(self) -> set[str]:
        """The stems of every word of the text but its values."""
        if self._rest is None:
            self._rest = {stem(w) for w in content_tokens(self.flat)}
        return self._rest

    def lists(self, start: int, end: int, *, elliptic: bool = False, window: int = 6) -> tuple[list[str], list[str]]:
        """Stemmed content words before and after (in text order) ``[start, end)`` within its clause:
        a window cut at commas, brackets and "and"/"or", so that in "2.4 bar for the front tyres and
        2.2 bar for the rear tyres" each value keeps its own tyres. An aside in brackets is no part of
        the clause around it ("express delivery (next day) costs £8.95"), and a value inside brackets
        has only the brackets for its clause ("£88.4 million (2023: £79.0 million)"). ``elliptic``: a
        clause with no word before the value ("... to 5 days for pain and to 3 days for fever")
        shares the words before the value of the clause it continues."""
        inside = next(((a, b) for a, b in self.brackets if a <= start and end <= b), None)
        if inside is None:
            text, off, cuts, starts, ends = self.outside, 0, self.cuts, self.cut_starts, self.cut_ends
        else:
            off = inside[0] + 1
            chars = list(self.flat[off : inside[1] - 1])
            for a, b in self.brackets:
                if off <= a and b <= inside[1] - 1:
                    chars[a - off : b - off] = " " * (b - a)
            text = "".join(chars)
            cuts = [(m.start(), m.end(), m.group()) for m in _CLAUSE.finditer(text)]
            starts, ends = [c[0] for c in cuts], [c[1] for c in cuts]
        st, en = start - off, end - off
        k = bisect.bisect_right(ends, st)  # the cuts before the value
        left = cuts[k - 1][1] if k else 0
        j = bisect.bisect_left(starts, en)
        right = cuts[j][0] if j < len(cuts) else len(text)
        if self.cjk:
            window *= 3  # a "word" of Chinese or Japanese text here is one character
        before = content_tokens(text[max(left, st - _SPAN) : st])[-window:]
        if elliptic and not before and k and _COORD.fullmatch(cuts[k - 1][2]):
            # the words before the value of the clause it continues ("delivers 5 kW continuously and 7.5 kW
            # peak": "delivers", not "continuously")
            earlier = cuts[k - 2][1] if k > 1 else 0
            m = bisect.bisect_left(self.mask_starts, earlier + off)
            stop = cuts[k - 1][0]
            if m < len(self.mask_starts) and self.mask_starts[m] - off < stop:
                stop = self.mask_starts[m] - off
            before = content_tokens(text[max(earlier, stop - _SPAN) : stop])[-window:]
        after = content_tokens(text[en : min(right, en + _SPAN)])[:window]
        return [stem(w) for w in before], [stem(w) for w in after]


def _near(qs: Sequence[Quantity], k: int) -> set[str]:
    """The values right beside ``qs[k]`` (the values of one text, in order), as tokens: "in 24 hours"
    next to both "12 tablets" and "8 tablets"."""
    q, out = qs[k], set()
    j = k - 1
    while j >= 0 and q.start - qs[j].end <= _NEAR:
        if q.start - qs[j].end >= 0:
            out.add(f"#{qs[j].dim}:{qs[j].low:g}-{qs[j].high:g}")
        j -= 1
    j = k + 1
    while j < len(qs) and qs[j].start - q.end <= _NEAR:
        if qs[j].start - q.end >= 0:
            out.add(f"#{qs[j].dim}:{qs[j].low:g}-{qs[j].high:g}")
        j += 1
    return out


def value_context(clauses: Clauses, qs: Sequence[Quantity], k: int, *, elliptic: bool = False) -> dict[str, float]:
    """What a sentence says its value ``qs[k]`` is about, weighted: the values beside it (1), the
    words of its clause (1 next to it, less further away), the sentence's other words (0.4: "En cas
    de fièvre, le traitement est limité à trois jours"; "Express delivery, ordered before 2 pm, ...
    costs £8.95"). Two contexts agree by the sum of the products of their shared words' weights."""
    q = qs[k]
    ctx = dict.fromkeys(clauses.rest, _REST)
    before, after = clauses.lists(q.start, q.end, elliptic=elliptic)
    # nearer words say more: "for the rear tyres 2.2 bar" against "... pressure for the front tyres is 2.4 bar"
    for d, w in enumerate(reversed(before)):
        ctx[w] = max(ctx.get(w, 0.0), _decay(d))
    for d, w in enumerate(after):
        ctx[w] = max(ctx.get(w, 0.0), _decay(d))
    ctx.update(dict.fromkeys(_near(qs, k), 1.0))
    return ctx


_REST = 0.4  # a word of the sentence outside the value's clause


def _decay(d: int) -> float:
    """The weight of the clause word ``d`` words away from the value (0 = next to it)."""
    return 1.0 / (1.0 + 0.25 * d)


__all__ = ["Clauses", "clause_lists", "clause_words", "content_tokens", "stem", "stems", "value_context"]
