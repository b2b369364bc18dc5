"""Claim extractors."""

from __future__ import annotations

from ..base import ClaimExtractor, Interval
from ..text import split_sentences
from ..types import Claim


class SentenceExtractor(ClaimExtractor):
    """Each sentence of the answer is a claim (offsets from the segmenter)."""

    parameter_constraints = {"min_chars": Interval(int, 0)}

    def __init__(self, *, min_chars: int = 1) -> None:
        self.min_chars = min_chars

    def extract(self, answer: str, *, question: str | None = None) -> list[Claim]:
        return [
            Claim(text=s.text, start=s.start, end=s.end, kind="sentence", id=f"s{i}")
            for i, s in enumerate(s for s in split_sentences(answer) if len(s.text) >= self.min_chars)
        ]
