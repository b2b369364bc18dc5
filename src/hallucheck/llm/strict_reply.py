"""One strict reader of scored replies, shared by every detector that turns log-probabilities into
a verdict (the endpoint detectors of :mod:`hallucheck.stages.llm_detectors` and label scoring in
:meth:`hallucheck.llm.base.LLMClient.score_labels`).

A log-probability is read only when it is one: a finite number at most 0 (a rounding error above
0 is probability 1). Minus infinity is probability 0. The alternatives of one token must be
distinct and their probabilities must not sum above 1. A reply read greedily (temperature 0) says
the label that its own probabilities favour; when its text and its probabilities disagree, it is
not read either way. Whatever fails is an :class:`~hallucheck.errors.UnreadableReply` that says
why (its handlers make an error verdict, "could not verify", keeping the raw reply): no number is
made up for a missing, positive, infinite or huge value, and no label is taken from a reply whose
parts contradict each other.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Sequence

from ..errors import UnreadableReply

# how far above 0 a log-probability may be and still be read (as probability 1): float rounding of a
# log-softmax at a near-certain token, nothing more
ROUNDING = 1e-4
# how far above 1 the probabilities of one token's alternatives may sum (rounding of each term, e.g. by a
# server that rounds log-probabilities to a few decimals)
MASS_SLACK = 0.01
# how much more likely than the label a reply says another label may be before the two disagree
# (ties and rounding; a greedy reply says its most likely label)
AGREE_SLACK = 1e-3


def unreadable(problem: str, raw: str = "") -> UnreadableReply:
    return UnreadableReply(f"{problem}; the reply cannot be read, not verified.", raw=raw[:2000])


def probability(logprob: Any, where: str, raw: str = "") -> float:
    """exp(``logprob``), checked: a number, not NaN, at most :data:`ROUNDING` (so ``+inf`` and huge
    values are refused, not overflowed); ``-inf`` is 0."""
    if isinstance(logprob, bool) or not isinstance(logprob, (int, float)):
        raise unreadable(f"{where}: the log-probability {logprob!r:.60} is not a number", raw)
    try:
        value = float(logprob)
    except OverflowError:
        value = math.inf
    if math.isnan(value) or value > ROUNDING:
        raise unreadable(f"{where}: the log-probability {logprob!r:.60} is not one (a probability above 1)", raw)
    return math.exp(min(value, 0.0))


def alternatives(token: Any, where: str, raw: str = "", *, greedy: bool = False) -> list[tuple[str, float]]:
    """(text, probability) of the alternatives of one generated token (a
    :class:`~hallucheck.llm.base.TokenLogprob`; the token itself when the endpoint lists none), each
    checked by :func:`probability`; a word listed twice or a sum above 1 is refused (two tokens may
    both decode to a blank or a replacement character: those are kept). ``greedy``: the token was
    chosen at temperature 0, so it is listed (its text, else its text without blanks: a backend may
    decode an alternative without the space its context gives it) with its own probability, and no
    alternative is more likely."""
    chosen = probability(token.logprob, f"{where}, the generated token {token.token!r:.40}", raw)
    pairs = list(token.top) or [(token.token, token.logprob)]
    out: list[tuple[str, float]] = []
    seen: set[str] = set()
    for text, lp in pairs:
        if not isinstance(text, str):
            raise unreadable(f"{where}: an alternative is not text ({text!r:.60})", raw)
        if text in seen and any(ch.isalnum() for ch in text):
            raise unreadable(f"{where}: the alternative {text!r:.40} is listed twice", raw)
        seen.add(text)
        out.append((text, probability(lp, f"{where}, alternative {text!r:.40}", raw)))
    total = math.fsum(p for _, p in out)
    if total > 1.0 + MASS_SLACK:
        raise unreadable(f"{where}: the alternatives' probabilities sum to {total:.4g}, above 1", raw)
    if greedy and token.top:
        best = max(p for _, p in out)
        listed = [p for text, p in out if text == token.token] or [
            p for text, p in out if text.strip() == token.token.strip()
        ]
        if not listed:
            raise unreadable(f"{where}: the generated token {token.token!r:.40} is not among its alternatives", raw)
        if all(abs(p - chosen) > AGREE_SLACK for p in listed):
            raise unreadable(
                f"{where}: the generated token {token.token!r:.40} has probability {chosen:.3f}, but "
                f"{listed[0]:.3f} among its alternatives",
                raw,
            )
        if chosen + AGREE_SLACK < best:
            raise unreadable(
                f"{where}: the generated token {token.token!r:.40} (probability {chosen:.3f}) is not the most "
                f"likely of its alternatives ({best:.3f}) at temperature 0",
                raw,
            )
    return out


def first_alternatives(response: Any, where: str, raw: str = "") -> list[tuple[str, float]]:
    """:func:`alternatives` of the first generated token of a greedy ``response`` (an
    :class:`~hallucheck.llm.base.LLMResponse` with log-probabilities) whose text that token must
    spell: log-probabilities of another token than the reply's are not its reading."""
    first = response.logprobs[0]
    text, token = response.text.strip(), first.token.strip()
    if text and token and not (text.startswith(token) or token.startswith(text)):
        raise unreadable(
            f"{where}: the reply says {response.text[:40]!r} but its log-probabilities are of {first.token!r:.40}", raw
        )
    return alternatives(first, where, raw, greedy=True)


def shares(alts: Sequence[tuple[str, float]], labels: Mapping[str, Callable[[str], bool]]) -> dict[str, float]:
    """The summed probability of the alternatives each label's test accepts."""
    return {label: math.fsum(p for text, p in alts if accepts(text)) for label, accepts in labels.items()}


def agree(said: str, probs: Mapping[str, float], where: str, raw: str = "") -> None:
    """Refuse a reply whose text says ``said`` while its probabilities favour another label."""
    other, most = max(((k, v) for k, v in probs.items() if k != said), key=lambda kv: kv[1])
    if probs.get(said, 0.0) + AGREE_SLACK < most:
        shown = ", ".join(f"{k} {v:.3f}" for k, v in probs.items())
        raise unreadable(f"{where}: the reply says {said} but its log-probabilities favour {other} ({shown})", raw)


__all__ = [
    "AGREE_SLACK",
    "MASS_SLACK",
    "ROUNDING",
    "agree",
    "alternatives",
    "first_alternatives",
    "probability",
    "shares",
    "unreadable",
]
