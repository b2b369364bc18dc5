"""DRAD on the proxied stream: where the upstream returns token log-probabilities (a request with
``logprobs: true``), each sentence's entities are scored with RHD
(:class:`hallucheck.generation.rhd.RHDDetector`) as soon as the sentence is over: an entity the
model generated with low probability (or high entropy) flags the sentence from the generation
itself, before or beside the check against the reference. The result goes in the sentence's
verdict chunk as ``"rhd"``."""

from __future__ import annotations

from typing import Any, Sequence

from ..errors import HallucheckError
from ..generation.rhd import RHDDetector, align_tokens, tokens_from_openai
from ..llm.base import TokenLogprob
from ..models.ner import Entity


class StreamTokens:
    """The generated tokens of choice 0 with their log-probabilities, as they stream in."""

    def __init__(self) -> None:
        self.tokens: list[TokenLogprob] = []

    def add(self, logprobs: Any) -> None:
        """Take a chunk's ``choices[0].logprobs`` (``{"content": [{token, logprob, top_logprobs}]}``)."""
        if not isinstance(logprobs, dict) or not logprobs.get("content"):
            return
        try:
            self.tokens.extend(tokens_from_openai(logprobs))
        except HallucheckError:  # a malformed entry: no RHD rather than a failed stream
            return

    def __bool__(self) -> bool:
        return bool(self.tokens)


def score_sentence(
    detector: RHDDetector, text: str, tokens: Sequence[TokenLogprob], start: int, end: int
) -> dict[str, Any]:
    """RHD of the sentence ``text[start:end]``: whether an entity in it is flagged, the highest
    entity score (1 - pooled probability) and the entities (offsets in the sentence)."""
    try:
        spans = align_tokens(text, tokens)
        found = [Entity(e.text, e.start + start, e.end + start, e.label) for e in detector.entities(text[start:end])]
        scored = detector.score_entities(text, tokens, spans, region=(start, end), entities=found)
    except HallucheckError as exc:  # e.g. spaCy or its model is not installed
        return {"error": str(exc)[:300]}
    entities = [
        {
            "text": e.text,
            "label": e.label,
            "start": e.start - start,
            "end": e.end - start,
            "probability": round(e.probability, 6),
            "entropy": round(e.entropy, 6),
            "hallucinated": e.hallucinated,
            "reason": e.reason,
        }
        for e in scored
    ]
    return {
        "hallucinated": any(e.hallucinated for e in scored),
        "score": max((e.score for e in scored), default=0.0),
        "entities": entities,
    }
