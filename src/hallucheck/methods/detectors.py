"""Published open detectors as their authors run them, each alone behind hallucheck's interface.

* ``hhem``: Vectara's HHEM-2.1-open (:class:`~hallucheck.stages.hhem.HHEMVerifier`);
* ``minicheck``: MiniCheck's RoBERTa-L, DeBERTa-v3-L and Flan-T5-L checkpoints
  (:class:`~hallucheck.stages.minicheck.MiniCheckVerifier`);
* ``lettucedetect``: KRLabs' LettuceDetect token classifier, its hallucinated spans grouped into
  the answer's sentences (:class:`~hallucheck.stages.lettucedetect.LettuceDetectVerifier`);
* ``bespoke_minicheck``, ``granite_guardian``, ``lynx``: LLM detectors served by any
  OpenAI-compatible endpoint (:mod:`hallucheck.stages.llm_detectors`).

The encoder detectors check each answer sentence against the whole reference (chunked as the
authors do when it is long), with no LLM; their weights load on first use from a local directory
or the hub. The LLM detectors need ``--llm openai:MODEL --base-url URL`` serving that model;
Lynx and Granite Guardian judge the whole answer, as their authors run them (``unit="sentence"``
checks each sentence instead).
"""

from __future__ import annotations

from ..base import OneOf, Verifier, check_param
from ..llm.base import LLMClient
from ..pipeline import Pipeline

# ce_cascade reads these detectors in place of its shipped verifier (``model=hhem`` ...); the stage resolves them
from ..stages.ce_cascade import CASCADE_DETECTORS, cascade_detector, detector_scores  # noqa: F401
from ..stages.claims import SentenceExtractor
from ..stages.evidence import WholeReferenceRetriever
from ..stages.hhem import HHEM_HUB_ID, HHEM_THRESHOLD, HHEMVerifier
from ..stages.lettucedetect import LETTUCEDETECT_THRESHOLD, LettuceDetectVerifier
from ..stages.llm_detectors import (
    BESPOKE_CHUNK,
    THRESHOLD,
    BespokeMiniCheckVerifier,
    GraniteGuardianVerifier,
    LynxVerifier,
)
from ..stages.minicheck import MINICHECK_THRESHOLD, MiniCheckVerifier
from ..stages.nli import WholeAnswerExtractor


def hhem(
    *,
    llm: LLMClient | None = None,
    model: str = HHEM_HUB_ID,
    foundation: str | None = None,
    threshold: float = HHEM_THRESHOLD,
    max_length: int = 2048,
) -> Pipeline:
    """HHEM-2.1-open on each answer sentence against the reference. ``model``: the checkpoint (a
    local directory or hub id); ``foundation``: its T5 configuration and tokenizer (default: the
    checkpoint's, ``google/flan-t5-base``); ``threshold``: flag above this P(unsupported)."""
    verifier = HHEMVerifier(model=model, foundation=foundation, threshold=threshold, max_length=max_length)
    return _each_sentence("hhem", verifier, llm)


def minicheck(
    *,
    llm: LLMClient | None = None,
    model: str = "flan-t5-large",
    threshold: float = MINICHECK_THRESHOLD,
    chunk_size: int | None = None,
) -> Pipeline:
    """MiniCheck on each answer sentence against the reference's chunks. ``model``:
    ``flan-t5-large`` | ``roberta-large`` | ``deberta-v3-large`` or a local directory / hub id;
    ``chunk_size``: the authors' (default 500 words for Flan-T5, 400 tokens for the others)."""
    return _each_sentence("minicheck", MiniCheckVerifier(model=model, threshold=threshold, chunk_size=chunk_size), llm)


def lettucedetect(
    *,
    llm: LLMClient | None = None,
    model: str = "base",
    threshold: float = LETTUCEDETECT_THRESHOLD,
    max_length: int = 4096,
    chunk_aggregation: str = "max",
) -> Pipeline:
    """LettuceDetect over the whole answer (with the question in QA), its hallucinated tokens grouped
    into the answer's sentences. ``model``: ``base`` | ``large`` (the authors' ModernBERT
    checkpoints) or a local directory / hub id; ``chunk_aggregation``: over groups of passages of a long
    reference, ``max`` (the authors') or ``min`` (the best group decides)."""
    verifier = LettuceDetectVerifier(
        model=model, threshold=threshold, max_length=max_length, chunk_aggregation=chunk_aggregation
    )
    return _each_sentence("lettucedetect", verifier, llm)


def _each_sentence(name: str, verifier: Verifier, llm: LLMClient | None) -> Pipeline:
    """A detector's recipe: each answer sentence against the whole reference."""
    return Pipeline(
        name=name, extractor=SentenceExtractor(), retriever=WholeReferenceRetriever(), verifier=verifier, llm=llm
    )


def _extractor(unit: str, method: str) -> SentenceExtractor | WholeAnswerExtractor:
    check_param(method, "unit", unit, OneOf("answer", "sentence"))
    return WholeAnswerExtractor() if unit == "answer" else SentenceExtractor()


def bespoke_minicheck(
    *, llm: LLMClient | None = None, threshold: float = THRESHOLD, chunk_size: int = BESPOKE_CHUNK
) -> Pipeline:
    """Bespoke-MiniCheck-7B on each answer sentence against the reference's chunks (the authors'
    32,468 tokens); served by ``--llm openai:bespokelabs/Bespoke-MiniCheck-7B --base-url URL``."""
    return Pipeline(
        name="bespoke_minicheck",
        extractor=SentenceExtractor(),
        retriever=WholeReferenceRetriever(),
        verifier=BespokeMiniCheckVerifier(llm=llm, threshold=threshold, chunk_size=chunk_size),
        llm=llm,
    )


def granite_guardian(
    *, llm: LLMClient | None = None, threshold: float = THRESHOLD, max_context: int | None = None, unit: str = "answer"
) -> Pipeline:
    """Granite Guardian 3.0-3.2's groundedness risk on the answer (``unit="sentence"``: on each
    sentence) against the reference; P(risk) from its Yes/No alternatives. Needs a
    text-completions endpoint (vLLM, Ollama, llama.cpp's server)."""
    return Pipeline(
        name="granite_guardian",
        extractor=_extractor(unit, "granite_guardian"),
        retriever=WholeReferenceRetriever(),
        verifier=GraniteGuardianVerifier(llm=llm, threshold=threshold, max_context=max_context),
        llm=llm,
    )


def lynx(
    *,
    llm: LLMClient | None = None,
    threshold: float = THRESHOLD,
    max_context: int | None = None,
    unit: str = "answer",
    max_tokens: int = 600,
) -> Pipeline:
    """PatronusAI Lynx on the answer (``unit="sentence"``: on each sentence) with the question
    against the reference: its JSON verdict, PASS or FAIL, P(FAIL) from the label token's
    alternatives where the endpoint gives them."""
    return Pipeline(
        name="lynx",
        extractor=_extractor(unit, "lynx"),
        retriever=WholeReferenceRetriever(),
        verifier=LynxVerifier(llm=llm, threshold=threshold, max_context=max_context, max_tokens=max_tokens),
        llm=llm,
    )
