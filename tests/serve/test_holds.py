"""The service holds whatever a request does: no detection on the event loop (admission, 503 and
504 work with every backend), a timed-out request stops its LLM calls, the operator's limits on
LLM calls, tokens and response sizes, and methods that would fetch a model from the hub."""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from hallucheck.llm import FakeLLM  # noqa: E402
from hallucheck.pipeline import Pipeline  # noqa: E402
from hallucheck.serve import ServeConfig, create_app  # noqa: E402

REF = "Inflate the front tyres to 2.4 bar. The rear tyres take 2.2 bar. Check the pressure when the tyres are cold."
SIM = {"answer": "The rear tyres take 2.2 bar.", "reference": REF, "method": "sim_overlap"}
# four sentences with figures: the numbers gate sends each to the judge
LONG = "The front tyres take 2.4 bar. The rear tyres take 2.2 bar. The spare takes 4.2 bar. The van takes 3.5 bar."
CASCADE = {"answer": LONG, "reference": REF, "method": "cascade", "params": {"gate": "numbers", "calibrate": False}}
ENTAILED = {"Entailment": -0.05, "Neutral": -4.0, "Contradiction": -4.0}


@pytest.fixture(autouse=True)
def _no_spacy(bow_embedder):
    return bow_embedder


def client(**kw) -> TestClient:
    kw.setdefault("method", "sim_overlap")
    return TestClient(create_app(ServeConfig(**kw)), base_url="http://127.0.0.1:8000")


@pytest.fixture
def endpoint():
    from _fake_openai import FakeOpenAIServer
    from hallucheck.llm.openai_compat import OpenAICompatLLM

    srv = FakeOpenAIServer()
    try:
        yield srv, OpenAICompatLLM("m", base_url=srv.base_url, api_key_env=None, max_retries=0)
    finally:
        srv.close()


def _settle(c: TestClient) -> None:
    pool = c.app.app.state.hallucheck.pool
    for _ in range(1000):
        if pool.admitted == 0:
            return
        time.sleep(0.01)
    raise AssertionError("the work never finished")


def test_work_that_awaits_nothing_never_holds_the_event_loop(endpoint, monkeypatch):
    """With an OpenAI-compatible LLM, a detection whose work holds its thread (pure-Python CPU
    work, here a wait that awaits nothing) leaves the server answering: /healthz at once, 503 when
    the pool is full, 504 at the timeout, all while that work still runs."""
    srv, llm = endpoint
    gate, entered, released = threading.Event(), threading.Event(), []
    original = Pipeline.run

    def held(self, *args, **kw):
        entered.set()
        released.append(gate.wait(20))
        return original(self, *args, **kw)

    monkeypatch.setattr(Pipeline, "run", held)
    with client(llm=llm, workers=1, queue_size=0, timeout=0.5) as c:
        assert c.app.app.state.hallucheck.awaits_llm
        first: dict = {}
        t = threading.Thread(target=lambda: first.update(r=c.post("/v1/detect", json=SIM)))
        t.start()
        assert entered.wait(20)
        health = c.get("/healthz")
        busy = c.post("/v1/detect", json=SIM)
        t.join(20)
        still_held = not released  # every answer above came while the work was held
        gate.set()
        _settle(c)
    assert still_held
    assert health.status_code == 200
    assert busy.status_code == 503 and busy.headers["Retry-After"]
    assert first["r"].status_code == 504 and first["r"].json()["status"] == "could_not_verify"


def test_a_timed_out_request_makes_no_further_llm_call():
    """The first judge call hangs past the timeout: after the 504 the detection's remaining
    sentences are not sent to the LLM."""
    gate, entered = threading.Event(), threading.Event()
    calls: list[bool] = []

    def scores(messages, labels):
        calls.append(gate.is_set())  # True: a call made after the request timed out
        entered.set()
        gate.wait(20)
        return ENTAILED

    with client(llm=FakeLLM(label_scores=scores), timeout=0.5) as c:
        r = c.post("/v1/detect", json=CASCADE)
        assert r.status_code == 504
        assert entered.is_set()
        gate.set()
        _settle(c)
    assert calls and not any(calls[1:]), calls


def test_a_request_makes_at_most_the_operators_llm_calls():
    calls = []

    def scores(messages, labels):
        calls.append(1)
        return ENTAILED

    with client(llm=FakeLLM(label_scores=scores), max_llm_calls=1) as c:
        r = c.post("/v1/detect", json=CASCADE)
        health = c.get("/healthz").json()
    assert r.status_code == 200, r.text
    assert len(calls) == 1
    det = r.json()["detection"]
    assert any("limit of 1 LLM calls" in (v.get("reason") or "") for v in det["verdicts"]), det["verdicts"]
    assert health["llm"]["reachable"] is not False  # a limit is not a failure of the LLM


def test_max_tokens_is_capped_by_the_operator(endpoint):
    from _fake_openai import Reply, completion

    srv, llm = endpoint
    srv.default = lambda rec: Reply(body=completion('{"REASONING": "ok", "SCORE": "PASS"}'))
    body = {"answer": "The rear tyres take 2.2 bar.", "reference": REF, "method": "lynx"}
    with client(llm=llm, max_tokens=50) as c:
        refused = c.post("/v1/detect", json={**body, "params": {"max_tokens": 10**12}})
        r = c.post("/v1/detect", json=body)  # lynx asks for 600 tokens by default
    assert refused.status_code == 422 and refused.json()["field"] == "params.max_tokens"
    assert r.status_code == 200 and srv.bodies
    assert all(b["max_tokens"] <= 50 for b in srv.bodies)


def test_a_response_over_the_limit_is_refused_before_it_is_sent():
    answer = " ".join(f"The tyre number {i} takes 2.2 bar." for i in range(200))
    with client(max_response_bytes=20_000) as c:
        big = c.post("/v1/detect", json={"answer": answer, "reference": REF})
        small = c.post("/v1/detect", json=SIM)
    assert big.status_code == 413 and big.json()["field"] == "answer"
    assert small.status_code == 200


def _wait(c, url):
    for _ in range(600):
        s = c.get(url).json()
        if s["state"] in ("done", "failed"):
            return s
        time.sleep(0.05)
    raise AssertionError("job did not finish")


def test_job_pages_and_job_files_stay_within_their_limits(tmp_path):
    rows = [{"id": f"r{i}", "answer": "The rear tyres take 2.2 bar.", "reference": REF} for i in range(30)]
    with client(jobs_dir=str(tmp_path), max_response_bytes=4_000) as c:
        job = c.post("/v1/check", json={"rows": rows}).json()
        _wait(c, job["url"])
        page = c.get(job["url"], params={"limit": 1000, "detail": "true"})
        assert page.status_code == 200 and len(page.content) < 8_000
        assert 0 < len(page.json()["results"]) < 30 and page.json()["next_offset"] is not None
        ids, offset = [], 0
        while offset is not None:
            p = c.get(job["url"], params={"offset": offset, "limit": 1000, "detail": "true"}).json()
            ids += [r["id"] for r in p["results"]]
            offset = p["next_offset"]
        assert sorted(ids) == sorted(r["id"] for r in rows)


def test_a_job_stops_writing_results_at_its_share_of_the_disk(tmp_path):
    """Rows whose records would take the job past its cap are recorded as short errors instead."""
    import json

    from hallucheck.eval.check import row_to_example
    from hallucheck.serve.jobs import run_job
    from hallucheck.serve.state import Job, ServerState

    state = ServerState(ServeConfig(method="sim_overlap", jobs_dir=str(tmp_path)))
    try:
        pipe = state.pipeline(None, {})
        rows = [{"id": f"r{i}", "answer": "The rear tyres take 2.2 bar.", "reference": REF} for i in range(30)]
        examples = [row_to_example(r, i + 1, f"rows[{i}]", "job") for i, r in enumerate(rows)]
        job = Job(id="j", dir=tmp_path / "j", total=30, method="sim_overlap")  # not registered: never pruned
        run_job(state, job, pipe, examples, cap=6_000)
    finally:
        state.close()
    lines = (tmp_path / "j" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    stored = [len(line.encode()) for line, r in zip(lines, records) if r.get("error") is None]
    refused = [r for r in records if r.get("error") is not None]
    assert job.state == "done" and len(records) == 30
    assert stored and refused and sum(stored) <= 9_000
    assert all("job storage" in r["error"] for r in refused)


@pytest.mark.parametrize("method", ["hhem", "minicheck", "lettucedetect"])
def test_methods_whose_model_is_a_hub_id_are_not_served_by_default(method, tmp_path):
    with client() as c:
        r = c.post("/v1/detect", json={**SIM, "method": method})
        rows = {m["name"]: m for m in c.get("/v1/methods").json()["methods"]}
    assert r.status_code == 422 and r.json()["field"] == "method" and "--set" in r.json()["error"]
    assert rows[method]["available"] is False
    fixed = {"model": str(tmp_path), "foundation": str(tmp_path)} if method == "hhem" else {"model": str(tmp_path)}
    with client(method_params={method: fixed}) as c:
        rows = {m["name"]: m for m in c.get("/v1/methods").json()["methods"]}
    assert rows[method]["available"] is True


def test_serve_refuses_a_hub_method_as_its_default(capsys):
    from hallucheck.cli import main

    assert main(["serve", "--llm", "none", "--method", "hhem"]) == 2
    assert "--set hhem.model=" in capsys.readouterr().err


@pytest.mark.parametrize(
    "method, params",
    [
        ("ce_cascade", {"band": 5}),
        ("sim_cosine", {"embedder": 5}),
        ("sim_hybrid", {"embedder": [0.1, 0.9]}),
        ("cascade", {"prompt": 3}),
        ("hsp", {"decompose_prompt": []}),
    ],
)
def test_a_value_of_the_wrong_type_is_422_not_500(method, params):
    with client(llm=FakeLLM(label_scores=lambda m, labels: ENTAILED)) as c:
        r = c.post("/v1/detect", json={**SIM, "method": method, "params": params})
    assert r.status_code == 422, r.text
    assert r.json()["field"].startswith("params")


def test_what_a_method_loads_is_frozen_out_of_full_collections_after_its_first_run():
    """After a pipeline's first run every object alive (its models among them) is out of the
    garbage collector's reach, so a full collection does not walk them while every thread waits;
    later runs of that pipeline freeze nothing more, a newly built one freezes once more."""
    import gc

    gc.unfreeze()
    try:
        with client() as c:
            assert gc.get_freeze_count() == 0
            assert c.post("/v1/detect", json=SIM).status_code == 200
            first = gc.get_freeze_count()
            garbage = [[i] for i in range(1000)]  # tracked objects made after the first run
            assert c.post("/v1/detect", json=SIM).status_code == 200
            again = gc.get_freeze_count()
            assert c.post("/v1/detect", json={**SIM, "params": {"t2": 0.3}}).status_code == 200
            rebuilt = gc.get_freeze_count()
        # the count falls as frozen objects are freed; a freeze would have taken the garbage too
        assert first > 0 and again < first + len(garbage) <= rebuilt
    finally:
        gc.unfreeze()
