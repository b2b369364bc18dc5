"""What a generation run returns and streams: retrievals, corrections, the result and its events."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..corpus import Passage
from ..text.segment import split_sentences
from ..types import Serialisable, Usage
from .rhd import EntityUncertainty

# what replaces a sentence whose revision holds an entity the retrieved passages do not
NOT_FOUND = "I could not find this in the retrieved passages."


@dataclass(frozen=True)
class Retrieval(Serialisable):
    """One call of the retrieval module: why, with which query, what came back."""

    reason: str  # "question" (srr, flr's first), "sentence" (flr), "entity" (drad), "token" (tpr)
    query: str
    passages: tuple[Passage, ...]

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Retrieval":
        return cls(d["reason"], d["query"], tuple(Passage.from_dict(p) for p in d.get("passages") or ()))


@dataclass(frozen=True)
class Correction(Serialisable):
    """A sentence revised once: ``answer[start:end]`` is the regenerated text, which replaced
    ``original[start - sentence_start:]`` of the drafted sentence ``original`` (the text before
    ``start`` was kept). For ``drad``, ``entities`` are the hallucinated entities of the draft,
    their offsets in the same coordinates (``original[e.start - sentence_start:e.end -
    sentence_start] == e.text``); for ``tpr``, ``uncertain_tokens`` triggered it."""

    sentence_start: int
    start: int
    end: int
    original: str
    revised: str
    trigger: str  # "entity" | "token"
    retrieval: Retrieval
    entities: tuple[EntityUncertainty, ...] = ()
    uncertain_tokens: tuple[str, ...] = ()
    # check_revisions: the regenerated text held facts the passages lack, so it was rejected and
    # the whole drafted sentence replaced by NOT_FOUND (then start == sentence_start)
    unsupported: tuple[str, ...] = ()
    rejected: str = ""

    @property
    def abstained(self) -> bool:
        """True when the passages did not hold the answer and NOT_FOUND replaced the sentence."""
        return bool(self.unsupported)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Correction":
        return cls(
            sentence_start=d["sentence_start"],
            start=d["start"],
            end=d["end"],
            original=d["original"],
            revised=d["revised"],
            trigger=d["trigger"],
            retrieval=Retrieval.from_dict(d["retrieval"]),
            entities=tuple(EntityUncertainty.from_dict(e) for e in d.get("entities") or ()),
            uncertain_tokens=tuple(d.get("uncertain_tokens") or ()),
            unsupported=tuple(d.get("unsupported") or ()),
            rejected=d.get("rejected", ""),
        )


@dataclass(frozen=True)
class GenerationResult(Serialisable):
    """A generated answer with what was retrieved and corrected, and what it cost.

    ``entities``: every entity RHD scored in accepted draft sentences (``drad`` only; offsets
    into ``answer`` for entities of sentences kept as drafted, flagged ones are in
    ``corrections``). ``short_answer``: :func:`extract_answer` of ``answer``."""

    question: str
    answer: str
    short_answer: str
    method: str
    retrievals: tuple[Retrieval, ...] = ()
    corrections: tuple[Correction, ...] = ()
    entities: tuple[EntityUncertainty, ...] = ()
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0
    llm_calls: int = 0
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def retrieval_calls(self) -> int:
        return len(self.retrievals)

    @property
    def passages(self) -> tuple[Passage, ...]:
        """Every distinct passage that was put in a prompt, in first-use order."""
        seen: dict[str, Passage] = {}
        for r in self.retrievals:
            for p in r.passages:
                seen.setdefault(p.id, p)
        return tuple(seen.values())

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d["retrieval_calls"] = self.retrieval_calls
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "GenerationResult":
        return cls(
            question=d["question"],
            answer=d["answer"],
            short_answer=d.get("short_answer", ""),
            method=d["method"],
            retrievals=tuple(Retrieval.from_dict(r) for r in d.get("retrievals") or ()),
            corrections=tuple(Correction.from_dict(c) for c in d.get("corrections") or ()),
            entities=tuple(EntityUncertainty.from_dict(e) for e in d.get("entities") or ()),
            usage=Usage.from_dict(d.get("usage") or {}),
            seconds=d.get("seconds", 0.0),
            llm_calls=d.get("llm_calls", 0),
            params=dict(d.get("params") or {}),
        )


@dataclass(frozen=True)
class GenerationEvent:
    """Streamed to ``on_event``: ``retrieval`` (data: Retrieval), ``sentence`` (an accepted
    sentence as drafted; data: None) or ``correction`` (a revised sentence; data: Correction).
    ``text`` is the accepted text added to the answer (with its leading space)."""

    kind: str
    text: str
    data: Any = None


def extract_answer(text: str) -> str:
    """The short answer of a generated answer: what follows the last "answer is" (as the
    paper's pattern matching, §4.2), else the first sentence; without a final full stop."""
    matches = list(re.finditer(r"answer is\s*:?\s*", text, re.IGNORECASE))
    if matches:
        tail = text[matches[-1].end() :].strip()
        tail = split_sentences(tail)[0].text if split_sentences(tail) else tail
        return tail.rstrip(" .").strip().strip("\"“”'*")
    sents = split_sentences(text)
    return (sents[0].text if sents else text).strip().rstrip(".")


__all__ = ["NOT_FOUND", "Correction", "GenerationEvent", "GenerationResult", "Retrieval", "extract_answer"]
