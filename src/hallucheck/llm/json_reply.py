"""JSON from LLM replies: tolerant parsing, schema-constrained requests with one retry, and
completion budgets that fit the context window."""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Mapping, Sequence

from ..errors import ParseError
from .base import LLMClient, Message

_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.IGNORECASE)


def json_from_reply(reply: str) -> Any:
    """The first JSON value in an LLM reply (code fences and leading chatter tolerated).

    Raises ``ValueError`` when there is none (e.g. the reply was cut off)."""
    text = _FENCE.sub("", reply.strip())
    try:
        return json.loads(text)
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    # only from the first bracket: an inner value of a cut-off reply is not the answer
    m = re.search(r"[\[{]", text)
    if m:
        try:
            value, _ = decoder.raw_decode(text, m.start())
            return value
        except ValueError:
            pass
    raise ValueError("no complete JSON value in the reply")


def fit_max_tokens(
    llm: LLMClient, messages: Sequence[Message], wanted: int, *, context_tokens: int | None = None
) -> int:
    """``wanted`` completion tokens, reduced so prompt + completion fit the context window
    (when the backend reports one as ``n_ctx``); at least 16."""
    ctx = context_tokens or getattr(llm, "n_ctx", None)
    if not ctx:
        return wanted
    used = sum(llm.count_tokens(m.content) for m in messages) + 16 * len(messages) + 16
    return max(16, min(wanted, int(ctx) - used))


def complete_json(
    llm: LLMClient,
    messages: Sequence[Message],
    *,
    prompt: str,
    schema: Mapping[str, Any],
    parse: Callable[[str], Any],
    max_tokens: int,
    reminder: str,
    context_tokens: int | None = None,
) -> tuple[Any, list[str]]:
    """Ask for schema-constrained JSON and parse it with ``parse`` (which raises ParseError).

    A reply that does not parse, or was cut off at ``max_tokens``, is retried once with a
    reminder (and twice the token budget when it was cut off). Returns ``(value, raw replies)``;
    raises :class:`ParseError` with all raw replies when the retry fails too, and
    :class:`BackendError` when the backend fails."""
    messages = tuple(messages)
    attempt = messages
    raws: list[str] = []
    budget = max_tokens
    problem = ""
    for round_ in range(2):
        response = llm.complete(
            attempt,
            prompt=prompt if round_ == 0 else f"{prompt}+retry",
            json_schema=schema,
            max_tokens=fit_max_tokens(llm, attempt, budget, context_tokens=context_tokens),
        )
        raws.append(response.text)
        if response.finish_reason == "length":
            problem = f"the reply was cut off at {budget} tokens before the JSON was complete"
            budget *= 2
        else:
            try:
                return parse(response.text), raws
            except ParseError as exc:
                problem = str(exc)
        attempt = messages + (
            Message("assistant", response.text[:4000]),
            Message("user", f"Your reply could not be used: {problem}. {reminder}"),
        )
    raise ParseError(f"The LLM reply could not be parsed, even when asked again ({problem}).", raw="\n---\n".join(raws))


__all__ = ["complete_json", "fit_max_tokens", "json_from_reply"]
