"""CoNLI split and select (paper 001, Algorithm 1): answer sentences become hypotheses."""

from __future__ import annotations

import re

from ...base import BOOL, ClaimExtractor, Interval
from ...text import split_sentences, words
from ...types import Claim


class HypothesisSelector(ClaimExtractor):
    """Split the answer into sentences and select those worth judging (paper §3.1).

    The paper purges "sentences that are considered noise or lack factual information" and
    skips purging for short responses. Ours: with ``purge=True`` a sentence is dropped when it
    is a question, has no letter or digit, or has fewer than ``min_words`` words and nothing
    factual-looking (no digit and no capitalised word after its first); answers of at most
    ``short_answer_sentences`` sentences are never purged. Dropped sentences are, as in
    Algorithm 1 line 13, not hallucinations: they get no verdict and a mitigator leaves them.
    """

    parameter_constraints = {
        "purge": BOOL,
        "min_words": Interval(int, 0),
        "short_answer_sentences": Interval(int, 0),
    }

    def __init__(self, *, purge: bool = True, min_words: int = 3, short_answer_sentences: int = 1) -> None:
        self.purge = purge
        self.min_words = min_words
        self.short_answer_sentences = short_answer_sentences

    def is_noise(self, sentence: str) -> bool:
        if not re.search(r"[^\W_]", sentence):
            return True
        if sentence.rstrip().rstrip("\"')]”’").endswith("?"):
            return True
        toks = words(sentence)
        if len(toks) >= self.min_words:
            return False
        factual = any(any(ch.isdigit() for ch in t.text) for t in toks) or any(t.text[:1].isupper() for t in toks[1:])
        return not factual

    def extract(self, answer: str, *, question: str | None = None) -> list[Claim]:
        spans = split_sentences(answer)
        purge = self.purge and len(spans) > self.short_answer_sentences
        claims = []
        for i, s in enumerate(spans):
            if purge and self.is_noise(s.text):
                continue
            claims.append(Claim(text=s.text, start=s.start, end=s.end, kind="sentence", id=f"s{i}"))
        return claims
