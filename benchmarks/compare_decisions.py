"""Record every sentence verdict of the default method (``ce_cascade``) on the first rows of the dev
sets, and compare two such records row by row: the proof that a refactoring changed no decision.

    # record (with the tree to test on PYTHONPATH; the public API only, so any version runs it)
    OMP_NUM_THREADS=1 python benchmarks/compare_decisions.py record --limit 60 --out /tmp/after.jsonl
    OMP_NUM_THREADS=1 PYTHONPATH=/tmp/base/src python benchmarks/compare_decisions.py record \\
        --limit 60 --out /tmp/before.jsonl
    # compare: prints "identical: K of K", or the first differing rows and exits 1
    python benchmarks/compare_decisions.py compare /tmp/before.jsonl /tmp/after.jsonl

Sets: every ``*.jsonl`` of ``--dev`` (default ``../shared/data/dev``) and
``tests/data/rag_cases.jsonl``. Each line of the record is one answer sentence: set, row id, claim
and offsets, label, flagged, status, score rounded to 1e-9, reason, evidence offsets, and the
verdict's meta (floats rounded the same way), so a renamed meta key shows up too.

``--llm none`` (default) runs the method as ``--llm none`` does: gate, copy rule and verifier.
``--llm scripted`` puts a scripted judge in place of the LLM (no model is loaded): its label
log-probabilities are a hash of the prompt, so the same prompt gets the same reply in any process,
and the band, the judge's mapping and the mix with the verifier run on real rows (the replies mean
nothing; the routing and the arithmetic are what is compared).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT.parent / "shared" / "data" / "dev"
RAG = ROOT / "tests" / "data" / "rag_cases.jsonl"
DIGITS = 9


def scripted_llm() -> Any:
    """A stand-in LLM whose label log-probabilities are a hash of the messages and the label."""
    from hallucheck.llm.fake import FakeLLM

    def scores(messages: Any, labels: tuple[str, ...]) -> dict[str, float]:
        text = "\n".join(f"{m.role}:{m.content}" for m in messages)
        out = {}
        for label in labels:
            digest = hashlib.sha256(f"{text}\x00{label}".encode()).digest()
            out[label] = -4.0 * int.from_bytes(digest[:4], "big") / 2**32
        return out

    return FakeLLM(label_scores=scores)


def rounded(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        return round(value, DIGITS)
    if isinstance(value, dict):
        return {str(k): rounded(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [rounded(v) for v in value]
    if isinstance(value, (int, str)):
        return value
    return repr(value)


def sets(dev: Path, limit: int) -> Iterator[tuple[str, list[dict]]]:
    for path in [*sorted(dev.glob("*.jsonl")), RAG]:
        with open(path, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
        yield path.stem, rows[:limit]


def record(args: argparse.Namespace) -> None:
    import hallucheck

    llm: Any = "none" if args.llm == "none" else scripted_llm()
    pipe = hallucheck.load_method("ce_cascade", llm=llm)
    n = 0
    started = time.time()
    with open(args.out, "w", encoding="utf-8") as out:
        for name, rows in sets(args.dev, args.limit):
            for i, row in enumerate(rows):
                det = pipe.run(row["answer"], row["reference"], question=row.get("question"))
                for j, v in enumerate(det.verdicts):
                    line = {
                        "set": name,
                        "row": row.get("id", i),
                        "sentence": j,
                        "claim": [v.claim.text, v.claim.start, v.claim.end],
                        "label": v.label,
                        "flagged": v.hallucinated,
                        "status": v.status,
                        "score": None if v.score is None else round(float(v.score), DIGITS),
                        "reason": v.reason,
                        "evidence": [[e.start, e.end] for e in v.evidence],
                        "meta": rounded(dict(v.meta)),
                    }
                    out.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
                    n += 1
            out.flush()
            print(f"{name}: {len(rows)} rows, {n} sentences so far, {time.time() - started:.0f} s", flush=True)
    print(f"wrote {n} sentence verdicts to {args.out}")


def compare(args: argparse.Namespace) -> int:
    before = [json.loads(x) for x in open(args.before, encoding="utf-8") if x.strip()]
    after = [json.loads(x) for x in open(args.after, encoding="utf-8") if x.strip()]
    same = sum(a == b for a, b in zip(before, after))
    total = max(len(before), len(after))
    print(f"identical: {same} of {total}")
    if same == total:
        return 0
    shown = 0
    for a, b in zip(before, after):
        if a != b and shown < args.show:
            keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            print(f"- {a['set']} {a['row']} sentence {a['sentence']}: differs in {', '.join(keys)}")
            for k in keys:
                print(f"    before {k}: {json.dumps(a.get(k))[:300]}")
                print(f"    after  {k}: {json.dumps(b.get(k))[:300]}")
            shown += 1
    if len(before) != len(after):
        print(f"- {len(before)} sentences before, {len(after)} after")
    return 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run ce_cascade and write every sentence verdict")
    rec.add_argument("--limit", type=int, default=60, help="the first N rows of each set (default 60)")
    rec.add_argument("--dev", type=Path, default=DEV, help="the directory of dev sets (*.jsonl)")
    rec.add_argument("--llm", choices=("none", "scripted"), default="none")
    rec.add_argument("--out", type=Path, required=True)
    cmp = sub.add_parser("compare", help="compare two records row by row")
    cmp.add_argument("before", type=Path)
    cmp.add_argument("after", type=Path)
    cmp.add_argument("--show", type=int, default=5, help="differing rows to print")
    args = ap.parse_args()
    if args.command == "record":
        record(args)
        return 0
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
