"""Alignment: which reference figure a claim's figure is about (the ``figures`` rule's ground). A
candidate is a reference figure of the claim figure's kind, with its score (the sentence's and the
value's words against the claim's), its local fit (the words that govern the two values), its
sentence and whether it states the claim's value. :func:`aligned` says whether the best candidate is
one figure about the claim's, :func:`better_referent` whether a parallel row, group or year's figure
is the claim's where the reference states its value of something else, :func:`named_for_another`
whether the claim names what sets another figure apart (its day, model, group) where the reference
gives the claim's value for something else, :func:`by_context` which figure the answer's earlier
sentences or the question name where the claim names none ("It includes 50 GB" after "The Premium
plan costs £20").
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from ...text.quantities import Quantity, same_value

MAX_FIGURES = 64  # figures of one claim sentence checked in context; a sentence of more is not compared
ALIGN_MIN_FIT = 0.3  # the least local fit (words governing both values) of a figure a contradiction is by
ALIGN_MARGIN = 0.15  # its lead over any figure of another value, as a share of its own fit
OWN_WEIGHT = 0.8  # a word that governs a value weighs at least this in the value's context ...
OWN_GAP = 0.4  # ... and this much more than in the context of the value it is set apart from
SAID_WEIGHT = 0.6  # a claim word that names its figure's referent weighs at least this in its context


def too_many(n: int) -> str:
    """Why no figure of a sentence of ``n`` figures (more than :data:`MAX_FIGURES`) is compared."""
    return f"not compared: its sentence has {n:,} figures, more than the {MAX_FIGURES} the check compares in one"


def one_value_one_claim(checks: list[Any], fallback: dict[int, Any]) -> list[Any]:
    """One reference value stands for one claim value: when two claim values contradict the same one,
    the value the reference also states (with some of its context) is that statement, not a second
    contradiction ("front tyres take 2.4 bar and the rear 3.1 bar": 2.2 bar is the rear's)."""
    out = list(checks)
    for k, own_match in fallback.items():
        taken_by_another = any(
            j != k and j not in fallback and o.status == "contradicted" and o.counterpart == out[k].counterpart
            for j, o in enumerate(out)
        )
        if taken_by_another:
            out[k] = own_match
    return out


Cand = tuple[float, float, int, Quantity, bool]  # score, local fit, sentence, value, whether the claim's value


def names(c: Cand, claim_bag: set[str], bags: Sequence[set[str]]) -> set[str]:
    """The claim's words that candidate ``c``'s sentence names: what it can be about of the claim's
    subject, group, period or condition."""
    return claim_bag & bags[c[2]]


def leads(best: Cand, rival: Cand, claim_bag: set[str], bags: Sequence[set[str]]) -> bool:
    """Whether ``best`` is about what the claim's figure is about, rather than ``rival`` (a figure of
    another value): the words that govern ``best`` fit the claim's better by :data:`ALIGN_MARGIN` of
    its own fit, or, in another sentence, ``best``'s sentence names every claim word that ``rival``'s
    does and more (its group, plan, model or year)."""
    if best[1] - rival[1] >= ALIGN_MARGIN * best[1]:
        return True
    return best[2] != rival[2] and names(rival, claim_bag, bags) < names(best, claim_bag, bags)


def aligned(cands: Sequence[Cand], claim_bag: set[str], bags: Sequence[set[str]]) -> bool:
    """Whether the best candidate (``cands`` sorted best first) is one reference figure about what the
    claim's is: the words that govern it fit the claim's (a local fit of at least :data:`ALIGN_MIN_FIT`)
    and it :func:`leads` every figure of another value. A figure of another row, group, plan or year
    that the claim's words fit as well makes the referent a tie: no contradiction then."""
    best = cands[0]
    if best[1] < ALIGN_MIN_FIT:
        return False
    return all(leads(best, c, claim_bag, bags) for c in cands[1:] if not c[4] and not same_value(c[3], best[3]))


def parallel(a: set[str], b: set[str]) -> bool:
    """Two sentences said alike (rows of one table, the adults' and the children's dose, one year and
    the next): half the words of the shorter are the other's too; one sentence is parallel to itself."""
    return a is b or (bool(a) and bool(b) and len(a & b) >= 0.5 * min(len(a), len(b)))


def better_referent(match: Cand, cands: Sequence[Cand], claim_bag: set[str], bags: Sequence[set[str]]) -> Cand | None:
    """A candidate of another value that is about the claim's figure where ``match`` (a reference figure
    of the claim's value) is not: its sentence, parallel to ``match``'s (two rows, groups or years said
    alike), names every claim word ``match``'s does and more, the words that govern it fit the claim's
    better by :data:`ALIGN_MARGIN` of its fit, and it leads every other figure of another value; else
    None."""
    mine = names(match, claim_bag, bags)
    for c in cands:
        if c[4] or same_value(c[3], match[3]) or c[1] < ALIGN_MIN_FIT or c[1] - match[1] < ALIGN_MARGIN * c[1]:
            continue
        if (
            mine < names(c, claim_bag, bags)
            and parallel(bags[c[2]], bags[match[2]])
            and all(
                leads(c, o, claim_bag, bags) for o in cands if o is not c and not o[4] and not same_value(o[3], c[3])
            )
        ):
            return c
    return None


def own_words(ctx: dict[str, float], other: dict[str, float], once: set[str]) -> set[str]:
    """The words that set a value apart from ``other``, a value beside it: words of ``once`` (said once
    in the reference: a word said twice may govern both), that govern it (:data:`OWN_WEIGHT`) and it
    more than ``other`` by :data:`OWN_GAP` ("weekdays" for "05:40 on weekdays and 07:10 on
    Saturdays")."""
    return {w for w, x in ctx.items() if w in once and x >= OWN_WEIGHT and x - other.get(w, 0.0) >= OWN_GAP}


def named_for_another(
    match: Cand,
    cands: Sequence[Cand],
    claim_ctx: dict[str, float],
    ctx_of: Callable[[Cand], dict[str, float]],
    once: set[str],
) -> tuple[Cand, bool] | None:
    """The figure of another value that the claim's figure may be about where the reference states the
    claim's value (``match``) of something else: the one figure of ``cands``, beside ``match`` in its
    sentence, whose own words (:func:`own_words`) the claim names near its figure ("On Saturdays the
    first train leaves at 05:40" where the sentence gives 05:40 for weekdays and 07:10 for Saturdays),
    and whether that is sure: the claim names none of ``match``'s own words. Not sure, the referent is
    a tie. None when no one such figure. ``ctx_of``: a candidate's context, weighed as
    :func:`.clauses.value_context` weighs a claim's; ``once``: the words of ``match``'s sentence the reference says only there, once."""
    said = {w for w, x in claim_ctx.items() if x >= SAID_WEIGHT}
    named = {w for w, x in claim_ctx.items() if x > 0}
    mine = ctx_of(match)
    found = [
        c
        for c in cands
        if not c[4] and c[2] == match[2] and not same_value(c[3], match[3]) and own_words(ctx_of(c), mine, once) & said
    ]
    if len(found) != 1:
        return None
    return found[0], not own_words(mine, ctx_of(found[0]), once) & named


def by_context(
    cands: Sequence[Cand],
    claim_bag: set[str],
    texts: Sequence[set[str]],
    ctx_of: Callable[[Cand], dict[str, float]],
    bags: Sequence[set[str]],
    match: Cand | None = None,
) -> Cand | None:
    """The candidate that the claim's context is about where the claim names nothing that sets one
    candidate apart: the candidates that fit the claim's words nearly as well as the best (within
    :data:`ALIGN_MARGIN`) are compared by the words of their contexts; ``texts`` (the answer's
    sentences before the claim, nearest first, then the question: their words) are read in order,
    and the first that names a word some candidates' contexts have and others' lack decides: the
    candidate (or several of one value) whose context weighs the text's words by :data:`OWN_GAP`
    more than every candidate of another value's does ("Premium plan: £20 a month, 50 GB" against
    "Basic plan: ..., 20 GB" after "The Premium plan costs £20"). None when the claim itself names
    such a word, when that text names two values' referents alike (a tie), or when no text does.
    ``match``: a figure of the claim's value; then it must fit the claim's words as well, and only a
    figure of a sentence :func:`parallel` to its own (another row, group or year said alike) is
    another referent's."""
    if not texts or not cands:
        return None
    top = max(c[1] for c in cands)
    near = [c for c in cands if c[1] >= ALIGN_MIN_FIT and c[1] >= (1 - ALIGN_MARGIN) * top]
    if match is not None:
        if match not in near:
            return None  # the claim's own words hold other figures closer: not a question of context
        near = [c for c in near if c is match or c[4] or parallel(bags[c[2]], bags[match[2]])]
    if all(same_value(c[3], near[0][3]) for c in near):
        return None  # one value: nothing to tell apart
    ctxs = [ctx_of(c) for c in near]
    if len({frozenset(claim_bag & x.keys()) for x in ctxs}) > 1:
        return None  # the claim names what sets one apart: the claim's own words decide
    for words in texts:
        named = words - claim_bag
        if len({frozenset(named & x.keys()) for x in ctxs}) == 1:
            continue  # names none, or only words every candidate's context has
        weight = [math.fsum(x[w] for w in named if w in x) for x in ctxs]
        found = [
            c
            for c, mine in zip(near, weight)
            if all(mine - theirs >= OWN_GAP for d, theirs in zip(near, weight) if not same_value(d[3], c[3]))
        ]
        if found and all(same_value(c[3], found[0][3]) for c in found):
            return found[0]
        return None
    return None
