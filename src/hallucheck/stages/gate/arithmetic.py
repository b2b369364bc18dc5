"""One step of arithmetic on a claim's figure: whether the reference's figures, and the claim's own,
give it (:class:`Arithmetic`), for the doubts of :mod:`.doubt`. Work is bounded: at most
:data:`DERIVED_CAP` values a side are tried in pairs."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from functools import cached_property

from ...text.quantities import Quantity

DERIVED_CAP = 40  # figures of one kind (and of one sentence) tried in pairs for a derived value

# hours in a day, a week, a month and a year: a rate ("per day") is kept per hour
PERIODS = (24.0, 168.0, 730.5, 8766.0)


def close_to(q: Quantity, x: float) -> bool:
    """``x`` is ``q``'s value as written: within half of its last written digit (or 15 % for an
    approximate value)."""
    v = q.low
    if q.qualifier == "approx":
        return abs(v - x) <= 0.15 * max(abs(v), abs(x))
    m = re.search(r"\d+(?:[.,]\d+)?", q.text)
    if not m or v == 0:
        return abs(v - x) <= 1e-9
    mantissa = m.group()
    dec = len(mantissa.split(".")[1]) if "." in mantissa else 0
    try:
        shown = float(mantissa.replace(",", "."))
    except ValueError:
        return False
    scale = v / shown if shown else 1.0
    return abs(v - x) <= 0.5 * 10 ** (-dec) * abs(scale) + 1e-9 * abs(v)


class Arithmetic:
    """The one-step sums a claim's figure ``q`` may be, over the reference's figures (``quantities`` by
    sentence, ``values`` by kind; ``related`` and ``near`` pick the sentences that may hold its operands)
    and the claim's own (``own``); ``cue``: a word of change or arithmetic stands around ``q``. Each step
    is tried on at most :data:`DERIVED_CAP` values a side:

    * without a cue: a sum or difference of two of the claim's own figures of its kind ("£500 of its
      £900 value would not be covered" where the limit is £400), a share or change of two of them as a
      percentage ("490 of 2,450 employees, a fifth"), a product with a count the claim states ("eight
      tablets a day, that is 4 g"), a rate the reference gives times a figure of what it is per ("1,150
      kWh at 24.5p per kWh: £281.75") or times a duration ("£1,250 a month: £15,000 over 12 months"), a
      percentage change or share of two amounts of one reference sentence, a duration between two of its
      clock times;
    * after a cue also: a sum or difference with a figure of the reference; of two figures of its kind in
      the reference sentences nearest the claim, when the claim says its figure is a difference or a total
      (:meth:`compared`; not for loose counts); a count the claim adds to its own figure ("25 days plus 8
      public holidays"), a half, third, quarter or double said so, a month's share of a yearly amount, a
      percentage the claim states applied to an amount ("£1,250, at most 4 % more: £1,300"), a share or
      change of the claim's figure and the reference's as a percentage, a risk reduction from a ratio.
    """

    def __init__(
        self,
        quantities: list[list[Quantity]],
        values: dict[str | None, list[float]],
        related: Callable[[str], Iterable[int]],
        near: Callable[[Quantity], Iterable[tuple[int, int, Quantity]]],
        q: Quantity,
        cue: bool,
        own: list[Quantity],
        loose: bool,
        claim: str,
    ) -> None:
        self.quantities, self.values, self.related, self.near = quantities, values, related, near
        self.q, self.cue, self.own, self.loose, self.claim = q, cue, own, loose, claim
        self.base = (q.dim or "").split("/")[0]
        # "1.2 g a day" is a rate, kept per hour
        self.per = PERIODS if "/time" in (q.dim or "") else (1.0,)
        same = {x for d, xs in self.values.items() if self.of_kind(d) for x in xs}
        if "/" not in (q.dim or ""):
            # a rate of its kind as the amount a day, week, month or year ("£800 a month": £800)
            same |= {x * p for d, xs in self.values.items() if d == f"{q.dim}/time" for x in xs for p in PERIODS}
        self.same = sorted(same)[:DERIVED_CAP]
        self.mine = [c.low for c in own if c.dim == q.dim][:DERIVED_CAP]

    def close(self, x: float) -> bool:
        """``x`` is the value as written: within its rounding and never more than 1 % off (5 % for
        "about"); a loose match on a value written with one digit would let arithmetic explain away a
        wrong unit."""
        q, v = self.q, self.q.low
        return any(
            abs(v - x / p) <= 0.05 * abs(v)
            if q.qualifier == "approx"
            else close_to(q, x / p) and abs(v - x / p) <= 0.01 * abs(v)
            for p in self.per
        )

    def of_kind(self, d: str | None) -> bool:
        if self.loose:
            return d is None or d.startswith("count:") or (self.q.dim is None and d not in ("date", "clock"))
        return d is not None and d.split("/")[0] == self.base

    def derives(self) -> bool:
        return (
            self.from_own()
            or self.scaled()
            or self.from_rates()
            or (self.cue and self.with_cue())
            or self.in_sentences()
        )

    def from_own(self) -> bool:
        """Two of the claim's own figures of its kind, summed, subtracted or as a percentage."""
        mine = self.mine
        if not self.loose and any(self.close(a + b) or self.close(abs(a - b)) for a in mine for b in mine if a != b):
            return True
        if self.q.dim != "percent":
            return False
        kinds: dict[str | None, list[float]] = {}
        for c in self.own:
            if c.dim not in ("percent", "date", "clock", "ordinal") and c.low > 0:
                # a bare number and a count are one kind here ("490 of 2,450 employees")
                kinds.setdefault("count" if c.dim is None or c.dim.startswith("count:") else c.dim, []).append(c.low)
        return any(_as_percent(self.close, a, b) for xs in kinds.values() for a in xs for b in xs if a != b)

    def scaled(self) -> bool:
        """A figure of its kind times or over a count the claim states; never a power of ten, which is what
        a wrong unit or scale looks like."""
        counted = [
            c.low * p
            for c in self.own
            if c.dim is None or c.dim.startswith(("count:", "freq:"))
            for p in (PERIODS if "/time" in (c.dim or "") else (1.0,))
        ]
        counts = sorted({x for x in counted if x > 0 and math.log10(x) % 1 != 0})[:DERIVED_CAP]
        return any(self.close(a * n) or self.close(a / n) for a in self.same for n in counts)

    def from_rates(self) -> bool:
        """A rate the reference gives (per a unit, or per a time, kept per hour) times a figure of what it
        is per, in the claim or the reference (read from its values by kind, at most :data:`DERIVED_CAP`
        a kind)."""
        if self.loose or self.q.dim is None or "/" in self.q.dim:
            return False
        rates = [(d.split("/", 1)[1], xs) for d, xs in self.values.items() if d and d.startswith(self.q.dim + "/")]
        if not rates:
            return False
        by_kind: dict[str | None, list[float]] = {}
        for c in self.own:
            if not c.is_range:
                by_kind.setdefault(c.dim, []).append(c.low)
        for d, xs in self.values.items():
            by_kind.setdefault(d, []).extend(xs[:DERIVED_CAP])
        for per, xs in rates:
            hits = [
                n
                for d, ns in by_kind.items()
                if d not in (None, "date", "clock", "percent", "ordinal")
                and (d == "time" if per == "time" else d != self.q.dim and "/" not in d)
                for n in ns
            ][:DERIVED_CAP]
            if any(self.close(x * n) for x in xs[:DERIVED_CAP] for n in hits if n > 0):
                return True
        return False

    def with_cue(self) -> bool:
        """What a word of change or arithmetic allows besides (see the class's docstring)."""
        close, same, mine = self.close, self.same, self.mine
        if any(close(a + b) or close(abs(a - b)) for a in mine for b in [*mine, *same] if a != b):
            return True  # "EUR 1,365 in all, namely EUR 1,120 rent plus EUR 245 for charges"
        counts = [c.low for c in self.own if (c.dim is None or c.dim.startswith("count:")) and not c.is_range]
        if any(close(a + n) for a in mine for n in counts):
            return True  # "33 days off in all: 25 days of leave plus 8 public holidays"
        if (
            not self.loose
            and self.compared()
            and any(close(a + b) or close(abs(a - b)) for i, a in enumerate(self.nearby) for b in self.nearby[i + 1 :])
        ):
            return True  # a difference of two figures of the reference ("0.63 kWh less": 1.35 and 0.72)
        if self.q.dim == "percent":
            if any(close((1 - x) * 100) or close(x * 100) for x in self.values.get(None, ()) if 0 < x < 1):
                return True  # "a 36 % lower risk" from a hazard ratio of 0.64
            amounts = self._amounts()
            if any(_as_percent(close, a, b) for a in mine for b in amounts if a != b):
                return True
        # a percentage the claim states, applied to an amount ("with the 5 % cap, at most £840"): one the
        # reference states of something else would explain away too much ("25 percent below" and 2.4 bar)
        percents = [c.low for c in self.own if c.dim == "percent" and 0 < c.low < 100][:DERIVED_CAP]
        window = self.claim[max(0, self.q.start - 40) : self.q.end + 30]
        parts = [n for n, word in _PARTS if word.search(window)]
        for a in same:
            if any(close(a / n) if n > 1 else close(a * 2) for n in parts):
                return True  # a half, a third, a quarter, a double, said so
            if self.base.startswith("money:") and close(a / 12):
                return True  # a month's share of a yearly amount
            if any(close(a * (1 + p / 100)) or close(a * (1 - p / 100)) for p in percents):
                return True  # "at most 4 % more: £1,300" from £1,250
        return False

    def compared(self) -> bool:
        """The claim says its figure is a difference or a total: a word of comparison right after it ("4.5
        seconds sooner", "£500 less"), "by" after a word of change or a win before it ("rising by 0.5 bar",
        "won by 2 points"), or a word of summing before it ("a total of", "in all")."""
        after = self.claim[self.q.end : self.q.end + 25]
        before = self.claim[max(0, self.q.start - 40) : self.q.start]
        return bool(_COMPARED_AFTER.match(after) or _BY_BEFORE.search(before) or _SUMMED_BEFORE.search(before))

    @cached_property
    def nearby_figures(self) -> list[Quantity]:
        """The figures of the reference sentences that share most of the claim's words, or that state
        values of its kind near it (a bounded share of a long reference)."""
        related = set(self.related(self.claim)) | {i for i, _, _ in self.near(self.q) if i < len(self.quantities)}
        return [r for i in sorted(related) for r in self.quantities[i]]

    @cached_property
    def nearby(self) -> list[float]:
        """The values of its kind among :attr:`nearby_figures`."""
        values = {
            r.low for r in self.nearby_figures if not r.is_range and self.of_kind(r.dim) and "/" not in (r.dim or "")
        }
        return sorted(values)[:DERIVED_CAP]

    def _amounts(self) -> list[float]:
        """The claim's own amounts that a percentage may be of (not percentages, dates or times of day)."""
        return [c.low for c in self.own if c.dim not in ("percent", "date", "clock", "ordinal") and c.low > 0]

    def in_sentences(self) -> bool:
        """A difference, sum, change or share of two figures of one reference sentence ("rose to $188
        million from $171 million": up $17 million, up 9.9 %), a duration between two of its clock times."""
        q, close = self.q, self.close
        for qs in (self.quantities[i] for i in self.related(self.claim)):
            for a_i, a in enumerate(qs[:DERIVED_CAP]):
                for b in qs[a_i + 1 : DERIVED_CAP]:
                    if a.dim in ("date", "id") or a.dim != b.dim or a.is_range or b.is_range:
                        continue
                    x, y = a.low, b.low
                    if self.cue and self.of_kind(a.dim) and (close(abs(y - x)) or close(x + y)):
                        return True
                    if q.dim == "percent" and a.dim not in ("percent", "clock") and min(x, y) > 0:
                        if _as_percent(close, x, y):
                            return True
                    if (
                        q.dim == "time"
                        and a.dim == "clock"
                        and (close(abs(y - x) / 60) or close((1440 - abs(y - x)) / 60))
                    ):
                        return True
        return False


# a difference or total, said so around the figure (see Arithmetic.compared)
_COMPARED_AFTER = re.compile(
    r"\s*(?:[^\W\d_]+\s+)?(?:sooner|faster|slower|quicker|ahead|behind|more|less|fewer|higher|lower|cheaper|"
    r"dearer|longer|shorter|earlier|later|extra|apart|up|down|mehr|weniger|schneller|langsamer|früher|später|"
    r"de plus|de moins|plus|moins|más|menos|in più|in meno|meer|minder|a mais|a menos)\b",
    re.IGNORECASE,
)
_BY_BEFORE = re.compile(
    r"\b(?:[^\W\d_]+(?:ed|ing|s)|rose|grew|fell|won|beat|led|rise|fall|grow|win|lead)\s+by\s+(?:[^\W\d_]+\s+)?$|"
    r"\b(?:um|de|en|di|met)\s+$",
    re.IGNORECASE,
)
_SUMMED_BEFORE = re.compile(
    r"\b(?:total(?:ling|ing|s)?|in all|combined|altogether|difference|gap|margin|saving|sum|insgesamt|zusammen|"
    r"au total|en total|in totale|in totaal|no total)\b[^.;]{0,25}$",
    re.IGNORECASE,
)

# the words that say a figure is a part or a multiple of another: (divisor, pattern), 1 for a double
_PARTS = (
    (2, re.compile(r"\b(?:half|halve[ds]?|halb\w*|hälfte|moitié|mitad|metà|helft|metade)\b", re.IGNORECASE)),
    (3, re.compile(r"\b(?:thirds?|drittel|tiers|tercio|terzo|derde|terço)\b", re.IGNORECASE)),
    (4, re.compile(r"\b(?:quarters?|viertel|quart|cuarto|quarto|kwart)\b", re.IGNORECASE)),
    (1, re.compile(r"\b(?:double[ds]?|twice|doppelt\w*|doble|doppio|dubbel|dobro)\b", re.IGNORECASE)),
)


def _as_percent(close: Callable[[float], bool], a: float, b: float) -> bool:
    """``a`` and ``b`` give the value as a percentage: the change from one to the other, or the share of
    the smaller in the larger."""
    if min(a, b) <= 0:
        return False
    return close(abs(b - a) / a * 100) or close(abs(b - a) / b * 100) or close(min(a, b) / max(a, b) * 100)


__all__ = ["DERIVED_CAP", "PERIODS", "Arithmetic", "close_to"]
