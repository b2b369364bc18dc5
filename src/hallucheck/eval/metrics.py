"""Evaluation metrics for hallucination detection and mitigation.

Every function is pure and follows the scikit-learn argument order ``f(y_true, y_pred_or_score)``.

Conventions
-----------
* Labels: ``1`` = hallucinated (the positive class), ``0`` = grounded. Label sequences may be lists,
  tuples or numpy arrays of ints, bools or floats equal to 0/1; anything else raises
  :class:`~hallucheck.errors.InputError` naming the first offending position.
* Scores: higher = more likely hallucinated (the :mod:`hallucheck.types` convention). They must be
  finite real numbers.
* Zero division: precision, recall, F1, sensitivity and specificity are ``0.0`` when their
  denominator is zero (scikit-learn's ``zero_division=0``).
* Undefined ranking metrics: :func:`roc_auc` returns ``nan`` when only one class is present in
  ``y_true`` and :func:`average_precision` returns ``nan`` when there is no positive example. These
  ``nan`` values are what :func:`bootstrap_ci` skips.
* Thresholds: an example is predicted hallucinated when ``score >= threshold``.

Bad data (mismatched lengths, empty inputs, labels outside {0, 1}, negative token counts) raises
:class:`~hallucheck.errors.InputError`; bad parameters (an unknown metric name, ``alpha`` outside
(0, 1), ``n < 1``) raise :class:`~hallucheck.errors.ConfigError`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from numbers import Integral, Real
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
from rapidfuzz.distance import LCSseq, Levenshtein

from ..errors import ConfigError, InputError

__all__ = [
    "confusion",
    "accuracy",
    "precision_recall_f1",
    "per_class_prf",
    "macro_prf",
    "sensitivity",
    "specificity",
    "balanced_accuracy",
    "roc_auc",
    "roc_curve",
    "average_precision",
    "pr_curve",
    "THRESHOLD_METRICS",
    "best_threshold",
    "apply_threshold",
    "bootstrap_ci",
    "span_prf",
    "ter",
    "efficiency",
    "edit_distance",
    "normalized_edit_distance",
    "overlap_tokens",
    "rouge_n",
    "rouge_l",
    "bleu",
    "corpus_bleu",
    "normalize_answer",
    "exact_match",
    "token_f1",
    "yes_no",
    "yes_no_accuracy",
    "qa_scores",
]


# --------------------------------------------------------------------------------------------
# input validation
# --------------------------------------------------------------------------------------------


def _as_list(values: Any, name: str) -> list:
    if isinstance(values, (str, bytes)):
        raise InputError(f"{name} must be a sequence of values, got a {type(values).__name__}", field=name)
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise InputError(f"{name} must be one-dimensional, got an array of shape {values.shape}", field=name)
        return values.tolist()
    try:
        return list(values)
    except TypeError:
        raise InputError(f"{name} must be a sequence of values, got {type(values).__name__}", field=name) from None


def _labels(values: Any, name: str = "y_true") -> np.ndarray:
    items = _as_list(values, name)
    if items:  # fast path for plain integer / boolean data
        arr = np.asarray(items)
        if arr.ndim == 1 and arr.dtype.kind in "biu" and bool(np.all((arr == 0) | (arr == 1))):
            return arr.astype(np.int64)
    for i, v in enumerate(items):
        ok = isinstance(v, (bool, np.bool_)) or (isinstance(v, (Integral, Real)) and v in (0, 1))
        if not ok:
            raise InputError(
                f"{name} must contain only the labels 0 (grounded) and 1 (hallucinated); found {v!r} at index {i}",
                field=name,
            )
    return np.asarray([int(v) for v in items], dtype=np.int64)


def _scores(values: Any, name: str = "scores") -> np.ndarray:
    items = _as_list(values, name)
    if items:  # fast path for plain numeric data
        arr = np.asarray(items)
        if arr.ndim == 1 and arr.dtype.kind in "iuf" and bool(np.all(np.isfinite(arr))):
            return arr.astype(np.float64)
    for i, v in enumerate(items):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, Real) or not math.isfinite(float(v)):
            raise InputError(f"{name} must contain finite real numbers; found {v!r} at index {i}", field=name)
    return np.asarray([float(v) for v in items], dtype=np.float64)


def _same_length(a: np.ndarray | Sequence, b: np.ndarray | Sequence, name_a: str, name_b: str) -> None:
    if len(a) != len(b):
        raise InputError(f"{name_a} and {name_b} must have the same length, got {len(a)} and {len(b)}")
    if len(a) == 0:
        raise InputError(f"{name_a} and {name_b} are empty; at least one example is needed")


def _label_pair(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    t = _labels(y_true, "y_true")
    p = _labels(y_pred, "y_pred")
    _same_length(t, p, "y_true", "y_pred")
    return t, p


def _score_pair(y_true: Any, scores: Any) -> tuple[np.ndarray, np.ndarray]:
    t = _labels(y_true, "y_true")
    s = _scores(scores, "scores")
    _same_length(t, s, "y_true", "scores")
    return t, s


def _div(num: float, den: float) -> float:
    return float(num) / float(den) if den else 0.0


def _f1(p: float, r: float) -> float:
    return 2.0 * p * r / (p + r) if (p + r) else 0.0


# --------------------------------------------------------------------------------------------
# classification metrics
# --------------------------------------------------------------------------------------------


def confusion(y_true: Sequence[int], y_pred: Sequence[int]) -> dict[str, int]:
    """Confusion counts with 1 (hallucinated) as the positive class: ``{"tp", "fp", "tn", "fn"}``."""
    t, p = _label_pair(y_true, y_pred)
    return {
        "tp": int(np.sum((t == 1) & (p == 1))),
        "fp": int(np.sum((t == 0) & (p == 1))),
        "tn": int(np.sum((t == 0) & (p == 0))),
        "fn": int(np.sum((t == 1) & (p == 0))),
    }


def accuracy(y_true: Sequence[int], y_pred: Sequence[int]) -> float:
    """Fraction of examples whose predicted label equals the true label."""
    c = confusion(y_true, y_pred)
    return (c["tp"] + c["tn"]) / (c["tp"] + c["tn"] + c["fp"] + c["fn"])


def precision_recall_f1(y_true: Sequence[int], y_pred: Sequence[int], positive: int = 1) -> tuple[float, float, float]:
    """Precision, recall and F1 of class ``positive`` (1 = hallucinated by default; 0 scores the
    grounded class). Zero denominators give 0.0."""
    if isinstance(positive, bool) or positive not in (0, 1):
        raise ConfigError(f"positive must be 0 or 1, got {positive!r}")
    c = confusion(y_true, y_pred)
    if positive == 1:
        tp, fp, fn = c["tp"], c["fp"], c["fn"]
    else:  # the grounded class is "positive": swap the roles
        tp, fp, fn = c["tn"], c["fn"], c["fp"]
    p = _div(tp, tp + fp)
    r = _div(tp, tp + fn)
    return p, r, _f1(p, r)


def per_class_prf(y_true: Sequence[int], y_pred: Sequence[int]) -> dict[int, dict[str, float]]:
    """``{0: {...}, 1: {...}}`` with ``precision``, ``recall``, ``f1`` and ``support`` (number of
    true examples of the class) for each class."""
    t, p = _label_pair(y_true, y_pred)
    out: dict[int, dict[str, float]] = {}
    for cls in (0, 1):
        pr, rc, f1 = precision_recall_f1(t, p, positive=cls)
        out[cls] = {"precision": pr, "recall": rc, "f1": f1, "support": int(np.sum(t == cls))}
    return out


def macro_prf(y_true: Sequence[int], y_pred: Sequence[int]) -> tuple[float, float, float]:
    """Unweighted mean over both classes of precision, recall and F1 (the "macro" scores reported
    by DelucionQA and related papers). The macro F1 is the mean of the per-class F1 values, not the
    F1 of the macro precision and recall."""
    pc = per_class_prf(y_true, y_pred)
    p, r, f1 = (float((pc[0][k] + pc[1][k]) / 2.0) for k in ("precision", "recall", "f1"))
    return p, r, f1


def sensitivity(y_true: Sequence[int], y_pred: Sequence[int]) -> float:
    """Recall of the hallucinated class, TP / (TP + FN); 0.0 when there is no positive example."""
    c = confusion(y_true, y_pred)
    return _div(c["tp"], c["tp"] + c["fn"])


def specificity(y_true: Sequence[int], y_pred: Sequence[int]) -> float:
    """Recall of the grounded class, TN / (TN + FP); 0.0 when there is no negative example."""
    c = confusion(y_true, y_pred)
    return _div(c["tn"], c["tn"] + c["fp"])


def balanced_accuracy(y_true: Sequence[int], y_pred: Sequence[int]) -> float:
    """Mean of sensitivity and specificity (an absent class contributes 0.0)."""
    return (sensitivity(y_true, y_pred) + specificity(y_true, y_pred)) / 2.0


# --------------------------------------------------------------------------------------------
# ranking metrics
# --------------------------------------------------------------------------------------------


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
    t, s = _score_pair(y_true, scores)
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
    t, s = _score_pair(y_true, scores)
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
    t, s = _score_pair(y_true, scores)
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
    t, s = _score_pair(y_true, scores)
    n_pos = float(np.sum(t == 1))
    if n_pos == 0:
        return float("nan")
    _, tps, fps = _counts_at_distinct_scores(t, s)
    precision = tps / (tps + fps)
    recall = tps / n_pos
    steps = np.diff(np.r_[0.0, recall])
    return float(np.sum(steps * precision))


# --------------------------------------------------------------------------------------------
# thresholds
# --------------------------------------------------------------------------------------------


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
        return (f1_pos + f1_neg) / 2.0
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
    t, s = _score_pair(y_true, scores)
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
    s = _scores(scores, "scores")
    return [int(v) for v in (s >= float(threshold))]


# --------------------------------------------------------------------------------------------
# bootstrap
# --------------------------------------------------------------------------------------------


def bootstrap_ci(
    metric_fn: Callable[[Sequence, Sequence], float],
    y_true: Sequence,
    y_other: Sequence,
    n: int = 1000,
    alpha: float = 0.05,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval ``(low, high)`` of ``metric_fn(y_true, y_other)``.

    Each of the ``n`` resamples draws ``len(y_true)`` example indices with replacement (the pairs
    ``(y_true[i], y_other[i])`` stay together) and passes the two resampled lists to
    ``metric_fn``. Resamples where the metric is undefined (``nan``, e.g. :func:`roc_auc` on a
    resample with a single class) are skipped. The bounds are the ``alpha/2`` and ``1 - alpha/2``
    percentiles (numpy's linear interpolation) of the remaining values; ``(nan, nan)`` if every
    resample was undefined. ``seed`` makes the result reproducible.
    """
    if not callable(metric_fn):
        raise ConfigError(f"metric_fn must be callable, got {type(metric_fn).__name__}")
    if isinstance(n, bool) or not isinstance(n, Integral) or n < 1:
        raise ConfigError(f"n (number of resamples) must be a positive integer, got {n!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0.0 < float(alpha) < 1.0:
        raise ConfigError(f"alpha must be strictly between 0 and 1, got {alpha!r}")
    a = _as_list(y_true, "y_true")
    b = _as_list(y_other, "y_other")
    _same_length(a, b, "y_true", "y_other")
    rng = np.random.default_rng(seed)
    size = len(a)
    values: list[float] = []
    for _ in range(int(n)):
        idx = rng.integers(0, size, size)
        v = float(metric_fn([a[i] for i in idx], [b[i] for i in idx]))
        if not math.isnan(v):
            values.append(v)
    if not values:
        return float("nan"), float("nan")
    low, high = np.percentile(np.asarray(values), [100.0 * alpha / 2.0, 100.0 * (1.0 - alpha / 2.0)])
    return float(low), float(high)


# --------------------------------------------------------------------------------------------
# span metrics
# --------------------------------------------------------------------------------------------


def _merge_spans(spans: Any, where: str) -> list[tuple[int, int]]:
    items = _as_list(spans, where)
    clean: list[tuple[int, int]] = []
    for j, span in enumerate(items):
        try:
            start, end = span
        except (TypeError, ValueError):
            raise InputError(f"{where}[{j}] must be a (start, end) pair, got {span!r}", field=where) from None
        if (
            isinstance(start, bool)
            or isinstance(end, bool)
            or not isinstance(start, Integral)
            or not isinstance(end, Integral)
        ):
            raise InputError(f"{where}[{j}] must hold two integer offsets, got {span!r}", field=where)
        if start < 0 or end < start:
            raise InputError(
                f"{where}[{j}] = {tuple(span)!r} is not a valid half-open span (need 0 <= start <= end)", field=where
            )
        if end > start:
            clean.append((int(start), int(end)))
    clean.sort()
    merged: list[tuple[int, int]] = []
    for start, end in clean:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _overlap(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int:
    """Characters covered by both merged, sorted span lists."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo = max(a[i][0], b[j][0])
        hi = min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def span_prf(
    gold_spans: Sequence[Sequence[tuple[int, int]]], pred_spans: Sequence[Sequence[tuple[int, int]]]
) -> tuple[float, float, float]:
    """Character-overlap precision, recall and F1 of predicted hallucination spans.

    ``gold_spans[i]`` and ``pred_spans[i]`` are the half-open ``(start, end)`` character spans of
    example ``i``. Overlapping (or touching) spans within one list are merged first so no character
    counts twice. Counts are summed over examples (micro average):

    * precision = predicted characters inside gold spans / predicted characters
    * recall = gold characters covered by predictions / gold characters

    Zero denominators give 0.0 (so no gold and no predicted spans at all gives ``(0, 0, 0)``).
    """
    gold = _as_list(gold_spans, "gold_spans")
    pred = _as_list(pred_spans, "pred_spans")
    if len(gold) != len(pred):
        raise InputError(
            f"gold_spans and pred_spans must cover the same examples, got {len(gold)} and {len(pred)} examples"
        )
    inter = n_gold = n_pred = 0
    for i, (g, p) in enumerate(zip(gold, pred)):
        gm = _merge_spans(g, f"gold_spans[{i}]")
        pm = _merge_spans(p, f"pred_spans[{i}]")
        n_gold += sum(e - s for s, e in gm)
        n_pred += sum(e - s for s, e in pm)
        inter += _overlap(gm, pm)
    precision = _div(inter, n_pred)
    recall = _div(inter, n_gold)
    return precision, recall, _f1(precision, recall)


# --------------------------------------------------------------------------------------------
# cost
# --------------------------------------------------------------------------------------------


def _count(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(float(value)) or value < 0:
        raise InputError(f"{what} must be a non-negative number, got {value!r}", field=what)
    return float(value)


def ter(total_tokens: float, input_tokens: float) -> float:
    """Token Expansion Ratio (HSP paper, Eq. 7): all tokens the method used (prompts and
    completions of every call) divided by the number of tokens of the input text. 1.0 means the
    method spent as many tokens as it was given to check."""
    total = _count(total_tokens, "total_tokens")
    given = _count(input_tokens, "input_tokens")
    if given <= 0:
        raise InputError(f"input_tokens must be greater than 0, got {input_tokens!r}", field="input_tokens")
    return total / given


def _usage_value(usage: Any, key: str, i: int, required: bool = True) -> float | None:
    if isinstance(usage, Mapping):
        if key not in usage:
            if required:
                raise InputError(
                    f"usages[{i}] has no {key!r}; each usage needs calls, prompt_tokens and completion_tokens",
                    field=key,
                )
            return None
        value = usage[key]
    elif hasattr(usage, key):
        value = getattr(usage, key)
    elif required:
        raise InputError(
            f"usages[{i}] ({type(usage).__name__}) has no {key!r}; pass dicts with calls, "
            f"prompt_tokens and completion_tokens",
            field=key,
        )
    else:
        return None
    return _count(value, f"usages[{i}].{key}")


def efficiency(usages: Iterable[Mapping[str, float] | Any], n_examples: int, seconds: float) -> dict[str, float | None]:
    """Average cost per example of a run.

    ``usages`` holds one record per example (or per call; only the sums matter): dicts with
    ``calls``, ``prompt_tokens`` and ``completion_tokens`` and optionally ``input_tokens`` (the
    tokens of the text being checked), or objects with those attributes such as
    :class:`hallucheck.types.Usage`. ``seconds`` is the wall-clock time of the whole run.

    Returns ``calls_per_example``, ``prompt_tokens_per_example``, ``completion_tokens_per_example``,
    ``tokens_per_example`` (prompt + completion), ``seconds_per_example``, ``n_examples`` and
    ``ter``: the Token Expansion Ratio of the whole run (sum of all tokens / sum of input tokens),
    or ``None`` unless every usage carries ``input_tokens`` and their sum is positive.
    """
    if isinstance(n_examples, bool) or not isinstance(n_examples, Integral) or n_examples < 1:
        raise InputError(f"n_examples must be a positive integer, got {n_examples!r}", field="n_examples")
    secs = _count(seconds, "seconds")
    if isinstance(usages, Mapping):
        raise InputError("usages must be a list of usage records, got a single mapping", field="usages")
    records = list(usages)
    calls = prompt = completion = 0.0
    inputs: float | None = 0.0
    for i, u in enumerate(records):
        calls += _usage_value(u, "calls", i)  # type: ignore[operator]
        prompt += _usage_value(u, "prompt_tokens", i)  # type: ignore[operator]
        completion += _usage_value(u, "completion_tokens", i)  # type: ignore[operator]
        given = _usage_value(u, "input_tokens", i, required=False)
        inputs = None if inputs is None or given is None else inputs + given
    n = float(n_examples)
    ratio = None
    if records and inputs:
        ratio = (prompt + completion) / inputs
    return {
        "n_examples": int(n_examples),
        "calls_per_example": calls / n,
        "prompt_tokens_per_example": prompt / n,
        "completion_tokens_per_example": completion / n,
        "tokens_per_example": (prompt + completion) / n,
        "seconds_per_example": secs / n,
        "ter": ratio,
    }


# --------------------------------------------------------------------------------------------
# edit distance
# --------------------------------------------------------------------------------------------


def _words(text: str | Sequence[str], name: str) -> list[str]:
    if isinstance(text, str):
        return text.split()
    if isinstance(text, bytes):
        raise InputError(f"{name} must be text or a list of words, got bytes", field=name)
    return [str(w) for w in _as_list(text, name)]


def edit_distance(a: str | Sequence[str], b: str | Sequence[str]) -> int:
    """Word-level Levenshtein distance: the fewest word insertions, deletions and substitutions
    turning ``a`` into ``b``. Strings are split on whitespace (case and punctuation are kept as
    they are); a list of words is used as given. Computed by rapidfuzz (bit-parallel, on the
    word sequences)."""
    return int(Levenshtein.distance(_words(a, "a"), _words(b, "b")))


def normalized_edit_distance(a: str | Sequence[str], b: str | Sequence[str]) -> float:
    """:func:`edit_distance` divided by the length in words of the longer input, in [0, 1];
    0.0 when both are empty."""
    longest = max(len(_words(a, "a")), len(_words(b, "b")))
    return edit_distance(a, b) / longest if longest else 0.0


# --------------------------------------------------------------------------------------------
# text overlap (mitigation evaluation)
# --------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"[^\W_]+")


def overlap_tokens(text: str) -> list[str]:
    """The tokenisation used by :func:`rouge_n`, :func:`rouge_l` and :func:`bleu`: the text is
    lower-cased and split into maximal runs of Unicode letters and digits; whitespace, punctuation
    and underscores only separate tokens (``"Don't stop!"`` -> ``["don", "t", "stop"]``). No
    stemming and no stop-word removal, so scores are close to, but not identical with,
    ``rouge-score`` (which can stem) and sacreBLEU (which keeps punctuation as tokens)."""
    if not isinstance(text, str):
        raise InputError(f"expected text, got {type(text).__name__}")
    return _TOKEN.findall(text.lower())


def _ngrams(tokens: Sequence[str], n: int) -> Counter:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _check_order(n: Any, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, Integral) or n < 1:
        raise ConfigError(f"{name} must be a positive integer, got {n!r}")
    return int(n)


def rouge_n(candidate: str, reference: str, n: int = 1) -> float:
    """ROUGE-N F-measure: clipped n-gram overlap, precision over the candidate's n-grams and recall
    over the reference's, combined as F1. 0.0 when either text has no n-gram. Tokenised with
    :func:`overlap_tokens`."""
    n = _check_order(n, "n")
    c = _ngrams(overlap_tokens(candidate), n)
    r = _ngrams(overlap_tokens(reference), n)
    if not c or not r:
        return 0.0
    hits = sum(min(count, r[g]) for g, count in c.items())
    return _f1(hits / sum(c.values()), hits / sum(r.values()))


def _lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token sequences (rapidfuzz)."""
    return int(LCSseq.similarity(a, b))


def rouge_l(candidate: str, reference: str) -> float:
    """ROUGE-L F-measure (sentence level): longest common subsequence of tokens, divided by the
    candidate length (precision) and by the reference length (recall), combined as F1. 0.0 when
    either text is empty. Tokenised with :func:`overlap_tokens`."""
    c = overlap_tokens(candidate)
    r = overlap_tokens(reference)
    if not c or not r:
        return 0.0
    lcs = _lcs_length(c, r)
    return _f1(lcs / len(c), lcs / len(r))


def _as_references(references: Any, where: str) -> list[list[str]]:
    refs = [references] if isinstance(references, str) else _as_list(references, where)
    if not refs:
        raise InputError(f"{where} needs at least one reference text", field=where)
    return [overlap_tokens(r) for r in refs]


def _bleu_stats(cand: list[str], refs: list[list[str]], max_n: int) -> tuple[list[int], list[int], int, int]:
    """Clipped n-gram matches and candidate n-gram totals for n = 1..max_n, candidate length and
    the closest reference length (ties go to the shorter reference)."""
    matches, totals = [], []
    for n in range(1, max_n + 1):
        c = _ngrams(cand, n)
        best: Counter = Counter()
        for ref in refs:
            best |= _ngrams(ref, n)  # element-wise max over references
        matches.append(sum(min(count, best[g]) for g, count in c.items()))
        totals.append(max(len(cand) - n + 1, 0))
    closest = min((abs(len(r) - len(cand)), len(r)) for r in refs)[1]
    return matches, totals, len(cand), closest


def _bleu_from_stats(matches: list[int], totals: list[int], c_len: int, r_len: int, smooth: bool) -> float:
    if c_len == 0 or matches[0] == 0:
        return 0.0
    log_p = 0.0
    for n, (m, t) in enumerate(zip(matches, totals), start=1):
        if smooth and n > 1:
            m, t = m + 1, t + 1
        if m == 0:
            return 0.0
        log_p += math.log(m / t)
    bp = 1.0 if c_len > r_len else math.exp(1.0 - r_len / c_len)
    return bp * math.exp(log_p / len(matches))


def bleu(candidate: str, references: str | Sequence[str], max_n: int = 4, smooth: bool = True) -> float:
    """Sentence BLEU with uniform weights over n = 1..``max_n`` and the brevity penalty
    ``exp(1 - r/c)`` when the candidate (length c) is not longer than the closest reference
    (length r; ties take the shorter reference).

    ``smooth=True`` applies add-one smoothing to the n-gram precisions for n > 1
    (``(matches + 1) / (total + 1)``, Lin & Och 2004; "smoothing 2" in Chen & Cherry 2014 and
    ``method2`` in NLTK) so one missing 4-gram does not zero a short sentence; the unigram
    precision is never smoothed, so a candidate sharing no word with the references scores 0.
    Without smoothing any zero precision gives 0. ``references`` is one text or a list of texts.
    Tokenised with :func:`overlap_tokens`; the result is in [0, 1] (not a percentage).
    """
    max_n = _check_order(max_n, "max_n")
    stats = _bleu_stats(overlap_tokens(candidate), _as_references(references, "references"), max_n)
    return _bleu_from_stats(*stats, smooth=smooth)


def corpus_bleu(
    candidates: Sequence[str], references: Sequence[str | Sequence[str]], max_n: int = 4, smooth: bool = False
) -> float:
    """Corpus BLEU (Papineni et al. 2002): n-gram matches, candidate n-gram counts, candidate
    lengths and closest reference lengths are summed over the corpus before the precisions and the
    brevity penalty are computed. ``references[i]`` is one text or a list of texts for
    ``candidates[i]``. Unsmoothed by default, as is usual at corpus level; ``smooth=True`` applies
    the same add-one smoothing for n > 1 as :func:`bleu`."""
    max_n = _check_order(max_n, "max_n")
    cands = _as_list(candidates, "candidates")
    refs = _as_list(references, "references")
    _same_length(cands, refs, "candidates", "references")
    matches = [0] * max_n
    totals = [0] * max_n
    c_len = r_len = 0
    for i, (cand, ref) in enumerate(zip(cands, refs)):
        m, t, c, r = _bleu_stats(overlap_tokens(cand), _as_references(ref, f"references[{i}]"), max_n)
        matches = [a + b for a, b in zip(matches, m)]
        totals = [a + b for a, b in zip(totals, t)]
        c_len += c
        r_len += r
    return _bleu_from_stats(matches, totals, c_len, r_len, smooth)


# --------------------------------------------------------------------------------------------
# question answering (DRAD, Su et al. 2024, §4.2: EM, token F1/precision/recall, yes/no accuracy)
# --------------------------------------------------------------------------------------------

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)


def normalize_answer(text: str) -> str:
    """Lower-case, drop punctuation and the articles a/an/the, collapse whitespace (the usual
    normalisation of extractive QA scoring)."""
    if not isinstance(text, str):
        raise InputError(f"An answer must be a string; got {type(text).__name__}.")
    text = _PUNCT.sub(" ", text.lower())
    return " ".join(_ARTICLES.sub(" ", text).split())


def _golds(gold: str | Sequence[str]) -> list[str]:
    golds = [gold] if isinstance(gold, str) else list(gold)
    if not golds or not all(isinstance(g, str) for g in golds):
        raise InputError("Gold answers must be a string or a non-empty list of strings.")
    return golds


def exact_match(prediction: str, gold: str | Sequence[str]) -> float:
    """1.0 if the normalised prediction equals any normalised gold answer, else 0.0."""
    p = normalize_answer(prediction)
    return float(any(p == normalize_answer(g) for g in _golds(gold)))


def _prf_tokens(pred: list[str], gold: list[str]) -> tuple[float, float, float]:
    if not pred or not gold:
        same = float(pred == gold)
        return same, same, same
    common = sum((Counter(pred) & Counter(gold)).values())
    if common == 0:
        return 0.0, 0.0, 0.0
    p, r = common / len(pred), common / len(gold)
    return p, r, 2 * p * r / (p + r)


def token_f1(prediction: str, gold: str | Sequence[str]) -> dict[str, float]:
    """Token-level precision, recall and F1 of the normalised answers; with several gold
    answers, the one giving the best F1."""
    pred = normalize_answer(prediction).split()
    best = max((_prf_tokens(pred, normalize_answer(g).split()) for g in _golds(gold)), key=lambda x: x[2])
    return {"precision": best[0], "recall": best[1], "f1": best[2]}


def yes_no(text: str) -> str | None:
    """ "yes" or "no" if the answer's first yes/no word is one (``None`` when it has neither)."""
    m = re.search(r"\b(yes|no)\b", text.lower())
    return m.group(1) if m else None


def yes_no_accuracy(predictions: Sequence[str], golds: Sequence[str]) -> float:
    """Share of answers whose yes/no (:func:`yes_no`) equals the gold yes/no; an answer with
    neither counts as wrong."""
    predictions, golds = list(predictions), list(golds)
    if len(predictions) != len(golds):
        raise InputError(f"predictions and golds differ in length ({len(predictions)} vs {len(golds)}).")
    if not golds:
        raise InputError("yes_no_accuracy needs at least one example.")
    bad = [g for g in golds if yes_no(g) is None]
    if bad:
        raise InputError(f"Gold answers of yes/no questions must be 'yes' or 'no'; got {bad[0]!r}.")
    return sum(yes_no(p) == yes_no(g) for p, g in zip(predictions, golds)) / len(golds)


def qa_scores(prediction: str, gold: str | Sequence[str]) -> dict[str, float]:
    """EM and token precision/recall/F1 of one answer; for a yes/no gold, ``accuracy`` too."""
    out = {"em": exact_match(prediction, gold), **token_f1(prediction, gold)}
    golds = _golds(gold)
    if all(yes_no(g) is not None and normalize_answer(g) in ("yes", "no") for g in golds):
        out["accuracy"] = float(yes_no(prediction) == yes_no(golds[0]))
    return out
