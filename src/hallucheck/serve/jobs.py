"""Batch jobs of ``hallucheck serve``: running one within its share of the disk, reading a page of
its results within the response limit, and deleting expired jobs on a timer."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from fastapi.responses import Response

from ..errors import InputError
from ..types import Usage
from .schemas import bounded_detection
from .state import Job, ServerState

MAX_PAGE = 1000  # results per GET /v1/jobs/{id}


def json_response(payload: Any, status_code: int = 200) -> Response:
    """A JSON response serialised by the caller's thread (call it off the event loop for big bodies)."""
    data = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    return Response(data, status_code=status_code, media_type="application/json")


class CappedMethod:
    """The job's method, refusing a row whose detection would take the job's files past ``cap``
    bytes: that row is recorded as an error (a short record) instead of being written."""

    def __init__(self, pipe: Any, cap: int) -> None:
        self._pipe = pipe
        self.cap = cap
        self.used = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pipe, name)

    def run(self, answer: Any, reference: Any, **kw: Any) -> Any:
        det = self._pipe.run(answer, reference, **kw)
        # the record holds the detection and the row's inputs
        size = len(json.dumps(det.to_dict(), ensure_ascii=False, default=str).encode("utf-8"))
        size += len(str(answer).encode("utf-8")) + len(str(reference).encode("utf-8"))
        if self.used + size > self.cap:
            raise InputError(
                f"the job's results would take more than the {self.cap:,} bytes of job storage left "
                f"(--jobs-max-mb); this row ({size:,} bytes) was not stored",
                field="rows",
            )
        self.used += size
        return det


def run_job(state: ServerState, job: Job, pipe: Any, examples: list[Any], cap: int) -> None:
    from ..eval.check import run_check
    from ..eval.runner import read_results

    job.state = "running"
    try:
        job.summary = run_check(
            CappedMethod(pipe, cap), examples, out_dir=job.dir, workers=state.config.workers, progress=False
        )
        job.state = "done"
    except Exception as exc:  # the rows that finished stay on disk and in the results
        job.state, job.error = "failed", f"{type(exc).__name__}: {exc}"[:500]
    state.settle(pipe)
    usage = Usage()
    for rec in read_results(job.dir):
        usage = usage + Usage.from_dict((rec.get("detection") or {}).get("usage") or {})
    state.metrics.add_usage(usage)
    job.finished = time.time()
    state.prune_jobs()


def job_page(job: Job, offset: int, limit: int, detail: bool, max_bytes: int) -> Response:
    """One page of a job's results: at most ``limit`` rows and, past the first, no more rows than
    fit in ``max_bytes`` (``next_offset`` then names the rest)."""
    from ..eval.check import row_outcome
    from ..eval.runner import RESULTS

    results, done, size, full = [], 0, 0, False
    path = job.dir / RESULTS
    if path.exists():
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                if offset + len(results) == done and len(results) < limit and not full:
                    try:
                        r = json.loads(line)
                    except ValueError:  # a torn last line: not a record yet
                        continue
                    row = {
                        "id": r["id"],
                        "status": row_outcome(r),
                        "score": r.get("score"),
                        "error": r.get("error"),
                    }
                    if detail and r.get("detection"):
                        row["detection"] = bounded_detection(r["detection"])
                    cost = len(json.dumps(row, ensure_ascii=False, default=str))
                    if results and size + cost > max_bytes:
                        full = True
                    else:
                        results.append(row)
                        size += cost
                done += 1
    end = offset + len(results)
    return json_response(
        {
            "id": job.id,
            "state": job.state,
            "total": job.total,
            "done": done,
            "method": job.method,
            "error": job.error,
            "summary": {k: v for k, v in job.summary.items() if k != "files"} if job.summary else None,
            "results": results,
            "offset": offset,
            "next_offset": end if end < done or (end < job.total and job.state in ("queued", "running")) else None,
        }
    )


async def retention_timer(state: ServerState) -> None:
    """Delete expired jobs every so often, whether or not anything else happens."""
    interval = min(60.0, max(0.05, state.config.job_retention / 4))
    while True:
        await asyncio.sleep(interval)
        try:
            await asyncio.to_thread(state.prune_jobs)
        except Exception:  # a failed sweep is retried at the next tick
            pass
