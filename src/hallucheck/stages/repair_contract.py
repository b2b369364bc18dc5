"""The repair contract every mitigator's revision goes through (:meth:`Pipeline.mitigate`).

:func:`repair_answer` repairs in two rounds, each checked the same way:

1. **figures, no LLM**: :class:`~hallucheck.stages.figure_repair.FigureRepairMitigator` replaces
   each contradicted figure with the reference's value (a span, not the sentence);
2. **the method's mitigator** (an LLM's rewrite) on what the re-check still flags, when the method
   has one besides the figure repair.

A round's edits are cut down to the words they change (a word-level diff of each edit against
what it replaces), then grouped by the flagged sentence they fall in. A change is kept only when

- it touches no sentence the detection did not flag (grounded sentences never change);
- the revised sentence is the answer's own text (:func:`.repair_checks.revision_problem`: no
  meta-text, no quotes around it, no explanation, the answer's language, no new figure the
  reference lacks);
- re-checked by the same detector, its sentence is better: fewer unsupported claims there (as many
  with fewer wrong facts is not better: a figure check agrees with the value it proposed itself, and a
  sentence the detector still flags may now be wrong in another way, "directed Beowulf" made
  "directed Robert Zemeckis"); nothing there the detector could not judge;
- and the re-check flags no sentence that was grounded before.

Otherwise the original sentence stays (flagged) and a note starting ``"refused:"`` says why. A
refused change is taken out and the rest re-checked again, a bounded number of times.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from ..base import Mitigator
from ..text.edits import apply_edits
from ..text.lang import UNDETERMINED, detect_language
from ..text.segment import Span, split_sentences
from ..types import Detection, Edit, Mitigation, Verdict
from .figure_repair import NEEDS_LLM, FigureRepairMitigator
from .prepared import prepare
from .repair_checks import revision_problem

MAX_RECHECKS = 3  # re-checks of one round before every change of the round is refused
_OFFSETS = re.compile(r"answer\[(\d+):(\d+)\]")
_TOKENS = re.compile(r"\d+(?:[.,]\d+)*|\w+|[^\w\s]|\s+")  # a number with its separators is one token

Recheck = Callable[[str], "Detection | None"]  # None: the revision has no text left to check


@dataclass
class _Unit:
    """The changes inside one run of flagged sentences, judged together."""

    sentences: set[int]
    edits: list[Edit] = field(default_factory=list)
    start: int = 0
    end: int = 0

    def revised(self, text: str) -> str:
        return apply_edits(
            text[self.start : self.end],
            [replace(e, start=e.start - self.start, end=e.end - self.start) for e in self.edits],
        )


def narrow(text: str, edits: Sequence[Edit]) -> list[Edit]:
    """Each edit cut down to the words it changes (one edit per changed run of words)."""
    out: list[Edit] = []
    for e in edits:
        if e.source is not None:  # a span edit already
            out.append(e)
            continue
        a = _TOKENS.findall(text[e.start : e.end])
        b = _TOKENS.findall(e.replacement)
        pos_a = [0]
        for tok in a:
            pos_a.append(pos_a[-1] + len(tok))
        hunks: list[list[int]] = []
        for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
            if op == "equal":
                continue
            # changes apart only by spaces or punctuation are one change ("to 5 Nm" -> "by hand")
            if hunks and not any(re.search(r"\w", t) for t in a[hunks[-1][1] : i1]):
                hunks[-1][1], hunks[-1][3] = i2, j2
            else:
                hunks.append([i1, i2, j1, j2])
        for i1, i2, j1, j2 in hunks:
            out.append(Edit(e.start + pos_a[i1], e.start + pos_a[i2], "".join(b[j1:j2]), e.reason))
    return out


def _touches(e: Edit, s: Span) -> bool:
    if e.start == e.end:
        return s.start <= e.start <= s.end
    return e.start < s.end and s.start < e.end


def _flagged_in(det: Detection, start: int, end: int) -> list[Verdict]:
    return [v for v in det.verdicts if _claim_in(v, start, end) and v.hallucinated]


def _claim_in(v: Verdict, start: int, end: int) -> bool:
    c = v.claim
    if c.start == c.end:
        return start <= c.start < end
    return c.start < end and start < c.end


def _wrong_facts(verdicts: Sequence[Verdict]) -> int:
    return sum(len(v.meta.get("fact_spans") or ()) for v in verdicts if v.hallucinated)


def _shift(edits: Sequence[Edit], pos: int, *, end: bool = False) -> int:
    """Where ``pos`` of the text lands once ``edits`` are applied (``end``: ``pos`` ends a range,
    so an insertion at ``pos`` falls before it; else after it)."""
    delta = 0
    for e in edits:
        if e.end < pos or (e.end == pos and (end or e.start < e.end)):
            delta += len(e.replacement) - (e.end - e.start)
    return pos + delta


class _Round:
    """One round of the contract: ``det``'s answer, the mitigator's edits, the re-check."""

    def __init__(self, det: Detection, recheck: Recheck) -> None:
        self.det = det
        self.text = det.answer
        self.recheck = recheck
        self.sentences = split_sentences(self.text)
        self.flagged = {i for i, s in enumerate(self.sentences) if _flagged_in(det, s.start, s.end)}
        self.notes: list[str] = []
        lang = detect_language(self.text)
        self.answer_lang = lang
        self.lang = None if lang == UNDETERMINED else lang
        prepared = prepare(det.reference)  # parsed once, shared with the detections (.prepared)
        # figures only (.repair_checks): the detection's parsed reference serves
        self.facts = prepared.facts(None if prepared.lang == UNDETERMINED else prepared.lang, names=False)

    def refuse(self, start: int, end: int, why: str) -> None:
        self.notes.append(f"refused: answer[{start}:{end}] {self.text[start:end].strip()!r} stays: {why}")

    def units(self, edits: Sequence[Edit]) -> list[_Unit]:
        units: list[_Unit] = []
        for e in narrow(self.text, edits):
            touched = {i for i, s in enumerate(self.sentences) if _touches(e, s)}
            if not touched:  # whitespace between sentences: the sentence before it
                before = [i for i, s in enumerate(self.sentences) if s.end <= e.start]
                touched = {before[-1]} if before else {0}
            grounded = sorted(touched - self.flagged)
            if grounded:
                s = self.sentences[grounded[0]]
                self.refuse(s.start, s.end, f"the repair would change this sentence, which is grounded ({e.reason})")
                continue
            merged = [u for u in units if u.sentences & touched]
            unit = _Unit(touched.union(*(u.sentences for u in merged)), [x for u in merged for x in u.edits] + [e])
            units = [u for u in units if u not in merged] + [unit]
        for u in units:
            spans = [self.sentences[i] for i in u.sentences]
            u.start = min([s.start for s in spans] + [e.start for e in u.edits])
            u.end = max([s.end for s in spans] + [e.end for e in u.edits])
            u.edits.sort(key=lambda e: (e.start, e.end))
        return sorted(units, key=lambda u: u.start)

    def screen(self, units: list[_Unit]) -> list[_Unit]:
        """The units whose revised text is the answer's own (see :mod:`.repair_checks`)."""
        kept = []
        for u in units:
            original = self.text[u.start : u.end]
            why = revision_problem(
                original, u.revised(self.text), facts=self.facts, answer_lang=self.answer_lang, lang=self.lang
            )
            if why:
                self.refuse(u.start, u.end, f"the revision {u.revised(self.text).strip()!r} is refused: {why}")
            else:
                kept.append(u)
        return kept

    def judge(self, units: list[_Unit], after: Detection) -> list[_Unit]:
        """The units the re-check ``after`` found worse or no better (refused here)."""
        edits = [e for u in units for e in u.edits]
        worse = []
        for u in units:
            a, b = _shift(edits, u.start), _shift(edits, u.end, end=True)
            was = _flagged_in(self.det, u.start, u.end)
            now = _flagged_in(after, a, b)
            unjudged = [v for v in after.verdicts if _claim_in(v, a, b) and v.hallucinated is None]
            if unjudged:
                why = "the re-check could not judge the revision"
            elif len(now) >= len(was):
                why = (
                    f"re-checked, it is no better ({len(was)} unsupported claim(s) and {_wrong_facts(was)} wrong "
                    f"fact(s) before, {len(now)} and {_wrong_facts(now)} after)"
                )
            else:
                continue
            self.refuse(u.start, u.end, f"{why}; the revision was {u.revised(self.text).strip()!r}")
            worse.append(u)
        if not worse:
            for i, s in enumerate(self.sentences):
                if i in self.flagged:
                    continue
                a, b = _shift(edits, s.start), _shift(edits, s.end, end=True)
                if _flagged_in(after, a, b):
                    for u in units:
                        self.refuse(
                            u.start,
                            u.end,
                            f"after the revision the re-check flags the grounded sentence {s.text!r}",
                        )
                    return list(units)
        return worse

    def run(self, result: Mitigation) -> tuple[list[Edit], Detection]:
        """The edits kept (offsets into ``det.answer``) and the detection of the revision."""
        units = self.screen(self.units(result.edits))
        for _ in range(MAX_RECHECKS):
            if not units:
                break
            after = self.recheck(apply_edits(self.text, [e for u in units for e in u.edits]))
            if after is None:
                for u in units:
                    self.refuse(u.start, u.end, "the repair would leave no answer")
                return [], self.det
            worse = self.judge(units, after)
            if not worse:
                return _with_gaps(self.text, [e for u in units for e in u.edits]), after
            units = [u for u in units if u not in worse]
        else:
            for u in units:
                self.refuse(u.start, u.end, "the re-checks did not settle")
        return [], self.det


def _with_gaps(text: str, edits: Sequence[Edit]) -> list[Edit]:
    """Each removal of text also takes the whitespace after it (or, at the end, before it), where no
    other edit is, so that no double or trailing space is left."""
    out = sorted(edits, key=lambda e: (e.start, e.end))
    for k, e in enumerate(out):
        gone = text[e.start : e.end]
        if e.replacement.strip() or not gone.strip() or gone[0].isspace() or gone[-1].isspace():
            continue  # not a removal, or one that already takes its whitespace
        lo = out[k - 1].end if k else 0
        hi = out[k + 1].start if k + 1 < len(out) else len(text)
        after = len(text[e.end : hi]) - len(text[e.end : hi].lstrip())
        before = len(text[lo : e.start]) - len(text[lo : e.start].rstrip())
        if after and text[e.end + after :].strip():
            out[k] = replace(e, end=e.end + after)
        elif before:
            out[k] = replace(e, start=e.start - before)
    return out


def compose(text: str, first: Sequence[Edit], second: Sequence[Edit]) -> list[Edit]:
    """Edits of ``text`` doing ``first`` then ``second`` (whose offsets index the text after
    ``first``); an edit of the second round that meets one of the first becomes one edit."""
    first = sorted(first, key=lambda e: e.start)
    middle = apply_edits(text, first)
    # where each first-round edit lies in the middle text
    placed = [(e, _shift(first, e.start), _shift(first, e.start) + len(e.replacement)) for e in first]
    out: list[Edit] = []
    used: set[int] = set()
    for e in sorted(second, key=lambda e: e.start):
        start, end = e.start, e.end
        met = [k for k, (_, a, b) in enumerate(placed) if a < end and start < b or a == start == b]
        if met:
            start = min([start] + [placed[k][1] for k in met])
            end = max([end] + [placed[k][2] for k in met])
        piece = middle[start : e.start] + e.replacement + middle[e.end : end]
        ostart = _unshift(first, start)
        oend = _unshift(first, end, end=True)
        if met:
            ostart = min([ostart] + [placed[k][0].start for k in met])
            oend = max([oend] + [placed[k][0].end for k in met])
        used.update(met)
        out.append(Edit(ostart, oend, piece, e.reason))
    out.extend(e for k, (e, _, _) in enumerate(placed) if k not in used)
    return sorted(out, key=lambda e: (e.start, e.end))


def _unshift(first: Sequence[Edit], pos: int, *, end: bool = False) -> int:
    """The position of the original text that lands at ``pos`` of the text after ``first`` (``pos``
    outside any first-round replacement)."""
    delta = 0
    for e in first:
        if _shift(first, e.start) + len(e.replacement) <= pos:
            delta += len(e.replacement) - (e.end - e.start)
    return pos - delta


def _in_original(note: str, first: Sequence[Edit]) -> str:
    """A second-round note with its ``answer[a:b]`` offsets moved onto the original answer."""
    if not first:
        return note
    return _OFFSETS.sub(
        lambda m: f"answer[{_unshift(first, int(m.group(1)))}:{_unshift(first, int(m.group(2)), end=True)}]", note
    )


def repair_answer(before: Detection, mitigator: Mitigator, recheck: Recheck) -> Mitigation:
    """Repair ``before``'s flagged sentences under the contract (see the module doc)."""
    figures = mitigator if isinstance(mitigator, FigureRepairMitigator) else FigureRepairMitigator()
    first = figures.mitigate(before)
    round1 = _Round(before, recheck)
    edits1, det = round1.run(first)
    notes = [n for n in first.notes if mitigator is figures or NEEDS_LLM not in n] + round1.notes
    if mitigator is figures or not det.flagged:
        return Mitigation(
            before.answer,
            apply_edits(before.answer, edits1),
            tuple(edits1),
            before,
            det,
            notes=tuple(dict.fromkeys(notes)),
            repair_usage=first.usage,
        )
    second = mitigator.mitigate(det)
    round2 = _Round(det, recheck)
    edits2, after = round2.run(second)
    notes += [_in_original(n, edits1) for n in (*second.notes, *round2.notes)]
    edits = compose(before.answer, edits1, edits2) if edits1 else edits2
    return Mitigation(
        before.answer,
        apply_edits(before.answer, edits),
        tuple(edits),
        before,
        after,
        notes=tuple(dict.fromkeys(notes)),
        repair_usage=first.usage + second.usage,
    )


__all__ = ["MAX_RECHECKS", "compose", "narrow", "repair_answer"]
