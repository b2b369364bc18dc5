"""Run methods over the shared dev sets with `hallucheck eval` and print one comparison table.

    python benchmarks/bench_dev.py --methods sim_cosine sim_overlap sim_hybrid \
        --data halueval_qa halueval_summ summeval summedits [--limit N] [--offset N] [--llm embedded] [--out runs/dev]
        [--param NAME=VALUE ...] [--cache]

Each (method, data) run goes to OUT/<method>-<data>/ (resumable: rerun to finish an
interrupted benchmark) and the table adds the wall time each run took. These are dev sets:
the numbers describe behaviour and guide tuning; they are not held-out test results.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--methods", nargs="+", required=True)
    ap.add_argument("--data", nargs="+", default=["halueval_qa", "halueval_summ", "summeval", "summedits"])
    ap.add_argument(
        "--data-dir",
        default=os.environ.get("HALLUCHECK_DATA_DIR")
        or str(Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "dev"),
        help="where a bare --data name is looked up (HALLUCHECK_DATA_DIR; default ../shared/data/dev next to the repository)",
    )
    ap.add_argument("--limit", type=int)
    ap.add_argument(
        "--offset", type=int, default=0, help="skip the first N rows (a tuning split apart from the reported rows)"
    )
    ap.add_argument("--llm", default="embedded")
    ap.add_argument("--out", default="runs/dev")
    ap.add_argument("--param", action="append", default=[])
    ap.add_argument(
        "--cache",
        action="store_true",
        help="use the LLM response cache (off by default so that every call is paid and timed)",
    )
    args = ap.parse_args()
    os.environ["HALLUCHECK_DATA_DIR"] = args.data_dir
    dirs, times = [], {}
    for method in args.methods:
        for data in args.data:
            out = Path(args.out) / f"{method}-{Path(data).stem if data.endswith('.jsonl') else data}"
            cmd = [
                sys.executable,
                "-m",
                "hallucheck.cli",
                "eval",
                "--method",
                method,
                "--data",
                data,
                "--out",
                str(out),
                "--llm",
                args.llm,
                "--quiet",
            ]
            if args.limit:
                cmd += ["--limit", str(args.limit)]
            if args.offset:
                cmd += ["--offset", str(args.offset)]
            if not args.cache:
                cmd += ["--no-cache"]
            for p in args.param:
                cmd += ["--param", p]
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True)
            times[str(out)] = time.perf_counter() - t0
            if proc.returncode != 0:
                print(f"FAILED {' '.join(cmd)}\n{proc.stderr}", file=sys.stderr)
                continue
            print(proc.stdout.strip().splitlines()[0], file=sys.stderr)
            dirs.append(out)
    from hallucheck.eval.report import compare

    table = compare(dirs).splitlines()
    print(table[0] + " wall s |")
    print(table[1] + "---:|")
    for d, row in zip(dirs, table[2:]):
        print(f"{row} {times[str(d)]:.0f} |")
    thresholds = {str(d): json.loads((d / "metrics.json").read_text()).get("oracle_threshold") for d in dirs}
    print("\nBest thresholds on these dev runs (for tuning; not test results):")
    for d, t in thresholds.items():
        if t:
            print(f"- {Path(d).name}: {t['threshold']:.4g} (macro F1 {100 * t['macro_f1']:.1f})")


if __name__ == "__main__":
    main()
