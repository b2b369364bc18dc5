"""The loop every peer runner shares: rows in, one prediction record per row out, usage from the proxy.

Standard library only (it runs inside each peer's own virtualenv, where hallucheck is not installed).
A peer script defines ``build(args) -> predict`` where ``predict(row) -> (hallucinated, score, detail)``:
``hallucinated`` is the peer's own answer-level label (bool), ``score`` a number where higher means
more likely hallucinated (or None), ``detail`` whatever the peer returned that explains the label.

Each record is written to ``<out>/predictions.jsonl`` as soon as its row is done, in the shape
hallucheck's own ``results.jsonl`` uses (``label``, ``hallucinated``, ``score``, ``status``,
``usage.calls``/``prompt_tokens``/``completion_tokens``, ``seconds``), so ``score.py`` scores it with
``hallucheck.eval.report.compute_metrics`` exactly as ``hallucheck eval`` scores its own runs. A run
that is stopped resumes where it left off (rows already in the file are skipped).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
import urllib.request
from pathlib import Path
from typing import Any, Callable

Predict = Callable[[dict], "tuple[bool, float | None, Any]"]


def parser(description: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--data", required=True, help="a dev JSONL file in the shared schema")
    ap.add_argument("--limit", type=int, default=None, help="only the first N rows")
    ap.add_argument("--out", required=True, help="run directory (predictions.jsonl, run.json)")
    ap.add_argument("--base-url", default=os.environ.get("PEERS_BASE_URL", "http://127.0.0.1:8432/v1"))
    ap.add_argument("--model", default=os.environ.get("PEERS_MODEL", "qwen2.5-coder-1.5b"))
    return ap


def load_rows(path: str, limit: int | None) -> list[dict]:
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rows.append(json.loads(line))
                if limit is not None and len(rows) >= limit:
                    break
    return rows


def usage_totals(base_url: str) -> dict:
    """The counting proxy's running totals (``GET <root>/_usage``)."""
    root = base_url.rstrip("/")
    if root.endswith("/v1"):
        root = root[: -len("/v1")]
    with urllib.request.urlopen(root + "/_usage", timeout=30) as r:
        return json.loads(r.read())


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except TypeError:
        return repr(value)


def run(args: argparse.Namespace, peer: str, version: str, predict: Predict, settings: dict) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pred_path = out / "predictions.jsonl"
    done = set()
    if pred_path.exists():
        with open(pred_path, encoding="utf-8") as f:
            done = {json.loads(line)["id"] for line in f if line.strip()}
    rows = load_rows(args.data, args.limit)
    (out / "run.json").write_text(
        json.dumps(
            {
                "peer": peer,
                "version": version,
                "data": os.path.abspath(args.data),
                "limit": args.limit,
                "rows": len(rows),
                "base_url": args.base_url,
                "model": args.model,
                "settings": settings,
                "python": sys.version.split()[0],
                "command": sys.argv,
            },
            indent=2,
        )
        + "\n"
    )
    todo = [r for r in rows if r["id"] not in done]
    print(f"{peer} {version}: {len(rows)} rows, {len(done)} done before, {len(todo)} to run", file=sys.stderr)
    with open(pred_path, "a", encoding="utf-8") as f:
        for i, row in enumerate(todo, 1):
            before = usage_totals(args.base_url)
            t0 = time.perf_counter()
            record: dict[str, Any] = {"id": row["id"], "label": row.get("label"), "task": row.get("task")}
            try:
                hallucinated, score, detail = predict(row)
                record.update(
                    status="ok",
                    hallucinated=bool(hallucinated),
                    score=None if score is None else float(score),
                    detail=_jsonable(detail),
                )
            except Exception as exc:  # one bad row must not end the run: record it as an error
                record.update(
                    status="error",
                    hallucinated=None,
                    score=None,
                    error=f"{type(exc).__name__}: {exc}",
                    traceback=traceback.format_exc(limit=6),
                )
            record["seconds"] = time.perf_counter() - t0
            after = usage_totals(args.base_url)
            record["usage"] = {k: after[k] - before[k] for k in ("calls", "prompt_tokens", "completion_tokens")}
            record["usage"]["failed_requests"] = after["errors"] - before["errors"]
            f.write(json.dumps(record) + "\n")
            f.flush()
            print(
                f"[{i}/{len(todo)}] {row['id']} label={row.get('label')} -> {record.get('hallucinated')} "
                f"score={record.get('score')} calls={record['usage']['calls']} {record['seconds']:.1f}s"
                + (f" ERROR {record['error']}" if record["status"] == "error" else ""),
                file=sys.stderr,
                flush=True,
            )
    return 0
