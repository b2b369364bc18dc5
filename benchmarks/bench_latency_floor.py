"""How close a method's per-example latency is to what its LLM calls must cost at least.

    python benchmarks/bench_latency_floor.py --runs runs/qa40/cascade-halueval_qa runs/qa40/prompt-halueval_qa ...
        [--llm embedded] [--speeds speeds.json]

1. Measures the embedded model's speeds on this machine, response cache off: prompt processing
   (tokens/s over fresh ~600-token prompts, one output token, the KV cache cleared between
   prompts so nothing is reused) and generation (tokens/s over 96 greedy tokens after a short
   prompt). ``--speeds FILE`` reuses speeds measured earlier (the file this script writes next to
   the first run as ``speeds.json``).
2. For each run directory of ``hallucheck eval`` (``results.jsonl`` carries each example's LLM
   usage and seconds) computes the floor of every example,

       floor = prompt tokens / prompt speed + completion tokens / generation speed,

   i.e. the time its LLM calls need on this machine if nothing else took any time and no prompt
   prefix were reused, and prints the mean seconds per example, the mean floor, and their ratio
   (the issue's target: at most 1.5). A ratio below 1 is possible: llama.cpp reuses the KV
   cache of a prompt prefix shared with the previous call.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

WORDS = (
    "tyre pressure bar front rear axle load vehicle manual check cold warm valve cap spare wheel jack torque "
    "nut bolt brake fluid reservoir coolant engine oil level dipstick filter service interval kilometre"
).split()


def filler(n_words: int, seed: int) -> str:
    return " ".join(WORDS[(i * 7 + seed * 13) % len(WORDS)] for i in range(n_words))


def measure_speeds(spec: str) -> dict[str, float]:
    from hallucheck.llm import make_llm

    llm = make_llm(spec, cache=None, progress=False)
    llm.complete("Say OK.", max_tokens=2)  # load the model
    p_tokens = p_seconds = 0.0
    for seed in range(3):
        text = f"Text {seed}: {filler(450, seed)}\nRepeat the first word."
        if hasattr(llm, "llm"):
            llm.llm.reset()  # no KV-cache reuse between the measured prompts
        t0 = time.perf_counter()
        r = llm.complete(text, max_tokens=1)
        p_seconds += time.perf_counter() - t0
        p_tokens += r.usage.prompt_tokens
    t0 = time.perf_counter()
    r = llm.complete("Count from 1 to 200, separated by spaces.", max_tokens=96)
    g_seconds = time.perf_counter() - t0 - r.usage.prompt_tokens * p_seconds / p_tokens
    return {
        "prompt_tokens_per_s": p_tokens / p_seconds,
        "generation_tokens_per_s": r.usage.completion_tokens / g_seconds,
        "model": llm.model_id,
    }


def floor_of(run: Path, speeds: dict[str, float]) -> dict[str, float]:
    secs, floors = [], []
    with open(run / "results.jsonl", encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("status", "ok") != "ok" or rec.get("seconds") is None:
                continue
            u = rec.get("usage") or {}
            floors.append(
                u.get("prompt_tokens", 0) / speeds["prompt_tokens_per_s"]
                + u.get("completion_tokens", 0) / speeds["generation_tokens_per_s"]
            )
            secs.append(rec["seconds"])
    mean_s, mean_floor = statistics.fmean(secs), statistics.fmean(floors)
    return {
        "n": len(secs),
        "seconds": mean_s,
        "floor": mean_floor,
        "ratio": mean_s / mean_floor if mean_floor else float("nan"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", nargs="+", type=Path, required=True)
    ap.add_argument("--llm", default="embedded")
    ap.add_argument("--speeds", type=Path, help="reuse speeds measured earlier (JSON written by this script)")
    args = ap.parse_args()
    if args.speeds:
        speeds = json.loads(args.speeds.read_text(encoding="utf-8"))
    else:
        speeds = measure_speeds(args.llm)
        (args.runs[0] / "speeds.json").write_text(json.dumps(speeds, indent=1), encoding="utf-8")
    print(
        f"{speeds['model']}: prompt {speeds['prompt_tokens_per_s']:.1f} tokens/s, "
        f"generation {speeds['generation_tokens_per_s']:.1f} tokens/s\n"
    )
    print("| run | n | s/ex | floor s/ex | s / floor |")
    print("|---|---:|---:|---:|---:|")
    for run in args.runs:
        r = floor_of(run, speeds)
        print(f"| {run.name} | {r['n']} | {r['seconds']:.2f} | {r['floor']:.2f} | {r['ratio']:.2f} |")


if __name__ == "__main__":
    main()
