"""A figure the claim computes from its own aligned figures (the ``computation`` rule): "9 nights at
€85 come to €765", "2,000 kWh at 7p per kWh is £140", "the 20 % discount takes £150 to £120".

The operands are the claim's other figures that are aligned — supported by the reference, given by
the question, or computed — so a figure of the answer alone never supports another. The figure is
read as written (its first number, in the claim's language), and so are the operands. It is

* **computed** when one step (a sum, difference, product, quotient, percentage of, or a percentage
  added or taken off) of two operands, or the sum or product of all of them, or one step more with a
  third, gives it within the rounding of its last written digit;
* **contradicted** when no such step gives it, the sentence says it computes (a word of computation:
  "×", "times", "at … per", "come to", "in total", "altogether", "=", …), it has at least two aligned
  operands, and the reference states its value nowhere: the reason names the operands;
* otherwise left as it was (it abstains).

Only figures that abstained or were called missing are read: what the reference says of the same
thing is never overruled here. Work is bounded: at most :data:`MAX_OPERANDS` operands.
"""

from __future__ import annotations

import re
from dataclasses import replace
from itertools import combinations
from typing import Any, Sequence

from ...text.numbers import find_numbers
from ...text.quantities import Quantity

MAX_OPERANDS = 6
_ALIGNED = ("supported", "given", "computed")
_CUE = re.compile(
    r"[×=]|\s[x*]\s|\btimes\b|\bat\b[^.;]{0,40}\b(?:per|a|an|each)\b|\bcomes?\s+to\b|\bin\s+total\b|\btotal(?:s|ling|ing)?\b|"
    r"\baltogether\b|\badds?\s+up\s+to\b|\bworks?\s+out\b|\bmak(?:es|ing)\b|\bsum\b|\bmultipl|"
    r"\binsgesamt\b|\bergeben\b|\bmacht\b|\bmal\b|\bsumme\b|\bau\s+total\b|\bsoit\b|\bfois\b|\ben\s+total\b|\bpor\b",
    re.IGNORECASE,
)


def _shown(q: Quantity, claim: str, comma: bool, lang: str | None) -> float | None:
    nums = find_numbers(claim[q.start : q.end], comma, lang)
    return nums[0].value if nums else None


def _close(x: float, y: float, written: str) -> bool:
    """``y`` rounds to ``x`` as written (half of its last digit; at least a cent's worth of slack)."""
    m = re.search(r"\d+(?:[.,]\d+)?", written)
    dec = len(re.split(r"[.,]", m.group())[1]) if m and re.search(r"[.,]\d{1,2}$", m.group()) else 0
    return abs(x - y) <= 0.5 * 10 ** (-dec) + 1e-9 * max(abs(x), abs(y))


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


def by_computation(
    ref: Any, claim: str, claim_qs: Sequence[Quantity], checks: list[Any], lang: str | None
) -> list[Any]:
    """``checks`` with each figure the claim computes from its aligned figures computed or contradicted."""
    comma = lang in ("de", "fr", "es", "it", "pt", "nl")
    shown = [_shown(q, claim, comma, lang) for q in claim_qs]
    out = list(checks)
    cue = _CUE.search(claim) is not None
    for k, (q, c) in enumerate(zip(claim_qs, checks)):
        if c.status not in ("abstained", "missing") or q.is_range or shown[k] is None:
            continue
        operands = [shown[j] for j, o in enumerate(checks) if j != k and o.status in _ALIGNED and shown[j] is not None][
            :MAX_OPERANDS
        ]
        if len(operands) < 2:
            continue
        x = shown[k]
        if any(_close(x, r, q.text) for r in _results(operands)):
            out[k] = replace(c, status="computed", counterpart=None, sentence=None)
        elif cue and x not in ref.raw_numbers:
            said = ", ".join(f"{v:g}" for v in operands)
            out[k] = replace(
                c,
                status="contradicted",
                counterpart=None,
                sentence=None,
                note=f"no sum, difference, product or share of the figures it is computed from ({said}) gives it",
            )
    return out


__all__ = ["MAX_OPERANDS", "by_computation"]
