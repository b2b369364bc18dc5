"""Speed of the trained verifier and peak memory of `hallucheck detect`.

    python benchmarks/bench_verifier.py [--data halueval_qa] [--repeat 3]

1. examples/s of the ``cross_encoder`` method (the trained verifier alone) and of the default
   ``ce_cascade`` with ``--llm none`` over every row of a dev set (models loaded and warmed up
   first; best of ``--repeat`` passes; one process, the machine's cores);
2. peak resident memory (max RSS) of one ``hallucheck detect`` process on the shipped car-manual
   example, with the default method and the embedded LLM, and with ``--llm none``.
Run it on a quiet machine: it measures wall time.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def rate(method: str, rows: list, repeat: int, **params) -> float:
    import hallucheck

    pipe = hallucheck.load_method(method, **params)
    pipe.run(rows[0].answer, rows[0].reference, question=rows[0].question)  # load and warm up
    best = 0.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        for ex in rows:
            pipe.run(ex.answer, ex.reference, question=ex.question)
        best = max(best, len(rows) / (time.perf_counter() - t0))
    return best


def peak_rss_mb(args: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.run([sys.executable, "-m", "hallucheck.cli", *args], capture_output=True, text=True, cwd=ROOT)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"hallucheck {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(after, before) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="halueval_qa")
    ap.add_argument(
        "--data-dir",
        default=os.environ.get("HALLUCHECK_DATA_DIR")
        or str(Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "dev"),
        help="where a bare --data name is looked up (HALLUCHECK_DATA_DIR; default ../shared/data/dev next to the repository)",
    )
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    os.environ["HALLUCHECK_DATA_DIR"] = args.data_dir
    from hallucheck.eval import load_dataset

    rows = load_dataset(args.data)
    print(f"| measure | {args.data} ({len(rows)} rows) |\n|---|---:|")
    print(f"| cross_encoder (trained verifier alone), examples/s | {rate('cross_encoder', rows, args.repeat):.1f} |")
    print(
        f"| ce_cascade --llm none (gate + verifier), examples/s | {rate('ce_cascade', rows, args.repeat, llm='none'):.1f} |"
    )
    example = [
        "detect",
        "--reference",
        "examples/manual_reference.txt",
        "--answer",
        "examples/manual_answer.txt",
        "--no-cache",
    ]
    # one process each; RUSAGE_CHILDREN keeps the largest child so far, so run the smaller one first
    print(f"| hallucheck detect --llm none, peak RSS MB | {peak_rss_mb(example + ['--llm', 'none']):.0f} |")
    print(f"| hallucheck detect (default, embedded LLM), peak RSS MB | {peak_rss_mb(example):.0f} |")


if __name__ == "__main__":
    main()
