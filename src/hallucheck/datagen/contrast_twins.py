"""Supported twins: light rewordings of a reference sentence that keep its meaning, so that in the
contrast pairs an edited sentence is not always a wrong one.

* :func:`synonym_twins`: one word (or a fixed phrase) for another that means the same and is no key
  word of any contrast rule ("nearly" -> "almost", "bought" -> "purchased", "prior to" -> "before");
* :func:`moved_adverbial_twins`: a time adverbial moved from the front of a simple clause to its end
  or back ("In 2010, the firm moved to Paris." / "The firm moved to Paris in 2010."). Only across a
  clause with no reported speech, relative or subordinate clause or coordination, where the adverbial
  cannot come to govern another verb ("In 2010, he said he would resign" is left alone).

English only; other languages get the sentence itself as their twin.
"""

from __future__ import annotations

import re
from typing import Sequence

from .contrast_base import cased, first_upper, lower_opener, tokens
from .contrast_words import CLAUSE_WORDS, MONTHS, PHRASE_SYNONYMS_EN, SYNONYMS_EN, TIME_NOUNS, WEEKDAYS

Twin = tuple[str, str]  # (text, how)

_MONTH = "(?:" + "|".join(m.capitalize() for m in MONTHS) + ")"
_WEEKDAY = "(?:" + "|".join(d.capitalize() for d in WEEKDAYS) + ")"
_YEAR = r"(?:1[5-9]\d\d|20\d\d)"
_DATE_TAIL = re.compile(
    rf"""\s+(?P<adv>(?:in|during|since|by)\s+(?:early\s+|late\s+)?{_YEAR}
        |(?:in|during|since|by)\s+{_MONTH}(?:\s+{_YEAR})?
        |on\s+(?:{_WEEKDAY}|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+{_YEAR})?)
        |(?:last|next)\s+(?:week|month|year|weekend))(?P<stop>[.!])$""",
    re.VERBOSE,
)
_DATE_HEAD = re.compile(
    r"^(?P<adv>(?:In|On|During|Since|By|At|Last|This|Earlier|Later)\b[^,;:\"“”]{1,40}),\s+(?P<rest>.+?)(?P<stop>[.!])$"
)
_TIME = re.compile(rf"\b(?:{_YEAR}|{_MONTH}|{_WEEKDAY}|{'|'.join(TIME_NOUNS)}s?)\b", re.IGNORECASE)
_MAX_CLAUSE_WORDS = 25


def _simple_clause(text: str) -> bool:
    """One clause: no comma, quote, semicolon or clause word, at most 25 words."""
    if re.search(r"[,;:\"“”()]", text):
        return False
    ws = re.findall(r"[\w'’-]+", text.lower())
    return 3 <= len(ws) <= _MAX_CLAUSE_WORDS and not CLAUSE_WORDS.intersection(ws)


def moved_adverbial_twins(sentence: str) -> list[Twin]:
    out = []
    head = _DATE_HEAD.match(sentence)
    if head and _TIME.search(head.group("adv")) and _simple_clause(head.group("rest")):
        adv = head.group("adv")
        rest = head.group("rest")
        out.append((f"{first_upper(rest)} {adv[0].lower()}{adv[1:]}{head.group('stop')}", "moved_adverbial"))
    tail = _DATE_TAIL.search(sentence)
    if tail and not head:
        rest = sentence[: tail.start()]
        lowered = lower_opener(rest)
        if lowered is not None and _simple_clause(rest):
            out.append((f"{first_upper(tail.group('adv'))}, {lowered}{tail.group('stop')}", "moved_adverbial"))
    return out


def synonym_twins(sentence: str, protect: Sequence[tuple[int, int]] = ()) -> list[Twin]:
    """One twin per word of the sentence that has a synonym in the table and lies outside ``protect``
    (the spans a contrast rule changed)."""
    tok = tokens(sentence)
    out = []

    def free(a: int, b: int) -> bool:
        return not any(a < e and s < b for s, e in protect)

    for i, w in enumerate(tok.low):
        span = tok.spans[i]
        if not free(span.start, span.end) or tok.mid_capital(i):
            continue
        for phrase, new in PHRASE_SYNONYMS_EN.items():
            n = len(phrase)
            if tuple(tok.low[i : i + n]) == phrase and all(tok.plain_gap(k) for k in range(i, i + n - 1)):
                end = tok.spans[i + n - 1].end
                if free(span.start, end):
                    out.append((sentence[: span.start] + cased(span.text, new) + sentence[end:], "synonym"))
        if w in SYNONYMS_EN and _synonym_ok(tok, i):
            new = cased(span.text, SYNONYMS_EN[w])
            out.append((sentence[: span.start] + new + sentence[span.end :], "synonym"))
    return out


def _synonym_ok(tok, i: int) -> bool:
    w, prev, nxt = tok.word(i), tok.word(i - 1), tok.word(i + 1)
    if w in ("stated", "said", "required") and prev in ("the", "a", "its", "their", "his", "her"):
        return False  # "the stated goal", "the said property"
    if w in ("entire",) and prev in ("a", "an"):
        return False  # "an entire" -> "a whole": left alone rather than fixing the article
    if w in ("moreover", "furthermore", "additionally") and i != 0:
        return False
    if w == "children" and prev in ("the", "your", "our", "their", "his", "her") and nxt == "of":
        return False  # "the children of Israel"
    return True


__all__ = ["Twin", "moved_adverbial_twins", "synonym_twins"]
