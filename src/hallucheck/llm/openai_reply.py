"""Reading an OpenAI-compatible reply: token usage and log-probabilities (chat and legacy shapes)."""

from __future__ import annotations

import math
from typing import Any

from ..errors import UnreadableReply
from ..types import Usage
from .base import TokenLogprob
from .strict_reply import ROUNDING


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


def parse_usage(usage: Any) -> Usage:
    if not isinstance(usage, dict):
        return Usage()
    return Usage(
        prompt_tokens=_count(usage.get("prompt_tokens")), completion_tokens=_count(usage.get("completion_tokens"))
    )


_MISSING = object()


def _logprob(value: Any, where: str, url: str) -> float:
    """A log-probability as sent, checked: absent, not a number, NaN, or above 0 (beyond rounding;
    ``+inf`` and huge values included) is an :class:`UnreadableReply`, never a made-up value."""
    if value is _MISSING:
        raise UnreadableReply(
            f"{url} returned an entry without its log-probability ({where}); the reply cannot be scored.",
            url=url,
        )
    try:
        number = None if isinstance(value, bool) or not isinstance(value, (int, float)) else float(value)
    except OverflowError:
        number = math.inf
    if number is None or math.isnan(number):
        raise UnreadableReply(
            f"{url} returned a log-probability that is not a number ({where}: {value!r}); the reply cannot be scored.",
            raw=repr(value)[:300],
            url=url,
        )
    if number > ROUNDING:
        raise UnreadableReply(
            f"{url} returned a log-probability above 0, a probability above 1 ({where}: {repr(value)[:60]}); "
            "the reply cannot be scored.",
            raw=repr(value)[:300],
            url=url,
        )
    return min(number, 0.0)


def _parse_legacy_logprobs(block: dict[str, Any], url: str) -> tuple[TokenLogprob, ...] | None:
    """The text-completions form (OpenAI, vLLM): parallel lists ``tokens``, ``token_logprobs``
    and ``top_logprobs`` (one ``{token: logprob}`` object per token)."""
    tokens, lps, tops = block.get("tokens"), block.get("token_logprobs"), block.get("top_logprobs")
    if tops is None:
        tops = [None] * len(tokens) if isinstance(tokens, list) else None
    if not (
        isinstance(tokens, list)
        and isinstance(lps, list)
        and isinstance(tops, list)
        and len(tokens) == len(lps) == len(tops)
    ):
        raise UnreadableReply(
            f"{url} returned completion logprobs whose tokens, token_logprobs and top_logprobs are not "
            f"lists of one length: {str(block)[:200]}",
            raw=str(block)[:500],
            url=url,
        )
    out = []
    for i, (tok, lp, top) in enumerate(zip(tokens, lps, tops)):
        if not isinstance(tok, str) or not (top is None or isinstance(top, dict)):
            raise UnreadableReply(
                f"{url} returned a malformed completion logprobs entry {i}: {tok!r}, {str(top)[:200]}",
                raw=str(block)[:500],
                url=url,
            )
        out.append(
            TokenLogprob(
                tok,
                _logprob(lp, f"token {i}", url),
                tuple((str(a), _logprob(v, f"token {i} alternative", url)) for a, v in (top or {}).items()),
            )
        )
    return tuple(out) or None


def parse_logprobs(block: Any, url: str) -> tuple[TokenLogprob, ...] | None:
    """``choices[0].logprobs.content`` as TokenLogprob items; None when absent. A present but
    malformed block (wrong types, NaN) is an :class:`UnreadableReply`, never a made-up value.
    Text completions come in this form (llama.cpp) or in the older one of
    :func:`_parse_legacy_logprobs` (OpenAI, vLLM)."""
    if block is None:
        return None
    if isinstance(block, dict) and "content" not in block and "tokens" in block:
        return _parse_legacy_logprobs(block, url)
    content = block.get("content") if isinstance(block, dict) else block
    if content is None:
        return None
    if not isinstance(content, list):
        raise UnreadableReply(
            f"{url} returned logprobs.content that is not a list: {str(content)[:200]}", raw=str(block)[:500], url=url
        )
    out = []
    for i, t in enumerate(content):
        if not isinstance(t, dict):
            raise UnreadableReply(
                f"{url} returned a logprobs entry that is not an object: {str(t)[:200]}", raw=str(block)[:500], url=url
            )
        top = t.get("top_logprobs") or []
        if not isinstance(top, list) or not all(isinstance(a, dict) for a in top):
            raise UnreadableReply(
                f"{url} returned top_logprobs that are not a list of objects: {str(top)[:200]}",
                raw=str(block)[:500],
                url=url,
            )
        token = t.get("token", "")
        out.append(
            TokenLogprob(
                token if isinstance(token, str) else str(token),
                _logprob(t.get("logprob", _MISSING), f"token {i}", url),
                tuple(
                    (
                        a.get("token", "") if isinstance(a.get("token", ""), str) else str(a.get("token")),
                        _logprob(a.get("logprob", _MISSING), f"token {i} alternative", url),
                    )
                    for a in top
                ),
            )
        )
    return tuple(out) or None
