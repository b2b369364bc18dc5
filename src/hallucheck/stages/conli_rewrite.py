"""CoNLI mitigation agent (Lei et al. 2023, paper 001, §3.2, Appendix E).

The detection reasons become rewrite instructions, one block per flagged sentence::

    Rewrite instruction 1:
    Rewrite sentence in the CLAIM: <the sentence>
    Reason for rewriting the sentence: <the detection reason(s)>

and the LLM rewrites the whole answer with the Appendix E prompt: flagged sentences are
corrected, or removed when the reference does not give enough to correct them; the rest is to
stay unchanged.

Verification (ours; the paper trusts the rewrite). The LLM's answer is split into sentences
and aligned back to the original sentences (dynamic programming on fuzzy similarity, a match
needs similarity > 0.5). Then:

- an unflagged sentence is kept verbatim, always: if the LLM changed or dropped it, the
  original is restored (reported in :attr:`RewriteResult.restored`);
- a flagged sentence is replaced by the sentence(s) the LLM wrote for it (its match plus any
  new sentences next to it), or removed if the LLM wrote nothing for it;
- a flagged sentence the LLM left exactly as it was is removed (``unchanged="remove"``, the
  default: the detector found it unsupported and the rewrite did not fix it) or kept
  (``unchanged="keep"``); reported in :attr:`RewriteResult.unchanged_flagged`;
- new sentences the LLM added next to unflagged text only are not applied (reported in
  :attr:`RewriteResult.dropped`).

So the revision differs from the original only inside flagged sentences, and every change is
an :class:`~hallucheck.types.Edit` with the detection reason. Through
:meth:`~hallucheck.pipeline.Pipeline.mitigate` each change then goes through the repair contract
(:mod:`hallucheck.stages.repair_contract`: no meta-text, the answer's language, no new figure the
reference lacks, better on re-check). A removal also takes the
whitespace that separated the sentence from its neighbour. Nothing flagged: no LLM call, the
answer is returned unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from rapidfuzz import fuzz

from ..base import Interval, Mitigator, OneOf, require_llm
from ..errors import ParseError
from ..llm.base import LLMClient, Message, usage_scope
from ..prompts import load_prompt
from ..text import split_sentences
from ..text.edits import apply_edits
from ..text.segment import Span
from ..types import Detection, Edit, Mitigation, Usage, Verdict

UNCHANGED = ("remove", "keep")
_PREFIX = re.compile(r"^\s*(?:\*\*)?(?:answer|corrected (?:whole )?claim|claim)(?:\*\*)?\s*:\s*", re.IGNORECASE)
_SUFFIX = re.compile(r"\s*(?:end (?:whole )?claim\.?|<\|im_end\|>)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class RewriteResult:
    """What the mitigation agent did, in more detail than :class:`Mitigation` carries."""

    original: str
    revised: str
    edits: tuple[Edit, ...]
    raw: str | None  # the LLM reply (None if nothing was flagged)
    rewritten: str  # the LLM's answer after clean-up, before verification
    restored: tuple[str, ...] = ()  # unflagged sentences the LLM changed or dropped, restored verbatim
    dropped: tuple[str, ...] = ()  # LLM sentences next to unflagged text only, not applied
    unchanged_flagged: tuple[str, ...] = ()  # flagged sentences the LLM left as they were
    usage: Usage = Usage()


def clean_reply(reply: str) -> str:
    """The corrected claim from a reply: without "Answer:", "Corrected WHOLE CLAIM:", "End CLAIM."."""
    text = reply.strip()
    for _ in range(3):
        m = _PREFIX.match(text)
        if not m:
            break
        text = text[m.end() :]
    if "Corrected WHOLE CLAIM:" in text:
        text = text.split("Corrected WHOLE CLAIM:", 1)[1]
    text = _SUFFIX.sub("", text).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        text = text[1:-1].strip()
    return text


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _sim(a: str, b: str) -> float:
    return fuzz.ratio(_norm(a), _norm(b)) / 100.0


def align_sentences(original: Sequence[str], rewritten: Sequence[str]) -> list[tuple[str, int | None, int | None]]:
    """Monotone alignment maximising the sum of (similarity - 0.5) over matched pairs.

    Returns ops in order: ("match", i, j), ("del", i, None), ("ins", None, j)."""
    n, m = len(original), len(rewritten)
    sim = [[_sim(a, b) for b in rewritten] for a in original]
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            options = [best[i + 1][j], best[i][j + 1]]
            if sim[i][j] > 0.5:
                options.append(best[i + 1][j + 1] + sim[i][j] - 0.5)
            best[i][j] = max(options)
    ops: list[tuple[str, int | None, int | None]] = []
    i = j = 0
    while i < n or j < m:
        if i < n and j < m and sim[i][j] > 0.5 and best[i][j] == best[i + 1][j + 1] + sim[i][j] - 0.5:
            ops.append(("match", i, j))
            i, j = i + 1, j + 1
        elif i < n and (j == m or best[i][j] == best[i + 1][j]):
            ops.append(("del", i, None))
            i += 1
        else:
            ops.append(("ins", None, j))
            j += 1
    return ops


class ConliRewriteMitigator(Mitigator):
    """The CoNLI mitigation agent with verified, sentence-local edits (see module doc)."""

    parameter_constraints = {"unchanged": OneOf(*UNCHANGED), "max_tokens": Interval(int, 16)}

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        prompt: str = "conli_mitigate.v1",
        unchanged: str = "remove",
        max_tokens: int = 4096,
    ) -> None:
        self.llm = llm
        self.prompt = prompt
        self.unchanged = unchanged
        self.max_tokens = max_tokens
        load_prompt(prompt)

    # -- instructions -----------------------------------------------------------------------
    @staticmethod
    def flagged_sentences(answer: str, verdicts: Sequence[Verdict]) -> tuple[list[Span], dict[int, list[str]]]:
        """The answer's sentences and, for each flagged one, the reasons of the verdicts on it."""
        sents = split_sentences(answer)
        reasons: dict[int, list[str]] = {}
        for v in verdicts:
            if not v.hallucinated:
                continue
            for i, s in enumerate(sents):
                if s.start < v.claim.end and v.claim.start < s.end:
                    reasons.setdefault(i, [])
                    if v.reason and v.reason not in reasons[i]:
                        reasons[i].append(v.reason)
        return sents, reasons

    @staticmethod
    def instructions(sents: Sequence[Span], reasons: dict[int, list[str]]) -> str:
        blocks = []
        for k, i in enumerate(sorted(reasons), 1):
            why = " ".join(reasons[i]) or "It is not supported by the DOCUMENT."
            blocks.append(
                f"Rewrite instruction {k}:\nRewrite sentence in the CLAIM: {sents[i].text}\n"
                f"Reason for rewriting the sentence: {why}"
            )
        return "\n\n".join(blocks)

    # -- the agent --------------------------------------------------------------------------
    def rewrite(self, detection: Detection) -> RewriteResult:
        """Rewrite the flagged sentences of ``detection.answer``; see the module doc."""
        original = detection.answer
        sents, reasons = self.flagged_sentences(original, detection.verdicts)
        if not reasons:
            return RewriteResult(original, original, (), None, original)
        require_llm(self.llm, "The CoNLI mitigator")
        msgs = load_prompt(self.prompt).render(
            document=detection.reference, claim=original, instructions=self.instructions(sents, reasons)
        )
        budget = min(self.max_tokens, 64 + 2 * self.llm.count_tokens(original))
        raws: list[str] = []
        with usage_scope() as tally:
            for attempt in range(2):
                if attempt:  # the first reply was empty: ask once more, saying what is missing
                    msgs = msgs + (
                        Message("assistant", raws[-1]),
                        Message("user", 'Write the corrected WHOLE CLAIM now. Begin your answer with "Answer:\\n"'),
                    )
                reply = self.llm.complete(
                    msgs, prompt=self.prompt if attempt == 0 else f"{self.prompt}+retry", max_tokens=budget
                ).text
                raws.append(reply)
                text = clean_reply(reply)
                # an empty answer is a valid rewrite only when every sentence was to be fixed
                if text or (reply.strip() and len(reasons) == len(sents)):
                    break
            else:
                raise ParseError(
                    "The CoNLI mitigator got an empty rewrite from the LLM, even when asked again.",
                    raw="\n---\n".join(raws),
                )
        return self._apply(original, sents, reasons, text, raws[-1], tally.usage)

    def _apply(
        self, original: str, sents: list[Span], reasons: dict[int, list[str]], text: str, raw: str, usage: Usage
    ) -> RewriteResult:
        new = [s.text for s in split_sentences(text)] if text else []
        ops = align_sentences([s.text for s in sents], new)
        replacement: dict[int, list[str]] = {i: [] for i in reasons}
        restored: list[str] = []
        dropped: list[str] = []
        for k, (op, i, j) in enumerate(ops):
            if op == "match":
                if i in reasons:
                    replacement[i].append(new[j])  # type: ignore[index]
                elif new[j] != sents[i].text:  # type: ignore[index]
                    restored.append(sents[i].text)  # type: ignore[index]
            elif op == "del":
                if i not in reasons:
                    restored.append(sents[i].text)  # type: ignore[index]
            else:  # an inserted sentence belongs to the flagged sentence next to it, if any,
                # unless it is closer to an unflagged sentence the LLM paraphrased (restored above)
                owner = self._neighbour(ops, k, reasons)
                lost = [sents[x].text for op2, x, _ in ops if op2 == "del" and x not in reasons]  # type: ignore[index]
                if owner is not None and lost and max(_sim(new[j], t) for t in lost) > _sim(new[j], sents[owner].text):  # type: ignore[index]
                    owner = None
                if owner is None:
                    dropped.append(new[j])  # type: ignore[index]
                else:
                    replacement[owner].append(new[j])  # type: ignore[index]
        edits: list[Edit] = []
        removed: dict[int, str] = {}
        unchanged: list[str] = []
        for i in sorted(reasons):
            why = " ".join(reasons[i])
            parts = replacement[i]
            if parts and " ".join(parts) == sents[i].text:
                unchanged.append(sents[i].text)
                if self.unchanged == "keep":
                    continue
                parts = []
                why = f"the rewrite left it unchanged. {why}"
            if parts:
                edits.append(Edit(sents[i].start, sents[i].end, " ".join(parts), why))
            else:
                removed[i] = f"Removed: {why}"
        edits.extend(_removals(original, sents, removed))
        edits.sort(key=lambda e: e.start)
        revised = apply_edits(original, edits)
        return RewriteResult(
            original, revised, tuple(edits), raw, text, tuple(restored), tuple(dropped), tuple(unchanged), usage
        )

    @staticmethod
    def _neighbour(ops: list[tuple[str, int | None, int | None]], k: int, reasons: dict[int, list[str]]) -> int | None:
        before = next((ops[x][1] for x in range(k - 1, -1, -1) if ops[x][1] is not None), None)
        after = next((ops[x][1] for x in range(k + 1, len(ops)) if ops[x][1] is not None), None)
        for cand in (before, after):
            if cand is not None and cand in reasons:
                return cand
        return None

    def mitigate(self, detection: Detection) -> Mitigation:
        r = self.rewrite(detection)
        # nothing flagged: the answer is unchanged and its detection is also the re-check
        return Mitigation(r.original, r.revised, r.edits, detection, detection if r.raw is None else None, r.usage)


def _removals(original: str, sents: list[Span], removed: dict[int, str]) -> list[Edit]:
    """One deletion per run of consecutive removed sentences, with the whitespace that
    separated the run from the text after it (or, at the end of the answer, before it)."""
    edits = []
    run: list[int] = []
    for i in sorted(removed) + [None]:  # type: ignore[list-item]
        if run and (i is None or i != run[-1] + 1):
            a, b = run[0], run[-1]
            if b + 1 < len(sents):
                gap = original[sents[b].end : sents[b + 1].start]
                start, end = sents[a].start, sents[b].end + len(gap) - len(gap.lstrip())
            elif a > 0:
                gap = original[sents[a - 1].end : sents[a].start]
                start, end = sents[a].start - (len(gap) - len(gap.rstrip())), sents[b].end
            else:
                start, end = sents[a].start, sents[b].end
            edits.append(Edit(start, end, "", " | ".join(removed[k] for k in run)))
            run = []
        if i is not None:
            run.append(i)
    return edits


__all__ = ["ConliRewriteMitigator", "RewriteResult", "align_sentences", "clean_reply"]
