"""hallucheck serve through FastAPI's TestClient: every status code path, the job lifecycle,
the token, metrics and health. LLM-backed requests use a scripted FakeLLM (cascade with the
numbers gate, the bag-of-words embedder from conftest): no model, no network."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from hallucheck.errors import BackendError  # noqa: E402
from hallucheck.llm import FakeLLM  # noqa: E402
from hallucheck.serve import ServeConfig, create_app  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ANSWER = (EXAMPLES / "manual_answer.txt").read_text(encoding="utf-8")
REFERENCE = (EXAMPLES / "manual_reference.txt").read_text(encoding="utf-8")
REF = "Inflate the front tyres to 2.4 bar. The rear tyres take 2.2 bar. Check the pressure when the tyres are cold."
CASCADE = {"method": "cascade", "params": {"gate": "numbers"}}
ENTAILED = {"Entailment": -0.05, "Neutral": -4.0, "Contradiction": -4.0}
NULL = {"Entailment": -1.2, "Neutral": -1.2, "Contradiction": -0.9}


@pytest.fixture(autouse=True)
def _no_spacy(bow_embedder):
    return bow_embedder


def judge():
    """Label scores: entailed for the judge calls, the content-free prior for the calibration calls."""
    calls = [0]

    def scores(messages, labels):
        calls[0] += 1
        return ENTAILED if calls[0] % 2 else NULL

    return scores


def client(**kw) -> TestClient:
    kw.setdefault("method", "sim_overlap")
    return TestClient(create_app(ServeConfig(**kw)), base_url="http://127.0.0.1:8000")


def blocking_llm(gate: threading.Event, entered: threading.Event | None = None) -> FakeLLM:
    """Label scores that wait for ``gate``: the judge call holds a worker until the test says go."""
    calls = [0]

    def scores(messages, labels):
        calls[0] += 1
        if entered is not None:
            entered.set()
        assert gate.wait(10), "test never released the LLM"
        return ENTAILED if calls[0] % 2 else NULL

    return FakeLLM(label_scores=scores)


def test_detect_reports_the_exit_code_meaning_and_the_detection():
    with client() as c:
        assert c.get("/healthz").json()["model_loaded"] is False  # no --preload: loaded by the first request
        r = c.post("/v1/detect", json={"answer": ANSWER, "reference": REFERENCE})
        assert r.status_code == 200
        body = r.json()
        assert body["status"] == "hallucinated" and body["exit_code"] == 1
        det = body["detection"]
        flagged = [v for v in det["verdicts"] if v["hallucinated"]]
        assert flagged and all(ANSWER[v["claim"]["start"] : v["claim"]["end"]] == v["claim"]["text"] for v in flagged)
        assert any(e["text"] in REFERENCE for v in flagged for e in v["evidence"])
        # Detection.spans: each flagged claim's parts, with its verdict's index and offsets into the answer
        assert det["spans"] and {s["claim"] for s in det["spans"]} == {det["verdicts"].index(v) for v in flagged}
        assert all(ANSWER[s["start"] : s["end"]] == s["text"] for s in det["spans"])
        assert c.get("/healthz").json()["model_loaded"] is True  # the default method has run
        r = c.post(
            "/v1/detect",
            json={"answer": "Check the pressure of all four tyres at least once a month.", "reference": REFERENCE},
        )
        assert (r.status_code, r.json()["status"], r.json()["exit_code"]) == (200, "grounded", 0)


def test_a_list_of_passages_gives_evidence_located_in_its_passage():
    first, second = REFERENCE.split("\n\n")[:2]
    with client(method="entity_check") as c:
        r = c.post("/v1/detect", json={"answer": ANSWER, "reference": [first, second], "echo": True})
    det = r.json()["detection"]
    assert det["passages"] == [first, second]
    ev = [e for v in det["verdicts"] for e in v["evidence"] if e.get("passage") is not None]
    assert ev and all([first, second][e["passage"]][e["passage_start"] : e["passage_end"]] == e["text"] for e in ev)


@pytest.mark.parametrize(
    "body, field",
    [
        ({"reference": REF}, "answer"),
        ({"answer": "The sky is blue.", "reference": 42}, "reference"),
        ({"answer": "The sky is blue.", "reference": REF, "methd": "x"}, "methd"),
        ({"answer": "The sky is blue.", "reference": REF, "method": "sim_overlpa"}, "method"),
        ({"answer": "The sky is blue.", "reference": REF, "params": {"t9": 1}}, "params"),
        ({"answer": "?!", "reference": REF}, "answer"),
        ({"answer": "The sky is blue.", "reference": REF, "params": {"llm": "embedded"}}, "params.llm"),
        ({"answer": "The sky is blue.", "reference": [], "method": "sim_overlap"}, "reference"),
    ],
)
def test_bad_bodies_get_422_with_the_field_named(body, field):
    with client() as c:
        r = c.post("/v1/detect", json=body)
    assert r.status_code == 422
    assert r.json()["status"] == "error" and r.json()["field"].startswith(field), r.json()
    assert "input" not in str(r.json().get("detail", "")) or REF not in str(r.json())  # bodies are not echoed back


def test_a_method_that_needs_an_llm_without_one_is_422_and_mitigate_needs_a_mitigator():
    with client() as c:
        r = c.post("/v1/detect", json={"answer": "The sky is blue.", "reference": REF, "method": "keyword_match"})
        assert (r.status_code, r.json()["field"]) == (422, "method") and "needs an LLM" in r.json()["error"]
        r = c.post("/v1/mitigate", json={"answer": "The sky is blue.", "reference": REF})
        assert (r.status_code, r.json()["field"]) == (422, "method") and "no mitigator" in r.json()["error"]


def test_bodies_over_the_limit_get_413_with_or_without_a_content_length():
    with client(max_body_bytes=2000) as c:
        r = c.post("/v1/detect", json={"answer": "x " * 1500, "reference": REF})
        assert r.status_code == 413 and r.json()["field"] == "body"
        r = c.post(
            "/v1/detect",
            content=iter([b'{"answer": "' + b"a" * 1500, b"b" * 1500 + b'"}']),
            headers={"Content-Type": "application/json"},
        )
        assert r.status_code == 413
        assert (
            c.post("/v1/detect", json={"answer": "The rear tyres take 2.2 bar.", "reference": REF}).status_code == 200
        )


def test_a_full_queue_answers_503_with_retry_after_and_the_admitted_request_completes():
    gate, entered = threading.Event(), threading.Event()
    with client(llm=blocking_llm(gate, entered), workers=1, queue_size=0) as c:
        first: dict = {}
        t = threading.Thread(
            target=lambda: first.update(
                r=c.post(
                    "/v1/detect",
                    json={"answer": "Check the pressure when the tyres are cold.", "reference": REF, **CASCADE},
                )
            )
        )
        t.start()
        assert entered.wait(10)
        r = c.post(
            "/v1/detect", json={"answer": "Check the pressure when the tyres are cold.", "reference": REF, **CASCADE}
        )
        assert r.status_code == 503 and int(r.headers["Retry-After"]) >= 1 and "busy" in r.json()["error"]
        assert "hallucheck_queue_depth 0" in c.get("/metrics").text
        gate.set()
        t.join(10)
        assert first["r"].status_code == 200 and first["r"].json()["status"] == "grounded"
        assert 'route="/v1/detect",code="503"} 1' in c.get("/metrics").text


def test_a_request_over_the_timeout_gets_504_could_not_verify():
    gate = threading.Event()
    try:
        with client(llm=blocking_llm(gate), timeout=0.3) as c:
            t0 = time.perf_counter()
            r = c.post(
                "/v1/detect",
                json={"answer": "Check the pressure when the tyres are cold.", "reference": REF, **CASCADE},
            )
            assert r.status_code == 504 and r.json()["status"] == "could_not_verify"
            assert time.perf_counter() - t0 < 5
            gate.set()
    finally:
        gate.set()


def test_llm_down_is_could_not_verify_and_healthz_says_so():
    down = BackendError("connection refused: http://127.0.0.1:9/v1")
    llm = FakeLLM([down] * 5, label_scores=lambda m, labels: (_ for _ in ()).throw(down))
    with client(llm=llm) as c:
        r = c.post(
            "/v1/detect", json={"answer": "Check the pressure when the tyres are cold.", "reference": REF, **CASCADE}
        )
        assert r.status_code == 200
        body = r.json()
        assert body["status"] == "could_not_verify" and body["exit_code"] == 3
        assert body["detection"]["hallucinated"] is None
        h = c.get("/healthz", params={"probe": "true"})
        assert h.status_code == 503 and h.json()["llm"]["reachable"] is False and "refused" in h.json()["llm"]["error"]


def test_healthz_and_preload():
    llm = FakeLLM(["OK"] * 3, label_scores=lambda m, labels: ENTAILED)
    with client(llm=llm, method="sim_overlap", preload=True) as c:
        h = c.get("/healthz").json()
        assert h["status"] == "ok" and h["model_loaded"] is True and h["llm"]["reachable"] is True
        assert h["queue"]["capacity"] == 2 + 16


def test_mitigate_returns_the_revision_and_its_recheck():
    def replies(request):
        return "[Reason] The reference gives 2.2 bar.\n[Final Sentence] The rear tyres take 2.2 bar."

    llm = FakeLLM(replies, label_scores=judge())
    with client(llm=llm) as c:
        r = c.post("/v1/mitigate", json={"answer": "The rear tyres take 3.1 bar.", "reference": REF, **CASCADE})
    assert r.status_code == 200, r.json()
    body = r.json()
    mit = body["mitigation"]
    assert (
        mit["before"]["hallucinated"] is True and "2.2 bar" in mit["revised"] and mit["after"]["hallucinated"] is False
    )
    assert body["status"] == "grounded" and body["exit_code"] == 0


def test_job_lifecycle_runs_apart_from_the_request_and_writes_results_as_they_finish(tmp_path):
    gate = threading.Event()
    rows = [
        {"id": "a", "answer": "Check the pressure when the tyres are cold.", "reference": REF},
        {"id": "b", "answer": "The rear tyres take 3.1 bar.", "reference": REF},
    ]
    with client(llm=blocking_llm(gate), jobs_dir=str(tmp_path), workers=1) as c:
        r = c.post("/v1/check", json={"rows": rows, **CASCADE})
        assert r.status_code == 202
        job = r.json()
        assert job["total"] == 2 and job["url"] == f"/v1/jobs/{job['id']}"
        s = c.get(job["url"]).json()  # the POST came back while the job waits for the LLM
        assert s["state"] in ("queued", "running") and s["done"] == 0
        gate.set()
        for _ in range(200):
            s = c.get(job["url"]).json()
            if s["state"] == "done":
                break
            time.sleep(0.05)
        assert s["state"] == "done" and s["done"] == 2
        assert {x["id"]: x["status"] for x in s["results"]} == {"a": "grounded", "b": "hallucinated"}
        assert s["summary"]["hallucinated"] == 1 and s["summary"]["complete"] is True
        assert (tmp_path / job["id"] / "results.jsonl").read_text().count("\n") == 2
        assert c.get("/v1/jobs/nope").status_code == 404
        bad = c.post("/v1/check", json={"rows": [rows[0], {"reference": REF}]})
        assert bad.status_code == 422 and bad.json()["field"] == "rows[1].answer"
        assert c.post("/v1/check", json={"rows": []}).status_code == 422


def test_the_token_is_required_everywhere_but_healthz_and_the_page(monkeypatch):
    with client(token="s3cret") as c:
        body = {"answer": "The rear tyres take 2.2 bar.", "reference": REF}
        assert c.post("/v1/detect", json=body).status_code == 401
        r = c.post("/v1/detect", json=body, headers={"Authorization": "Bearer wrong"})
        assert r.status_code == 401 and r.headers["WWW-Authenticate"] == "Bearer"
        assert c.post("/v1/detect", json=body, headers={"Authorization": "Bearer s3cret"}).status_code == 200
        for path in ("/metrics", "/v1/methods", "/v1/jobs/x", "/openapi.json"):
            assert c.get(path).status_code == 401, path
        assert c.get("/v1/methods", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        assert c.get("/healthz").status_code == 200
        assert c.get("/").status_code == 200  # the static page holds no data; its API calls carry the token


def test_metrics_count_requests_latency_and_llm_tokens():
    llm = FakeLLM(label_scores=judge())
    with client(llm=llm) as c:
        c.post(
            "/v1/detect", json={"answer": "Check the pressure when the tyres are cold.", "reference": REF, **CASCADE}
        )
        text = c.get("/metrics").text
    assert 'hallucheck_http_requests_total{method="POST",route="/v1/detect",code="200"} 1' in text
    assert 'hallucheck_http_request_duration_seconds_count{route="/v1/detect"} 1' in text
    assert 'le="+Inf"' in text and "# TYPE hallucheck_http_request_duration_seconds histogram" in text
    calls = int(next(line.split()[-1] for line in text.splitlines() if line.startswith("hallucheck_llm_calls_total")))
    tokens = int(
        next(
            line.split()[-1]
            for line in text.splitlines()
            if line.startswith('hallucheck_llm_tokens_total{kind="prompt"}')
        )
    )
    assert calls >= 1 and tokens > 0
    assert "hallucheck_queue_depth 0" in text


def test_methods_and_the_page_without_internet_assets():
    with client() as c:
        m = c.get("/v1/methods").json()
        names = {x["name"]: x for x in m["methods"]}
        assert names["sim_overlap"]["default"] and names["sim_overlap"]["available"]
        assert not names["keyword_match"]["available"]  # needs an LLM; the server has none
        page = c.get("/")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        html = page.text
        assert "<script>" in html and "AbortController" in html
        assert 'src="http' not in html and 'href="http' not in html and "@import" not in html


def test_cli_serve_refuses_a_token_variable_that_is_not_set(monkeypatch, capsys):
    from hallucheck.cli import main

    monkeypatch.delenv("HALLUCHECK_TEST_TOKEN", raising=False)
    assert main(["serve", "--llm", "none", "--method", "sim_overlap", "--token-env", "HALLUCHECK_TEST_TOKEN"]) == 2
    assert "HALLUCHECK_TEST_TOKEN" in capsys.readouterr().err
    assert main(["serve", "--llm", "none", "--method", "keyword_match"]) == 2
    assert "needs an LLM" in capsys.readouterr().err


def test_ce_cascade_runs_without_an_llm():
    """--llm none with ce_cascade (the method that runs without an LLM): its trained verifier decides alone."""
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    with client(method="ce_cascade", preload=True) as c:
        assert c.get("/healthz").json()["model_loaded"] is True
        r = c.post("/v1/detect", json={"answer": ANSWER, "reference": REFERENCE})
    body = r.json()
    assert r.status_code == 200 and body["status"] == "hallucinated", body
    assert body["detection"]["usage"]["calls"] == 0
    assert any("3.0 bar" in v["claim"]["text"] for v in body["detection"]["verdicts"] if v["hallucinated"])


def test_the_command_serves_on_loopback(tmp_path):
    """``hallucheck serve`` as users start it: a subprocess bound to 127.0.0.1 on a free port."""
    import http.client
    import json
    import socket
    import subprocess
    import sys

    pytest.importorskip("uvicorn")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hallucheck",
            "serve",
            "--llm",
            "none",
            "--method",
            "sim_overlap",
            "--port",
            str(port),
            "--quiet",
        ],
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.time() + 30
        while True:
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                c.request("GET", "/healthz")
                h = c.getresponse()
                assert h.status == 200 and json.loads(h.read())["status"] == "ok"
                break
            except OSError:
                assert proc.poll() is None and time.time() < deadline, (
                    proc.stderr.read().decode() if proc.poll() is not None else "timeout"
                )
                time.sleep(0.1)
        c.request(
            "POST",
            "/v1/detect",
            body=json.dumps({"answer": ANSWER, "reference": REFERENCE}),
            headers={"Content-Type": "application/json"},
        )
        r = c.getresponse()
        assert r.status == 200 and json.loads(r.read())["status"] == "hallucinated"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture
def endpoint(monkeypatch):
    """The fake OpenAI-compatible server and a client of it whose urllib path fails the test: on a
    server with this LLM, detections run on the event loop and their requests go through httpx."""
    from _fake_openai import FakeOpenAIServer
    from hallucheck.llm.openai_compat import OpenAICompatLLM

    def refuse(self, *args):
        raise AssertionError("the urllib path was taken in the service")

    monkeypatch.setattr(OpenAICompatLLM, "_exchange_sync", refuse)
    srv = FakeOpenAIServer()
    try:
        yield srv, OpenAICompatLLM("m", base_url=srv.base_url, api_key_env=None, max_retries=0)
    finally:
        srv.close()


KEYWORDS = {"answer": "The rear tyres take 3.1 bar.", "reference": REF, "method": "keyword_match"}


def test_detect_awaits_an_openai_compatible_llm_on_the_event_loop(endpoint):
    """/v1/detect runs Pipeline.arun: two requests wait at the endpoint together, and each answers
    as the library does."""
    from _fake_openai import Reply, completion

    srv, llm = endpoint
    srv.default = lambda rec: Reply(body=completion("3.1 bar, rear tyres"), delay=0.5)
    with client(llm=llm, method="keyword_match", workers=2) as c:
        assert c.app.app.state.hallucheck.awaits_llm
        replies: list = []
        threads = [threading.Thread(target=lambda: replies.append(c.post("/v1/detect", json=KEYWORDS))) for _ in "ab"]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
    assert [r.status_code for r in replies] == [200, 200]
    assert all(r.json()["status"] == "hallucinated" for r in replies)
    verdicts = replies[0].json()["detection"]["verdicts"]
    assert [v["meta"].get("missing") for v in verdicts] == [["3.1 bar"]]
    assert len(srv.requests) == 2 and srv.max_in_flight == 2


def test_on_the_event_loop_the_queue_bound_and_the_timeout_hold(endpoint):
    """Work on the I/O loop keeps the pool's rules: past workers + queue, 503 at once; past the
    timeout, 504, and the timed-out work is cancelled where it awaits the endpoint, so its place
    frees without waiting for the slow reply."""
    from _fake_openai import Reply, completion

    srv, llm = endpoint
    srv.script(Reply(body=completion("3.1 bar"), delay=1.0))  # the first request is slow
    srv.default = lambda rec: Reply(body=completion("3.1 bar"))
    with client(llm=llm, method="keyword_match", workers=1, queue_size=0, timeout=0.3) as c:
        first: dict = {}
        t = threading.Thread(target=lambda: first.update(r=c.post("/v1/detect", json=KEYWORDS)))
        t.start()
        for _ in range(200):
            if srv.in_flight:
                break
            time.sleep(0.01)
        busy = c.post("/v1/detect", json=KEYWORDS)
        assert busy.status_code == 503 and int(busy.headers["Retry-After"]) >= 1
        t.join(10)
        assert first["r"].status_code == 504 and first["r"].json()["status"] == "could_not_verify"
        pool = c.app.app.state.hallucheck.pool
        for _ in range(500):
            if pool.admitted == 0:
                break
            time.sleep(0.01)
        again = c.post("/v1/detect", json=KEYWORDS)
        assert again.status_code == 200 and again.json()["status"] == "hallucinated"
        assert len(srv.requests) == 2  # the slow one (abandoned) and this one
