"""HTTP plumbing of the OpenAI-compatible client: secrets kept out of messages, a deadline that
covers the whole exchange, no redirects, Retry-After, and the URL that may be shown."""

from __future__ import annotations

import datetime
import email.utils
import http.client
import ipaddress
import math
import re
import socket
import threading
import urllib.error
import urllib.parse
import urllib.request

_SECRET = re.compile(
    r"(?i)\b((?:sk|pk|rk|ak)-(?:proj-|ant-|live-|test-)?)[A-Za-z0-9_\-]{8,}"
    r"|(?i:bearer)\s+[A-Za-z0-9._~+/=\-]{8,}"
)


def redact_secrets(text: str) -> str:
    """``text`` with API-key-like tokens (``sk-...``, ``Bearer ...``) replaced by a marker."""
    return _SECRET.sub(lambda m: (m.group(1) or "Bearer ") + "[REDACTED]", text)


def is_loopback(host: str) -> bool:
    if host.lower() in ("localhost", "localhost.localdomain") or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def read_some(exc: urllib.error.HTTPError, limit: int) -> str:
    try:
        return exc.read(limit).decode("utf-8", "replace")
    except Exception:  # an error body cut short is still an error: keep the status
        return ""


def retry_after_seconds(value: str | None, cap: float) -> float:
    """Seconds a Retry-After header asks for (delta-seconds or an HTTP date), at most ``cap``."""
    if not value:
        return 0.0
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return 0.0
        if when is None:
            return 0.0
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.timezone.utc)
        seconds = (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
    if not math.isfinite(seconds):
        return 0.0
    return min(max(seconds, 0.0), cap)


class ReplyTooLarge(Exception):
    pass


class ReplyBody:
    """A reply body read in chunks, refused (:class:`ReplyTooLarge`) past ``limit`` bytes, declared or read."""

    def __init__(self, limit: int, declared: str | None) -> None:
        if declared and declared.strip().isdigit() and int(declared) > limit:
            raise ReplyTooLarge(f"Content-Length {int(declared):,}")
        self.limit = limit
        self.size = 0
        self.chunks: list[bytes] = []

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self.size > self.limit:
            raise ReplyTooLarge(f"more than {self.size:,} bytes")
        self.chunks.append(chunk)

    def data(self) -> bytes:
        return b"".join(self.chunks)


class AttemptFailed(Exception):
    """One failed attempt, in words that do not depend on the HTTP library that saw it (urllib in
    sync code, httpx in async code). ``kind``: ``status`` (an HTTP error: ``status``, ``detail``
    = the start of its body, redacted, ``retry_after``), ``redirect`` (``location``), ``too_large``,
    ``timeout`` (``fired``: the total deadline cut the exchange), ``unreachable``, ``connection``."""

    def __init__(
        self,
        kind: str,
        detail: str = "",
        *,
        status: int | None = None,
        location: str = "",
        retry_after: str | None = None,
        fired: bool = False,
    ) -> None:
        super().__init__(kind, detail)
        self.kind = kind
        self.detail = detail
        self.status = status
        self.location = location
        self.retry_after = retry_after
        self.fired = fired


class Deadline:
    """A total deadline for one request: at expiry, the connection's socket is shut down, which
    ends a blocked connect or read at once (a per-read timeout never fires on a server that
    drips a byte at a time)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.fired = False
        self._socks: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def start(self) -> None:
        self._timer = threading.Timer(self.seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def attach(self, sock: socket.socket | None) -> None:
        if sock is None:
            return
        with self._lock:
            self._socks.append(sock)
            fired = self.fired
        if fired:
            _shut(sock)

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            socks = list(self._socks)
        for sock in socks:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Never follow a redirect: urllib would resend the Authorization header to wherever it points
    (another origin included). The 3xx reply surfaces as an HTTPError instead."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


def deadline_opener(watch: Deadline) -> urllib.request.OpenerDirector:
    class Conn(http.client.HTTPConnection):
        def connect(self) -> None:
            super().connect()
            watch.attach(self.sock)

    class SConn(http.client.HTTPSConnection):
        def connect(self) -> None:
            super().connect()
            watch.attach(self.sock)

    class Handler(urllib.request.HTTPHandler):
        def http_open(self, req):  # type: ignore[no-untyped-def]
            return self.do_open(Conn, req)

    class SHandler(urllib.request.HTTPSHandler):
        def https_open(self, req):  # type: ignore[no-untyped-def]
            return self.do_open(SConn, req, context=self._context)

    return urllib.request.build_opener(_NoRedirect, Handler, SHandler)


def public_url(url: str) -> str:
    """``url`` without user:password@ and without a query or fragment (where keys sometimes ride),
    host in lower case: what may be shown, stored in a manifest or put in a cache key."""
    parts = urllib.parse.urlsplit(url)
    host = (parts.hostname or "").lower()
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urllib.parse.urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), "", ""))
