"""The decision step: a claim's verdict from its combined score, and the judge's opinion where the
judge was asked.

- outside the band, or with no LLM: the combined score against the task threshold
  (:func:`verifier_verdict`);
- inside it: the final score mixes the two by the task's ``judge_weight`` (:func:`final_score`; 1.0:
  the judge decides alone) and is read against the threshold
  (:func:`judge_verdict`);
- a judge that could not answer leaves the claim unverified (:func:`failed_verdict`: an error
  verdict, exit 3), never silently "grounded".
"""

from __future__ import annotations

from typing import Sequence

from ...types import Claim, Evidence, Verdict
from .combination import Combined
from .judge import Opinion
from .settings import TaskSettings

# said with --llm none on a summary or a claim, where the trained verifier does not transfer
WEAK_ALONE = (
    "Without an LLM the trained verifier decides alone, and on summaries and claims unlike HaluEval's it is "
    "weak and flags many correct sentences (docs/benchmarks.md, 'Every signal alone and combined'): add --llm "
    "(e.g. --llm embedded) so that the LLM judge reads the sentences it is unsure of; where the errors you "
    "fear are figures and names, --method entity_check (the figure check alone) did better on data the "
    "verifier never saw; with labelled examples of your own, compare both with hallucheck eval."
)
# said with --llm none on a short answer read after its question, where a wrong name or number the
# reference also states is rarely caught
WEAK_SHORT_ANSWER = (
    "Without an LLM a short answer that the reference states is mostly taken as grounded: whether it answers "
    "the question is barely read (docs/benchmarks.md, 'HaluEval-QA with both forms per label': 12 % of "
    "wrong short answers caught): add --llm (e.g. --llm embedded) so that the LLM judge reads it."
)
# the meta key of a claim the verifier decided alone although its score is in the band where an LLM
# judge would have been asked
UNDECIDED = "undecided"


def finds(flagged: bool) -> str:
    """What a scorer that flags (or passes) a sentence finds, in words."""
    return "no support for this sentence in the reference" if flagged else "this sentence supported by the reference"


def verifier_verdict(
    claim: Claim,
    combined: Combined,
    evidence: Sequence[Evidence],
    task: TaskSettings,
    *,
    weak: bool | str | None,
    undecided: bool = False,
) -> Verdict:
    """The combined score decides alone. ``weak``: say that the verifier alone is weak here (True:
    :data:`WEAK_ALONE`; a string: that warning);
    ``undecided``: the score is inside the band where an LLM judge would have been asked, and there was
    none -- the reason says so and ``meta["undecided"]`` is True, so that a report or a repair can say
    that this sentence needs an LLM."""
    t = task.threshold
    flagged = combined.score > t
    warning = weak if isinstance(weak, str) else WEAK_ALONE
    meta = {**combined.meta, "warning": warning} if weak else dict(combined.meta)
    reason = f"The {combined.who} finds {finds(flagged)} ({combined.how}; flagged above {t:.2f})."
    if undecided:
        meta[UNDECIDED] = True
        reason += (
            " Its score is in the uncertainty band around the threshold, where an LLM judge would read the "
            f"sentence: with no LLM the verifier decided alone (add --llm to settle it; band {band_text(task)})."
        )
    return Verdict(
        claim,
        "unverifiable" if flagged else "supported",
        flagged,
        combined.score,
        reason,
        tuple(evidence),
        meta={**meta, "stage": "verifier"},
    )


def band_text(task: TaskSettings) -> str:
    """The task's band in words, ``[low, high]``."""
    low, high = task.band if task.band is not None else (0.0, 1.0)
    return f"[{low:.2f}, {high:.2f}]"


def failed_verdict(
    claim: Claim, combined: Combined, evidence: Sequence[Evidence], opinion: Opinion, task: TaskSettings
) -> Verdict:
    """The verifier was unsure and the judge that should settle it could not answer: no verdict
    (``--llm none`` accepts the verifier's own decision)."""
    return Verdict.failed(
        claim,
        f"Could not verify: the {combined.who} is unsure of this sentence and the LLM judge that should settle "
        f"it failed ({opinion.verdict.reason.rstrip('.')}). Rerun when the LLM is back, or with --llm none to "
        f"take the verifier's decision ({combined.named}; uncertainty band {band_text(task)}).",
        raw=opinion.verdict.raw,
        evidence=evidence,
        meta={**combined.meta, "stage": "judge"},
    )


def final_score(combined: float, judge_on_scale: float, judge_weight: float) -> float:
    """The score of a claim the judge was asked about: the combination's and the judge's (on the
    task's scale) mixed by ``judge_weight``."""
    return (1.0 - judge_weight) * combined + judge_weight * judge_on_scale


def judge_verdict(
    claim: Claim, combined: Combined, evidence: Sequence[Evidence], opinion: Opinion, task: TaskSettings
) -> Verdict:
    """The verdict of a claim the judge answered: :func:`final_score` against the task threshold; the
    judge's label when the two agree on flagging, else the plain one. The reason says in words who
    decided and what they found, then the judge's reply, then the scores: the judge's against its own
    threshold, the final one against the task's, and the combination's."""
    j, score, on_scale = opinion.verdict, float(opinion.score or 0.0), float(opinion.on_scale or 0.0)
    t, jt, w = task.threshold, task.judge_threshold, task.judge_weight
    final = final_score(combined.score, on_scale, w)
    flagged = final > t
    judge_flags = score > jt
    everywhere = task.band is None or (task.band[0] <= 0.0 and task.band[1] >= 1.0)
    unsure = (
        f"The {combined.who} is unsure of this sentence (its score is in the uncertainty band around the "
        "threshold), so the LLM judge"
    )
    outcome = "flagged" if flagged else "not flagged"
    if w >= 1.0:  # the judge decides alone: every sentence, or those inside the band
        words = "The LLM judge decides summaries and claims" if everywhere else f"{unsure} decides"
        words += (
            f": it finds {finds(judge_flags)}, {'so' if judge_flags == flagged else 'but'} the sentence is {outcome}."
        )
    else:
        both = "and" if judge_flags == flagged else "but"
        words = (
            f"{unsure} was asked: it finds {finds(judge_flags)}, {both} with the verifier's score taken into "
            f"account the sentence is {outcome}."
        )
    band = "" if everywhere else f"; uncertainty band {band_text(task)}"
    reason = (
        f"{words} The judge's reply: {j.reason.rstrip('.')}. Scores: judge {score:.2f} (its own threshold "
        f"{jt:.2f}), final {final:.2f} (flagged above {t:.2f}){band}; {combined.named}."
    )
    label = j.label if flagged == bool(j.hallucinated) else ("unverifiable" if flagged else "supported")
    return Verdict(
        claim,
        label,
        flagged,
        final,
        reason,
        j.evidence or tuple(evidence),
        raw=j.raw,
        meta={**j.meta, **combined.meta, "stage": "judge", "judge_score": j.score},
    )


__all__ = [
    "UNDECIDED",
    "WEAK_ALONE",
    "WEAK_SHORT_ANSWER",
    "band_text",
    "failed_verdict",
    "final_score",
    "finds",
    "judge_verdict",
    "verifier_verdict",
]
