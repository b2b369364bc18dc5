"""The judge step: inside the task's uncertainty band, and only with an LLM, the ``cascade`` judge
(:func:`~hallucheck.stages.cascade.build_judges`: a short NLI prompt, the label read by
log-probability, calibrated; the QA prompt for a one-sentence answer read after its question) reads
the claim against its evidence. Its P(unsupported) is put on the task's scale (:func:`to_scale`:
piecewise linear, so that the judge's own threshold lands on the task's threshold; else the judge's
0.5 would count as the task threshold and it would flag far more than it does alone). What the
opinion then does to the verdict is the decision step's (:mod:`.decision`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...types import Claim, Evidence, Verdict
from ..nli import LLMNLIVerifier
from .settings import TaskSettings


def to_scale(score: float, src: float, dst: float) -> float:
    """``score`` in [0, 1] mapped piecewise linearly so that ``src`` lands on ``dst`` (and 0 on 0, 1 on 1)."""
    if src == dst:
        return score
    if score <= src:
        return dst * score / src if src > 0 else dst
    return dst + (1.0 - dst) * (score - src) / (1.0 - src) if src < 1 else 1.0


def in_band(score: float, task: TaskSettings) -> bool:
    """Whether a claim's score is inside the task's uncertainty band (where the judge is asked)."""
    return task.band is not None and task.band[0] <= score <= task.band[1]


@dataclass(frozen=True)
class Judges:
    """The judge for claims and, unless the QA prompt is off, the one for a short answer read after
    its question."""

    claims: LLMNLIVerifier
    qa: LLMNLIVerifier | None

    def for_question(self, question: str) -> tuple[LLMNLIVerifier, str | None]:
        """The judge to ask and the question it reads (None: the claim alone)."""
        if question and self.qa is not None:
            return self.qa, question
        return self.claims, None


@dataclass(frozen=True)
class Opinion:
    """The judge's answer for one claim: its verdict, and (when it answered) its P(unsupported)
    ``score`` and that score on the task's scale (``on_scale``)."""

    verdict: Verdict
    score: float | None
    on_scale: float | None

    @property
    def failed(self) -> bool:
        return self.score is None


def ask_judge(judges: Judges, claim: Claim, evidence: Sequence[Evidence], question: str, task: TaskSettings) -> Opinion:
    """Ask the judge about one claim (one LLM call, after the calibration call of its first)."""
    judge, q = judges.for_question(question)
    j = judge.judge_one(claim, evidence, question=q) if q is not None else judge.judge_one(claim, evidence)
    if j.status != "ok" or j.score is None:
        return Opinion(j, None, None)
    score = float(j.score)
    return Opinion(j, score, to_scale(score, task.judge_threshold, task.threshold))


__all__ = ["Judges", "Opinion", "ask_judge", "in_band", "to_scale"]
