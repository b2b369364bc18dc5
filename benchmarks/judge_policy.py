"""When may the LLM judge overrule the trained verifier? Replayed from recorded runs, chosen leave-one-dataset-out.

    # runs of the default with the judge asked on every sentence the gate and the copy rule pass
    hallucheck eval --method ce_cascade --llm embedded --data <dev sample>.jsonl --out runs/judge/llm-<set>
    python benchmarks/rag_cases.py --data tests/data/rag_cases.jsonl --llm embedded --mode with_question \\
        --out runs/judge/rag-llm
    python benchmarks/judge_policy.py --dev runs/judge/llm-* --rag runs/judge/rag-llm=tests/data/rag_cases.jsonl

A policy is a band half-width ``w`` around the task's threshold ``t`` and a judge weight ``a``: a sentence
whose combined score ``p`` lies within ``[t - w, t + w]`` takes the final score ``(1 - a) p + a j``
(``j``: the judge's P(unsupported) put on the combination's scale, its own threshold landing on ``t``);
every other sentence keeps the verifier's decision. ``w = 0`` is ``--llm none``; the shipped summary
policy is ``w = 1, a = 1`` (the judge decides every sentence the gate and copy rule pass). QA answers
(one sentence read after its question) keep their own band and are replayed unchanged.

The dev sets' answers are flagged when any sentence is; for each held-out dev set the policy is chosen
on the others (highest mean balanced accuracy, ties to the narrower band and lower weight), and the
table reports every held-out set and the worst, with the chosen policy's RAG-set sentence rates (share of
unsupported sentences caught, share of supported sentences flagged) beside ``--llm none``'s.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from combination import balanced_accuracy  # noqa: E402
from hallucheck.stages.ce_cascade import JUDGE_THRESHOLD, load_combination, to_scale  # noqa: E402

_TASKS = load_combination("embedded")["tasks"]  # the shipped thresholds
SUMMARY_T, QA_T = float(_TASKS["summary"]["threshold"]), float(_TASKS["qa"]["threshold"])
WIDTHS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 1.0)
WEIGHTS = (0.25, 0.5, 0.75, 1.0)


def sentence(v: dict) -> dict:
    """What the replay needs of one recorded verdict."""
    m = v.get("meta") or {}
    stage = m.get("stage", "verifier")
    p = m.get("combined_score", v.get("score"))
    return {
        "stage": stage,
        "status": v.get("status", "ok"),
        "flagged": bool(v.get("hallucinated")),
        "p": float(p) if p is not None else None,
        "j": float(m["judge_score"]) if "judge_score" in m else None,
        "qa": False,  # set by the caller: a one-claim answer read after its question
        "start": v["claim"]["start"],
        "end": v["claim"]["end"],
    }


def decide(s: dict, w: float, a: float, t: float) -> bool:
    if s["stage"] in ("gate", "copy") or s["p"] is None:
        return s["flagged"]
    if s["qa"]:  # QA keeps its own band and weight
        return s["flagged"]
    if w > 0 and s["j"] is not None and abs(s["p"] - t) <= w:
        final = (1 - a) * s["p"] + a * to_scale(s["j"], JUDGE_THRESHOLD, t)
        return final > t
    return s["p"] > t


def is_qa(det: dict) -> bool:
    """One claim after a question: read as QA by ``ce_cascade`` (the QA band and weights)."""
    return bool(det.get("question")) and len(det.get("verdicts") or ()) == 1


def load_dev(run: Path) -> tuple[str, list[tuple[int, list[dict], bool]]]:
    rows = []
    with open(run / "results.jsonl", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            det = r.get("detection") or {}
            if r.get("status") != "ok" or not det.get("verdicts"):
                continue
            qa = is_qa(det)
            sents = [sentence(v) for v in det["verdicts"]]
            for s in sents:
                s["qa"] = qa
            rows.append((int(r["label"]), sents, qa))
    return run.name.removeprefix("llm-"), rows


def dev_ba(rows, w: float, a: float) -> float:
    y = np.array([r[0] for r in rows])
    pred = np.array([int(any(decide(s, w, a, QA_T if qa else SUMMARY_T) for s in sents)) for _, sents, qa in rows])
    return balanced_accuracy(y, pred)


def load_rag(spec: str) -> list[tuple[str, list[dict]]]:
    """(label, its overlapping verdicts' replay records) per labelled sentence."""
    run, cases_path = spec.split("=", 1)
    cases = {}
    with open(cases_path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                c = json.loads(line)
                cases[c["id"]] = c
    out = []
    with open(Path(run) / "results.jsonl", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            det = r["detection"]
            qa = is_qa(det) if r["mode"] == "with_question" else False
            sents = [sentence(v) for v in det.get("verdicts") or ()]
            for s in sents:
                s["qa"] = qa
            for lab in cases[r["id"]]["sentences"]:
                over = [s for s in sents if s["start"] < lab["end"] and lab["start"] < s["end"]]
                out.append((lab["label"], over))
    return out


def rag_rates(recs, w: float, a: float) -> tuple[float, float, int, int]:
    def flagged(over):
        return any(decide(s, w, a, QA_T if s["qa"] else SUMMARY_T) for s in over)

    pos = [flagged(o) for lab, o in recs if lab == "unsupported"]
    neg = [flagged(o) for lab, o in recs if lab == "supported"]
    return float(np.mean(pos)), float(np.mean(neg)), len(pos), len(neg)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dev", nargs="+", type=Path, required=True, help="hallucheck eval run directories")
    ap.add_argument("--rag", nargs="*", default=[], help="RUN_DIR=CASES.jsonl of benchmarks/rag_cases.py runs")
    args = ap.parse_args()
    dev = dict(load_dev(p) for p in args.dev)
    rag = {spec.split("=", 1)[0]: load_rag(spec) for spec in args.rag}
    grid = [(0.0, 0.0)] + [(w, a) for w in WIDTHS[1:] for a in WEIGHTS]
    table = {(w, a): {k: dev_ba(v, w, a) for k, v in dev.items()} for w, a in grid}

    def label(w: float, a: float) -> str:
        return "--llm none (no judge)" if w == 0 else f"band +/-{w:g}, judge weight {a:g}"

    print("sets:", ", ".join(f"{k} {len(v)}" for k, v in dev.items()))
    print(
        "\n| policy | "
        + " | ".join(dev)
        + " | worst | "
        + " | ".join(f"{Path(r).name} caught / false alarms" for r in rag)
        + " |"
    )
    print("|---|" + "---:|" * (len(dev) + 1 + len(rag)))
    for w, a in [(0.0, 0.0), (1.0, 1.0)]:
        ba = table[(w, a)]
        cells = [f"{100 * ba[k]:.1f}" for k in dev]
        rr = [rag_rates(v, w, a) for v in rag.values()]
        print(
            f"| {label(w, a)} | "
            + " | ".join(cells)
            + f" | {100 * min(ba.values()):.1f} | "
            + " | ".join(f"{100 * c:.0f} % / {100 * f:.0f} %" for c, f, _, _ in rr)
            + " |"
        )
    # leave-one-dataset-out choice
    held_out = {}
    for held in dev:
        train = [k for k in dev if k != held]
        best = max(grid, key=lambda wa: (round(np.mean([table[wa][k] for k in train]), 6), -wa[0], -wa[1]))
        held_out[held] = (best, table[best][held])
    cells = [f"{100 * held_out[k][1]:.1f} ({held_out[k][0][0]:g}/{held_out[k][0][1]:g})" for k in dev]
    print(
        "| chosen on the other sets (w/a) | "
        + " | ".join(cells)
        + f" | {100 * min(v[1] for v in held_out.values()):.1f} | |"
    )
    allbest = max(grid, key=lambda wa: (round(np.mean([table[wa][k] for k in dev]), 6), -wa[0], -wa[1]))
    print(f"\nchosen on all sets: {label(*allbest)}")
    for name, recs in rag.items():
        for w, a in [(0.0, 0.0), (1.0, 1.0), allbest]:
            c, f, n_pos, n_neg = rag_rates(recs, w, a)
            print(
                f"  {Path(name).name}: {label(w, a)}: caught {100 * c:.0f} % of {n_pos}, supported flagged {100 * f:.0f} % of {n_neg}"
            )
    if rag:
        # the shipped rule: the judge may not flag more correct sentences than --llm none on any RAG set
        # given; among the policies that keep to it, the highest mean balanced accuracy over the dev sets
        none_fa = {k: rag_rates(v, 0.0, 0.0)[1] for k, v in rag.items()}
        allowed = [wa for wa in grid if all(rag_rates(v, *wa)[1] <= none_fa[k] + 1e-12 for k, v in rag.items())]
        kept = max(allowed, key=lambda wa: (round(np.mean([table[wa][k] for k in dev]), 6), -wa[0], -wa[1]))
        print(f"\nchosen, no more correct sentences flagged than --llm none on the RAG sets: {label(*kept)}")
        for name, recs in rag.items():
            c, f, n_pos, n_neg = rag_rates(recs, *kept)
            c0, f0, _, _ = rag_rates(recs, 0.0, 0.0)
            print(
                f"  {Path(name).name}: caught {round(c * n_pos)} of {n_pos} ({round(c0 * n_pos)} without the judge), "
                f"supported flagged {round(f * n_neg)} of {n_neg} ({round(f0 * n_neg)} without)"
            )
    print("\nevery policy (mean BA over the dev sets; RAG sets' caught / false alarms):")
    for w, a in grid:
        rr = [rag_rates(v, w, a) for v in rag.values()]
        print(
            f"  {label(w, a):36s} mean {100 * np.mean(list(table[(w, a)].values())):.1f} worst {100 * min(table[(w, a)].values()):.1f}  "
            + "  ".join(f"{100 * c:.0f}/{100 * f:.0f}" for c, f, _, _ in rr)
        )


if __name__ == "__main__":
    main()
