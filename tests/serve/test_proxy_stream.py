"""The stream guard alone (no HTTP): an upstream's events fed at once and a checker that answers
at once, so that every check is done before the text it follows has been passed on."""

from __future__ import annotations

import asyncio
import json

import pytest

from _fake_openai import stream_chunks
from _proxy_helpers import ANSWER, BAD, GOOD, REF, TAIL, content, verdict_chunks
from hallucheck.serve.proxy_check import Ask
from hallucheck.serve.proxy_stream import SentenceBuffer, StreamGuard
from hallucheck.types import Detection


class InstantChecker:
    method = "instant"

    async def detect(self, text, ask, context=""):
        return Detection(text, REF, None, "instant", "1925" in text, 0.9 if "1925" in text else 0.1)


async def feed(chunks):
    for c in chunks:
        yield json.dumps(c)
        await asyncio.sleep(0)  # the network: other tasks run between two chunks
    yield "[DONE]"


def run(policy):
    async def go():
        guard = StreamGuard(InstantChecker(), Ask(REF, "extension", policy))
        out = []
        async for piece in guard.run(feed(stream_chunks(ANSWER))):
            out.append(piece)
            for _ in range(5):  # a slow client: the reader and the checks run ahead of what went out
                await asyncio.sleep(0)
        return out

    out = asyncio.run(go())
    return [json.loads(p[6:]) if p != b"data: [DONE]\n\n" else "[DONE]" for p in out]


@pytest.mark.parametrize("policy", ["annotate", "hold"])
def test_a_verdict_never_goes_out_before_its_sentence(policy):
    evs = run(policy)
    seen = ""
    for e in evs:
        if isinstance(e, dict) and "hallucheck" in e and not e["hallucheck"].get("final"):
            assert len(seen) >= e["hallucheck"]["sentence"]["end"], "a verdict came before its sentence's text"
        seen += content([e]) if isinstance(e, dict) else ""
    assert seen == ANSWER and [v["hallucinated"] for v in verdict_chunks(evs)] == [False, True, False]


def test_the_buffer_hands_out_sentences_as_they_end_and_the_whole_answer_in_all():
    buf = SentenceBuffer()
    got = []
    for word in stream_chunks(ANSWER)[1:-1]:
        got += [(s.sentence, buf.text[s.start : s.end]) for s in buf.add(word["choices"][0]["delta"]["content"])]
        if word["choices"][0]["delta"]["content"] == " It" and len(got) == 1:
            assert got == [(GOOD, GOOD + " ")]  # over once the next sentence has begun
    got += [(s.sentence, buf.text[s.start : s.end]) for s in buf.finish()]
    assert [g[0] for g in got] == [GOOD, BAD, TAIL] and "".join(g[1] for g in got) == ANSWER
