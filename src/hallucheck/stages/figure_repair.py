"""Repair without an LLM: a contradicted figure takes the reference's value, in the answer's format.

Where the figure check (:mod:`hallucheck.stages.entity_check`) found a figure of the answer
contradicted by a reference figure about the same thing, its verdict's ``meta["fact_spans"]``
holds both spans. :class:`FigureRepairMitigator` replaces the answer's span with the
reference's value written as the answer writes numbers ("2,6 bar" in a German answer, "2.6 bar"
in an English one), keeping the answer's own unit when the reference gives the value in that unit
too ("38 psi" from "2.6 bar (38 psi)"), and a year the answer gives alone taking the reference's
year alone ("2017" from "2 June 2017"). Each change is one :class:`~hallucheck.types.Edit` of
the span, with ``source`` = the reference offsets it was taken from.

A flagged sentence with no such figure (a missing figure, a wrong name, a claim the reference
does not make) is left as it is and named in the notes: repairing it needs an LLM. So is a
figure whose reference value cannot be written in the answer's language without translating
words (a date or a unit word of another language). A sentence the default's verifier passed alone
although its score was where an LLM judge would have read it (``meta["undecided"]``) is named too:
it needs an LLM to decide. :func:`hallucheck.stages.repair_contract.repair_answer`
re-checks every change and keeps it only when the sentence got better.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from ..base import Mitigator
from ..text.lang import UNDETERMINED, decimal_comma, detect_language
from ..text.numbers import parse_number
from ..text.quantities import Quantity, parse_quantities, same_value
from ..text.segment import split_sentences
from ..types import Detection, Edit, Mitigation, Verdict
from .ce_cascade.decision import UNDECIDED

NEEDS_LLM = "needs an LLM"
# a number written in digits, with its grouping and decimal separators
_DIGITS = re.compile(r"\d+(?:[.,\u00a0\u202f' ]\d+)*")


def _known(lang: str) -> str | None:
    return None if lang == UNDETERMINED else lang


def _same_language(a: str, b: str) -> bool:
    return a == b or UNDETERMINED in (a, b)


def _decimals(surface: str, value: float) -> int:
    """How many decimals ``surface`` writes (0 when every separator groups thousands)."""
    digits = re.sub(r"\D", "", surface)
    if not digits or float(digits) == value:
        return 0
    last = max(surface.rfind(sep) for sep in ".,")
    return len(surface) - last - 1 if last >= 0 else 0


def _answer_style(surface: str, lang: str | None) -> tuple[str, str | None]:
    """The decimal separator and the grouping separator (None: not grouped) the answer writes."""
    comma = decimal_comma(lang or "en")
    m = re.search(r"\d([.,])(\d+)$", surface)
    if m and len(m.group(2)) != 3:
        return m.group(1), None  # "3,0", "2.25": a decimal separator
    group = re.search(r"\d([.,\u00a0\u202f' ])\d{3}(?!\d)", surface)
    if group and (group.group(1) not in ".," or (group.group(1) == ".") == comma):
        return ("," if comma else "."), group.group(1)
    return ("," if comma else "."), None


def write_number(value: float, decimals: int, decimal_sep: str, group_sep: str | None) -> str:
    """``value`` with ``decimals`` decimals, separators as given ("2,6" for 2.6 with ``","``)."""
    text = f"{abs(value):.{max(decimals, 0)}f}"
    whole, _, frac = text.partition(".")
    if group_sep:
        whole = f"{int(whole):,}".replace(",", group_sep)
    return ("-" if value < 0 else "") + whole + (decimal_sep + frac if frac else "")


def _numbers(surface: str, lang: str | None) -> list[tuple[re.Match[str], float]] | None:
    out = []
    for m in _DIGITS.finditer(surface):
        value = parse_number(m.group(), decimal_comma=decimal_comma(lang or "en"))
        if value is None:
            return None
        out.append((m, value))
    return out


def _in_answer_unit(answer_q: Quantity, ref_q: Quantity, ref_sentence: str, ref_lang: str | None) -> str | None:
    """The reference's value in the answer's unit, when the reference sentence also gives it so."""
    for q in parse_quantities(ref_sentence, lang=ref_lang):
        if q.unit == answer_q.unit and q.dim == ref_q.dim and same_value(q, ref_q):
            return q.text
    return None


def rewrite_figure(
    answer_span: str, ref_span: str, ref_sentence: str, *, answer_lang: str, ref_lang: str
) -> tuple[str | None, str]:
    """The reference's figure ``ref_span`` written as the answer writes ``answer_span``, or None
    with the reason it cannot be."""
    al, rl = _known(answer_lang), _known(ref_lang)
    same_lang = _same_language(answer_lang, ref_lang)
    aq = parse_quantities(answer_span, lang=al)
    rq = parse_quantities(ref_span, lang=rl)
    one = len(aq) == 1 and len(rq) == 1
    if one and (aq[0].date is not None or rq[0].date is not None):
        a_date, r_date = aq[0].date, rq[0].date
        # a year alone takes the reference's year alone ("released in 2017", not "in 2 June 2017")
        if a_date and r_date and r_date[0] is not None and a_date[1:] == (None, None) and aq[0].text.isdigit():
            return str(r_date[0]), ""
        if same_lang:
            return ref_span, ""
        return None, "a date of the reference cannot be written in the answer's language without an LLM"
    if one and aq[0].unit != rq[0].unit:
        other = _in_answer_unit(aq[0], rq[0], ref_sentence, rl)
        if other is not None:
            ref_span, rq = other, parse_quantities(other, lang=rl)
    a_nums, r_nums = _numbers(answer_span, al), _numbers(ref_span, rl)
    if a_nums and r_nums and len(a_nums) == len(r_nums):
        dec_sep, group_sep = _answer_style(a_nums[0][0].group(), al)
        # the answer's own words around the reference's numbers, kept when they read back as the
        # reference's value ("2,6 bar", "100%" for "100 per cent", "2 Stunden" for "2 hours")
        mine = _fill(answer_span, a_nums, r_nums, dec_sep, group_sep)
        back = parse_quantities(mine, lang=al)
        if len(rq) == 1 and len(back) == 1 and back[0].dim == rq[0].dim and same_value(back[0], rq[0]):
            return mine, ""
        if same_lang:  # the reference's words, the answer's way of writing numbers
            return _fill(ref_span, r_nums, r_nums, dec_sep, group_sep), ""
        return None, "the reference writes the figure with words of another language"
    if same_lang:
        return ref_span, ""
    return None, "the reference writes the value in a form the answer's language does not share"


def _fill(
    template: str,
    slots: Sequence[tuple[re.Match[str], float]],
    values: Sequence[tuple[re.Match[str], float]],
    dec_sep: str,
    group_sep: str | None,
) -> str:
    """``template`` with the number at each slot replaced by the matching value, written with the
    given separators and as many decimals as the value's own text has."""
    out, pos = [], 0
    for (m, _), (vm, value) in zip(slots, values):
        out.append(template[pos : m.start()])
        out.append(write_number(value, _decimals(vm.group(), value), dec_sep, group_sep))
        pos = m.end()
    out.append(template[pos:])
    return "".join(out)


def _sentence_of(reference: str, start: int, end: int) -> tuple[int, int]:
    from .prepared import prepare

    for s in prepare(reference).sentences:  # split once per reference
        if s.start <= start and end <= s.end:
            return s.start, s.end
    return 0, len(reference)


class FigureRepairMitigator(Mitigator):
    """Replace each contradicted figure with the reference's value in the answer's format (no LLM)."""

    def __init__(self) -> None:
        pass

    @staticmethod
    def figure_edits(detection: Detection) -> tuple[list[Edit], list[str]]:
        """The span edits for the contradicted figures of the flagged verdicts, and why any
        contradicted figure could not be rewritten."""
        answer, reference = detection.answer, detection.reference
        answer_lang, ref_lang = detect_language(answer), detect_language(reference)
        edits: dict[tuple[int, int], Edit] = {}
        notes: list[str] = []
        for v in detection.verdicts:
            if not v.hallucinated:
                continue
            for f in _contradicted(v):
                start, end, ref = int(f["start"]), int(f["end"]), f["reference"]
                rs, re_ = int(ref["start"]), int(ref["end"])
                if (start, end) in edits or answer[start:end] != f.get("text", answer[start:end]):
                    continue
                sent = _sentence_of(reference, rs, re_)
                new, why = rewrite_figure(
                    answer[start:end],
                    reference[rs:re_],
                    reference[sent[0] : sent[1]],
                    answer_lang=answer_lang,
                    ref_lang=ref_lang,
                )
                if new is None:
                    notes.append(f"answer[{start}:{end}] {answer[start:end]!r} not repaired: {why}")
                elif new != answer[start:end]:
                    edits[(start, end)] = Edit(
                        start,
                        end,
                        new,
                        f"the reference says {reference[rs:re_]!r} (reference[{rs}:{re_}])",
                        source=(rs, re_),
                    )
        kept: list[Edit] = []
        for e in sorted(edits.values(), key=lambda e: (e.start, e.end)):
            if not kept or e.start >= kept[-1].end:
                kept.append(e)
        return kept, notes

    def mitigate(self, detection: Detection) -> Mitigation:
        from ..text.edits import apply_edits

        answer = detection.answer
        edits, notes = self.figure_edits(detection)
        for s in split_sentences(answer):
            flagged = [v for v in detection.verdicts if v.hallucinated and _overlaps(v, s.start, s.end)]
            if flagged and not any(s.start <= e.start and e.end <= s.end for e in edits):
                why = "; ".join(dict.fromkeys(v.reason for v in flagged if v.reason)) or "flagged"
                notes.append(f"answer[{s.start}:{s.end}] {NEEDS_LLM}: {s.text!r}: {why}")
            elif not flagged and any(_undecided(v) and _overlaps(v, s.start, s.end) for v in detection.verdicts):
                notes.append(
                    f"answer[{s.start}:{s.end}] {NEEDS_LLM} to decide: {s.text!r}: the verifier is unsure of it "
                    "(its score is in the band where an LLM judge reads the sentence) and left it as it is"
                )
        return Mitigation(answer, apply_edits(answer, edits), tuple(edits), detection, None, notes=tuple(notes))


def _overlaps(v: Verdict, start: int, end: int) -> bool:
    c = v.claim
    return c.start < end and start < c.end or (c.start == c.end and start <= c.start < end)


def _undecided(v: Verdict) -> bool:
    return isinstance(v.meta, Mapping) and v.meta.get(UNDECIDED) is True


def _contradicted(v: Verdict) -> Sequence[dict[str, Any]]:
    spans = v.meta.get("fact_spans") if isinstance(v.meta, Mapping) else None
    out = []
    for f in spans or ():
        ref = f.get("reference") if isinstance(f, dict) else None
        if f.get("status") == "contradicted" and isinstance(ref, dict) and "start" in f and "start" in ref:
            out.append(f)
    return out


__all__ = ["NEEDS_LLM", "FigureRepairMitigator", "rewrite_figure", "write_number"]
