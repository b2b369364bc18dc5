"""The typed LLM boundary: messages in; text, usage and log-probabilities out.

Every backend implements ``_complete`` (and may override ``score_labels``). ``complete``
adds what all backends share: input checks, the response cache and usage accounting, both
per client (``client.usage``) and per scope (``with usage_scope() as u: ...``), which is
how a pipeline counts the calls of one example even when examples run in threads.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import math
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Mapping, Sequence

from .. import _aio
from ..errors import BackendError, ConfigError, InputError, UnreadableReply
from ..types import Usage
from .strict_reply import ROUNDING, first_alternatives

ROLES = ("system", "user", "assistant")


@dataclass(frozen=True)
class Message:
    role: str
    content: str

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise InputError(f"Message role must be one of {', '.join(ROLES)}; got {self.role!r}.", field="role")
        if not isinstance(self.content, str):
            raise InputError(f"Message content must be a string; got {type(self.content).__name__}.", field="content")


@dataclass(frozen=True)
class LLMRequest:
    """One generation request.

    ``prompt`` names the prompt file and version (e.g. ``"keyword_extract.v1"``): it is part
    of the cache key so that a prompt change never returns stale replies.
    ``json_schema`` asks for output constrained to the schema where the backend can (grammar
    in llama.cpp, ``response_format`` on OpenAI-compatible servers).
    ``logprobs`` asks for that many top alternatives per generated token (0 = only the
    chosen token's log-probability; None = none).
    ``raw_text``: the single message's content is a plain text prompt that the model
    continues as is, with no chat template (a text-completions endpoint; see
    :meth:`LLMClient.complete_text`).
    """

    messages: tuple[Message, ...]
    prompt: str = ""
    max_tokens: int = 256
    temperature: float = 0.0
    stop: tuple[str, ...] = ()
    json_schema: Mapping[str, Any] | None = None
    logprobs: int | None = None
    seed: int | None = 0
    raw_text: bool = False

    def params(self) -> dict[str, Any]:
        out = {
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "stop": list(self.stop),
            "json_schema": self.json_schema,
            "logprobs": self.logprobs,
            "seed": self.seed,
        }
        if self.raw_text:  # only when set: the cache keys of chat requests stay as they were
            out["raw_text"] = True
        return out


@dataclass(frozen=True)
class TokenLogprob:
    """One generated token: its log-probability, the top alternatives, and the entropy of the
    full next-token distribution when the backend has the logits (llama.cpp), else None."""

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()
    entropy: float | None = None


@dataclass(frozen=True)
class LLMResponse:
    text: str
    usage: Usage
    model: str
    finish_reason: str = "stop"
    logprobs: tuple[TokenLogprob, ...] | None = None
    cached: bool = False

    def to_json(self) -> str:
        return json.dumps(
            {
                "text": self.text,
                "usage": self.usage.to_dict(),
                "model": self.model,
                "finish_reason": self.finish_reason,
                "logprobs": None
                if self.logprobs is None
                else [[t.token, t.logprob, [list(x) for x in t.top], t.entropy] for t in self.logprobs],
            }
        )

    @classmethod
    def from_json(cls, s: str) -> "LLMResponse":
        d = json.loads(s)
        lp = d.get("logprobs")
        return cls(
            text=d["text"],
            usage=Usage.from_dict(d["usage"]),
            model=d["model"],
            finish_reason=d.get("finish_reason", "stop"),
            logprobs=None
            if lp is None
            else tuple(
                TokenLogprob(t[0], t[1], tuple((a, b) for a, b in t[2]), t[3] if len(t) > 3 else None) for t in lp
            ),
        )


@dataclass(frozen=True)
class LabelScores:
    """Log-probabilities of a fixed label set as the next output, renormalised over the set."""

    logprobs: Mapping[str, float]
    usage: Usage = field(default_factory=Usage)

    @property
    def probs(self) -> dict[str, float]:
        m = max(self.logprobs.values())
        ex = {k: math.exp(v - m) for k, v in self.logprobs.items()}
        z = sum(ex.values())
        return {k: v / z for k, v in ex.items()}

    @property
    def best(self) -> str:
        return max(self.logprobs, key=lambda k: self.logprobs[k])


def _finite_scores(scores: Any, labels: Sequence[str]) -> bool:
    """True when ``scores`` maps exactly ``labels`` to finite log-probabilities (at most 0, up to rounding)."""
    return (
        isinstance(scores, Mapping)
        and set(scores) == set(labels)
        and all(
            not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v) and v <= ROUNDING
            for v in scores.values()
        )
    )


_scopes: contextvars.ContextVar[tuple["_Tally", ...]] = contextvars.ContextVar("hallucheck_usage_scopes", default=())


class _Tally:
    def __init__(self) -> None:
        self.usage = Usage()
        self._lock = threading.Lock()

    def add(self, u: Usage) -> None:
        with self._lock:
            self.usage = self.usage + u


@contextlib.contextmanager
def usage_scope() -> Iterator[_Tally]:
    """Count the LLM usage of everything called inside the block (this context only)."""
    tally = _Tally()
    token = _scopes.set(_scopes.get() + (tally,))
    try:
        yield tally
    finally:
        _scopes.reset(token)


def _record(u: Usage) -> None:
    for tally in _scopes.get():
        tally.add(u)


# limits on the calls made in this context (``hallucheck serve``: one request's LLM calls)
_guards: contextvars.ContextVar[tuple[Any, ...]] = contextvars.ContextVar("hallucheck_call_guards", default=())


@contextlib.contextmanager
def call_guard(guard: Any) -> Iterator[Any]:
    """Inside the block, every LLM request passes ``guard.request(request)`` (which may lower its
    ``max_tokens``) and every call that reaches a backend (not the cache) ``guard.call()`` first,
    which may raise to refuse it (a limit reached, a request that was stopped)."""
    token = _guards.set(_guards.get() + (guard,))
    try:
        yield guard
    finally:
        _guards.reset(token)


def _limited(request: LLMRequest) -> LLMRequest:
    for guard in _guards.get():
        request = guard.request(request)
    return request


def _may_call() -> None:
    for guard in _guards.get():
        guard.call()


def as_messages(messages: Sequence[Message | Mapping[str, str]] | str) -> tuple[Message, ...]:
    if isinstance(messages, str):
        return (Message("user", messages),)
    out = []
    for m in messages:
        out.append(m if isinstance(m, Message) else Message(m["role"], m["content"]))
    if not out:
        raise InputError("An LLM request needs at least one message.", field="messages")
    return tuple(out)


class LLMClient(ABC):
    """Base of every backend. Subclasses set ``model_id`` and implement ``_complete``."""

    model_id: str = "unknown"
    supports_logprobs: bool = False
    # a text-completions endpoint (no chat template) that complete_text can use
    supports_text_completion: bool = False
    # the backend's own waiting is awaitable (hallucheck._aio.wait): in async code its calls run on
    # the event loop. Otherwise they run in the loop's executor there (hallucheck._aio.blocking).
    async_native: bool = False

    def __init__(self, *, cache: Any = None) -> None:
        self.cache = cache
        self.usage = Usage()
        self._usage_lock = threading.Lock()

    # -- public API -------------------------------------------------------------------------
    def complete(
        self, messages: Sequence[Message | Mapping[str, str]] | str, *, prompt: str = "", **params: Any
    ) -> LLMResponse:
        """Generate a reply. ``params`` are the fields of :class:`LLMRequest`."""
        try:
            request = LLMRequest(messages=as_messages(messages), prompt=prompt, **params)
        except TypeError as exc:
            raise ConfigError(
                f"Bad LLM request parameter: {exc}. Allowed: {', '.join(LLMRequest.__dataclass_fields__)}."
            ) from None
        if isinstance(request.stop, str):
            request = replace(request, stop=(request.stop,) if request.stop else ())
        elif not isinstance(request.stop, tuple):
            request = replace(request, stop=tuple(request.stop or ()))
        request = _limited(request)
        key = self.cache_key(request) if self.cache is not None else None
        if key is not None:
            hit = self.cache.get(key)
            if hit is not None:
                response = LLMResponse.from_json(hit)
                # the response reports what was accounted (as score_labels does): a cached call
                response = replace(
                    response, cached=True, usage=replace(response.usage, calls=0, cached_calls=1, seconds=0.0)
                )
                self._account(response.usage)
                return response
        _may_call()
        t0 = time.perf_counter()
        response = self._call(request)
        elapsed = time.perf_counter() - t0
        response = replace(response, usage=replace(response.usage, calls=1, seconds=elapsed))
        self._account(response.usage)
        if key is not None and response.finish_reason != "error":
            self.cache.put(key, response.to_json())
        return response

    def complete_text(self, text: str, *, prompt: str = "", **params: Any) -> LLMResponse:
        """Continue ``text`` exactly as given: no chat template, no new assistant turn (the
        ``/completions`` endpoint of vLLM, llama.cpp's server, Ollama). Cached and accounted
        like :meth:`complete`; backends without such an endpoint raise :class:`ConfigError`."""
        if not self.supports_text_completion:
            raise ConfigError(
                f"{type(self).__name__} ({self.model_id}) has no text-completion endpoint; use complete()."
            )
        if not isinstance(text, str) or not text:
            raise InputError("complete_text needs a non-empty prompt text.", field="text")
        return self.complete((Message("user", text),), prompt=prompt, raw_text=True, **params)

    def score_labels(
        self,
        messages: Sequence[Message | Mapping[str, str]] | str,
        labels: Sequence[str],
        *,
        prompt: str = "",
        prefix: str = "",
    ) -> LabelScores:
        """Score each label as the start of the reply (after ``prefix``) by log-probability.

        Cached and accounted like :meth:`complete`. The scores are log-probabilities of each
        label's first token (backends with logits) or of the matching top alternatives.
        """
        labels = tuple(labels)
        if not labels or not all(isinstance(x, str) and x for x in labels) or len(set(labels)) != len(labels):
            raise ConfigError(f"score_labels needs distinct, non-empty string labels; got {list(labels)!r}.")
        msgs = as_messages(messages)
        request = LLMRequest(messages=msgs, prompt=prompt, max_tokens=1, temperature=0.0)
        key = self.cache_key(request, scoring=(labels, prefix)) if self.cache is not None else None
        if key is not None:
            hit = self.cache.get(key)
            d = json.loads(hit) if hit is not None else None
            if d is not None and _finite_scores(d.get("logprobs"), labels):  # an entry from before NaN checks is a miss
                usage = replace(Usage.from_dict(d["usage"]), calls=0, cached_calls=1, seconds=0.0)
                self._account(usage)
                return LabelScores(d["logprobs"], usage)
        _may_call()
        t0 = time.perf_counter()
        if self.async_native or type(self)._score_labels is LLMClient._score_labels:
            scores = self._score_labels(msgs, labels, prefix)  # waits, if at all, in self._call
        else:
            scores = _aio.blocking(self._score_labels, msgs, labels, prefix)
        usage = replace(scores.usage, calls=1, seconds=time.perf_counter() - t0)
        self._account(usage)
        if not _finite_scores(scores.logprobs, labels):
            # never renormalise NaN/inf into a verdict (NaN compares false: the first label would win)
            raise UnreadableReply(
                f"{self.model_id} gave label log-probabilities that are not finite numbers at most 0: "
                f"{dict(scores.logprobs)!r}. The reply cannot be scored.",
                raw=json.dumps({k: repr(v) for k, v in scores.logprobs.items()}),
            )
        if key is not None:
            self.cache.put(key, json.dumps({"logprobs": dict(scores.logprobs), "usage": usage.to_dict()}))
        return LabelScores(scores.logprobs, usage)

    def _score_labels(self, messages: tuple[Message, ...], labels: tuple[str, ...], prefix: str) -> LabelScores:
        """Default: one generated token with its top-20 alternatives; labels are matched by
        their first token. A label missing from the alternatives gets log-probability -30,
        but when *no* label is among them the reply is unreadable (:class:`UnreadableReply`,
        keeping the token and its alternatives): equal floors would otherwise make a tie that
        some label wins by its position."""
        msgs = messages + ((Message("assistant", prefix),) if prefix else ())
        response = self._call(LLMRequest(messages=msgs, max_tokens=1, logprobs=20))
        first = response.logprobs[0] if response.logprobs else None
        if first is None:
            raise BackendError(
                f"{self.model_id} returned no log-probabilities; use a backend that supports them "
                "(llama_cpp, vLLM, OpenAI) or a method that parses text."
            )
        raw = json.dumps(
            {
                "text": response.text,
                "token": first.token,
                "logprob": repr(first.logprob),
                "top": [[t, repr(lp)] for t, lp in (first.top or ((first.token, first.logprob),))],
            },
            ensure_ascii=False,
        )
        # missing, positive, infinite, duplicated or disagreeing log-probabilities: an UnreadableReply, never a verdict
        first_alternatives(response, f"the first token of {self.model_id}'s reply", raw)
        alts = {tok: lp for tok, lp in first.top or ((first.token, first.logprob),) if lp > -math.inf}
        scores = {}
        for label in labels:
            matches = [lp for tok, lp in alts.items() if tok.strip() and label.lower().startswith(tok.strip().lower())]
            scores[label] = max(matches, default=None)
        if all(v is None for v in scores.values()):
            raise UnreadableReply(
                f"None of the labels {', '.join(labels)} is among the {len(alts)} most likely next "
                f"tokens of {self.model_id} (it would say {first.token!r}); the reply cannot be scored.",
                raw=raw,
            )
        return LabelScores({k: -30.0 if v is None else float(v) for k, v in scores.items()}, response.usage)

    def count_tokens(self, text: str) -> int:
        """Rough token count (about 4 characters a token) unless the backend knows better."""
        return max(1, len(text) // 4) if text else 0

    def cache_key(self, request: LLMRequest, *, scoring: tuple[tuple[str, ...], str] | None = None) -> str:
        """Hash of model id, endpoint (:meth:`cache_endpoint`), prompt name/version, messages and parameters (``scoring``: the
        labels and prefix of a :meth:`score_labels` call, which never shares a key with a
        generation). Secrets are never part of it."""
        identity: dict[str, Any] = {"model": self.model_id}
        endpoint = self.cache_endpoint()
        if endpoint:  # absent for local backends, whose keys stay as they were
            identity["endpoint"] = endpoint
        payload = json.dumps(
            {
                **identity,
                "prompt": request.prompt,
                "scoring": None if scoring is None else [list(scoring[0]), scoring[1]],
                "messages": [[m.role, m.content] for m in request.messages],
                "params": request.params(),
            },
            sort_keys=True,
            ensure_ascii=False,
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def cache_endpoint(self) -> str:
        """Where replies come from, for the cache key: two servers that serve the same model name
        must not share answers. Empty for in-process backends. Never holds a secret."""
        return ""

    def describe(self) -> dict[str, Any]:
        """What identifies this backend in a run manifest (never secrets)."""
        return {"backend": type(self).__name__, "model": self.model_id}

    # -- async ------------------------------------------------------------------------------
    async def acomplete(
        self, messages: Sequence[Message | Mapping[str, str]] | str, *, prompt: str = "", **params: Any
    ) -> LLMResponse:
        """:meth:`complete` for async code (same cache, accounting and errors). An async-native
        backend (the OpenAI-compatible client) awaits its endpoint on the event loop; any other runs
        its request in the loop's default executor."""
        return await _aio.run(self.complete, messages, prompt=prompt, **params)

    async def ascore_labels(self, messages: Any, labels: Sequence[str], **options: str) -> LabelScores:
        """:meth:`score_labels` for async code, as :meth:`acomplete` (``options``: its ``prompt``, ``prefix``)."""
        return await _aio.run(self.score_labels, messages, labels, **options)

    async def aclose(self) -> None:
        """Close the connections the async transport keeps for the running event loop (none here)."""
        return None

    # -- for subclasses ---------------------------------------------------------------------
    def _call(self, request: LLMRequest) -> LLMResponse:
        """``_complete``; in async code (:mod:`hallucheck._aio`) a backend that is not
        ``async_native`` runs it in the loop's executor, so the event loop never blocks on it."""
        if self.async_native:
            return self._complete(request)
        return _aio.blocking(self._complete, request)

    @abstractmethod
    def _complete(self, request: LLMRequest) -> LLMResponse:
        """Run one request against the backend (no cache, no accounting)."""

    def _account(self, u: Usage) -> None:
        with self._usage_lock:
            self.usage = self.usage + u
        _record(u)
