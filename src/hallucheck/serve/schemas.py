"""Request and response bodies of ``hallucheck serve`` and the status an answer gets."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..types import Detection

Status = Literal["grounded", "hallucinated", "could_not_verify", "error"]
EXIT_STATUS = {0: "grounded", 1: "hallucinated", 2: "error", 3: "could_not_verify"}


# -- request and response bodies --------------------------------------------------------------
class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DetectRequest(_Body):
    answer: str = Field(description="the answer to check")
    reference: str | list[str] = Field(description="the reference text, or a list of passages")
    question: str | None = Field(default=None, description="the question the answer responds to (QA)")
    method: str | None = Field(default=None, description="method name (default: the server's --method)")
    params: dict[str, Any] = Field(default_factory=dict, description='method parameters, e.g. {"t2": 0.2}')


class CheckRequest(_Body):
    rows: list[dict[str, Any]] = Field(
        min_length=1,
        description="rows with answer, reference (or contexts: a list of passages), and optionally question and id",
    )
    method: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)


class DetectResponse(BaseModel):
    status: Status
    exit_code: int = Field(description="the CLI's exit code: 0 grounded, 1 hallucinated, 2 error, 3 could not verify")
    detection: dict[str, Any] = Field(description="Detection.to_dict()")


class MitigateResponse(BaseModel):
    status: Status = Field(
        description="of the re-check of the revised answer (of the first check when nothing changed)"
    )
    exit_code: int
    mitigation: dict[str, Any] = Field(description="Mitigation.to_dict()")


class ErrorResponse(BaseModel):
    status: Status
    error: str
    field: str | None = None


class JobCreated(BaseModel):
    id: str
    state: str
    total: int
    url: str


class JobStatus(BaseModel):
    id: str
    state: Literal["queued", "running", "done", "failed"]
    total: int
    done: int
    method: str
    error: str | None = None
    summary: dict[str, Any] | None = None
    results: list[dict[str, Any]] = Field(default_factory=list)


def detection_exit_code(det: Detection) -> int:
    if det.hallucinated:
        return 1
    if det.hallucinated is False and det.status == "ok":
        return 0
    return 3
