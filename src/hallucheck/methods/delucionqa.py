"""DelucionQA detectors (Sadat et al. 2023, paper 002, §4.1-4.3; see docs/references.md).

Thresholds default to the paper's values tuned on DelucionQA dev: T1 = 0.6 (cosine),
T2 = 0.1 (overlap), (T1, T2) = (0.1, 0.9) (hybrid), T3 = 0.2 (keyword match).
"""

from __future__ import annotations

from ..llm.base import LLMClient
from ..pipeline import Pipeline
from ..stages.claims import SentenceExtractor
from ..stages.evidence import AllSentencesRetriever
from ..stages.keyword import KeywordVerifier
from ..stages.similarity import SimilarityVerifier


def sim_cosine(*, llm: LLMClient | None = None, t1: float = 0.6, embedder: str = "minilm") -> Pipeline:
    return Pipeline(
        name="sim_cosine",
        extractor=SentenceExtractor(),
        retriever=AllSentencesRetriever(),
        verifier=SimilarityVerifier(measure="cosine", t1=t1, embedder=embedder),
        llm=llm,
    )


def sim_overlap(
    *, llm: LLMClient | None = None, t2: float = 0.1, min_phrase_words: int = 4, min_phrase_fraction: float = 0.3
) -> Pipeline:
    return Pipeline(
        name="sim_overlap",
        extractor=SentenceExtractor(),
        retriever=AllSentencesRetriever(),
        verifier=SimilarityVerifier(
            measure="overlap", t2=t2, min_phrase_words=min_phrase_words, min_phrase_fraction=min_phrase_fraction
        ),
        llm=llm,
    )


def sim_hybrid(*, llm: LLMClient | None = None, t1: float = 0.1, t2: float = 0.9, embedder: str = "minilm") -> Pipeline:
    return Pipeline(
        name="sim_hybrid",
        extractor=SentenceExtractor(),
        retriever=AllSentencesRetriever(),
        verifier=SimilarityVerifier(measure="hybrid", t1=t1, t2=t2, embedder=embedder),
        llm=llm,
    )


def keyword_match(*, llm: LLMClient | None = None, t3: float = 0.2) -> Pipeline:
    return Pipeline(
        name="keyword_match",
        extractor=SentenceExtractor(),
        retriever=AllSentencesRetriever(),
        verifier=KeywordVerifier(llm=llm, t3=t3),
        llm=llm,
    )
