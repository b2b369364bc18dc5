"""What the routes share: the server state they are given (:data:`Server`), one request's work run
on the bounded pool (:func:`pooled`), and the response for each way that work can end: its result
(413 past the response limit), a failure (422, 502, 500), a full queue (503), a timeout (504)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Callable

from fastapi import Depends, Request
from fastapi.responses import JSONResponse, Response

from ..errors import BackendError, HallucheckError, ParseError
from .jobs import json_response
from .limits import RequestBudget, response_too_large
from .runtime import QueueFull, error_response
from .schemas import ErrorResponse
from .state import ServerState

# the refusals documented on every route that runs a method
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    422: {"model": ErrorResponse, "description": "bad body (field named) or bad method/parameters"},
    413: {"model": ErrorResponse},
    503: {"model": ErrorResponse, "description": "queue full; see Retry-After"},
    504: {"model": ErrorResponse, "description": "timed out"},
    401: {"model": ErrorResponse},
}


async def server_state(request: Request) -> ServerState:
    """The one object every route shares: the app's :class:`ServerState` (its ``config`` included).
    Async, so it is read on the event loop, never on a worker thread."""
    return request.app.state.hallucheck


Server = Annotated[ServerState, Depends(server_state)]


def reference_of(ref: str | list[str]) -> str | list[str]:
    return list(ref) if isinstance(ref, list) else ref


def sized_reply(payload: Any, cap: int) -> Response:
    """A detection's response, serialised on the worker (never on the event loop); one over the
    operator's response limit is refused (413) rather than sent."""
    response = json_response(payload)
    if len(response.body) > cap:
        exc = response_too_large(len(response.body), cap)
        return error_response(413, "error", str(exc), exc.field)
    return response


def failure_response(exc: BaseException) -> JSONResponse:
    if isinstance(exc, (BackendError, ParseError)):  # e.g. a model that failed to load
        return error_response(502, "could_not_verify", f"could not verify: {exc}"[:500])
    if isinstance(exc, HallucheckError):
        return error_response(422, "error", str(exc), getattr(exc, "field", None) or _guess_field(str(exc)))
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    return error_response(500, "could_not_verify", f"unexpected {type(exc).__name__}: {first}")


def _guess_field(message: str) -> str | None:
    low = message.lower()
    if "method" in low:
        return "method"
    if "parameter" in low:
        return "params"
    return None


def busy(server: ServerState) -> JSONResponse:
    return error_response(
        503,
        "error",
        "the server is busy (work queue full); retry later",
        None,
        headers={"Retry-After": str(server.pool.retry_after())},
    )


def timed_out(timeout: float) -> JSONResponse:
    return error_response(504, "could_not_verify", f"the request took longer than {timeout:g} s; it was not verified")


async def pooled_reply(
    server: ServerState,
    body: Any,
    run: Callable[[ServerState, Any, RequestBudget], Any],
    payload: Callable[[Any], dict[str, Any]],
) -> Any:
    """A route's answer to ``body``: ``run(server, body, budget)`` on the bounded pool under a fresh
    request budget, its usage counted, and the reply ``payload`` makes of its result (413 past the
    response limit) or, from :func:`pooled`, the response that says why there is none."""
    budget = server.budget()

    def answer() -> Any:
        result = run(server, body, budget)
        server.metrics.add_usage(result.usage)
        return sized_reply(payload(result), server.config.max_response_bytes)

    return await pooled(server, answer, budget)


async def pooled(server: ServerState, work: Callable[[], Any], budget: RequestBudget) -> Any:
    """The work's result from the bounded pool (never on this event loop: see :mod:`.pool`), or
    the response that says why there is none (503 queue full, 504 timeout: the work makes no
    further LLM call, 500 unexpected)."""
    timeout = server.config.timeout
    try:
        return await server.pool.run(
            work,
            timeout=timeout,
            on_loop=server.awaits_llm,
            on_timeout=lambda: budget.stop(f"the request took longer than {timeout:g} s"),
        )
    except QueueFull:
        return busy(server)
    except asyncio.TimeoutError:
        return timed_out(timeout)
    except Exception as exc:
        return failure_response(exc)
