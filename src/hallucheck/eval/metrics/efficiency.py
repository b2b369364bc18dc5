"""Cost of a run: the Token Expansion Ratio and the per-example efficiency figures of ``metrics.json``."""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any, Iterable, Mapping

from ...errors import InputError


def _count(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(float(value)) or value < 0:
        raise InputError(f"{what} must be a non-negative number, got {value!r}", field=what)
    return float(value)


def ter(total_tokens: float, input_tokens: float) -> float:
    """Token Expansion Ratio (HSP paper, Eq. 7): all tokens the method used (prompts and
    completions of every call) divided by the number of tokens of the input text. 1.0 means the
    method spent as many tokens as it was given to check."""
    total = _count(total_tokens, "total_tokens")
    given = _count(input_tokens, "input_tokens")
    if given <= 0:
        raise InputError(f"input_tokens must be greater than 0, got {input_tokens!r}", field="input_tokens")
    return total / given


def _usage_value(usage: Any, key: str, where: str) -> float:
    """``usage[key]`` (a mapping) or ``usage.key`` (e.g. :class:`hallucheck.types.Usage`); 0 when absent."""
    value = usage.get(key, 0) if isinstance(usage, Mapping) else getattr(usage, key, 0)
    return _count(0 if value is None else value, f"{where}.{key}")


def efficiency(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Average cost per example of a run: the ``efficiency`` entry of ``metrics.json``.

    ``records`` are the runner's records (``OUT/results.jsonl``), one per example: a ``usage``
    (a dict or :class:`hallucheck.types.Usage` with ``calls``, ``cached_calls``,
    ``prompt_tokens``, ``completion_tokens`` and ``seconds``; absent counts are 0) and optionally
    ``input_tokens`` (the tokens of the text checked) and ``seconds`` (the example's wall-clock
    time). Returns, per example:

    * ``llm_calls_per_example``: LLM calls the method made, **counting answers served from the
      response cache** (``calls + cached_calls``): the method's cost does not depend on whether a
      rerun found its replies cached, so a resumed or repeated run reports the same figure;
    * ``prompt_tokens_per_example``, ``completion_tokens_per_example``;
    * ``seconds_per_example``: the mean of the examples' own wall-clock times (independent of
      ``--workers``), ``None`` when no record has one;
    * ``llm_seconds_per_example``: time spent waiting for the LLM;
    * ``cached_calls``: the run's total of calls answered from the cache;
    * ``ter``: the Token Expansion Ratio (:func:`ter`) of the whole run, all tokens over all input
      tokens, or ``None`` unless there was a call and every record has a positive ``input_tokens``.

    An empty run gives ``{}``; a negative or non-numeric count raises :class:`InputError`."""
    if isinstance(records, Mapping):
        raise InputError("records must be a list of run records, got a single mapping", field="records")
    rows = list(records)
    n = len(rows)
    if not n:
        return {}
    calls = cached = prompt = completion = llm_seconds = 0.0
    inputs: list[Any] = []
    seconds: list[float] = []
    for i, r in enumerate(rows):
        if not isinstance(r, Mapping):
            raise InputError(f"records[{i}] must be a run record (a dict), got {type(r).__name__}", field="records")
        usage = r.get("usage") or {}
        where = f"records[{i}].usage"
        calls += _usage_value(usage, "calls", where)
        cached += _usage_value(usage, "cached_calls", where)
        prompt += _usage_value(usage, "prompt_tokens", where)
        completion += _usage_value(usage, "completion_tokens", where)
        llm_seconds += _usage_value(usage, "seconds", where)
        inputs.append(r.get("input_tokens"))
        if r.get("seconds") is not None:
            seconds.append(_count(r["seconds"], f"records[{i}].seconds"))
    out: dict[str, Any] = {
        "llm_calls_per_example": (calls + cached) / n,
        "prompt_tokens_per_example": prompt / n,
        "completion_tokens_per_example": completion / n,
        "seconds_per_example": (sum(seconds) / len(seconds)) if seconds else None,
        "llm_seconds_per_example": llm_seconds / n,
        "cached_calls": int(cached),
    }
    given = all(isinstance(t, Integral) and not isinstance(t, bool) and t > 0 for t in inputs)
    out["ter"] = ter(prompt + completion, sum(inputs)) if calls + cached and given else None
    return out
