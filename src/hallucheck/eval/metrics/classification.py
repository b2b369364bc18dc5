"""Classification metrics on hard labels (1 = hallucinated): confusion counts, accuracy, precision /
recall / F1 per class and macro, sensitivity, specificity, balanced accuracy; and span-level P/R/F1."""

from __future__ import annotations

from numbers import Integral
from typing import Any, Sequence

import numpy as np

from ...errors import ConfigError, InputError
from ._validation import as_list, f1_from, label_pair, safe_div


def confusion(y_true: Sequence[int], y_pred: Sequence[int]) -> dict[str, int]:
    """Confusion counts with 1 (hallucinated) as the positive class: ``{"tp", "fp", "tn", "fn"}``."""
    t, p = label_pair(y_true, y_pred)
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
    p = safe_div(tp, tp + fp)
    r = safe_div(tp, tp + fn)
    return p, r, f1_from(p, r)


def per_class_prf(y_true: Sequence[int], y_pred: Sequence[int]) -> dict[int, dict[str, float]]:
    """``{0: {...}, 1: {...}}`` with ``precision``, ``recall``, ``f1`` and ``support`` (number of
    true examples of the class) for each class."""
    t, p = label_pair(y_true, y_pred)
    out: dict[int, dict[str, float]] = {}
    for cls in (0, 1):
        pr, rc, f1 = precision_recall_f1(t, p, positive=cls)
        out[cls] = {"precision": pr, "recall": rc, "f1": f1, "support": int(np.sum(t == cls))}
    return out


def macro_prf(y_true: Sequence[int], y_pred: Sequence[int]) -> tuple[float, float, float]:
    """Unweighted mean over both classes of precision, recall and F1 (the "macro" scores reported
    by DelucionQA and related papers). The macro F1 is the mean of the per-class F1 values, not the
    F1 of the macro precision and recall. The mean is over the classes the labels hold: a class with
    no example has no recall and is left out, also when it was predicted (those false predictions
    already lower the other class's recall). An all-grounded set judged all grounded scores 1.0,
    not 0.5; one with a false alarm scores the grounded class's F1, not half of it."""
    t, pr = label_pair(y_true, y_pred)
    pc = per_class_prf(t, pr)
    present = [c for c in (0, 1) if np.any(t == c)]
    p, r, f1 = (float(sum(pc[c][k] for c in present) / len(present)) for k in ("precision", "recall", "f1"))
    return p, r, f1


def sensitivity(y_true: Sequence[int], y_pred: Sequence[int]) -> float:
    """Recall of the hallucinated class, TP / (TP + FN); 0.0 when there is no positive example."""
    c = confusion(y_true, y_pred)
    return safe_div(c["tp"], c["tp"] + c["fn"])


def specificity(y_true: Sequence[int], y_pred: Sequence[int]) -> float:
    """Recall of the grounded class, TN / (TN + FP); 0.0 when there is no negative example."""
    c = confusion(y_true, y_pred)
    return safe_div(c["tn"], c["tn"] + c["fp"])


def balanced_accuracy(y_true: Sequence[int], y_pred: Sequence[int]) -> float:
    """Mean of sensitivity and specificity (an absent class contributes 0.0)."""
    return (sensitivity(y_true, y_pred) + specificity(y_true, y_pred)) / 2.0


def _merge_spans(spans: Any, where: str) -> list[tuple[int, int]]:
    items = as_list(spans, where)
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
    gold = as_list(gold_spans, "gold_spans")
    pred = as_list(pred_spans, "pred_spans")
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
    precision = safe_div(inter, n_pred)
    recall = safe_div(inter, n_gold)
    return precision, recall, f1_from(precision, recall)
