"""A scripted LLM for tests: replies (and label scores) come from a script, not a model."""

from __future__ import annotations

import threading
from typing import Any, Callable, Mapping, Sequence

from ..errors import BackendError, BackendTimeout
from ..types import Usage
from .base import LabelScores, LLMClient, LLMRequest, LLMResponse, Message, TokenLogprob

# A scripted reply: text, an exception to raise, a function of the request, or a token list
# (``TokenLogprob`` items or ``(token, logprob)`` / ``(token, logprob, entropy)`` tuples).
Reply = str | Exception | Callable[[LLMRequest], Any] | Sequence[Any]


class FakeLLM(LLMClient):
    """Returns scripted replies in order, or from a function of the request.

    - ``replies``: a list consumed in order (an ``Exception`` item is raised instead), or a
      callable ``request -> reply``. A reply is a string or a list of tokens: ``TokenLogprob``
      items or ``(token, logprob)`` / ``(token, logprob, entropy)`` tuples, whose concatenation
      is the reply text. String replies get one token per word with log-probability -0.1 (no
      entropy); token lists give tests exact control over per-token probabilities/entropies.
    - ``label_scores``: a list (consumed in order) or callable giving ``{label: logprob}`` for
      :meth:`score_labels`; when absent, ``score_labels`` raises like a backend without
      log-probabilities would.
    Every request is kept in ``requests`` so tests can assert on prompts and call counts.
    Token counts are whitespace word counts.
    """

    model_id = "fake"
    supports_text_completion = True  # complete_text requests are scripted like any other

    def __init__(
        self,
        replies: Sequence[Reply] | Callable[[LLMRequest], str] = (),
        *,
        label_scores: Sequence[Mapping[str, float]]
        | Callable[[tuple[Message, ...], tuple[str, ...]], Mapping[str, float]]
        | None = None,
        cache: Any = None,
        model_id: str = "fake",
    ) -> None:
        super().__init__(cache=cache)
        self.model_id = model_id
        self._replies = replies if callable(replies) else list(replies)
        self._label_scores = label_scores if (label_scores is None or callable(label_scores)) else list(label_scores)
        self.supports_logprobs = label_scores is not None
        self.requests: list[LLMRequest] = []
        self._lock = threading.Lock()

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def _next(self, queue: list[Any], what: str) -> Any:
        with self._lock:
            if not queue:
                raise AssertionError(f"FakeLLM ran out of scripted {what} (after {len(self.requests)} requests)")
            return queue.pop(0)

    def _complete(self, request: LLMRequest) -> LLMResponse:
        with self._lock:
            self.requests.append(request)
        reply = self._replies(request) if callable(self._replies) else self._next(self._replies, "replies")
        if isinstance(reply, Exception):
            raise reply
        if callable(reply):
            reply = reply(request)
        scripted = None
        if not isinstance(reply, str):
            scripted = _as_tokens(reply)
            reply = "".join(t.token for t in scripted)
        prompt_tokens = sum(self.count_tokens(m.content) for m in request.messages)
        logprobs = None
        if request.logprobs is not None:
            logprobs = scripted if scripted is not None else tuple(TokenLogprob(w, -0.1) for w in reply.split())
        return LLMResponse(
            text=reply,
            usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=self.count_tokens(reply)),
            model=self.model_id,
            logprobs=logprobs,
        )

    def _score_labels(self, messages: tuple[Message, ...], labels: tuple[str, ...], prefix: str) -> LabelScores:
        with self._lock:
            self.requests.append(LLMRequest(messages=messages, max_tokens=1, stop=labels))
        if self._label_scores is None:
            raise BackendError("FakeLLM has no scripted label_scores (a backend without log-probabilities).")
        if callable(self._label_scores):
            scored = self._label_scores(messages, labels)
        else:
            scored = self._next(self._label_scores, "label scores")
        if isinstance(scored, Exception):
            raise scored
        missing = [x for x in labels if x not in scored]
        if missing:
            raise AssertionError(f"scripted label scores lack {missing}")
        prompt_tokens = sum(self.count_tokens(m.content) for m in messages)
        return LabelScores(
            {x: float(scored[x]) for x in labels}, Usage(prompt_tokens=prompt_tokens, completion_tokens=1)
        )


def _as_tokens(reply: Any) -> tuple[TokenLogprob, ...]:
    out = []
    for item in reply:
        if isinstance(item, TokenLogprob):
            out.append(item)
        elif isinstance(item, (tuple, list)) and len(item) in (2, 3) and isinstance(item[0], str):
            out.append(TokenLogprob(item[0], float(item[1]), (), None if len(item) == 2 else float(item[2])))
        else:
            raise AssertionError(
                f"FakeLLM token replies hold TokenLogprob or (token, logprob[, entropy]) items; got {item!r}"
            )
    return tuple(out)


__all__ = ["FakeLLM", "BackendTimeout"]
