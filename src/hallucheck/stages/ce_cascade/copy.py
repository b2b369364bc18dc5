"""The copy step: an answer sentence the reference holds word for word (five words or more) and the
gate passed is supported, with no verifier threshold and no judge call -- only inside one sentence of
one passage that neither conditions, limits, hedges, negates, attributes nor quotes it, with no
sentence around it that refutes it (the rule: :mod:`hallucheck.stages.copy_rule`; where unsure, no
copy). ``verbatim=False`` turns the step off.
"""

from __future__ import annotations

from ...types import Claim, Evidence, Verdict
from ..copy_rule import CopyIndex
from .combination import Combined
from .settings import TaskSettings


def find_copy(index: CopyIndex | None, claim: Claim) -> tuple[int, int] | None:
    """Where the reference holds ``claim`` as support, as ``(start, end)``; None when it does not."""
    return index.find(claim.text) if index is not None else None


def copy_verdict(
    claim: Claim, span: tuple[int, int], reference: str, combined: Combined, task: TaskSettings
) -> Verdict:
    """Supported, with the copied words as evidence; scored at most at the task threshold."""
    a, b = span
    return Verdict(
        claim,
        "supported",
        False,
        min(combined.score, task.threshold),
        f"The reference says this word for word (characters {a}-{b}): supported with no judge ({combined.named}).",
        (Evidence(reference[a:b], a, b, meta={"verbatim": True}),),
        meta={**combined.meta, "stage": "copy"},
    )


__all__ = ["copy_verdict", "find_copy"]
