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

import asyncio
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from .._version import __version__
from .proxy_check import Ask, Checker, ExtensionError, ProxyConfig, read_ask
from .proxy_request import RequestError, parse_json, read_body
from .proxy_stream import StreamGuard, error_event, sse_data
from .proxy_upstream import Upstream, UpstreamDown, UpstreamTooLarge, openai_error, passthrough, too_large
from .proxy_whole import check_completion, verdict_headers
from .runtime import Gate
from .state import ServerState

FORWARDED = ("POST /v1/chat/completions", "GET /v1/models")
UNCHECKED = {"X-Hallucheck-Checked": "false"}


OFF_LOOP_BYTES = 256_000  # a body larger than this is parsed (and redacted) on a thread, not on the loop


async def _off_loop(fn: Any, raw: bytes, *args: Any) -> Any:
    if len(raw) <= OFF_LOOP_BYTES:
        return fn(raw, *args)
    return await asyncio.to_thread(fn, raw, *args)


def _is_stream(response: httpx.Response) -> bool:
    return response.status_code == 200 and "text/event-stream" in response.headers.get("content-type", "")


async def _relay_lines(lines: AsyncIterator[str]) -> AsyncIterator[bytes]:
    """An unchecked stream, line by line (redacted, bounded); a failure ends it with an error event."""
    try:
        async for line in lines:
            yield line.encode() + b"\n"
    except UpstreamTooLarge as exc:
        yield b"\n" + error_event(f"the upstream's stream was refused: {exc}")
    except httpx.HTTPError as exc:
        yield b"\n" + error_event(f"the upstream failed mid-stream ({type(exc).__name__})")


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
            body = await _off_loop(read_body, await request.body())
            ask = read_ask(body, self.config)
        except RequestError as exc:
            return openai_error(400, str(exc), exc.field)
        except ExtensionError as exc:
            return openai_error(422, str(exc), exc.field)
        if not self.admission.enter():
            return openai_error(
                503, "the proxy is busy (too many requests at once); retry later", kind="server_error", Retry_After="1"
            )
        handed = False
        try:
            headers = self.upstream.headers(request.headers)
            response = await self.upstream.send("POST", "/chat/completions", headers, body)
            if body.get("stream") is True and _is_stream(response):
                reply = await self.streamed(response, ask)
                handed = isinstance(reply, StreamingResponse)  # it leaves when the stream ends
                return reply
            return await self.whole(response, ask)  # a JSON answer to a streamed request is checked too
        except UpstreamDown as exc:
            return exc.response
        finally:
            if not handed:
                self.admission.leave()

    async def whole(self, response: httpx.Response, ask: Ask) -> Response:
        """A completion in one piece: every text of it checked (:mod:`.proxy_whole`), the policy
        applied. What cannot be read as a completion is refused (502) under the policies that
        release only checked text, passed on marked unchecked under ``annotate``."""
        upstream = self.upstream
        if ask.reference is None or not 200 <= response.status_code < 300:
            return await passthrough(upstream, response, **(UNCHECKED if ask.reference is None else {}))
        try:
            raw = await upstream.read(response)
        except UpstreamTooLarge as exc:
            return too_large(exc)
        except httpx.HTTPError as exc:
            return openai_error(
                502, f"the upstream failed while answering ({type(exc).__name__})", kind="upstream_error"
            )
        try:
            data: Any = await _off_loop(parse_json, raw, "the upstream's answer")
        except ValueError as exc:
            data, why = None, str(exc)
        body, obj = data, None
        if data is not None:
            body, obj, checked = await check_completion(self.checker, data, ask)
        if obj is None:
            if ask.policy != "annotate":  # fail closed: nothing unchecked is released
                why = "the upstream's answer is not a chat completion" if data is not None else why
                return openai_error(502, f"{why}; it could not be checked", kind="upstream_error", **UNCHECKED)
            return Response(raw, status_code=response.status_code, headers=upstream.headers_back(response, **UNCHECKED))
        body["hallucheck"] = obj
        out = upstream.headers_back(response, **verdict_headers(obj, ask.policy, checked))
        out.pop("content-type", None), out.pop("Content-Type", None)
        return JSONResponse(body, status_code=response.status_code, headers=out)

    async def streamed(self, response: httpx.Response, ask: Ask) -> Response:
        """A streamed completion relayed event by event, through the :class:`StreamGuard` when checked."""
        lines = self.upstream.lines(response)
        if ask.reference is None:
            chunks: Any = _relay_lines(lines)
            extra = UNCHECKED
        else:
            note = await self.checker.repair_note() if ask.policy in ("repair", "repair_or_block") else None
            chunks = StreamGuard(self.checker, ask, note).run(sse_data(lines))
            extra = {"X-Hallucheck-Checked": "true", "X-Hallucheck-Policy": ask.policy}
        admission = self.admission

        async def relay() -> Any:
            try:
                async for piece in chunks:
                    yield piece
            finally:
                await response.aclose()
                admission.leave()

        out = self.upstream.headers_back(response, **extra)
        out["Cache-Control"] = "no-cache"
        return StreamingResponse(relay(), status_code=200, headers=out, media_type="text/event-stream")

    async def models(self, request: Request) -> Response:
        try:
            response = await self.upstream.send("GET", "/models", self.upstream.headers(request.headers))
        except UpstreamDown as exc:
            return exc.response
        return await passthrough(self.upstream, response)

    async def healthz(self) -> Any:
        pool = self.state.pool
        return {
            "status": "ok",
            "version": __version__,
            "method": self.checker.method,
            "policy": self.config.policy,
            "policies": list(self.config.policies),
            "requests": self.admission.active,
            "queue": {
                "waiting": pool.waiting,
                "running": pool.running,
                "capacity": pool.capacity,
                "abandoned": pool.abandoned,
                "checks_waiting": self.checker.waiting,
            },
        }

    async def refused(self, path: str) -> Response:
        return openai_error(404, f"this proxy forwards only {' and '.join(FORWARDED)}", kind="not_found")


__all__ = ["ProxyConfig", "create_proxy"]
