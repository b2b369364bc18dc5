"""The rules that read a claim's figures in pairs, after each was compared (``anchor``, ``swapped``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from ...text.quantities import Quantity, same_value
from .align import MAX_FIGURES
from .clauses import Clauses, value_context

SWAP_MARGIN = 0.6  # how much better two values' words fit each other's places, together, to be called swapped


def anchor(ref: Any, claim_qs: Sequence[Quantity], checks: list[Any]) -> list[Any]:
    """A value held contradicted is supported after all when a reference sentence that another
    value of the claim was soundly compared with states it, as its only value of that kind ("up to
    12 tablets in 24 hours": the sentence of "8 tablets" says "in 24 hours", whatever else the
    leaflet says of hours). Sound: that value is stated there, or nowhere in the reference (a value
    the reference states elsewhere may itself have been compared with the wrong sentence)."""

    def sound(q: Quantity, c: Any) -> bool:
        return c.sentence is not None and (
            c.status == "supported" or not any(same_value(q, r) for _, _, r in ref.near(q))
        )

    anchors_of = [c.sentence.start if sound(q, c) else None for q, c in zip(claim_qs, checks)]  # type: ignore[union-attr]
    out = list(checks)
    for k, (q, c) in enumerate(zip(claim_qs, checks)):
        if c.status != "contradicted":
            continue
        anchors = {a for j, a in enumerate(anchors_of) if j != k and a is not None}
        for i, sent in enumerate(ref.sentences):
            if sent.start not in anchors:
                continue
            same_dim = [r for r in ref.quantities[i] if r.dim == q.dim]
            if len(same_dim) == 1 and same_value(q, same_dim[0]):
                out[k] = replace(c, status="supported", counterpart=ref.span_of(i, same_dim[0]), sentence=sent)
    return out


def swapped(ref: Any, claim_clauses: Clauses, claim_qs: Sequence[Quantity], checks: list[Any]) -> list[Any]:
    """Two values of one kind that a reference sentence states, each in the other's place ("2.2 bar
    for the front tyres and 2.4 bar for the rear" where the front takes 2.4 bar): each is
    contradicted by the other's counterpart when the words around each fit the other's place better,
    and both together by :data:`SWAP_MARGIN`."""
    out = list(checks)
    where = {}  # check index -> (sentence, value index) of its counterpart
    for k, c in enumerate(checks):
        if c.status == "supported" and c.counterpart is not None and c.sentence is not None:
            i = next((n for n, sp in enumerate(ref.sentences) if sp.start == c.sentence.start), None)
            if i is None:
                continue
            j = next((n for n, r in enumerate(ref.quantities[i]) if ref.span_of(i, r) == c.counterpart), None)
            if j is not None:
                where[k] = (i, j)
    keys = sorted(where)[:MAX_FIGURES]
    for a_n, k1 in enumerate(keys):
        for k2 in keys[a_n + 1 :]:
            (i1, j1), (i2, j2) = where[k1], where[k2]
            q1, q2 = claim_qs[k1], claim_qs[k2]
            if i1 != i2 or j1 == j2 or q1.dim != q2.dim or same_value(q1, q2):
                continue
            c1, c2 = value_context(claim_clauses, claim_qs, k1), value_context(claim_clauses, claim_qs, k2)

            def fit(ctx: dict[str, float], j: int, i: int = i1) -> float:
                # the words only (not the other values the sentences state, which pair them as they stand)
                ref_ctx = ref.ref_context(i, j)
                return sum(w * ref_ctx[word] for word, w in ctx.items() if word in ref_ctx and not word.startswith("#"))

            gain1, gain2 = fit(c1, j2) - fit(c1, j1), fit(c2, j1) - fit(c2, j2)
            if gain1 > 0 and gain2 > 0 and gain1 + gain2 >= SWAP_MARGIN:
                r1, r2 = ref.quantities[i1][j1], ref.quantities[i1][j2]
                sent = ref.sentences[i1]
                out[k1] = replace(out[k1], status="contradicted", counterpart=ref.span_of(i1, r2), sentence=sent)
                out[k2] = replace(out[k2], status="contradicted", counterpart=ref.span_of(i1, r1), sentence=sent)
    return out
