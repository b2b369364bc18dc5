"""LLM backends behind one typed boundary (see :mod:`hallucheck.llm.base`)."""

from __future__ import annotations

from typing import Any, Sequence

from ..errors import ConfigError
from .base import LabelScores, LLMClient, LLMRequest, LLMResponse, Message, TokenLogprob, usage_scope
from .cache import ResponseCache
from .fake import FakeLLM


def make_llm(
    spec: str = "embedded",
    *,
    base_url: str | Sequence[str] | None = None,
    api_key_env: str | None = "OPENAI_API_KEY",
    cache: Any = "default",
    progress: bool = True,
    **kwargs: Any,
) -> LLMClient:
    """Build a client from a short spec.

    - ``embedded`` (Qwen2.5-Coder-1.5B via llama.cpp), ``embedded:0.5b``, ``embedded:smollm2``,
      ``embedded:/path/to/model.gguf``
    - ``openai:MODEL`` with ``base_url`` (vLLM, Ollama, llama.cpp server, OpenAI). Several
      URLs (a list or a comma list), or ``pool="NAME"``, make an
      :class:`~hallucheck.llm.pool.EndpointPool` (``balance``, per-endpoint ``max_concurrency``).
    ``cache="default"`` uses the shared SQLite cache; ``None`` disables caching.
    """
    if cache == "default":
        cache = ResponseCache()
    if not isinstance(spec, str) or not spec:
        raise ConfigError("The LLM spec must be a string such as 'embedded', 'embedded:0.5b' or 'openai:MODEL'.")
    kind, _, rest = spec.partition(":")
    if kind == "embedded":
        from .llama_cpp import make_embedded

        return make_embedded(spec, cache=cache, progress=progress)
    if kind == "openai":
        if not rest:
            raise ConfigError("Give the model name: --llm openai:MODEL (e.g. openai:qwen2.5:7b-instruct).")
        from .openai_compat import OpenAICompatLLM
        from .pool import EndpointPool, split_urls

        urls = split_urls(base_url) or ["https://api.openai.com/v1"]
        pool, balance = kwargs.pop("pool", None), kwargs.pop("balance", None)
        if len(urls) > 1 or pool is not None:
            return EndpointPool(
                rest, urls, pool=pool, balance=balance or "least-busy", api_key_env=api_key_env, cache=cache, **kwargs
            )
        limit = kwargs.pop("max_concurrency", None)
        if isinstance(limit, (list, tuple)):
            if len(limit) != 1:
                raise ConfigError(f"One endpoint takes one max_concurrency; got {len(limit)} values.")
            limit = limit[0]
        if limit is not None:
            kwargs["max_concurrency"] = limit
        return OpenAICompatLLM(rest, base_url=urls[0], api_key_env=api_key_env, cache=cache, **kwargs)
    raise ConfigError(
        f"Unknown LLM spec {spec!r}. Use 'embedded', 'embedded:0.5b', 'embedded:smollm2', "
        "'embedded:/path/model.gguf' or 'openai:MODEL' with --base-url."
    )


__all__ = [
    "FakeLLM",
    "LabelScores",
    "LLMClient",
    "LLMRequest",
    "LLMResponse",
    "Message",
    "ResponseCache",
    "TokenLogprob",
    "make_llm",
    "usage_scope",
]
