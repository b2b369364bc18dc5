"""The one fake OpenAI-compatible server of the tests (``tests/llm``, ``tests/faults``, ...).

It listens on 127.0.0.1 on a free port, runs in a daemon thread and is shut down by ``close()``.
Replies are scripted (:meth:`FakeOpenAIServer.script`, ``default``); a subclass may answer by
overriding :meth:`FakeOpenAIServer._handle` (the fault-injection server does). Nothing here
touches the network beyond the loopback interface.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Reply:
    """What the fake server answers to one request.

    ``body`` may be a dict/list (sent as JSON), ``bytes``/``str`` (sent as is);
    ``delay`` seconds are waited before answering (interrupted at teardown);
    ``raw`` bytes are written to the socket without any HTTP framing;
    ``chunks`` (e.g. from :func:`sse`) are written one at a time, ``chunk_delay`` seconds apart,
    as a streamed body (no Content-Length; the connection closes after the last);
    ``cut`` with ``chunks``: the connection drops after them, mid-body (an upstream that fails).
    """

    status: int = 200
    body: Any = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    chunks: list[bytes] | None = None
    chunk_delay: float = 0.0
    cut: bool = False


def completion(
    text: str = "ok",
    *,
    prompt_tokens: int = 7,
    completion_tokens: int = 3,
    model: str = "served-model",
    logprobs: list[dict[str, Any]] | None = None,
    finish_reason: str = "stop",
    usage: Any = None,
) -> dict[str, Any]:
    """A chat-completions payload as an OpenAI-compatible server returns it (``usage``: sent
    instead of the token counts, e.g. a malformed one)."""
    choice: dict[str, Any] = {
        "index": 0,
        "message": {"role": "assistant", "content": text},
        "finish_reason": finish_reason,
    }
    if logprobs is not None:
        choice["logprobs"] = {"content": logprobs}
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": model,
        "choices": [choice],
        "usage": usage
        if usage is not None
        else {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def stream_chunks(
    text: str, *, model: str = "served-model", finish_reason: str = "stop", usage: bool = False
) -> list[dict[str, Any]]:
    """The chunks an OpenAI-compatible server streams for ``text``, word by word: a role chunk,
    one content chunk per word (with its leading space), a finish chunk, and a usage chunk if asked."""
    head = {"id": "chatcmpl-stream", "object": "chat.completion.chunk", "created": 1700000000, "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

    words = [w for w in re.split(r"(?<=\S)(?=\s)", text) if w]
    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"content": w}) for w in words]
    out.append(chunk({}, finish_reason))
    if usage:
        out.append({**head, "choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": len(words)}})
    return out


def sse(chunks: list[Any], *, done: bool = True) -> list[bytes]:
    """Server-sent events of ``chunks`` (dicts sent as JSON), ending with ``data: [DONE]``."""
    out = [f"data: {json.dumps(c) if not isinstance(c, str) else c}\n\n".encode() for c in chunks]
    return out + ([b"data: [DONE]\n\n"] if done else [])


class _Listener(ThreadingHTTPServer):
    # connections that may wait to be accepted: socketserver's 5 would make the kernel drop the
    # sixth of many simultaneous connects, which the client then retries a second later
    request_queue_size = 64


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class FakeOpenAIServer:
    """A chat-completions server whose answers the test scripts.

    ``script(*replies)`` queues replies consumed in order; once the queue is empty the
    ``default`` callable answers (by default: ``completion("ok")``). Every request is kept in
    ``requests``; ``max_in_flight`` is the largest number of requests being handled at once.
    """

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.queue: list[Reply | Callable[[Recorded], Reply]] = []
        self.default: Callable[[Recorded], Reply] = lambda rec: Reply(body=completion("ok"))
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:
                server._handle(self)

            def do_GET(self) -> None:
                server._handle(self)

        self.httpd = _Listener(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    # -- scripting -------------------------------------------------------------------------
    def script(self, *replies: Reply | Callable[[Recorded], Reply]) -> "FakeOpenAIServer":
        with self.lock:
            self.queue.extend(replies)
        return self

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    @property
    def bodies(self) -> list[Any]:
        return [r.body for r in self.requests]

    # -- serving ---------------------------------------------------------------------------
    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        rec = self._read(h)
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            item = self.queue.pop(0) if self.queue else self.default
        try:
            reply = item(rec) if callable(item) else item
            if reply.delay:
                self.stopping.wait(reply.delay)
        finally:
            with self.lock:
                self.in_flight -= 1
        if self.stopping.is_set():
            return
        try:
            self._write(h, reply)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
            pass

    def _read(self, h: BaseHTTPRequestHandler) -> Recorded:
        """The request, recorded in ``requests``."""
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        rec = Recorded(h.command, h.path, {k.lower(): v for k, v in h.headers.items()}, body)
        with self.lock:
            self.requests.append(rec)
        return rec

    def _write(self, h: BaseHTTPRequestHandler, reply: Reply) -> None:
        if reply.chunks is not None:
            self._write_chunks(h, reply)
            return
        if reply.raw is not None:
            h.wfile.write(reply.raw)
            h.wfile.flush()
            h.close_connection = True
            return
        data = reply.body
        if isinstance(data, (dict, list)):
            data = json.dumps(data).encode()
        elif isinstance(data, str):
            data = data.encode()
        elif data is None:
            data = b""
        h.send_response(reply.status)
        h.send_header("Content-Type", reply.headers.get("Content-Type", "application/json"))
        for k, v in reply.headers.items():
            if k != "Content-Type":
                h.send_header(k, v)
        h.send_header("Content-Length", str(len(data)))
        h.send_header("Connection", "close")
        h.end_headers()
        h.wfile.write(data)
        h.wfile.flush()
        h.close_connection = True

    def _write_chunks(self, h: BaseHTTPRequestHandler, reply: Reply) -> None:
        h.send_response(reply.status)
        h.send_header("Content-Type", reply.headers.get("Content-Type", "text/event-stream"))
        for k, v in reply.headers.items():
            if k != "Content-Type":
                h.send_header(k, v)
        h.send_header("Transfer-Encoding", "chunked")
        h.send_header("Connection", "close")
        h.end_headers()
        for i, data in enumerate(reply.chunks or ()):
            if i and reply.chunk_delay and self.stopping.wait(reply.chunk_delay):
                return
            h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            h.wfile.flush()
        if not reply.cut:
            h.wfile.write(b"0\r\n\r\n")
        h.wfile.flush()
        h.close_connection = True

    def close(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)
