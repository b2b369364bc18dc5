"""Checks shared by the metrics: labels in {0, 1}, finite scores, equal lengths, safe division."""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any, Sequence

import numpy as np

from ...errors import InputError


def as_list(values: Any, name: str) -> list:
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
    items = as_list(values, name)
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


def score_array(values: Any, name: str = "scores") -> np.ndarray:
    items = as_list(values, name)
    if items:  # fast path for plain numeric data
        arr = np.asarray(items)
        if arr.ndim == 1 and arr.dtype.kind in "iuf" and bool(np.all(np.isfinite(arr))):
            return arr.astype(np.float64)
    for i, v in enumerate(items):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, Real) or not math.isfinite(float(v)):
            raise InputError(f"{name} must contain finite real numbers; found {v!r} at index {i}", field=name)
    return np.asarray([float(v) for v in items], dtype=np.float64)


def same_length(a: np.ndarray | Sequence, b: np.ndarray | Sequence, name_a: str, name_b: str) -> None:
    if len(a) != len(b):
        raise InputError(f"{name_a} and {name_b} must have the same length, got {len(a)} and {len(b)}")
    if len(a) == 0:
        raise InputError(f"{name_a} and {name_b} are empty; at least one example is needed")


def label_pair(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    t = _labels(y_true, "y_true")
    p = _labels(y_pred, "y_pred")
    same_length(t, p, "y_true", "y_pred")
    return t, p


def score_pair(y_true: Any, scores: Any) -> tuple[np.ndarray, np.ndarray]:
    t = _labels(y_true, "y_true")
    s = score_array(scores, "scores")
    same_length(t, s, "y_true", "scores")
    return t, s


def safe_div(num: float, den: float) -> float:
    return float(num) / float(den) if den else 0.0


def f1_from(p: float, r: float) -> float:
    return 2.0 * p * r / (p + r) if (p + r) else 0.0
