"""The gate step: the figure check (:class:`~hallucheck.stages.entity_check.EntityCheckVerifier`,
``gate="entities"`` for numbers and names, ``"numbers"`` for numbers only, ``"none"``: no gate) reads
every claim first; a claim it flags is decided there, with no verifier threshold and no judge.

Its verdict also gives the claim's ``missing_share`` (:func:`~hallucheck.stages.cascade.missing_share`),
one of the combination's signals, for the claims it passes too (0 then).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence, TypeGuard

from ...types import Claim, Evidence, Verdict
from ..cascade import missing_share
from ..entity_check import EntityCheckVerifier
from .combination import Combined
from .settings import TaskSettings


def run_gate(
    gate: EntityCheckVerifier | None,
    claims: Sequence[Claim],
    evidence: Sequence[Sequence[Evidence]],
    *,
    reference: str,
    question: str | None,
    answer: str,
) -> Sequence[Verdict | None]:
    """The gate's verdict of each claim (None for each with no gate)."""
    if gate is None:
        return [None] * len(claims)
    return gate.verify(claims, evidence, reference=reference, question=question, answer=answer)


def gated(verdict: Verdict | None) -> TypeGuard[Verdict]:
    """Whether the gate decided the claim (it flagged it)."""
    return verdict is not None and bool(verdict.hallucinated)


def gate_verdict(verdict: Verdict, combined: Combined, task: TaskSettings) -> Verdict:
    """The verdict of a claim the gate flagged: the gate's, scored above the task threshold by the
    share of its facts that are missing (so that ``score > threshold`` agrees with it), never below the
    combination's score."""
    t = task.threshold
    score = max(combined.score, t + (1.0 - t) * max(missing_share(verdict), 1e-3))
    return replace(verdict, score=score, meta={**verdict.meta, **combined.meta, "stage": "gate"})


__all__ = ["gate_verdict", "gated", "run_gate"]
