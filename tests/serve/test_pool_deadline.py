"""Timed-out work frees its place at the deadline: the service answers the next request instead of
503 while work that timed out is still being stopped; pure-Python work is interrupted; at most
``workers`` abandoned threads (beyond that, admission counts them as the running work they are)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from hallucheck.pipeline import Pipeline  # noqa: E402
from hallucheck.serve import ServeConfig, create_app  # noqa: E402
from hallucheck.serve.pool import QueueFull, WorkPool  # noqa: E402

REF = "Inflate the front tyres to 2.4 bar. The rear tyres take 2.2 bar."
SIM = {"answer": "The rear tyres take 2.2 bar.", "reference": REF, "method": "sim_overlap"}


@pytest.fixture(autouse=True)
def _no_spacy(bow_embedder):
    return bow_embedder


def client(**kw) -> TestClient:
    kw.setdefault("method", "sim_overlap")
    return TestClient(create_app(ServeConfig(**kw)), base_url="http://127.0.0.1:8000")


def wait_for(cond, seconds=10.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return False


def test_a_request_whose_work_outlives_its_timeout_frees_its_place_at_the_deadline(monkeypatch):
    """Pure-Python work that would run for minutes (one huge answer): 504 at the timeout, the next
    request is answered (not 503), and the work itself is stopped."""
    original = Pipeline.run
    looping = {"on": True, "stopped": False}

    def endless(self, answer, *args, **kw):
        if "endless" not in answer:
            return original(self, answer, *args, **kw)
        try:
            n = 0
            while looping["on"]:
                n += 1
        except BaseException:
            looping["stopped"] = True
            raise

    monkeypatch.setattr(Pipeline, "run", endless)
    try:
        with client(workers=1, queue_size=0, timeout=0.5) as c:
            t0 = time.perf_counter()
            slow = c.post("/v1/detect", json={**SIM, "answer": "An endless answer."})
            took = time.perf_counter() - t0
            after = c.post("/v1/detect", json=SIM)
            pool = c.app.app.state.hallucheck.pool
            stopped = wait_for(lambda: looping["stopped"] and pool.abandoned == 0)
            health = c.get("/healthz").json()["queue"]
    finally:
        looping["on"] = False
    assert slow.status_code == 504 and took < 5
    assert after.status_code == 200, after.text
    assert stopped and health["abandoned"] == 0 and health["running"] == 0


def test_work_inside_one_long_call_is_abandoned_and_later_work_runs_beside_it(monkeypatch):
    """Work that cannot be interrupted (one long call outside Python): its thread is left to
    finish while the next request runs on a spare thread."""
    original = Pipeline.run
    release = threading.Event()

    def blocked(self, answer, *args, **kw):
        if "blocked" in answer:
            release.wait(20)
        return original(self, answer, *args, **kw)

    monkeypatch.setattr(Pipeline, "run", blocked)
    try:
        with client(workers=1, queue_size=0, timeout=0.4) as c:
            first = c.post("/v1/detect", json={**SIM, "answer": "A blocked answer."})
            pool = c.app.app.state.hallucheck.pool
            assert pool.abandoned == 1 and pool.admitted == 0
            second = c.post("/v1/detect", json=SIM)
            # one more abandoned thread than workers is not allowed: that one keeps its place
            third = c.post("/v1/detect", json={**SIM, "answer": "Another blocked answer."})
            busy = c.post("/v1/detect", json=SIM)
            release.set()
            assert wait_for(lambda: pool.admitted == 0 and pool.abandoned == 0)
            fourth = c.post("/v1/detect", json=SIM)
    finally:
        release.set()
    assert first.status_code == 504 and second.status_code == 200
    assert third.status_code == 504 and busy.status_code == 503
    assert fourth.status_code == 200


def test_the_pool_counts_each_place_once():
    pool = WorkPool(workers=2, queue_size=1)

    async def go():
        gate = threading.Event()
        slow = [asyncio.ensure_future(pool.run(lambda: gate.wait(5), timeout=0.2, on_loop=False)) for _ in range(2)]
        queued = asyncio.ensure_future(pool.run(lambda: 7, timeout=5, on_loop=False))
        await asyncio.sleep(0.05)
        assert pool.admitted == 3 and pool.running == 2 and pool.waiting == 1
        with pytest.raises(QueueFull):
            await pool.run(lambda: 0, timeout=1, on_loop=False)
        for task in slow:
            with pytest.raises(asyncio.TimeoutError):
                await task
        assert await queued == 7  # it ran on the places the slow ones left
        assert pool.abandoned == 2 and pool.admitted == 0
        gate.set()
        for _ in range(100):
            if pool.abandoned == 0:
                break
            await asyncio.sleep(0.02)
        assert pool.abandoned == 0 and pool.running == 0 and pool.admitted == 0

    try:
        asyncio.run(go())
    finally:
        pool.shutdown()


def test_on_the_io_loop_work_that_awaits_nothing_is_left_behind_at_the_deadline(monkeypatch):
    """With an OpenAI-compatible LLM the work runs on the pool's I/O loop; work there that holds
    the loop past the timeout is left to it, and later requests run on a new loop."""
    from _fake_openai import FakeOpenAIServer
    from hallucheck.llm.openai_compat import OpenAICompatLLM

    srv = FakeOpenAIServer()
    release = threading.Event()
    original = Pipeline.run

    def held(self, answer, *args, **kw):
        if "held" in answer:
            release.wait(20)
        return original(self, answer, *args, **kw)

    monkeypatch.setattr(Pipeline, "run", held)
    try:
        llm = OpenAICompatLLM("m", base_url=srv.base_url, api_key_env=None, max_retries=0)
        with client(llm=llm, workers=1, queue_size=0, timeout=0.4) as c:
            assert c.app.app.state.hallucheck.awaits_llm
            first = c.post("/v1/detect", json={**SIM, "answer": "A held answer."})
            pool = c.app.app.state.hallucheck.pool
            assert wait_for(lambda: pool.admitted == 0, 5)
            t0 = time.perf_counter()
            second = c.post("/v1/detect", json=SIM)
            took = time.perf_counter() - t0
            release.set()
    finally:
        release.set()
        srv.close()
    assert first.status_code == 504
    assert second.status_code == 200 and took < 5, (second.status_code, took)


def test_the_proxys_timed_out_check_frees_its_worker_at_the_deadline():
    """One worker: a check that hangs times out (could not verify); the next request's check runs
    at once on the place it left, while the hung one is still being stopped."""
    from _fake_openai import FakeOpenAIServer, Reply, completion
    from _proxy_helpers import GOOD, HOST, NumbersVerifier
    from _proxy_helpers import REF as PROXY_REF
    from hallucheck.serve.proxy import ProxyConfig, create_proxy
    from hallucheck.stages.claims import SentenceExtractor
    from hallucheck.stages.evidence import AllSentencesRetriever

    release = threading.Event()

    class Hangs(NumbersVerifier):
        def verify(self, claims, evidence, **kw):
            if any("hangs" in c.text for c in claims):
                release.wait(20)
            return super().verify(claims, evidence, **kw)

    pipe = Pipeline(extractor=SentenceExtractor(), retriever=AllSentencesRetriever(), verifier=Hangs(), name="hangs")
    upstream = FakeOpenAIServer()
    upstream.script(Reply(body=completion("The tower hangs in Paris.")), Reply(body=completion(GOOD)))
    config = ProxyConfig(upstream=upstream.base_url, pipeline=pipe, serve=ServeConfig(workers=1), check_timeout=0.4)
    body = {"model": "m", "messages": [{"role": "user", "content": "Hi"}], "hallucheck": {"reference": PROXY_REF}}
    try:
        with TestClient(create_proxy(config), base_url=HOST) as c:
            hung = c.post("/v1/chat/completions", json=body)
            t0 = time.perf_counter()
            fine = c.post("/v1/chat/completions", json=body)
            took = time.perf_counter() - t0
            release.set()
    finally:
        release.set()
        upstream.close()
    assert hung.json()["hallucheck"]["outcome"] == "could_not_verify"
    assert fine.json()["hallucheck"]["outcome"] == "grounded" and took < 2, (fine.json()["hallucheck"], took)


def test_work_past_its_deadline_is_stopped_even_when_no_spare_thread_is_left():
    """Three requests time out together on one worker: the running one is abandoned to the spare
    thread, the next one starts on the freed place with its deadline already past; it keeps its
    place (no spare left) but is stopped, so every place frees within moments."""
    pool = WorkPool(workers=1, queue_size=2)
    stopped: list[str] = []

    def spin(name):
        def work():
            try:
                while True:
                    pass
            except BaseException:
                stopped.append(name)
                raise

        return work

    async def go():
        tasks = [asyncio.ensure_future(pool.run(spin(n), timeout=0.3, on_loop=False)) for n in "abc"]
        for task in tasks:
            with pytest.raises((asyncio.TimeoutError, asyncio.CancelledError)):
                await task
        for _ in range(200):
            if pool.admitted == 0 and pool.abandoned == 0 and pool.running == 0:
                break
            await asyncio.sleep(0.01)
        assert pool.admitted == 0 and pool.abandoned == 0 and pool.running == 0, vars(pool)

    try:
        asyncio.run(go())
    finally:
        pool.shutdown()
    assert "a" in stopped and len(stopped) >= 1
