"""Which reference values a claim's figure is compared with, found by index so that the figure check's
work stays bounded on large references (:mod:`.facts`).

:meth:`ValueIndex.near` gives the values that may state a figure's value: a superset of those
:func:`~hallucheck.text.quantity.same_value` accepts, found by binary search on the value (two values
written exact state each other only within a converted unit's slack; a rounded, approximate or
bounded value within a factor of :data:`NEAR_FACTOR`; ranges always). :meth:`ValueIndex.candidates`
gives the values a figure is weighed against: all of its kind, or in a reference with more than
:data:`MAX_CANDIDATES` of them, those of the sentences sharing most of the claim's words about it
(by an index of the words) and of the sentences stating most of the claim's other values.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import replace
from functools import cached_property

from ...text.quantities import Quantity

NEAR_FACTOR = 2.5  # a value can state another only within this factor of it (rounding, "about", bounds)
NEAR_EXACT = 1.05  # two values written exact state each other only within this factor (a converted unit)
NEAR_ALL = 64  # up to this many values of a kind, all are tried
MAX_CANDIDATES = 64  # values of one kind a claim figure is compared with in a large reference (by sentence)
MAX_POSTINGS = 500  # sentences read for one word when choosing them (a word in more says little)


class ValueIndex:
    """The reference's values by kind and by value, and its words by sentence."""

    def __init__(self, quantities: list[list[Quantity]], bags: list[set[str]], idf: dict[str, float]) -> None:
        self.quantities = quantities
        self.bags = bags
        self.idf = idf

    @cached_property
    def by_dim(self) -> dict[str | None, tuple[list[tuple[int, int, Quantity]], list, list, list]]:
        """The reference's values by dimension: all of them as (sentence, index, value), then three groups
        to search by value: those written exact, those written rounded or approximate (each sorted by
        value, as (value, item)), and the ranges."""
        groups: dict[str | None, list[tuple[int, int, Quantity]]] = {}
        for i, qs in enumerate(self.quantities):
            for j, r in enumerate(qs):
                groups.setdefault(r.dim, []).append((i, j, r))
        out = {}
        for dim, items in groups.items():
            ranges = [t for t in items if t[2].is_range]
            points = [t for t in items if not t[2].is_range]
            loose = sorted(((t[2].low, t) for t in points if t[2].digits or t[2].qualifier), key=lambda x: x[0])
            exact = sorted(((t[2].low, t) for t in points if not (t[2].digits or t[2].qualifier)), key=lambda x: x[0])
            out[dim] = (items, exact, loose, ranges)
        return out

    def align(self, q: Quantity) -> Quantity:
        """``q`` in the currency the reference gives its amounts in, where one of the two texts writes
        cents of no currency it names ("50 cents" for "€0.50"; the parser marks their ``unit`` "¢"):
        a claim's such cents take the reference's one currency, and a claim's amount in a currency the
        reference never gives takes that of the reference's such cents."""
        if not (q.dim or "").startswith("money:"):
            return q
        base, _, per = q.dim.partition("/")  # type: ignore[union-attr]
        named = {d.split("/")[0] for d, (items, *_) in self.by_dim.items() if (d or "").startswith("money:")
                 and any(r.unit != "¢" for _, _, r in items)}  # fmt: skip
        loose = {d.split("/")[0] for d, (items, *_) in self.by_dim.items() if (d or "").startswith("money:")
                 and any(r.unit == "¢" for _, _, r in items)}  # fmt: skip
        if q.unit == "¢" and len(named) == 1:
            to = next(iter(named))
        elif q.unit != "¢" and base not in named and len(loose) == 1:
            to = next(iter(loose))
        else:
            return q
        return replace(q, dim=to + (f"/{per}" if per else ""))

    def near(self, q: Quantity) -> list[tuple[int, int, Quantity]]:
        """The reference values of ``q``'s dimension that may state its value (a superset of those
        :func:`same_value` accepts): exact values within :data:`NEAR_EXACT` of it when both are written
        exact, else within a factor of :data:`NEAR_FACTOR`, and every range; every value of a kind whose
        values are not magnitudes (dates, clock times, identifiers)."""
        items, exact, loose, ranges = self.by_dim.get(q.dim, ([], [], [], []))
        if q.dim in ("date", "clock", "id") or q.low <= 0 or len(items) <= NEAR_ALL:
            return items
        tight = NEAR_EXACT if not (q.digits or q.qualifier or q.is_range) else NEAR_FACTOR

        def window(sorted_items: list, factor: float) -> list[tuple[int, int, Quantity]]:
            a = bisect_left(sorted_items, q.low / factor, key=lambda x: x[0])
            b = bisect_right(sorted_items, q.high * factor, key=lambda x: x[0])
            return [t for _, t in sorted_items[a:b]]

        return window(exact, tight) + window(loose, NEAR_FACTOR) + ranges

    def candidates(
        self, q: Quantity, context: dict[str, float], stated: dict[int, set[int]]
    ) -> list[tuple[int, int, Quantity]]:
        """The reference values ``q`` is compared with: every one of its kind, or in a reference with more
        than :data:`MAX_CANDIDATES` of them, those of the :data:`MAX_CANDIDATES` sentences that share most
        of the claim's words about it (IDF-weighted, by an index of the words) and of the
        :data:`MAX_CANDIDATES` sentences stating most of the claim's other values."""
        items = self.by_dim.get(q.dim, ([], [], [], []))[0]
        if len(items) <= MAX_CANDIDATES:
            return items
        scores: dict[int, float] = {}
        for w, c in context.items():
            for i in self.postings.get(w, ())[:MAX_POSTINGS]:
                scores[i] = scores.get(i, 0.0) + self.idf.get(w, 0.0) * c
        with_dim = {i for i, _, _ in items}
        top = sorted((i for i in scores if i in with_dim), key=lambda i: -scores[i])[:MAX_CANDIDATES]
        keep = set(top) | set(sorted(stated, key=lambda i: -len(stated[i]))[:MAX_CANDIDATES])
        return [t for t in items if t[0] in keep]

    def related(self, words: set[str]) -> list[int]:
        """The sentences with two figures or more that arithmetic on a claim of ``words`` may read: all of
        them, or past :data:`MAX_CANDIDATES`, those sharing most of ``words`` (IDF-weighted)."""
        pairs = [i for i, qs in enumerate(self.quantities) if len(qs) > 1]
        if len(pairs) <= MAX_CANDIDATES:
            return pairs
        scores = _weights(words, self.postings, self.idf)
        return sorted((i for i in scores if len(self.quantities[i]) > 1), key=lambda i: -scores[i])[:MAX_CANDIDATES]

    def related_to(self, claim: str) -> list[int]:
        """:meth:`related` for the words of ``claim``."""
        from .clauses import stems

        return self.related(stems(claim))

    @cached_property
    def postings(self) -> dict[str, list[int]]:
        """Each word of the reference: the sentences it is in, in order."""
        index: dict[str, list[int]] = {}
        for i, bag in enumerate(self.bags):
            for w in bag:
                index.setdefault(w, []).append(i)
        return index


def shared_weight(words: set[str], ref) -> dict[int, float]:
    """Per sentence of ``ref`` (a :class:`~hallucheck.stages.gate.figures.ReferenceFacts`) that holds any of
    ``words`` (stems), the IDF weight of those it holds, found through its word index (at most
    :data:`MAX_POSTINGS` sentences a word: bounded work on long references)."""
    return _weights(words, ref._index.postings, ref.idf)


def _weights(words: set[str], postings: dict[str, list[int]], idf: dict[str, float]) -> dict[int, float]:
    """Per sentence holding any of ``words``, the sum of their IDF weights. Summed exactly
    (``math.fsum``): a set yields its words in an order that follows the process's string hashing, and
    a float sum in that order would break a tie between two sentences differently from run to run."""
    shared: dict[int, list[float]] = {}
    for w in words:
        for i in postings.get(w, ())[:MAX_POSTINGS]:
            shared.setdefault(i, []).append(idf.get(w, 0.0))
    return {i: math.fsum(ws) for i, ws in shared.items()}


__all__ = ["MAX_CANDIDATES", "ValueIndex", "shared_weight"]
