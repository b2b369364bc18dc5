"""The trained cross-encoder verifier (:mod:`hallucheck.models.cross_encoder`): the ``cross_encoder``
method's verifier, and the score the default method (:mod:`hallucheck.stages.ce_cascade`) combines.

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

from typing import Any, Sequence

from ..base import NONE, POSITIVE_INT, UNIT, OneOf, Verifier, scored_verdict
from ..errors import ConfigError
from ..text.chunks import sentence_chunks
from ..text.premise import PREMISE_K
from ..text.segment import Span
from ..types import Claim, Evidence, Verdict

# what a claim is read against: the top-k reference sentences by overlap, whole-document chunks of
# sentences (the lowest score over chunks), or the lower of the two
PREMISES = ("sentences", "chunks", "both")

# the verifier alone: P(unsupported) above this flags a sentence
VERIFIER_THRESHOLD = 0.5


class CrossEncoderVerifier(Verifier):
    """A trained (evidence, claim) classifier; score = P(claim not supported by the evidence).

    ``model``: ``"embedded"`` (hallucheck's shipped verifier), a local directory (ONNX with
    ``tokenizer.json``, or a Hugging Face checkpoint) or a hub id. ``k``: premise sentences per
    claim (``None``: the model's own setting, else :data:`~hallucheck.text.premise.PREMISE_K`). ``supported_label``: the label (name or
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
        threshold: float = VERIFIER_THRESHOLD,
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
            from ..models.cross_encoder import MAX_LENGTH, get_cross_encoder, model_settings

            # the length the model was trained with, unless given (read from its config, not by loading it twice)
            length = self.max_length or int(model_settings(self.model).get("max_length") or MAX_LENGTH)
            self._encoder = get_cross_encoder(
                self.model, length, self.batch_size, self.supported_label, self.onnx_file, self.backend
            ).load()
        return self._encoder

    @property
    def premise_k(self) -> int:
        return self.k or int(self.encoder.meta.get("k", PREMISE_K))

    def premises(
        self, claims: Sequence[Claim], reference: str, question: str | None, sentences: Sequence[Span] | None = None
    ) -> tuple[list[str], list[str], list[tuple[Evidence, ...]]]:
        """(premise texts, claim texts, premise evidence with offsets) for the encoder. ``sentences``: the
        reference's sentences when the caller has split it otherwise (else the reference is read as
        :func:`~hallucheck.stages.prepared.prepare` parsed it, once)."""
        from ..text.premise import claim_text, select_evidence_indices
        from .prepared import prepare

        prepared = prepare(reference) if sentences is None else None
        spans = prepared.sentences if prepared is not None else list(sentences or ())
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
                if prepared is not None:
                    idx = prepared.premises.top(hyp, k)
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
        from ..models.cross_encoder import MAX_LENGTH

        length = self.max_length or int(self.encoder.meta.get("max_length") or MAX_LENGTH)
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
        from .prepared import prepare

        words = self.premise_words
        chunks = prepare(reference).part(("chunks", words), lambda: sentence_chunks(reference, words))
        chunks = chunks or [Span(0, len(reference), reference)]
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
        where = "reference" if len(evidence) == 1 and evidence[0].meta.get("whole") else "closest reference sentences"
        found = f"no support for this sentence in the {where}" if flagged else f"this sentence supported by the {where}"
        reason = f"The trained verifier finds {found} (score {score:.2f}, flagged above {t:.2f})."
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


def __getattr__(name: str) -> Any:
    """The combination's signals, once here, now in :mod:`hallucheck.stages.ce_cascade.combination`."""
    if name in ("claim_signals", "sentence_signals"):
        from .ce_cascade import combination

        return getattr(combination, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["PREMISES", "VERIFIER_THRESHOLD", "CrossEncoderVerifier"]
