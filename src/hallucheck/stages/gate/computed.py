"""A figure the claim computes from its own aligned figures (the ``computation`` rule): "9 nights at
€85 come to €765", "2,000 kWh at 7p per kWh is £140", "the 20 % discount takes £150 to £120".

The operands are the claim's other figures that are aligned — supported by the reference, given by
the question, or computed — so a figure of the answer alone never supports another. The figure is
read as written (its first number, in the claim's language), and so are the operands. It is
**computed** when one step (a sum, difference, product, quotient, percentage of, or a percentage
added or taken off) of two operands, or the sum or product of all of them, or one step more with a
third, gives it within the rounding of its last written digit; otherwise it is left as it was.

No step giving it is no ground to call it wrong. A result is as often worked from a figure of an
earlier sentence ("Together that comes to £345"), a number in words ("for you two"), a period the
words change ("€1.20 a month ... €43.20 a year") or a unit ("1,840 × 15.0p = £276"). On the 16
hand-written blind sets a rule that contradicted such a result when exactly two operands were in
view was right 9 times and wrong 15; on the three sets written after it took its last form, right
once and wrong 5 times. So such a result abstains, and the verifier or the judge reads it.

Which figures are read:

* a figure called missing, or that abstained with no reference figure aligned to it;
* one that abstained although a reference figure of another value is aligned to it (a doubt, or a
  sum of reference figures by chance), only where the words just before it say it is a result
  ("so", "which is", "that makes", "adds", "soit", "also", …);
* one called contradicted by a reference figure, where those words say it is a result (or it is
  :data:`FAR` times that figure or less than its share, beside an aligned figure) and the reference
  states its value nowhere: a total, a saving or a dose for the user's case is about that
  case, not about the reference figure of the same unit nearest in words, so it is computed or
  abstains -- never contradicted by a figure of something else.

Work is bounded: at most :data:`MAX_OPERANDS` operands.
"""

from __future__ import annotations

import re
from dataclasses import replace
from itertools import combinations
from typing import Any, Sequence

from ...text.numbers import find_numbers
from ...text.quantities import Quantity

MAX_OPERANDS = 6
PASSES = 3  # results of results read in turn, at most this deep
_ALIGNED = ("supported", "given", "computed")


def _shown(q: Quantity, claim: str, comma: bool, lang: str | None) -> float | None:
    nums = find_numbers(claim[q.start : q.end], comma, lang)
    return nums[0].value if nums else None


def _slack(written: str) -> float:
    """Half of the last written digit of ``written``'s number (at least a cent's worth when it has cents)."""
    m = re.search(r"\d+(?:[.,]\d+)?", written)
    dec = len(re.split(r"[.,]", m.group())[1]) if m and re.search(r"[.,]\d{1,2}$", m.group()) else 0
    return 0.5 * 10 ** (-dec)


def _close(x: float, results: set[float], written: str) -> bool:
    """One of ``results`` rounds to ``x`` as written."""
    slack = _slack(written)
    return any(abs(x - y) <= slack + 1e-9 * max(abs(x), abs(y)) for y in results)


def _results(values: Sequence[float]) -> set[float]:
    """What one step over two of ``values``, the sum or product of all, and one step more with a third give."""
    out: set[float] = set()
    one: list[float] = []
    for a, b in combinations(values, 2):
        for x, y in ((a, b), (b, a)):
            steps = [x + y, x - y, x * y, x * y / 100, x * (1 + y / 100), x * (1 - y / 100)]
            if y:
                steps += [x / y, 100 * x / y]
            one += steps
    out.update(one)
    if len(values) > 2:
        total, product = 0.0, 1.0
        for v in values:
            total, product = total + v, product * v
        out |= {total, product}
        for r in one:
            for c in values:
                out |= {r + c, r - c, r * c}
    return out


# words right before a figure that say it is a result of the sentence's own arithmetic
_RESULT = re.compile(
    r"(?:[×=]|\bso\b|\bwhich\s+is\b|\bthat\s+is\b|\bi\.\s?e\.|\bmak(?:es|ing)\b|\bgiv(?:es|ing)\b|"
    r"\bbring(?:s|ing)?\b|\badd(?:s|ing)?\b|\bsav(?:e|es|ing)\b|\bcomes?\s+to\b|\btotal\w*|"
    r"\baltogether\b|\bworks?\s+out\b|\btherefore\b|\bthus\b|\bcome\s+to\b|"
    r"\balso\b|\bsomit\b|\bdamit\b|\bergibt\b|\bergeben\b|\binsgesamt\b|\bmacht\b|\bzusammen\b|"
    r"\bsoit\b|\bdonc\b|\bdonne\b|\bfait\b|\bau\s+total\b|\bo\s+sea\b|\bes\s+decir\b|\ben\s+total\b|"
    r"\basí\s+que\b|\bsuman?\b|\bquindi\b|\bcioè\b|\bin\s+totale\b|\bpari\s+a\b|\bou\s+seja\b|"
    r"\bportanto\b|\bno\s+total\b)[^.;:]{0,40}$",
    re.IGNORECASE,
)


FAR = 4.0  # a value this many times (or this share of) the reference figure it was compared with


def _far_beside(
    k: int, shown: Sequence[float | None], c: Any, checks: Sequence[Any], comma: bool, lang: str | None
) -> bool:
    """Figure ``k``, called contradicted, is :data:`FAR` from the reference figure it was compared with
    and the claim holds an aligned figure beside it: a result for the user's case ("Over 12 months that
    contract would cost £183.48" against a £20 joining fee), not a misread of that figure. On the
    hand-written sets that contradiction flagged 31 correct sentences for 19 errors caught (dev: 1 for
    2)."""
    said = find_numbers(c.counterpart.text, comma, lang)
    x, y = shown[k], said[0].value if said else None
    if not x or not y or not any(j != k and o.status in _ALIGNED for j, o in enumerate(checks)):
        return False
    return not 1 / FAR < abs(x / y) < FAR


def _a_result(claim: str, q: Quantity, prev_end: int) -> bool:
    """The words between the previous figure (or 60 characters back) and ``q`` say it is a result."""
    return _RESULT.search(claim[max(prev_end, q.start - 60) : q.start]) is not None


def by_computation(
    ref: Any, claim: str, claim_qs: Sequence[Quantity], checks: list[Any], lang: str | None
) -> list[Any]:
    """``checks`` with each figure the claim computes from its aligned figures computed, and a result
    contradicted by a reference figure of something else read as a result (computed, or abstained)."""
    comma = lang in ("de", "fr", "es", "it", "pt", "nl")
    shown = [_shown(q, claim, comma, lang) for q in claim_qs]
    out = list(checks)
    todo = set()
    for k, (q, c) in enumerate(zip(claim_qs, checks)):
        if q.is_range or shown[k] is None:
            continue
        if c.status == "missing" or (c.status == "abstained" and c.counterpart is None):
            todo.add(k)
        elif c.status == "abstained" and _a_result(claim, q, claim_qs[k - 1].end if k else 0):
            # aligned with a reference figure of another value, then doubted: read as a result only when
            # its words say it is one ("the coolant holds 6 litres" beside "4 litres" and "2 litres" is
            # about the coolant's 7 litres, not their sum)
            todo.add(k)
        elif (
            c.status == "contradicted"
            and c.counterpart is not None
            and shown[k] not in ref.raw_numbers
            and (_a_result(claim, q, claim_qs[k - 1].end if k else 0) or _far_beside(k, shown, c, checks, comma, lang))
        ):
            todo.add(k)
            out[k] = replace(c, status="abstained")  # read as a result below, or left unjudged
    results: dict[tuple, set[float]] = {}  # the steps over one list of operands, worked out once
    rough: set[int] = set()  # results computed only to their written rounding
    for _ in range(PASSES):  # a result computed first may be the operand of the next ("3 x 5 = 15 doses, so 75 mL")
        changed = False
        for k in sorted(todo):
            q, c = claim_qs[k], out[k]
            others = [j for j in range(len(out)) if j != k and shown[j] is not None and j not in rough]
            operands = tuple(shown[j] for j in others if out[j].status in _ALIGNED)[:MAX_OPERANDS]
            if len(operands) < 2:
                continue
            if operands not in results:
                results[operands] = _results(operands)
            x = shown[k]
            if _close(x, results[operands], q.text):
                out[k] = replace(c, status="computed", counterpart=None, sentence=None)
                todo.discard(k)
                # only a result a step gives exactly is an operand in turn ("1 day" is no operand for
                # being 83 / 56 = 1.48 rounded)
                if any(abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y)) for y in results[operands]):
                    changed = True
                else:
                    rough.add(k)
        if not changed:
            break
    return out


__all__ = ["FAR", "MAX_OPERANDS", "PASSES", "by_computation"]
