"""Scores peer runs the way ``hallucheck eval`` scores its own, and prints the side-by-side table.

Runs with the repository's Python (``PYTHONPATH=src``): each run directory's ``predictions.jsonl``
(written by ``run_<peer>.py``) goes through ``hallucheck.eval.report.compute_metrics``, the function
behind hallucheck's ``metrics.json`` (macro-F1 and balanced accuracy of the answer-level labels with
1,000-resample bootstrap 95 % intervals from ``hallucheck.eval.metrics``; rows the peer failed on
are excluded from them and counted as ``errors``). ``metrics.json`` is written beside the predictions.

    python benchmarks/peers/score.py runs/peers/lettucedetect-qa40 ...          # writes metrics.json
    python benchmarks/peers/score.py --table runs/peers/*-qa40                  # a markdown table

``--table`` also takes hallucheck's own ``eval`` run directories (their ``metrics.json``); ``--beside``
scores hallucheck runs on exactly the rows a peer run decided (a peer that finished fewer rows than
asked is compared on those rows only).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hallucheck.eval.report import compute_metrics


def load(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def score_run(run: Path) -> dict:
    records = load(run / "predictions.jsonl")
    metrics = compute_metrics(records)
    info = json.loads((run / "run.json").read_text()) if (run / "run.json").exists() else {}
    metrics["peer"] = {k: info.get(k) for k in ("peer", "version", "data", "limit", "rows", "model", "settings")}
    metrics["total_seconds"] = sum(r.get("seconds") or 0.0 for r in records)
    metrics["failed_requests"] = sum(r["usage"].get("failed_requests", 0) for r in records)
    (run / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    return metrics


def _pct(v) -> str:
    return "–" if v is None else f"{100 * v:.1f}"


def _ci(pair) -> str:
    return "" if not pair or pair[0] is None else f" [{100 * pair[0]:.1f}, {100 * pair[1]:.1f}]"


def records_of(run: Path) -> list[dict]:
    """A peer run's predictions, or a hallucheck ``eval`` run's per-example results."""
    peer = run / "predictions.jsonl"
    return load(peer if peer.exists() else run / "results.jsonl")


# The embedded model's speeds on this machine type, unloaded (docs/benchmarks.md, "Latency against the
# floor"): the floor of an example is its prompt tokens / PROMPT_SPEED + completion tokens / GEN_SPEED.
PROMPT_SPEED = 67.7
GEN_SPEED = 16.0


def row_of(run: Path, ids: set[str] | None = None) -> str:
    """One table row: the run's metrics.json, or (with ``ids``) its metrics on those rows only."""
    records = records_of(run)
    if ids is None:
        m = score_run(run) if (run / "predictions.jsonl").exists() else json.loads((run / "metrics.json").read_text())
    else:
        m = compute_metrics([r for r in records if r["id"] in ids])
    d = m.get("decisions") or {}
    e = m.get("efficiency") or {}
    peer = m.get("peer") or {}
    if not peer and (run / "run.json").exists():
        info = json.loads((run / "run.json").read_text())
        peer = {"peer": info.get("peer"), "version": info.get("version")}
    method = (records[0].get("detection") or {}).get("method") if records else None
    name = f"{peer['peer']} {peer['version']}" if peer.get("peer") else f"hallucheck `{method}`"
    prompt, completion = e.get("prompt_tokens_per_example") or 0, e.get("completion_tokens_per_example") or 0
    tokens, floor = prompt + completion, prompt / PROMPT_SPEED + completion / GEN_SPEED
    s = e.get("seconds_per_example")
    n = m.get("examples")
    errs = m.get("errors") or 0
    return (
        f"| {name} | {run.name} | {n}{f' ({errs} failed)' if errs else ''} "
        f"| {_pct(d.get('macro_f1'))}{_ci(d.get('macro_f1_ci95'))} "
        f"| {_pct(d.get('balanced_accuracy'))}{_ci(d.get('balanced_accuracy_ci95'))} "
        f"| {e.get('llm_calls_per_example', 0):.2f} | {tokens:.0f} | {floor:.1f} | {'–' if s is None else f'{s:.1f}'} |"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--table", action="store_true", help="print a markdown table of the runs' metrics.json")
    ap.add_argument(
        "--beside",
        nargs="*",
        type=Path,
        default=[],
        help="with --table: hallucheck eval runs to score on exactly the rows each peer run decided",
    )
    args = ap.parse_args(argv)
    if args.table:
        print(
            "| system | run | n | macro F1 [95 % CI] | bal. acc. [95 % CI] | LLM calls/ex | tokens/ex "
            "| floor s/ex | s/ex |"
        )
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for run in args.runs:
            print(row_of(run))
            if args.beside:
                ids = {r["id"] for r in records_of(run) if r.get("status") == "ok"}
                for other in args.beside:
                    print(row_of(other, ids))
        return 0
    for run in args.runs:
        m = score_run(run)
        d = m.get("decisions") or {}
        print(
            f"{run}: n={m['examples']} errors={m['errors']} macro_f1={d.get('macro_f1')} ba={d.get('balanced_accuracy')}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
