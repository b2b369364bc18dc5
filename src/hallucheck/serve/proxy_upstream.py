"""The one upstream of ``hallucheck proxy``: its fixed URL, the headers sent to it and passed back,
and the responses the proxy gives when it cannot be reached.

The URL is the operator's; a request chooses only the path among the two forwarded ones. No
redirect is followed, no proxy or ``.netrc`` from the environment is read, and no error message
names the URL or holds a key.
"""

from __future__ import annotations

import asyncio
from typing import Any, Mapping

import httpx
from fastapi.responses import JSONResponse, Response

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


class Upstream:
    """Requests to the operator's upstream through one ``httpx.AsyncClient`` per event loop."""

    def __init__(self, config: ProxyConfig) -> None:
        self.base = config.upstream
        self.key = config.upstream_key
        self.timeout = httpx.Timeout(config.upstream_timeout, connect=min(10.0, config.upstream_timeout))
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


def passed_headers(response: httpx.Response, **extra: str) -> dict[str, str]:
    """The upstream's response headers for the client (no hop-by-hop ones), plus ``extra``."""
    out = {k: v for k, v in response.headers.items() if k.lower() not in HOP_BY_HOP}
    out.update({k.replace("_", "-"): v for k, v in extra.items()})
    return out


async def passthrough(response: httpx.Response, **extra: str) -> Response:
    """The upstream's response as it is (status, body, content type), read in full."""
    try:
        data = await response.aread()
    except httpx.HTTPError as exc:
        return openai_error(502, f"the upstream failed while answering ({type(exc).__name__})", kind="upstream_error")
    finally:
        await response.aclose()
    return Response(data, status_code=response.status_code, headers=passed_headers(response, **extra))
