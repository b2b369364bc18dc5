"""Tune the cascade judge's threshold on dev runs held apart from the reported rows.

    python benchmarks/bench_dev.py --methods cascade --data halueval_qa --offset 40 --limit 100 --out runs/tune
    ... (the same for the other dev sets, each with --offset 40)
    python benchmarks/tune_cascade.py runs/tune/cascade-*

Each run directory must come from ``hallucheck eval --method cascade`` with the default decision
rule (no ``threshold``), so that every claim's calibrated judge score is in ``results.jsonl``. A
claim flagged by the entity gate stays flagged whatever the threshold (the gate is not a score to
tune); an example is predicted hallucinated when the gate flagged one of its claims or the
highest judge score of its claims exceeds ``t``. For each run the script prints the best ``t``
(macro F1) and, for the candidate thresholds, balanced accuracy and macro F1 per run, grouped by
task (``qa`` = examples with a question, ``summary`` = the rest), so that one threshold per task
can be chosen by the mean balanced accuracy over the runs of that task.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path


def load(run: Path) -> list[tuple[int, bool, float]]:
    """(label, gated, highest judge score) per example that completed."""
    rows = []
    with open(run / "results.jsonl", encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("status", "ok") != "ok" or rec.get("label") is None:
                continue
            verdicts = (rec.get("detection") or {}).get("verdicts") or []
            gated = any(v.get("meta", {}).get("stage") == "gate" and v.get("hallucinated") for v in verdicts)
            judged = [
                v["score"] for v in verdicts if v.get("meta", {}).get("stage") == "judge" and v.get("score") is not None
            ]
            rows.append((int(rec["label"]), gated, max(judged, default=0.0)))
    return rows


def scores_at(rows: list[tuple[int, bool, float]], t: float) -> tuple[float, float]:
    """(balanced accuracy, macro F1) with threshold ``t``."""
    tp = fp = tn = fn = 0
    for y, gated, s in rows:
        pred = gated or s > t
        tp += pred and y == 1
        fp += pred and y == 0
        tn += (not pred) and y == 0
        fn += (not pred) and y == 1
    sens = tp / (tp + fn) if tp + fn else 0.0
    spec = tn / (tn + fp) if tn + fp else 0.0
    f1_pos = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    f1_neg = 2 * tn / (2 * tn + fn + fp) if tn else 0.0
    return (sens + spec) / 2, (f1_pos + f1_neg) / 2


def task_of(run: Path) -> str:
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    return "qa" if "qa" in str(manifest.get("data", "")).split("_") else "summary"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--grid", type=float, default=0.02, help="step of the candidate thresholds (default 0.02)")
    args = ap.parse_args()
    grid = [round(0.5 + i * args.grid, 4) for i in range(int(0.5 / args.grid))]
    by_task: dict[str, list[tuple[str, list]]] = {}
    for run in args.runs:
        rows = load(run)
        by_task.setdefault(task_of(run), []).append((run.name, rows))
        best = max(grid, key=lambda t: scores_at(rows, t)[1])
        ba, f1 = scores_at(rows, best)
        base_ba, base_f1 = scores_at(rows, 0.5)
        print(
            f"{run.name}: n={len(rows)} gated={sum(g for _, g, _ in rows)}  t=0.5: BA {100 * base_ba:.1f} "
            f"F1 {100 * base_f1:.1f}  best t={best}: BA {100 * ba:.1f} F1 {100 * f1:.1f}"
        )
    for task, runs in by_task.items():
        mean_ba = {t: statistics.fmean(scores_at(rows, t)[0] for _, rows in runs) for t in grid}
        mean_f1 = {t: statistics.fmean(scores_at(rows, t)[1] for _, rows in runs) for t in grid}
        best = max(grid, key=lambda t: (round(mean_ba[t], 6), round(mean_f1[t], 6), -t))
        print(
            f"\n{task} ({', '.join(name for name, _ in runs)}): best mean BA at t={best}: "
            f"BA {100 * mean_ba[best]:.1f}, macro F1 {100 * mean_f1[best]:.1f} (t=0.5: BA {100 * mean_ba[0.5]:.1f})"
        )
        for t in grid[::5]:
            print(f"  t={t:.2f}: mean BA {100 * mean_ba[t]:.1f}  mean macro F1 {100 * mean_f1[t]:.1f}")


if __name__ == "__main__":
    main()
