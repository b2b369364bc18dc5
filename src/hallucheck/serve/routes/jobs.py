"""``POST /v1/check`` starts a batch job (run by :func:`hallucheck.serve.jobs.run_job`, one record
written per finished row); ``GET /v1/jobs/{id}`` reads its progress and a page of its results."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from ...errors import InputError
from ..jobs import MAX_PAGE, job_page, run_job
from ..runtime import error_response
from ..schemas import CheckRequest, ErrorResponse, JobCreated, JobStatus
from ..state import Job, ServerState
from ..work import ERROR_RESPONSES, Server, failure_response

router = APIRouter()


@router.post("/v1/check", response_model=JobCreated, status_code=202, responses=ERROR_RESPONSES)
async def check(body: CheckRequest, server: Server) -> Any:
    config = server.config
    examples = read_rows(body.rows, config.max_rows)
    if isinstance(examples, JSONResponse):
        return examples
    try:
        pipe = server.pipeline(body.method, body.params)
    except Exception as exc:
        return failure_response(exc)
    refused = no_room(server)
    if refused is not None:
        return refused
    used = await asyncio.to_thread(server.prune_jobs)
    if used > config.jobs_max_bytes:
        return error_response(
            503,
            "error",
            "the job files of running jobs fill the server's job storage; retry later",
            None,
            headers={"Retry-After": "60"},
        )
    job = Job(id=uuid.uuid4().hex, dir=server.jobs_dir / "pending", total=len(examples), method=pipe.name)
    job.dir = server.jobs_dir / job.id
    server.jobs[job.id] = job

    cap = config.jobs_max_bytes - used  # the disk this job's files may take
    # not tied to the request: survives a client disconnect
    server.job_pool.submit(run_job, server, job, pipe, examples, cap)
    return JSONResponse(
        {"id": job.id, "state": job.state, "total": job.total, "url": f"/v1/jobs/{job.id}"}, status_code=202
    )


def read_rows(rows: list[Any], max_rows: int) -> list[Any] | JSONResponse:
    """The job's examples, or the refusal of the first row that is not one (413 too many rows, 422
    a bad row or an id used twice)."""
    from ...eval.check import row_to_example

    if len(rows) > max_rows:
        return error_response(413, "error", f"a job takes at most {max_rows} rows; got {len(rows)}", "rows")
    examples, seen = [], set()
    for i, row in enumerate(rows):
        try:
            ex = row_to_example(row, i + 1, f"rows[{i}]", "job")
        except InputError as exc:
            return error_response(422, "error", str(exc), f"rows[{i}].{exc.field}" if exc.field else f"rows[{i}]")
        if ex.id in seen:
            return error_response(422, "error", f"rows[{i}]: id {ex.id!r} is used twice", f"rows[{i}].id")
        seen.add(ex.id)
        examples.append(ex)
    return examples


def no_room(server: ServerState) -> JSONResponse | None:
    """503 when as many jobs as the server runs are queued or running, else None."""
    active = sum(1 for j in server.jobs.values() if j.state in ("queued", "running"))
    if active >= server.config.max_jobs:
        return error_response(
            503,
            "error",
            f"{active} jobs are queued or running (the limit); retry later",
            None,
            headers={"Retry-After": "10"},
        )
    return None


@router.get("/v1/jobs/{job_id}", response_model=JobStatus, responses={404: {"model": ErrorResponse}})
async def job_status(job_id: str, server: Server, offset: int = 0, limit: int = 100, detail: bool = False) -> Any:
    """Progress and one page of results (``offset``, ``limit`` at most 1000; ``next_offset``
    names the next page). Each result has its id, status, score and error; ``detail=true`` adds
    its detection (inputs not echoed). The file is read and the body built off the event loop."""
    job = server.jobs.get(job_id)
    if job is None:
        return error_response(
            404, "error", f"no job {job_id!r} (finished jobs are kept for a while, then deleted)", "id"
        )
    if offset < 0 or not 1 <= limit <= MAX_PAGE:
        return error_response(422, "error", f"offset must be >= 0 and limit in [1, {MAX_PAGE}]", "limit")
    return await asyncio.to_thread(job_page, job, offset, limit, detail, server.config.max_response_bytes)
