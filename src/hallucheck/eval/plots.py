"""The plots of a run (needs matplotlib, the ``eval`` extra): built once, saved as PNG files
next to report.md and inlined as SVG in report.html.

- ROC curve with the method's own operating point (its decisions) and, when one is known, the
  point of the decision threshold;
- precision-recall curve, with the same points;
- score histogram by gold label (or of all rows, for unlabelled ``check`` runs) with the threshold;
- confusion matrix with counts and shares, the text colour chosen per cell so it stays readable;
- reliability diagram (observed share hallucinated per score bin) when the scores are calibrated.
"""

from __future__ import annotations

import io
import math
from typing import Any, Iterator, Mapping, Sequence

from . import metrics as M


def matplotlib_pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend, or None when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def method_threshold(manifest: Mapping[str, Any] | None, records: Sequence[Mapping[str, Any]] = ()) -> float | None:
    """The method's decision point on the plotted scores: 0.5 when the run's scores are on the
    decision scale (every decided example scored above 0.5 exactly when flagged, as
    :func:`hallucheck.base.decision_score` makes them; true of any method, e.g. ``ce_cascade``
    whose thresholds differ per task), else the verifier's configured ``threshold`` (runs made
    before that scale), else None."""
    decided = [r for r in records if r.get("hallucinated") is not None and isinstance(r.get("score"), (int, float))]
    if decided and all((float(r["score"]) > 0.5) == bool(r["hallucinated"]) for r in decided):
        return 0.5
    verifier = (((manifest or {}).get("method") or {}).get("params") or {}).get("verifier") or {}
    t = (verifier.get("params") or {}).get("threshold") if isinstance(verifier, Mapping) else None
    return float(t) if isinstance(t, (int, float)) and not isinstance(t, bool) else None


def calibrated(records: Sequence[Mapping[str, Any]]) -> bool:
    """True when the method says its claim scores are calibrated probabilities."""
    return any(
        (v.get("meta") or {}).get("calibrated")
        for r in records
        for v in (r.get("detection") or {}).get("verdicts") or ()
    )


def reliability_bins(y: Sequence[int], s: Sequence[float], bins: int = 10) -> list[tuple[float, float, int]]:
    """(mean score, observed share hallucinated, count) per non-empty equal-width score bin."""
    out = []
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        idx = [i for i, v in enumerate(s) if lo <= v < hi or (b == bins - 1 and v == 1.0)]
        if idx:
            out.append((sum(s[i] for i in idx) / len(idx), sum(y[i] for i in idx) / len(idx), len(idx)))
    return out


def expected_calibration_error(y: Sequence[int], s: Sequence[float], bins: int = 10) -> float:
    n = len(s)
    return sum(c / n * abs(conf - acc) for conf, acc, c in reliability_bins(y, s, bins)) if n else float("nan")


def _rates(y: Sequence[int], pred: Sequence[int]) -> tuple[float, float, float]:
    """(false positive rate, recall, precision) of hard decisions."""
    c = M.confusion(y, pred)
    fpr = c["fp"] / (c["fp"] + c["tn"]) if c["fp"] + c["tn"] else float("nan")
    tpr = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else float("nan")
    prec = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else float("nan")
    return fpr, tpr, prec


def _mark_decisions(
    ax: Any, own: Sequence[float] | None, at_t: Sequence[float] | None, xy: tuple[int, int], threshold_text: str
) -> None:
    """On a curve whose axes are the rates ``xy`` of :func:`_rates`: the method's own decisions
    (a dot) and the fixed threshold's (a square), each where both its rates are defined."""
    x, y = xy
    if own and not (math.isnan(own[x]) or math.isnan(own[y])):
        ax.plot([own[x]], [own[y]], "o", color="black", label="the method's decisions")
    if at_t and not (math.isnan(at_t[x]) or math.isnan(at_t[y])):
        ax.plot([at_t[x]], [at_t[y]], "s", color="crimson", markerfacecolor="none", markersize=11, label=threshold_text)


def figures(
    records: Sequence[Mapping[str, Any]],
    *,
    title: str = "",
    threshold: float | None = None,
    threshold_label: str = "threshold",
) -> Iterator[tuple[str, Any]]:
    """(name, matplotlib figure) for every plot the records allow; the caller closes each figure.

    ``title`` (e.g. ``"cascade on halueval_qa"``) names method and data in every plot title."""
    plt = matplotlib_pyplot()
    if plt is None:
        return
    suffix = f"\n{title}" if title else ""
    labelled = [r for r in records if r.get("label") in (0, 1)]
    scored = [r for r in labelled if r.get("score") is not None]
    decided = [r for r in scored if r.get("hallucinated") is not None]
    two_classes = bool(scored) and len({r["label"] for r in scored}) > 1
    y: list[int] = []
    s: list[float] = []
    if two_classes:
        y = [int(r["label"]) for r in scored]
        s = [float(r["score"]) for r in scored]
        own = (
            _rates([int(r["label"]) for r in decided], [int(bool(r["hallucinated"])) for r in decided])
            if decided
            else None
        )
        at_t = _rates(y, M.apply_threshold(s, threshold)) if threshold is not None else None
        marks = (own, at_t, f"{threshold_label} {threshold:.3g}" if threshold is not None else "")
        yield "roc", _roc(plt, y, s, marks, suffix)
        yield "pr", _pr(plt, y, s, marks, suffix)
    all_scores = [float(r["score"]) for r in records if r.get("score") is not None and r.get("status") != "error"]
    if all_scores:
        by_label = (y, s) if two_classes else None
        yield "scores", _scores(plt, all_scores, by_label, bool(labelled), threshold, threshold_label, suffix)
    decided_all = [r for r in labelled if r.get("hallucinated") is not None]
    if decided_all:
        yield "confusion", _confusion(plt, decided_all, suffix)
    if two_classes and calibrated(scored) and min(s) >= 0 and max(s) <= 1:
        yield "reliability", _reliability(plt, y, s, suffix)


_Marks = tuple[Sequence[float] | None, Sequence[float] | None, str]  # own decisions, fixed threshold's, its label


def _finish(fig: Any, ax: Any, labels: tuple[str, str], title: str, legend: str | None) -> Any:
    """``fig`` with the x and y ``labels`` and the ``title`` on ``ax``, its legend at ``legend`` ("": where
    matplotlib puts it; None: no legend), laid out."""
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    ax.set_title(title, fontsize=10)
    if legend is not None:
        ax.legend(**({"loc": legend} if legend else {}), fontsize=8)
    fig.tight_layout()
    return fig


def _roc(plt: Any, y: list[int], s: list[float], marks: _Marks, suffix: str) -> Any:
    own, at_t, t_text = marks
    fpr, tpr, _ = M.roc_curve(y, s)
    fig, ax = plt.subplots(figsize=(4.6, 4.4))
    ax.plot(fpr, tpr, label=f"AUROC {M.roc_auc(y, s):.3f}")
    ax.plot([0, 1], [0, 1], "--", color="grey", linewidth=0.8)
    _mark_decisions(ax, own, at_t, (0, 1), t_text)
    return _finish(
        fig, ax, ("false positive rate", "true positive rate"), "ROC (positive = hallucinated)" + suffix, "lower right"
    )


def _pr(plt: Any, y: list[int], s: list[float], marks: _Marks, suffix: str) -> Any:
    own, at_t, t_text = marks
    precision, recall, _ = M.pr_curve(y, s)
    fig, ax = plt.subplots(figsize=(4.6, 4.4))
    ax.step(recall, precision, where="post", label=f"AUPRC {M.average_precision(y, s):.3f}")
    ax.axhline(sum(y) / len(y), linestyle="--", color="grey", linewidth=0.8, label="chance (share hallucinated)")
    _mark_decisions(ax, own, at_t, (1, 2), t_text)
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.05)
    return _finish(
        fig, ax, ("recall (hallucinated)", "precision (hallucinated)"), "Precision-recall" + suffix, "lower left"
    )


def _scores(
    plt: Any,
    all_scores: list[float],
    by_label: tuple[list[int], list[float]] | None,
    labelled: bool,
    threshold: float | None,
    threshold_label: str,
    suffix: str,
) -> Any:
    """The scores' histogram: one per gold class when both are there (``by_label``), else of all rows."""
    fig, ax = plt.subplots(figsize=(5.4, 3.6))
    unit = min(all_scores) >= 0 and max(all_scores) <= 1
    bins: Any = [i / 20 for i in range(21)] if unit else 20
    if by_label is not None:
        y, s = by_label
        ax.hist([v for v, t in zip(s, y) if t == 0], bins=bins, alpha=0.6, label="grounded (gold 0)")
        ax.hist([v for v, t in zip(s, y) if t == 1], bins=bins, alpha=0.6, label="hallucinated (gold 1)")
    else:
        ax.hist(all_scores, bins=bins, alpha=0.8, label="all rows" if not labelled else "scored rows")
    if threshold is not None:
        ax.axvline(threshold, color="crimson", linestyle="--", label=f"{threshold_label} {threshold:.3g}")
    title = "Scores" + (" by gold label" if by_label is not None else "") + suffix
    return _finish(fig, ax, ("score (higher = more likely hallucinated)", "examples"), title, "")


def _confusion(plt: Any, decided: list[Mapping[str, Any]], suffix: str) -> Any:
    c = M.confusion([r["label"] for r in decided], [int(bool(r["hallucinated"])) for r in decided])
    grid = [[c["tn"], c["fp"]], [c["fn"], c["tp"]]]
    total = sum(map(sum, grid))
    fig, ax = plt.subplots(figsize=(4.2, 3.8))
    top = max(max(row) for row in grid) or 1
    ax.imshow(grid, cmap="Blues", vmin=0, vmax=top)
    names = [["TN", "FP"], ["FN", "TP"]]
    for i in range(2):
        for j in range(2):
            share = 100 * grid[i][j] / total if total else 0.0
            colour = "white" if grid[i][j] > top / 2 else "black"  # dark cell, light text
            text = f"{names[i][j]}\n{grid[i][j]}\n{share:.1f} %"
            ax.text(j, i, text, ha="center", va="center", color=colour, fontsize=11)
    ax.set_xticks([0, 1], ["grounded", "hallucinated"])
    ax.set_yticks([0, 1], ["grounded", "hallucinated"])
    return _finish(fig, ax, ("predicted", "gold"), f"Confusion matrix (n = {total})" + suffix, None)


def _reliability(plt: Any, y: list[int], s: list[float], suffix: str) -> Any:
    rel = reliability_bins(y, s)
    fig, ax = plt.subplots(figsize=(4.6, 4.4))
    ax.plot([0, 1], [0, 1], "--", color="grey", linewidth=0.8, label="perfectly calibrated")
    ax.plot([b[0] for b in rel], [b[1] for b in rel], "o-", label=f"ECE {expected_calibration_error(y, s):.3f}")
    for conf, acc, n in rel:
        ax.annotate(str(n), (conf, acc), textcoords="offset points", xytext=(4, -10), fontsize=7, color="dimgrey")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    title = "Reliability of the calibrated scores" + suffix
    return _finish(fig, ax, ("mean score in bin", "share hallucinated (gold)"), title, "upper left")


def to_bytes(fig: Any, fmt: str) -> bytes:
    """The figure as PNG or SVG bytes (SVG without dates or random ids, so reports are stable)."""
    import matplotlib

    buf = io.BytesIO()
    # text stays text in the SVG (searchable, smaller); the viewer's sans-serif font draws it
    with matplotlib.rc_context({"svg.hashsalt": "hallucheck", "svg.fonttype": "none"}):
        fig.savefig(buf, format=fmt, dpi=100, metadata={"Date": None} if fmt == "svg" else None)
    return buf.getvalue()


__all__ = ["figures", "to_bytes", "method_threshold", "calibrated", "reliability_bins", "expected_calibration_error"]
