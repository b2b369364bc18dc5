"""Fit the default method's learned combination of per-sentence signals on the dev sets.

    python benchmarks/bench_dev.py --methods cross_encoder --llm none --out runs/dev   # verifier scores, every row
    python benchmarks/fit_combination.py runs/dev/cross_encoder-* --out src/hallucheck/data/verifier/combine.json

Signals of an answer sentence (all computed by ``ce_cascade`` anyway, no LLM):
``verifier`` (logit of the trained verifier's P(unsupported)), ``overlap`` (DelucionQA's
overlap ratio with the closest reference sentence), ``gate`` (share of the sentence's numbers and
names missing from the reference). A sentence's score is ``sigmoid(w . x + b)``; an answer's the
highest of its sentences'. The weights are fitted per task (``qa``: examples with a question;
``summary``: the rest) by logistic regression on the answers' labels through a smooth maximum over
their sentences, every data set weighted equally; the threshold per task maximises the mean of
balanced accuracy and macro F1 over that task's sets. A two-fold cross-fit (fit on one half of
every set's rows, score the other half, and the reverse) gives every row a score from weights not
fitted on it: those "cross-fitted" figures, with bootstrap intervals, are the ones to report.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from combination import FEATURES, ba_f1, best_threshold, example_scores, fit


def features(runs: list[Path]) -> dict[str, list[tuple[int, np.ndarray]]]:
    """Per data set: (label, claims x features) per example."""
    from hallucheck.eval import load_dataset
    from hallucheck.stages.cross_encoder import sentence_signals

    out: dict[str, list] = {}
    for run in runs:
        name = run.name.split("-", 1)[1]
        cached = run / "signals.json"  # the signals of a finished run, kept beside it
        if cached.is_file():
            out[name] = [
                (y, np.array(x, dtype=np.float64).reshape(-1, len(FEATURES))) for y, x in json.loads(cached.read_text())
            ]
            continue
        manifest = json.loads((run / "manifest.json").read_text())
        examples = {str(e.id): e for e in load_dataset(manifest.get("data_file") or manifest["data"])}
        rows = []
        with open(run / "results.jsonl", encoding="utf-8") as f:
            for line in f:
                rec = json.loads(line)
                if rec.get("status", "ok") != "ok" or rec.get("label") is None:
                    continue
                ex = examples[str(rec["id"])]
                verdicts = rec["detection"]["verdicts"]
                scores = [float(v["meta"].get("verifier_score", v["score"])) for v in verdicts]
                claims = [(v["claim"]["text"], v["claim"]["start"], v["claim"]["end"]) for v in verdicts]
                x = sentence_signals(claims, scores, ex.reference)
                rows.append((int(rec["label"]), x))
        out[name] = rows
        cached.write_text(json.dumps([(y, x.tolist()) for y, x in rows]))
    return out


def report(sets: dict[str, list], w: np.ndarray, t: float, label: str) -> None:
    from hallucheck.eval.metrics import roc_auc

    for name, rows in sets.items():
        y, s = example_scores(rows, w)
        ba, f1 = ba_f1(y, (s > t).astype(int))
        print(
            f"  {label:10s} {name:16s} n={len(y):4d} BA {100 * ba:.1f} F1 {100 * f1:.1f} AUROC {100 * roc_auc(y, s):.1f}"
        )


def cross_fitted(out_of_fold: dict[str, tuple[list, list, list]]) -> None:
    """Every row scored by weights and a threshold fitted on the other half (with the hard gate):
    the figure to report, since no row is scored by what was tuned on it."""
    from hallucheck.eval.metrics import balanced_accuracy, bootstrap_ci, macro_prf, roc_auc

    def f1(a, b):
        return macro_prf(a, b)[2]

    for name, (y, p, sc) in out_of_fold.items():
        cells = []
        for label, fn, other in (("macro F1", f1, p), ("BA", balanced_accuracy, p), ("AUROC", roc_auc, sc)):
            lo, hi = bootstrap_ci(fn, y, other)
            cells.append(f"{label} {100 * fn(y, other):.1f} [{100 * lo:.1f}, {100 * hi:.1f}]")
        print(f"  cross-fitted {name:16s} n={len(y):4d} " + "  ".join(cells))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", type=Path, help="cross_encoder runs on the dev sets")
    ap.add_argument("--out", type=Path, help="write the combination (JSON) here")
    args = ap.parse_args()
    sets = features(args.runs)
    groups = {
        "qa": {k: v for k, v in sets.items() if "qa" in k.split("_")},
        "summary": {k: v for k, v in sets.items() if "qa" not in k.split("_")},
    }
    result = {"features": list(FEATURES), "aggregate": "max", "fitted_on": sorted(sets), "tasks": {}}
    for task, group in groups.items():
        if not group:
            continue
        w = fit(group)
        t = best_threshold(group, w)
        result["tasks"][task] = {
            "bias": float(w[0]),
            **{f: float(v) for f, v in zip(FEATURES, w[1:])},
            "threshold": t,
            "band_width": 0.1,
        }  # set from benchmarks/tune_ce_cascade.py
        print(f"{task}: weights {dict(zip(('bias',) + FEATURES, np.round(w, 3)))} threshold {t}")
        report(group, w, t, "in-sample")
        out_of_fold: dict[str, tuple[list, list, list]] = {k: ([], [], []) for k in group}
        for fit_half, score_half in ((0, 1), (1, 0)):
            # halves by pairs of rows: HaluEval's right and hallucinated answers of an item stay together
            half = {k: [r for i, r in enumerate(v) if (i // 2) % 2 == fit_half] for k, v in group.items()}
            other = {k: [r for i, r in enumerate(v) if (i // 2) % 2 == score_half] for k, v in group.items()}
            wh = fit(half)
            th = best_threshold(half, wh)
            report(other, wh, th, f"2-fold {fit_half}")
            for k, rows in other.items():
                y, sc = example_scores(rows, wh)
                gated = np.array([bool((x[:, 2] > 0).any()) for _, x in rows])  # the gate flags as ce_cascade's does
                out_of_fold[k][0].extend(y.tolist())
                out_of_fold[k][1].extend(((sc > th) | gated).astype(int).tolist())
                out_of_fold[k][2].extend(np.where(gated, np.maximum(sc, th + (1 - th) * 1e-3), sc).tolist())
        cross_fitted(out_of_fold)
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
