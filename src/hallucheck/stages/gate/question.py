"""The question is context (the ``question`` rule): a RAG answer applies the reference to the user's
case, and the user's figures are in the question ("I am 67 and paid in for 31 years", "we stay 9
nights"). Such a figure in the answer is *given*: never missing, never contradicted by a reference
figure about something else. A figure that a question figure and a reference figure (or two
question figures) give by one step of arithmetic — a sum, a difference, a product, a quotient or a
percentage of — is *computed* (held as supported: "9 nights at €85 come to €765"), unless the reference
states its value: then the claim restates that figure, of its own row or another's, and the figure
check's alignment judges it (with hundreds of reference values, some step over the user's figures gives
almost any value by chance: "2 x 250 = 500 Mbps" for a guaranteed speed copied from the average speed's
row). The reference operand is taken from the :data:`SENTENCES` sentences the claim's words are most
about, not from any figure of the reference: over hundreds of them some step gives almost any value by
chance, and a wrong figure passed as computed. Any other figure of an answer to a question that states
figures may be computed from them in a way this rule does not follow, so it is not called missing: it
abstains. An aligned contradiction that
no such step explains stands (the reference says otherwise of the same thing). Arithmetic over the
answer's own numbers alone never supports a figure: one operand at least is the question's. Work is bounded: at most :data:`CAP` reference
values and :data:`ASKED_CAP` question figures are tried.
"""

from __future__ import annotations

from typing import Any, Sequence

from ...text.quantities import Quantity, parse_quantities, same_value
from .arithmetic import close_to

CAP = 200  # reference values tried against the question's (the first ones, in reading order)
ASKED_CAP = 20  # question figures tried as operands (the first ones): a question of thousands stays bounded


def _compatible(a: Quantity, b: Quantity) -> bool:
    """The same kind of value, or one of them a bare number or a count (the question says "9 nights",
    the answer "9 nights" or "9")."""
    loose = (None,)
    return (
        a.dim == b.dim
        or a.dim in loose
        or b.dim in loose
        or (a.dim or "").startswith("count:")
        and ((b.dim or "").startswith("count:"))
    )


def _results(a: float, b: float) -> list[float]:
    out = [a + b, a - b, b - a, a * b, a * b / 100.0]
    if b:
        out.append(a / b)
    if a:
        out.append(b / a)
    return out


SENTENCES = 8  # reference sentences a question step takes its operand from (on the hand-written sets: 8 and 16 alike)


def _about(ref: Any, claim: str) -> list[int]:
    """The reference sentences the claim's words are most about (IDF-weighted, through the bounded word
    index), best first, at most :data:`SENTENCES` of them: a step over the user's figures takes its
    reference operand from these."""
    from .clauses import stems
    from .index import shared_weight

    scores = shared_weight(stems(claim), ref)
    return sorted((i for i, x in scores.items() if x > 0), key=lambda i: (-scores[i], i))[:SENTENCES]


def given_by_question(
    ref: Any, claim: str, claim_qs: Sequence[Quantity], checks: list[Any], question: str | None, lang: str | None
) -> list[Any]:
    """``checks`` (one per claim value) with the question's figures taken as given (see the module)."""
    if not question or not claim_qs:
        return checks
    asked = parse_quantities(question, lang=lang)
    if not asked:
        return checks
    from dataclasses import replace

    ref_values: list[float] = []
    for i in _about(ref, claim):
        for r in ref.quantities[i]:
            ref_values.extend({r.low, r.high})
            if len(ref_values) >= CAP:
                break
        if len(ref_values) >= CAP:
            break
    asked_values = [v for g in asked[:ASKED_CAP] for v in {g.low, g.high}]
    out = list(checks)
    for k, (q, c) in enumerate(zip(claim_qs, checks)):
        if c.status == "supported":
            continue
        if any(_compatible(q, g) and same_value(q, g) for g in asked):
            out[k] = replace(c, status="given", counterpart=None, sentence=None)
            continue
        if q.is_range or any(same_value(q, r) for _, _, r in ref.near(q)):
            # a range is no one result; a value the reference states (of its own row or another's) is that
            # statement: coincidental arithmetic over the question's figures and hundreds of reference
            # values would otherwise hold almost any of them
            computed = False
        else:
            computed = any(
                close_to(q, x)
                for n, a in enumerate(asked_values)
                for b in (*ref_values, *asked_values[:n], *asked_values[n + 1 :])
                for x in _results(a, b)
            )
        if computed:
            # an answer to the user's case: a figure their figures and the reference's give is computed,
            # even where a reference figure of its kind said otherwise (a total against the daily fee)
            out[k] = replace(c, status="computed", counterpart=None, sentence=None)
        elif c.status == "missing":
            out[k] = replace(c, status="abstained")
    return out


__all__ = ["given_by_question"]
