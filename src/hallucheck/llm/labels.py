"""Ask an LLM to choose one label from a fixed set, robustly.

With a backend that gives log-probabilities (llama.cpp, vLLM, OpenAI) the labels are scored
directly (first token of each label after ``prefix``): no free text to parse, and a
probability per label for thresholds and AUC. Otherwise the reply is generated and parsed
strictly (the first label word, on word boundaries, case-insensitive); a reply that names no
label is retried once with a reminder of the allowed labels; if that fails too the judgement
is an error that keeps the raw replies. Nothing is guessed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from ..errors import BackendError, UnreadableReply
from .base import LLMClient, Message, as_messages


@dataclass(frozen=True)
class Judgement:
    label: str | None
    probs: Mapping[str, float] | None = None  # over the label set, when scored
    raw: str | None = None
    error: str | None = None
    meta: Mapping[str, object] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.label is not None


def parse_label(reply: str, labels: Sequence[str]) -> str | None:
    """The earliest label named in ``reply`` as a whole word (case-insensitive), else None."""
    best: tuple[int, str] | None = None
    for label in labels:
        m = re.search(rf"(?<![\w]){re.escape(label)}(?![\w])", reply, re.IGNORECASE)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), label)
    return best[1] if best else None


def judge(
    llm: LLMClient,
    messages: Sequence[Message | Mapping[str, str]],
    labels: Sequence[str],
    *,
    prompt: str,
    prefix: str = "",
    use_logprobs: bool | None = None,
    max_tokens: int = 16,
    parse: Callable[[str, Sequence[str]], str | None] = parse_label,
) -> Judgement:
    """Choose one of ``labels``. ``use_logprobs=None`` scores labels when the backend can."""
    msgs = as_messages(messages)
    scored = llm.supports_logprobs if use_logprobs is None else use_logprobs
    if scored:
        try:
            s = llm.score_labels(msgs, labels, prompt=prompt, prefix=prefix)
        except UnreadableReply as exc:
            return Judgement(None, raw=exc.raw or None, error=f"The LLM reply could not be scored: {exc}")
        except BackendError as exc:
            return Judgement(None, error=f"LLM backend failed: {exc}")
        # how likely the reply starts with any label at all (their log-probabilities are of the whole vocabulary)
        mass = min(1.0, sum(math.exp(v) for v in s.logprobs.values()))
        return Judgement(s.best, s.probs, meta={"label_mass": mass})
    raws: list[str] = []
    attempt = msgs + ((Message("assistant", prefix),) if prefix else ())
    for round_ in range(2):
        try:
            reply = llm.complete(
                attempt, prompt=prompt if round_ == 0 else f"{prompt}+repair", max_tokens=max_tokens
            ).text
        except BackendError as exc:
            return Judgement(None, raw="\n---\n".join(raws) or None, error=f"LLM backend failed: {exc}")
        raws.append(reply)
        label = parse(prefix + reply if prefix else reply, labels)
        if label is not None:
            return Judgement(label, raw=reply)
        attempt = msgs + (
            Message("assistant", reply),
            Message("user", f"Answer with exactly one of: {', '.join(labels)}."),
        )
    return Judgement(
        None,
        raw="\n---\n".join(raws),
        error=f"The LLM reply named none of the labels {', '.join(labels)}, even when asked again.",
    )
