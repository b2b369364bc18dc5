"""How many questions the default method puts to its LLM judge on each dev set, and how many
which it no longer asks, with one boolean parameter set one way and the other (issue 21: "the fewest LLM calls
that keep quality").

    python benchmarks/judge_calls.py [--param verbatim] [--limit N]

The judge is a scripted stand-in that answers every question the same way (so the count is the
pipeline's routing, not the LLM's replies: which sentences the gate, the copy rule, the verifier
and the band leave to the judge); no LLM is loaded, and the stand-in's verdicts mean nothing. Prints,
per set, the answer sentences and the judge calls with ``PARAM=True`` and with ``PARAM=False``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import hallucheck
from hallucheck.llm.fake import FakeLLM

DEV = Path(__file__).resolve().parents[2] / "shared" / "data" / "dev"
SETS = ("halueval_qa", "halueval_summ", "summeval", "summedits", "wice")


def rows(name: str, limit: int | None) -> list[dict]:
    with open(DEV / f"{name}.jsonl", encoding="utf-8") as f:
        out = [json.loads(line) for line in f if line.strip()]
    return out[:limit] if limit else out


def run(rows_: list[dict], **params: object) -> tuple[int, int]:
    """(judge calls, answer sentences) of the default method over ``rows_``."""
    llm = FakeLLM(label_scores=lambda messages, labels: {x: (-0.5 if i == 0 else -1.0) for i, x in enumerate(labels)})
    pipe = hallucheck.load_method("ce_cascade", llm=llm, **params)
    sentences = 0
    for r in rows_:
        sentences += len(pipe.run(r["answer"], r["reference"], question=r.get("question")).verdicts)
    return len(llm.requests), sentences


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--param", default="verbatim", help="a boolean parameter of ce_cascade (default: verbatim)")
    ap.add_argument("--limit", type=int, default=None, help="the first N rows of each set")
    args = ap.parse_args()
    print(f"| set | sentences | judge calls, {args.param}=True | {args.param}=False |")
    print("| --- | ---: | ---: | ---: |")
    for name in SETS:
        data = rows(name, args.limit)
        on, sentences = run(data, **{args.param: True})
        off, _ = run(data, **{args.param: False})
        print(f"| {name} | {sentences} | {on} | {off} |", flush=True)


if __name__ == "__main__":
    main()
