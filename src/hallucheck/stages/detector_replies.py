"""How the endpoint detectors (:mod:`hallucheck.stages.llm_detectors`) read one reply into
(P(hallucinated), raw reply, meta), each through the strict reader of
:mod:`hallucheck.llm.strict_reply`.

A reply is read only when all of it says the same thing: its label text names one label (Lynx: one
``"SCORE"``, however often it is written), and where the endpoint gave log-probabilities they are
log-probabilities (finite, at most 0, distinct alternatives summing to at most 1, the generated
token the most likely of them at temperature 0) and they favour the label the text names.
Anything else raises :class:`~hallucheck.errors.UnreadableReply` with the reason: the detector's
verdict is an error ("could not verify"), never "grounded" read from a reply that does not say so.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

from ..llm.base import LLMResponse
from ..llm.strict_reply import agree, alternatives, shares, unreadable

Reading = tuple[float, str, dict[str, Any]]

LYNX_SCORE = re.compile(r'"SCORE":\s*"?\b(PASS|FAIL)\b"?')  # NeMo Guardrails' reading


def _word(word: str, *, stripped: bool = True) -> Callable[[str], bool]:
    """A label test: the alternative's text, lower-cased (and stripped of blanks), is ``word``."""
    return lambda text: (text.strip() if stripped else text).lower() == word


def read_bespoke(resp: LLMResponse) -> Reading:
    """Bespoke-MiniCheck: the one-token reply is Yes or No; with log-probabilities P(supported) is the
    sum of the first token's alternatives whose text, lower-cased, is ``yes`` (the authors')."""
    raw = resp.text
    word = raw.strip().lower()
    if word not in ("yes", "no"):
        raise unreadable(f"the reply {raw[:80]!r} is neither Yes nor No", raw)
    said = "Yes" if word == "yes" else "No"
    if not resp.logprobs:
        return (0.0 if said == "Yes" else 1.0), raw, {"how": "label text", "support": float(said == "Yes")}
    first = alternatives(resp.logprobs[0], "the first token", raw, greedy=True)
    if not any(tok.strip().lower() in ("yes", "no") for tok, _ in first):
        # the authors would count this as P(Yes) = 0; a reply that is no label is not a verdict
        raise unreadable(f"neither Yes nor No is among the {len(first)} most likely first tokens {first!r:.300}", raw)
    probs = shares(first, {"Yes": _word("yes", stripped=False), "No": _word("no", stripped=False)})
    agree(said, probs, "the first token", raw)
    support = min(1.0, probs["Yes"])
    return 1.0 - support, raw, {"how": "log-probabilities", "support": support}


def read_granite(resp: LLMResponse) -> Reading:
    """Granite Guardian: the reply starts with Yes (the risk is present) or No; with
    log-probabilities P(risk) is the model card's ``yes`` share of the yes/no alternatives of every
    generated token, read only when it, and the label token's own alternatives, favour the label."""
    raw = resp.text
    m = re.match(r"\s*(yes|no)\b", raw, re.IGNORECASE)
    label = m.group(1).capitalize() if m else None
    meta: dict[str, Any] = {"label": label}
    conf = re.search(r"<confidence>\s*(\w+)\s*</confidence>", raw)
    if conf:  # Granite Guardian 3.2 adds its verbalised confidence
        meta["confidence"] = conf.group(1)
    if label is None:
        raise unreadable(f"the reply {raw[:80]!r} is neither Yes nor No", raw)
    if not resp.logprobs:
        return (1.0 if label == "Yes" else 0.0), raw, {**meta, "how": "label text"}
    yes_no = {"Yes": _word("yes"), "No": _word("no")}
    tokens = [alternatives(t, f"token {i}", raw, greedy=True) for i, t in enumerate(resp.logprobs)]
    at = next((i for i, t in enumerate(resp.logprobs) if t.token.strip()), None)
    at_label = shares(tokens[at], yes_no) if at is not None else {"Yes": 0.0, "No": 0.0}
    if not any(at_label.values()):
        raise unreadable(f"neither Yes nor No is among the likely alternatives of the label token of {raw[:80]!r}", raw)
    agree(label, at_label, f"the label token (token {at})", raw)
    summed = [shares(t, yes_no) for t in tokens]
    unsafe = 1e-50 + sum(s["Yes"] for s in summed)  # the card's sums, from 1e-50
    safe = 1e-50 + sum(s["No"] for s in summed)
    risk = unsafe / (safe + unsafe)
    agree(label, {"Yes": risk, "No": 1.0 - risk}, "the yes/no alternatives of all its tokens (the card's sum)", raw)
    return risk, raw, {**meta, "how": "log-probabilities"}


def read_lynx(resp: LLMResponse) -> Reading:
    """Lynx: the reply's ``"SCORE"`` is PASS or FAIL, the same wherever it is written (a reasoning
    that quotes the format with another label is not read); with log-probabilities P(FAIL) is read
    at the label's token (its PASS/FAIL alternatives, normalised) and must favour that label."""
    raw = resp.text
    found = list(LYNX_SCORE.finditer(raw))
    if not found:
        raise unreadable(f'the reply has no "SCORE": PASS or FAIL: {raw[:120]!r}', raw)
    named = {m.group(1) for m in found}
    if len(named) > 1:
        raise unreadable(
            f'the reply gives "SCORE" as both PASS and FAIL ({len(found)} times; a quoted format or a changed '
            "answer is not a verdict)",
            raw,
        )
    label = found[-1].group(1)
    meta: dict[str, Any] = {"label": label}
    token = _token_at(resp, found[-1].start(1)) if resp.logprobs else None
    if token is None:  # no log-probabilities, or none that line up with the label in the text
        return (1.0 if label == "FAIL" else 0.0), raw, {**meta, "how": "label text"}
    alts = alternatives(token, "the label token", raw, greedy=True)

    def starts(name: str) -> Callable[[str], bool]:  # the label's start, or the label and what follows it
        return lambda text: bool(w := text.strip(' "').upper()) and (name.startswith(w) or w.startswith(name))

    probs = shares(alts, {"PASS": starts("PASS"), "FAIL": starts("FAIL")})
    total = probs["PASS"] + probs["FAIL"]
    if total <= 0:
        raise unreadable(f"neither PASS nor FAIL is among the alternatives of the label token {token.token!r}", raw)
    agree(label, probs, "the label token", raw)
    return probs["FAIL"] / total, raw, {**meta, "how": "log-probabilities"}


def _token_at(resp: LLMResponse, at: int) -> Any:
    """The generated token that starts the label at character ``at`` of the reply (only blanks or
    quotes before it in the token), found where the tokens spell the reply: from its start, else
    from its end. None when they do not line up with the text on the way to the label (e.g. a
    character the server split across tokens); an :class:`UnreadableReply` when the one token that
    does not spell the text is the label's (the log-probabilities are of another label)."""
    text, tokens = resp.text, resp.logprobs or ()
    stuck: list[int] = []  # per direction: the index of the first token that does not spell the text
    for forward in (True, False):
        pos = 0 if forward else len(text)
        order = range(len(tokens)) if forward else range(len(tokens) - 1, -1, -1)
        for i in order:
            tok = tokens[i].token
            start = pos if forward else pos - len(tok)
            if start < 0 or text[start : start + len(tok)] != tok:
                stuck.append(i)
                break
            if start <= at < start + len(tok):
                return tokens[i] if tok[: at - start].strip(' "') == "" else None
            pos = start + len(tok) if forward else start
        else:
            stuck.append(-1)
    if stuck[0] == stuck[1] >= 0:
        raise unreadable(
            f"the reply's label is at the one token whose log-probabilities are of another text "
            f"({tokens[stuck[0]].token!r:.40})",
            text,
        )
    return None


__all__: Sequence[str] = ["LYNX_SCORE", "read_bespoke", "read_granite", "read_lynx"]
