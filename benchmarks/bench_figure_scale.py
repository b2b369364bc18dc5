"""Time of the figure check against the size of its input: an answer of N sentences with three figures
each, against a reference of 2N such sentences (random words from one small vocabulary, so most
values of a kind are near one another: the hard case for the value index).

    python benchmarks/bench_figure_scale.py [--sizes 100 400 800] [--seed 0]

Prints, per size, the seconds to build the reference's facts and check every answer sentence with
``ReferenceFacts.check_quantities``, and the milliseconds per answer sentence. The work per sentence
is bounded (stages/gate/index.py), so the time grows with the number of answer sentences, not with
their product with the reference's.
"""

from __future__ import annotations

import argparse
import random
import time

WORDS = (
    "pressure tyre front rear load engine battery charge cable seat door window light speed brake pad fluid oil".split()
)


def sentence(rng: random.Random, i: int) -> str:
    w = rng.sample(WORDS, 3)
    return (
        f"The {w[0]} {w[1]} of unit {i} is {rng.randint(1, 99)}.{rng.randint(0, 9)} bar and the {w[2]} takes "
        f"{rng.randint(1, 500)} mg every {rng.randint(1, 12)} hours."
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 400, 800], help="answer sentences per run")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    from hallucheck.stages.gate.figures import ReferenceFacts

    print("| answer sentences | reference sentences | seconds | ms / answer sentence |")
    print("|---:|---:|---:|---:|")
    for n in args.sizes:
        rng = random.Random(args.seed)
        reference = " ".join(sentence(rng, i) for i in range(2 * n))
        claims = [sentence(rng, i) for i in range(n)]
        start = time.perf_counter()
        facts = ReferenceFacts(reference)
        for claim in claims:
            facts.check_quantities(claim)
        took = time.perf_counter() - start
        print(f"| {n} | {2 * n} | {took:.2f} | {1000 * took / n:.1f} |")


if __name__ == "__main__":
    main()
