"""The operator's limits on one request of ``hallucheck serve``: its LLM calls, the tokens each
may generate, the size of its response, and the methods that would fetch a model from the hub."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import BackendError, InputError

# methods whose default model is a hub id: served only with a local model named by the operator
HUB_MODEL_PARAMS: dict[str, tuple[str, ...]] = {
    "hhem": ("model", "foundation"),
    "minicheck": ("model",),
    "lettucedetect": ("model",),
}


class CallRefused(BackendError):
    """An LLM call this request may not make (its limit is reached, or the request was stopped):
    not a failure of the LLM, so the server's health does not change."""


class RequestBudget:
    """A :func:`hallucheck.llm.base.call_guard` for one request: at most ``max_calls`` calls that
    reach the LLM (cached replies are free), ``max_tokens`` at most per call, and no call at all
    once :meth:`stop` was called (the request timed out: nobody waits for its answer)."""

    def __init__(self, max_calls: int | None = None, max_tokens: int | None = None) -> None:
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self.calls = 0
        self.refused = 0
        self.stopped: str | None = None
        self._lock = threading.Lock()

    def request(self, request: Any) -> Any:
        if self.max_tokens is not None and request.max_tokens > self.max_tokens:
            return replace(request, max_tokens=self.max_tokens)
        return request

    def call(self) -> None:
        with self._lock:
            if self.stopped is not None:
                self.refused += 1
                raise CallRefused(f"no further LLM call: {self.stopped}")
            if self.max_calls is not None and self.calls >= self.max_calls:
                self.refused += 1
                raise CallRefused(
                    f"this request reached the server's limit of {self.max_calls} LLM calls (--max-llm-calls); "
                    "the rest was not verified"
                )
            self.calls += 1

    def stop(self, why: str) -> None:
        with self._lock:
            self.stopped = why


def check_max_tokens(params: dict[str, Any], cap: int | None) -> None:
    """A request's ``max_tokens`` parameter above the operator's cap is refused (422)."""
    value = params.get("max_tokens")
    if cap is not None and isinstance(value, (int, float)) and not isinstance(value, bool) and value > cap:
        raise InputError(
            f"params.max_tokens: at most {cap} on this server (--max-tokens); got {value!r}.", field="params.max_tokens"
        )


def hub_refusal(method: str, fixed: dict[str, Any]) -> str | None:
    """Why ``method`` is not served (its model would come from the model hub), or None."""
    params = HUB_MODEL_PARAMS.get(method)
    if not params:
        return None
    missing = [p for p in params if not (isinstance(fixed.get(p), str) and Path(fixed[p]).is_dir())]
    if not missing:
        return None
    settings = " ".join(f"--set {method}.{p}=/path/to/local/dir" for p in missing)
    return (
        f"The method {method!r} is not served here: its default model comes from the model hub, and a "
        f"request never makes the server contact it. The operator names a local model to serve it ({settings})."
    )


def response_too_large(size: int, cap: int) -> InputError:
    return InputError(
        f"the response would be {size:,} bytes, over this server's limit of {cap:,} (--max-response-mb); "
        "send a shorter answer or split it",
        field="answer",
    )
