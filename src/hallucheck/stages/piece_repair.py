"""Mitigators that ask an LLM to correct a sentence: HSP's per-piece repair and the prompt baseline.

:class:`PieceRepairMitigator` is HSP's hallucination mitigator (paper 000, Fig. 5). For each
flagged piece, in order:

1. find the original sentence: the answer sentence most similar to the piece by embedding
   cosine (MiniLM; an entity piece is compared by its plain sentence), as in the paper.
   Sentences already repaired are compared in their repaired form, so several pieces of one
   sentence are applied one after the other. ``locate="source"`` instead takes the sentence
   the piece was decomposed from (its claim offsets): exact, where embedding similarity can
   pick a neighbouring sentence that shares more words with the piece;
2. prompt the LLM to fix it with the Appendix A.3 prompt (``hsp_repair.v1``): the reference
   text is the piece's evidence (its top-k reference pieces; the whole reference when it has
   none), the sentence to fix is the current sentence;
3. take the ``[Final Sentence]`` part of the reply and put it in place of the sentence.

A reply without a usable ``[Final Sentence]`` part (or a backend failure) leaves the sentence
as it is and is recorded; so does a final sentence that is not one sentence of the answer and
nothing else (a label such as "Correct Fix Result:", a comment on the sentence, quotes, a second
sentence, an explanation: :func:`~hallucheck.stages.repair_checks.meta_text`), refused as the reply
comes back so that neither a later piece nor the re-check builds on it. Each touched sentence becomes one :class:`Edit` of the *original*
answer (``answer[start:end]`` -> replacement), whose ``reason`` says which pieces were fixed and
why; a sentence that could not be repaired is kept and reported in the Mitigation's ``notes``
(``"not repaired:"`` with the reason and the raw reply; also when the LLM found nothing to fix). Only sentences a flagged piece comes from are
sent to the LLM. Through :meth:`~hallucheck.pipeline.Pipeline.mitigate` every revision then goes
through the repair contract (:mod:`hallucheck.stages.repair_contract`): cut to the words it
changes, and kept only when it is the answer's own text and the re-check finds it better. A final sentence of "Correct" (the editor found
nothing to fix) or equal to the sentence changes nothing. Nothing flagged: the answer is
returned unchanged with no edits.

:class:`PromptRewriteMitigator` is the prompt baseline's mitigation (Appendix A.5,
``prompt_repair.v1``): the whole answer is the sentence to fix and the whole reference its
reference text; the paper's A.5 prompt stops after its output-format line, so we append A.3's
``[Reference Text]`` / ``[Sentence to Fix]`` block.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from ..base import POSITIVE_INT, Mitigator, OneOf, require_llm
from ..errors import BackendError, ConfigError, ParseError
from ..llm.base import LLMClient, usage_scope
from ..prompts import load_prompt
from ..text import split_sentences
from ..text.edits import apply_edits
from ..types import Detection, Edit, Mitigation, Verdict
from .nli import format_premise
from .repair_checks import meta_text

RAW_LIMIT = 4000
_FINAL = re.compile(r"\[\s*final[ _]sentence\s*\]\s*:?|(?m:^\W{0,4}final[ _]sentence\W{0,4}:)", re.IGNORECASE)
_SECTION = re.compile(
    r"\[\s*(?:reason|correct[ _]sentence|final[ _]sentence|reference text|sentence to fix)\s*\]"
    r"|(?m:^\W{0,4}(?:reason|correct[ _]sentence)\W{0,4}:)",
    re.IGNORECASE,
)
_REASON = re.compile(r"\[\s*reason\s*\]\s*:?|(?m:^\W{0,4}reason\W{0,4}:)", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"</?\s*(?:final_fix_result|sentence|reason)\s*>", re.IGNORECASE)


def _section_after(reply: str, m: re.Match[str]) -> str:
    rest = reply[m.end() :]
    nxt = _SECTION.search(rest)
    if nxt:
        rest = rest[: nxt.start()]
    return rest


def _tidy(text: str) -> str:
    text = _PLACEHOLDER.sub("", text).strip()
    text = text.replace("**", "").strip()
    if len(text) >= 2 and text[0] in "\"'“`" and text[-1] in "\"'”`":
        text = text[1:-1].strip()
    return text


def parse_final_sentence(reply: str) -> str:
    """The ``[Final Sentence]`` part of an A.3/A.5 reply (the last such part with text).

    Raises :class:`ParseError` (keeping the reply) when there is none."""
    if not isinstance(reply, str) or not reply.strip():
        raise ParseError(
            "The LLM returned an empty reply instead of a corrected sentence.",
            raw=reply if isinstance(reply, str) else "",
        )
    found = None
    for m in _FINAL.finditer(reply):
        text = _section_after(reply, m)
        text = re.split(r"\n\s*\n", text.strip(), maxsplit=1)[0] if text.strip() else ""
        text = _tidy(text)
        if text and re.search(r"\w", text):
            found = text
    if found is None:
        raise ParseError("The reply has no [Final Sentence] part with text.", raw=reply)
    return found


def parse_reason(reply: str) -> str:
    """The ``[Reason]`` part of an A.3 reply, or ''."""
    m = _REASON.search(reply or "")
    return " ".join(_tidy(_section_after(reply, m)).split()) if m else ""


def _says_correct(final: str) -> bool:
    return re.sub(r"[^\w]", "", final).lower() in ("correct", "nochange", "noerror", "noerrors")


def _shorten(text: str | None) -> str:
    text = text or ""
    return text if len(text) <= RAW_LIMIT else text[:RAW_LIMIT] + f"... [{len(text) - RAW_LIMIT} more characters]"


class _RepairResult:
    def __init__(self, text: str | None, why: str, raw: str | None) -> None:
        self.text = text  # None: failed
        self.why = why
        self.raw = raw


def _ask(llm: LLMClient, prompt: str, premises: str, sentence: str, max_tokens: int) -> _RepairResult:
    try:
        reply = llm.complete(
            load_prompt(prompt).render(premises=premises, hypothesis=sentence), prompt=prompt, max_tokens=max_tokens
        )
    except BackendError as exc:
        return _RepairResult(None, f"LLM backend failed: {exc}", None)
    try:
        final = parse_final_sentence(reply.text)
    except ParseError as exc:
        return _RepairResult(None, str(exc), reply.text)
    if len(final) > 3 * len(sentence) + 300:
        return _RepairResult(
            None,
            f"the final sentence is far longer ({len(final)} characters) than the sentence "
            f"({len(sentence)}): not taken",
            reply.text,
        )
    if _says_correct(final) or final == sentence.strip():
        return _RepairResult(sentence, "the LLM found no error in it", reply.text)
    why = meta_text(sentence, final)
    if why:  # not the answer's text: refused here, before any re-check or later piece builds on it
        return _RepairResult(None, f"its rewrite {final[:200]!r} is refused: {why}", reply.text)
    return _RepairResult(final, parse_reason(reply.text), reply.text)


class PieceRepairMitigator(Mitigator):
    """HSP's mitigator: repair the sentence behind each flagged piece with the A.3 prompt."""

    parameter_constraints = {"locate": OneOf("embedding", "source"), "max_tokens": POSITIVE_INT}

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        prompt: str = "hsp_repair.v1",
        embedder: str = "minilm",
        locate: str = "embedding",
        max_tokens: int = 512,
    ) -> None:
        template = load_prompt(prompt)
        missing = {"premises", "hypothesis"} - template.variables
        if missing:
            raise ConfigError(f"The repair prompt {template.name} lacks the placeholders {', '.join(sorted(missing))}.")
        self.llm = llm
        self.prompt = prompt
        self.embedder = embedder
        self.locate = locate
        self.max_tokens = max_tokens

    def find_sentence(
        self, verdict: Verdict, sentences: Sequence[str], spans: Sequence[Any] = (), among: Sequence[int] = ()
    ) -> int:
        """Index of the sentence to repair for a flagged piece (see ``locate``); ``among``: the
        sentences it may be (the flagged ones: a grounded sentence is never sent to the LLM)."""
        if self.locate == "source" and spans:
            hit = [j for j, s in enumerate(spans) if s.start <= verdict.claim.start < s.end]
            if hit:
                return hit[0]
        from ..models.embeddings import get_embedder
        from .similarity import embed_cached

        candidates = list(among) or list(range(len(sentences)))
        if len(candidates) == 1:
            return candidates[0]
        piece = str(verdict.claim.meta.get("sentence_text") or verdict.claim.text)
        emb = get_embedder(self.embedder)
        sims = embed_cached(emb, list(sentences)) @ embed_cached(emb, [piece])[0]
        return int(max(candidates, key=lambda j: (float(sims[j]), -j)))

    def mitigate(self, detection: Detection) -> Mitigation:
        answer = detection.answer
        flagged = [v for v in detection.verdicts if v.hallucinated]
        spans = split_sentences(answer)
        if not flagged or not spans:
            return Mitigation(answer, answer, (), detection, None)
        llm = require_llm(self.llm, "PieceRepairMitigator")
        current = [s.text for s in spans]
        notes: list[list[str]] = [[] for _ in spans]
        # the sentences a flagged piece comes from (a piece without offsets may be any of them)
        among = [
            j for j, s in enumerate(spans) if any(v.claim.start < s.end and s.start < v.claim.end for v in flagged)
        ]
        with usage_scope() as tally:
            for v in flagged:
                i = self.find_sentence(v, current, spans, among)
                premises = format_premise(v.evidence) if v.evidence else detection.reference.strip()
                r = _ask(llm, self.prompt, premises, current[i], self.max_tokens)
                label = f"piece {v.claim.text!r}"
                if r.text is None:
                    notes[i].append(
                        f"not repaired: {label}: {r.why}" + (f"; raw reply: {_shorten(r.raw)!r}" if r.raw else "")
                    )
                elif r.text == current[i]:
                    notes[i].append(f"unchanged: {label}: {r.why}")
                else:
                    current[i] = r.text
                    notes[i].append(f"repaired: {label}" + (f": {r.why}" if r.why else ""))
        edits, unrepaired = [], []
        for s, text, why in zip(spans, current, notes):
            reason = "; ".join(why)
            if text != s.text:
                edits.append(Edit(s.start, s.end, text, reason))
                # a piece whose rewrite was dropped is reported even when another piece changed the sentence
                unrepaired += [f"answer[{s.start}:{s.end}] {n}" for n in why if n.startswith("not repaired:")]
            elif why:  # sent to the LLM and left as it was: say why, whatever the reason
                unrepaired.append(
                    f"answer[{s.start}:{s.end}] "
                    + (reason if reason.startswith("not repaired:") else "not repaired: " + reason)
                )
        revised = apply_edits(answer, edits)
        return Mitigation(answer, revised, tuple(edits), detection, None, tally.usage, tuple(unrepaired))


class PromptRewriteMitigator(Mitigator):
    """The prompt baseline's mitigator (A.5): rewrite the whole answer against the whole reference."""

    parameter_constraints = {"max_tokens": POSITIVE_INT}

    def __init__(
        self, *, llm: LLMClient | None = None, prompt: str = "prompt_repair.v1", max_tokens: int = 1024
    ) -> None:
        template = load_prompt(prompt)
        missing = {"premises", "hypothesis"} - template.variables
        if missing:
            raise ConfigError(
                f"The rewrite prompt {template.name} lacks the placeholders {', '.join(sorted(missing))}."
            )
        self.llm = llm
        self.prompt = prompt
        self.max_tokens = max_tokens

    def mitigate(self, detection: Detection) -> Mitigation:
        answer = detection.answer
        stripped = answer.strip()
        if not detection.flagged or not stripped:
            return Mitigation(answer, answer, (), detection, None)
        llm = require_llm(self.llm, "PromptRewriteMitigator")
        start = answer.index(stripped)
        with usage_scope() as tally:
            max_tokens = max(self.max_tokens, llm.count_tokens(stripped) * 2 + 64)
            r = _ask(llm, self.prompt, detection.reference.strip(), stripped, max_tokens)
        notes: tuple[str, ...] = ()
        edits: tuple[Edit, ...] = ()
        if r.text is None:
            notes = (f"not repaired: {r.why}" + (f"; raw reply: {_shorten(r.raw)!r}" if r.raw else ""),)
        elif r.text != stripped:
            edits = (Edit(start, start + len(stripped), r.text, "rewritten by the prompt baseline (A.5)"),)
        else:
            notes = (f"not repaired: {r.why}",)
        return Mitigation(answer, apply_edits(answer, edits), edits, detection, None, tally.usage, notes)


__all__ = ["PieceRepairMitigator", "PromptRewriteMitigator", "parse_final_sentence", "parse_reason"]
