"""``POST /v1/detect``: one answer checked against its reference on the bounded pool."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from ...errors import BackendError, ParseError
from ...llm.base import call_guard
from ...types import Detection
from ..limits import CallRefused, RequestBudget
from ..schemas import DetectRequest, DetectResponse, bounded_detection
from ..state import ServerState
from ..work import ERROR_RESPONSES, Server, pooled_reply, reference_of

router = APIRouter()


@router.post("/v1/detect", response_model=DetectResponse, responses=ERROR_RESPONSES)
async def detect(body: DetectRequest, server: Server) -> Any:
    def payload(det: Detection) -> dict[str, Any]:
        d = det.to_dict()
        return {
            "status": det.outcome,
            "exit_code": det.exit_code,
            "detection": d if body.echo else bounded_detection(d),
        }

    return await pooled_reply(server, body, run_detection, payload)


def run_detection(server: ServerState, body: DetectRequest, budget: RequestBudget) -> Detection:
    """``Pipeline.run``, as ``arun`` runs it when the pool runs it on the I/O loop; what it shows of
    the default method's models and of the LLM goes into the health state."""
    pipe = server.pipeline(body.method, body.params)
    try:
        with call_guard(budget):
            det = pipe.run(body.answer, reference_of(body.reference), question=body.question)
        if pipe.name == server.config.method and not body.params and det.status == "ok":
            server.model_loaded = True  # the default method has run: its models are in memory
        if det.usage.calls and det.status == "ok":
            server.note_llm(True)  # the LLM answered: /healthz says so without asking it again
        return det
    except (BackendError, ParseError) as exc:
        if isinstance(exc, BackendError) and not isinstance(exc, CallRefused):
            server.note_llm(False, f"{type(exc).__name__}: {exc}")
        return pipe.error_detection(body.model_dump(), exc)
    finally:
        server.settle(pipe)
