"""Score a verifier on the held-out entailment sets of ``benchmarks/nli_data.py`` (issue 45, item 3).

    python benchmarks/nli_heldout.py --sets runs/nli/heldout [--model embedded|DIR ...] [--limit 2000]
        [--threshold 0.5] [--json OUT.json]

Each pair's score is the verifier's probability that the claim is *not* supported. A premise longer
than one window is scored the way SummaC (Laban et al. 2022, "zero-shot" granularity) and MiniCheck
(Tang et al. 2024, chunked documents) score documents: the premise is cut into windows of whole
sentences (:data:`WINDOW` sentences each, overlapping by one), every window is scored against the
claim, and the claim takes the lowest score (the window that supports it best). Per set: binary
accuracy at ``--threshold`` (supported when the score is at or below it), balanced accuracy, AUROC,
and pairs per second on this machine. ``--limit`` takes the first N pairs of each set (the files are
written in their sources' order, so the same N pairs every run).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

WINDOW = 3


def windows(premise: str) -> list[str]:
    """The premise in windows of up to WINDOW sentences, consecutive windows sharing one sentence."""
    from hallucheck.text.segment import split_sentences

    sents = [s.text.strip() for s in split_sentences(premise) if s.text.strip()]
    if len(sents) <= WINDOW:
        return [premise]
    step = WINDOW - 1
    return [" ".join(sents[i : i + WINDOW]) for i in range(0, len(sents) - 1, step)]


def auroc(labels: np.ndarray, scores: np.ndarray) -> float:
    """Probability that a not-supported pair scores above a supported one (ties count half)."""
    pos, neg = scores[labels == 1], scores[labels == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    order = np.argsort(np.concatenate([neg, pos]), kind="mergesort")
    ranks = np.empty(len(order))
    allv = np.concatenate([neg, pos])[order]
    # average ranks over ties
    i = 0
    while i < len(allv):
        j = i
        while j + 1 < len(allv) and allv[j + 1] == allv[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    r_pos = ranks[len(neg) :].sum()
    return float((r_pos - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def score_set(encoder, pairs: list[dict]) -> np.ndarray:
    flat_ev, flat_cl, owner = [], [], []
    for n, p in enumerate(pairs):
        for w in windows(p["evidence"]):
            flat_ev.append(w)
            flat_cl.append(p["claim"])
            owner.append(n)
    raw = encoder.score(flat_ev, flat_cl)
    out = np.full(len(pairs), np.inf)
    for n, s in zip(owner, raw):
        out[n] = min(out[n], float(s))
    return out


def measure(model: str, sets: Path, limit: int, threshold: float) -> dict:
    from hallucheck.models.cross_encoder import CrossEncoder

    encoder = CrossEncoder(model).load()
    result: dict[str, dict] = {}
    for path in sorted(sets.glob("*.jsonl")):
        pairs = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()][:limit]
        t0 = time.perf_counter()
        scores = score_set(encoder, pairs)
        took = time.perf_counter() - t0
        labels = np.array([p["label"] for p in pairs])
        pred = (scores > threshold).astype(int)
        tpr = float((pred[labels == 1] == 1).mean()) if (labels == 1).any() else float("nan")
        tnr = float((pred[labels == 0] == 0).mean()) if (labels == 0).any() else float("nan")
        result[path.stem] = {
            "pairs": len(pairs),
            "accuracy": float((pred == labels).mean()),
            "balanced_accuracy": (tpr + tnr) / 2,
            "auroc": auroc(labels, scores),
            "pairs_per_s": len(pairs) / took,
        }
        print(f"{model} {path.stem}: {json.dumps(result[path.stem])}", file=sys.stderr, flush=True)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", type=Path, default=Path("runs/nli/heldout"))
    ap.add_argument("--model", nargs="+", default=["embedded"])
    ap.add_argument("--limit", type=int, default=2000)
    ap.add_argument("--threshold", type=float, default=0.5)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    table = {m: measure(m, args.sets, args.limit, args.threshold) for m in args.model}
    names = sorted({s for r in table.values() for s in r})
    print("| model | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for m, r in table.items():
        cells = [f"{100 * r[s]['accuracy']:.1f} / {100 * r[s]['auroc']:.1f}" if s in r else "" for s in names]
        print(f"| {m} | " + " | ".join(cells) + " |")
    if args.json:
        args.json.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
