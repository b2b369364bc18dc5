"""``POST /v1/mitigate``: one answer checked and repaired on the bounded pool."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from ...errors import BackendError, ParseError
from ...llm.base import call_guard
from ...types import Mitigation, Usage
from ..limits import RequestBudget
from ..schemas import DetectRequest, MitigateResponse, bounded_detection
from ..state import ServerState
from ..work import ERROR_RESPONSES, Server, pooled_reply, reference_of

router = APIRouter()


@router.post("/v1/mitigate", response_model=MitigateResponse, responses=ERROR_RESPONSES)
async def mitigate(body: DetectRequest, server: Server) -> Any:
    def payload(mit: Mitigation) -> dict[str, Any]:
        final = mit.after or mit.before
        d = mit.to_dict()
        if not body.echo:
            d = {
                **d,
                "original": None,
                "before": bounded_detection(d["before"]),
                "after": None if d.get("after") is None else bounded_detection(d["after"]),
            }
        return {"status": final.outcome, "exit_code": final.exit_code, "mitigation": d}

    return await pooled_reply(server, body, run_mitigation, payload)


def run_mitigation(server: ServerState, body: DetectRequest, budget: RequestBudget) -> Mitigation:
    """``Pipeline.mitigate``; a backend or parse failure is an unrepaired answer that could not be verified."""
    pipe = server.pipeline(body.method, body.params)
    try:
        with call_guard(budget):
            return pipe.mitigate(body.answer, reference_of(body.reference), question=body.question)
    except (BackendError, ParseError) as exc:
        det = pipe.error_detection(body.model_dump(), exc)
        return Mitigation(body.answer, body.answer, (), det, None, Usage(), (f"could not verify: {exc}",))
    finally:
        server.settle(pipe)
