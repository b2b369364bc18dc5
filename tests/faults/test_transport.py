"""The OpenAI-compatible client against a misbehaving server: redirects, leaked keys, slow drips,
huge bodies, Retry-After."""

from __future__ import annotations

import warnings

import pytest

from hallucheck.errors import BackendError, BackendTimeout
from hallucheck.llm.openai_compat import OpenAICompatLLM, redact_secrets
from hallucheck.llm.transport import retry_after_seconds

from .conftest import KEY, client, elapsed


@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv("HC_FAULT_KEY", KEY)


def test_cross_origin_redirect_is_not_followed_and_the_key_goes_nowhere(fault_server):
    srv = fault_server("redirect")
    err, _ = elapsed(lambda: client(srv, max_retries=0).complete("q"))
    assert isinstance(err, BackendError) and "redirect" in str(err) and err.status == 302
    assert srv.recorder.requests == []  # nothing reached the other origin, with or without the key
    assert srv.headers[0]["authorization"] == f"Bearer {KEY}" and KEY not in str(err)


def test_error_body_echoing_the_key_is_redacted(fault_server):
    srv = fault_server("echo_key")
    err, _ = elapsed(lambda: client(srv).complete("q"))
    assert isinstance(err, BackendError) and "you sent Authorization" in str(err)
    assert KEY not in str(err) and "[REDACTED]" in str(err)


def test_redact_secrets_shapes():
    text = "key sk-abcdefgh12345678 and sk-proj-ABCDEFGH_12345678 and Bearer abc.def-ghi_12345 ok sk-short"
    out = redact_secrets(text)
    assert "abcdefgh12345678" not in out and "ABCDEFGH_12345678" not in out and "abc.def-ghi_12345" not in out
    assert out.endswith("ok sk-short")


def test_key_to_a_remote_plain_http_url_warns_once(monkeypatch):
    llm = OpenAICompatLLM("m", base_url="http://192.0.2.1:9/v1", api_key_env="HC_FAULT_KEY", timeout=0.2, max_retries=0)
    with pytest.warns(UserWarning, match="unencrypted"):
        with pytest.raises(BackendError):
            llm.complete("q")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(BackendError):
            llm.complete("q")  # once per client
        for url in ("http://127.0.0.1:9/v1", "http://localhost:9/v1"):
            with pytest.raises(BackendError):
                OpenAICompatLLM("m", base_url=url, api_key_env="HC_FAULT_KEY", timeout=0.2, max_retries=0).complete("q")
    monkeypatch.delenv("HC_FAULT_KEY")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no key, nothing to warn about
        with pytest.raises(BackendError):
            OpenAICompatLLM(
                "m", base_url="http://192.0.2.1:9/v1", api_key_env="HC_FAULT_KEY", timeout=0.2, max_retries=0
            ).complete("q")


def test_a_dripping_server_hits_the_total_deadline(fault_server):
    srv = fault_server("drip")  # a byte every 0.05 s: no single read ever waits 0.4 s
    err, took = elapsed(lambda: client(srv, timeout=0.4, max_retries=0).complete("q"))
    assert isinstance(err, BackendTimeout) and "complete reply within 0.4 s" in str(err)
    assert took < 1.5


@pytest.mark.parametrize("mode", ["huge", "huge_declared"])
def test_a_huge_body_is_refused_not_buffered(fault_server, mode):
    srv = fault_server(mode)
    err, took = elapsed(lambda: client(srv, timeout=5.0, max_retries=0, max_response_bytes=1 << 20).complete("q"))
    assert isinstance(err, BackendError) and "larger than 1,048,576 bytes" in str(err) and took < 3
    assert len(srv.requests) == 1  # not retried


def test_retry_after_is_honoured(fault_server):
    srv = fault_server("retry_after_429")
    r, took = elapsed(lambda: client(srv, backoff=0.01).complete("q"))
    assert r.text == "Entailment" and len(srv.requests) == 2 and took >= 0.2


def test_retry_after_parsing():
    assert retry_after_seconds("2", 60) == 2.0 and retry_after_seconds("3600", 60) == 60
    assert retry_after_seconds(None, 60) == 0.0 and retry_after_seconds("soon", 60) == 0.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", 60) == 0.0  # in the past
    assert retry_after_seconds("nan", 60) == 0.0 and retry_after_seconds("-5", 60) == 0.0
