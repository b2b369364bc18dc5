"""The fake OpenAI-compatible server (``tests/_fake_openai.py``) misbehaving on purpose (issue 11's
fault-injection suite).

Listens on 127.0.0.1 only. ``mode`` chooses the misbehaviour; ``good`` counts the replies that
carried a readable answer (status 200, valid JSON, finite log-probabilities with the labels among
them), so a test can tell whether a verdict could have been based on the judge's answer.
"""

from __future__ import annotations

import json
import socket
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from _fake_openai import FakeOpenAIServer, Reply, completion

KEY = "sk-fault-SECRET-0123456789abcdef"

# every misbehaviour; the first group never delivers a readable answer, the second does eventually
BROKEN = (
    "no_label",
    "nan_logprobs",
    "str_logprobs",
    "drip",
    "redirect",
    "huge",
    "huge_declared",
    "close_mid_body",
    "always_500",
    "echo_key",
    "not_json",
)
RECOVERABLE = ("bad_usage", "retry_after_429", "500_then_200")
MODES = BROKEN + RECOVERABLE

# a next-token distribution: the reply's token the likeliest, the alternatives together at most 1
LABEL_TOKENS = [
    ("Ent", -0.3),
    ("Neutral", -2.3),
    ("Contr", -3.0),
    ("True", -3.5),
    ("False", -4.0),
    ("C", -4.5),
    ("I", -5.0),
]


def fault_completion(text: str, *, logprobs: list[tuple[str, Any]] | None = None, usage: Any = None) -> dict[str, Any]:
    """A reply whose first token has ``logprobs`` (token, log-probability) as its top alternatives."""
    content = None
    if logprobs is not None:
        first_token, first_lp = logprobs[0]
        top = [{"token": t, "logprob": v} for t, v in logprobs]
        content = [{"token": first_token, "logprob": first_lp, "top_logprobs": top}]
    return completion(text, model="fault-model", prompt_tokens=5, completion_tokens=1, logprobs=content, usage=usage)


class FaultServer(FakeOpenAIServer):
    """The fake server answering in ``mode``; ``recorder`` is a second origin (the redirect target)
    that records what reaches it."""

    def __init__(self, mode: str = "good", *, reply_text: str = "Entailment") -> None:
        self.mode = mode
        self.reply_text = reply_text
        self.count = 0
        self.good = 0
        self.recorder = FakeOpenAIServer()
        super().__init__()

    @property
    def headers(self) -> list[dict[str, str]]:
        return [r.headers for r in self.requests]

    # -- replies -----------------------------------------------------------------------------
    def _good_body(self, body: Any, **kw: Any) -> bytes:
        wants = isinstance(body, dict) and body.get("logprobs")
        return json.dumps(fault_completion(self.reply_text, logprobs=LABEL_TOKENS if wants else None, **kw)).encode()

    def _send(self, h: BaseHTTPRequestHandler, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        self._write(h, Reply(status=status, body=data, headers=headers or {}))

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        try:
            self._misbehave(h)
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass

    def _misbehave(self, h: BaseHTTPRequestHandler) -> None:
        body = self._read(h).body
        with self.lock:
            self.count += 1
            n = self.count
        mode = self.mode
        wants = isinstance(body, dict) and body.get("logprobs")
        if (
            mode == "good"
            or mode == "bad_usage"
            or (mode == "retry_after_429" and n % 2 == 0)
            or (mode == "500_then_200" and n % 2 == 0)
        ):
            data = self._good_body(body, usage="lots" if mode == "bad_usage" else None)
            with self.lock:
                self.good += 1
            return self._send(h, 200, data)
        if mode == "retry_after_429":
            return self._send(h, 429, b'{"error": "slow down"}', {"Retry-After": "0.2"})
        if mode in ("500_then_200", "always_500"):
            return self._send(h, 500, b'{"error": "internal"}')
        if mode == "echo_key":  # a proxy that echoes the request headers in its error page
            auth = h.headers.get("Authorization", "")
            return self._send(h, 400, json.dumps({"error": f"bad request; you sent Authorization: {auth}"}).encode())
        if mode == "no_label":
            lp = [("Sure", -0.1), ("The", -2.0), ("I", -3.0)] if wants else None
            return self._send(h, 200, json.dumps(completion("Sure, I can help with that.", logprobs=lp)).encode())
        if mode in ("nan_logprobs", "str_logprobs"):
            bad: Any = float("nan") if mode == "nan_logprobs" else "abc"
            lp = [(t, bad) for t, _ in LABEL_TOKENS]
            # a text reply that names no label either: nothing readable whichever way the method asks
            return self._send(h, 200, json.dumps(completion("Sure.", logprobs=lp)).encode())
        if mode == "not_json":
            return self._send(h, 200, b"<html>gateway error</html>")
        if mode == "redirect":
            h.send_response(302)
            h.send_header("Location", f"http://127.0.0.1:{self.recorder.port}/v1/chat/completions")
            h.send_header("Content-Length", "0")
            h.send_header("Connection", "close")
            h.end_headers()
            h.close_connection = True
            return
        if mode == "drip":  # a valid reply, one byte at a time: each read succeeds, the whole never arrives in time
            data = self._good_body(body)
            h.send_response(200)
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.flush()
            for i in range(len(data)):
                if self.stopping.wait(0.05):
                    return
                h.wfile.write(data[i : i + 1])
                h.wfile.flush()
            h.close_connection = True
            return
        if mode == "huge":  # chunked, no length: 8 MB of padding before any answer
            h.send_response(200)
            h.send_header("Transfer-Encoding", "chunked")
            h.end_headers()
            chunk = b" " * 65536
            for _ in range(128):
                if self.stopping.is_set():
                    return
                h.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            h.wfile.write(b"0\r\n\r\n")
            h.close_connection = True
            return
        if mode == "huge_declared":
            h.send_response(200)
            h.send_header("Content-Length", str(300 << 20))
            h.end_headers()
            h.wfile.write(b"{" + b" " * 1000)
            h.wfile.flush()
            h.close_connection = True
            return
        if mode == "close_mid_body":
            data = self._good_body(body)
            h.send_response(200)
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data[: len(data) // 2])
            h.wfile.flush()
            h.connection.shutdown(socket.SHUT_RDWR)
            h.close_connection = True
            return
        raise AssertionError(f"unknown mode {mode}")

    def close(self) -> None:
        super().close()
        self.recorder.close()


@pytest.fixture
def fault_server():
    servers: list[FaultServer] = []

    def make(mode: str = "good", **kw: Any) -> FaultServer:
        s = FaultServer(mode, **kw)
        servers.append(s)
        return s

    yield make
    for s in servers:
        s.close()


def client(server: FaultServer, **kw: Any):
    from hallucheck.llm.openai_compat import OpenAICompatLLM

    kw.setdefault("timeout", 0.4)
    kw.setdefault("max_retries", 1)
    kw.setdefault("backoff", 0.01)
    kw.setdefault("max_response_bytes", 1 << 20)
    kw.setdefault("api_key_env", "HC_FAULT_KEY")
    return OpenAICompatLLM("fault-model", base_url=server.base_url, **kw)


def elapsed(fn: Any) -> tuple[Any, float]:
    t0 = time.monotonic()
    try:
        out = fn()
    except Exception as exc:  # noqa: BLE001 - returned for the test to inspect
        out = exc
    return out, time.monotonic() - t0
