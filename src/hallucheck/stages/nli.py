"""Three-way natural language inference by an LLM: Entailment / Neutral / Contradiction.

Generic over the prompt: any prompt file with ``${premise}`` and ``${hypothesis}`` works
(HSP's Appendix A.2 prompt ``hsp_nli.v1`` by default; the prompt baseline's A.4 prompt
``prompt_detect.v1``). The premise is the claim's evidence (one text as is; several as a
``- `` bulleted list, most similar first) and always comes before the hypothesis, so a backend
that reuses the common prompt prefix pays little for the instructions.

The label is chosen with :func:`hallucheck.llm.labels.judge`: by log-probability when the
backend gives them (a probability per label), else by strict parsing of the reply with one
repair round. A reply that still names no label is an error verdict that keeps the raw reply.

What is flagged (``flag_on``):

- ``"contradiction"`` (the HSP paper, Algorithm 1): a claim is hallucinated when the verdict
  is Contradiction. ``score`` = P(Contradiction).
- ``"ungrounded"`` (CoNLI's stricter definition): Neutral counts too, i.e. anything the
  evidence does not entail. ``score`` = P(Contradiction) + P(Neutral).

Without log-probabilities the probabilities are the chosen label's indicator (score 0 or 1).
The decision is the most likely label (the paper's rule) unless ``threshold`` is given, in
which case a claim is flagged when ``score > threshold``.

``calibrate=True`` (our addition, not in the paper) applies contextual calibration (Zhao et
al. 2021, "Calibrate before use"): the label probabilities are divided by those the same prompt
gives a content-free input (premise and hypothesis "N/A") and renormalised. Small models have a
strong label prior -- Qwen2.5-Coder-1.5B gives the A.2 prompt P(Contradiction) = 0.75 with no
content at all and answers Contradiction for a hypothesis copied from the premise -- and the
division removes it. It costs one extra call per verifier and model (kept for the run) and
needs log-probabilities; the raw and the content-free probabilities stay in the verdict's
``meta``.

Two conventions other stages use to talk to this verifier (both generic):

- an :class:`Evidence` whose ``meta["exact_match"]`` is true entails the claim by itself
  (HSP's exact entity match): the claim is supported with no LLM call;
- a :class:`Claim` whose ``meta["error"]`` is set could not be extracted (e.g. its
  decomposition reply did not parse): it gets an error verdict with ``meta["raw"]``.

The module also holds :class:`WholeAnswerExtractor` (the whole answer is one claim) for
whole-answer NLI (the prompt baseline), which pairs it with
:class:`~hallucheck.stages.evidence.WholeReferenceRetriever` (re-exported here).
"""

from __future__ import annotations

import threading
from typing import Sequence

from ..base import BOOL, NONE, POSITIVE_INT, UNIT, ClaimExtractor, OneOf, Verifier, require_llm
from ..errors import ConfigError
from ..llm.base import LLMClient
from ..llm.labels import Judgement, judge
from ..prompts import load_prompt
from ..types import Claim, Evidence, Verdict
from .evidence import WholeReferenceRetriever

NLI_LABELS: tuple[str, ...] = ("Entailment", "Neutral", "Contradiction")
TO_LABEL = {"Entailment": "supported", "Neutral": "unverifiable", "Contradiction": "contradicted"}
FLAG_ON = {"contradiction": frozenset({"Contradiction"}), "ungrounded": frozenset({"Contradiction", "Neutral"})}
# the declared choice of every verifier with a ``flag_on`` parameter
FLAG_ON_CHOICE = OneOf(
    *FLAG_ON, hint="'contradiction' flags Contradiction only (HSP); 'ungrounded' also flags Neutral (CoNLI)."
)


def format_premise(evidence: Sequence[Evidence]) -> str:
    """One evidence text as is; several as a bulleted list (the order given, best first)."""
    texts = list(dict.fromkeys(e.text.strip() for e in evidence if e.text.strip()))
    if len(texts) == 1:
        return texts[0]
    return "\n".join(f"- {t}" for t in texts)


def _fmt(probs: dict[str, float]) -> str:
    return ", ".join(f"{x} {probs[x]:.3f}" for x in NLI_LABELS)


class LLMNLIVerifier(Verifier):
    """Premise (the claim's evidence) vs hypothesis (the claim) by an LLM, three-way.

    ``prompt``: a prompt file with ``${premise}`` and ``${hypothesis}``; ``None`` picks
    ``hsp_nli.v1`` (the paper's A.2 prompt, whose output line names only Contradiction and
    Entailment) for ``flag_on="contradiction"`` and ``hsp_nli_3way.v1`` (the same prompt with
    Neutral named in the output line, so that Neutral is not suppressed) for ``"ungrounded"``.
    ``prefix``: text the reply is made to start with before the label is read (e.g.
    ``"Relationship: "`` for the few-shot A.4 prompt).
    """

    # with calibration, a claim whose label probabilities are within this total variation distance of
    # the content-free ones could not be judged (not a parameter: it is a floor of sense, not a tuning knob)
    DEGENERATE_SHIFT = 0.02
    # without calibration, a reply whose labels together are less likely than this is no label at all
    MIN_LABEL_MASS = 0.5

    parameter_constraints = {
        "flag_on": FLAG_ON_CHOICE,
        "threshold": (UNIT, NONE),
        "use_logprobs": (BOOL, NONE),
        "calibrate": BOOL,
        "max_tokens": POSITIVE_INT,
    }

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        prompt: str | None = None,
        flag_on: str = "contradiction",
        threshold: float | None = None,
        prefix: str = "",
        use_logprobs: bool | None = None,
        calibrate: bool = False,
        max_tokens: int = 16,
    ) -> None:
        self.llm = llm
        self.prompt = prompt
        self.flag_on = flag_on
        self.threshold = threshold
        self.prefix = prefix
        self.use_logprobs = use_logprobs
        self.calibrate = bool(calibrate)
        self.max_tokens = max_tokens
        self._null: dict[tuple[str, str, str], dict[str, float] | None] = {}
        self._null_lock = threading.Lock()
        template = load_prompt(self.prompt_name)
        missing = {"premise", "hypothesis"} - template.variables
        if missing:
            raise ConfigError(f"The NLI prompt {template.name} lacks the placeholders {', '.join(sorted(missing))}.")

    @property
    def prompt_name(self) -> str:
        if self.prompt is not None:
            return self.prompt
        return "hsp_nli.v1" if self.flag_on == "contradiction" else "hsp_nli_3way.v1"

    def null_probs(self, prompt: str | None = None) -> dict[str, float] | None:
        """Label probabilities for a content-free input (once per model and prompt); None when
        the backend cannot score labels."""
        assert self.llm is not None
        prompt_name = prompt or self.prompt_name
        key = (self.llm.model_id, prompt_name, self.prefix)
        with self._null_lock:
            if key in self._null:
                return self._null[key]
        scored = self.llm.supports_logprobs if self.use_logprobs is None else self.use_logprobs
        probs = None
        if scored:
            template = load_prompt(prompt_name)
            messages = template.render(**{name: "N/A" for name in template.variables})
            j = judge(self.llm, messages, NLI_LABELS, prompt=prompt_name, prefix=self.prefix, use_logprobs=True)
            probs = dict(j.probs) if j.ok and j.probs is not None else None
            if probs is None:
                return None  # a backend failure: not kept, tried again on the next claim
        with self._null_lock:
            self._null[key] = probs
        return probs

    def _decide(self, probs: dict[str, float]) -> tuple[str, bool, float]:
        flagged_labels = FLAG_ON[self.flag_on]
        best = max(NLI_LABELS, key=lambda x: probs.get(x, 0.0))
        score = min(1.0, max(0.0, sum(probs.get(x, 0.0) for x in flagged_labels)))
        flagged = best in flagged_labels if self.threshold is None else score > self.threshold
        return best, flagged, score

    def judge_one(
        self, claim: Claim, evidence: Sequence[Evidence], *, prompt: str | None = None, **values: str
    ) -> Verdict:
        """The verdict of one claim (exact matches and extraction errors handled first).

        ``prompt`` overrides the verifier's prompt for this claim and ``values`` fills its
        placeholders other than premise and hypothesis (e.g. ``question``)."""
        settled = self._without_llm(claim, evidence)
        if settled is not None:
            return settled
        require_llm(self.llm, "LLMNLIVerifier")
        prompt_name = prompt or self.prompt_name
        messages = load_prompt(prompt_name).render(premise=format_premise(evidence), hypothesis=claim.text, **values)
        j = judge(
            self.llm,
            messages,
            NLI_LABELS,
            prompt=prompt_name,
            prefix=self.prefix,
            use_logprobs=self.use_logprobs,
            max_tokens=self.max_tokens,
        )
        if not j.ok:
            return Verdict(
                claim, None, None, None, f"NLI failed: {j.error}", tuple(evidence), status="error", raw=j.raw
            )
        probs = dict(j.probs) if j.probs is not None else {x: float(x == j.label) for x in NLI_LABELS}
        meta: dict[str, object] = {"scored": j.probs is not None, "flag_on": self.flag_on}
        if not self.calibrate:
            refused = self._no_label(claim, evidence, j, probs)
            if refused is not None:
                return refused
        elif j.probs is not None:
            calibrated = self._calibrated(claim, evidence, j, probs, prompt_name, meta)
            if isinstance(calibrated, Verdict):
                return calibrated
            probs = calibrated
        best, flagged, score = self._decide(probs)
        shown = ", ".join(f"{x} {probs[x]:.2f}" for x in NLI_LABELS) if j.probs is not None else f"reply: {best}"
        reason = f"{best} ({shown})"
        if self.threshold is not None:
            said = "above" if flagged else "not above"
            what = "not entailed" if self.flag_on == "ungrounded" else "Contradiction"
            reason += f"; P({what}) {score:.2f} is {said} the threshold {self.threshold:g}"
        meta.update(nli_label=best, probs=probs)
        return Verdict(claim, TO_LABEL[best], flagged, score, reason, tuple(evidence), raw=j.raw, meta=meta)

    def _without_llm(self, claim: Claim, evidence: Sequence[Evidence]) -> Verdict | None:
        """The verdict of a claim settled without asking the judge (an extraction error, an exact
        match in the reference, no evidence at all), else None."""
        if claim.meta.get("error"):
            return Verdict.failed(
                claim, f"The claim could not be extracted: {claim.meta['error']}", raw=claim.meta.get("raw")
            )
        exact = next((e for e in evidence if e.meta.get("exact_match")), None)
        if exact is not None:
            what = (
                f"{exact.meta['entity_type']} {exact.meta['entity']!r}" if "entity" in exact.meta else repr(exact.text)
            )
            return Verdict(
                claim,
                "supported",
                False,
                0.0,
                f"Exact match in the reference, entailed without an LLM call: {what}",
                (exact,),
                meta={"nli_label": "Entailment", "exact_match": True},
            )
        if not evidence:
            flagged = "Neutral" in FLAG_ON[self.flag_on]
            return Verdict(
                claim,
                "unverifiable",
                flagged,
                1.0 if flagged else 0.0,
                "The reference has nothing to compare this claim with (no evidence): Neutral without an LLM call.",
                meta={"nli_label": "Neutral", "no_evidence": True},
            )
        return None

    def _no_label(
        self, claim: Claim, evidence: Sequence[Evidence], j: Judgement, probs: dict[str, float]
    ) -> Verdict | None:
        """A failed verdict when the labels together are unlikely as the start of the judge's reply
        (it would most likely not name a label at all, e.g. "I cannot tell"), else None."""
        mass = j.meta.get("label_mass")
        if isinstance(mass, float) and mass < self.MIN_LABEL_MASS:
            # the judge would most likely not name a label at all ("I cannot tell"): the labels' shares of a small
            # remainder are not its answer, and the largest of them would turn a refusal into a verdict
            return Verdict.failed(
                claim,
                f"The judge did not answer with a label: the labels {', '.join(NLI_LABELS)} together have "
                f"probability {mass:.3f} as the start of its reply (below {self.MIN_LABEL_MASS:g}), so its "
                "reply says something else (e.g. that it cannot tell). Not verified.",
                raw=j.raw,
                evidence=evidence,
                meta={"label_mass": mass, "raw_probs": probs, "no_label": True},
            )
        return None

    def _calibrated(
        self,
        claim: Claim,
        evidence: Sequence[Evidence],
        j: Judgement,
        probs: dict[str, float],
        prompt_name: str,
        meta: dict[str, object],
    ) -> dict[str, float] | Verdict:
        """The label probabilities divided by those the judge gives a content-free input (``meta``
        records both), or a failed verdict when the two are too close to say anything."""
        null = self.null_probs(prompt_name)
        if null is None:
            return probs
        shift = 0.5 * sum(abs(probs[x] - null[x]) for x in NLI_LABELS)
        if shift < self.DEGENERATE_SHIFT:
            # the judge answered as it answers "N/A": its reply carries nothing about this claim, and the
            # division by the prior would turn noise in the unlikely labels into a verdict (a judge that
            # always says Contradiction came out Entailment)
            return Verdict.failed(
                claim,
                f"Degenerate calibration: the judge's label probabilities ({_fmt(probs)}) are those it "
                f"gives a content-free input ({_fmt(null)}; total variation {shift:.3f} < "
                f"{self.DEGENERATE_SHIFT:g}), so its answer says nothing about this claim. Use a "
                "stronger judge, or calibrate=False to take its raw labels.",
                raw=j.raw,
                evidence=evidence,
                meta={"raw_probs": probs, "null_probs": null, "degenerate_calibration": True},
            )
        ratio = {x: probs[x] / max(null[x], 1e-9) for x in NLI_LABELS}
        z = sum(ratio.values())
        meta.update(raw_probs=probs, null_probs=null, calibrated=True)
        return {x: ratio[x] / z for x in NLI_LABELS}

    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str = "",
    ) -> list[Verdict]:
        return [self.judge_one(c, ev) for c, ev in zip(claims, evidence)]


class WholeAnswerExtractor(ClaimExtractor):
    """The whole answer is one claim (whole-answer NLI, e.g. the prompt baseline)."""

    def extract(self, answer: str, *, question: str | None = None) -> list[Claim]:
        stripped = answer.strip()
        if not stripped:
            return []
        start = answer.index(stripped)
        return [Claim(text=stripped, start=start, end=start + len(stripped), kind="answer", id="a0")]


__all__ = [
    "FLAG_ON",
    "FLAG_ON_CHOICE",
    "NLI_LABELS",
    "LLMNLIVerifier",
    "WholeAnswerExtractor",
    "WholeReferenceRetriever",
    "format_premise",
]
