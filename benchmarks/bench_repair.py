"""Repair on the hand-written RAG challenge set: how many flagged answers become grounded.

    python benchmarks/bench_repair.py [--data tests/data/rag_cases.jsonl] [--method ce_cascade] [--llm none]
        [--limit N]

Each case runs once, without its question, through ``method.mitigate`` (detect, repair under the
repair contract, re-check). Printed as markdown: answers flagged; of those, answers the re-check
finds grounded after the repair; answers changed; contradicted figures (with their reference
counterpart) the repair replaced; edits and where they fall against the set's sentence labels (an
edit inside a sentence labelled supported changed a right sentence); edits inside a sentence the
detection did not flag (must be 0); revisions refused; seconds per answer.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "rag_cases.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--method", default="ce_cascade")
    ap.add_argument("--llm", default="none")
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()

    import hallucheck
    from hallucheck.text import split_sentences

    rows = [json.loads(line) for line in Path(args.data).read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = rows[: args.limit] if args.limit else rows
    method = hallucheck.load_method(args.method, llm=args.llm)
    method.mitigate(rows[0]["answer"], rows[0]["reference"])  # warm-up: loads the models
    n = flagged = grounded_after = changed = refused = figure_edits = 0
    in_supported = in_unsupported = in_unflagged = 0
    contradicted = repaired = 0
    seconds = 0.0
    for row in rows:
        n += 1
        t0 = time.perf_counter()
        mit = method.mitigate(row["answer"], row["reference"])
        seconds += time.perf_counter() - t0
        if not mit.before.flagged:
            continue
        flagged += 1
        grounded_after += bool(mit.after is not None and mit.after.hallucinated is False)
        changed += mit.changed
        refused += sum(1 for note in mit.notes if note.startswith("refused:"))
        sources = {(e.start, e.end) for e in mit.edits if e.source is not None}
        for v in mit.before.flagged:
            for f in v.meta.get("fact_spans") or ():
                if f.get("status") == "contradicted" and f.get("reference"):
                    contradicted += 1
                    repaired += (f["start"], f["end"]) in sources
        spans = split_sentences(row["answer"])
        hit = [
            any(v.hallucinated and v.claim.start < s.end and s.start < v.claim.end for v in mit.before.verdicts)
            for s in spans
        ]
        for e in mit.edits:
            figure_edits += e.source is not None
            if any(not h and s.start < max(e.end, e.start + 1) and e.start < s.end for s, h in zip(spans, hit)):
                in_unflagged += 1
            labels = [x["label"] for x in row.get("sentences", []) if x["start"] <= e.start < x["end"]]
            in_supported += "supported" in labels
            in_unsupported += "unsupported" in labels
    edits = in_supported + in_unsupported
    print(
        "| method | LLM | answers | flagged | grounded after repair | changed | contradicted figures repaired | edits (figures) | "
        "in a sentence labelled unsupported / supported | in an unflagged sentence | refused | s/answer |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print(
        f"| {args.method} | {args.llm} | {n} | {flagged} | {grounded_after} ({grounded_after / max(flagged, 1):.0%}) "
        f"| {changed} | {repaired} of {contradicted} | {edits} ({figure_edits}) | {in_unsupported} / {in_supported} | {in_unflagged} | {refused} "
        f"| {seconds / max(n, 1):.2f} |"
    )


if __name__ == "__main__":
    main()
