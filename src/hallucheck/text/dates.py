"""Dates in running text for :mod:`hallucheck.text.quantities`: ISO ("2021-03-12"), with dots or
slashes (day first outside English unless the day cannot be a month), Chinese ("2021年3月12日") and
with month words in five languages ("12 March 2021", "12. März 2021", "March 2021"); each a
:class:`~hallucheck.text.quantity.Quantity` of dimension ``"date"``.
"""

from __future__ import annotations

import re

from .quantity import Quantity, non_overlapping
from .units import AMBIGUOUS_MONTHS, MONTHS

LETTER_RUN = re.compile(r"[^\W\d_]+")
_DATE_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_DATE_DOTS = re.compile(r"\b(\d{1,2})[./](\d{1,2})[./](\d{4})\b")
_DATE_CJK = re.compile(r"(\d{4})\s*年(?:\s*(\d{1,2})\s*月)?(?:\s*(\d{1,2})\s*[日号])?")
_MONTH_WORD = "(?:" + "|".join(sorted((re.escape(m) for m in MONTHS), key=len, reverse=True)) + r")\b\.?"


# "12 March 2021", "12. März 2021", "12 de marzo de 2021", "March 12, 2021", "March 2021", "12 March"
_DATE_WORDS = re.compile(
    rf"(?:(?P<d1>\d{{1,2}})(?:\.|st|nd|rd|th|er)?\s+(?:de\s+)?(?P<m1>{_MONTH_WORD})(?:\s+(?:de\s+)?(?P<y1>\d{{4}}))?)"
    rf"|(?:(?P<m2>{_MONTH_WORD})\s+(?P<d2>\d{{1,2}})(?!\d)(?:st|nd|rd|th)?(?:,?\s+(?P<y2>\d{{4}}))?)"
    rf"|(?:(?P<m3>{_MONTH_WORD})\s+(?:de\s+)?(?P<y3>\d{{4}}))",
    re.UNICODE | re.IGNORECASE,
)


def find_dates(text: str, *, day_first: bool) -> list[Quantity]:
    out: list[Quantity] = []
    for m in _DATE_ISO.finditer(text):
        y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
        out.append(date_quantity(text, m.start(), m.end(), y, mo, d))
    for m in _DATE_DOTS.finditer(text):
        a, b, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
        d, mo = (a, b) if day_first else (b, a)
        if mo > 12 and d <= 12:  # "31/03/2025" is day first whatever the language
            d, mo = mo, d
        if 1 <= mo <= 12:
            out.append(date_quantity(text, m.start(), m.end(), y, mo, d))
    for m in _DATE_CJK.finditer(text):
        out.append(
            date_quantity(
                text,
                m.start(),
                m.end(),
                int(m.group(1)),
                int(m.group(2)) if m.group(2) else None,
                int(m.group(3)) if m.group(3) else None,
            )
        )
    # "12 March 2021", "12. März 2021", "12 de marzo de 2021", "March 12, 2021", "March 2021", "12 March"
    words = set(LETTER_RUN.findall(text.lower()))
    for m in _DATE_WORDS.finditer(text) if not words.isdisjoint(MONTHS) else ():
        mw = (m.group("m1") or m.group("m2") or m.group("m3")).lower().rstrip(".")
        d = m.group("d1") or m.group("d2")
        y = m.group("y1") or m.group("y2") or m.group("y3")
        if mw in AMBIGUOUS_MONTHS and not text[m.start("m1") if m.group("m1") else m.start() :][:1].isupper() and not y:
            continue  # "you may 2" is no date; "May 2" and "2 May 2020" are
        if d and not 1 <= int(d) <= 31:
            continue
        out.append(date_quantity(text, m.start(), m.end(), int(y) if y else None, MONTHS[mw], int(d) if d else None))
    return non_overlapping(out)


def date_quantity(text: str, s: int, e: int, y: int | None, mo: int | None, d: int | None) -> Quantity:
    key = (y or 0) * 10000 + (mo or 0) * 100 + (d or 0)
    return Quantity(text[s:e], s, e, float(key), float(key), "date", date=(y, mo, d))
