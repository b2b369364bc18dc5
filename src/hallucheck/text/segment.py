"""Sentence segmentation and word tokenisation with character offsets.

Rule-based (no NLTK punkt, which is not installable offline). It splits after ``.!?``
(and closing quotes/brackets) followed by space and a sentence start; after a full stop
glued to a capitalised word (``century.First``, common in scraped references); at blank
lines; and at line breaks that end a sentence, start a list item or a label line ("Excess: £400"),
or follow a figure before a capital (the lines of a schedule or price list, which carry no full
stop). It does not split after common abbreviations, initials (``V. Stiviano``) or inside numbers
(``2.6``).

Other scripts: a sentence also starts after ``.!?`` with a Cyrillic or Greek capital or a letter of
a script without case (Arabic, Hebrew, Devanagari); it always ends after the CJK marks ``。！？``
(and the full-width ``．``, except between digits), the Devanagari danda ``।`` / ``॥`` and the
Arabic ``؟`` / ``۔``, with or without a following space, whatever follows. In :func:`words`, each
Chinese character and each kana is a word of its own (those scripts leave no space between words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof sr jr st mt ft vs etc e.g i.e eg ie inc ltd co corp no nos fig figs vol al approx dept est
    gen gov sen rep rev col lt sgt capt cmdr adm jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k u.n p.m a.m
    ph.d b.a m.a d.c ca cf op ed eds pp ch sec art""".split()
)

_BOUNDARY = re.compile(
    r"""(?<![.!?…])                         # start at the first mark of a run (a run is tried once, not per mark)
        (?P<end>[.!?…]+['"’”)\]]*)       # terminal punctuation, optional closers
        (?P<gap>\s+)                        # whitespace
        (?=[\"'“‘(\[]?[A-Z0-9À-ÝЀ-ЯΑ-Ω\u05d0-\u05ea\u0600-\u06ff\u0900-\u097f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af])  # a capital, a digit, a caseless letter (CJK too)
    """,
    re.VERBOSE,
)
# marks that end a sentence whatever follows: CJK 。！？ and the full-width ． (not a decimal point
# between digits), the Devanagari danda and double danda, the Arabic question mark and Urdu full stop
_CLOSERS = r"""'"’”)\]」』）】〕》〉"""
_ALWAYS = re.compile(rf"(?:[。！？｡।॥؟۔]|(?<![0-9０-９])．|．(?![0-9０-９]))+[{_CLOSERS}]*")
_GLUED = re.compile(r"(?<=[a-z)\]]{2})\.(?=[A-Z][a-z])")
_PARA = re.compile(r"\n[ \t]*\n\s*")
_LINE = re.compile(r"\n")
_BULLET = re.compile(r"[ \t]*(?:[-*•·]|\d{1,3}[.)])\s")
# a line that starts with a label and a colon ("Escape of water excess: £400"), as in schedules, price
# lists and spec sheets, whose lines carry no full stop
_LABEL = re.compile(r"[ \t]*[A-ZÀ-ÝЀ-ЯΑ-Ω][^\n:.!?]{0,60}:\s")
_CAPITAL = re.compile(r"[ \t]*[\"'“‘(\[]?[A-ZÀ-ÝЀ-ЯΑ-Ω]")
_FIGURE_END = set("0123456789%)€£$¥")
# Chinese characters (Han) and kana: one word each
CJK_CHARS = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
_W = rf"[^\W{CJK_CHARS}]"  # a word character that is not one of those
_CJK_RUN = re.compile(rf"[{CJK_CHARS}]+")
_WORD = re.compile(rf"[{CJK_CHARS}]|{_W}+(?:[-'’.]{_W}+)*", re.UNICODE)


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str


_MAX_WORD = 64  # longer "words" are no abbreviation; bounding the look-back keeps splitting linear


def _previous_word(text: str, end: int) -> str:
    """The run of word characters and dots that ends at ``end`` (at most _MAX_WORD of it),
    lower-cased, trailing dots removed. Scans back from ``end``: no copy of the text before it."""
    i, low = end, max(0, end - _MAX_WORD)
    while i > low and (text[i - 1].isalnum() or text[i - 1] in "._"):
        i -= 1
    if i == low and low > 0 and (text[i - 1].isalnum() or text[i - 1] in "._"):
        return ""  # longer than any abbreviation
    return text[i:end].lower().rstrip(".")


def _is_abbreviation(text: str, dot: int) -> bool:
    word = _previous_word(text, dot)
    if not word:
        return False
    if word in ABBREVIATIONS:
        return True
    if len(word) == 1 and word.isalpha():  # initials: "V. Stiviano", "J. K. Rowling"
        # ... but not a unit symbol after a number or a degree sign: "8 °C.", "2 A.", "5 V."
        before = text[max(0, dot - 3) : dot - 1]
        return not (before.endswith(("°", "º")) or before.rstrip().endswith(tuple("0123456789")))
    return bool(re.fullmatch(r"(?:[a-z]\.)+[a-z]", word))  # u.s.a


def _cut_points(text: str) -> list[int]:
    cuts: set[int] = set()
    for m in _BOUNDARY.finditer(text):
        end_punct = m.group("end")
        if (
            end_punct.startswith(".")
            and len(end_punct.rstrip("'\"’”)]")) == 1
            and _is_abbreviation(text, m.start("end"))
        ):
            continue
        cuts.add(m.end("end"))
    for m in _ALWAYS.finditer(text):
        cuts.add(m.end())
    for m in _GLUED.finditer(text):
        if not _is_abbreviation(text, m.start()):
            cuts.add(m.end())
    for m in _PARA.finditer(text):
        cuts.add(m.start())
    # a line break ends a sentence after .!?:;… (trailing blanks ignored), before a list item or a
    # label line ("Subsidence excess: £1,000"), and between a line that ends in a figure and one that
    # starts with a capital ("… standard excess £250" / "Contents sum insured …");
    # the last non-blank character before each break is found by scanning back no further than the
    # previous break (whose answer is reused across blank lines), so the whole pass is linear
    prev_break, prev_last = -1, ""
    for m in _LINE.finditer(text):
        j = m.start()
        while j > prev_break + 1 and text[j - 1].isspace():
            j -= 1
        if j == prev_break + 1 and prev_break >= 0:
            last = prev_last  # only blanks since the previous break
        else:
            last = text[j - 1] if j > 0 else ""
        prev_break, prev_last = m.start(), last
        if (
            last in (".", "!", "?", ":", ";", "…")
            or _BULLET.match(text, m.end())
            or _LABEL.match(text, m.end())
            or (last in _FIGURE_END and _CAPITAL.match(text, m.end()))
        ):
            cuts.add(m.start())
    return sorted(cuts)


def split_sentences(text: str) -> list[Span]:
    """Sentences of ``text`` as spans with ``text[s.start:s.end] == s.text`` (whitespace trimmed)."""
    spans: list[Span] = []
    begin = 0
    for cut in _cut_points(text) + [len(text)]:
        if cut <= begin:
            continue
        chunk = text[begin:cut]
        lead = len(chunk) - len(chunk.lstrip())
        stripped = chunk.strip()
        if stripped and re.search(r"\w", stripped):
            s = begin + lead
            spans.append(Span(s, s + len(stripped), stripped))
        elif stripped and spans:  # stray punctuation: attach to the previous sentence
            prev = spans[-1]
            e = begin + lead + len(stripped)
            spans[-1] = Span(prev.start, e, text[prev.start : e])
        begin = cut
    return spans


def words(text: str) -> list[Span]:
    """Word tokens (letters/digits, with inner hyphens, apostrophes and decimal points; a
    Chinese character or a kana is a token of its own)."""
    return [Span(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]


def cjk_bigrams(text: str) -> list[str]:
    """The overlapping character pairs of each run of Chinese characters and kana in ``text`` (a run
    of one character is itself): the terms by which word-overlap measures compare such text, which
    has no spaces between words. ``[]`` for text in other scripts."""
    out: list[str] = []
    for run in _CJK_RUN.findall(text):
        out.extend([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
    return out
