"""One policy per generation strategy: when to retrieve, how much to draft per step, and which
drafted sentence to revise (DRAD, Su et al. 2024, and the baselines of its Table 1).

The loop in :class:`~hallucheck.generation.generator.DRADGenerator` is the same for every
strategy; it asks its policy, never the strategy's name:

- ``one_shot``: the whole answer in one call (NOR, SRR) instead of ``step_tokens`` per step;
  such a policy never continues an answer.
- ``needs_logprobs``: the policy reads token log-probabilities (DRAD, TPR).
- ``uses_corpus``: the policy retrieves at all (all but NOR).
- :meth:`~GenerationPolicy.first_passages`: passages for the whole answer (SRR).
- :meth:`~GenerationPolicy.step_passages`: passages for the next draft step (FLR).
- :meth:`~GenerationPolicy.accept`: which complete sentences of a draft to examine (FLR: one).
- :meth:`~GenerationPolicy.revision`: whether a drafted sentence triggers a revision, and with
  which query (DRAD: a hallucinated entity; TPR: a low-probability token).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, ClassVar, Protocol, Sequence

from ..corpus import Passage
from ..llm.base import TokenLogprob
from ..text.segment import Span
from .rhd import EntityUncertainty, RHDDetector, token_probability

# retrieve(query, reason) -> the passages found (recorded and streamed by the loop)
Retrieve = Callable[[str, str], tuple[Passage, ...]]


class Settings(Protocol):
    """The generator parameters a policy may read (:class:`~hallucheck.generation.DRADGenerator` has them)."""

    rhd: RHDDetector
    m: int
    tpr_threshold: float


@dataclass(frozen=True)
class Draft:
    """One drafted sentence ``full[start:end]``: ``tokens`` of the draft step with their
    ``spans`` in ``full``, ``idx`` the indices of the tokens overlapping the sentence,
    ``history`` the accepted answer tokens with their spans, ``answer_len`` the length of
    the answer accepted before this step."""

    full: str
    start: int
    end: int
    tokens: Sequence[TokenLogprob]
    spans: Sequence[tuple[int, int]]
    idx: Sequence[int]
    history: Sequence[tuple[tuple[int, int], TokenLogprob]]
    answer_len: int


@dataclass(frozen=True)
class Revision:
    """Regenerate from ``full[cut:]`` with passages retrieved for ``query``; ``trigger`` is the
    retrieval reason ("entity" or "token"); ``entities`` / ``uncertain_tokens`` say why."""

    cut: int
    query: str
    trigger: str
    entities: tuple[EntityUncertainty, ...] = ()
    uncertain_tokens: tuple[str, ...] = ()


class GenerationPolicy:
    """A strategy without retrieval decisions of its own: answer in steps, revise nothing."""

    name: ClassVar[str] = ""
    one_shot: ClassVar[bool] = False
    needs_logprobs: ClassVar[bool] = False
    uses_corpus: ClassVar[bool] = True

    @classmethod
    def for_generator(cls, gen: Settings) -> GenerationPolicy:
        """The policy with the generator's parameters that it reads."""
        return cls()

    def first_passages(self, question: str, retrieve: Retrieve) -> tuple[Passage, ...] | None:
        return None

    def step_passages(
        self, question: str, last_sentence: str, fixed: tuple[Passage, ...] | None, retrieve: Retrieve
    ) -> tuple[Passage, ...] | None:
        return fixed

    def accept(self, complete: list[Span]) -> list[Span]:
        return complete

    def revision(self, draft: Draft) -> tuple[Revision | None, list[EntityUncertainty]]:
        """``(revision or None, the entities scored in the sentence)``."""
        return None, []


class NOR(GenerationPolicy):
    """No retrieval: the whole answer in one call."""

    name = "nor"
    one_shot = True
    uses_corpus = False


class SRR(GenerationPolicy):
    """Single-round retrieval: retrieve once with the question, then the whole answer in one call."""

    name = "srr"
    one_shot = True

    def first_passages(self, question: str, retrieve: Retrieve) -> tuple[Passage, ...] | None:
        return retrieve(question, "question")


class FLR(GenerationPolicy):
    """Fixed-length retrieval: before every sentence, retrieve with the last generated sentence
    (the question for the first) and generate one sentence with those passages."""

    name = "flr"

    def step_passages(
        self, question: str, last_sentence: str, fixed: tuple[Passage, ...] | None, retrieve: Retrieve
    ) -> tuple[Passage, ...] | None:
        return retrieve(last_sentence or question, "sentence" if last_sentence else "question")

    def accept(self, complete: list[Span]) -> list[Span]:
        return complete[:1]


class TPR(GenerationPolicy):
    """Token-probability retrieval (FLARE-style): a sentence holding a token with probability
    below ``threshold`` is regenerated from its start, with passages retrieved for the sentence
    without its uncertain tokens."""

    name = "tpr"
    needs_logprobs = True

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold

    @classmethod
    def for_generator(cls, gen: Settings) -> GenerationPolicy:
        return cls(gen.tpr_threshold)

    def revision(self, draft: Draft) -> tuple[Revision | None, list[EntityUncertainty]]:
        tokens, spans = draft.tokens, draft.spans
        low = {
            i
            for i in draft.idx
            if draft.full[spans[i][0] : spans[i][1]].strip() and token_probability(tokens[i]) < self.threshold
        }
        if not low:
            return None, []
        # FLARE's query: the sentence without its uncertain tokens; regenerate the whole sentence
        query = re.sub(r"\s+", " ", "".join(tokens[i].token for i in draft.idx if i not in low)).strip()
        return Revision(draft.start, query, "token", uncertain_tokens=tuple(tokens[i].token for i in sorted(low))), []


class DRAD(GenerationPolicy):
    """RHD scores the entities of each drafted sentence; on the first hallucinated one, SEK
    retrieves with the ``m`` tokens on each side of it (Eq. 5) and the sentence is regenerated
    from the entity's first token (Eq. 9)."""

    name = "drad"
    needs_logprobs = True

    def __init__(self, rhd: RHDDetector, m: int) -> None:
        self.rhd = rhd
        self.m = m

    @classmethod
    def for_generator(cls, gen: Settings) -> GenerationPolicy:
        return cls(gen.rhd, gen.m)

    def revision(self, draft: Draft) -> tuple[Revision | None, list[EntityUncertainty]]:
        tokens, spans = draft.tokens, draft.spans
        ents = self.rhd.score_entities(draft.full[: draft.end], tokens, spans, region=(draft.start, draft.end))
        flagged = [e for e in ents if e.hallucinated]
        if not flagged:
            return None, ents
        first = min(flagged, key=lambda e: e.start)
        i0, i1 = first.tokens
        cut = spans[i0][0]  # Eq. 9: truncate before the entity's first token
        # Eq. 5: the m tokens before the entity (earlier answer tokens included) and the m after it
        before = [t.token for _, t in draft.history] + [
            tokens[i].token for i in range(i0) if spans[i][0] >= draft.answer_len
        ]
        after = [tokens[i].token for i in range(i1, len(tokens))]
        query = re.sub(r"\s+", " ", "".join(before[-self.m :]) + " " + "".join(after[: self.m])).strip()
        return Revision(cut, query, "entity", entities=tuple(flagged)), ents


POLICIES: dict[str, type[GenerationPolicy]] = {p.name: p for p in (DRAD, NOR, SRR, FLR, TPR)}
METHODS = tuple(POLICIES)

__all__ = ["DRAD", "FLR", "METHODS", "NOR", "POLICIES", "SRR", "TPR", "Draft", "GenerationPolicy", "Revision"]
