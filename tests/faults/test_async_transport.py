"""The OpenAI-compatible client in async code (httpx on the event loop, issue 25 item 4) against
every misbehaviour of the fault server: the same reply or the same error, word for word, as the
sync client (urllib) gives; retries and Retry-After the same; the key never leaves the base URL."""

from __future__ import annotations

import asyncio
import re

import pytest

from hallucheck.errors import BackendError
from hallucheck.llm.openai_compat import OpenAICompatLLM

from .conftest import KEY, MODES, client, elapsed

LABELS = ("Entailment", "Neutral", "Contradiction")
# failures whose last words are the HTTP library's own description of a broken connection
LIBRARY_WORDS = ("close_mid_body",)


@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv("HC_FAULT_KEY", KEY)


def outcome(result, mode):
    if not isinstance(result, Exception):
        return ("ok", getattr(result, "text", None), dict(getattr(result, "logprobs", None) or {}))
    message = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", str(result))  # two servers, two ports
    # where a refused body was cut depends on the library's chunk size, not on the client
    message = re.sub(r"more than [\d,]+ bytes\)", "more than N bytes)", message)
    if mode in LIBRARY_WORDS:  # "Connection to URL failed: <urllib's or httpx's words>"
        message = message.split(": ")[0]
    return (type(result).__name__, getattr(result, "status", None), message)


def both(fault_server, mode, call, acall):
    """The outcome of ``call`` with a sync client and of ``acall`` awaited, each on a fresh server."""
    sync_srv, async_srv = fault_server(mode), fault_server(mode)
    sync, _ = elapsed(lambda: call(client(sync_srv)))
    llm = client(async_srv)
    used = []
    llm._exchange_sync = lambda *a: used.append(a)  # the async path must never fall back to urllib
    aio, _ = elapsed(lambda: asyncio.run(acall(llm)))
    assert used == []
    assert len(sync_srv.requests) == len(async_srv.requests), mode  # the same retries
    for srv in (sync_srv, async_srv):
        assert srv.recorder.requests == []  # a redirect is never followed
        assert all(h.get("authorization") == f"Bearer {KEY}" for h in srv.headers)
    if isinstance(aio, Exception):
        assert KEY not in str(aio)
    return outcome(sync, mode), outcome(aio, mode)


@pytest.mark.parametrize("mode", ("good", *MODES))
def test_acomplete_gives_what_complete_gives(fault_server, mode):
    sync, aio = both(fault_server, mode, lambda llm: llm.complete("q"), lambda llm: llm.acomplete("q"))
    assert aio == sync


@pytest.mark.parametrize("mode", ("good", "no_label", "nan_logprobs", "str_logprobs", "500_then_200", "always_500"))
def test_ascore_labels_gives_what_score_labels_gives(fault_server, mode):
    sync, aio = both(
        fault_server,
        mode,
        lambda llm: llm.score_labels("q", LABELS),
        lambda llm: llm.ascore_labels("q", LABELS),
    )
    assert aio == sync


def test_an_unreachable_endpoint_is_the_same_error_in_async_code():
    def llm():  # nothing listens on port 9 of the loopback interface
        return OpenAICompatLLM("m", base_url="http://127.0.0.1:9/v1", api_key_env=None, max_retries=1, backoff=0.01)

    sync, _ = elapsed(lambda: llm().complete("q"))
    aio, _ = elapsed(lambda: asyncio.run(llm().acomplete("q")))
    assert type(aio) is type(sync) is BackendError
    assert str(aio).startswith("Cannot reach the LLM endpoint http://127.0.0.1:9/v1/chat/completions: ")
    assert str(sync).startswith("Cannot reach the LLM endpoint http://127.0.0.1:9/v1/chat/completions: ")
    assert "Is the server running" in str(aio)


def test_retry_pauses_leave_the_event_loop_free(fault_server):
    srv = fault_server("retry_after_429")  # the first reply asks for 0.2 s before the retry

    async def main():
        llm = client(srv, backoff=0.01)
        ticks = 0
        task = asyncio.create_task(llm.acomplete("q"))
        while not task.done():
            ticks += 1
            await asyncio.sleep(0.01)
        await llm.aclose()
        return await task, ticks

    (response, ticks), took = elapsed(lambda: asyncio.run(main()))
    assert response.text == "Entailment" and len(srv.requests) == 2 and took >= 0.2
    assert ticks >= 10  # the loop ran other work while the client waited out Retry-After
