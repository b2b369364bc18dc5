"""Ranking metrics on scores (higher = more likely hallucinated): ROC AUC and curve, precision-recall
curve, average precision; and choosing or applying a decision threshold."""

from __future__ import annotations

import math
from numbers import Real
from typing import Sequence

import numpy as np

from ...errors import ConfigError
from ._validation import score_array, score_pair


def _average_ranks(x: np.ndarray) -> np.ndarray:
    """1-based ranks of ``x`` in ascending order; tied values share the mean of their ranks."""
    n = len(x)
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    new_group = np.r_[True, xs[1:] != xs[:-1]]
    starts = np.nonzero(new_group)[0]  # 0-based first position of each run of ties
    ends = np.r_[starts[1:], n]  # exclusive end of each run
    mean_rank = (starts + 1 + ends) / 2.0  # mean of the 1-based ranks start+1 .. end
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = mean_rank[np.cumsum(new_group) - 1]
    return ranks


def roc_auc(y_true: Sequence[int], scores: Sequence[float]) -> float:
    """Area under the ROC curve, computed from ranks (Mann-Whitney U / (n_pos * n_neg)).

    It is the probability that a random hallucinated example scores higher than a random grounded
    one, a tie counting one half. Returns ``float('nan')`` if ``y_true`` holds only one class
    (the area is undefined then); every other case returns a number in [0, 1].
    """
    t, s = score_pair(y_true, scores)
    n_pos = int(np.sum(t == 1))
    n_neg = len(t) - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = _average_ranks(s)
    u = float(np.sum(ranks[t == 1])) - n_pos * (n_pos + 1) / 2.0
    return u / (n_pos * n_neg)


def _counts_at_distinct_scores(t: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each distinct score (descending): the score, TP and FP when predicting ``score >= it``."""
    order = np.argsort(-s, kind="mergesort")
    s_sorted = s[order]
    t_sorted = t[order]
    tps = np.cumsum(t_sorted)
    fps = np.cumsum(1 - t_sorted)
    # the last position of each run of equal scores
    last = np.r_[np.nonzero(np.diff(s_sorted))[0], len(s_sorted) - 1]
    return s_sorted[last], tps[last].astype(np.float64), fps[last].astype(np.float64)


def roc_curve(y_true: Sequence[int], scores: Sequence[float]) -> tuple[list[float], list[float], list[float]]:
    """ROC points ``(fpr, tpr, thresholds)``, one per distinct score, thresholds decreasing.

    The first point is ``(0, 0)`` with threshold ``inf`` (nothing predicted hallucinated); point
    ``k`` predicts 1 for ``score >= thresholds[k]``. Every point is kept (scikit-learn's
    ``drop_intermediate=False``). If a class is absent from ``y_true`` the rate that divides by its
    size is ``nan`` throughout.
    """
    t, s = score_pair(y_true, scores)
    n_pos = float(np.sum(t == 1))
    n_neg = float(len(t) - n_pos)
    thr, tps, fps = _counts_at_distinct_scores(t, s)
    tpr = tps / n_pos if n_pos else np.full(len(tps), np.nan)
    fpr = fps / n_neg if n_neg else np.full(len(fps), np.nan)
    first_fpr = 0.0 if n_neg else float("nan")
    first_tpr = 0.0 if n_pos else float("nan")
    return ([first_fpr] + fpr.tolist(), [first_tpr] + tpr.tolist(), [float("inf")] + thr.tolist())


def pr_curve(y_true: Sequence[int], scores: Sequence[float]) -> tuple[list[float], list[float], list[float]]:
    """Precision-recall points ``(precision, recall, thresholds)`` in scikit-learn's order:
    thresholds are the distinct scores in increasing order, and precision / recall have one extra
    final point ``(1.0, 0.0)`` without a threshold. Recall is ``nan`` if there is no positive example.
    """
    t, s = score_pair(y_true, scores)
    n_pos = float(np.sum(t == 1))
    thr, tps, fps = _counts_at_distinct_scores(t, s)
    precision = tps / (tps + fps)  # tps + fps >= 1 at every distinct score
    recall = tps / n_pos if n_pos else np.full(len(tps), np.nan)
    return (precision[::-1].tolist() + [1.0], recall[::-1].tolist() + [0.0], thr[::-1].tolist())


def average_precision(y_true: Sequence[int], scores: Sequence[float]) -> float:
    """Area under the precision-recall curve as a step function (scikit-learn's
    ``average_precision_score``): ``sum_k (R_k - R_{k-1}) * P_k`` over the distinct scores taken
    as thresholds in decreasing order, with ``R_0 = 0``. No interpolation. Returns ``nan`` when
    ``y_true`` has no positive example."""
    t, s = score_pair(y_true, scores)
    n_pos = float(np.sum(t == 1))
    if n_pos == 0:
        return float("nan")
    _, tps, fps = _counts_at_distinct_scores(t, s)
    precision = tps / (tps + fps)
    recall = tps / n_pos
    steps = np.diff(np.r_[0.0, recall])
    return float(np.sum(steps * precision))


def _threshold_metric_values(name: str, tp: np.ndarray, fp: np.ndarray, tn: np.ndarray, fn: np.ndarray) -> np.ndarray:
    def safe(num: np.ndarray, den: np.ndarray) -> np.ndarray:
        out = np.zeros(len(num), dtype=np.float64)
        np.divide(num, den, out=out, where=den != 0)
        return out

    f1_pos = safe(2 * tp, 2 * tp + fp + fn)  # equals 2PR/(P+R), 0 when undefined
    if name == "f1":
        return f1_pos
    if name == "macro_f1":
        f1_neg = safe(2 * tn, 2 * tn + fn + fp)
        # a class with no example in the labels is left out of the mean (as in macro_prf)
        pos_absent, neg_absent = (tp + fn) == 0, (tn + fp) == 0
        return np.where(neg_absent, f1_pos, np.where(pos_absent, f1_neg, (f1_pos + f1_neg) / 2.0))
    if name == "balanced_accuracy":
        return (safe(tp, tp + fn) + safe(tn, tn + fp)) / 2.0
    if name == "accuracy":
        return (tp + tn) / (tp + tn + fp + fn)
    raise ConfigError(f"unknown threshold metric {name!r}; choose one of {', '.join(THRESHOLD_METRICS)}")


THRESHOLD_METRICS: tuple[str, ...] = ("macro_f1", "balanced_accuracy", "f1", "accuracy")


def best_threshold(y_true: Sequence[int], scores: Sequence[float], metric: str = "macro_f1") -> tuple[float, float]:
    """The decision threshold that maximises ``metric`` on this data, and the metric's value there.

    Prediction rule: hallucinated (1) when ``score >= threshold``. Candidates are every distinct
    score plus one value above the maximum (which predicts everything grounded). When several
    candidates reach the best value the **lowest** threshold wins, i.e. the most sensitive of the
    equally good rules. ``metric`` is one of :data:`THRESHOLD_METRICS` (``"macro_f1"``,
    ``"balanced_accuracy"``, ``"f1"`` for the hallucinated class, ``"accuracy"``).

    Tune the threshold on a development split, then apply it unchanged to the test split with
    :func:`apply_threshold`; choosing it on the test data inflates the reported scores.
    """
    if metric not in THRESHOLD_METRICS:
        raise ConfigError(f"unknown threshold metric {metric!r}; choose one of {', '.join(THRESHOLD_METRICS)}")
    t, s = score_pair(y_true, scores)
    distinct = np.unique(s)  # ascending
    top = float(distinct[-1])
    above = top + 1.0 if top + 1.0 > top else math.nextafter(top, math.inf)
    candidates = np.r_[distinct, above]
    pos = np.sort(s[t == 1])
    neg = np.sort(s[t == 0])
    tp = (len(pos) - np.searchsorted(pos, candidates, side="left")).astype(np.float64)
    fp = (len(neg) - np.searchsorted(neg, candidates, side="left")).astype(np.float64)
    fn = len(pos) - tp
    tn = len(neg) - fp
    values = _threshold_metric_values(metric, tp, fp, tn, fn)
    best = float(np.max(values))
    k = int(np.nonzero(np.isclose(values, best, rtol=0.0, atol=1e-12))[0][0])  # lowest threshold among ties
    return float(candidates[k]), float(values[k])


def apply_threshold(scores: Sequence[float], threshold: float) -> list[int]:
    """Hard labels from scores: 1 where ``score >= threshold``, else 0."""
    if isinstance(threshold, bool) or not isinstance(threshold, Real) or math.isnan(float(threshold)):
        raise ConfigError(f"threshold must be a real number, got {threshold!r}")
    s = score_array(scores, "scores")
    return [int(v) for v in (s >= float(threshold))]
