"""One model served by several equivalent OpenAI-compatible endpoints (vLLM replicas, llama.cpp
servers): requests are spread over them, each endpoint with its own concurrency limit.

Balancing: ``least-busy`` (default) sends a request to the endpoint with the fewest requests in
flight for its limit (ties in turn); ``round-robin`` takes them in turn. An endpoint that fails
after its own retries (unreachable, timeout, 429/5xx) is skipped for ``cooldown`` seconds and the
request goes to another one; an answer the endpoint gave (a 4xx, an unreadable reply) is not
retried elsewhere, since the others would answer the same.

The response cache. A single endpoint keys replies by model and URL (two servers that serve the
same model name must not share answers). A pool is one server in many copies, so its key must
not depend on which copy answered, nor on how many there are today:

- with ``pool="NAME"`` the key holds ``pool:NAME`` instead of a URL. The name is the operator's
  statement that the endpoints are equivalent (same weights, same server settings); it survives
  adding or removing replicas, and a one-endpoint client with the same name shares the entries.
  Give a new name when the model or its serving settings change.
- without a name, the key holds the sorted set of the URLs: stable whichever member answers and
  in whatever order they were given, but a pool of other size is another cache. With one URL
  and no name, the key is exactly the plain client's.

The manifest of a run (``describe``) names the same identity, so resuming a run with a resized
named pool is allowed, and with another unnamed set of URLs is refused as another LLM.
"""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any, Sequence

from ..errors import BackendError, ConfigError, UnreadableReply
from .base import LLMClient, LLMRequest, LLMResponse
from .openai_compat import RETRY_STATUS, OpenAICompatLLM
from .transport import public_url

BALANCE = ("least-busy", "round-robin")


def split_urls(base_url: str | Sequence[str] | None) -> list[str]:
    """URLs from ``--base-url`` values: one URL, a comma list, or several of either; in order,
    without repeats."""
    if base_url is None:
        return []
    values = [base_url] if isinstance(base_url, str) else list(base_url)
    out: list[str] = []
    for v in values:
        for part in str(v).split(","):
            part = part.strip()
            if part and part.rstrip("/") not in [u.rstrip("/") for u in out]:
                out.append(part)
    return out


def _limits(max_concurrency: int | Sequence[int] | None, n: int) -> list[int]:
    if max_concurrency is None:
        return [4] * n
    if isinstance(max_concurrency, int):
        return [max_concurrency] * n
    limits = [int(x) for x in max_concurrency]
    if len(limits) == 1:
        return limits * n
    if len(limits) != n:
        raise ConfigError(f"Give one max_concurrency for all {n} endpoints, or one per endpoint; got {len(limits)}.")
    return limits


class EndpointPool(LLMClient):
    """``model`` at each of ``base_urls`` (see the module notes). ``max_concurrency``: one limit
    for every endpoint or one per endpoint; ``client_kwargs`` go to each endpoint's
    :class:`~hallucheck.llm.openai_compat.OpenAICompatLLM` (timeout, max_retries, api_key_env,
    extra_body, ...)."""

    supports_logprobs = True
    supports_text_completion = True
    async_native = True  # its members' requests await on the event loop in async code

    def __init__(
        self,
        model: str,
        base_urls: str | Sequence[str],
        *,
        pool: str | None = None,
        balance: str = "least-busy",
        max_concurrency: int | Sequence[int] | None = None,
        cooldown: float = 30.0,
        cache: Any = None,
        **client_kwargs: Any,
    ) -> None:
        super().__init__(cache=cache)
        urls = split_urls(base_urls)
        if not urls:
            raise ConfigError("An endpoint pool needs at least one base URL.")
        if balance not in BALANCE:
            raise ConfigError(f"balance must be one of {', '.join(BALANCE)}; got {balance!r}.")
        if pool is not None and (not isinstance(pool, str) or not pool.strip()):
            raise ConfigError(f"The pool name must be a non-empty string; got {pool!r}.")
        limits = _limits(max_concurrency, len(urls))
        self.members = [
            OpenAICompatLLM(model, base_url=u, max_concurrency=c, cache=None, **client_kwargs)
            for u, c in zip(urls, limits)
        ]
        self.model_id = model
        self.pool = pool.strip() if pool else None
        self.balance = balance
        self.cooldown = cooldown
        self.limits = limits
        self.busy = [0] * len(urls)
        self.served = [0] * len(urls)
        self._down_until = [0.0] * len(urls)
        self._turn = itertools.count()
        self._lock = threading.Lock()

    # -- identity ---------------------------------------------------------------------------
    def cache_endpoint(self) -> str:
        if self.pool:
            return f"pool:{self.pool}"
        if len(self.members) == 1:
            return self.members[0].cache_endpoint()
        return ",".join(sorted({m.cache_endpoint() for m in self.members}))

    def describe(self) -> dict[str, Any]:
        if self.pool:
            return {"backend": "openai", "model": self.model_id, "pool": self.pool}
        if len(self.members) == 1:
            return self.members[0].describe()
        return {
            "backend": "openai",
            "model": self.model_id,
            "base_urls": sorted(public_url(m.base_url) for m in self.members),
        }

    async def aclose(self) -> None:
        for member in self.members:
            await member.aclose()

    @property
    def base_urls(self) -> list[str]:
        return [m.base_url for m in self.members]

    # -- balancing --------------------------------------------------------------------------
    def _pick(self, exclude: set[int]) -> int:
        with self._lock:
            now = time.monotonic()
            n = len(self.members)
            candidates = [i for i in range(n) if i not in exclude and self._down_until[i] <= now]
            if not candidates:  # every endpoint is resting: try the ones not tried yet anyway
                candidates = [i for i in range(n) if i not in exclude]
            start = next(self._turn) % n
            ordered = sorted(candidates, key=lambda i: (i - start) % n)  # in turn from here
            if self.balance == "least-busy":
                ordered.sort(key=lambda i: self.busy[i] / self.limits[i])  # stable: ties keep the turn
            i = ordered[0]
            self.busy[i] += 1
            return i

    def _done(self, i: int, ok: bool) -> None:
        with self._lock:
            self.busy[i] -= 1
            if ok:
                self.served[i] += 1
            else:
                self._down_until[i] = time.monotonic() + self.cooldown

    def _complete(self, request: LLMRequest) -> LLMResponse:
        tried: set[int] = set()
        while True:
            i = self._pick(tried)
            tried.add(i)
            try:
                response = self.members[i]._complete(request)
            except BackendError as exc:
                elsewhere = not isinstance(exc, UnreadableReply) and (exc.status is None or exc.status in RETRY_STATUS)
                self._done(i, ok=not elsewhere)
                if elsewhere and len(tried) < len(self.members):
                    continue
                raise
            except BaseException:
                self._done(i, ok=True)
                raise
            self._done(i, ok=True)
            return response


def from_spec(
    spec: str,
    *,
    base_url: str | Sequence[str] | None = None,
    api_key_env: str | None = "OPENAI_API_KEY",
    cache: Any = None,
    progress: bool = True,
    **kwargs: Any,
) -> LLMClient:
    """The ``openai`` row of :data:`hallucheck.llm.BACKENDS`: ``openai:MODEL`` at one endpoint
    (:class:`OpenAICompatLLM`), or at several / a named ``pool`` (:class:`EndpointPool`)."""
    model = spec.partition(":")[2]
    if not model:
        raise ConfigError("Give the model name: --llm openai:MODEL (e.g. openai:qwen2.5:7b-instruct).")
    urls = split_urls(base_url) or ["https://api.openai.com/v1"]
    pool, balance = kwargs.pop("pool", None), kwargs.pop("balance", None)
    if len(urls) > 1 or pool is not None:
        return EndpointPool(
            model, urls, pool=pool, balance=balance or "least-busy", api_key_env=api_key_env, cache=cache, **kwargs
        )
    limit = kwargs.pop("max_concurrency", None)
    if isinstance(limit, (list, tuple)):
        if len(limit) != 1:
            raise ConfigError(f"One endpoint takes one max_concurrency; got {len(limit)} values.")
        limit = limit[0]
    if limit is not None:
        kwargs["max_concurrency"] = limit
    return OpenAICompatLLM(model, base_url=urls[0], api_key_env=api_key_env, cache=cache, **kwargs)


__all__ = ["EndpointPool", "BALANCE", "from_spec", "split_urls"]
