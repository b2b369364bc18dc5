"""Examples/s of the local engine (threads) and the Ray engine (1 and 2 actors) on this machine.

    python benchmarks/bench_engines.py [--data ../shared/data/dev/halueval_qa.jsonl] [--rows 300] [--llm-rows 6]

For each method, every engine runs the same rows through ``run_eval`` into a fresh run
directory (what ``hallucheck eval`` does), timed from the call to the last record written: model
loading is included (each Ray actor loads its own copy; the local engine loads one), Ray's own
start-up (``ray.init``, once) is not and is reported apart. The response cache is off, so no run
answers from another's replies. Methods: ``sim_overlap`` (no model), ``cross_encoder`` (the
shipped trained verifier, ONNX) and ``prompt`` (one NLI call per example) on the embedded LLM,
the last on the first ``--llm-rows`` rows only. Prints a Markdown table (and writes ``--json``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "dev" / "halueval_qa.jsonl"
ENGINES = (("threads", 1), ("threads", 2), ("ray", 1), ("ray", 2))


def load_avg() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def run_one(method_name: str, examples: list, engine: str, n: int, llm_kwargs: dict | None) -> dict:
    import hallucheck
    from hallucheck.engines import MethodSpec
    from hallucheck.engines.ray import RayEngine
    from hallucheck.eval.runner import run_eval
    from hallucheck.llm import make_llm

    llm = make_llm(**llm_kwargs) if llm_kwargs else None
    method = hallucheck.load_method(method_name, llm=llm)
    kwargs: dict = {"workers": n} if engine == "threads" else {}
    if engine == "ray":
        spec = MethodSpec(method=method_name, llm=llm_kwargs, expect=method.to_dict())
        kwargs["engine"] = RayEngine(spec, actors=n, verbose=False)
    load = load_avg()
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        records = run_eval(method, examples, out_dir=out, progress=False, **kwargs)
        seconds = time.perf_counter() - t0
    first = kwargs["engine"].stats.get("first_ready_seconds") if engine == "ray" else None
    return {
        "first_actor_ready": None if first is None else round(first, 2),
        "method": method_name,
        "engine": engine,
        "parallel": n,
        "examples": len(records),
        "errors": sum(r["status"] == "error" for r in records),
        "seconds": round(seconds, 2),
        "per_second": round(len(records) / seconds, 2),
        "load_before": load,
        "hallucinated": [r["hallucinated"] for r in records],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--rows", type=int, default=300, help="rows for sim_overlap and cross_encoder")
    ap.add_argument("--llm-rows", type=int, default=6, help="rows for the LLM method (0: skip it)")
    ap.add_argument("--llm", default="embedded", help="LLM spec for the LLM method (default embedded)")
    ap.add_argument("--methods", default="sim_overlap,cross_encoder", help="methods without an LLM")
    ap.add_argument("--json", help="also write the measurements here")
    args = ap.parse_args()

    import ray

    from hallucheck.eval.datasets import load_dataset

    examples = load_dataset(args.data, limit=args.rows)
    t0 = time.perf_counter()
    ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False)
    ray_start = time.perf_counter() - t0
    plan = [(m, examples, None) for m in args.methods.split(",") if m]
    if args.llm_rows:
        plan.append(("prompt", examples[: args.llm_rows], {"spec": args.llm, "cache": None, "progress": False}))
    rows = []
    try:
        for method_name, exs, llm_kwargs in plan:
            base = None
            for engine, n in ENGINES:
                r = run_one(method_name, exs, engine, n, llm_kwargs)
                verdicts = r.pop("hallucinated")
                base = base or verdicts
                r["same_verdicts"] = verdicts == base
                rows.append(r)
                print(json.dumps(r), file=sys.stderr, flush=True)
    finally:
        ray.shutdown()
    print(f"machine: {os.cpu_count()} CPUs; ray.init {ray_start:.1f} s (not in the times below); load average")
    print("before each run in the table (other processes share the cores)\n")
    print(
        "| method | rows | engine | threads / actors | seconds | examples/s | first actor ready (s) | same verdicts "
        "| load avg (1/5/15 min) |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---|---|")
    for r in rows:
        print(
            f"| {r['method']} | {r['examples']} | {r['engine']} | {r['parallel']} | {r['seconds']:.1f} | "
            f"{r['per_second']:.2f} | {'-' if r['first_actor_ready'] is None else r['first_actor_ready']} | "
            f"{'yes' if r['same_verdicts'] else 'NO'} | {r['load_before']} |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"ray_init_seconds": ray_start, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
