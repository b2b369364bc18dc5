"""A counting proxy in front of an OpenAI-compatible server (llama.cpp's ``llama_cpp.server``).

Every peer sends its LLM requests here instead of to the server, so all peers are counted the same
way: the proxy forwards each request unchanged, reads ``usage.prompt_tokens`` and
``usage.completion_tokens`` from each JSON answer, and adds them (and one call per request that
reached the model) to running totals. ``GET /_usage`` returns the totals; a runner reads them before
and after each example and records the difference. Streaming answers are passed through and
counted as calls; their tokens are read from a final ``usage`` chunk when the server sends one.

Standard library only, so it runs under any of the peers' virtualenvs or the system Python:

    python benchmarks/peers/proxy.py --port 8432 --upstream http://127.0.0.1:8431
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection"}


class Totals:
    """Running sums of calls and tokens, safe across the server's threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.errors = 0

    def add(self, usage: dict | None, error: bool = False) -> None:
        with self._lock:
            if error:
                self.errors += 1
                return
            self.calls += 1
            if usage:
                self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
                self.completion_tokens += int(usage.get("completion_tokens") or 0)

    def snapshot(self) -> dict:
        with self._lock:
            return {
                "calls": self.calls,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "errors": self.errors,
            }


def usage_of(body: bytes, content_type: str) -> tuple[bool, dict | None]:
    """(is a model answer, its usage) for one response body: a JSON completion, or an SSE stream."""
    if "text/event-stream" in content_type:
        usage = None
        for line in body.decode("utf-8", "replace").splitlines():
            if line.startswith("data:") and line[5:].strip() not in ("", "[DONE]"):
                try:
                    chunk = json.loads(line[5:])
                except ValueError:
                    continue
                if isinstance(chunk, dict) and chunk.get("usage"):
                    usage = chunk["usage"]
        return True, usage
    try:
        payload = json.loads(body)
    except ValueError:
        return False, None
    if not isinstance(payload, dict) or "choices" not in payload:
        return False, None
    return True, payload.get("usage")


def make_handler(upstream: str, totals: Totals, timeout: float) -> type[BaseHTTPRequestHandler]:
    target = urllib.parse.urlsplit(upstream)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt: str, *args) -> None:  # quiet: one line per request is noise here
            pass

        def _reply(self, status: int, body: bytes, content_type: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _forward(self, method: str) -> None:
            if self.path.rstrip("/") == "/_usage":
                self._reply(200, json.dumps(totals.snapshot()).encode())
                return
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_HEADERS | {"host"}}
            conn = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=timeout)
            try:
                conn.request(method, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
            except OSError as exc:
                totals.add(None, error=True)
                self._reply(502, json.dumps({"error": f"upstream: {exc}"}).encode())
                return
            finally:
                conn.close()
            content_type = resp.getheader("Content-Type") or ""
            if method == "POST" and resp.status == 200:
                answered, usage = usage_of(data, content_type)
                if answered:
                    totals.add(usage)
            elif method == "POST":
                totals.add(None, error=True)
            self.send_response(resp.status)
            for k, v in resp.getheaders():
                if k.lower() not in _HOP_HEADERS | {"content-length"}:
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            self._forward("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._forward("POST")

    return Handler


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8432)
    ap.add_argument("--upstream", default="http://127.0.0.1:8431", help="the OpenAI-compatible server")
    ap.add_argument("--timeout", type=float, default=10800.0, help="seconds to wait for one upstream answer")
    args = ap.parse_args(argv)
    totals = Totals()
    server = ThreadingHTTPServer((args.host, args.port), make_handler(args.upstream, totals, args.timeout))
    print(f"counting proxy on http://{args.host}:{args.port} -> {args.upstream}", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
