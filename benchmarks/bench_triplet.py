"""Accuracy and cost of the triplet methods (thesis 004): batched `triplet` vs per-triplet `triplet_single`.

    PYTHONPATH=src python benchmarks/bench_triplet.py [--data ../shared/data/dev/halueval_qa.jsonl] [--limit 20]
        [--llm embedded] [--methods triplet,triplet_single] [--variants detail+cot,detail] [--out results.jsonl] [--threads N]

Runs each method on the first --limit rows with one shared LLM client and the response cache
off (the `triplet` method still extracts each reference once per run, by design), and prints a
Markdown table: macro-F1, balanced accuracy, sensitivity and specificity (over the examples
that got a decision; undecided and failed ones are counted separately), LLM calls, prompt and
completion tokens per example, TER = (prompt + completion tokens) / (tokens of question +
reference + answer, counted with the LLM's tokenizer), and seconds per example (model loading
excluded).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "dev" / "halueval_qa.jsonl"


def load_rows(path: Path, limit: int | None) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return rows[:limit] if limit else rows


def _metrics():
    try:
        from hallucheck.eval import metrics as m

        return m.macro_prf, m.balanced_accuracy, m.sensitivity, m.specificity, m.ter
    except ImportError:  # pragma: no cover - the eval extra is missing

        def rates(t, p):
            tp = sum(1 for a, b in zip(t, p) if a == b == 1)
            tn = sum(1 for a, b in zip(t, p) if a == b == 0)
            pos, neg = sum(t), len(t) - sum(t)
            return (tp / pos if pos else 0.0), (tn / neg if neg else 0.0)

        def f1(t, p, c):
            tp = sum(1 for a, b in zip(t, p) if a == b == c)
            fp = sum(1 for a, b in zip(t, p) if b == c != a)
            fn = sum(1 for a, b in zip(t, p) if a == c != b)
            return 2 * tp / (2 * tp + fp + fn) if tp else 0.0

        return (
            (lambda t, p: (None, None, (f1(t, p, 0) + f1(t, p, 1)) / 2)),
            (lambda t, p: sum(rates(t, p)) / 2),
            (lambda t, p: rates(t, p)[0]),
            (lambda t, p: rates(t, p)[1]),
            (lambda total, given: total / given),
        )


def bench_method(name: str, rows: list[dict], llm, params: dict, sink=None) -> dict:
    import hallucheck

    macro_prf, balanced_accuracy, sensitivity, specificity, ter = _metrics()
    method = hallucheck.load_method(name, llm=llm, **params)
    label = f"{name} ({params['variant']})" if params.get("variant") else name
    y_true, y_pred = [], []
    calls = prompt_tokens = completion_tokens = input_tokens = 0
    seconds = 0.0
    undecided = errors = claims = 0
    for row in rows:
        t0 = time.perf_counter()
        det = method.run_batch([row], on_error="record")[0]
        seconds += time.perf_counter() - t0
        calls += det.usage.calls + det.usage.cached_calls
        prompt_tokens += det.usage.prompt_tokens
        completion_tokens += det.usage.completion_tokens
        input_tokens += llm.count_tokens(
            "\n".join(x for x in (row.get("question"), row["reference"], row["answer"]) if x)
        )
        claims += len(det.verdicts)
        if det.status == "error":
            errors += 1
        elif det.hallucinated is None:
            undecided += 1
        else:
            y_true.append(int(row["label"]))
            y_pred.append(int(det.hallucinated))
        if sink is not None:
            sink.write(
                json.dumps(
                    {
                        "method": label,
                        "id": row.get("id"),
                        "label": row["label"],
                        "hallucinated": det.hallucinated,
                        "score": det.score,
                        "status": det.status,
                        "error": det.error,
                        "claims": [v.claim.text for v in det.verdicts],
                        "verdicts": [v.label for v in det.verdicts],
                        "usage": det.usage.to_dict(),
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
            sink.flush()
        print(
            f"[bench] {label} {row.get('id')}: label={row['label']} predicted={det.hallucinated} "
            f"triplets={len(det.verdicts)} calls={det.usage.calls} {time.perf_counter() - t0:.1f}s",
            file=sys.stderr,
            flush=True,
        )
    n = len(rows)
    decided = len(y_true)
    return {
        "method": label,
        "examples": n,
        "decided": decided,
        "undecided": undecided,
        "errors": errors,
        "macro_f1": macro_prf(y_true, y_pred)[2] if decided else None,
        "balanced_accuracy": balanced_accuracy(y_true, y_pred) if decided else None,
        "sensitivity": sensitivity(y_true, y_pred) if decided else None,
        "specificity": specificity(y_true, y_pred) if decided else None,
        "triplets_per_example": claims / n,
        "calls_per_example": calls / n,
        "prompt_tokens_per_example": prompt_tokens / n,
        "completion_tokens_per_example": completion_tokens / n,
        "ter": ter(prompt_tokens + completion_tokens, input_tokens) if input_tokens else None,
        "seconds_per_example": seconds / n,
    }


def render(results: list[dict], command: str, llm_desc: dict) -> str:
    def f(x, fmt=".3f"):
        return "–" if x is None else format(x, fmt)

    lines = [
        f"Command: `{command}`",
        "",
        f"LLM: {json.dumps(llm_desc)}; response cache off.",
        "",
        "| method | examples | decided | undecided | errors | macro-F1 | BA | sensitivity | specificity | triplets/ex | "
        "calls/ex | prompt tok/ex | completion tok/ex | TER | s/ex |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['method']} | {r['examples']} | {r['decided']} | {r['undecided']} | {r['errors']} | "
            f"{f(r['macro_f1'])} | {f(r['balanced_accuracy'])} | {f(r['sensitivity'])} | {f(r['specificity'])} | "
            f"{r['triplets_per_example']:.2f} | {r['calls_per_example']:.2f} | {r['prompt_tokens_per_example']:.0f} | "
            f"{r['completion_tokens_per_example']:.0f} | {f(r['ter'], '.2f')} | {r['seconds_per_example']:.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--data", default=str(DEFAULT_DATA), help="JSONL in the shared schema (id, question, reference, answer, label)"
    )
    p.add_argument("--limit", type=int, default=20, help="first N rows (default 20)")
    p.add_argument("--llm", default="embedded", help="embedded, embedded:0.5b, openai:MODEL (with --base-url)")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint for --llm openai:MODEL")
    p.add_argument("--methods", default="triplet,triplet_single", help="comma-separated methods")
    p.add_argument(
        "--variants",
        default="detail+cot",
        help="comma-separated prompt variants of the batched check, one table row each (default detail+cot)",
    )
    p.add_argument("--out", help="also write per-example results to this JSONL file")
    p.add_argument("--threads", type=int, help="llama.cpp threads for the embedded LLM (default: all available cores)")
    args = p.parse_args(argv)

    from hallucheck.llm import make_llm

    llm = make_llm(args.llm, base_url=args.base_url, cache=None, progress=False)
    if args.threads and hasattr(llm, "n_threads"):
        llm.n_threads = args.threads  # read when the model loads, just below
    if hasattr(llm, "llm"):
        llm.llm  # noqa: B018 - load the model now so that loading is not timed
    rows = load_rows(Path(args.data), args.limit)
    sink = open(args.out, "a", encoding="utf-8") if args.out else None
    results = []
    try:
        for name in [m.strip() for m in args.methods.split(",") if m.strip()]:
            for variant in [v.strip() for v in args.variants.split(",") if v.strip()] if name == "triplet" else [None]:
                params = {"variant": variant} if variant else {}
                results.append(bench_method(name, rows, llm, params, sink))
    finally:
        if sink is not None:
            sink.close()
    command = "PYTHONPATH=src python benchmarks/bench_triplet.py " + " ".join(
        shlex.quote(a) for a in (argv or sys.argv[1:])
    )
    print(render(results, command, llm.describe()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
