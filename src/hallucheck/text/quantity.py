"""One quantity found in a text (:class:`Quantity`, what :func:`~hallucheck.text.quantities.parse_quantities`
returns) and :func:`same_value`, whether two quantities of the same dimension state the same value:
a rounded value matches the exact one it rounds from ("2.5 million" = "2,480,000"), a converted
value within 3 % ("38 psi" = "2.6 bar"), an approximate one within 15 %; two numbers written in
full, digit for digit at any length (whole numbers, and decimals a float cannot tell apart).
:class:`SpanSet` asks whether a position or span falls in any of a text's spans in log time.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Iterable

from .numbers import written_number
from .units import UNITS


@dataclass(frozen=True)
class Quantity:
    """One quantity found in a text: ``text[start:end]`` (``start``/``end`` relative to the text
    parsed), its value range ``low``..``high`` in the base unit of ``dim``, the surface ``unit``, a
    ``qualifier`` (``max``, ``min``, ``approx`` or None) and ``digits``: the significant digits
    of a value written rounded ("2.5 million", "about 40"), 0 for a value written in full (exact)."""

    text: str
    start: int
    end: int
    low: float
    high: float
    dim: str | None
    unit: str | None = None
    qualifier: str | None = None
    digits: int = 0
    date: tuple[int | None, int | None, int | None] | None = field(default=None, compare=False)

    @property
    def is_range(self) -> bool:
        return self.low != self.high

    def describe(self) -> str:
        return self.text


def _rounds_to(exact: float, rounded: float, digits: int) -> bool:
    """``rounded`` (written with ``digits`` significant digits) is ``exact`` rounded."""
    if abs(exact - rounded) <= 1e-9 * max(abs(exact), abs(rounded), 1.0):
        return True
    if digits <= 0 or rounded == 0 or exact == 0:
        return False
    mag = math.floor(math.log10(abs(rounded)))
    step = 10 ** (mag - max(digits, 1) + 1)
    return abs(exact - rounded) < step / 2


def _exact_integer(q: Quantity) -> bool:
    """A long whole number written in full digits (no scale word, no decimals, no unit conversion)."""
    return (
        q.low == q.high
        and abs(q.low) >= 1e6
        and q.text[:1].isdigit()
        and _digits_of(q.text).isdigit()
        and (q.unit is None and len(_digits_of(q.text)) >= 7)
    )


def _digits_of(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def same_value(a: Quantity, b: Quantity) -> bool:
    """``a`` (a claim's) states what ``b`` (the reference's) states, for two quantities of the same ``dim``: equal, one the other
    rounded, within 3 % when their units differ (a converted value); within 15 % or inside the
    other's range when either is approximate ("about 40", "over a year"); dates when every part
    both give agrees (and they give one part both)."""
    if a.dim != b.dim:
        return False
    if a.dim == "id":
        return a.unit == b.unit  # an identifier: every character
    if a.dim == "clock":
        # "8:15" may be morning or evening: it states 08:15 and 20:15 alike
        half_day = "12h" in (a.unit, b.unit)
        slack = 15 if "approx" in (a.qualifier, b.qualifier) else 0  # "just after midnight" is 00:04
        diff = min(abs(a.low - b.low), 1440 - abs(a.low - b.low))
        return diff <= slack or (half_day and min(diff % 720, 720 - diff % 720) <= slack)
    if a.dim == "date":
        return (
            all(x is None or y is None or x == y for x, y in zip(a.date or (), b.date or ()))
            and any(x is not None and y is not None for x, y in zip(a.date or (), b.date or ()))
            and _same_part_of_month(a, b)
        )
    if a.qualifier in ("below", "above") and b.qualifier is None and not (a.is_range or b.is_range):
        # the claim's "under half an hour" states the reference's 25 minutes, its "more than 20" the
        # reference's 21: a bound holds a value on its side, not far from it. (A bound in the reference
        # is a condition - "weighing less than 2 kg" - and states no value the claim may give.)
        if a.qualifier == "below":
            return 0.5 * a.low <= b.low <= a.low
        return a.low <= b.low <= 1.5 * a.low
    if a.qualifier == "approx" or b.qualifier == "approx":
        # "about 40", "over a year": within 15 %, or inside the other's range
        lo, hi = min(a.low, b.low), max(a.high, b.high)
        inside = (a.low >= b.low * 0.85 and a.high <= b.high * 1.15) or (
            b.low >= a.low * 0.85 and b.high <= a.high * 1.15
        )
        return inside or abs(hi - lo) <= 0.15 * max(abs(hi), abs(lo))
    if a.is_range != b.is_range:
        # one value inside a stated range ("an 8-year-old" where "children of 6 to 12 years") is consistent;
        # a range is not stated by one value inside it ("10 to 500 mg" says more than "50 mg")
        return b.is_range and b.low <= a.low <= b.high
    converted = (
        a.unit is not None and b.unit is not None and UNITS.get(a.unit, (None, 0))[1] != UNITS.get(b.unit, (None, 0))[1]
    )
    whole = _in_full(a, b, converted)
    if whole is not None:
        return whole
    for x, y in ((a.low, b.low), (a.high, b.high)):
        if converted:
            if abs(x - y) > 0.03 * max(abs(x), abs(y)):
                return False
        elif not (_rounds_to(y, x, a.digits) or _rounds_to(x, y, b.digits)):
            return False
    return True


def _in_full(a: Quantity, b: Quantity, converted: bool) -> bool | None:
    """Two point values written in full (no rounding) as whole numbers: whether they are the same number,
    digit for digit (identifiers, account numbers, years; "$1,234,567,891" is not "$1,234,567,892"; past
    2**53, where a float no longer tells whole numbers apart, by the numbers as written); None when either
    is rounded, a range or not whole, or the two are in units to convert."""
    if a.digits or b.digits or a.is_range or b.is_range:
        return None
    if _exact_integer(a) and _exact_integer(b):
        return _digits_of(a.text) == _digits_of(b.text)
    if converted:
        return None
    if not (a.low.is_integer() and b.low.is_integer()):
        return _decimals_in_full(a, b)
    if a.low != b.low:
        return False
    if abs(a.low) < 2**53:
        return True
    wa, wb = written_number(a.text), written_number(b.text)
    if not wa or not wb or abs(float(wa) / a.low - float(wb) / b.low) > 1e-9:
        return True  # not one number each, or written to another scale ("cents"): as the floats say
    return wa == wb


def _decimals_in_full(a: Quantity, b: Quantity) -> bool | None:
    """Two decimals written in full that a float holds as one value, or nearly (within a billionth:
    "0.12345678901" and "0.12345678902"): whether they are the same number, digit for digit as written;
    None when the floats tell them apart, or either is not one number written to the scale of its value
    (a unit of another size, a scale word), so the usual comparison decides."""
    if a.low == 0 or b.low == 0 or abs(a.low - b.low) > 1e-9 * max(abs(a.low), abs(b.low)):
        return None
    wa, wb = written_number(a.text), written_number(b.text)
    if not wa or not wb or abs(float(wa) / a.low - 1) > 1e-9 or abs(float(wb) / b.low - 1) > 1e-9:
        return None
    return wa == wb


# the days of a month its parts name ("the end of March": from the 20th; "early May": to the 10th)
PHASE_DAYS = {"start": (1, 10), "mid": (10, 20), "end": (20, 31)}


def _same_part_of_month(a: Quantity, b: Quantity) -> bool:
    """Two dates of one month that do not name different parts of it: "the end of March" holds 31 March
    and "March", not 5 March nor "early March"."""
    pa, pb = PHASE_DAYS.get(a.unit or ""), PHASE_DAYS.get(b.unit or "")
    if pa and pb:
        return a.unit == b.unit
    phase, other = (pa, b) if pa else (pb, a)
    day = other.date[2] if other.date else None
    return phase is None or day is None or phase[0] <= day <= phase[1]


def non_overlapping(found: list[Quantity]) -> list[Quantity]:
    """``found`` in text order with no two spans overlapping: of two that overlap, the earlier one is
    kept, and of two that start together, the longer."""
    kept: list[Quantity] = []
    for q in sorted(found, key=lambda q: (q.start, -(q.end - q.start))):
        if not kept or q.start >= kept[-1].end:
            kept.append(q)
    return kept


class SpanSet:
    """The union of some spans of a text, to ask whether a position or a span falls in any of them in
    log time (each question a binary search, not a pass over every span)."""

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for a, b in sorted(spans):
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            elif a < b:
                merged.append([a, b])
        self.starts = [a for a, _ in merged]
        self.ends = [b for _, b in merged]

    def covers(self, pos: int) -> bool:
        """Whether some span holds ``pos`` (``start <= pos < end``)."""
        i = bisect_right(self.starts, pos) - 1
        return i >= 0 and pos < self.ends[i]

    def overlaps(self, start: int, end: int) -> bool:
        """Whether some span shares a character with ``start``..``end``."""
        i = bisect_left(self.starts, end) - 1
        return i >= 0 and self.ends[i] > start


class EndOrder:
    """Which figure of a growing list ends last at or before a position, in log time: the list's first
    figures (those it holds when this is made) in any order, the ones appended after them in text order,
    their spans not overlapping (as a parse appends them)."""

    def __init__(self, found: list[Quantity]) -> None:
        self.found, self.head = found, len(found)
        self.first = sorted((q.end, -k) for k, q in enumerate(found))

    def last_before(self, pos: int) -> Quantity | None:
        """The figure that ends last at or before ``pos``; of two that end together, the earlier in the list."""
        k = bisect_right(self.first, (pos, 0)) - 1
        first = self.found[-self.first[k][1]] if k >= 0 else None
        j = bisect_right(self.found, pos, lo=self.head, key=lambda q: q.end) - 1
        later = self.found[j] if j >= self.head else None
        return later if first is None or (later is not None and later.end > first.end) else first


__all__ = ["EndOrder", "Quantity", "SpanSet", "non_overlapping", "same_value"]
