"""Any OpenAI-compatible chat-completions endpoint: vLLM, Ollama, llama.cpp server, OpenAI.

Standard library only (urllib) in sync code; in async code (``Pipeline.arun``, ``acomplete``) the
same retry loop sends each attempt through ``httpx`` on the event loop (:mod:`.http_async`,
the ``async`` extra). The API key is read from a named environment variable at
request time and never stored on the client, logged, put in a cache key, or sent anywhere
but the base URL (no redirects are followed).
"""

from __future__ import annotations

import http.client
import json
import os
import random
import socket
import threading
import urllib.error
import urllib.parse
import urllib.request
import warnings
import weakref
from typing import Any

from .. import _aio
from ..errors import BackendError, BackendTimeout, ConfigError, RateLimited
from .base import LLMClient, LLMRequest, LLMResponse
from .openai_reply import parse_logprobs, parse_usage
from .transport import (
    AttemptFailed,
    Deadline,
    ReplyBody,
    ReplyTooLarge,
    deadline_opener,
    is_loopback,
    public_url,
    read_some,
    redact_secrets,
    retry_after_seconds,
)

RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


class OpenAICompatLLM(LLMClient):
    """Chat completions at ``{base_url}/chat/completions``; plain text continuation
    (:meth:`~hallucheck.llm.base.LLMClient.complete_text`) at ``{base_url}/completions``
    (vLLM, llama.cpp's server, Ollama; OpenAI's chat models have none: HTTP 404).

    Retries timeouts, connection resets, 429 and 5xx with exponential backoff and jitter
    (``max_retries`` extra attempts), waiting at least what a ``Retry-After`` header asks (at
    most ``max_retry_after`` seconds); at most ``max_concurrency`` requests are in flight
    from this client at once, whatever the number of threads using it.

    ``timeout`` is a total deadline per attempt (connect to last byte), not per socket read: a
    server that drips a byte at a time cannot hold the client. A body larger than
    ``max_response_bytes`` is refused, not buffered. Redirects are never followed (urllib would
    resend the Authorization header to the new origin); the key is redacted from any error text
    an endpoint sends back, and a warning says when it would travel over plain http to another
    machine.
    """

    supports_logprobs = True
    supports_text_completion = True
    async_native = True  # in async code, requests go out through httpx on the event loop

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key_env: str | None = "OPENAI_API_KEY",
        timeout: float = 60.0,
        max_retries: int = 3,
        backoff: float = 1.0,
        max_concurrency: int = 4,
        cache: Any = None,
        extra_body: dict[str, Any] | None = None,
        max_response_bytes: int = 32 << 20,
        max_retry_after: float = 60.0,
    ) -> None:
        super().__init__(cache=cache)
        if not model or not isinstance(model, str):
            raise ConfigError(
                "OpenAICompatLLM needs a model name, e.g. OpenAICompatLLM('qwen2.5:7b-instruct', base_url=...)."
            )
        if not base_url.startswith(("http://", "https://")):
            shown = base_url if "@" not in base_url else "a value with '@' in it (not shown)"
            raise ConfigError(f"base_url must start with http:// or https://; got {shown!r}.")
        if "@" in urllib.parse.urlsplit(base_url).netloc:  # user:password@ would travel as a Basic header
            raise ConfigError(
                f"base_url must not hold a user name or password (user:password@); got {public_url(base_url)!r} "
                "with them left out. Put the key in an environment variable and name it with api_key_env "
                "(CLI: --api-key-env): it is sent as a Bearer header."
            )
        if max_concurrency < 1 or max_retries < 0 or timeout <= 0:
            raise ConfigError("max_concurrency must be >= 1, max_retries >= 0 and timeout > 0.")
        self.model_id = model
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_concurrency = max_concurrency
        self.extra_body = dict(extra_body or {})
        self.max_response_bytes = max_response_bytes
        self.max_retry_after = max_retry_after
        self._slots = threading.BoundedSemaphore(max_concurrency)  # shared by the sync and async paths
        self._aclients: weakref.WeakKeyDictionary[Any, Any] = (
            weakref.WeakKeyDictionary()
        )  # event loop -> (httpx client, its queue)
        self._warned = False

    def describe(self) -> dict[str, Any]:
        return {"backend": "openai", "model": self.model_id, "base_url": public_url(self.base_url)}

    def cache_endpoint(self) -> str:
        return public_url(self.base_url)

    # -- request building ---------------------------------------------------------------------
    def _body(self, request: LLMRequest) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model_id}
        if request.raw_text:  # /completions: the prompt is continued as is
            body["prompt"] = request.messages[0].content
        else:
            body["messages"] = [{"role": m.role, "content": m.content} for m in request.messages]
        body["max_tokens"] = request.max_tokens
        body["temperature"] = request.temperature
        if request.seed is not None:
            body["seed"] = request.seed
        if request.stop:
            body["stop"] = list(request.stop)
        if request.logprobs is not None and request.raw_text:
            body["logprobs"] = min(int(request.logprobs), 20)  # completions: the number of alternatives
        elif request.logprobs is not None:
            body["logprobs"] = True
            if request.logprobs > 0:
                body["top_logprobs"] = min(int(request.logprobs), 20)
        if request.json_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "output", "schema": dict(request.json_schema), "strict": True},
            }
        extra = self.extra_body
        if request.raw_text:  # chat-template switches (vLLM's continue_final_message, ...) mean nothing here
            extra = {k: v for k, v in extra.items() if k not in _CHAT_ONLY}
        body.update(extra)
        return body

    def _key(self) -> str | None:
        return os.environ.get(self.api_key_env) or None if self.api_key_env else None

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        key = self._key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
            self._warn_if_exposed()
        return headers

    def _warn_if_exposed(self) -> None:
        """Warn (once per client) when the key is about to travel unencrypted off this machine."""
        if self._warned:
            return
        parts = urllib.parse.urlsplit(self.base_url)
        if parts.scheme == "https" or is_loopback(parts.hostname or ""):
            return
        self._warned = True
        warnings.warn(
            f"The API key in {self.api_key_env} is sent unencrypted to {public_url(self.base_url)} (http://, "
            "not this machine): use https:// for remote endpoints.",
            UserWarning,
            stacklevel=4,
        )

    # -- transport ----------------------------------------------------------------------------
    def _post(self, body: dict[str, Any], path: str = "chat/completions") -> dict[str, Any]:
        """The endpoint's JSON reply, after the retries; the same loop in sync and async code (in
        async code its pauses and exchanges await on the event loop: :mod:`hallucheck._aio`)."""
        url = f"{self.base_url}/{path}"
        shown = public_url(url)
        data = json.dumps(body).encode("utf-8")
        last: Exception | None = None
        wait = 0.0
        for attempt in range(self.max_retries + 1):
            if attempt:
                _aio.sleep(max(wait, self.backoff * (2 ** (attempt - 1)) * (1 + 0.25 * random.random())))
            headers = self._headers()
            try:
                payload = self._exchange(url, data, headers, shown)
            except AttemptFailed as failed:
                last, wait = self._judge(failed, url, shown, attempt)
                continue
            try:
                return json.loads(payload)
            except ValueError:
                raise BackendError(
                    f"{shown} returned a body that is not JSON: {self._redact(repr(payload[:200]))}", url=shown
                ) from None
        assert last is not None
        raise last

    def _exchange(self, url: str, data: bytes, headers: dict[str, str], shown: str) -> bytes:
        """One attempt: the reply body, or :class:`AttemptFailed` saying what went wrong. In async code
        through ``httpx`` on the event loop (without it: urllib in the loop's executor)."""
        if not _aio.inside():
            return self._exchange_sync(url, data, headers, shown)
        from . import http_async

        if not http_async.available():
            return _aio.blocking(self._exchange_sync, url, data, headers, shown)
        return _aio.wait(http_async.exchange(self, url, data, headers, shown))

    def _exchange_sync(self, url: str, data: bytes, headers: dict[str, str], shown: str) -> bytes:
        req = urllib.request.Request(url, data=data, headers=headers, method="POST")
        watch = Deadline(self.timeout)
        try:
            with self._slots:
                watch.start()
                try:
                    with deadline_opener(watch).open(req, timeout=self.timeout) as resp:
                        return self._read_body(resp, shown)
                finally:
                    watch.cancel()
        except urllib.error.HTTPError as exc:
            got = exc.headers.get if exc.headers else {}.get
            if 300 <= exc.code < 400:
                raise AttemptFailed("redirect", status=exc.code, location=got("Location", "")) from None
            detail = self._redact(read_some(exc, 500))
            raise AttemptFailed("status", detail, status=exc.code, retry_after=got("Retry-After")) from None
        except ReplyTooLarge as exc:
            raise AttemptFailed("too_large", str(exc)) from None
        except (TimeoutError, socket.timeout):
            raise AttemptFailed("timeout", fired=watch.fired) from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, (TimeoutError, socket.timeout)) or watch.fired:
                raise AttemptFailed("timeout", fired=watch.fired) from None
            raise AttemptFailed("unreachable", self._redact(str(exc.reason))) from None
        except (ConnectionError, OSError, http.client.HTTPException, ValueError) as exc:
            # HTTPException: a reply that is not valid HTTP (BadStatusLine) or was cut short
            # (IncompleteRead), e.g. a proxy or a crashed server; retried like a reset. The
            # deadline watchdog ends a read by shutting the socket: then it is a timeout.
            if watch.fired:
                raise AttemptFailed("timeout", fired=True) from None
            raise AttemptFailed("connection", f"{type(exc).__name__}: {self._redact(str(exc))}") from None

    def _judge(self, failed: AttemptFailed, url: str, shown: str, attempt: int) -> tuple[Exception, float]:
        """What a failed attempt means, whichever HTTP library saw it: the error to raise if no
        retry succeeds and the least wait before the next (Retry-After), or a final error raised."""
        code = failed.status
        if failed.kind == "redirect":
            target = public_url(urllib.parse.urljoin(url, failed.location)) if failed.location else "another URL"
            raise BackendError(
                f"{shown} redirected (HTTP {code}) to {target}; redirects are not followed, so "
                "that the API key is never sent anywhere but --base-url. Give the final URL as "
                "--base-url.",
                url=shown,
                status=code,
            ) from None
        if failed.kind == "status" and code in RETRY_STATUS:
            wait = retry_after_seconds(failed.retry_after, self.max_retry_after)
            if code == 429:
                return RateLimited(
                    f"{shown} answered 429 (rate limited) after {attempt + 1} attempts: {failed.detail}",
                    url=shown,
                    status=429,
                ), wait
            return BackendError(
                f"{shown} answered HTTP {code} after {attempt + 1} attempts: {failed.detail}", url=shown, status=code
            ), wait
        if failed.kind == "status":
            hint = ""
            if code in (401, 403):
                hint = (
                    f" Check the API key in the environment variable {self.api_key_env!r}."
                    if self.api_key_env
                    else " The endpoint wants an API key: pass api_key_env (CLI: --api-key-env)."
                )
            raise BackendError(
                f"{shown} answered HTTP {code}: {failed.detail}.{hint}", url=shown, status=code
            ) from None
        if failed.kind == "too_large":
            raise BackendError(
                f"{shown} sent a reply larger than {self.max_response_bytes:,} bytes ({failed.detail}); refused "
                "(raise max_response_bytes if this is expected).",
                url=shown,
            ) from None
        if failed.kind == "timeout":
            what = "send a complete reply" if failed.fired else "answer"
            return BackendTimeout(
                f"{shown} did not {what} within {self.timeout:g} s ({attempt + 1} attempts). "
                "Raise timeout= (CLI: --timeout) or check the server.",
                url=shown,
            ), 0.0
        if failed.kind == "unreachable":
            return BackendError(
                f"Cannot reach the LLM endpoint {shown}: {failed.detail}. Is the "
                "server running, and is --base-url right (it usually ends in /v1)?",
                url=shown,
            ), 0.0
        return BackendError(f"Connection to {shown} failed: {failed.detail}", url=shown), 0.0

    def _read_body(self, resp: Any, shown: str) -> bytes:
        """The body, at most ``max_response_bytes`` of it (a larger one is refused, not buffered)."""
        body = ReplyBody(self.max_response_bytes, resp.headers.get("Content-Length") if resp.headers else None)
        while True:
            chunk = resp.read1(1 << 16) if hasattr(resp, "read1") else resp.read(1 << 16)
            if not chunk:
                break
            body.add(chunk)
        missing = getattr(resp, "length", None)  # read1 does not check Content-Length as read() does
        if isinstance(missing, int) and missing > 0:
            raise http.client.IncompleteRead(body.data(), missing)
        return body.data()

    async def aclose(self) -> None:
        """Close the ``httpx`` connections this client keeps for the running event loop."""
        import asyncio

        found = self._aclients.pop(asyncio.get_running_loop(), None)
        if found is not None:
            await found[0].aclose()

    def _redact(self, text: str) -> str:
        """``text`` (an endpoint's words, about to be shown and stored) without the API key and
        without anything shaped like one."""
        key = self._key()
        if key and len(key) >= 4:
            text = text.replace(key, "[REDACTED]")
        return redact_secrets(text)

    def _complete(self, request: LLMRequest) -> LLMResponse:
        payload = self._post(self._body(request), "completions" if request.raw_text else "chat/completions")
        try:
            choice = payload["choices"][0]
            text = (choice["text"] if request.raw_text else choice["message"].get("content")) or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            what = "choices[0].text" if request.raw_text else "choices[0].message"
            raise BackendError(
                f"{self.base_url} returned an unexpected payload (no {what}): {self._redact(str(payload)[:300])}",
                url=self.base_url,
            ) from None
        logprobs = parse_logprobs(choice.get("logprobs"), self.base_url) if request.logprobs is not None else None
        if not isinstance(text, str):
            raise BackendError(
                f"{self.base_url} returned a message content that is not text: {str(text)[:200]}", url=self.base_url
            )
        finish = choice.get("finish_reason") if isinstance(choice, dict) else None
        model = payload.get("model")
        return LLMResponse(
            text=text,
            model=model if isinstance(model, str) and model else self.model_id,
            finish_reason=finish if isinstance(finish, str) and finish else "stop",
            usage=parse_usage(payload.get("usage")),
            logprobs=logprobs,
        )


# request fields that configure a chat template; not sent with a text-completions request
_CHAT_ONLY = frozenset(
    {
        "continue_final_message",
        "add_generation_prompt",
        "chat_template",
        "chat_template_kwargs",
        "messages",
        "tools",
        "tool_choice",
    }
)
