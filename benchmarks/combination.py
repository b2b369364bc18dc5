"""Shared pieces of the default method's (``ce_cascade``) learned combination, for the benchmark scripts.

``fit_combination.py`` (fits the shipped ``combine.json``), ``tune_ce_cascade.py`` (the judge's band)
and ``transfer.py`` (the leave-one-dataset-out yardstick) all use these; nothing here reads files.

A *row* is ``(label, X)``: an answer's label and its sentences' signals, one row of ``X`` per sentence
(columns: :data:`FEATURES`, then any extra features). A sentence's combined score is
``sigmoid(w . x + b)``, an answer's the highest of its sentences'.
"""

from __future__ import annotations

import statistics
from typing import Callable, Sequence

import numpy as np

FEATURES = ("verifier", "overlap", "gate")
TAU = 5.0  # sharpness of the smooth maximum over an answer's sentences while fitting


def fit(sets: dict[str, list], *, l2: float = 1e-3, steps: int = 3000, lr: float = 0.5) -> np.ndarray:
    """Weights (bias first) by gradient descent on the equally weighted sets' log-loss, the answer's
    logit being a smooth maximum (temperature :data:`TAU`) of its sentences' logits."""
    data = [(y, x, 1.0 / len(rows)) for rows in sets.values() for y, x in rows]
    width = next((np.asarray(x).shape[1] for _, x, _ in data), len(FEATURES))
    w = np.zeros(width + 1)
    if not data:
        return w
    n_sent = max(len(x) for _, x, _ in data)
    xb = np.zeros((len(data), n_sent, width + 1))
    mask = np.zeros((len(data), n_sent), dtype=bool)
    for i, (_, x, _) in enumerate(data):
        x = np.asarray(x, dtype=np.float64).reshape(-1, width)
        xb[i, : len(x), 0] = 1.0
        xb[i, : len(x), 1:] = x
        mask[i, : len(x)] = True
    y = np.array([d[0] for d in data], dtype=np.float64)
    weight = np.array([d[2] for d in data])
    weight = weight / weight.sum()
    for _ in range(steps):
        z = np.where(mask, xb @ w, -np.inf)
        m = z.max(axis=1, keepdims=True)
        e = np.where(mask, np.exp(TAU * (z - m)), 0.0)
        total = e.sum(axis=1)
        soft = e / total[:, None]
        z_ex = m[:, 0] + np.log(total) / TAU
        p = 1.0 / (1.0 + np.exp(-z_ex))
        grad = l2 * w + np.einsum("n,ns,nsf->f", weight * (p - y), soft, xb, optimize=True)
        w = w - lr * grad
    return w


def sentence_scores(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Each sentence's combined score."""
    z = np.hstack([np.ones((len(x), 1)), np.asarray(x, dtype=np.float64)]) @ w
    return 1.0 / (1.0 + np.exp(-z))


def example_scores(rows, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(labels, answer scores) of ``rows`` under weights ``w``."""
    ys, ss = [], []
    for y, x in rows:
        ys.append(y)
        ss.append(float(sentence_scores(x, w).max()))
    return np.array(ys), np.array(ss)


def ba_f1(y: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    """(balanced accuracy, macro F1) of predictions ``p``."""
    from hallucheck.eval.metrics import balanced_accuracy, macro_prf

    return balanced_accuracy(list(y), list(p)), macro_prf(list(y), list(p))[2]


THRESHOLDS = tuple(round(t, 3) for t in np.arange(0.02, 0.99, 0.01))


def best_threshold_of(scored: Sequence[tuple], grid: Sequence[float] = THRESHOLDS) -> float:
    """The threshold maximising the mean over sets of (balanced accuracy + macro F1) / 2 (ties: the one
    nearest 0.5). ``scored``: per set ``(labels, scores)`` or ``(labels, scores, forced)``, where
    ``forced`` marks answers flagged whatever the threshold (the gate's)."""

    def value(t: float) -> float:
        out = []
        for y, s, *rest in scored:
            p = s > t
            if rest and rest[0] is not None:
                p = p | rest[0]
            p = p.astype(int)
            out.append((balanced_accuracy(y, p) + macro_f1(y, p)) / 2)  # == ba_f1's, in numpy
        return statistics.fmean(out)

    return max(grid, key=lambda t: (round(value(t), 6), -abs(t - 0.5)))


def best_threshold(sets: dict[str, list], w: np.ndarray) -> float:
    """:func:`best_threshold_of` the combined scores of every set's rows under ``w``."""
    return best_threshold_of([example_scores(rows, w) for rows in sets.values()])


def simulate(rows, t: float, width: float, jt: float | None) -> tuple[float, float, float]:
    """(balanced accuracy, macro F1, judge calls per example) of ``ce_cascade`` with this band width.

    ``rows``: ``(label, [(gated, combined score, judge score or None), ...])`` per answer. A gated
    sentence is flagged; one whose combined score lies within ``width`` of ``t`` and has a judge score
    gets the mean of the two, the judge's first put on the combination's scale (its own threshold
    ``jt`` lands on ``t``; ``jt=None``: the raw mean of ``ce_cascade.v1``)."""
    ys, ps, _, calls = simulate_scores(rows, t, width, jt)
    ba, f1 = ba_f1(np.array(ys), np.array(ps))
    return ba, f1, calls / max(len(rows), 1)


def simulate_scores(rows, t: float, width: float, jt: float | None) -> tuple[list, list, list, int]:
    """:func:`simulate`'s labels, predictions, answer scores (gated sentences at least just above
    ``t``, as ``ce_cascade`` scores them) and judge calls."""
    from hallucheck.stages.ce_cascade import to_scale

    ys, ps, ss, calls = [], [], [], 0
    for y, claims in rows:
        flagged, top = False, 0.0
        for gated, p, js in claims:
            if gated:
                flagged = True
                top = max(top, p, t + (1.0 - t) * 1e-3)
                continue
            if width and js is not None and abs(p - t) <= width:
                p = 0.5 * (p + to_scale(js, t if jt is None else jt, t))
                calls += 1
            flagged = flagged or p > t
            top = max(top, p)
        ys.append(y)
        ps.append(int(flagged))
        ss.append(top)
    return ys, ps, ss, calls


# -- fast metrics for the bootstrap (same definitions as hallucheck.eval.metrics; tests compare them) --


def balanced_accuracy(y: np.ndarray, p: np.ndarray) -> float:
    """Mean recall over the classes present in ``y``."""
    y, p = np.asarray(y), np.asarray(p)
    recalls = [float(np.mean(p[y == c] == c)) for c in (0, 1) if np.any(y == c)]
    return float(np.mean(recalls)) if recalls else float("nan")


def macro_f1(y: np.ndarray, p: np.ndarray) -> float:
    """Mean F1 over the classes with an example or a prediction."""
    y, p = np.asarray(y), np.asarray(p)
    f1s = []
    for c in (0, 1):
        tp = int(np.sum((y == c) & (p == c)))
        support, predicted = int(np.sum(y == c)), int(np.sum(p == c))
        if support == 0 and predicted == 0:
            continue
        f1s.append(2.0 * tp / (support + predicted) if support + predicted else 0.0)
    return float(np.mean(f1s)) if f1s else float("nan")


def auroc(y: np.ndarray, s: np.ndarray) -> float:
    """Area under the ROC curve (ties count half); nan with one class."""
    y, s = np.asarray(y), np.asarray(s, dtype=np.float64)
    pos, neg = int(np.sum(y == 1)), int(np.sum(y == 0))
    if pos == 0 or neg == 0:
        return float("nan")
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s))
    sorted_s = s[order]
    # average ranks of ties
    _, start, counts = np.unique(sorted_s, return_index=True, return_counts=True)
    avg = start + (counts + 1) / 2.0
    ranks[order] = np.repeat(avg, counts)
    return float((ranks[y == 1].sum() - pos * (pos + 1) / 2.0) / (pos * neg))


def grouped_bootstrap_ci(
    metric: Callable[[np.ndarray, np.ndarray], float],
    y: Sequence,
    other: Sequence,
    groups: Sequence | None = None,
    *,
    n: int = 1000,
    alpha: float = 0.05,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``metric(y, other)``, resampling whole groups (e.g. HaluEval's
    right and hallucinated answer of one item) with replacement; ``groups=None``: every example its own.
    Undefined resamples (nan) are skipped; ``(nan, nan)`` if all are."""
    y, other = np.asarray(y), np.asarray(other)
    keys = list(range(len(y))) if groups is None else list(groups)
    index: dict = {}
    for i, g in enumerate(keys):
        index.setdefault(g, []).append(i)
    members = [np.array(v) for v in index.values()]
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n):
        pick = rng.integers(0, len(members), len(members))
        idx = np.concatenate([members[k] for k in pick])
        v = metric(y[idx], other[idx])
        if not np.isnan(v):
            values.append(v)
    if not values:
        return float("nan"), float("nan")
    lo, hi = np.percentile(values, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(lo), float(hi)
