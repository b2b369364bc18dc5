"""Speed and memory of the detectors and the embedded LLM.

    python benchmarks/bench_detectors.py [--data ../shared/data/dev/halueval_qa.jsonl] [--llm-limit 40]

Measures, on 2 cores as configured:
- examples/second of each detector over the data file (similarity detectors on all rows,
  keyword_match with the embedded LLM on the first --llm-limit rows, response cache off);
- first-use start of the embedded LLM (assemble the GGUF into an empty directory + load) and
  warm start (load the assembled file), each in a fresh process;
- peak resident memory of `hallucheck detect` on the shipped example with the embedded LLM.
Prints a Markdown table; paste it into docs/benchmarks.md with the command line.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "dev" / "halueval_qa.jsonl"


def load_rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def bench_method(name: str, rows: list[dict], llm=None) -> dict:
    import hallucheck
    from hallucheck.stages import similarity

    method = hallucheck.load_method(name, llm=llm)
    method.run(rows[0]["answer"], rows[0]["reference"])  # warm-up: loads models, excluded from timing
    similarity.clear_embedding_cache()  # each detector pays for its own embeddings
    t0 = time.perf_counter()
    results = method.run_batch(rows)
    elapsed = time.perf_counter() - t0
    errors = sum(r.status == "error" for r in results)
    return {
        "method": name,
        "examples": len(rows),
        "seconds": elapsed,
        "per_second": len(rows) / elapsed,
        "errors": errors,
    }


def _child(code: str, env: dict | None = None) -> tuple[float, float]:
    """Run python code in a fresh process; return (wall seconds, peak RSS MB of that child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, **(env or {})})
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(peak, before) / 1024


def bench_llm_start() -> dict:
    code = (
        "from hallucheck.llm import make_llm; l = make_llm('embedded', cache=None, progress=False); "
        "l.complete('Say OK.', max_tokens=2)"
    )
    with tempfile.TemporaryDirectory() as d:
        first, _ = _child(code, {"HALLUCHECK_MODEL_DIR": d})
        warm, _ = _child(code, {"HALLUCHECK_MODEL_DIR": d})
    return {"first_use_seconds": first, "warm_start_seconds": warm}


def bench_cli_memory() -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "hallucheck.cli",
            "detect",
            "--reference",
            str(ROOT / "examples/manual_reference.txt"),
            "--answer",
            str(ROOT / "examples/manual_answer.txt"),
            "--method",
            "keyword_match",
            "--no-cache",
            "--quiet",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"hallucheck detect failed ({proc.returncode}): {proc.stderr}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"cli_seconds": wall, "cli_peak_rss_mb": max(peak, before) / 1024}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--llm-limit", type=int, default=40, help="rows for the LLM detector (0 = skip it)")
    args = ap.parse_args()
    rows = load_rows(args.data)

    results = [bench_method(m, rows) for m in ("sim_cosine", "sim_overlap", "sim_hybrid")]
    if args.llm_limit:
        from hallucheck.llm import make_llm

        llm = make_llm("embedded", cache=None, progress=False)
        results.append(bench_method("keyword_match", rows[: args.llm_limit], llm=llm))
    start = bench_llm_start()
    cli = bench_cli_memory()

    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; data: {args.data.name}\n"
    )
    print("| detector | examples | seconds | examples/s | errors |")
    print("|---|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['method']} | {r['examples']} | {r['seconds']:.2f} | {r['per_second']:.1f} | {r['errors']} |")
    print()
    print("| embedded LLM | value |")
    print("|---|---:|")
    print(f"| first use (assemble GGUF + load + 2 tokens), s | {start['first_use_seconds']:.1f} |")
    print(f"| warm start (load + 2 tokens), s | {start['warm_start_seconds']:.1f} |")
    print(f"| `hallucheck detect --method keyword_match` on the shipped example, s | {cli['cli_seconds']:.1f} |")
    print(f"| peak RSS of that `hallucheck detect`, MB | {cli['cli_peak_rss_mb']:.0f} |")


if __name__ == "__main__":
    main()
