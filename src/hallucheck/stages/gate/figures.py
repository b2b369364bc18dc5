"""Facts of a claim compared with the reference *in context*: the gate behind ``entity_check``.

A number is not checked as a bare string against the whole document. Each quantity of the claim
(:func:`hallucheck.text.quantities.parse_quantities`: value, unit or counted noun, range, clock time,
frequency, position, identifier) is compared with the reference quantities of the same kind (same
dimension, currency, basis such as "per share" or "a day", or noun), and among those with the ones
*about the same thing*: the words around the two values (their clauses, nearer words weighing more,
the rest of the sentence less), the sentence's share of what the claim says about the value, and the
sentence the claim's other values are found in.

**The contract: the check speaks only when it is sure; otherwise it abstains** (status
``"abstained"``: the figure is not compared, the sentence is left to the verifier and the judge, and
the verdict's reason says so). It says

* **supported** when a reference figure of the same kind about the same thing has the same value
  (rounded, converted, approximate within its word's slack, or a point inside a stated range);
* **contradicted** only when a reference figure of the same kind and basis, about the same thing
  (its clause's words fit the claim's), says another value beyond rounding, and the claim's value
  is not one the reference also states of something the claim may mean; two values of one reference
  sentence each put in the other's place ("2.2 bar front, 2.4 bar rear" for the reverse) are both
  contradicted;
* **missing** only when the figure is one (a unit, currency, date, time or identifier, not a bare
  number or a loosely counted word) and the reference gives its kind but not its value, in no form
  and by no one step of arithmetic.

What makes it unsure is listed in :mod:`.doubt`: bare numbers, values on another basis ("76 cents"
for "$0.76 per share"), kinds the reference gives in another form ("four times a day" for "every 6
hours"), values that one step of arithmetic on the reference's figures gives ("up $17 million").
Exact integers (identifiers, account numbers, any whole number written in full) compare digit for
digit; a range is no support for a point value outside what the reference states; a sentence of more
than :data:`MAX_FIGURES` figures is not compared at all: every figure abstains.

Names get the same treatment: a name that the reference never mentions is missing; a name the
reference mentions, in a claim whose closest reference sentence (sharing most of the claim's other
words) names another entity of the same type in its place and not this one, is contradicted.

What a value or name is about (the words of its clause, weighted) is read by :mod:`.clauses`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

from ...text.numbers import written_decimal_comma
from ...text.quantities import Quantity, parse_quantities, same_value
from ...text.segment import Span, split_sentences
from .align import (
    MAX_FIGURES,
    Cand,
    aligned,
    better_referent,
    by_context,
    named_for_another,
    one_value_one_claim,
    too_many,
)  # fmt: skip
from .bounds import opposite_bounds
from .clauses import Clauses, content_tokens, stem, stems, value_context
from .computed import by_computation
from .doubt import FigureDoubt
from .index import ValueIndex
from .names import check_name, closest_sentence, entities
from .pairs import anchor, swapped
from .question import given_by_question
from .rule import RULES
from .superseded import superseded
from .tables import in_scale, per_period, split_tables, table_rows

_ONE = re.compile(r"(?:1|one|un|une|uno|una|ein|eine|einen|一)\b", re.IGNORECASE)
BARE_LOCAL = 2.0  # how closely a bare number's words must fit another bare number's for a contradiction


@dataclass(frozen=True)
class FactCheck:
    """One fact of a claim and what the reference says of it: ``status`` is ``supported``,
    ``contradicted`` or ``missing``; ``start``/``end`` index the claim's text; ``counterpart`` is
    the reference span it was compared with (offsets into the reference) and ``sentence`` that
    span's sentence."""

    text: str
    start: int
    end: int
    kind: str
    status: str
    counterpart: Span | None = None
    sentence: Span | None = None
    note: str = ""  # why, where no reference span says it (a computation that does not hold)

    def describe(self) -> str:
        if self.note:
            return f"{self.text!r}: {self.note}"
        if self.status == "contradicted" and self.counterpart is not None and self.sentence is not None:
            return f"{self.text!r}; the reference says {self.counterpart.text!r}: {self.sentence.text.strip()!r}"
        if self.status == "missing":
            return f"{self.text!r} ({self.kind}) is not in the reference"
        return f"{self.text!r} matches the reference"


class ReferenceFacts:
    """The reference's sentences, their words and (on first use) their quantities, parsed once per
    reference."""

    def __init__(self, reference: str, *, lang: str | None = None) -> None:
        self.reference = reference
        self.lang = lang
        # where the language is not known, the decimal mark its numbers show ("1.000,50"), else None
        self.decimal_comma = None if lang else written_decimal_comma(reference)
        # a table's lines are sentences of their own, each cell's figure about its row and column (.tables)
        rows = table_rows(reference)
        sentences = split_sentences(reference) or [Span(0, len(reference), reference)]
        self.sentences = split_tables(sentences, rows, reference)
        by_span = {(r.span.start, r.span.end): r for r in rows}
        self.rows = {i: by_span[(s.start, s.end)] for i, s in enumerate(self.sentences) if (s.start, s.end) in by_span}
        self.bags = [{stem(w) for w in content_tokens(s.text)} for s in self.sentences]
        for i, row in self.rows.items():
            self.bags[i] |= {stem(w) for h in row.header for w in content_tokens(h)}
        n = len(self.sentences)
        df: dict[str, int] = {}
        for b in self.bags:
            for w in b:
                df[w] = df.get(w, 0) + 1
        self.idf = {w: math.log(1 + n / c) for w, c in df.items()}
        self._ents: dict[tuple[int, str], list] = {}
        self._clauses: dict[int, Clauses] = {}
        self._contexts: dict[tuple[int, int], dict[str, float]] = {}
        self.raw_numbers = {float(m.group()) for m in re.finditer(r"\d+(?:\.\d+)?", reference.replace(",", ""))}

    @cached_property
    def quantities(self) -> list[list[Quantity]]:
        """Each sentence's quantities (parsed only when a claim has one to compare)."""
        out = [parse_quantities(s.text, lang=self.lang, decimal_comma=self.decimal_comma) for s in self.sentences]
        for i, row in self.rows.items():  # a "Monthly fee" cell is a fee per month; "415" under "(£m)" £415m
            at, mark = self.sentences[i].start, self.decimal_comma
            out[i] = [
                in_scale(per_period(q, col := row.column(at + q.start, at + q.end)), col, row.caption, mark)
                for q in out[i]
            ]
        return out

    @cached_property
    def bare_values(self) -> set[float]:
        """The values the reference gives as bare numbers or counts of something."""
        bare = [q for qs in self.quantities for q in qs if q.dim is None or q.dim.startswith("count:")]
        return {q.low for q in bare} | {q.high for q in bare}

    @cached_property
    def _index(self) -> ValueIndex:
        return ValueIndex(self.quantities, self.bags, self.idf)

    def near(self, q: Quantity) -> list[tuple[int, int, Quantity]]:
        return self._index.near(q)

    def ref_context(self, i: int, j: int) -> dict[str, float]:
        """What value ``j`` of reference sentence ``i`` is about, weighted as :func:`value_context` weighs
        a claim's (an elliptic clause shares the words before it in the clause it continues);
        computed once per value, whatever the claims compared with it."""
        key = (i, j)
        if key not in self._contexts:
            qs = self.quantities[i]
            if i not in self._clauses:
                self._clauses[i] = Clauses(self.sentences[i].text, [(r.start, r.end) for r in qs])
            ctx = value_context(self._clauses[i], qs, j, elliptic=True)
            row = self.rows.get(i)
            if row is not None:
                # a cell's figure is about its row's label and its column's header, whatever the cells beside it
                start = self.sentences[i].start
                for w in content_tokens(row.referent(start + qs[j].start, start + qs[j].end)):
                    ctx[stem(w)] = 1.0
            self._contexts[key] = ctx
        return self._contexts[key]

    def check_quantities(
        self,
        claim: str,
        *,
        lang: str | None = None,
        off: frozenset[str] = frozenset(),
        question: str | None = None,
        earlier: Sequence[str] = (),
    ) -> list[FactCheck]:
        """Each quantity of ``claim`` (written in ``lang``, default: the reference's) checked
        against the reference in context, by the rules of :data:`~.rule.RULES` not in ``off``, in
        their order; ``question``: what the claim answers (its figures are the user's own);
        ``earlier``: the answer's sentences before the claim, nearest first (what it may be about)."""
        out: list[FactCheck] = []
        lang = lang or self.lang
        # a claim of no known language that shows no decimal mark of its own reads numbers as the reference does
        own_mark = lang is not None or written_decimal_comma(claim) is not None
        parsed = parse_quantities(claim, lang=lang, decimal_comma=None if own_mark else self.decimal_comma)
        if len(parsed) > MAX_FIGURES:  # not compared at all rather than on a partial reading (bounded work)
            note = too_many(len(parsed))
            return [FactCheck(q.text, q.start, q.end, _kind(q), "abstained", note=note) for q in parsed]
        claim_qs = [self._index.align(q) for q in parsed]
        if not claim_qs:
            return out
        claim_clauses = Clauses(claim, [(q.start, q.end) for q in claim_qs])
        # what a reference sentence must name to be about the claim: its words but the figures' own
        masked = "".join(" " if any(q.start <= n < q.end for q in claim_qs) else ch for n, ch in enumerate(claim))
        claim_bag = {stem(w) for w in content_tokens(masked)}
        texts = [] if "context" in off else [stems(t) for t in [*earlier, question or ""] if t]
        # which claim values each reference value states, once (only values near each claim value are tried)
        same: dict[tuple[int, int], set[int]] = {}
        for k, q in enumerate(claim_qs):
            for i, j, r in self.near(q):
                if same_value(q, r):
                    same.setdefault((i, j), set()).add(k)
        # a reference sentence that states the claim's other values is the one the claim is about
        stated: dict[int, set[int]] = {}
        for (i, _), ks in same.items():
            stated.setdefault(i, set()).update(ks)
        fallback: dict[int, FactCheck] = {}  # a contradicted value's own match, in case its counterpart is another's
        for k, q in enumerate(claim_qs):
            kind = _kind(q)
            context = value_context(claim_clauses, claim_qs, k)
            cands = []
            for i, j, r in self._index.candidates(q, context, stated):
                if q.dim == "date" and not _comparable_dates(q, r):
                    continue
                if k not in same.get((i, j), ()) and (i, j) in same:
                    continue  # the claim states this value too, elsewhere: it is that value's counterpart
                ref_ctx = self.ref_context(i, j)
                local = math.fsum(w * ref_ctx[word] for word, w in context.items() if word in ref_ctx)
                agree = len(stated.get(i, ())) - 0.5 * (k in stated.get(i, ()))  # its own value counts half
                # how much of what the claim says about this value the sentence says (IDF-weighted)
                sent_score = math.fsum(self.idf.get(w, 0.0) * c for w, c in context.items() if w in self.bags[i])
                score = sent_score + 2.0 * local + 3.0 * agree + (1.0 if r.unit == q.unit else 0.0)
                cands.append((score, local, i, r, k in same.get((i, j), ())))
            if not cands:
                # nothing of this kind in the reference: a bare value or count may still be there
                ok = (
                    (q.dim is None and q.low in self.raw_numbers and q.high in self.raw_numbers)
                    or (
                        q.dim == "date"
                        and q.date is not None
                        and q.date[0] in self.raw_numbers  # a year, written as a number
                    )
                    or (
                        q.dim is not None
                        and q.dim.startswith(("count:", "money:"))
                        and q.low in self.bare_values
                        and q.high in self.bare_values
                    )
                    # one of something is often "a"/"un" in the reference ("un comprimé par jour")
                    or ((q.dim or "").startswith("count:") and _ONE.match(q.text) is not None)
                )
                out.append(
                    FactCheck(
                        q.text, q.start, q.end, kind, "supported" if ok else self._unsure(q, "missing", claim, off)
                    )
                )
                continue
            cands.sort(key=lambda c: (c[0], c[1]), reverse=True)
            best_score, best_local, bi, br, _ = cands[0]
            matches = [c for c in cands if c[4]]
            if not matches and q.is_range:
                # "from 10 to 80 per cent" where a sentence says "80 per cent from 10 per cent"
                matches = [c for c in cands if _both_ends_in(q, self.quantities[c[2]])]
            # about the same thing: the words around the values agree (a bare number needs that), or the
            # sentence says much of the claim
            about_same = best_local >= 1 or (q.dim is not None and best_score >= 2.0)
            if matches:
                m_score, m_local, mi, mr, _ = matches[0]
                # the same value, as close to the claim as the best counterpart, or nearly so without another
                # value holding the claim's words around it more closely ("Express delivery costs £4.95"
                # where "standard delivery costs £4.95; express delivery costs £8.95")
                close = m_score >= 0.75 * best_score or m_score >= best_score - 1.0
                other = self._of_another_referent(q, kind, claim, off, matches[0], cands, claim_bag, context)
                pick = None
                if other is None and q.dim != "date":  # a date or time sets others apart, not the reverse
                    pick = by_context(cands, claim_bag, texts, self._ctx_of, self.bags, matches[0])
                if pick is not None and not pick[4] and pick[3].unit == q.unit:  # named before, said alike
                    status, pi, pr = self._unsure(q, "contradicted", claim, off, pick[3]), pick[2], pick[3]
                    other = FactCheck(q.text, q.start, q.end, kind, status, self.span_of(pi, pr), self.sentences[pi])
                if other is not None:
                    out.append(other)
                    continue
                if (m_local >= best_local and close) or (
                    not (about_same and best_local >= m_local + 0.5) and m_score >= 0.75 * best_score
                ):
                    out.append(
                        FactCheck(q.text, q.start, q.end, kind, "supported", self.span_of(mi, mr), self.sentences[mi])
                    )
                    continue
                if not about_same:
                    # the reference states this value, and another value is only a little closer to the claim's
                    # words: not sure which one the claim is about, so no verdict here
                    out.append(
                        FactCheck(q.text, q.start, q.end, kind, "abstained", self.span_of(mi, mr), self.sentences[mi])
                    )
                    continue
            elif q.dim is None and not about_same and q.low in self.raw_numbers and q.high in self.raw_numbers:
                out.append(FactCheck(q.text, q.start, q.end, kind, "supported"))  # a bare number: no context to judge
                continue
            elif (
                (q.dim or "").startswith("count:")
                and re.search(r"\b[A-Z]\w*$", q.text)
                and q.low in self.bare_values
                and q.high in self.bare_values
            ):
                # a count of a capitalised word is loose ("17 Americans" for "17 patients", "two FBI agents"
                # for "two agents"): when the reference gives its number as a count of something else, it
                # is not judged here
                out.append(FactCheck(q.text, q.start, q.end, kind, "supported"))
                continue
            bare_sure = (
                q.dim is None
                and br.dim is None
                and best_local >= BARE_LOCAL
                and (not matches or best_local >= matches[0][1] + BARE_LOCAL / 2)
            )
            if bare_sure or (about_same and q.dim is not None and (best_local >= 1 or not matches)):
                status = "contradicted" if bare_sure else self._unsure(q, "contradicted", claim, off, br)
                if status == "contradicted" and not aligned(cands, claim_bag, self.bags):
                    # no one reference figure is about what the claim's is (another of another value fits
                    # nearly as well: another row, group or year): not compared
                    status = "abstained"
            elif matches:
                status = "abstained"  # the reference states this value: it is not missing, nor surely wrong
            else:
                status = self._unsure(q, "missing", claim, off)  # missing only if stated nowhere
            out.append(FactCheck(q.text, q.start, q.end, kind, status, self.span_of(bi, br), self.sentences[bi]))
            if matches and matches[0][1] > 0:
                fallback[len(out) - 1] = FactCheck(
                    q.text, q.start, q.end, kind, "supported", self.span_of(matches[0][2], matches[0][3]),
                    self.sentences[matches[0][2]],
                )  # fmt: skip
        return self._together(claim, claim_qs, claim_clauses, out, fallback, off, question, lang)

    def _together(
        self,
        claim: str,
        claim_qs: Sequence[Quantity],
        claim_clauses: Clauses,
        out: list[FactCheck],
        fallback: dict[int, FactCheck],
        off: frozenset[str],
        question: str | None,
        lang: str | None,
    ) -> list[FactCheck]:
        """The rules of the ``figures`` stage (the claim's figures together), in the table's order."""
        passes = {
            "question": lambda checks: given_by_question(self, claim, claim_qs, checks, question, lang),
            "computation": lambda checks: by_computation(self, claim, claim_qs, checks, lang),
            "one_value_one_claim": lambda checks: one_value_one_claim(checks, fallback),
            "anchor": lambda checks: anchor(self, claim_qs, checks),
            "swapped": lambda checks: swapped(self, claim_clauses, claim_qs, checks),
            "superseded": lambda checks: superseded(self, claim, claim_qs, checks),
            "bounds": lambda checks: opposite_bounds(self, claim_qs, checks),
        }
        for rule in RULES:
            if rule.stage == "figures" and rule.name not in off:
                out = passes[rule.name](out)
        return out

    def _of_another_referent(
        self,
        q: Quantity,
        kind: str,
        claim: str,
        off: frozenset[str],
        match: Cand,
        cands: Sequence[Cand],
        claim_bag: set[str],
        context: dict[str, float],
    ) -> FactCheck | None:
        """The reference states the claim's value of another thing: a figure of another value whose
        sentence names all the claim's words that the value's own does and more contradicts it
        ("Children can take 8 tablets" where 8 is the adults' limit and the children's sentence says 4),
        and so does one beside it whose own words the claim names (:func:`.align.named_for_another`);
        else None."""

        ctx_of = self._ctx_of
        other, sure = better_referent(match, cands, claim_bag, self.bags), True
        if other is None and q.dim != "date":  # a year is what sets other figures apart, not what is set apart
            said = Counter(stem(w) for w in content_tokens(self.sentences[match[2]].text))
            # said once in the whole reference: a verb or subject said again elsewhere sets nothing apart
            once = {w for w, n in said.items() if n == 1 and len(self._index.postings.get(w, ())) == 1}
            other, sure = named_for_another(match, cands, context, ctx_of, once) or (None, False)
        if other is None:
            return None
        oi, orr = other[2], other[3]
        # named for both (a day of the other figure, a verb of this one's): a tie, no verdict here
        status = self._unsure(q, "contradicted", claim, off, orr) if sure else "abstained"
        return FactCheck(q.text, q.start, q.end, kind, status, self.span_of(oi, orr), self.sentences[oi])

    def _ctx_of(self, c: Cand) -> dict[str, float]:
        """What candidate ``c``'s reference figure is about (:meth:`ref_context`)."""
        at = [n for n, r in enumerate(self.quantities[c[2]]) if (r.start, r.end) == (c[3].start, c[3].end)]
        return self.ref_context(c[2], at[0]) if at else {}

    def _unsure(
        self, q: Quantity, status: str, claim: str, off: frozenset[str], counterpart: Quantity | None = None
    ) -> str:
        """``status``, or ``"abstained"`` where the ``doubt`` rule (and within it ``arithmetic``) is unsure."""
        if "doubt" in off:
            return status
        return self._doubt.unsure_or(q, status, claim, counterpart, arithmetic="arithmetic" not in off)

    @cached_property
    def _doubt(self) -> FigureDoubt:
        idx = self._index
        return FigureDoubt(self.quantities, self.raw_numbers, self.reference, near=idx.near, related=idx.related_to)

    def entities(self, i: int, model: str, labels: frozenset[str]) -> list[tuple[str, Span]]:
        """Named entities of reference sentence ``i`` as (label, span in the reference), computed once."""
        return entities(self, i, model, labels)

    def check_name(
        self, claim: str, start: int, end: int, label: str, model: str, labels: frozenset[str]
    ) -> tuple[Span, Span] | None:
        """:func:`.names.check_name` against this reference."""
        return check_name(self, claim, start, end, label, model, labels)

    def span_of(self, i: int, r: Quantity) -> Span:
        """Value ``r`` of sentence ``i`` as a span of the reference."""
        s = self.sentences[i]
        return Span(s.start + r.start, s.start + r.end, r.text)


def _both_ends_in(q: Quantity, qs: Sequence[Quantity]) -> bool:
    """Both ends of the range ``q`` stated as single values of its kind in one sentence."""
    singles = [r for r in qs if r.dim == q.dim and not r.is_range]
    return any(abs(r.low - q.low) <= 1e-9 * max(1.0, abs(q.low)) for r in singles) and any(
        abs(r.low - q.high) <= 1e-9 * max(1.0, abs(q.high)) for r in singles
    )


def _comparable_dates(a: Quantity, b: Quantity) -> bool:
    """Two dates that give at least one part both give ("2007" and "April 1" say nothing of each other)."""
    return any(x is not None and y is not None for x, y in zip(a.date or (), b.date or ()))


def _overlap(sp: Span, spans: Sequence[Span]) -> bool:
    return any(sp.start < o.end and o.start < sp.end for o in spans)


def _kind(q: Quantity) -> str:
    if q.dim is None or q.dim.startswith("count:"):
        return "number"
    if q.dim.startswith("money:"):
        return "money"
    return {"percent": "percent", "date": "date", "time": "duration"}.get(q.dim, "quantity")


__all__ = ["FactCheck", "ReferenceFacts", "closest_sentence", "stems"]  # stems: from .clauses
