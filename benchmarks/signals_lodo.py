"""Every signal alone and combined, leave-one-dataset-out over the five dev sets.

    OMP_NUM_THREADS=1 nohup python benchmarks/signal_features.py --out runs/signals/features.jsonl \\
        > runs/signals/extract.log 2>&1 &                  # once, resumable (every signal, --llm none)
    python benchmarks/signals_lodo.py runs/signals/features*.jsonl [--bootstrap 1000] [--markdown]

For every held-out dev set, everything fitted or tuned -- a signal's threshold, a combiner's weights
or trees and its threshold -- is fitted on the other four sets and scored on the held-out one. A
signal's threshold maximises the mean balanced accuracy over the four training sets; a combiner's
threshold is chosen the same way on scores it gave each training set when fitted on the other three
(an inner leave-one-dataset-out), never on its own in-sample scores. Each training set weighs the
same, and within a set both classes weigh the same. The figure that counts is the **worst** held-out
set's balanced accuracy; intervals are 95 % percentile bootstraps (HaluEval's right and hallucinated
answer of one item resampled together).

Signals alone (an answer's score is its highest sentence's unless said):
SIM-OVERLAP and SIM-COSINE (the shipped methods' answer scores), KEYWORD-MATCH without an LLM
(share of a sentence's content words and figures the reference lacks), the trained verifier's
P(unsupported), the figure gate's missing/contradicted share, n-gram novelty of the answer against
its reference (1-, 2-, 3-grams), the copy rule (share of sentences the reference does not hold word
for word), and the default as shipped (``ce_cascade --llm none``: its own decisions and thresholds,
fitted on all five sets -- in-sample, for reference) and refitted LODO (``transfer.py``'s option b).

Combiners over answer features (the signals above plus regime features: answer length, sentences,
whether it is read as QA, has a question, novelty): logistic regression with the signals' interactions
with the regime features, and scikit-learn gradient-boosted trees of depth 1 and 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from combination import balanced_accuracy  # noqa: E402
from transfer import COLUMNS, Row, cell, combination, summarise, worst  # noqa: E402

SETS = ("halueval_qa", "halueval_summ", "summeval", "summedits", "wice")


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


# -- answer features -------------------------------------------------------------------------------------------

SIGNALS = {  # name -> answer score (higher: more likely unsupported)
    "SIM-OVERLAP": lambda d: d["methods"]["sim_overlap"]["score"] or 0.0,
    "SIM-COSINE": lambda d: d["methods"]["sim_cosine"]["score"] or 0.0,
    "KEYWORD-MATCH (no LLM)": lambda d: max(s["keyword"] for s in d["sentences"]),
    "verifier P(unsupported)": lambda d: max(s["verifier"] for s in d["sentences"]),
    "figure gate share": lambda d: max(s["gate"] for s in d["sentences"]),
    "novelty 1-grams": lambda d: d["answer_novelty"][0],
    "novelty 2-grams": lambda d: d["answer_novelty"][1],
    "novelty 3-grams": lambda d: d["answer_novelty"][2],
    "copy rule (share not copied)": lambda d: (
        1.0 - sum(s["stage"] == "copy" for s in d["sentences"]) / len(d["sentences"])
    ),
}
REGIME = ("log words", "log sentences", "read as QA", "has question", "novelty 2-grams")
CORE = ("SIM-OVERLAP", "SIM-COSINE", "KEYWORD-MATCH (no LLM)", "verifier logit", "figure gate share", "copy rule")


def answer_features(d: dict) -> dict[str, float]:
    s = d["sentences"]
    f = {
        "SIM-OVERLAP": SIGNALS["SIM-OVERLAP"](d),
        "SIM-COSINE": SIGNALS["SIM-COSINE"](d),
        "KEYWORD-MATCH (no LLM)": SIGNALS["KEYWORD-MATCH (no LLM)"](d),
        "verifier logit": _logit(max(x["verifier"] for x in s)),
        "verifier mean logit": float(np.mean([_logit(x["verifier"]) for x in s])),
        "figure gate share": SIGNALS["figure gate share"](d),
        "copy rule": SIGNALS["copy rule (share not copied)"](d),
        "log words": math.log1p(d["answer_words"]),
        "log sentences": math.log(len(s)),
        "read as QA": float(d["qa"]),
        "has question": float(d["question"]),
        "novelty 1-grams": d["answer_novelty"][0],
        "novelty 2-grams": d["answer_novelty"][1],
        "novelty 3-grams": d["answer_novelty"][2],
    }
    return f


def load(paths: list[Path]) -> dict[str, list[dict]]:
    sets: dict[str, dict[str, dict]] = {}
    for p in paths:
        with open(p, encoding="utf-8") as f:
            for line in f:
                if line.strip().endswith("}"):
                    d = json.loads(line)
                    if d["sentences"]:
                        sets.setdefault(d["set"], {})[d["id"]] = d
    return {k: list(sets[k].values()) for k in SETS if k in sets}


# -- fitting pieces ------------------------------------------------------------------------------------------------


def weights(train: dict[str, list[dict]]) -> np.ndarray:
    """Each set weighs the same, and within a set each class."""
    out = []
    for rows in train.values():
        y = np.array([d["label"] for d in rows])
        for v in y:
            out.append(1.0 / (len(train) * 2 * max(1, int(np.sum(y == v)))))
    return np.array(out) * sum(len(v) for v in train.values())


def best_threshold(scored: list[tuple[np.ndarray, np.ndarray]]) -> float:
    """The cut maximising the mean balanced accuracy over the scored sets (midpoints of the pooled scores'
    quantiles; ties: the median of the best)."""
    pooled = np.concatenate([s for _, s in scored])
    qs = np.unique(np.quantile(pooled, np.linspace(0, 1, 401)))
    cuts = np.concatenate([[qs[0] - 1e-9], (qs[:-1] + qs[1:]) / 2, [qs[-1] + 1e-9]])
    values = np.array([np.mean([balanced_accuracy(y, (s > t).astype(int)) for y, s in scored]) for t in cuts])
    best = np.flatnonzero(values >= values.max() - 1e-12)
    return float(cuts[best[len(best) // 2]])


Scorer = Callable[[list[dict]], tuple[np.ndarray, np.ndarray]]


def single(name: str) -> Callable[[dict], Scorer]:
    def method(train: dict[str, list[dict]]) -> Scorer:
        fn = SIGNALS[name]
        t = best_threshold([(np.array([d["label"] for d in v]), np.array([fn(d) for d in v])) for v in train.values()])

        def scorer(rows):
            s = np.array([fn(d) for d in rows])
            return (s > t).astype(int), s

        return scorer

    return method


def shipped_default(train: dict[str, list[dict]]) -> Scorer:
    def scorer(rows):
        m = [d["methods"]["ce_cascade"] for d in rows]
        return np.array([int(bool(x["flagged"])) for x in m]), np.array([x["score"] or 0.0 for x in m])

    return scorer


def as_row(d: dict) -> Row:
    """The shipped combination's sentence signals (verifier logit, overlap, gate), sentences the copy rule
    supported left out (they are supported whatever the combination says)."""
    keep = [s for s in d["sentences"] if s["stage"] != "copy"]
    x = [[_logit(s["verifier"]), s["overlap"], s["gate"]] + [0.0] * (len(COLUMNS) - 3) for s in keep]
    if not x:
        x = [[-20.0, 1.0, 0.0] + [0.0] * (len(COLUMNS) - 3)]
    return Row(d["id"], d["label"], d["group"], d["qa"], np.array(x, dtype=np.float64))


def default_refit(train: dict[str, list[dict]]) -> Scorer:
    fitted = combination()({k: [as_row(d) for d in v] for k, v in train.items()})
    return lambda rows: fitted([as_row(d) for d in rows])


def design(rows: list[dict], cols: tuple[str, ...], interactions: bool) -> np.ndarray:
    feats = [answer_features(d) for d in rows]
    x = [[f[c] for c in cols] for f in feats]
    if interactions:
        x = [
            xi + [f[a] * f[r] for a in CORE for r in REGIME if a != r]  # every signal times every regime feature
            for xi, f in zip(x, feats)
        ]
    return np.array(x, dtype=np.float64)


def learned(make_model: Callable[[], object], cols: tuple[str, ...], interactions: bool = False):
    """A scikit-learn combiner over answer features; its threshold from an inner leave-one-dataset-out."""

    def fit_on(train: dict[str, list[dict]]):
        rows = [d for v in train.values() for d in v]
        model = make_model()
        x, y = design(rows, cols, interactions), np.array([d["label"] for d in rows])
        step = model.steps[-1][0] if hasattr(model, "steps") else None
        kw = {f"{step}__sample_weight" if step else "sample_weight": weights(train)}
        model.fit(x, y, **kw)
        return lambda rs: model.predict_proba(design(rs, cols, interactions))[:, 1]

    def method(train: dict[str, list[dict]]) -> Scorer:
        inner = []
        for held in train:
            score = fit_on({k: v for k, v in train.items() if k != held})
            inner.append((np.array([d["label"] for d in train[held]]), score(train[held])))
        t = best_threshold(inner)
        score = fit_on(train)

        def scorer(rows):
            s = score(rows)
            return (s > t).astype(int), s

        return scorer

    return method


def regime_choice(
    regime: str = "novelty 1-grams",
    candidates: tuple[str, ...] = (
        "default",
        "SIM-OVERLAP",
        "novelty 3-grams",
        "novelty 2-grams",
        "verifier P(unsupported)",
        "KEYWORD-MATCH (no LLM)",
    ),
):
    """A per-regime choice: answers at or below an edge of ``regime`` (how much of the answer's wording the
    reference lacks) are scored by one signal, the others by another, each with its own cut. The edge,
    the two signals and their cuts are all fitted on the training sets (mean balanced accuracy over them,
    each set weighing the same); the default's combination, refitted on the training sets, is a candidate."""

    def method(train: dict[str, list[dict]]) -> Scorer:
        refit = default_refit(train)

        def scores(rows: list[dict], name: str) -> np.ndarray:
            return refit(rows)[1] if name == "default" else np.array([SIGNALS[name](d) for d in rows])

        cached = {k: {c: scores(v, c) for c in candidates} for k, v in train.items()}
        reg = {k: np.array([SIGNALS[regime](d) for d in v]) for k, v in train.items()}
        ys = {k: np.array([d["label"] for d in v]) for k, v in train.items()}
        pooled = np.concatenate(list(reg.values()))
        edges = np.unique(np.quantile(pooled, np.linspace(0.05, 0.95, 19)))
        best = None
        for e in edges:
            parts = {}
            for side in ("low", "high"):
                for c in candidates:
                    masked = [
                        (ys[k][m], cached[k][c][m])
                        for k in train
                        for m in [(reg[k] <= e) if side == "low" else (reg[k] > e)]
                        if m.sum() and len(set(ys[k][m])) == 2
                    ]
                    if masked:
                        parts[(side, c)] = best_threshold(masked)
            for lo in candidates:
                for hi in candidates:
                    if ("low", lo) not in parts or ("high", hi) not in parts:
                        continue
                    bas = []
                    for k in train:
                        low = reg[k] <= e
                        pred = np.where(low, cached[k][lo] > parts[("low", lo)], cached[k][hi] > parts[("high", hi)])
                        bas.append(balanced_accuracy(ys[k], pred.astype(int)))
                    if best is None or np.mean(bas) > best[0] + 1e-12:
                        best = (float(np.mean(bas)), e, lo, hi, parts[("low", lo)], parts[("high", hi)])
        _, e, lo, hi, tlo, thi = best
        print(f"    regime edge {regime} <= {e:.3f}: {lo} > {tlo:.3f}, else {hi} > {thi:.3f}", file=sys.stderr)

        def scorer(rows):
            r = np.array([SIGNALS[regime](d) for d in rows])
            slo, shi = scores(rows, lo), scores(rows, hi)
            pred = np.where(r <= e, slo > tlo, shi > thi).astype(int)
            # a score for AUROC: each side's margin over its cut
            return pred, np.where(r <= e, slo - tlo, shi - thi)

        return scorer

    return method


def logistic(c: float = 1.0):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return lambda: make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=2000))


def trees(depth: int, n: int = 150, rate: float = 0.05):
    from sklearn.ensemble import GradientBoostingClassifier

    return lambda: GradientBoostingClassifier(
        max_depth=depth, n_estimators=n, learning_rate=rate, subsample=0.8, random_state=0
    )


# -- the report ------------------------------------------------------------------------------------------------


def lodo(sets: dict[str, list[dict]], method) -> dict[str, tuple]:
    out = {}
    for held in sets:
        pred, score = method({k: v for k, v in sets.items() if k != held})(sets[held])
        out[held] = (np.array([d["label"] for d in sets[held]]), pred, score)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("features", nargs="+", type=Path)
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--only", nargs="*", help="options whose name contains one of these")
    args = ap.parse_args()
    sets = load(args.features)
    print("sets:", ", ".join(f"{k} {len(v)}" for k, v in sets.items()))
    signals = tuple(c for c in CORE) + ("verifier mean logit",)
    all_cols = signals + REGIME + ("novelty 1-grams", "novelty 3-grams")
    options: dict[str, Callable] = {name: single(name) for name in SIGNALS}
    options["default as shipped (in-sample)"] = shipped_default
    options["default's combination refitted"] = default_refit
    options["logistic, signals"] = learned(logistic(), signals)
    options["logistic, signals + regime"] = learned(logistic(), all_cols)
    options["logistic, + interactions"] = learned(logistic(0.1), all_cols, interactions=True)
    options["trees depth 1"] = learned(trees(1), all_cols)
    options["trees depth 2"] = learned(trees(2), all_cols)
    options["per-regime choice (1-gram novelty)"] = regime_choice("novelty 1-grams")
    options["per-regime choice (3-gram novelty)"] = regime_choice("novelty 3-grams")
    if args.only:
        options = {k: v for k, v in options.items() if any(o.lower() in k.lower() for o in args.only)}
    lines = [
        "| signal / combiner | " + " | ".join(sets) + " | **worst set: BA [95 % CI]** | its AUROC [95 % CI] |",
        "|---|" + "---:|" * (len(sets) + 2),
    ]
    for name, method in options.items():
        out = lodo(sets, method)
        per = {k: summarise(y, p, s, [d["group"] for d in sets[k]], n=args.bootstrap) for k, (y, p, s) in out.items()}
        w = worst(per)
        cells = [f"{100 * per[k]['ba'][0]:.1f} / {100 * per[k]['auroc'][0]:.1f}" for k in sets]
        lines.append(
            f"| {name} | " + " | ".join(cells) + f" | {w}: **{cell(per[w]['ba'])}** | {cell(per[w]['auroc'])} |"
        )
        print(lines[-1], flush=True)
    print("\nper held-out set: balanced accuracy / AUROC\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
