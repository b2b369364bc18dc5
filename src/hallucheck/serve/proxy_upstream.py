"""The one upstream of ``hallucheck proxy``: its fixed URL, the headers sent to it and passed back,
and the responses the proxy gives when it cannot be reached.

The URL is the operator's; a request chooses only the path among the two forwarded ones. No
redirect is followed, no proxy or ``.netrc`` from the environment is read, and no error message
names the URL or holds a key. Nothing the upstream sends back holds the operator's key either:
every body, server-sent line and header it forwards goes through :meth:`Upstream.redact` (the
key, and anything shaped like one, as the LLM client redacts an endpoint's words); its
``X-Hallucheck-*`` headers are dropped (the proxy's own say what it checked); and its bodies are
read only up to ``max_upstream_bytes`` (a server-sent line up to ``max_line_bytes``).
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Mapping

import httpx
from fastapi.responses import JSONResponse, Response

from ..llm.transport import redact_secrets
from .proxy_check import ProxyConfig

# not forwarded either way: hop-by-hop headers, and what the proxy sets itself
HOP_BY_HOP = frozenset(
    "connection keep-alive proxy-authenticate proxy-authorization te trailer trailers transfer-encoding upgrade "
    "host content-length content-encoding accept-encoding cookie set-cookie".split()
)


def openai_error(
    status: int, message: str, param: str | None = None, kind: str = "invalid_request_error", **headers: str
) -> JSONResponse:
    """An error in the shape OpenAI clients read (``{"error": {"message", "type", "param", "code"}}``)."""
    body = {"error": {"message": message, "type": kind, "param": param, "code": None}}
    return JSONResponse(body, status_code=status, headers={k.replace("_", "-"): v for k, v in headers.items()})


class UpstreamDown(Exception):
    """The upstream could not be reached or did not answer in time: the response to send."""

    def __init__(self, response: Response) -> None:
        super().__init__("upstream unavailable")
        self.response = response


class UpstreamTooLarge(Exception):
    """The upstream sent more than the proxy reads (a body, or one server-sent line)."""


def too_large(exc: UpstreamTooLarge) -> JSONResponse:
    return openai_error(502, f"the upstream's answer was refused: {exc}", kind="upstream_error")


class Upstream:
    """Requests to the operator's upstream through one ``httpx.AsyncClient`` per event loop."""

    def __init__(self, config: ProxyConfig) -> None:
        self.base = config.upstream
        self.key = config.upstream_key
        self.timeout = httpx.Timeout(config.upstream_timeout, connect=min(10.0, config.upstream_timeout))
        self.max_bytes = config.max_upstream_bytes
        self.max_line = config.max_line_bytes
        self._client: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = httpx.AsyncClient(timeout=self.timeout, follow_redirects=False, trust_env=False)
            self._loop = loop
        return self._client

    async def close(self) -> None:
        if self._client is not None and self._loop is asyncio.get_running_loop():
            await self._client.aclose()
        self._client = None

    def redact(self, text: str) -> str:
        """``text`` without the operator's key (the value the proxy set in Authorization) and
        without anything shaped like a key (:func:`hallucheck.llm.transport.redact_secrets`)."""
        if self.key and len(self.key) >= 4:
            text = text.replace(self.key, "[REDACTED]")
        return redact_secrets(text)

    def redact_bytes(self, data: bytes) -> bytes:
        return self.redact(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")

    def headers_back(self, response: httpx.Response, **extra: str) -> dict[str, str]:
        """The upstream's response headers for the client: no hop-by-hop ones, none of its
        ``X-Hallucheck-*`` (one value per verdict header: the proxy's), values redacted; plus ``extra``."""
        out = {
            k: self.redact(v)
            for k, v in response.headers.items()
            if k.lower() not in HOP_BY_HOP and not k.lower().startswith("x-hallucheck")
        }
        out.update({k.replace("_", "-"): v for k, v in extra.items()})
        return out

    async def read(self, response: httpx.Response) -> bytes:
        """The whole body, redacted, at most ``max_upstream_bytes`` (else :class:`UpstreamTooLarge`);
        the response is closed."""
        try:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > self.max_bytes:
                raise UpstreamTooLarge(f"its body of {int(declared):,} bytes is over {self.max_bytes:,}")
            data = bytearray()
            async for chunk in response.aiter_bytes():
                data += chunk
                if len(data) > self.max_bytes:
                    raise UpstreamTooLarge(f"its body is over {self.max_bytes:,} bytes")
        finally:
            await response.aclose()
        if len(data) > 256_000:  # a large body is redacted on a thread, not on the event loop
            return await asyncio.to_thread(self.redact_bytes, bytes(data))
        return self.redact_bytes(bytes(data))

    async def lines(self, response: httpx.Response) -> AsyncIterator[str]:
        """The body's lines (without their ends), redacted: none longer than ``max_line_bytes``,
        all together at most ``max_upstream_bytes`` (else :class:`UpstreamTooLarge`)."""
        buf, total = bytearray(), 0
        async for chunk in response.aiter_bytes():
            total += len(chunk)
            if total > self.max_bytes:
                raise UpstreamTooLarge(f"the stream is over {self.max_bytes:,} bytes")
            buf += chunk
            start = 0
            while (end := buf.find(b"\n", start)) >= 0:
                if end - start > self.max_line:
                    raise UpstreamTooLarge(f"a line of the stream is over {self.max_line:,} bytes")
                yield self.redact(buf[start:end].rstrip(b"\r").decode("utf-8", "replace"))
                start = end + 1
            del buf[:start]
            if len(buf) > self.max_line:
                raise UpstreamTooLarge(f"a line of the stream is over {self.max_line:,} bytes")
        if buf:
            yield self.redact(buf.rstrip(b"\r").decode("utf-8", "replace"))

    def url(self, path: str) -> str:
        return self.base + path

    def headers(self, incoming: Mapping[str, str]) -> dict[str, str]:
        """The client's headers for the upstream: all but hop-by-hop ones and the proxy's own; the
        client's Authorization unchanged, unless the operator set the upstream key (then that one)."""
        out = {
            k: v
            for k, v in incoming.items()
            if k.lower() not in HOP_BY_HOP and not k.lower().startswith("x-hallucheck")
        }
        if self.key is not None:
            out = {k: v for k, v in out.items() if k.lower() != "authorization"}
            out["Authorization"] = f"Bearer {self.key}"
        out["Accept-Encoding"] = "identity"
        return out

    async def send(self, method: str, path: str, headers: dict[str, str], body: Any = None) -> httpx.Response:
        """The upstream's response, its body not read yet (the caller reads or streams it, then
        closes it). Raises :class:`UpstreamDown` with the response to give instead."""
        client = self.client()
        request = client.build_request(method, self.url(path), headers=headers, json=body)
        try:
            return await client.send(request, stream=True)
        except httpx.TimeoutException as exc:
            raise UpstreamDown(
                openai_error(504, f"the upstream did not answer in time ({type(exc).__name__})", kind="upstream_error")
            ) from None
        except httpx.HTTPError as exc:
            raise UpstreamDown(
                openai_error(502, f"the upstream could not be reached ({type(exc).__name__})", kind="upstream_error")
            ) from None


async def passthrough(upstream: Upstream, response: httpx.Response, **extra: str) -> Response:
    """The upstream's response as it is (status, body, content type), read in full, redacted."""
    try:
        data = await upstream.read(response)
    except UpstreamTooLarge as exc:
        return too_large(exc)
    except httpx.HTTPError as exc:
        return openai_error(502, f"the upstream failed while answering ({type(exc).__name__})", kind="upstream_error")
    return Response(data, status_code=response.status_code, headers=upstream.headers_back(response, **extra))
