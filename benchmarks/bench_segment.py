"""Time sentence splitting on a large multi-line reference (issue 11, item 12).

    python benchmarks/bench_segment.py            # 100 KB, 400 KB, 2 MB
    python benchmarks/bench_segment.py 50000 200000

Prints size, seconds and sentences per size; the time should grow linearly with the size.
The text mixes what costs the most: many short lines, blank lines, list items, abbreviations,
initials, decimal numbers, glued full stops and runs of dots.
"""

from __future__ import annotations

import sys
import time

from hallucheck.text.segment import split_sentences

BLOCK = (
    "Dr. J. K. Smith inflated the tyres to 2.4 bar. The rear takes 2.2 bar!\n"
    "- Check the pressure when cold\n"
    "1. Fuel: 95 RON; oil: 5W-30\n"
    "\n"
    "Contents ........ 12\n"
    "It was built in the 19th century.First owned by the U.S. Army, etc. and later sold\n"
    "to a private owner who kept it\n"
)


def make_text(size: int) -> str:
    return (BLOCK * (size // len(BLOCK) + 1))[:size]


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [100_000, 400_000, 2_000_000]
    print("| size (chars) | seconds | sentences | µs per KB |")
    print("|---:|---:|---:|---:|")
    for size in sizes:
        text = make_text(size)
        t0 = time.perf_counter()
        spans = split_sentences(text)
        dt = time.perf_counter() - t0
        print(f"| {size:,} | {dt:.3f} | {len(spans):,} | {1e6 * dt / (size / 1000):.0f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
