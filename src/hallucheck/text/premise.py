"""The premise a sentence verifier reads: the claim's text and the reference sentences it is judged against.

Shared by the verifiers that read selected reference sentences (:mod:`hallucheck.stages.cross_encoder`,
:mod:`hallucheck.stages.evidence`) and by the training pairs of :mod:`hallucheck.training.pairs`, so
that training and use see the same inputs. No model, no embedding: IDF-weighted word overlap.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Sequence

from .segment import cjk_bigrams, split_sentences
from .stopwords import STOP_WORDS

_WORD = re.compile(r"[a-z0-9]+")

# reference sentences a claim is read against, unless the verifier's checkpoint says otherwise (the
# number its training pairs were made with)
PREMISE_K = 3


def claim_text(sentence: str, question: str | None) -> str:
    """The text the verifier judges: the sentence, after the question when there is one."""
    q = (question or "").strip()
    return f"{q} {sentence.strip()}" if q else sentence.strip()


def content_words(text: str) -> list[str]:
    """Lower-case words [a-z0-9] that are not stop words, then the character bigrams of any Chinese
    or Japanese text (:func:`~hallucheck.text.segment.cjk_bigrams`), so evidence selection works
    there too; English text gets exactly the words the shipped verifier was trained with."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS] + cjk_bigrams(text)


def select_evidence(claim: str, reference: str, *, k: int = PREMISE_K, sentences: Sequence[str] | None = None) -> str:
    """The top-``k`` reference sentences for ``claim`` by IDF-weighted word overlap, joined best
    first; the whole reference (stripped) when it has at most ``k`` sentences.
    ``sentences``: the reference's sentences, when the caller has split it already."""
    sents = list(sentences) if sentences is not None else [s.text for s in split_sentences(reference)]
    if len(sents) <= k:
        return reference.strip()
    return " ".join(sents[i] for i in select_evidence_indices(claim, reference, k=k, sentences=sents))


def select_evidence_indices(
    claim: str, reference: str, *, k: int = PREMISE_K, sentences: Sequence[str] | None = None
) -> list[int]:
    """Indices of the top-``k`` sentences for ``claim``, best first (so that truncation of a long
    premise drops the least relevant); all, in reference order, when there are at most ``k``."""
    sents = list(sentences) if sentences is not None else [s.text for s in split_sentences(reference)]
    if len(sents) <= k:
        return list(range(len(sents)))
    return PremiseIndex(sents).top(claim, k)


class PremiseIndex:
    """The words of a reference's sentences and their IDF, built once per reference: :meth:`top` is
    :func:`select_evidence_indices` over them, reading only the sentences that share a word with the claim."""

    def __init__(self, sentences: Sequence[str]) -> None:
        self.n = n = len(sentences)
        bags = [set(content_words(s)) for s in sentences]
        df = Counter(w for b in bags for w in b)
        self.idf = {w: math.log(1 + n / c) for w, c in df.items()}
        self.postings: dict[str, list[int]] = {}
        for i, bag in enumerate(bags):
            for w in bag:
                self.postings.setdefault(w, []).append(i)

    def top(self, claim: str, k: int = PREMISE_K) -> list[int]:
        """Indices of the top-``k`` sentences for ``claim``, best first; all, in order, when there are
        at most ``k``."""
        if self.n <= k:
            return list(range(self.n))
        shared: dict[int, list[float]] = {}
        for w in set(content_words(claim)):
            for i in self.postings.get(w, ()):
                shared.setdefault(i, []).append(self.idf[w])
        # fsum: the exactly rounded sum, whatever order the set yields its words in (that order follows
        # the process's string hashing), so equal weights tie exactly and the earlier sentence wins
        scores = {i: math.fsum(ws) for i, ws in shared.items()}
        ranked = sorted(scores, key=lambda i: (scores[i], -i), reverse=True)[:k]
        if len(ranked) < k:  # sentences sharing no word score 0, the earlier first
            ranked += [i for i in range(self.n) if i not in scores][: k - len(ranked)]
        return ranked


__all__ = ["PREMISE_K", "PremiseIndex", "claim_text", "content_words", "select_evidence", "select_evidence_indices"]


# a token of text: a run of non-space characters, its punctuation at either end not counted
_TOKEN = re.compile(r"\S+")
_EDGE = "\"'()[]{}<>.,;:!?‘’“”-–—*_"


def _tokens(text: str) -> list[tuple[str, int, int]]:
    out = []
    for m in _TOKEN.finditer(text):
        raw = m.group()
        left = len(raw) - len(raw.lstrip(_EDGE))
        core = raw.strip(_EDGE)
        if core:
            start = m.start() + left
            out.append((core.lower(), start, start + len(core)))
    return out


# words that change what the rest of their sentence asserts: a copy of the rest alone is not
# what the reference says ("is not recommended for children under 12" -> "recommended for children
# under 12"; "nearly 50 percent of patients" -> "50 percent of patients")
_QUALIFIERS = frozenset(
    "not no never nor neither without cannot except unless if whether may might could would should "
    "perhaps possibly probably likely unlikely nearly almost approximately roughly than least "
    "deny denies denied false falsely claim claims claimed alleged allegedly reportedly rumour rumours "
    "rumor rumors".split()
)


def _qualified(words: Sequence[str]) -> bool:
    return any(w in _QUALIFIERS or w.endswith("n't") or w.endswith("n’t") for w in words)


def verbatim_span(sentence: str, reference: str, *, min_words: int = 5) -> tuple[int, int] | None:
    """Where ``reference`` holds ``sentence`` word for word -- the same words in the same order, case and
    the punctuation around words aside (inner punctuation counts: "3.5" is not "35") -- as ``(start,
    end)`` offsets into ``reference``; None when it does not, or when the sentence has fewer than
    ``min_words`` words (a short fragment is inside many sentences without saying what they say). A
    copy of part of a reference sentence whose other words negate, condition or attribute it ("not",
    "if", "may", "alleged", ... outside the copied part) is no copy: the part alone says something
    else."""
    claim = [t for t, _, _ in _tokens(sentence)]
    if len(claim) < min_words:
        return None
    ref = _tokens(reference)
    words = [t for t, _, _ in ref]
    first, n = claim[0], len(claim)
    for i, w in enumerate(words[: len(words) - n + 1]):
        if w == first and words[i : i + n] == claim:
            a, b = ref[i][1], ref[i + n - 1][2]
            around = next((s for s in split_sentences(reference) if s.start <= a < s.end), None)
            if around is not None:
                rest = reference[around.start : a] + " " + reference[b : around.end]
                if _qualified([t for t, _, _ in _tokens(rest)]):
                    continue
            return a, b
    return None
