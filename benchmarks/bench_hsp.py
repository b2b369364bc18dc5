"""HSP (paper 000) and its prompt baseline on a dev set: quality, cost (TER) and speed, with ablations.

    python benchmarks/bench_hsp.py [--data ../shared/data/dev/halueval_qa.jsonl] [--limit 20]
        [--llm embedded] [--configs hsp prompt hsp:levels=sent hsp:k=1 hsp:matcher=bm25 ...]
        [--cache] [--json out.json]

Each config is ``method[:param=value,...]`` (values parsed as JSON when they parse, e.g.
``hsp:k=5,flag_on="ungrounded"``). For each config, over the first ``--limit`` rows, it reports:

- macro precision / recall / F1 of the hallucination label (the paper's detection metric),
  ROC-AUC of the score, and errors (rows whose detection failed or could not decide);
- LLM calls and tokens per example, and the Token Expansion Ratio of the paper's Eq. 7:
  TER = all LLM tokens (prompt + completion) / tokens of the input (reference + answer),
  both counted with the LLM's tokenizer;
- seconds per example on this machine (2 cores; first-use model loading excluded).

The response cache is off unless ``--cache`` (so every call is paid); HSP's own reference
decomposition cache stays on -- it is part of the method -- and since dev files hold several
answers per reference (HaluEval QA: a right and a hallucinated answer per passage), rows
that share a reference show its effect. Prints a Markdown table.
These are dev sets: the numbers describe behaviour, they are not held-out test results.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "dev" / "halueval_qa.jsonl"
DEFAULT_CONFIGS = ["prompt", "hsp", 'hsp:levels="sent"', 'hsp:levels="ent"', 'hsp:flag_on="ungrounded"']


def parse_config(spec: str) -> tuple[str, dict]:
    name, _, rest = spec.partition(":")
    params = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        try:
            params[key] = json.loads(value)
        except json.JSONDecodeError:
            params[key] = value
    return name, params


def run_config(spec: str, rows: list[dict], llm) -> dict:
    import hallucheck
    from hallucheck.eval.metrics import macro_prf, roc_auc

    name, params = parse_config(spec)
    method = hallucheck.load_method(name, llm=llm, **params)
    t0 = time.perf_counter()
    dets = method.run_batch(rows)
    seconds = time.perf_counter() - t0
    usage = sum((d.usage for d in dets), hallucheck.Usage())
    input_tokens = sum(llm.count_tokens(r["reference"]) + llm.count_tokens(r["answer"]) for r in rows)
    decided = [(r["label"], d) for r, d in zip(rows, dets) if d.hallucinated is not None]
    y = [lab for lab, _ in decided]
    pred = [int(d.hallucinated) for _, d in decided]
    scored = [(lab, d.score) for lab, d in decided if d.score is not None]
    p, rc, f1 = macro_prf(y, pred) if y else (float("nan"),) * 3
    try:
        auc = roc_auc([a for a, _ in scored], [b for _, b in scored])
    except Exception:
        auc = float("nan")
    n = len(rows)
    return {
        "config": spec,
        "n": n,
        "decided": len(decided),
        "macro_p": p,
        "macro_r": rc,
        "macro_f1": f1,
        "auc": auc,
        "calls_per_ex": usage.calls / n,
        "tokens_per_ex": usage.total_tokens / n,
        "ter": usage.total_tokens / max(1, input_tokens),
        "s_per_ex": seconds / n,
        "flagged": sum(1 for d in dets if d.hallucinated),
        "errors": n - len(decided),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--llm", default="embedded")
    ap.add_argument("--configs", nargs="+", default=DEFAULT_CONFIGS)
    ap.add_argument("--cache", action="store_true", help="use the response cache (repeated runs then cost nothing)")
    ap.add_argument("--json", help="also write the results as JSON here")
    args = ap.parse_args()

    from hallucheck.llm import make_llm

    with open(args.data, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()][: args.limit]
    llm = make_llm(args.llm, cache="default" if args.cache else None, progress=False)
    llm.complete("Say OK.", max_tokens=2)  # load the model outside the timings
    import hallucheck

    hallucheck.load_method("sim_cosine").run(rows[0]["answer"], rows[0]["reference"])  # load MiniLM
    try:  # load spaCy
        from hallucheck.models.ner import extract_entities

        extract_entities("Warm-up in Paris on 1 May.")
    except Exception as exc:  # noqa: BLE001
        print(f"spaCy unavailable: {exc}", file=sys.stderr)

    results = []
    for spec in args.configs:
        res = run_config(spec, rows, llm)
        results.append(res)
        print(f"done {spec}: F1 {res['macro_f1']:.3f} TER {res['ter']:.2f} {res['s_per_ex']:.1f} s/ex", file=sys.stderr)

    print(
        f"Data: {Path(args.data).name}, first {len(rows)} rows; LLM: {llm.describe().get('model')}; "
        f"response cache {'on' if args.cache else 'off'}.\n"
    )
    print("| config | macro P | macro R | macro F1 | AUC | flagged | errors | calls/ex | tokens/ex | TER | s/ex |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(
            f"| `{r['config']}` | {100 * r['macro_p']:.1f} | {100 * r['macro_r']:.1f} | {100 * r['macro_f1']:.1f} | "
            f"{r['auc']:.3f} | {r['flagged']}/{r['n']} | {r['errors']} | {r['calls_per_ex']:.1f} | {r['tokens_per_ex']:.0f} | "
            f"{r['ter']:.2f} | {r['s_per_ex']:.1f} |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
