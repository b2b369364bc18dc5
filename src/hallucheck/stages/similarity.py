"""DelucionQA's sentence-similarity verifiers (paper 002, §4.1, Listing 1).

- ``cosine``: an answer sentence is grounded if its embedding cosine with some reference
  sentence is > T1.
- ``overlap``: grounded if the word-overlap ratio with some reference sentence is > T2. The
  ratio comes from a dynamic-programming alignment (LCS over lower-cased words): overlapped
  phrases (contiguous runs on the optimal path) longer than max(4, 30 % of the shorter
  sentence's length) count; ratio = counted words / words of the shorter sentence.
  Our addition: for a shorter sentence of at most 4 words that rule could never count
  anything, so the phrase must then cover the whole shorter sentence (full containment).
- ``hybrid``: grounded if either holds (cosine > T1 or overlap > T2).

Scores (higher = more likely hallucinated, in [0, 1]) are monotone in the decision so they
can be thresholded and ranked (AUC), and on hallucheck's decision scale (above 0.5 exactly when
the sentence is flagged, :func:`~hallucheck.base.decision_score`): cosine: 1 - max cos, and
overlap: 1 - max ratio, each rescaled so that 1 - T lands on 0.5; hybrid: 1 / (1 + max(cos/T1,
ratio/T2)), which is >= 0.5 exactly when the sentence is flagged (0.5 itself: just above).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._lru import LRUCache
from ..base import UNIT, Interval, OneOf, Verifier, decision_score
from ..errors import ConfigError
from ..text import words
from ..types import Claim, Evidence, Verdict

MEASURES = ("cosine", "overlap", "hybrid")


def _tokens(text: str) -> list[str]:
    return [w.text.lower() for w in words(text)]


def overlap_ratio(
    a: str | Sequence[str], b: str | Sequence[str], *, min_phrase_words: int = 4, min_phrase_fraction: float = 0.3
) -> float:
    """DelucionQA's sentence-overlap ratio of two sentences (strings or token lists), in [0, 1]."""
    ta = _tokens(a) if isinstance(a, str) else list(a)
    tb = _tokens(b) if isinstance(b, str) else list(b)
    n = min(len(ta), len(tb))
    if n == 0:
        return 0.0
    threshold = max(min_phrase_words, min_phrase_fraction * n)
    if threshold >= n:  # a short sentence: only full containment counts
        threshold = n - 1
    need = int(threshold) + 1  # phrases must be strictly longer than the threshold
    # Any counted phrase is a common contiguous n-gram of length `need`: skip the DP if none.
    grams_a = {tuple(ta[i : i + need]) for i in range(len(ta) - need + 1)}
    if not any(tuple(tb[j : j + need]) in grams_a for j in range(len(tb) - need + 1)):
        return 0.0
    # LCS table over suffixes: dp[i][j] = LCS length of ta[i:] and tb[j:]
    la, lb = len(ta), len(tb)
    dp = [[0] * (lb + 1) for _ in range(la + 1)]
    for i in range(la - 1, -1, -1):
        ai, row, nxt = ta[i], dp[i], dp[i + 1]
        for j in range(lb - 1, -1, -1):
            row[j] = nxt[j + 1] + 1 if ai == tb[j] else (nxt[j] if nxt[j] >= row[j + 1] else row[j + 1])
    # walk the optimal path, preferring matches, and collect contiguous runs
    i = j = 0
    run = counted = 0
    last: tuple[int, int] | None = None
    while i < la and j < lb:
        if ta[i] == tb[j] and dp[i][j] == dp[i + 1][j + 1] + 1:
            if last is not None and last == (i - 1, j - 1):
                run += 1
            else:
                if run > threshold:
                    counted += run
                run = 1
            last = (i, j)
            i += 1
            j += 1
        elif dp[i + 1][j] >= dp[i][j + 1]:
            i += 1
        else:
            j += 1
    if run > threshold:
        counted += run
    return min(1.0, counted / n)


# every phrase :func:`overlap_ratio` counts between two sentences of this many words or more holds a
# common run of this many words
_RUN = 5


class OverlapIndex:
    """The highest :func:`overlap_ratio` of a claim with any of ``sentences``, built once per reference:
    each sentence's words, and the sentences holding each run of :data:`_RUN` words, so a claim is
    compared only with the sentences that share such a run with it (the others' ratio is 0)."""

    def __init__(self, sentences: Sequence[str]) -> None:
        self.tokens = [_tokens(s) for s in sentences]
        self.short = [i for i, t in enumerate(self.tokens) if len(t) < _RUN]
        self.runs: dict[int, list[int]] = {}  # by the run's hash: a collision only adds a sentence to compare
        for i, t in enumerate(self.tokens):
            for gram in {hash(tuple(t[j : j + _RUN])) for j in range(len(t) - _RUN + 1)}:
                self.runs.setdefault(gram, []).append(i)

    def best(self, claim: str) -> float:
        """``max(overlap_ratio(claim, s) for s in sentences)``, 0.0 for none."""
        ta = _tokens(claim)
        if len(ta) < _RUN:  # a short claim: only full containment counts, with any sentence
            return max((overlap_ratio(ta, tb) for tb in self.tokens), default=0.0)
        near: set[int] = set(self.short)
        for j in range(len(ta) - _RUN + 1):
            near.update(self.runs.get(hash(tuple(ta[j : j + _RUN])), ()))
        return max((overlap_ratio(ta, self.tokens[i]) for i in near), default=0.0)


# process-wide cache of sentence vectors (references repeat across examples)
_EMBEDDINGS = LRUCache(20000)


def embed_cached(embedder: Any, texts: Sequence[str]) -> np.ndarray:
    """``embedder.encode(texts)`` as one array, encoding only the texts not cached for this embedder."""
    name = getattr(embedder, "name", type(embedder).__name__)
    vecs = {t: _EMBEDDINGS.get((name, t)) for t in dict.fromkeys(texts)}
    missing = [t for t, v in vecs.items() if v is None]
    if missing:
        for t, v in zip(missing, embedder.encode(missing)):
            vecs[t] = v
            _EMBEDDINGS.put((name, t), v)
    rows = [vecs[t] for t in texts]
    return np.stack(rows) if rows else np.zeros((0, 384), dtype=np.float32)


def clear_embedding_cache() -> None:
    _EMBEDDINGS.clear()


class SimilarityVerifier(Verifier):
    """Flags an answer sentence that is not similar to any reference sentence.

    ``t1``: cosine threshold (used by ``cosine`` and ``hybrid``); ``t2``: overlap threshold
    (``overlap`` and ``hybrid``). Evidence candidates come from the retriever (DelucionQA:
    every reference sentence); the best match is kept as the verdict's evidence.
    """

    parameter_constraints = {
        "measure": OneOf(*MEASURES),
        "t1": UNIT,
        "t2": UNIT,
        "min_phrase_words": Interval(int, 0),
        "min_phrase_fraction": UNIT,
    }

    def __init__(
        self,
        *,
        measure: str = "hybrid",
        t1: float = 0.6,
        t2: float = 0.1,
        embedder: str = "minilm",
        min_phrase_words: int = 4,
        min_phrase_fraction: float = 0.3,
    ) -> None:
        self.measure = measure
        self.t1 = float(t1)
        self.t2 = float(t2)
        if measure == "hybrid" and (self.t1 == 0 or self.t2 == 0):
            raise ConfigError("The hybrid measure needs t1 > 0 and t2 > 0.")
        self.embedder = embedder
        self.min_phrase_words = min_phrase_words
        self.min_phrase_fraction = float(min_phrase_fraction)

    @property  # type: ignore[override]
    def languages(self) -> tuple[str, ...] | None:  # noqa: D102 (Component.languages)
        # word overlap reads any language; the cosine reads the embedder's
        from ..models.embeddings import embedder_languages

        return None if self.measure == "overlap" else embedder_languages(self.embedder)

    def _cosines(self, claims: Sequence[Claim], cands: Sequence[Sequence[Evidence]]) -> list[np.ndarray]:
        from ..models.embeddings import get_embedder

        emb = get_embedder(self.embedder)
        texts = list(dict.fromkeys([c.text for c in claims] + [e.text for row in cands for e in row]))
        vecs = embed_cached(emb, texts)
        pos = {t: i for i, t in enumerate(texts)}
        out = []
        for claim, row in zip(claims, cands):
            if not row:
                out.append(np.zeros(0))
                continue
            out.append(vecs[[pos[e.text] for e in row]] @ vecs[pos[claim.text]])
        return out

    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str = "",
    ) -> list[Verdict]:
        cos = self._cosines(claims, evidence) if self.measure in ("cosine", "hybrid") else None
        verdicts = []
        for k, (claim, row) in enumerate(zip(claims, evidence)):
            if not row:
                verdicts.append(
                    Verdict(claim, "unverifiable", True, 1.0, "The reference has no sentence to compare with.")
                )
                continue
            c = np.clip(cos[k], 0.0, 1.0) if cos is not None else None
            o = None
            if self.measure in ("overlap", "hybrid"):
                ct = _tokens(claim.text)
                o = np.array(
                    [
                        overlap_ratio(
                            ct,
                            _tokens(e.text),
                            min_phrase_words=self.min_phrase_words,
                            min_phrase_fraction=self.min_phrase_fraction,
                        )
                        for e in row
                    ]
                )
            if self.measure == "cosine":
                best = int(np.argmax(c))
                flagged = bool(c[best] <= self.t1)
                score = decision_score(1.0 - float(c[best]), flagged, 1.0 - self.t1)
                why = f"best cosine {c[best]:.2f} {'≤' if flagged else '>'} t1={self.t1:g}"
            elif self.measure == "overlap":
                best = int(np.argmax(o))
                flagged = bool(o[best] <= self.t2)
                score = decision_score(1.0 - float(o[best]), flagged, 1.0 - self.t2)
                why = f"best overlap ratio {o[best]:.2f} {'≤' if flagged else '>'} t2={self.t2:g}"
            else:
                scaled = np.maximum(c / self.t1, o / self.t2)
                best = int(np.argmax(scaled))
                s = float(scaled[best])
                flagged = bool(s <= 1.0)
                score = decision_score(1.0 / (1.0 + s), flagged)
                why = f"best match: cosine {c[best]:.2f} (t1={self.t1:g}), overlap {o[best]:.2f} (t2={self.t2:g}); " + (
                    "neither above its threshold" if flagged else "similar enough"
                )
            ev = row[best]
            sim = (
                float(c[best])
                if self.measure == "cosine"
                else float(o[best])
                if self.measure == "overlap"
                else float(scaled[best])
            )
            best_ev = Evidence(ev.text, ev.start, ev.end, score=sim, source=ev.source, meta=dict(ev.meta))
            reason = (
                "Not similar to any reference sentence: " if flagged else "Similar to a reference sentence: "
            ) + why
            verdicts.append(
                Verdict(claim, "unverifiable" if flagged else "supported", flagged, score, reason, (best_ev,))
            )
        return verdicts
