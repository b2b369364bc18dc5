"""Methods built on hallucheck's trained cross-encoder verifier (not from the papers).

* ``cross_encoder``: the trained verifier alone -- each answer sentence against its top-k
  reference sentences, no LLM (:class:`~hallucheck.stages.cross_encoder.CrossEncoderVerifier`).
* ``ce_cascade`` (the default): deterministic entity gate -> trained verifier combined with
  overlap and missing-fact share (learned weights) -> the LLM judge only for sentences whose score
  falls in the uncertainty band around the threshold
  (:class:`~hallucheck.stages.ce_cascade.CECascadeVerifier`). With ``--llm none`` it makes no
  LLM call at all. Flagged sentences are repaired with the HSP paper's A.3 prompt when an LLM
  is given.

The combination, thresholds and band widths were fitted on the dev sets
(``benchmarks/fit_combination.py``, ``benchmarks/tune_ce_cascade.py``; numbers and commands in
``docs/benchmarks.md``).
"""

from __future__ import annotations

from typing import Sequence

from ..llm.base import LLMClient
from ..pipeline import Pipeline
from ..stages.ce_cascade import DEFAULTS, CECascadeVerifier
from ..stages.claims import SentenceExtractor
from ..stages.cross_encoder import VERIFIER_THRESHOLD, CrossEncoderVerifier
from ..stages.evidence import CompactRetriever, LexicalRetriever
from ..stages.figure_repair import FigureRepairMitigator
from ..stages.piece_repair import PieceRepairMitigator
from ..text.premise import PREMISE_K


def cross_encoder(
    *,
    llm: LLMClient | None = None,
    model: str = "embedded",
    threshold: float = VERIFIER_THRESHOLD,
    k: int | None = None,
    supported_label: str | int | None = None,
    backend: str = "auto",
    premise: str = "sentences",
) -> Pipeline:
    """The trained verifier alone. ``model``: ``embedded``, a local directory or a hub id (NLI,
    HHEM-style and MiniCheck-style checkpoints work); ``threshold``: flag a sentence whose
    P(unsupported) exceeds it; ``k``: reference sentences per claim (default: the model's);
    ``premise``: ``sentences`` (the top-k), ``chunks`` (whole-sentence chunks of the reference, the
    best one counts) or ``both``."""
    ce = CrossEncoderVerifier(
        model=model, threshold=threshold, k=k, supported_label=supported_label, backend=backend, premise=premise
    )
    return Pipeline(
        name="cross_encoder",
        extractor=SentenceExtractor(),
        retriever=LexicalRetriever(k=k or PREMISE_K),
        verifier=ce,
        llm=llm,
    )


def ce_cascade(
    *,
    llm: LLMClient | None = None,
    gate: str = DEFAULTS.gate,
    model: str = DEFAULTS.model,
    combine: str | dict | None = DEFAULTS.combine,
    threshold: float | None = DEFAULTS.threshold,
    qa_threshold: float | None = DEFAULTS.qa_threshold,
    band: str | Sequence[float] | None = DEFAULTS.band,
    band_width: float | None = DEFAULTS.band_width,
    judge_threshold: float | None = DEFAULTS.judge_threshold,
    k: int = DEFAULTS.judge_k,
    embedder: str = DEFAULTS.embedder,
    question_mode: str = DEFAULTS.question_mode,
    premise: str = DEFAULTS.premise,
    verbatim: bool = DEFAULTS.verbatim,
) -> Pipeline:
    """Gate -> trained verifier and learned combination -> LLM judge in the uncertainty band only.
    ``combine``: the combination's weights (``"embedded"``: fitted on the dev sets by
    ``benchmarks/fit_combination.py``; a JSON path; ``None``: the verifier's score alone).
    ``threshold`` / ``qa_threshold``: flag a sentence whose score exceeds it (``None``: the
    combination's, per task); ``band``: ``"auto"`` (threshold +/- ``band_width``; ``None``: the
    combination's width per task), ``[low, high]`` or ``None`` (the LLM is never asked);
    ``judge_threshold``: the judge's own decision point, mapped onto the task threshold before its
    score is mixed with the combination's (``None``: no mapping); ``k``: evidence sentences the
    judge sees; ``question_mode``: ``auto`` (a one-sentence answer is read after its question with
    the QA weights; each sentence of a longer answer is judged on its own), ``qa`` or ``claims``;
    ``premise``: what the verifier reads a claim against (see :func:`cross_encoder`); ``verbatim``: a
    sentence the reference holds word for word is supported without the verifier's threshold or the
    judge. Every default, and what ``None`` stands for per task:
    :mod:`hallucheck.stages.ce_cascade.settings` (``hallucheck methods --params ce_cascade`` shows
    them); the verifier: :class:`~hallucheck.stages.ce_cascade.CECascadeVerifier`."""
    return Pipeline(
        name="ce_cascade",
        extractor=SentenceExtractor(),
        # the judge's evidence (as in ``cascade``, so its replies are shared through the cache); with no
        # LLM the verdicts show the verifier's own premise sentences and no embedding is computed
        retriever=CompactRetriever(k=k, embedder=embedder) if llm is not None else LexicalRetriever(k=PREMISE_K),
        verifier=CECascadeVerifier(
            llm=llm,
            gate=gate,
            model=model,
            combine=combine,
            threshold=threshold,
            qa_threshold=qa_threshold,
            band=band if band in (None, "auto") else list(band),
            band_width=band_width,
            judge_threshold=judge_threshold,
            question_mode=question_mode,
            premise=premise,
            verbatim=verbatim,
        ),
        # without an LLM, only contradicted figures are repaired (from the reference, no rewrite)
        mitigator=(
            PieceRepairMitigator(llm=llm, embedder=embedder, locate="source")
            if llm is not None
            else FigureRepairMitigator()
        ),
        llm=llm,
    )
