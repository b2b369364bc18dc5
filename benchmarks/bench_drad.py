"""DRAD (paper 003) vs its baselines NOR, SRR, FLR, TPR on the shipped Port Aldermere set.

    python benchmarks/bench_drad.py [--split test] [--methods drad nor srr flr tpr] [--llm embedded]
        [--param NAME=VALUE ...] [--out runs/drad-bench]
    python benchmarks/bench_drad.py --split dev --tune-theta2 1.5 2 2.5 3 4 none

Answer quality: exact match and token F1 of the short answer extracted from "So the answer
is: X" (else the first sentence), yes/no accuracy; cost: retrieval calls per question (the
paper's Table 6), LLM calls, tokens and seconds per question. Temperature 0, response cache
off. ``--tune-theta2`` runs DRAD once per θ2 value (``none`` = probability test only) and
prints one row each: use it on the dev split only. Prints Markdown tables (run under
``flock /tmp/llm.lock`` on shared machines).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from hallucheck.cli._common import parse_params  # noqa: E402
from hallucheck.corpus import Corpus  # noqa: E402
from hallucheck.eval.qa import run_qa  # noqa: E402
from hallucheck.generation import DRADGenerator  # noqa: E402
from hallucheck.llm import make_llm  # noqa: E402

HEAD = "| method | n | EM | F1 | yes/no acc | retrievals / q | corrections / q | LLM calls / q | tokens / q | s / q |"
SEP = "|---|---|---|---|---|---|---|---|---|---|"


def row(label: str, m: dict) -> str:
    acc = "–" if m["yes_no_accuracy"] is None else f"{m['yes_no_accuracy']:.2f} ({m['yes_no_questions']})"
    tokens = m["prompt_tokens"] + m["completion_tokens"]
    return (
        f"| {label} | {m['questions']} | {m['em']:.2f} | {m['f1']:.3f} | {acc} | {m['retrieval_calls']:.2f} | "
        f"{m['corrections']:.2f} | {m['llm_calls']:.2f} | {tokens:.0f} | {m['seconds']:.1f} |"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", default=str(ROOT / "examples" / "drad" / "questions.jsonl"))
    ap.add_argument("--corpus", default=str(ROOT / "examples" / "drad" / "corpus"))
    ap.add_argument("--split", default="test", help="dev, test, or all")
    ap.add_argument("--methods", nargs="+", default=["nor", "srr", "flr", "tpr", "drad"])
    ap.add_argument("--tune-theta2", nargs="+", metavar="H", help="DRAD once per θ2 value (nats, or none)")
    ap.add_argument("--llm", default="embedded")
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--out", help="write each run's results.jsonl/metrics.json under this folder")
    args = ap.parse_args()
    split = None if args.split == "all" else args.split
    llm = make_llm(args.llm, cache=None, progress=False)
    corpus = Corpus.load(args.corpus)
    params = parse_params(args.param)
    runs: list[tuple[str, dict]] = []
    if args.tune_theta2:
        runs = [
            (f"drad θ2={h}", {"method": "drad", **params, "entropy_threshold": None if h == "none" else float(h)})
            for h in args.tune_theta2
        ]
    else:
        runs = [(m, {"method": m, **params}) for m in args.methods]
    t0 = time.perf_counter()
    lines = [HEAD, SEP]
    summaries = {}
    for label, kw in runs:
        gen = DRADGenerator(llm=llm, corpus=corpus, **kw)
        out = Path(args.out) / label.replace(" ", "_").replace("θ2=", "theta2_") if args.out else None
        res = run_qa(gen, args.questions, split=split, out_dir=out, progress=True)
        summaries[label] = res["metrics"]
        lines.append(row(label, res["metrics"]))
        print(lines[-1], file=sys.stderr)
    print(f"\n{args.llm}, split={args.split}, {time.perf_counter() - t0:.0f} s in total\n")
    print("\n".join(lines))
    if args.out:
        (Path(args.out) / "summary.json").write_text(
            json.dumps(summaries, indent=2, ensure_ascii=False), encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
