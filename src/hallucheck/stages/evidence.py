"""Evidence retrievers: split the reference and pick candidate evidence per claim."""

from __future__ import annotations

from typing import Sequence

from ..base import POSITIVE_INT, TEXT, EvidenceRetriever
from ..types import Claim, Evidence
from .prepared import prepare


def reference_sentences(reference: str) -> list[Evidence]:
    """The reference's sentences as evidence, each with its ``index`` (split once per reference: .prepared)."""
    return [
        Evidence(text=s.text, start=s.start, end=s.end, meta={"index": i})
        for i, s in enumerate(prepare(reference).sentences)
    ]


class AllSentencesRetriever(EvidenceRetriever):
    """Every reference sentence is a candidate for every claim (DelucionQA's exhaustive pairing)."""

    def retrieve(self, claims: Sequence[Claim], reference: str, *, question: str | None = None) -> list[list[Evidence]]:
        sents = reference_sentences(reference)
        return [list(sents) for _ in claims]


class WholeReferenceRetriever(EvidenceRetriever):
    """The whole reference (without surrounding whitespace) is the evidence of every claim:
    whole-text NLI such as CoNLI and the HSP paper's prompt baseline."""

    def retrieve(self, claims: Sequence[Claim], reference: str, *, question: str | None = None) -> list[list[Evidence]]:
        stripped = reference.strip()
        start = reference.index(stripped) if stripped else 0
        whole = Evidence(
            text=stripped, start=start, end=start + len(stripped), source="reference", meta={"whole": True}
        )
        return [[whole] for _ in claims]


class EmbeddingRetriever(EvidenceRetriever):
    """Top-k reference sentences per claim by embedding cosine similarity."""

    parameter_constraints = {"k": POSITIVE_INT, "embedder": TEXT}

    def __init__(self, *, k: int = 3, embedder: str = "minilm") -> None:
        self.k = k
        self.embedder = embedder

    def retrieve(self, claims: Sequence[Claim], reference: str, *, question: str | None = None) -> list[list[Evidence]]:
        from ..models.embeddings import get_embedder
        from .similarity import embed_cached

        sents = reference_sentences(reference)
        if not claims or not sents:
            return [[] for _ in claims]
        emb = get_embedder(self.embedder)
        sims = embed_cached(emb, [c.text for c in claims]) @ prepare(reference).vectors(emb).T
        out = []
        for row in sims:
            top = row.argsort()[::-1][: self.k]
            out.append(
                [
                    Evidence(sents[j].text, sents[j].start, sents[j].end, score=float(row[j]), meta=dict(sents[j].meta))
                    for j in top
                ]
            )
        return out


class CompactRetriever(EmbeddingRetriever):
    """The whole reference when it has at most ``k`` sentences (one evidence, the same for every
    claim, so a backend's prefix cache serves all claims); otherwise the top-``k`` sentences by
    embedding cosine, given in reference order (reading order helps an LLM judge)."""

    def retrieve(self, claims: Sequence[Claim], reference: str, *, question: str | None = None) -> list[list[Evidence]]:
        if len(reference_sentences(reference)) <= self.k:
            return WholeReferenceRetriever().retrieve(claims, reference, question=question)
        return [sorted(ev, key=lambda e: e.start) for ev in super().retrieve(claims, reference, question=question)]


class LexicalRetriever(EvidenceRetriever):
    """Top-``k`` reference sentences per claim by IDF-weighted word overlap, best first (the whole
    reference when it has at most ``k`` sentences): the premise the trained cross-encoder sees
    (:func:`hallucheck.text.premise.select_evidence`). No model, no embedding."""

    parameter_constraints = {"k": POSITIVE_INT}

    def __init__(self, *, k: int = 3) -> None:
        self.k = k

    def retrieve(self, claims: Sequence[Claim], reference: str, *, question: str | None = None) -> list[list[Evidence]]:
        from ..text.premise import claim_text

        prepared = prepare(reference)
        spans = prepared.sentences
        if len(spans) <= self.k:
            return WholeReferenceRetriever().retrieve(claims, reference, question=question)
        out = []
        for c in claims:
            idx = prepared.premises.top(claim_text(c.text, question), self.k)
            out.append([Evidence(spans[i].text, spans[i].start, spans[i].end, meta={"index": i}) for i in idx])
        return out
