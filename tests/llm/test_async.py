"""hallucheck.adetect and Pipeline.arun / amitigate / arun_batch (issue 25, item 4): the same
results as the sync calls; detections awaited together have their requests in flight together
against an OpenAI-compatible endpoint (the fake server counts them) without a thread per request
(the loop's executor refuses work, the urllib path is never taken); the event loop stays free
while they run; arun_batch keeps order and records failures; a cancelled detection gives its
connection slot back."""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import importlib
import time

import pytest

import hallucheck
from hallucheck.llm import FakeLLM, make_llm
from hallucheck.llm.openai_compat import OpenAICompatLLM

from .conftest import Reply, completion

REF = "The recommended cold pressure for the front tyres is 2.4 bar and for the rear tyres 2.2 bar."
GOOD = "Use 2.4 bar for the front tyres."
BAD = "Use 3.0 bar in the rear tyres."


def keywords(rec):
    """The keyword extractor's reply (after 0.4 s): the figures and tyre words of the paragraph it is asked about."""
    paragraph = rec.body["messages"][-1]["content"].split("\n\n")[0]
    words = [w for w in ("2.4 bar", "3.0 bar", "front tyres", "rear tyres") if w in paragraph]
    return Reply(body=completion(", ".join(words) or "tyres"), delay=0.4)


def llm_for(server, **kw):
    return make_llm("openai:m", base_url=server.base_url, cache=None, api_key_env=None, **kw)


def comparable(det):
    """A detection's dict without the wall-clock seconds (of the run and of its LLM calls)."""
    d = det.to_dict()
    d["meta"] = {k: v for k, v in d["meta"].items() if k != "seconds"}
    d["usage"] = {k: v for k, v in d["usage"].items() if k != "seconds"}
    return d


class NoThreads(cf.ThreadPoolExecutor):
    """A default executor that refuses work: what runs on it would be a thread per request."""

    def submit(self, *args, **kwargs):
        raise AssertionError("work was sent to a thread")


def no_sync_transport(monkeypatch):
    def refuse(self, *args):
        raise AssertionError("the urllib path was taken in async code")

    monkeypatch.setattr(OpenAICompatLLM, "_exchange_sync", refuse)


def test_adetect_gives_the_detection_detect_gives(server):
    server.default = lambda rec: Reply(body=completion(keywords(rec).body["choices"][0]["message"]["content"]))
    for answer in (GOOD, BAD, GOOD + " " + BAD):
        sync = hallucheck.detect(answer, REF, method="keyword_match", llm=llm_for(server))
        det = asyncio.run(hallucheck.adetect(answer, REF, method="keyword_match", llm=llm_for(server)))
        assert comparable(det) == comparable(sync)
        assert det.usage.calls == sync.usage.calls >= 1 and det.usage.prompt_tokens == sync.usage.prompt_tokens
    assert [d.hallucinated for d in (sync, det)] == [True, True]


def test_many_adetect_calls_overlap_at_the_endpoint_without_threads(server, monkeypatch):
    server.default = keywords  # every reply after 0.4 s
    no_sync_transport(monkeypatch)
    llm = llm_for(server, max_concurrency=8)
    answers = [GOOD, BAD] * 4
    hallucheck.load_method("keyword_match", llm=llm)  # its modules imported before the clock starts
    importlib.import_module("hallucheck.llm.http_async")

    async def main():
        asyncio.get_running_loop().set_default_executor(NoThreads())
        t0 = time.perf_counter()
        dets = await asyncio.gather(*(hallucheck.adetect(a, REF, method="keyword_match", llm=llm) for a in answers))
        took = time.perf_counter() - t0
        await llm.aclose()
        return dets, took

    dets, took = asyncio.run(main())
    assert [d.hallucinated for d in dets] == [False, True] * 4
    assert len(server.requests) == 8 and server.max_in_flight == 8  # all eight waited at the server together
    assert took < 4 * 0.4  # one reply's delay and the first detection's warm-up, not eight delays (3.2 s)


def test_the_client_concurrency_limit_holds_in_async_code(server):
    server.default = keywords
    llm = llm_for(server, max_concurrency=2)

    async def main():
        return await asyncio.gather(*(hallucheck.adetect(BAD, REF, method="keyword_match", llm=llm) for _ in range(5)))

    assert all(d.hallucinated for d in asyncio.run(main()))
    assert len(server.requests) == 5 and server.max_in_flight == 2


def test_endpoint_errors_surface_as_they_do_in_sync_code(server):
    server.default = lambda rec: Reply(status=500, body={"error": "internal"})
    llm = llm_for(server, max_retries=1, backoff=0.01)
    sync = hallucheck.detect(BAD, REF, method="keyword_match", llm=llm)
    det = asyncio.run(hallucheck.adetect(BAD, REF, method="keyword_match", llm=llm))
    assert det.outcome == "could_not_verify" and [v.status for v in det.verdicts] == ["error"]
    assert comparable(det) == comparable(sync)
    with pytest.raises(hallucheck.BackendError) as raised:
        llm.complete("q")
    with pytest.raises(hallucheck.BackendError) as araised:
        asyncio.run(llm.acomplete("q"))
    assert str(araised.value) == str(raised.value) and "HTTP 500 after 2 attempts" in str(araised.value)
    assert araised.value.status == 500


def test_a_cancelled_detection_gives_its_slot_back(server):
    server.script(Reply(body=completion("3.0 bar"), delay=5.0))  # the first request hangs
    server.default = keywords
    llm = llm_for(server, max_concurrency=1)
    method = hallucheck.load_method("keyword_match", llm=llm)

    async def main():
        task = asyncio.create_task(method.arun(BAD, REF))
        while not server.in_flight:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return await asyncio.wait_for(method.arun(BAD, REF), 3)  # one slot: free again

    assert asyncio.run(main()).hallucinated is True


def test_amitigate_gives_what_mitigate_gives():
    def replies(request):
        return "[Reason] The reference gives 2.2 bar.\n[Final Sentence] The rear tyres take 2.2 bar."

    def scores(messages, labels):
        if "tyres" not in messages[-1].content:  # the content-free input ("N/A"): no prior
            return {x: -1.0 for x in labels}
        return {"Entailment": -0.05, "Neutral": -4.0, "Contradiction": -4.0}

    answer, reference = "The rear tyres take 3.1 bar.", "The rear tyres take 2.2 bar."
    results = []
    for run in (lambda m: m.mitigate(answer, reference), lambda m: asyncio.run(m.amitigate(answer, reference))):
        method = hallucheck.load_method("cascade", llm=FakeLLM(replies, label_scores=scores), gate="numbers")
        results.append(run(method))
    sync, aio = results
    assert aio.revised == sync.revised and "2.2 bar" in aio.revised
    assert comparable(aio.before) == comparable(sync.before) and aio.before.hallucinated is True
    assert comparable(aio.after) == comparable(sync.after)


def test_adetect_calls_run_concurrently_against_the_endpoint(server):
    server.default = keywords
    llm = llm_for(server)

    async def main():
        t0 = time.perf_counter()
        dets = await asyncio.gather(
            *(hallucheck.adetect(a, REF, method="keyword_match", llm=llm) for a in (GOOD, BAD, GOOD, BAD))
        )
        return dets, time.perf_counter() - t0

    dets, seconds = asyncio.run(main())
    assert [d.hallucinated for d in dets] == [False, True, False, True]
    assert dets[1].flagged[0].meta["missing"] == ["3.0 bar"]
    assert len(server.requests) == 4
    assert server.max_in_flight >= 2  # one at a time would be 1
    assert seconds < 4 * 0.4  # four 0.4 s replies, not waited for one after the other


def test_the_event_loop_stays_free_while_a_detection_runs(server):
    server.default = keywords
    method = hallucheck.load_method("keyword_match", llm=llm_for(server))

    async def main():
        ticks = 0
        task = asyncio.create_task(method.arun(BAD, REF))
        while not task.done():
            ticks += 1
            await asyncio.sleep(0.02)
        return await task, ticks

    det, ticks = asyncio.run(main())
    assert det.hallucinated is True
    assert ticks >= 5  # the loop ran other work during the 0.4 s request


def test_arun_batch_keeps_order_bounds_concurrency_and_records_errors(server):
    server.default = keywords
    method = hallucheck.load_method("keyword_match", llm=llm_for(server))
    items = [
        {"id": "a", "answer": BAD, "reference": REF},
        {"id": "b", "answer": "", "reference": REF},  # empty answer: an input error, recorded
        {"id": "c", "answer": GOOD, "reference": [REF, "Check the pressure when the tyres are cold."]},
    ]
    results = asyncio.run(method.arun_batch(items, concurrency=1))
    assert [r.id for r in results] == ["a", "b", "c"]
    assert results[0].hallucinated is True and results[2].hallucinated is False
    assert results[1].status == "error" and "answer" in results[1].error
    assert results[2].passages is not None and len(results[2].passages) == 2
    assert server.max_in_flight == 1  # concurrency=1: one request at a time
    with pytest.raises(hallucheck.InputError):
        asyncio.run(method.arun_batch(items, on_error="raise"))
    with pytest.raises(hallucheck.ConfigError, match="concurrency"):
        asyncio.run(method.arun_batch(items, concurrency=0))


def test_adetect_without_an_llm_gives_what_detect_gives():
    answer = "The Eiffel Tower was finished in 1899."
    reference = "The Eiffel Tower in Paris was completed in 1889."
    sync = hallucheck.detect(answer, reference, method="entity_check", llm="none")
    det = asyncio.run(hallucheck.adetect(answer, reference, method="entity_check", llm="none"))
    assert det.hallucinated is True
    assert [v.to_dict() for v in det.verdicts] == [v.to_dict() for v in sync.verdicts]


@pytest.mark.parametrize("missing", ["greenlet", "httpx"])
def test_without_the_async_extra_adetect_still_gives_what_detect_gives(server, monkeypatch, missing):
    """Without greenlet the detection runs in a worker thread; without httpx its requests go through
    urllib in the loop's executor. Either way: the same Detection, the loop never blocked."""
    from hallucheck import _aio
    from hallucheck.llm import http_async

    server.default = keywords
    sync = hallucheck.detect(BAD, REF, method="keyword_match", llm=llm_for(server))
    monkeypatch.setattr(*((_aio, "_greenlet", None) if missing == "greenlet" else (http_async, "httpx", None)))
    sent = []
    original = OpenAICompatLLM._exchange_sync
    monkeypatch.setattr(OpenAICompatLLM, "_exchange_sync", lambda self, *a: sent.append(1) or original(self, *a))

    async def main():
        ticks = 0
        task = asyncio.create_task(hallucheck.adetect(BAD, REF, method="keyword_match", llm=llm_for(server)))
        while not task.done():
            ticks += 1
            await asyncio.sleep(0.02)
        return await task, ticks

    det, ticks = asyncio.run(main())
    assert comparable(det) == comparable(sync) and sent == [1] and ticks >= 5
