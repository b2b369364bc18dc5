"""Time and peak memory of the figure gate (no LLM, no model) on inputs made to grow its work: a figure
the reference updates in a long sentence, one answer sentence of very many figures, and many
sentences through the direction rule.

    python benchmarks/bench_figure_bounds.py --stale-kb 100 403 --figures 70 2000 20000 --direction-kb 101 \
        --reference-kb 1000 4000

Each case runs in a process of its own (``EntityCheckVerifier(check_entities=False)`` over the answer's
sentences, as the gate reads them), stopped after --timeout seconds. The cases:

* ``stale``: the claim "The fee is £45." against "The fee is £45." followed by one sentence of that
  many KB listing plans and their prices (every price a candidate update of the fee);
* ``figures``: one answer sentence of N figures ("It uses 1 bar, 2 bar, ...") against a short
  reference;
* ``direction``: an answer of that many KB of sentences saying a change one way, against a reference
  of as many KB saying it the other way (every reference sentence shares the claims' words);
* ``reference``: three answer sentences with figures against a reference of that many KB of priced
  items (each sentence a price and a weight).

Prints a Markdown table: the case, its size, the seconds and the process's peak resident memory (MB).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


def stale(kb: int) -> tuple[str, str]:
    parts, size = [], 0
    while size < kb * 1000:
        parts.append(f"plan {len(parts)} costs £{46 + len(parts) % 50}")
        size += len(parts[-1]) + 2
    return "The fee is £45.", "The fee is £45. Today " + ", ".join(parts) + "."


def figures(n: int) -> tuple[str, str]:
    answer = "It uses " + ", ".join(f"{k + 1} bar" for k in range(n)) + "."
    return answer, "The front tyres take 2.4 bar. The rear tyres take 2.2 bar."


def direction(kb: int) -> tuple[str, str]:
    regions = "north south east west central coastal inland upper lower outer".split()
    answer: list[str] = []
    ref: list[str] = []
    size = 0
    while size < kb * 1000:
        r = regions[len(answer) % len(regions)]
        answer.append(f"Sales of the {r} store rose sharply in the season.")
        ref.append(f"Sales of the {r} store fell sharply in the season after the storm.")
        size += len(answer[-1]) + 1
    return " ".join(answer), " ".join(ref)


def reference(kb: int) -> tuple[str, str]:
    items: list[str] = []
    size = 0
    while size < kb * 1000:
        i = len(items)
        items.append(f"Item {i} costs {i * 7 % 1000}.{i % 100:02d} euros and weighs {i % 97} kg.")
        size += len(items[-1]) + 1
    answer = "Item 3 costs 21.03 euros. Item 5 weighs 6 kg. Item 8 costs 99 euros and weighs 8 kg."
    return answer, " ".join(items)


CASES = {"stale": stale, "figures": figures, "direction": direction, "reference": reference}


def run_one(case: str, size: int) -> None:
    """Run one case in this process and print its seconds and peak memory as JSON."""
    from hallucheck.stages.entity_check import EntityCheckVerifier
    from hallucheck.text.segment import split_sentences
    from hallucheck.types import Claim, Evidence

    answer, reference = CASES[case](size)
    claims = [Claim(s.text, s.start, s.end) for s in split_sentences(answer)]
    gate = EntityCheckVerifier(check_entities=False)
    t0 = time.process_time()
    verdicts = gate.verify(claims, [[Evidence(reference, 0, len(reference))]] * len(claims), reference=reference)
    took = time.process_time() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    flagged = sum(bool(v.hallucinated) for v in verdicts)
    print(json.dumps({"seconds": took, "peak_mb": peak, "claims": len(claims), "flagged": flagged}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stale-kb", type=int, nargs="*", default=[100, 403], help="sizes of the updating sentence")
    ap.add_argument("--figures", type=int, nargs="*", default=[70, 2000, 20000], help="figures of one sentence")
    ap.add_argument("--direction-kb", type=int, nargs="*", default=[101], help="answer and reference sizes")
    ap.add_argument("--reference-kb", type=int, nargs="*", default=[], help="reference sizes against 3 sentences")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds a case may run")
    ap.add_argument("--one", nargs=2, metavar=("CASE", "SIZE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        run_one(args.one[0], int(args.one[1]))
        return
    print("| case | size | CPU seconds | peak MB | claims | flagged |")
    print("|---|---:|---:|---:|---:|---:|")
    todo = [("stale", n, "KB") for n in args.stale_kb] + [("figures", n, "figures") for n in args.figures]
    todo += [("direction", n, "KB") for n in args.direction_kb] + [("reference", n, "KB") for n in args.reference_kb]
    for case, size, unit in todo:
        try:
            out = subprocess.run(
                [sys.executable, __file__, "--one", case, str(size)],
                capture_output=True,
                text=True,
                timeout=args.timeout,
                check=True,
            )
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(
                f"| {case} | {size:,} {unit} | {r['seconds']:.2f} | {r['peak_mb']:.0f} | {r['claims']} | {r['flagged']} |"
            )
        except subprocess.TimeoutExpired:
            print(f"| {case} | {size:,} {unit} | > {args.timeout:.0f} | | | |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
