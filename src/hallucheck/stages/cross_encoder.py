"""The trained cross-encoder verifier (:mod:`hallucheck.models.cross_encoder`) and the signals the
default method's learned combination reads (:mod:`hallucheck.stages.ce_cascade`).

:class:`CrossEncoderVerifier` scores each claim against its evidence with a sequence-classification
encoder: hallucheck's trained verifier by default, or any NLI / HHEM-style / MiniCheck-style
checkpoint. **Long references:** the premise of a claim is the top-``k`` reference sentences by
IDF-weighted word overlap with the claim, best first (the whole reference when it has at most
``k`` sentences) -- the same selection the training pairs used
(:func:`hallucheck.text.premise.select_evidence`). ``premise="chunks"`` reads the claim against
every whole-sentence chunk of the reference instead (:func:`hallucheck.text.chunks.sentence_chunks`,
sized to the encoder's length; the lowest score counts, that chunk is the evidence), ``"both"``
against the chunks and the top-``k`` sentences. In QA the claim is the
sentence after the question, as in training. Score = P(not supported); flagged when above
``threshold``.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..base import NONE, POSITIVE_INT, UNIT, OneOf, Verifier, scored_verdict
from ..errors import ConfigError
from ..text import split_sentences
from ..text.chunks import sentence_chunks
from ..text.segment import Span
from ..types import Claim, Evidence, Verdict
from .cascade import build_gate, gate_share
from .entity_check import EntityCheckVerifier

# what a claim is read against: the top-k reference sentences by overlap, whole-document chunks of
# sentences (the lowest score over chunks), or the lower of the two (issue 21, item 2)
PREMISES = ("sentences", "chunks", "both")


def _logit(p: float) -> float:
    p = min(max(float(p), 1e-4), 1.0 - 1e-4)
    return math.log(p / (1.0 - p))


def claim_signals(text: str, verifier_score: float, missing_share: float, ref_sents: Sequence[str]) -> dict[str, float]:
    """The signals the learned combination weighs for one claim: the verifier's logit, the
    DelucionQA overlap ratio with the closest reference sentence, and the share of the claim's
    numbers and names missing from the reference (0 when the gate passed it)."""
    from .similarity import overlap_ratio

    overlap = max((overlap_ratio(text, r) for r in ref_sents), default=0.0)
    return {"verifier": _logit(verifier_score), "overlap": overlap, "gate": float(missing_share)}


def sentence_signals(
    claims: Sequence[tuple[str, int, int]],
    verifier_scores: Sequence[float],
    reference: str,
    *,
    gate: EntityCheckVerifier | None = None,
) -> np.ndarray:
    """:func:`claim_signals` of every claim ``(text, start, end)`` of an answer, one row each (the
    gate is run here, as :class:`CECascadeVerifier` runs it)."""
    gate = gate or build_gate("entities")
    objs = [Claim(t, a, b) for t, a, b in claims]
    ref_sents = [sp.text for sp in split_sentences(reference)] or [reference]
    gated = gate.verify(objs, [[] for _ in objs], reference=reference)
    rows = []
    for c, s, g in zip(objs, verifier_scores, gated):
        x = claim_signals(c.text, s, gate_share(g), ref_sents)
        rows.append((x["verifier"], x["overlap"], x["gate"]))
    return np.array(rows, dtype=np.float64).reshape(len(objs), 3)


class CrossEncoderVerifier(Verifier):
    """A trained (evidence, claim) classifier; score = P(claim not supported by the evidence).

    ``model``: ``"embedded"`` (hallucheck's shipped verifier), a local directory (ONNX with
    ``tokenizer.json``, or a Hugging Face checkpoint) or a hub id. ``k``: premise sentences per
    claim (``None``: the model's own setting, else 3). ``supported_label``: the label (name or
    index) meaning "supported" for models whose labels do not say (default: ``entailment``,
    ``supported``..., else index 1 of two). ``backend``: ``auto`` | ``onnx`` | ``torch``.
    """

    parameter_constraints = {
        "threshold": UNIT,
        "k": (POSITIVE_INT, NONE),
        "max_length": (POSITIVE_INT, NONE),
        "batch_size": POSITIVE_INT,
        "backend": OneOf("auto", "onnx", "torch"),
        "premise": OneOf(*PREMISES),
        "chunk_words": (POSITIVE_INT, NONE),
    }
    languages = ("en",)

    def __init__(
        self,
        *,
        model: str = "embedded",
        threshold: float = 0.5,
        k: int | None = None,
        max_length: int | None = None,
        batch_size: int = 32,
        supported_label: str | int | None = None,
        onnx_file: str | None = None,
        backend: str = "auto",
        premise: str = "sentences",
        chunk_words: int | None = None,
    ) -> None:
        if premise not in PREMISES:
            raise ConfigError(f"premise must be one of {', '.join(PREMISES)}; got {premise!r}.")
        self.model = model
        self.premise = premise
        self.chunk_words = chunk_words
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
            from ..models.cross_encoder import get_cross_encoder, model_settings

            # the length the model was trained with, unless given (read from its config, not by loading it twice)
            length = self.max_length or int(model_settings(self.model).get("max_length") or 256)
            self._encoder = get_cross_encoder(
                self.model, length, self.batch_size, self.supported_label, self.onnx_file, self.backend
            ).load()
        return self._encoder

    @property
    def premise_k(self) -> int:
        return self.k or int(self.encoder.meta.get("k", 3))

    def premises(
        self, claims: Sequence[Claim], reference: str, question: str | None, sentences: Sequence[Span] | None = None
    ) -> tuple[list[str], list[str], list[tuple[Evidence, ...]]]:
        """(premise texts, claim texts, premise evidence with offsets) for the encoder. ``sentences``: the
        reference's sentences when the caller has split it already."""
        from ..text.premise import claim_text, select_evidence_indices

        spans = list(sentences) if sentences is not None else split_sentences(reference)
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

    @property
    def premise_words(self) -> int:
        """Words per chunk premise: given, else what fits the encoder's length beside a claim (about
        1.4 tokens a word, 48 tokens kept for the claim)."""
        if self.chunk_words:
            return self.chunk_words
        length = self.max_length or int(self.encoder.meta.get("max_length") or 256)
        return max(40, int((length - 48) / 1.4))

    def scores(
        self,
        claims: Sequence[Claim],
        reference: str,
        question: str | None = None,
        sentences: Sequence[Span] | None = None,
    ) -> tuple[list[float], list[tuple[Evidence, ...]]]:
        """P(unsupported) per claim and the premise it was read against. ``premise="chunks"``: the lowest
        score over the reference's chunks (the chunk that supports the claim best is its evidence);
        ``"both"``: the lower of that and the top-k sentences' score. ``sentences``: as for :meth:`premises`."""
        premises, hyps, evs = self.premises(claims, reference, question, sentences)
        if self.premise == "sentences":
            return [float(x) for x in self.encoder.score(premises, hyps)], evs
        chunks = sentence_chunks(reference, self.premise_words) or [Span(0, len(reference), reference)]
        pairs = [(c.text, h) for h in hyps for c in chunks]
        if self.premise == "both":
            pairs += list(zip(premises, hyps))
        raw = [float(x) for x in self.encoder.score([p for p, _ in pairs], [h for _, h in pairs])]
        out_s, out_ev = [], []
        n = len(chunks)
        for i in range(len(hyps)):
            row = raw[i * n : (i + 1) * n]
            best = min(range(n), key=row.__getitem__)
            score = row[best]
            c = chunks[best]
            ev: tuple[Evidence, ...] = (Evidence(c.text, c.start, c.end, meta={"chunk": best, "chunks": n}),)
            if self.premise == "both" and raw[len(hyps) * n + i] < score:
                score, ev = raw[len(hyps) * n + i], evs[i]
            out_s.append(score)
            out_ev.append(ev)
        return out_s, out_ev

    def verdict(
        self, claim: Claim, score: float, evidence: Sequence[Evidence], threshold: float | None = None
    ) -> Verdict:
        t = self.threshold if threshold is None else threshold
        flagged = score > t
        reason = (
            f"Trained verifier: P(unsupported) {score:.2f} {'>' if flagged else '<='} threshold {t:g} "
            f"against the {'reference' if len(evidence) == 1 and evidence[0].meta.get('whole') else 'closest reference sentences'}."
        )
        return scored_verdict(claim, score, flagged, reason, evidence)

    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str = "",
    ) -> list[Verdict]:
        scores, evs = self.scores(claims, reference, (question or "").strip() or None)
        return [self.verdict(c, s, ev) for c, s, ev in zip(claims, scores, evs)]


__all__ = ["CrossEncoderVerifier", "PREMISES", "claim_signals", "sentence_signals"]
