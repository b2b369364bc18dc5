"""When the figure check is not sure, it says nothing: the doubts of :mod:`.facts`.

The figure check speaks only when it is sure (its contract, in :mod:`.facts`). :class:`FigureDoubt`
holds what makes it unsure about a claim's figure, read off the reference's figures once:

* a bare number (no unit, no counted noun) has no kind to compare, so it is never *contradicted*;
* a value the reference gives on another basis ("76 cents" where it says "$0.76 per share"; "39,99 €
  par mois" where it says "39,99 € TTC"; "53p" where it says "53.35p per day") is neither
  contradicted nor missing;
* a span named by its start ("the first year"), in the claim or as the reference value it would be
  compared with, is neither: it may be part of a longer span;
* the value a change starts from ("goes up from 20 to 24 days"), when the reference states it, is not
  *contradicted* by the value the change ends at; nor is a value the reference states in the very
  sentence of its would-be counterpart, when that counterpart is a hundred times larger or smaller
  ("2 extra minutes" where "frozen for up to 3 months ..., adding 2 minutes");
* a frequency, count, position or label the reference gives in no such form ("four times a day"
  where it says "every 6 hours") is not *missing*;
* a value that one step of arithmetic on the reference's figures and the claim's own gives (a sum or
  difference of the claim's figures, a share of two of them, a rate times what it is per, a difference
  or sum of two reference figures the claim says it is, a percentage change, a duration between two
  clock times, a half or a double said so, a product with a count the claim states: "eight tablets a
  day, that is 4 g"; the steps are in :mod:`.arithmetic`) is neither, unless the reference states that
  value of that kind elsewhere, in which case the context decides.

Each doubt turns a would-be *contradicted* or *missing* into ``"abstained"``: the sentence goes to the
verifier and the judge, and the reason says the figure was not compared. The work is bounded: at
most :data:`DERIVED_CAP` figures of a kind, and of a sentence, are tried in pairs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cached_property

from ...text.figure_words import opens_change
from ...text.forms import FIRST_SPAN
from ...text.numbers import find_numbers
from ...text.quantities import Quantity, parse_quantities, same_value
from ...text.units import UNITS
from .arithmetic import DERIVED_CAP, PERIODS, Arithmetic, close_to

# kinds of figure a reference often gives in another form ("every 6 hours" for "four times a day")
_SOFT_DIMS = ("freq:", "count:", "ordinal", "label:", "code:", "ratio")
# words that announce a figure derived from two others ("up $17 million", "a combined 40 tablets")
_CHANGE_CUE = re.compile(
    r"\b(?:up(?!\s+to\b)|down|rose|risen|rise|fell|fallen|fall|grew|grown|gain(?:ed)?|los[st]|drop(?:ped)?|"
    r"jump(?:ed)?|climb(?:ed)?|increase[ds]?|decrease[ds]?|declined?|more|less|fewer|higher|lower|difference|"
    r"combined|total|together|altogether|in all|change[ds]?|plus|by|sum|net|added|apart|half|halve[ds]?|"
    r"double[ds]?|twice|triple[ds]?|third|quarter|cheaper|dearer|longer|shorter|later|earlier|quieter|louder|"
    r"saves?|saving|discount|off|extra|another|adds? up|namely|that is|which is|i\.e|"
    r"sooner|faster|slower|quicker|ahead|behind|margin|gap|comes? to|came to|amounts? to|works? out|worked out|"
    r"therefore|pays? out|left over|remaining|average|apiece|all told|at the latest|"
    r"daher|ergibt|durchschnittlich|donc|au total|en moyenne|por lo tanto|de media|en promedio|quindi|in totale|"
    r"in media|in totaal|gemiddeld|portanto|no total|em média|"
    r"gestiegen|gesunken|wuchs|stieg|sank|mehr|weniger|insgesamt|zusammen|leiser|billiger|teurer|nämlich|"
    r"später|früher|soit|plus tard|es decir|más tarde|"
    r"hausse|baisse|augment\w*|diminu\w*|progress\w*|recul\w*|moins|total|"
    r"aumento|aument\w*|subió|bajó|más|menos|en total)\b|增加|减少|增长|下降|共|合计|比|半",
    re.IGNORECASE,
)


def _shown(q: Quantity) -> str:
    """The number as written, with the scale of its unit ("50 g" and "50 gram" alike, not "50 mg")."""
    m = re.search(r"\d+(?:[.,\s]\d+)*", q.text)
    scale = UNITS[q.unit][1] if q.unit in UNITS else 1.0
    return (re.sub(r"[.,\s]", "", m.group()) if m else q.text.lower()) + f"@{scale:g}"


def _per_period_in(q: Quantity, dim: str, xs: list[float]) -> bool:
    """``q``'s value is one of ``xs`` (values of ``dim``, the same kind on the other basis): as it is ("76
    cents" for "$0.76 per share"), or, for an amount that is not a time, per a day, week, month or year
    where one of the two is per a time (kept per hour): "53p" for "53.35p per day"."""
    if (q.dim or "").startswith("time") or ("/time" not in (q.dim or "") and "/time" not in dim):
        return q.low in xs  # a duration against a time rate: both in hours, equal values by chance
    if "/time" in dim:
        return any(close_to(q, x * p) for x in xs for p in PERIODS)
    return any(abs(q.low * p - x) <= 1e-6 * max(1.0, abs(x)) for x in xs for p in PERIODS)


class FigureDoubt:
    """The doubts about claim figures that one reference's figures raise (see the module's docstring)."""

    def __init__(
        self,
        quantities: list[list[Quantity]],
        raw_numbers: set[float],
        reference: str = "",
        near: Callable[[Quantity], Iterable[tuple[int, int, Quantity]]] | None = None,
        related: Callable[[str], Iterable[int]] | None = None,
    ) -> None:
        self.quantities = quantities
        self.raw_numbers = raw_numbers
        self.reference = reference
        # the reference values that may state a value (all of its kind, unless the caller indexes them)
        self.near = near or (lambda q: [(i, j, r) for i, qs in enumerate(quantities) for j, r in enumerate(qs)])
        # the sentences whose figures arithmetic on a claim may combine (all, unless the caller indexes them)
        self.related = related or (lambda claim: range(len(quantities)))
        self._last: tuple[str, list[Quantity]] | None = None

    @cached_property
    def values(self) -> dict[str | None, list[float]]:
        """Every value the reference states, by dimension (ends of ranges included)."""
        by_dim: dict[str | None, list[float]] = {}
        for qs in self.quantities:
            for r in qs:
                by_dim.setdefault(r.dim, []).extend({r.low, r.high})
        return by_dim

    @cached_property
    def _shown_numbers(self) -> set[tuple[str, str, bool]]:
        """(base dimension, number as written, whether a rate) of every reference figure: "39,99 € TTC"
        and "39,99 € par mois" state the same number of the same kind."""
        return {((r.dim or "").split("/")[0], _shown(r), "/" in (r.dim or "")) for qs in self.quantities for r in qs}

    def unsure_or(
        self, q: Quantity, status: str, claim: str, counterpart: Quantity | None = None, *, arithmetic: bool = True
    ) -> str:
        """``status`` when the check is sure of it, else ``"abstained"`` (the sentence is left to the
        verifier and judge). Not sure: a bare number (no kind to compare) said to contradict; a value the
        reference states somewhere, as anything, said to be missing; a value the reference's own figures
        give by subtraction, addition or as a percentage change ("up $17 million" from 171 to 188).
        ``counterpart``: the reference value a contradiction would be by; ``arithmetic=False``: the
        ``arithmetic`` rule is off (no value is taken for derived)."""
        if status == "contradicted" and q.dim in (None, "ordinal"):
            return "abstained"  # a bare number or position: no kind to compare
        if any(x is not None and x.dim == "time" and FIRST_SPAN.match(x.text) for x in (q, counterpart)):
            return "abstained"  # "the first year": a part of a span, which may be longer, said by its start
        stated = status == "contradicted" and any(same_value(q, r) for _, _, r in self.near(q))
        if stated and q.dim != "date" and opens_change(claim, q):
            return "abstained"  # "goes up from 20 to 24 days": the value before, which the reference states
        if stated and counterpart is not None and self._other_scale_beside(q, counterpart):
            return "abstained"  # "2 extra minutes" where "frozen for up to 3 months ..., adding 2 minutes"
        base = (q.dim or "").split("/")[0]
        if q.dim not in (None, "date", "clock") and (
            # the claim leaves out what the reference's value is per ("76 cents" for "$0.76 per share"), or gives a
            # per-unit kind the reference never gives
            ("/" not in q.dim or q.dim not in self.values)
            and any(
                d is not None
                and d != q.dim
                and d.split("/")[0] == base
                and ("/" in d) != ("/" in q.dim)
                and _per_period_in(q, d, xs)
                for d, xs in self.values.items()
            )
            or (base, _shown(q), "/" not in q.dim) in self._shown_numbers
        ):
            return "abstained"  # "76 cents" where the reference says "$0.76 per share": the value, of another basis
        if status == "missing" and q.unit and self._said_with_words_between(q):
            return "abstained"  # "two days a week" where the reference says "two remote days a week"
        if status == "missing" and q.dim == "age":
            # "an 8-year-old" where the reference speaks of "children of 6 to 12 years"
            if any(r.low <= q.low <= r.high for r in self._time_ranges):
                return "abstained"
        kinds = {d.split("/")[0] for d in self.values if d}
        if status == "missing" and q.dim is not None and base not in kinds and q.dim.startswith(_SOFT_DIMS):
            return "abstained"  # a frequency, count or position the reference gives in no such form
        if status == "missing" and (q.dim is None or q.dim.startswith("count:")):
            # a bare number or a count of a loosely named thing: missing only when no figure has its value
            if q.low in self._stated and q.high in self._stated:
                return "abstained"
        # a value the reference states of this kind is judged by its context, never by arithmetic
        if any(same_value(q, r) for _, _, r in self.near(q) if r.dim == q.dim):
            return status
        # a word of change or arithmetic around the value ("up $17 million", "EUR 25 less", "in total")
        cue = _CHANGE_CUE.search(claim[max(0, q.start - 40) : min(len(claim), q.end + 30)]) is not None
        return "abstained" if arithmetic and self._derived(q, cue, claim) else status

    def _other_scale_beside(self, q: Quantity, counterpart: Quantity) -> bool:
        """The reference sentence of ``counterpart`` also states ``q``'s value, of its kind, and
        ``counterpart`` is of another order of magnitude (a hundred times or more): two values that far
        apart in one sentence are about two things, and the claim's is the one it states."""
        lo, hi = sorted((abs(q.low), abs(counterpart.low)))
        if q.dim in (None, "date", "clock", "id") or lo == 0 or hi / lo < 100:
            return False
        return any(counterpart in qs and any(r.dim == q.dim and same_value(q, r) for r in qs) for qs in self.quantities)

    @cached_property
    def _time_ranges(self) -> list[Quantity]:
        return [r for qs in self.quantities for r in qs if r.dim == "time" and r.is_range]

    @cached_property
    def _stated(self) -> set[float]:
        """Every value of any kind the reference states, and every number it writes."""
        return {v for vs in self.values.values() for v in vs} | self._all_numbers

    @cached_property
    def _all_numbers(self) -> set[float]:
        """Every number the reference writes, in digits or in words ("number two", "four-match")."""
        return self.raw_numbers | {n.value for n in find_numbers(self.reference, False)}

    def _said_with_words_between(self, q: Quantity) -> bool:
        """The reference writes ``q``'s number and unit as the claim does, with a word or two between."""
        first = q.text.split()[0] if q.text.split() else ""
        if not first or not q.unit or first.lower() == q.unit.lower():
            return False
        pattern = rf"(?<!\w){re.escape(first)}(?:\s+[^\W\d_]+){{1,2}}\s+{re.escape(q.unit)}(?!\w)"
        return re.search(pattern, self.reference, re.IGNORECASE) is not None

    def _derived(self, q: Quantity, cue: bool, claim: str = "") -> bool:
        """``q`` is what figures of the reference and of the claim itself give by one step of arithmetic,
        and not a value the reference states of its kind (the steps: :class:`~.arithmetic.Arithmetic`). A
        small whole count (12 or less) counts only after a word of change or arithmetic: small numbers are too
        easily made."""
        own = [c for c in self._parsed(claim) if c != q and not c.is_range]
        if q.dim == "clock":
            return self._moved_clock(q, cue, own)
        if q.is_range or q.dim == "date" or q.low == 0:
            return False
        loose = q.dim is None or q.dim.startswith("count:")
        shown = re.search(r"\d+(?:[.,]\d+)?", q.text)
        small = q.low <= 12 if shown is None else (shown.group().isdigit() and int(shown.group()) <= 12)
        if loose and small and not cue:
            return False
        return Arithmetic(self.quantities, self.values, self.related, self.near, q, cue, own, loose, claim).derives()

    def _parsed(self, claim: str) -> list[Quantity]:
        """The figures of ``claim``, parsed once for all of its figures (the last claim's are kept; read
        and replaced whole, so threads sharing this reference never mix two claims')."""
        last = self._last
        if last is None or last[0] != claim:
            last = self._last = (claim, parse_quantities(claim))
        return last[1]

    def _moved_clock(self, q: Quantity, cue: bool, own: list[Quantity]) -> bool:
        """After a word of change, a clock time the reference states moved by a duration the claim gives
        ("20 minutes later ... at 13:01"); one the reference gives would explain away too much (4pm and
        "three hours" make any 7pm)."""
        if not cue:
            return False
        moves = [c.low * 60 for c in own if c.dim == "time"][:DERIVED_CAP]
        clocks = [r.low for qs in self.quantities for r in qs if r.dim == "clock"][:DERIVED_CAP]
        return any((r + d) % 1440 == q.low or (r - d) % 1440 == q.low for r in clocks for d in moves)


__all__ = ["DERIVED_CAP", "FigureDoubt"]
