"""Write a seeded random sample of a JSONL dataset's rows (for benchmarks that cannot afford every row).

    python benchmarks/sample_rows.py ../shared/data/dev/summedits.jsonl 300 runs/data/summedits_s300.jsonl [--seed 0]

The rows keep their original order; the same seed gives the same rows.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", type=Path)
    ap.add_argument("n", type=int)
    ap.add_argument("dest", type=Path)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    lines = [line for line in args.src.read_text(encoding="utf-8").splitlines() if line.strip()]
    keep = sorted(random.Random(args.seed).sample(range(len(lines)), min(args.n, len(lines))))
    args.dest.parent.mkdir(parents=True, exist_ok=True)
    args.dest.write_text("".join(lines[i] + "\n" for i in keep), encoding="utf-8")
    print(f"{len(keep)} of {len(lines)} rows -> {args.dest}")


if __name__ == "__main__":
    main()
