"""One attempt of the OpenAI-compatible client in async code, through ``httpx`` on the event loop.

The retries, the meaning of each failure and the accounting are the client's own
(:meth:`~hallucheck.llm.openai_compat.OpenAICompatLLM._post`, shared with the sync path): this
module only sends the request and turns what went wrong into a
:class:`~hallucheck.llm.transport.AttemptFailed`, as the urllib path does. The same rules hold: one
total deadline per attempt (connect to last byte), no redirects followed, a body past
``max_response_bytes`` refused unread, the API key redacted from any text an endpoint sends back,
and the client's ``max_concurrency`` slots shared with its sync callers.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, AsyncIterator

from .transport import AttemptFailed, ReplyBody, ReplyTooLarge

# ``llm`` below is the OpenAICompatLLM making the request (not imported: it imports this module)

try:
    import httpx
except ImportError:  # the async extra is not installed: the client runs urllib in the loop's executor
    httpx = None  # type: ignore[assignment]

ERROR_BODY = 500  # bytes of an error reply kept for its message, as on the sync path


def available() -> bool:
    return httpx is not None


def _for_loop(llm: Any) -> tuple[Any, asyncio.Semaphore]:
    """The client's ``httpx.AsyncClient`` for the running loop (connections stay open between
    requests) and the queue its requests on this loop wait in, first come first served."""
    loop = asyncio.get_running_loop()
    found = llm._aclients.get(loop)
    if found is None:
        limits = httpx.Limits(max_connections=llm.max_concurrency)
        found = (
            httpx.AsyncClient(timeout=llm.timeout, follow_redirects=False, limits=limits),
            asyncio.Semaphore(llm.max_concurrency),
        )
        llm._aclients[loop] = found
    return found


@contextlib.asynccontextmanager
async def _slot(llm: Any, queue: asyncio.Semaphore) -> AsyncIterator[None]:
    """One of the client's ``max_concurrency`` slots (the semaphore its threads use): this loop's
    requests take turns in ``queue`` (in order), then share the slots with the client's threads,
    waited for without blocking the loop."""
    async with queue:
        pause = 0.001
        while not llm._slots.acquire(blocking=False):
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.05)
        try:
            yield
        finally:
            llm._slots.release()


async def exchange(llm: Any, url: str, data: bytes, headers: dict[str, str], shown: str) -> bytes:
    """The reply body of one POST, or :class:`AttemptFailed`."""
    client, queue = _for_loop(llm)
    async with _slot(llm, queue):
        try:
            return await asyncio.wait_for(_fetch(llm, client, url, data, headers), llm.timeout)
        except asyncio.TimeoutError:  # the total deadline cut the exchange
            raise AttemptFailed("timeout", fired=True) from None
        except httpx.TimeoutException:
            raise AttemptFailed("timeout") from None
        except ReplyTooLarge as exc:
            raise AttemptFailed("too_large", str(exc)) from None
        except httpx.ConnectError as exc:
            raise AttemptFailed("unreachable", llm._redact(str(exc) or type(exc).__name__)) from None
        except (httpx.HTTPError, OSError, ValueError) as exc:
            # a reply cut short or not valid HTTP (a proxy, a crashed server): retried like a reset
            raise AttemptFailed("connection", f"{type(exc).__name__}: {llm._redact(str(exc))}") from None


async def _fetch(llm: Any, client: Any, url: str, data: bytes, headers: dict[str, str]) -> bytes:
    async with client.stream("POST", url, content=data, headers=headers) as resp:
        code = resp.status_code
        if 300 <= code < 400:
            raise AttemptFailed("redirect", status=code, location=resp.headers.get("location", ""))
        if not 200 <= code < 300:
            detail = await _start_of(resp)
            raise AttemptFailed("status", llm._redact(detail), status=code, retry_after=resp.headers.get("retry-after"))
        body = ReplyBody(llm.max_response_bytes, resp.headers.get("content-length"))
        async for chunk in resp.aiter_bytes():
            body.add(chunk)
        return body.data()


async def _start_of(resp: Any) -> str:
    """The first bytes of an error reply (an error body cut short is still an error: keep the status)."""
    got = b""
    try:
        async for chunk in resp.aiter_bytes():
            got += chunk
            if len(got) >= ERROR_BODY:
                break
    except Exception:
        pass
    return got[:ERROR_BODY].decode("utf-8", "replace")
