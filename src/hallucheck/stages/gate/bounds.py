"""A limit turned the other way (the ``bounds`` rule): "take at least 8 tablets in 24 hours" where the
reference says "up to 8 tablets in 24 hours". The figure check finds the claim's value and calls it
supported; the words that make it a bound say the opposite.

A claim figure held **supported** becomes **contradicted** when it is a limit ("at least", "a minimum
of", "up to", "at most", "no more than", "mindestens", "höchstens", "au moins", "jusqu'à", ...) and
the reference figure it was held by (its counterpart) is a bound the other way (those words, or "more
than", "less than", "over", "under"). A claim's "over" or "under" is left alone: it compares the user's
figure with a threshold as often as it restates one ("Your 25 kg bag is over 23 kg" against "up to 23
kg"). A bound on one side only ("8 tablets" against "up to 8 tablets") says less, not the opposite,
and is left as it was; so is a figure held by a computation or the question.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from ...text.quantities import Quantity

LOWER = frozenset({"min", "above"})  # "at least 8", "more than 8"
UPPER = frozenset({"max", "below"})  # "up to 8", "less than 8"


def _side(qualifier: str | None) -> str | None:
    return "lower" if qualifier in LOWER else "upper" if qualifier in UPPER else None


def opposite_bounds(ref: Any, claim_qs: Sequence[Quantity], checks: list[Any]) -> list[Any]:
    """``checks`` with each supported figure whose bound is the other side of its counterpart's
    contradicted (see the module)."""
    out = list(checks)
    starts = {s.start: i for i, s in enumerate(ref.sentences)}
    for k, (q, c) in enumerate(zip(claim_qs, checks)):
        mine = _side(q.qualifier) if q.qualifier in ("min", "max") else None
        if mine is None or c.status != "supported" or c.counterpart is None or c.sentence is None:
            continue
        i = starts.get(c.sentence.start)
        if i is None:
            continue
        at = c.counterpart.start - c.sentence.start
        theirs = next((_side(r.qualifier) for r in ref.quantities[i] if r.start == at), None)
        if theirs is not None and theirs != mine:
            limit = "an upper limit" if theirs == "upper" else "a lower limit"
            note = f"the reference gives {c.counterpart.text!r} as {limit}: {c.sentence.text.strip()!r}"
            out[k] = replace(c, status="contradicted", note=note)
    return out


__all__ = ["LOWER", "UPPER", "opposite_bounds"]
