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
from typing import Any, AsyncIterator

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
    proxy = _Proxy(config)
    app = FastAPI(
        title="hallucheck proxy",
        version=__version__,
        lifespan=proxy.lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.hallucheck = proxy.state
    app.post("/v1/chat/completions")(proxy.chat)
    app.get("/v1/models")(proxy.models)
    app.get("/healthz")(proxy.healthz)
    # last: every other path and method is refused
    app.api_route("/{path:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"])(proxy.refused)
    return Gate(
        app,
        metrics=proxy.state.metrics,
        allowed_hosts=proxy.state.allowed_hosts,
        token=config.token,
        max_body_bytes=config.serve.max_body_bytes,
    )


class _Proxy:
    """What one proxy shares across its requests (the server state, the checker, the upstream
    client, the admission count) and its routes."""

    def __init__(self, config: ProxyConfig) -> None:
        self.config = config
        self.state = ServerState(config.serve)
        self.checker = Checker(config, self.state)
        self.upstream = Upstream(config)
        self.admission = Admission(config.max_streams)

    @asynccontextmanager
    async def lifespan(self, app: FastAPI) -> AsyncIterator[None]:
        yield
        await self.upstream.close()
        self.state.close()

    async def chat(self, request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except ValueError:
            return openai_error(422, "the body is not JSON", "body")
        if not isinstance(body, dict):
            return openai_error(422, "the body must be a JSON object", "body")
        try:
            ask = read_ask(body, self.config)
        except ExtensionError as exc:
            return openai_error(422, str(exc), exc.field)
        if not self.admission.enter():
            return openai_error(
                503, "the proxy is busy (too many requests at once); retry later", kind="server_error", Retry_After="1"
            )
        stream, handed = bool(body.get("stream")), False
        try:
            headers = self.upstream.headers(request.headers)
            if stream:
                response = await self.streamed(body, ask, headers)
                handed = isinstance(response, StreamingResponse)  # it leaves when the stream ends
                return response
            return await self.whole(body, ask, headers)
        except UpstreamDown as exc:
            return exc.response
        finally:
            if not handed:
                self.admission.leave()

    async def whole(self, body: dict[str, Any], ask: Ask, headers: dict[str, str]) -> Response:
        """A completion in one piece: the upstream's JSON with the check and the policy applied."""
        response = await self.upstream.send("POST", "/chat/completions", headers, body)
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
        obj = await _whole(self.checker, data, answer, ask)
        data["hallucheck"] = obj
        return JSONResponse(data, headers=passed_headers(response, **_verdict_headers(obj, ask.policy)))

    async def streamed(self, body: dict[str, Any], ask: Ask, headers: dict[str, str]) -> Response:
        """A streamed completion relayed event by event, through the :class:`StreamGuard` when checked."""
        response = await self.upstream.send("POST", "/chat/completions", headers, body)
        kind = response.headers.get("content-type", "")
        if response.status_code != 200 or "text/event-stream" not in kind:
            return await passthrough(response, **UNCHECKED)
        if ask.reference is None:
            chunks: Any = response.aiter_bytes()
            extra = UNCHECKED
        else:
            note = await self.checker.repair_note() if ask.policy == "repair" else None
            chunks = StreamGuard(self.checker, ask, note).run(sse_data(response.aiter_lines()))
            extra = {"X-Hallucheck-Checked": "true", "X-Hallucheck-Policy": ask.policy}
        admission = self.admission

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

    async def models(self, request: Request) -> Response:
        try:
            response = await self.upstream.send("GET", "/models", self.upstream.headers(request.headers))
        except UpstreamDown as exc:
            return exc.response
        return await passthrough(response)

    async def healthz(self) -> Any:
        pool = self.state.pool
        return {
            "status": "ok",
            "version": __version__,
            "method": self.checker.method,
            "policy": self.config.policy,
            "policies": list(self.config.policies),
            "requests": self.admission.active,
            "queue": {"waiting": pool.waiting, "running": pool.running, "capacity": pool.capacity},
        }

    async def refused(self, path: str) -> Response:
        return openai_error(404, f"this proxy forwards only {' and '.join(FORWARDED)}", kind="not_found")


__all__ = ["ProxyConfig", "create_proxy"]
