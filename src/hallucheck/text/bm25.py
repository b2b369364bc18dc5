"""Okapi BM25, the one implementation behind corpus search (:class:`hallucheck.corpus.Corpus`) and
HSP's ``bm25`` evidence matcher (:class:`hallucheck.stages.hsp_pieces.PieceRetriever`).

Documents and queries are lower-cased word tokens (:func:`bm25_tokens`); a term's idf is
``log((n - df + 0.5) / (df + 0.5) + 1)``, which stays positive; ``k1`` = 1.5 and ``b`` = 0.75 by
default. A query term given twice counts twice.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Mapping, Sequence

import numpy as np

from .segment import words


def bm25_tokens(text: str) -> list[str]:
    """The BM25 terms of ``text``: its words, lower-cased."""
    return [w.text.lower() for w in words(text)]


class BM25Index:
    """Okapi BM25 over fixed documents from postings, so a query costs only the documents that
    share a term with it."""

    def __init__(
        self,
        postings: Mapping[str, Sequence[Sequence[int]]],
        doc_lengths: Sequence[int],
        *,
        k1: float = 1.5,
        b: float = 0.75,
    ) -> None:
        self.postings = {t: [(int(d), int(f)) for d, f in p] for t, p in postings.items()}
        self.doc_lengths = [int(x) for x in doc_lengths]
        self.k1 = float(k1)
        self.b = float(b)
        n = len(self.doc_lengths)
        self.avgdl = (sum(self.doc_lengths) / n if n else 0.0) or 1.0

    @classmethod
    def build(cls, documents: Sequence[str], *, k1: float = 1.5, b: float = 0.75) -> "BM25Index":
        postings: dict[str, list[tuple[int, int]]] = {}
        lengths = []
        for j, doc in enumerate(documents):
            toks = bm25_tokens(doc)
            lengths.append(len(toks))
            for t, f in Counter(toks).items():
                postings.setdefault(t, []).append((j, f))
        return cls(postings, lengths, k1=k1, b=b)

    def scores(self, query: str) -> np.ndarray:
        n = len(self.doc_lengths)
        out = np.zeros(n)
        for t in bm25_tokens(query):  # repeated query terms count again
            plist = self.postings.get(t)
            if not plist:
                continue
            df = len(plist)
            idf = math.log((n - df + 0.5) / (df + 0.5) + 1.0)
            for d, f in plist:
                dl = self.doc_lengths[d]
                out[d] += idf * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * dl / self.avgdl))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "k1": self.k1,
            "b": self.b,
            "doc_lengths": self.doc_lengths,
            "postings": {t: [list(x) for x in p] for t, p in self.postings.items()},
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "BM25Index":
        return cls(d["postings"], d["doc_lengths"], k1=d["k1"], b=d["b"])


def bm25_scores(query: str, documents: Sequence[str], *, k1: float = 1.5, b: float = 0.75) -> np.ndarray:
    """BM25 of ``query`` against each of ``documents`` (built afresh: for a fixed set searched
    many times, build a :class:`BM25Index` once)."""
    return BM25Index.build(documents, k1=k1, b=b).scores(query)


__all__ = ["BM25Index", "bm25_scores", "bm25_tokens"]
