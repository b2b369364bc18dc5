"""Time and peak memory against input size for every method that runs without an LLM.

    python benchmarks/bench_size.py                                   # 1 KB .. 2 MB, every method
    python benchmarks/bench_size.py --sizes 1000 10000 --methods sim_overlap entity_check
    python benchmarks/bench_size.py --answer-chars 2000               # a short answer, long references

Each (method, size) runs in a fresh process, so that its peak memory is its own: the method is
built with ``llm="none"``, warmed up on a two-sentence example (models loaded, not timed), then
checks one answer against one reference of ``size`` characters each (the input limit is
2,000,000 characters: hallucheck.base.MAX_TEXT_CHARS). The text is a manual of unique sentences
with figures, units, dates and names; the answer restates some of them, changes a figure or a
name in others and adds some the reference does not hold. Printed per row: seconds of the
detection, the process's peak resident memory and how much of it the detection added, the number
of claims and the outcome. A run past ``--timeout`` seconds is stopped and reported; the larger
sizes of that method are then not run. A method whose model is not installed (a hub id with no
local copy) is reported as skipped with the reason.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time

SIZES = [1_000, 10_000, 100_000, 1_000_000, 2_000_000]
NAMES = ["Maria Lopez", "Jon Berg", "Acme Motors", "Geneva", "Oslo", "Nordic Tyres", "Dr. Chen", "Lyon"]
UNITS = ["bar", "mg", "km", "litres", "hours", "days", "%", "kg"]
PARTS = ["front tyres", "rear tyres", "oil filter", "brake fluid", "coolant", "battery", "wipers", "spare wheel"]


def methods_without_llm() -> list[str]:
    """The registered methods that need no LLM, and those for which one is optional."""
    from hallucheck import registry

    return [e.name for e in registry.available("method") if not e.needs_llm or e.llm_optional]


def _sentence(rng: random.Random, i: int) -> tuple[str, str]:
    """A reference sentence and the answer's version of it (the same, or one fact changed)."""
    part, unit, name = rng.choice(PARTS), rng.choice(UNITS), rng.choice(NAMES)
    value = f"{rng.randint(1, 900)}.{rng.randint(0, 9)}"
    year = rng.randint(1990, 2030)
    ref = f"Item {i}: according to {name}, the {part} take {value} {unit} after the service of {year}."
    kind = rng.random()
    if kind < 0.6:
        return ref, ref
    if kind < 0.8:
        wrong = f"{float(value) + rng.randint(1, 9):.1f}"
        return ref, ref.replace(f" {value} ", f" {wrong} ")
    if kind < 0.9:
        other = rng.choice([n for n in NAMES if n != name])
        return ref, ref.replace(name, other)
    return ref, f"Item {i}: the {part} of the {rng.choice(NAMES)} model were replaced in {year + 1}."


def make_texts(size: int, answer_chars: int | None = None, seed: int = 0) -> tuple[str, str]:
    """(answer, reference) of about ``size`` characters each (the answer ``answer_chars`` if given)."""
    rng = random.Random(seed)
    refs, answers, i = [], [], 0
    want_answer = size if answer_chars is None else answer_chars
    ref_len = ans_len = 0
    while ref_len < size or ans_len < want_answer:
        ref, ans = _sentence(rng, i)
        i += 1
        if ref_len < size:
            refs.append(ref)
            ref_len += len(ref) + 1
        if ans_len < want_answer:
            answers.append(ans)
            ans_len += len(ans) + 1
    return " ".join(answers)[:want_answer], " ".join(refs)[:size]


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def run_one(method: str, size: int, answer_chars: int | None) -> dict:
    """One detection in this process: what the table prints, as a dict."""
    import hallucheck
    from hallucheck.errors import HallucheckError

    try:
        pipeline = hallucheck.load_method(method, llm="none")
        pipeline.run("The front tyres take 2.4 bar.", "Inflate the front tyres to 2.4 bar. Check them when cold.")
    except (HallucheckError, ImportError, OSError) as exc:
        return {"skipped": f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"}
    answer, reference = make_texts(size, answer_chars)
    base = _peak_mb()
    t0 = time.perf_counter()
    det = pipeline.run(answer, reference)
    seconds = time.perf_counter() - t0
    peak = _peak_mb()
    return {
        "seconds": seconds,
        "peak_mb": peak,
        "added_mb": max(0.0, peak - base),
        "claims": len(det.verdicts),
        "outcome": det.outcome,
    }


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=SIZES, help="characters of answer and reference")
    p.add_argument("--methods", nargs="+", help="default: every method that needs no LLM")
    p.add_argument("--answer-chars", type=int, help="a fixed answer length instead of --sizes")
    p.add_argument("--timeout", type=float, default=900, help="seconds before a run is stopped (default 900)")
    p.add_argument("--one", nargs=2, metavar=("METHOD", "SIZE"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args.one[0], int(args.one[1]), args.answer_chars)))
        return
    methods = args.methods or methods_without_llm()
    print("| method | size (chars) | seconds | peak MB | added MB | claims | outcome |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for method in methods:
        for size in sorted(args.sizes):
            cmd = [sys.executable, __file__, "--one", method, str(size)]
            if args.answer_chars:
                cmd += ["--answer-chars", str(args.answer_chars)]
            try:
                out = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, check=False)
            except subprocess.TimeoutExpired:
                print(
                    f"| {method} | {size:,} | > {args.timeout:g} (stopped) | | | | larger sizes not run |", flush=True
                )
                break
            lines = out.stdout.strip().splitlines()
            if out.returncode != 0 or not lines:
                error = (out.stderr.strip().splitlines() or ["no output"])[-1][:160]
                print(f"| {method} | {size:,} | failed | | | | {error} |", flush=True)
                break
            row = json.loads(lines[-1])
            if "skipped" in row:
                print(f"| {method} | | | | | | skipped: {row['skipped']} |", flush=True)
                break
            print(
                f"| {method} | {size:,} | {row['seconds']:.2f} | {row['peak_mb']:.0f} | {row['added_mb']:.0f} | "
                f"{row['claims']:,} | {row['outcome']} |",
                flush=True,
            )


if __name__ == "__main__":
    main(sys.argv[1:])
