"""Percentile bootstrap confidence intervals for any metric."""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Callable, Sequence

import numpy as np

from ...errors import ConfigError
from ._validation import as_list, same_length


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
    a = as_list(y_true, "y_true")
    b = as_list(y_other, "y_other")
    same_length(a, b, "y_true", "y_other")
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
