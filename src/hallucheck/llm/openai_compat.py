"""Any OpenAI-compatible chat-completions endpoint: vLLM, Ollama, llama.cpp server, OpenAI.

Standard library only (urllib). The API key is read from a named environment variable at
request time and never stored on the client, logged, or put in a cache key.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import random
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from ..errors import BackendError, BackendTimeout, ConfigError, RateLimited, UnreadableReply
from ..types import Usage
from .base import LLMClient, LLMRequest, LLMResponse, TokenLogprob

RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


class OpenAICompatLLM(LLMClient):
    """Chat completions at ``{base_url}/chat/completions``.

    Retries timeouts, connection resets, 429 and 5xx with exponential backoff and jitter
    (``max_retries`` extra attempts); at most ``max_concurrency`` requests are in flight
    from this client at once, whatever the number of threads using it.
    """

    supports_logprobs = True

    def __init__(self, model: str, *, base_url: str = "https://api.openai.com/v1", api_key_env: str | None = "OPENAI_API_KEY",
                 timeout: float = 60.0, max_retries: int = 3, backoff: float = 1.0, max_concurrency: int = 4,
                 cache: Any = None, extra_body: dict[str, Any] | None = None) -> None:
        super().__init__(cache=cache)
        if not model or not isinstance(model, str):
            raise ConfigError("OpenAICompatLLM needs a model name, e.g. OpenAICompatLLM('qwen2.5:7b-instruct', base_url=...).")
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
        self._slots = threading.BoundedSemaphore(max_concurrency)

    def describe(self) -> dict[str, Any]:
        return {"backend": "openai", "model": self.model_id, "base_url": _public_url(self.base_url)}

    def cache_endpoint(self) -> str:
        return _public_url(self.base_url)

    # -- request building ---------------------------------------------------------------------
    def _body(self, request: LLMRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model_id,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
        }
        if request.seed is not None:
            body["seed"] = request.seed
        if request.stop:
            body["stop"] = list(request.stop)
        if request.logprobs is not None:
            body["logprobs"] = True
            if request.logprobs > 0:
                body["top_logprobs"] = min(int(request.logprobs), 20)
        if request.json_schema is not None:
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": "output", "schema": dict(request.json_schema), "strict": True}}
        body.update(self.extra_body)
        return body

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.api_key_env:
            key = os.environ.get(self.api_key_env)
            if key:
                headers["Authorization"] = f"Bearer {key}"
        return headers

    # -- transport ----------------------------------------------------------------------------
    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        url = f"{self.base_url}/chat/completions"
        data = json.dumps(body).encode("utf-8")
        last: Exception | None = None
        for attempt in range(self.max_retries + 1):
            if attempt:
                time.sleep(self.backoff * (2 ** (attempt - 1)) * (1 + 0.25 * random.random()))
            req = urllib.request.Request(url, data=data, headers=self._headers(), method="POST")
            try:
                with self._slots, urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    payload = resp.read()
            except urllib.error.HTTPError as exc:
                detail = exc.read()[:500].decode("utf-8", "replace")
                if exc.code in RETRY_STATUS:
                    last = RateLimited(f"{url} answered 429 (rate limited) after {attempt + 1} attempts: {detail}", url=url, status=429) \
                        if exc.code == 429 else BackendError(f"{url} answered HTTP {exc.code} after {attempt + 1} attempts: {detail}", url=url, status=exc.code)
                    continue
                hint = ""
                if exc.code in (401, 403):
                    hint = (f" Check the API key in the environment variable {self.api_key_env!r}." if self.api_key_env
                            else " The endpoint wants an API key: pass api_key_env (CLI: --api-key-env).")
                raise BackendError(f"{url} answered HTTP {exc.code}: {detail}.{hint}", url=url, status=exc.code) from None
            except (TimeoutError, socket.timeout) as exc:
                last = BackendTimeout(f"{url} did not answer within {self.timeout:g} s ({attempt + 1} attempts). "
                                      "Raise timeout= or check the server.", url=url)
                continue
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, (TimeoutError, socket.timeout)):
                    last = BackendTimeout(f"{url} did not answer within {self.timeout:g} s ({attempt + 1} attempts). "
                                          "Raise timeout= or check the server.", url=url)
                else:
                    last = BackendError(f"Cannot reach the LLM endpoint {url}: {exc.reason}. Is the server running, "
                                        "and is --base-url right (it usually ends in /v1)?", url=url)
                continue
            except (ConnectionError, OSError, http.client.HTTPException) as exc:
                # HTTPException: a reply that is not valid HTTP (BadStatusLine) or was cut short
                # (IncompleteRead), e.g. a proxy or a crashed server; retried like a reset.
                last = BackendError(f"Connection to {url} failed: {type(exc).__name__}: {exc}", url=url)
                continue
            try:
                return json.loads(payload)
            except ValueError:
                raise BackendError(f"{url} returned a body that is not JSON: {payload[:200]!r}", url=url) from None
        assert last is not None
        raise last

    def _complete(self, request: LLMRequest) -> LLMResponse:
        payload = self._post(self._body(request))
        try:
            choice = payload["choices"][0]
            text = choice["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise BackendError(f"{self.base_url} returned an unexpected payload (no choices[0].message): {str(payload)[:300]}",
                               url=self.base_url) from None
        logprobs = _parse_logprobs(choice.get("logprobs"), self.base_url) if request.logprobs is not None else None
        if not isinstance(text, str):
            raise BackendError(f"{self.base_url} returned a message content that is not text: {str(text)[:200]}",
                               url=self.base_url)
        finish = choice.get("finish_reason") if isinstance(choice, dict) else None
        model = payload.get("model")
        return LLMResponse(text=text, model=model if isinstance(model, str) and model else self.model_id,
                           finish_reason=finish if isinstance(finish, str) and finish else "stop",
                           usage=_parse_usage(payload.get("usage")), logprobs=logprobs)


def _public_url(url: str) -> str:
    """``url`` without user:password@ and without a query or fragment (where keys sometimes ride),
    host in lower case: what may be shown, stored in a manifest or put in a cache key."""
    parts = urllib.parse.urlsplit(url)
    host = (parts.hostname or "").lower()
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urllib.parse.urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), "", ""))


def _count(value: Any) -> int:
    """A token count from a reply's usage field; anything that is not a non-negative whole
    number counts 0 (usage is bookkeeping: a malformed one must not lose the answer)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float) and math.isfinite(value) and value >= 0:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return 0


def _parse_usage(usage: Any) -> Usage:
    if not isinstance(usage, dict):
        return Usage()
    return Usage(prompt_tokens=_count(usage.get("prompt_tokens")), completion_tokens=_count(usage.get("completion_tokens")))


def _logprob(value: Any, where: str, url: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise UnreadableReply(f"{url} returned a log-probability that is not a number ({where}: {value!r}); "
                              "the reply cannot be scored.", raw=repr(value)[:300], url=url)
    return float(value)


def _parse_logprobs(block: Any, url: str) -> tuple[TokenLogprob, ...] | None:
    """``choices[0].logprobs.content`` as TokenLogprob items; None when absent. A present but
    malformed block (wrong types, NaN) is an :class:`UnreadableReply`, never a made-up value."""
    if block is None:
        return None
    content = block.get("content") if isinstance(block, dict) else block
    if content is None:
        return None
    if not isinstance(content, list):
        raise UnreadableReply(f"{url} returned logprobs.content that is not a list: {str(content)[:200]}",
                              raw=str(block)[:500], url=url)
    out = []
    for i, t in enumerate(content):
        if not isinstance(t, dict):
            raise UnreadableReply(f"{url} returned a logprobs entry that is not an object: {str(t)[:200]}",
                                  raw=str(block)[:500], url=url)
        top = t.get("top_logprobs") or []
        if not isinstance(top, list) or not all(isinstance(a, dict) for a in top):
            raise UnreadableReply(f"{url} returned top_logprobs that are not a list of objects: {str(top)[:200]}",
                                  raw=str(block)[:500], url=url)
        token = t.get("token", "")
        out.append(TokenLogprob(token if isinstance(token, str) else str(token), _logprob(t.get("logprob", 0.0), f"token {i}", url),
                                tuple((a.get("token", "") if isinstance(a.get("token", ""), str) else str(a.get("token")),
                                       _logprob(a.get("logprob", 0.0), f"token {i} alternative", url)) for a in top)))
    return tuple(out) or None
