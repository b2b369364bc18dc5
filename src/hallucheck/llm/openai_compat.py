"""Any OpenAI-compatible chat-completions endpoint: vLLM, Ollama, llama.cpp server, OpenAI.

Standard library only (urllib). The API key is read from a named environment variable at
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
import time
import urllib.error
import urllib.parse
import urllib.request
import warnings
from typing import Any

from ..errors import BackendError, BackendTimeout, ConfigError, RateLimited
from .base import LLMClient, LLMRequest, LLMResponse
from .openai_reply import _count, _logprob, _parse_legacy_logprobs, _parse_logprobs, _parse_usage  # noqa: F401
from .transport import (  # noqa: F401 (re-exported)
    _SECRET,
    _Deadline,
    _is_loopback,
    _NoRedirect,
    _opener,
    _public_url,
    _read_some,
    _retry_after,
    _shut,
    _TooLarge,
    redact_secrets,
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
            raise ConfigError(f"base_url must start with http:// or https://; got {base_url!r}.")
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
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self._warned = False

    def describe(self) -> dict[str, Any]:
        return {"backend": "openai", "model": self.model_id, "base_url": _public_url(self.base_url)}

    def cache_endpoint(self) -> str:
        return _public_url(self.base_url)

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
        if parts.scheme == "https" or _is_loopback(parts.hostname or ""):
            return
        self._warned = True
        warnings.warn(
            f"The API key in {self.api_key_env} is sent unencrypted to {_public_url(self.base_url)} (http://, "
            "not this machine): use https:// for remote endpoints.",
            UserWarning,
            stacklevel=4,
        )

    # -- transport ----------------------------------------------------------------------------
    def _post(self, body: dict[str, Any], path: str = "chat/completions") -> dict[str, Any]:
        url = f"{self.base_url}/{path}"
        shown = _public_url(url)
        data = json.dumps(body).encode("utf-8")
        last: Exception | None = None
        wait = 0.0
        for attempt in range(self.max_retries + 1):
            if attempt:
                time.sleep(max(wait, self.backoff * (2 ** (attempt - 1)) * (1 + 0.25 * random.random())))
            wait = 0.0
            req = urllib.request.Request(url, data=data, headers=self._headers(), method="POST")
            watch = _Deadline(self.timeout)
            try:
                with self._slots:
                    watch.start()
                    try:
                        with _opener(watch).open(req, timeout=self.timeout) as resp:
                            payload = self._read_body(resp, shown)
                    finally:
                        watch.cancel()
            except urllib.error.HTTPError as exc:
                if 300 <= exc.code < 400:
                    where = exc.headers.get("Location", "") if exc.headers else ""
                    target = _public_url(urllib.parse.urljoin(url, where)) if where else "another URL"
                    raise BackendError(
                        f"{shown} redirected (HTTP {exc.code}) to {target}; redirects are not followed, so "
                        "that the API key is never sent anywhere but --base-url. Give the final URL as "
                        "--base-url.",
                        url=shown,
                        status=exc.code,
                    ) from None
                detail = self._redact(_read_some(exc, 500))
                if exc.code in RETRY_STATUS:
                    wait = _retry_after(exc.headers.get("Retry-After") if exc.headers else None, self.max_retry_after)
                    last = (
                        RateLimited(
                            f"{shown} answered 429 (rate limited) after {attempt + 1} attempts: {detail}",
                            url=shown,
                            status=429,
                        )
                        if exc.code == 429
                        else BackendError(
                            f"{shown} answered HTTP {exc.code} after {attempt + 1} attempts: {detail}",
                            url=shown,
                            status=exc.code,
                        )
                    )
                    continue
                hint = ""
                if exc.code in (401, 403):
                    hint = (
                        f" Check the API key in the environment variable {self.api_key_env!r}."
                        if self.api_key_env
                        else " The endpoint wants an API key: pass api_key_env (CLI: --api-key-env)."
                    )
                raise BackendError(
                    f"{shown} answered HTTP {exc.code}: {detail}.{hint}", url=shown, status=exc.code
                ) from None
            except _TooLarge as exc:
                raise BackendError(
                    f"{shown} sent a reply larger than {self.max_response_bytes:,} bytes ({exc}); refused "
                    "(raise max_response_bytes if this is expected).",
                    url=shown,
                ) from None
            except (TimeoutError, socket.timeout):
                last = self._timeout_error(shown, attempt, watch)
                continue
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, (TimeoutError, socket.timeout)) or watch.fired:
                    last = self._timeout_error(shown, attempt, watch)
                else:
                    last = BackendError(
                        f"Cannot reach the LLM endpoint {shown}: {self._redact(str(exc.reason))}. Is the "
                        "server running, and is --base-url right (it usually ends in /v1)?",
                        url=shown,
                    )
                continue
            except (ConnectionError, OSError, http.client.HTTPException, ValueError) as exc:
                # HTTPException: a reply that is not valid HTTP (BadStatusLine) or was cut short
                # (IncompleteRead), e.g. a proxy or a crashed server; retried like a reset. The
                # deadline watchdog ends a read by shutting the socket: then it is a timeout.
                if watch.fired:
                    last = self._timeout_error(shown, attempt, watch)
                else:
                    last = BackendError(
                        f"Connection to {shown} failed: {type(exc).__name__}: {self._redact(str(exc))}", url=shown
                    )
                continue
            try:
                return json.loads(payload)
            except ValueError:
                raise BackendError(
                    f"{shown} returned a body that is not JSON: {self._redact(repr(payload[:200]))}", url=shown
                ) from None
        assert last is not None
        raise last

    def _timeout_error(self, shown: str, attempt: int, watch: "_Deadline") -> BackendTimeout:
        what = "send a complete reply" if watch.fired else "answer"
        return BackendTimeout(
            f"{shown} did not {what} within {self.timeout:g} s ({attempt + 1} attempts). "
            "Raise timeout= (CLI: --timeout) or check the server.",
            url=shown,
        )

    def _read_body(self, resp: Any, shown: str) -> bytes:
        """The body, at most ``max_response_bytes`` of it (a larger one is refused, not buffered)."""
        declared = resp.headers.get("Content-Length") if resp.headers else None
        if declared and declared.strip().isdigit() and int(declared) > self.max_response_bytes:
            raise _TooLarge(f"Content-Length {int(declared):,}")
        chunks, size = [], 0
        while True:
            chunk = resp.read1(1 << 16) if hasattr(resp, "read1") else resp.read(1 << 16)
            if not chunk:
                break
            size += len(chunk)
            if size > self.max_response_bytes:
                raise _TooLarge(f"more than {size:,} bytes")
            chunks.append(chunk)
        missing = getattr(resp, "length", None)  # read1 does not check Content-Length as read() does
        if isinstance(missing, int) and missing > 0:
            raise http.client.IncompleteRead(b"".join(chunks), missing)
        return b"".join(chunks)

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
        logprobs = _parse_logprobs(choice.get("logprobs"), self.base_url) if request.logprobs is not None else None
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
            usage=_parse_usage(payload.get("usage")),
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
