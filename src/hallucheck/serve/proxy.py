"""The ASGI app of ``hallucheck proxy``: an OpenAI-compatible pass-through that checks answers.

- ``POST /v1/chat/completions``: forwarded to the operator's upstream without the request's
  ``hallucheck`` extension (:mod:`.proxy_check`). Not streamed: the upstream's JSON with a
  top-level ``hallucheck`` object and the ``X-Hallucheck-Hallucinated`` header, under the policy.
  Streamed: see :mod:`.proxy_stream`.
- ``GET /v1/models``: forwarded as it is. ``GET /healthz``: the proxy's own state (no upstream call).
- Any other path: 404; the upstream is never reached from it.

The service's gate (:class:`.runtime.Gate`: Host names, body size, the proxy token), work pool,
per-request LLM limits and metrics are reused as they are.
"""

from __future__ import annotations

import json
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from .._version import __version__
from ..text.segment import split_sentences
from ..types import Detection
from .proxy_check import Ask, Checker, ExtensionError, ProxyConfig, blocks, read_ask, summary
from .proxy_stream import StreamGuard, sse_data
from .proxy_upstream import Upstream, UpstreamDown, openai_error, passed_headers, passthrough
from .runtime import Gate
from .state import ServerState

FORWARDED = ("POST /v1/chat/completions", "GET /v1/models")
UNCHECKED = {"X-Hallucheck-Checked": "false"}


class Admission:
    """At most ``limit`` requests proxied at once (a stream counts until it ends)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.active = 0

    def enter(self) -> bool:
        if self.active >= self.limit:
            return False
        self.active += 1
        return True

    def leave(self) -> None:
        self.active -= 1


def _content(data: Any) -> str | None:
    """The text of choice 0 of a chat completion, or None (no text: e.g. a tool call)."""
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    return content if isinstance(content, str) else None


def _cut(answer: str, det: Detection) -> int:
    """Where ``block`` cuts a whole answer: the start of the sentence of its first claim that is
    unsupported or could not be verified (0 when the check failed as a whole)."""
    bad = [v.claim.start for v in det.verdicts if v.hallucinated or v.status == "error"]
    if not bad:
        return 0
    first = min(bad)
    starts = [0] + [s.start for s in split_sentences(answer)[1:]]
    return max([s for s in starts if s <= first] or [0])


def _blocked(data: dict[str, Any], answer: str, det: Detection, obj: dict[str, Any]) -> dict[str, Any]:
    """The answer up to its first unsupported sentence, finished with ``content_filter``."""
    cut = _cut(answer, det)
    kept = tuple(v for v in det.verdicts if v.claim.end <= cut)
    shown = Detection(answer[:cut], det.reference, det.question, det.method, det.hallucinated, det.score, kept)
    choice = data["choices"][0]
    choice["message"]["content"] = answer[:cut]
    choice["finish_reason"] = "content_filter"
    return {
        **obj,
        **summary(shown),
        "hallucinated": det.hallucinated,
        "outcome": det.outcome,
        "blocked": {"start": cut},
    }


async def _whole(checker: Checker, data: dict[str, Any], answer: str, ask: Ask) -> dict[str, Any]:
    """Check a whole answer; apply the policy to ``data`` (in place); the ``hallucheck`` object."""
    det = await checker.detect(answer, ask)
    obj = summary(det, policy=ask.policy, reference=ask.source)
    if ask.policy == "block" and blocks(det):
        return _blocked(data, answer, det, obj)
    if ask.policy != "repair" or not det.hallucinated:
        return obj
    note = await checker.repair_note()
    if note is not None:
        return {**obj, "repair": {"applied": "hold", "note": note}}
    mit = await checker.repair(answer, ask)
    if mit is None or not mit.changed:
        why = "the repair failed or took too long" if mit is None else "; ".join(mit.notes) or "no repair was kept"
        return {**obj, "repair": {"repaired": False, "note": why}}
    data["choices"][0]["message"]["content"] = mit.revised
    after = None if mit.after is None else summary(mit.after)
    return {**obj, "repair": {"repaired": True, "original": answer, "revised": mit.revised, "after": after}}


def _verdict_headers(obj: dict[str, Any], policy: str) -> dict[str, str]:
    flag = obj.get("hallucinated")
    return {
        "X-Hallucheck-Hallucinated": "unknown" if flag is None else str(bool(flag)).lower(),
        "X-Hallucheck-Outcome": str(obj.get("outcome")),
        "X-Hallucheck-Policy": policy,
        "X-Hallucheck-Checked": "true",
    }


def create_proxy(config: ProxyConfig) -> Any:
    """The proxy's ASGI app: the FastAPI app inside the service's gate (``.app``)."""
    state = ServerState(config.serve)
    checker = Checker(config, state)
    upstream = Upstream(config)
    admission = Admission(config.max_streams)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        yield
        await upstream.close()
        state.close()

    app = FastAPI(
        title="hallucheck proxy",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.hallucheck = state

    def busy() -> Response:
        return openai_error(
            503, "the proxy is busy (too many requests at once); retry later", kind="server_error", Retry_After="1"
        )

    async def whole(body: dict[str, Any], ask: Ask, headers: dict[str, str]) -> Response:
        response = await upstream.send("POST", "/chat/completions", headers, body)
        if ask.reference is None or response.status_code != 200:
            return await passthrough(response, **(UNCHECKED if ask.reference is None else {}))
        try:
            data = json.loads(await response.aread())
        except (ValueError, httpx.HTTPError):
            return await passthrough(response, **UNCHECKED)
        finally:
            await response.aclose()
        answer = _content(data)
        if answer is None or not isinstance(data, dict):
            return JSONResponse(data, headers=passed_headers(response, **UNCHECKED))
        obj = await _whole(checker, data, answer, ask)
        data["hallucheck"] = obj
        return JSONResponse(data, headers=passed_headers(response, **_verdict_headers(obj, ask.policy)))

    async def streamed(body: dict[str, Any], ask: Ask, headers: dict[str, str]) -> Response:
        response = await upstream.send("POST", "/chat/completions", headers, body)
        kind = response.headers.get("content-type", "")
        if response.status_code != 200 or "text/event-stream" not in kind:
            return await passthrough(response, **UNCHECKED)
        if ask.reference is None:
            chunks: Any = response.aiter_bytes()
            extra = UNCHECKED
        else:
            note = await checker.repair_note() if ask.policy == "repair" else None
            chunks = StreamGuard(checker, ask, note).run(sse_data(response.aiter_lines()))
            extra = {"X-Hallucheck-Checked": "true", "X-Hallucheck-Policy": ask.policy}

        async def relay() -> Any:
            try:
                async for piece in chunks:
                    yield piece
            finally:
                await response.aclose()
                admission.leave()

        out = passed_headers(response, **extra)
        out["Cache-Control"] = "no-cache"
        return StreamingResponse(relay(), status_code=200, headers=out, media_type="text/event-stream")

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except ValueError:
            return openai_error(422, "the body is not JSON", "body")
        if not isinstance(body, dict):
            return openai_error(422, "the body must be a JSON object", "body")
        try:
            ask = read_ask(body, config)
        except ExtensionError as exc:
            return openai_error(422, str(exc), exc.field)
        if not admission.enter():
            return busy()
        stream, handed = bool(body.get("stream")), False
        try:
            headers = upstream.headers(request.headers)
            if stream:
                response = await streamed(body, ask, headers)
                handed = isinstance(response, StreamingResponse)  # it leaves when the stream ends
                return response
            return await whole(body, ask, headers)
        except UpstreamDown as exc:
            return exc.response
        finally:
            if not handed:
                admission.leave()

    @app.get("/v1/models")
    async def models(request: Request) -> Response:
        try:
            response = await upstream.send("GET", "/models", upstream.headers(request.headers))
        except UpstreamDown as exc:
            return exc.response
        return await passthrough(response)

    @app.get("/healthz")
    async def healthz() -> Any:
        return {
            "status": "ok",
            "version": __version__,
            "method": checker.method,
            "policy": config.policy,
            "policies": list(config.policies),
            "requests": admission.active,
            "queue": {"waiting": state.pool.waiting, "running": state.pool.running, "capacity": state.pool.capacity},
        }

    @app.api_route("/{path:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"])
    async def refused(path: str) -> Response:
        return openai_error(404, f"this proxy forwards only {' and '.join(FORWARDED)}", kind="not_found")

    serve = config.serve
    return Gate(
        app,
        metrics=state.metrics,
        allowed_hosts=state.allowed_hosts,
        token=config.token,
        max_body_bytes=serve.max_body_bytes,
    )


__all__ = ["ProxyConfig", "create_proxy"]
