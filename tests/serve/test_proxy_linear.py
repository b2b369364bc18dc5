"""The proxy's stream work grows linearly: the sentence buffer re-reads only the new text and hands
out an unfinished sentence in pieces past a length bound; one request with many slow checks does
not hold the check pool from another client's stream; a request's checks have a budget."""

from __future__ import annotations

import random
import re
import threading
import time

import pytest

from _fake_openai import FakeOpenAIServer, Reply, sse, stream_chunks
from _proxy_helpers import GOOD, REF, LiveProxy, NumbersVerifier, content, events, final_chunk, standin
from hallucheck.pipeline import Pipeline
from hallucheck.serve.proxy_stream import SentenceBuffer
from hallucheck.stages.claims import SentenceExtractor
from hallucheck.stages.evidence import AllSentencesRetriever
from hallucheck.text.segment import split_sentences


def reference_segments(pieces: list[str]) -> list[tuple[str, str]]:
    """What the buffer hands out, by the plain rule: after each piece, split all the text after the
    last cut again; every sentence but the last is over."""
    text, cut, out = "", 0, []
    for piece in [*pieces, None]:
        if piece is not None:
            text += piece
        pending = text[cut:]
        spans = split_sentences(pending)
        ends = [b.start for b in spans[1:]] + ([len(pending)] if piece is None else [])
        start = 0
        for span, end in zip(spans, ends):
            out.append((span.text, pending[start:end]))
            start = end
        if piece is None and start < len(pending):
            out.append(("", pending[start:]))
            start = len(pending)
        cut += start
    return out


def fed(buffer: SentenceBuffer, pieces: list[str]) -> list[tuple[str, str]]:
    segs = [s for p in pieces for s in buffer.add(p)] + buffer.finish()
    assert [s.index for s in segs] == list(range(len(segs)))
    text = "".join(pieces)
    assert all(text[s.start : s.end] == s.raw and text[s.offset :].startswith(s.sentence) for s in segs)
    return [(s.sentence, s.raw) for s in segs]


SAMPLES = [
    "The Eiffel Tower is in Paris. It was completed in 1889 and is 330 m tall! Is it? Yes.",
    "Dr. Smith met Mr. J. K. Rowling in the U.S. on 3.5 days. She said: “It is 2.6 km.” Then left.\n\n- one\n- two",
    "See fig. 2.\nNext line starts here\nand goes on; here.\n\n\nNew paragraph.  Spaces   between. End",
    "东京是日本的首都。人口很多！Москва — столица. Ещё одно предложение? Да.",
    "A sentence (with brackets.) Another one.” \"Quoted.\" 'Single.' … And an ellipsis… Then more.",
]


@pytest.mark.parametrize("sample", SAMPLES)
def test_the_buffer_hands_out_what_splitting_everything_again_would(sample):
    rng = random.Random(7)
    for _ in range(30):
        cuts = sorted(rng.sample(range(1, len(sample)), min(len(sample) - 1, rng.randint(1, 25))))
        pieces = [sample[a:b] for a, b in zip([0, *cuts], [*cuts, len(sample)])]
        assert fed(SentenceBuffer(), pieces) == reference_segments(pieces), pieces


def test_an_unfinished_sentence_is_handed_out_in_pieces_of_bounded_length():
    words = [f" word{i % 97}" for i in range(20_000)]
    t0 = time.process_time()
    buffer = SentenceBuffer(max_sentence=1500)
    segs = [s for w in words for s in buffer.add(w)]
    spent = time.process_time() - t0
    assert len(segs) >= 90 and all(len(s.raw) <= 1500 for s in segs)
    assert all(s.raw.endswith(" ") and s.sentence[-1].isdigit() for s in segs)  # cut at a space, not in a word
    assert "".join(s.raw for s in segs) + buffer.pending == "".join(words)
    assert len(buffer.pending) <= 1500
    assert spent < 5.0  # about 0.4 s here; re-splitting everything after each word took minutes


def test_the_work_of_the_buffer_is_linear_in_the_answer():
    """Characters given to the splitter, over the answer's length: the same for 2,000 and 20,000 words."""
    import hallucheck.serve.proxy_buffer as module

    read = [0]
    real = module.split_sentences

    def counting(text):
        read[0] += len(text)
        return real(text)

    ratios = []
    for n in (2_000, 20_000):
        read[0] = 0
        module.split_sentences = counting
        try:
            buffer = SentenceBuffer()
            text = "".join(f" word{i % 97}" for i in range(n))
            for i in range(0, len(text), 7):
                buffer.add(text[i : i + 7])
        finally:
            module.split_sentences = real
        ratios.append(read[0] / len(text))
    assert ratios[1] < 1.2 * ratios[0] and ratios[1] < 60


# -- the pool, shared fairly -----------------------------------------------------------------------------
class SlowOnBigReference(NumbersVerifier):
    """A check that takes ``delay`` seconds when the reference is long (one request's huge reference)."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    def verify(self, claims, evidence, *, reference, question=None, answer=None):
        if len(reference) > 10_000:
            time.sleep(self.delay)
        return super().verify(claims, evidence, reference=reference, question=question, answer=answer)


def slow_pipeline(delay: float) -> Pipeline:
    return Pipeline(
        extractor=SentenceExtractor(),
        retriever=AllSentencesRetriever(),
        verifier=SlowOnBigReference(delay),
        name="slow-standin",
    )


def stream_body(reference: str, policy: str = "hold") -> dict:
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "Tell me."}]}
    return {**body, "hallucheck": {"reference": reference, "policy": policy}}


def test_another_clients_stream_is_not_queued_behind_a_request_with_many_slow_checks():
    httpx = pytest.importorskip("httpx")
    from hallucheck.serve.proxy import ProxyConfig
    from hallucheck.serve.state import ServeConfig

    big_answer = " ".join(f"The tower is {i} metres from the river." for i in range(30))
    big_reference = REF + " " + "Filler text about the river. " * 800
    upstream = FakeOpenAIServer()
    upstream.script(Reply(chunks=sse(stream_chunks(big_answer))), Reply(chunks=sse(stream_chunks(f"{GOOD} " * 3))))
    config = ProxyConfig(upstream=upstream.base_url, pipeline=slow_pipeline(0.4), serve=ServeConfig(workers=2))
    took: dict[str, float] = {}
    try:
        with LiveProxy(config) as live:

            def run(name, body):
                t0 = time.perf_counter()
                r = httpx.post(f"{live.base_url}/chat/completions", json=body, timeout=120)
                took[name] = time.perf_counter() - t0
                took[name + "_sentences"] = final_chunk(events(r.text))["sentences"]

            big = threading.Thread(target=run, args=("big", stream_body(big_reference)))
            big.start()
            for _ in range(200):  # until the big request's checks are queued
                if upstream.requests:
                    break
                time.sleep(0.02)
            time.sleep(0.5)
            run("small", stream_body(REF))
            big.join(120)
    finally:
        upstream.close()
    assert took["big_sentences"] == 30 and took["small_sentences"] == 3
    # 30 checks of 0.4 s on 2 workers take 6 s; in turn with them the small stream takes about 1 s
    assert took["small"] < 2.5, took
    assert took["small"] < took["big"] / 2, took


def test_a_requests_checks_stop_at_its_budget():
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from hallucheck.serve.proxy import ProxyConfig, create_proxy
    from hallucheck.serve.state import ServeConfig

    answer = " ".join(f"The tower is in Paris, {w}." for w in "ab cd ef gh ij kl mn op qr st".split())
    upstream = FakeOpenAIServer()
    upstream.script(Reply(chunks=sse(stream_chunks(answer))))
    budget = 4 * (len(REF) + 80)  # about four checks' worth
    config = ProxyConfig(upstream=upstream.base_url, pipeline=standin(), serve=ServeConfig(), check_budget=budget)
    try:
        with TestClient(create_proxy(config), base_url="http://127.0.0.1:8001") as client:
            r = client.post("/v1/chat/completions", json=stream_body(REF, "block"))
    finally:
        upstream.close()
    evs = events(r.text)
    final = final_chunk(evs)
    assert final["blocked"]["outcome"] == "could_not_verify"
    assert 2 <= len(re.findall(r"Paris", content(evs))) <= 5  # the checks within the budget, released


def test_turns_go_round_the_requests_and_a_capped_request_leaves_a_turn_free():
    import asyncio

    from hallucheck.serve.proxy_turns import FairTurns

    async def go():
        turns = FairTurns(2)
        order: list[str] = []

        async def check(key, cap=None):
            await turns.acquire(key, cap)
            order.append(key)
            await asyncio.sleep(0.01)
            turns.release(key)

        # a alone takes both turns; then a's and b's checks alternate
        a = [asyncio.ensure_future(check("a")) for _ in range(6)]
        await asyncio.sleep(0)
        b = [asyncio.ensure_future(check("b")) for _ in range(3)]
        await asyncio.gather(*a, *b)
        assert order[:2] == ["a", "a"] and order[2:8] == ["a", "b"] * 3, order
        # a heavy request capped at one turn: the other turn is free for b at once
        order.clear()
        heavy = [asyncio.ensure_future(check("h", 1)) for _ in range(4)]
        await asyncio.sleep(0)
        assert turns.free == 1 and turns.waiting == 3
        await check("b")
        assert order[:2] == ["h", "b"], order
        await asyncio.gather(*heavy)
        assert turns.free == 2 and turns.waiting == 0 and not turns.held

    asyncio.run(go())


def test_the_key_none_gets_its_turn():
    """Work of no request (RHD, the repair check) waits under the key None and is served too."""
    import asyncio

    from hallucheck.serve.proxy_turns import FairTurns

    async def go():
        turns = FairTurns(1)
        await turns.acquire("a")
        waiter = asyncio.ensure_future(turns.acquire(None))
        await asyncio.sleep(0)
        turns.release("a")
        await asyncio.wait_for(waiter, 1)
        turns.release(None)
        assert turns.free == 1

    asyncio.run(go())
