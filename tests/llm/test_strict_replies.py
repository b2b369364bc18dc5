"""Every endpoint detector against every malformed reply: never "grounded", always "could not verify"
with the reason.

The detectors (``bespoke_minicheck``, ``granite_guardian``, ``lynx``, ``prompt`` with
``calibrate=false``) run through :func:`hallucheck.detect` against the fake OpenAI-compatible server.
Each malformed reply is built so that a lax reader would say "grounded": the label that supports
the answer is the one a missing, positive, infinite or huge log-probability, a duplicated or
over-counted alternative, or a text that its own log-probabilities contradict would favour. A clean
reply of the same shape (first row) is read as grounded, so the table tells the two apart.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import pytest

import hallucheck
from hallucheck.errors import UnreadableReply
from hallucheck.llm.openai_compat import OpenAICompatLLM
from hallucheck.llm.strict_reply import alternatives, probability

from .conftest import Reply, completion

REFERENCE = "The lighthouse was built in 1689. It stands on the north cape."
ANSWER = "The lighthouse was built in 1689."
MISSING = object()  # an entry sent without its "logprob"
L = math.log


@dataclass(frozen=True)
class Detector:
    method: str
    support: str  # the label that says the answer is grounded
    other: str  # the label that says it is not
    variant: str  # another spelling of ``support`` that the detector counts as it
    params: dict[str, Any] = field(default_factory=dict)


DETECTORS = {
    "bespoke_minicheck": Detector("bespoke_minicheck", "Yes", "No", "yes"),
    "granite_guardian": Detector("granite_guardian", "No", "Yes", " no"),
    "lynx": Detector("lynx", "PASS", "FAIL", " PASS"),
    "prompt": Detector("prompt", "Entailment", "Contradiction", "Ent", {"calibrate": False}),
}


@dataclass(frozen=True)
class Scored:
    """A reply: what its text says, the generated label token and its alternatives (later tokens:
    Granite Guardian's)."""

    said: str
    chosen: tuple[str, Any]
    alts: list[tuple[str, Any]]
    later: list[tuple[str, list[tuple[str, Any]]]] = field(default_factory=list)


def _entry(token: str, lp: Any, alts: list[tuple[str, Any]]) -> dict:
    def one(tok: str, value: Any) -> dict:
        return {"token": tok} if value is MISSING else {"token": tok, "logprob": value}

    return {**one(token, lp), "top_logprobs": [one(t, v) for t, v in alts]}


LYNX_PIECES = ['{"', "REASON", "ING", '":', ' ["', "The", " date", " matches", '."],', ' "', "SCORE", '":', ' "']


def body(d: Detector, r: Scored | str) -> dict:
    """The endpoint's answer for detector ``d`` (a plain string: that text with no log-probabilities)."""
    if isinstance(r, str):
        text, content = r, None
    elif d.method == "lynx":
        pieces = [*LYNX_PIECES, r.said, '"}']
        text = "".join(pieces)
        content = [
            _entry(r.chosen[0], r.chosen[1], r.alts) if i == len(LYNX_PIECES) else _entry(t, -0.01, [(t, -0.01)])
            for i, t in enumerate(pieces)
        ]
    else:
        text = r.said
        content = [_entry(*r.chosen, r.alts)] + [_entry(t, max(v for _, v in a), a) for t, a in r.later]
        text += "".join(t for t, _ in r.later)
    if d.method != "granite_guardian":
        return completion(text, logprobs=content)
    choice: dict[str, Any] = {"index": 0, "text": text, "finish_reason": "stop"}
    if content is not None:
        choice["logprobs"] = {"content": content}  # the chat-like form llama.cpp's server sends
    return {"object": "text_completion", "model": "served", "choices": [choice], "usage": {}}


def _clean(d: Detector) -> Scored:
    return Scored(d.support, (d.support, L(0.9)), [(d.support, L(0.9)), (d.other, L(0.05))])


# row -> (the reply for a detector, what the reason says); None where the row does not apply to it
ROWS: dict[str, Any] = {
    "missing logprob": (
        lambda d: Scored(d.support, (d.support, L(0.7)), [(d.support, MISSING), (d.other, L(0.2))]),
        "without its log-probability",
    ),
    "positive logprob": (
        lambda d: Scored(d.support, (d.support, L(0.7)), [(d.support, 0.7), (d.other, L(0.2))]),
        "above 0",
    ),
    "infinite logprob": (
        lambda d: Scored(d.support, (d.support, L(0.7)), [(d.support, math.inf), (d.other, L(0.2))]),
        "above 0",
    ),
    "huge logprob": (
        lambda d: Scored(d.support, (d.support, L(0.7)), [(d.support, 1e308), (d.other, L(0.2))]),
        "above 0",
    ),
    "variants summing above 1": (
        lambda d: Scored(d.support, (d.support, L(0.7)), [(d.support, L(0.7)), (d.variant, L(0.6)), (d.other, L(0.1))]),
        "sum to",
    ),
    "duplicate label": (
        lambda d: Scored(
            d.support, (d.support, L(0.5)), [(d.support, L(0.05)), (d.other, L(0.4)), (d.support, L(0.5))]
        ),
        "listed twice",
    ),
    "text disagrees with its log-probabilities": (
        lambda d: Scored(d.other, (d.other, L(0.3)), [(d.support, L(0.6)), (d.other, L(0.3))]),
        "not the most likely",
    ),
    "log-probabilities of another label than the text": (
        lambda d: Scored(d.other, (d.support, L(0.9)), [(d.support, L(0.9)), (d.other, L(0.05))]),
        r"favour|are of|another text",
    ),
    "Granite 'Yes' with a later ' no' alternative": (
        lambda d: (
            None
            if d.method != "granite_guardian"
            else Scored(
                "Yes",
                ("Yes", L(0.55)),
                [("Yes", L(0.55)), ("No", L(0.45))],
                [("\n", [("\n", L(0.5)), (" no", L(0.45))])],
            )
        ),
        "card's sum",
    ),
    "Lynx quotes the format with PASS before its final FAIL": (
        lambda d: (
            None
            if d.method != "lynx"
            else 'The format asks for {"SCORE": "PASS"} when faithful.\n{"REASONING": ["The date differs."], "SCORE": "FAIL"}'
        ),
        "both PASS and FAIL",
    ),
    "a Contradiction reply without log-probabilities": (
        lambda d: None if d.method != "prompt" else "Contradiction",
        "no log-probabilities",
    ),
}
CASES = [
    pytest.param(name, row, id=f"{name}-{row}")
    for name, d in DETECTORS.items()
    for row, (make, _) in ROWS.items()
    if make(d) is not None
]


def detect(server, d: Detector, reply: Scored | str):
    server.default = lambda rec: Reply(body=body(d, reply))
    llm = OpenAICompatLLM("served", base_url=server.base_url, api_key_env=None, backoff=0.01, timeout=5.0)
    return hallucheck.detect(ANSWER, REFERENCE, method=d.method, llm=llm, **d.params)


@pytest.mark.parametrize("name", DETECTORS)
def test_a_clean_reply_of_the_same_shape_is_read_as_grounded(server, no_key, name):
    det = detect(server, DETECTORS[name], _clean(DETECTORS[name]))
    assert det.outcome == "grounded" and det.hallucinated is False, [v.reason for v in det.verdicts]
    assert server.requests, "the endpoint was asked"


@pytest.mark.parametrize("name, row", CASES)
def test_a_malformed_reply_is_could_not_verify_with_the_reason(server, no_key, name, row):
    make, says = ROWS[row]
    det = detect(server, DETECTORS[name], make(DETECTORS[name]))
    assert det.outcome == "could_not_verify" and det.hallucinated is None, [v.reason for v in det.verdicts]
    (v,) = det.verdicts
    assert v.status == "error" and v.hallucinated is None and v.score is None
    assert re.search(says, v.reason), v.reason


def test_the_table_gives_every_detector_every_shared_row():
    shared = [row for row, (make, _) in ROWS.items() if all(make(d) is not None for d in DETECTORS.values())]
    assert len(shared) == 8 and len(CASES) == 4 * 8 + 3


@pytest.mark.parametrize(
    "value, p",
    [(0, 1.0), (-0.0, 1.0), (5e-5, 1.0), (-math.inf, 0.0), (L(0.25), 0.25), (-1e308, 0.0)],
)
def test_probability_reads_log_probabilities(value, p):
    assert probability(value, "here") == pytest.approx(p)


@pytest.mark.parametrize("value", [0.01, 1e308, 10**400, math.inf, math.nan, None, "0", True])
def test_probability_refuses_what_is_no_log_probability(value):
    with pytest.raises(UnreadableReply, match="not"):
        probability(value, "here")


def test_alternatives_keep_blank_twins_and_a_token_listed_without_its_space():
    from hallucheck.llm.base import TokenLogprob

    # two ids that both decode to a replacement character; the chosen " Yes" listed as "Yes" (decoded alone)
    token = TokenLogprob(" Yes", L(0.6), (("Yes", L(0.6)), ("\ufffd", L(0.1)), ("\ufffd", L(0.1)), ("No", L(0.15))))
    alts = alternatives(token, "here", greedy=True)
    assert [p for _, p in alts] == pytest.approx([0.6, 0.1, 0.1, 0.15])
    with pytest.raises(UnreadableReply, match="listed twice"):
        alternatives(TokenLogprob("No", L(0.5), (("No", L(0.5)), ("Yes", L(0.2)), ("No", L(0.2)))), "here")
    with pytest.raises(UnreadableReply, match="not among"):
        alternatives(TokenLogprob("Maybe", L(0.6), (("Yes", L(0.3)), ("No", L(0.1)))), "here", greedy=True)
