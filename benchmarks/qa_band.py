"""Replay a finished ``ce_cascade`` run with the LLM judge for narrower QA bands (issue 21: "the fewest
LLM calls that keep quality").

    hallucheck eval --method ce_cascade --llm embedded --data ../shared/data/dev/halueval_qa.jsonl \
        --param band_width=0.31 --out runs/full/qa-wide                       # the widest band to replay
    python benchmarks/qa_band.py runs/full/qa-wide [--widths 0 0.05 0.1 0.2]

A narrower band around the same threshold asks the judge about a subset of the answers the wide run
asked about, and the run recorded, per sentence, the combination's score and the judge's
P(unsupported). So each narrower width's decisions are exact: inside the band the judge's score,
mapped onto the combination's scale, is mixed with the combination's as ``ce_cascade`` does; outside
it the combination decides; sentences the gate or the copy rule settled keep their verdicts. Prints,
per width, balanced accuracy and macro F1 with 95 % intervals and the judge calls per example.
Widths wider than the run's own band cannot be replayed (their extra answers were never judged).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from hallucheck.stages.ce_cascade import JUDGE_THRESHOLD, to_scale


def load(run: Path) -> list[dict]:
    with open(run / "results.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [r for r in rows if r.get("status", "ok") == "ok" and r.get("label") is not None]


def replay(
    rows: list[dict], threshold: float, width: float, *, judge_threshold: float = JUDGE_THRESHOLD, weight: float = 0.5
) -> tuple[list[int], list[int], int]:
    """(labels, decisions, judge calls) with the band ``[threshold - width, threshold + width]``."""
    lo, hi = max(0.0, threshold - width), min(1.0, threshold + width)
    labels, decisions, calls = [], [], 0
    for r in rows:
        flagged = False
        for v in r["detection"]["verdicts"]:
            meta = v.get("meta") or {}
            if meta.get("stage") != "judge":
                flagged |= bool(v["hallucinated"])
                continue
            p = float(meta["combined_score"])
            if lo <= p <= hi:
                calls += 1
                mixed = (1.0 - weight) * p + weight * to_scale(float(meta["judge_score"]), judge_threshold, threshold)
                flagged |= mixed > threshold
            else:
                flagged |= p > threshold
        labels.append(int(r["label"]))
        decisions.append(int(flagged))
    return labels, decisions, calls


def main() -> None:
    from hallucheck.eval.metrics import balanced_accuracy, bootstrap_ci, macro_prf

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", type=Path, help="a ce_cascade run with the LLM judge on a QA set")
    ap.add_argument("--threshold", type=float, help="the QA threshold (default: the shipped combine.json's)")
    ap.add_argument("--widths", type=float, nargs="+", default=[0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.31])
    args = ap.parse_args()
    t = args.threshold
    if t is None:
        from importlib import resources

        combo = json.loads(resources.files("hallucheck").joinpath("data/verifier/combine.json").read_text())
        t = float(combo["tasks"]["qa"]["threshold"])
    rows = load(args.run)
    print(f"{args.run}: {len(rows)} labelled answers, QA threshold {t}")
    print("| band width | band | bal. acc. [95 % CI] | macro F1 [95 % CI] | judge calls / example |")
    print("|---:|---|---:|---:|---:|")
    for w in args.widths:
        y, d, calls = replay(rows, t, w)
        ba = balanced_accuracy(y, d)
        f1 = macro_prf(y, d)[2]
        ba_lo, ba_hi = bootstrap_ci(balanced_accuracy, y, d)
        f1_lo, f1_hi = bootstrap_ci(lambda a, b: macro_prf(a, b)[2], y, d)
        print(
            f"| {w:.2f} | [{max(0.0, t - w):.2f}, {min(1.0, t + w):.2f}] | {100 * ba:.1f} [{100 * ba_lo:.1f}, "
            f"{100 * ba_hi:.1f}] | {100 * f1:.1f} [{100 * f1_lo:.1f}, {100 * f1_hi:.1f}] | {calls / len(rows):.2f} |"
        )


if __name__ == "__main__":
    main()
