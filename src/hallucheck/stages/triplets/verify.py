"""Triplet verifiers (thesis 004 §3.3, §4.7, Appendix A.3): all answer triplets against all
reference triplets in one request, and the per-triplet RefChecker baseline."""

from __future__ import annotations

import json
from abc import abstractmethod
from dataclasses import dataclass, field
from typing import Any, Sequence

from ...base import BOOL, NONE, POSITIVE_INT, Verifier
from ...errors import BackendError
from ...llm.base import LLMClient, LLMResponse, Message
from ...llm.json_reply import fit_max_tokens
from ...llm.labels import judge
from ...prompts import load_prompt
from ...types import Claim, Evidence, Verdict
from .extract import claim_triplet, format_triplets
from .parse import (
    DEFAULT_VARIANT,
    ParsedVerdict,
    normalise_variant,
    parse_verification,
    variant_prompt,
    verdict_prefixes,
    verification_schema,
)

REFCHECKER_PROMPT = "triplet_refchecker.v1"


@dataclass
class _Outcome:
    """One chunk's judgement of one claim."""

    supported: bool | None
    score: float | None = None
    reasoning: str | None = None
    sources: tuple[Evidence, ...] = ()
    raw: str | None = None
    error: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class _TripletVerifier(Verifier):
    """A verifier of extracted triplets: the claims the extractor could not produce
    (``meta["error"]``) get error verdicts, no LLM asked; :meth:`_judge` judges the others."""

    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str = "",
    ) -> list[Verdict]:
        ok = [i for i, c in enumerate(claims) if not c.meta.get("error")]
        if len(ok) == len(claims):
            return self._judge(claims, evidence, reference, question)
        judged = iter(
            self._judge([claims[i] for i in ok], [evidence[i] for i in ok], reference, question) if ok else []
        )
        return [
            next(judged) if i in ok else Verdict.failed(c, str(c.meta["error"]), raw=c.meta.get("raw"))
            for i, c in enumerate(claims)
        ]

    @abstractmethod
    def _judge(
        self, claims: Sequence[Claim], evidence: Sequence[Sequence[Evidence]], reference: str, question: str | None
    ) -> list[Verdict]:
        """One verdict per claim, for claims the extractor produced."""


class BatchedTripletVerifier(_TripletVerifier):
    """All answer triplets against all reference triplets in one request (thesis §3.3, §4.7).

    ``variant`` picks the Appendix A.1 prompt: ``baseline``, ``detail``, ``cot``, ``fewshot`` or a
    ``+`` combination (default ``detail+cot``, the thesis' best in Table 5.2).
    ``context_tokens`` is the window to plan requests for (default: the backend's ``n_ctx``, else
    8192); ``max_triplets_per_request`` caps the answer triplets per request (default: as many as
    fit). ``label_scores=True`` adds continuous scores with a log-probability backend (see the
    module notes); otherwise scores are 1.0 / 0.0 from the parsed verdicts."""

    parameter_constraints = {
        "label_scores": BOOL,
        "context_tokens": (POSITIVE_INT, NONE),
        "max_triplets_per_request": (POSITIVE_INT, NONE),
        "tokens_per_verdict": (POSITIVE_INT, NONE),
    }

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        variant: str = DEFAULT_VARIANT,
        label_scores: bool = False,
        context_tokens: int | None = None,
        max_triplets_per_request: int | None = None,
        tokens_per_verdict: int | None = None,
    ) -> None:
        self.variant = normalise_variant(variant)
        load_prompt(variant_prompt(self.variant))
        self.llm = llm
        self.label_scores = bool(label_scores)
        self.context_tokens = context_tokens
        self.max_triplets_per_request = max_triplets_per_request
        self.tokens_per_verdict = tokens_per_verdict

    # -- planning ---------------------------------------------------------------------------
    @property
    def prompt(self) -> str:
        return variant_prompt(self.variant)

    @property
    def cot(self) -> bool:
        return "cot" in self.variant.split("+")

    def _per_verdict(self) -> int:
        return self.tokens_per_verdict or (110 if self.cot else 10)

    def _window(self) -> int:
        return int(self.context_tokens or getattr(self.llm, "n_ctx", None) or 8192)

    def _render(self, refs: Sequence[Sequence[str]], answers: Sequence[Sequence[str]]) -> tuple[Message, ...]:
        return load_prompt(self.prompt).render(
            reference_triplets=format_triplets(refs) or "(none)", answer_triplets=format_triplets(answers)
        )

    def plan(
        self, refs: Sequence[Sequence[str]], answers: Sequence[Sequence[str]]
    ) -> list[tuple[list[int], list[int]]]:
        """Requests as (reference indices, answer indices) pairs. One request when everything fits
        the window; otherwise answer triplets are split, and the reference triplets too when they
        alone take more than half of the room."""
        llm = self.llm
        count = llm.count_tokens  # type: ignore[union-attr]
        fixed = sum(count(m.content) + 8 for m in self._render([], [])) + 32
        room = int(self._window() * 0.9) - fixed - 48  # 10% margin for estimates and the chat template
        ref_cost = [count(format_triplets([t])) + 1 for t in refs]
        ans_cost = [count(format_triplets([t])) + 1 + self._per_verdict() for t in answers]
        cap = self.max_triplets_per_request or len(answers) or 1
        if sum(ref_cost) + (max(ans_cost) if ans_cost else 0) <= room:
            ref_chunks = [list(range(len(refs)))]
        else:
            ref_chunks = _pack(ref_cost, max(1, room // 2))
        plan = []
        for rc in ref_chunks:
            left = max(1, room - sum(ref_cost[i] for i in rc))
            for ac in _pack(ans_cost, left, cap=cap):
                plan.append((rc, ac))
        return plan

    # -- verification -----------------------------------------------------------------------
    def _judge(
        self, claims: Sequence[Claim], evidence: Sequence[Sequence[Evidence]], reference: str, question: str | None
    ) -> list[Verdict]:
        refs = _unique_evidence(evidence)
        ref_triplets = [_evidence_triplet(e) for e in refs]
        answers = [claim_triplet(c) or (c.text,) for c in claims]
        if not refs:
            reason = "The reference yielded no triplets, so no answer triplet can be supported by it."
            return [
                Verdict(c, "unverifiable", True, 1.0, reason, meta={"variant": self.variant, "requests": 0})
                for c in claims
            ]
        plan = self.plan(ref_triplets, answers)
        outcomes: list[list[_Outcome]] = [[] for _ in claims]
        for request_no, (rc, ac) in enumerate(plan):
            chunk = self._check([refs[i] for i in rc], [answers[i] for i in ac])
            for pos, i in enumerate(ac):
                chunk[pos].meta.update({"request": request_no, "batch_size": len(ac), "reference_triplets": len(rc)})
                outcomes[i].append(chunk[pos])
        return [self._combine(c, outs, len(plan)) for c, outs in zip(claims, outcomes)]

    def _check(self, refs: Sequence[Evidence], answers: Sequence[Sequence[str]]) -> list[_Outcome]:
        llm = self.llm
        assert llm is not None
        n = len(answers)
        messages = self._render([_evidence_triplet(e) for e in refs], answers)
        schema = verification_schema(n, self.cot)
        budget = 48 + self._per_verdict() * n
        found: dict[int, tuple[ParsedVerdict, int]] = {}
        raws: list[str] = []
        attempt = messages
        first: LLMResponse | None = None
        for round_ in range(2):
            try:
                response = llm.complete(
                    attempt,
                    prompt=self.prompt if round_ == 0 else f"{self.prompt}+retry",
                    json_schema=schema,
                    max_tokens=fit_max_tokens(llm, attempt, budget, context_tokens=self.context_tokens),
                )
            except BackendError as exc:
                return [
                    _Outcome(None, error=f"LLM backend failed: {exc}", raw="\n---\n".join(raws) or None)
                    if i not in found
                    else self._outcome(found[i][0], refs, raws[found[i][1]])
                    for i in range(1, n + 1)
                ]
            if round_ == 0:
                first = response
            raws.append(response.text)
            parsed, problems = parse_verification(response.text, n)
            truncated = response.finish_reason == "length"
            for i, pv in parsed.items():
                found.setdefault(i, (pv, round_))
            missing = [i for i in range(1, n + 1) if i not in found]
            if not missing:
                break
            if truncated:
                problems.insert(0, f"the reply was cut off at {budget} tokens")
                budget *= 2
            attempt = messages + (
                Message("assistant", response.text[:6000]),
                Message(
                    "user",
                    (
                        f"Your reply could not be used: {'; '.join(problems)}. Reply with only the JSON object, giving True or "
                        f"False for each of the {n} input triplets (triplet_idx 1 to {n})."
                    ),
                ),
            )
        outcomes = []
        probs = (
            self._label_probs(messages, first.text if first else "", n, [i for i, (_, r) in found.items() if r == 0])
            if self.label_scores
            else {}
        )
        for i in range(1, n + 1):
            if i not in found:
                outcomes.append(
                    _Outcome(
                        None,
                        error=("The LLM gave no True/False verdict for this triplet, even when asked again."),
                        raw="\n---\n".join(raws),
                    )
                )
                continue
            pv, round_ = found[i]
            outcomes.append(self._outcome(pv, refs, raws[round_], probs.get(i)))
        return outcomes

    def _outcome(self, pv: ParsedVerdict, refs: Sequence[Evidence], raw: str, p_false: float | None = None) -> _Outcome:
        cited = tuple(refs[s - 1] for s in pv.sources if 1 <= s <= len(refs))
        score = p_false if p_false is not None else (0.0 if pv.supported else 1.0)
        meta: dict[str, Any] = {"source_triplets": [s for s in pv.sources if 1 <= s <= len(refs)]}
        if p_false is not None:
            meta["p_false"] = p_false
        return _Outcome(pv.supported, score, pv.reasoning, cited, raw, meta=meta)

    def _label_probs(
        self, messages: tuple[Message, ...], reply: str, n: int, indices: Sequence[int]
    ) -> dict[int, float]:
        """P(False) per triplet by teacher forcing the first reply up to each verdict."""
        llm = self.llm
        if llm is None or not llm.supports_logprobs or not reply:
            return {}
        prefixes = verdict_prefixes(reply, n)
        out = {}
        for i in indices:
            if i not in prefixes:
                continue
            try:
                s = llm.score_labels(messages, ["True", "False"], prompt=f"{self.prompt}+labels", prefix=prefixes[i])
            except BackendError:
                continue
            out[i] = float(s.probs["False"])
        return out

    def _combine(self, claim: Claim, outs: Sequence[_Outcome], n_requests: int) -> Verdict:
        meta_base = {"variant": self.variant, "requests": n_requests}
        ok = [o for o in outs if o.supported is not None]
        errors = [o for o in outs if o.supported is None]
        supporting = [o for o in ok if o.supported]
        if supporting:
            best = min(supporting, key=lambda o: o.score if o.score is not None else 0.0)
            return self._verdict(claim, best, True, meta_base, len(outs))
        if errors:
            e = errors[0]
            return Verdict.failed(claim, e.error or "The triplet check failed.", raw=e.raw)
        best = min(ok, key=lambda o: o.score if o.score is not None else 1.0)
        return self._verdict(claim, best, False, meta_base, len(outs))

    def _verdict(self, claim: Claim, o: _Outcome, supported: bool, meta_base: dict[str, Any], parts: int) -> Verdict:
        if o.reasoning:
            cited = ", ".join(f"#{s}" for s in o.meta.get("source_triplets", [])) or "none"
            reason = f"{o.reasoning} (source triplets cited: {cited})"
        else:
            reason = (
                f"The batched triplet check (variant {self.variant}) judged this triplet "
                f"{'supported by' if supported else 'not supported by'} the reference triplets; "
                "this variant gives no explanation."
            )
        if parts > 1:
            reason += f" [reference checked in {parts} parts]"
        score = o.score if o.score is not None else (0.0 if supported else 1.0)
        return Verdict(
            claim,
            "supported" if supported else "unverifiable",
            not supported,
            score,
            reason,
            o.sources,
            raw=o.raw,
            meta={**meta_base, **o.meta},
        )


def _pack(costs: Sequence[int], room: int, *, cap: int | None = None) -> list[list[int]]:
    """Greedy consecutive chunks whose summed cost stays within ``room`` (an item too large
    for any chunk gets one of its own) and that hold at most ``cap`` items."""
    chunks: list[list[int]] = []
    cur: list[int] = []
    used = 0
    for i, c in enumerate(costs):
        if cur and (used + c > room or (cap is not None and len(cur) >= cap)):
            chunks.append(cur)
            cur, used = [], 0
        cur.append(i)
        used += c
    if cur:
        chunks.append(cur)
    return chunks


def _unique_evidence(evidence: Sequence[Sequence[Evidence]]) -> list[Evidence]:
    seen: set = set()
    out = []
    for items in evidence:
        for e in items:
            key = (e.meta.get("index"), e.text) if e.meta else (None, e.text)
            if key not in seen:
                seen.add(key)
                out.append(e)
    out.sort(key=lambda e: e.meta.get("index") if e.meta and isinstance(e.meta.get("index"), int) else 1 << 30)
    return out


def _evidence_triplet(e: Evidence) -> Sequence[str]:
    t = e.meta.get("triplet") if e.meta else None
    if isinstance(t, (list, tuple)) and len(t) == 3:
        return list(t)
    return [e.text]


# ---------------------------------------------------------------------------------------------
# per-triplet baseline (RefChecker)
# ---------------------------------------------------------------------------------------------


class SingleTripletVerifier(_TripletVerifier):
    """RefChecker-style baseline (thesis §5.2, Appendix A.3.1): one request per answer triplet,
    with the reference *text* (not its triplets). True -> supported; False -> not supported.

    With a log-probability backend the two labels are scored (``score = P(False)``, continuous);
    otherwise the one-word reply is parsed (score 1.0 / 0.0), retried once, and an error if it
    still names neither label (``use_logprobs`` forces either path)."""

    parameter_constraints = {"use_logprobs": (BOOL, NONE), "max_tokens": POSITIVE_INT}

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        prompt: str = REFCHECKER_PROMPT,
        use_logprobs: bool | None = None,
        max_tokens: int = 8,
    ) -> None:
        load_prompt(prompt)
        self.llm = llm
        self.prompt = prompt
        self.use_logprobs = use_logprobs
        self.max_tokens = max_tokens

    def _judge(
        self, claims: Sequence[Claim], evidence: Sequence[Sequence[Evidence]], reference: str, question: str | None
    ) -> list[Verdict]:
        block = f"### Question:\n{question.strip()}\n\n" if question and question.strip() else ""
        template = load_prompt(self.prompt)
        verdicts = []
        for claim in claims:
            t = claim_triplet(claim)
            shown = "(" + ", ".join(json.dumps(x, ensure_ascii=False) for x in t) + ")" if t else claim.text
            messages = template.render(question_block=block, reference=reference, claim=shown)
            j = judge(
                self.llm,
                messages,
                ("True", "False"),
                prompt=self.prompt,
                use_logprobs=self.use_logprobs,
                max_tokens=self.max_tokens,
            )
            if not j.ok:
                verdicts.append(Verdict.failed(claim, j.error or "The LLM gave no True/False verdict.", raw=j.raw))
                continue
            supported = j.label == "True"
            score = float(j.probs["False"]) if j.probs else (0.0 if supported else 1.0)
            reason = (
                f"RefChecker-style check of this triplet against the reference text: "
                f"{'supported' if supported else 'not supported'}" + (f" (P(False) = {score:.2f})." if j.probs else ".")
            )
            verdicts.append(
                Verdict(
                    claim,
                    "supported" if supported else "unverifiable",
                    not supported,
                    score,
                    reason,
                    raw=j.raw,
                    meta={"probs": dict(j.probs) if j.probs else None},
                )
            )
        return verdicts
