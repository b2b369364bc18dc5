"""What every request goes through: the Prometheus metrics and the gate middleware (bearer token,
body size limit, request metrics). The bounded work pool (503 when full) is in :mod:`.pool`."""

from __future__ import annotations

import hmac
import threading
import time
from typing import Any, Sequence

from fastapi.responses import JSONResponse, Response

from ..types import Usage
from .pool import QueueFull, WorkPool  # noqa: F401 (importable from here as before)

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
NO_AUTH_PATHS = frozenset({"/healthz", "/"})  # "/" is the static page: no data; its API calls carry the token


def error_response(
    code: int, status: str, message: str, field: str | None = None, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse({"status": status, "error": message, "field": field}, status_code=code, headers=headers)


class Metrics:
    """Prometheus text exposition, written by hand (no client library)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: dict[tuple[str, str, int], int] = {}
        self.latency: dict[str, list[float]] = {}  # route -> bucket counts (+Inf last), then sum and count
        self.llm = Usage()

    def observe(self, method: str, route: str, code: int, seconds: float) -> None:
        with self._lock:
            key = (method, route, code)
            self.requests[key] = self.requests.get(key, 0) + 1
            h = self.latency.setdefault(route, [0.0] * (len(LATENCY_BUCKETS) + 3))
            for i, b in enumerate(LATENCY_BUCKETS):
                if seconds <= b:
                    h[i] += 1
            h[len(LATENCY_BUCKETS)] += 1  # +Inf
            h[-2] += seconds
            h[-1] += 1

    def add_usage(self, usage: Usage) -> None:
        with self._lock:
            self.llm = self.llm + usage

    def render(self, gauges: dict[str, tuple[str, float | dict[str, float]]]) -> str:
        out: list[str] = []
        with self._lock:
            out += [
                "# HELP hallucheck_http_requests_total HTTP requests by method, route and status code.",
                "# TYPE hallucheck_http_requests_total counter",
            ]
            for (m, route, code), n in sorted(self.requests.items()):
                out.append(f'hallucheck_http_requests_total{{method="{m}",route="{route}",code="{code}"}} {n}')
            out += [
                "# HELP hallucheck_http_request_duration_seconds Time from request to response.",
                "# TYPE hallucheck_http_request_duration_seconds histogram",
            ]
            for route, h in sorted(self.latency.items()):
                for i, b in enumerate(LATENCY_BUCKETS):
                    out.append(
                        f'hallucheck_http_request_duration_seconds_bucket{{route="{route}",le="{b:g}"}} {h[i]:g}'
                    )
                out.append(
                    f'hallucheck_http_request_duration_seconds_bucket{{route="{route}",le="+Inf"}} {h[len(LATENCY_BUCKETS)]:g}'
                )
                out.append(f'hallucheck_http_request_duration_seconds_sum{{route="{route}"}} {h[-2]:.6f}')
                out.append(f'hallucheck_http_request_duration_seconds_count{{route="{route}"}} {h[-1]:g}')
            u = self.llm
        out += [
            "# HELP hallucheck_llm_calls_total LLM calls made (not answered from the cache).",
            "# TYPE hallucheck_llm_calls_total counter",
            f"hallucheck_llm_calls_total {u.calls}",
            "# HELP hallucheck_llm_cached_calls_total LLM calls answered from the response cache.",
            "# TYPE hallucheck_llm_cached_calls_total counter",
            f"hallucheck_llm_cached_calls_total {u.cached_calls}",
            "# HELP hallucheck_llm_tokens_total LLM tokens by kind.",
            "# TYPE hallucheck_llm_tokens_total counter",
            f'hallucheck_llm_tokens_total{{kind="prompt"}} {u.prompt_tokens}',
            f'hallucheck_llm_tokens_total{{kind="completion"}} {u.completion_tokens}',
            "# HELP hallucheck_llm_seconds_total Seconds spent in LLM calls.",
            "# TYPE hallucheck_llm_seconds_total counter",
            f"hallucheck_llm_seconds_total {u.seconds:.6f}",
        ]
        for name, (help_text, value) in gauges.items():
            out += [f"# HELP {name} {help_text}", f"# TYPE {name} gauge"]
            if isinstance(value, dict):
                for label, v in sorted(value.items()):
                    out.append(f'{name}{{state="{label}"}} {v:g}')
            else:
                out.append(f"{name} {value:g}")
        return "\n".join(out) + "\n"


ROUTES = (
    "/v1/detect",
    "/v1/mitigate",
    "/v1/check",
    "/v1/methods",
    "/healthz",
    "/metrics",
    "/",
    "/docs",
    "/openapi.json",
)


def _route_label(path: str) -> str:
    if path in ROUTES:
        return path
    if path.startswith("/v1/jobs/"):
        return "/v1/jobs/{id}"
    return "other"


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_BINDS = ("0.0.0.0", "::", "")
# on every response: no framing (clickjacking), no content sniffing, no referrer to other sites
SECURITY_HEADERS = (
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)
FRAME_CSP = b"frame-ancestors 'none'"


def host_name(value: str) -> str:
    """The name of a Host header without its port (``[::1]:8000`` -> ``::1``), lower case."""
    v = value.strip().lower()
    if v.startswith("["):
        return v[1 : v.find("]")] if "]" in v else v
    name, sep, port = v.rpartition(":")
    return name if sep and port.isdigit() and ":" not in name else v


def allowed_hosts(bound: str, configured: Sequence[str] | None) -> frozenset[str] | None:
    """The Host names the server answers (None: any). Default: the loopback names and the bound address."""
    if configured:
        names = {host_name(h) for h in configured}
        return None if "*" in names else frozenset(names)
    names = set(LOOPBACK_NAMES)
    if bound.strip("[]").lower() not in WILDCARD_BINDS:
        names.add(bound.strip("[]").lower())
    return frozenset(names)


def authorized(headers: dict[str, str], token: str | None) -> bool:
    if not token:
        return True
    auth = headers.get("authorization", "")
    given = auth[7:] if auth[:7].lower() == "bearer " else ""
    return hmac.compare_digest(given.encode(), token.encode())


class Gate:
    """ASGI middleware: Host allow-list (DNS rebinding), CORS only for configured origins, frame
    protection, bearer token, request size limit (413), request metrics."""

    def __init__(
        self,
        app: Any,
        *,
        metrics: Metrics,
        allowed_hosts: frozenset[str] | None,
        cors_origins: Sequence[str] = (),
        token: str | None = None,
        max_body_bytes: int,
    ) -> None:
        self.app = app
        self.metrics = metrics
        self.allowed_hosts = allowed_hosts
        self.cors_origins = frozenset(cors_origins)
        self.token = token
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()
        path = scope.get("path", "")
        code_box = [500]

        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        origin = headers.get("origin")
        cors = origin is not None and origin in self.cors_origins

        async def send_wrapper(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                code_box[0] = message["status"]
                out = list(message.get("headers", []))
                have = {k.lower() for k, _ in out}
                out += [(k, v) for k, v in SECURITY_HEADERS if k not in have]
                if b"content-security-policy" not in have:
                    out.append((b"content-security-policy", FRAME_CSP))
                if cors:
                    out += [(b"access-control-allow-origin", origin.encode("latin-1")), (b"vary", b"Origin")]
                message = {**message, "headers": out}
            await send(message)

        try:
            await self._handle(scope, receive, send_wrapper, path, headers, cors)
        finally:
            self.metrics.observe(scope.get("method", ""), _route_label(path), code_box[0], time.perf_counter() - t0)

    async def _reply(self, scope: dict[str, Any], receive: Any, send: Any, response: Any) -> None:
        await response(scope, receive, send)

    async def _handle(
        self, scope: dict[str, Any], receive: Any, send: Any, path: str, headers: dict[str, str], cors: bool
    ) -> None:
        hosts = self.allowed_hosts
        host = headers.get("host")
        if hosts is not None and host is not None and host_name(host) not in hosts:
            # a name this server was not told it has: a DNS-rebinding page, or a proxy that needs --allowed-host
            await self._reply(
                scope,
                receive,
                send,
                error_response(
                    400, "error", "this server does not answer to that Host name (see --allowed-host)", "host"
                ),
            )
            return
        if cors and scope.get("method") == "OPTIONS" and "access-control-request-method" in headers:
            await self._reply(
                scope,
                receive,
                send,
                Response(
                    status_code=204,
                    headers={
                        "Access-Control-Allow-Methods": "GET, POST",
                        "Access-Control-Allow-Headers": "Authorization, Content-Type",
                        "Access-Control-Max-Age": "600",
                    },
                ),
            )
            return
        if self.token and path not in NO_AUTH_PATHS:
            if not authorized(headers, self.token):
                await self._reply(
                    scope,
                    receive,
                    send,
                    error_response(
                        401,
                        "error",
                        "missing or wrong bearer token (send Authorization: Bearer <token>)",
                        "authorization",
                        headers={"WWW-Authenticate": "Bearer"},
                    ),
                )
                return
        limit = self.max_body_bytes
        too_big = error_response(413, "error", f"the request body is larger than the limit of {limit} bytes", "body")
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            await self._reply(scope, receive, send, too_big)
            return
        if scope.get("method") in ("POST", "PUT", "PATCH"):
            chunks, size, more = [], 0, True
            while more:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > limit:
                    await self._reply(scope, receive, send, too_big)
                    return
                chunks.append(chunk)
                more = message.get("more_body", False)
            body = b"".join(chunks)
            sent = [False]

            async def replay() -> dict[str, Any]:
                if not sent[0]:
                    sent[0] = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            await self.app(scope, replay, send)
            return
        await self.app(scope, receive, send)
