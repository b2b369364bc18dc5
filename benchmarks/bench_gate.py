"""Time of the deterministic gate (EntityCheckVerifier: quantities in context and names) per answer
sentence, on the RAG challenge sets and on dev rows (issue 20's target: at most 2 ms more per
sentence than before).

    python benchmarks/bench_gate.py [--dev-rows 200] [--repeat 3]

Runs the gate of the code it imports (set PYTHONPATH to a checkout of another commit to time that
one the same way), NER included, after one untimed pass that loads spaCy and fills its caches. Each
answer is split by the default method's extractor; the time is the gate's ``verify`` alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETS = {
    "rag_cases": ROOT / "tests" / "data" / "rag_cases.jsonl",
    "rag_cases_holdout": ROOT / "tests" / "data" / "rag_cases_holdout.jsonl",
}
DEV = ROOT.parent / "shared" / "data" / "dev"


def rows_of(path: Path, limit: int | None = None) -> list[tuple[str, str]]:
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                rows.append((r["answer"], r["reference"]))
            if limit and len(rows) >= limit:
                break
    return rows


def time_gate(rows: list[tuple[str, str]], repeat: int) -> tuple[float, int]:
    """(median seconds per sentence over ``repeat`` passes, sentences)."""
    from hallucheck.stages.claims import SentenceExtractor
    from hallucheck.stages.entity_check import EntityCheckVerifier

    gate = EntityCheckVerifier(check_numbers=True, check_entities=True)
    extractor = SentenceExtractor()
    prepared = [(extractor.extract(a), r, a) for a, r in rows]
    n = sum(len(c) for c, _, _ in prepared)

    try:  # as Pipeline.run does: the documents' languages are known to the stages
        from hallucheck.text.lang import detect_language, language_scope
    except ImportError:  # a commit before language detection
        detect_language, language_scope = None, None
    scopes = [(detect_language(a), detect_language(r)) if detect_language else () for _, r, a in prepared]

    def one_pass() -> float:
        t0 = time.perf_counter()
        for (claims, ref, answer), langs in zip(prepared, scopes):
            if language_scope is None:
                gate.verify(claims, [[] for _ in claims], reference=ref, answer=answer)
                continue
            with language_scope(*langs):
                gate.verify(claims, [[] for _ in claims], reference=ref, answer=answer)
        return time.perf_counter() - t0

    one_pass()  # loads spaCy
    return statistics.median(one_pass() for _ in range(repeat)) / max(n, 1), n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dev-rows", type=int, default=200, help="rows of each dev set (0: none)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    sets = {k: rows_of(p) for k, p in SETS.items() if p.exists()}
    if args.dev_rows:
        for name in ("halueval_qa", "halueval_summ", "summeval", "wice"):
            if (DEV / f"{name}.jsonl").exists():
                sets[name] = rows_of(DEV / f"{name}.jsonl", args.dev_rows)
    print("| set | sentences | gate ms / sentence |")
    print("|---|---:|---:|")
    for name, rows in sets.items():
        per, n = time_gate(rows, args.repeat)
        print(f"| {name} | {n} | {per * 1000:.2f} |")


if __name__ == "__main__":
    main()
