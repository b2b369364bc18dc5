"""hallucheck proxy: what reaches the upstream and what comes back. Refused paths, headers both
ways, the upstream key and proxy token, an upstream no request can change, upstream errors
passed through (before and during a stream), limits, and real clients (the openai SDK, LangChain)."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from _fake_openai import FakeOpenAIServer, Reply, completion, sse, stream_chunks  # noqa: E402
from _proxy_helpers import ANSWER, BAD, GOOD, HOST, REF, LiveProxy, content, events, final_chunk, standin  # noqa: E402
from hallucheck.serve.proxy import ProxyConfig, create_proxy  # noqa: E402
from hallucheck.serve.state import ServeConfig  # noqa: E402


@pytest.fixture
def upstream():
    server = FakeOpenAIServer()
    yield server
    server.close()


def proxy(base_url, pipeline=None, serve=None, **kw) -> TestClient:
    config = ProxyConfig(upstream=base_url, pipeline=pipeline or standin(), serve=serve or ServeConfig(), **kw)
    return TestClient(create_proxy(config), base_url=HOST)


def ask(**extra):
    body = {"model": "m", "messages": [{"role": "user", "content": "Tell me."}], "hallucheck": {"reference": REF}}
    return {**body, **extra}


@pytest.mark.parametrize(
    "method, path",
    [
        ("POST", "/v1/completions"),
        ("POST", "/v1/embeddings"),
        ("GET", "/v1/chat/completions"),
        ("DELETE", "/v1/models"),
        ("GET", "/docs"),
        ("GET", "/openapi.json"),
        ("GET", "/v1/files"),
        ("POST", "/v1/chat/completions/../../admin"),
    ],
)
def test_other_paths_are_refused_and_reach_no_upstream(upstream, method, path):
    with proxy(upstream.base_url) as client:
        r = client.request(method, path, json={"model": "m"})
    assert r.status_code == 404 and "only POST /v1/chat/completions and GET /v1/models" in r.json()["error"]["message"]
    assert upstream.requests == []


def test_models_are_forwarded(upstream):
    upstream.script(Reply(body={"object": "list", "data": [{"id": "served-model", "object": "model"}]}))
    with proxy(upstream.base_url) as client:
        r = client.get("/v1/models", headers={"Authorization": "Bearer client-key"})
    assert r.json()["data"][0]["id"] == "served-model"
    (rec,) = upstream.requests
    assert rec.method == "GET" and rec.path == "/v1/models" and rec.headers["authorization"] == "Bearer client-key"


def test_headers_pass_both_ways_but_not_hop_by_hop_or_the_proxys_own(upstream):
    upstream.script(Reply(body=completion(GOOD), headers={"x-request-id": "up-123", "openai-processing-ms": "7"}))
    sent = {
        "Authorization": "Bearer client-key",
        "OpenAI-Organization": "org-1",
        "X-Custom": "kept",
        "Cookie": "session=secret",
        "X-Hallucheck-Anything": "dropped",
    }
    with proxy(upstream.base_url) as client:
        r = client.post("/v1/chat/completions", json=ask(), headers=sent)
    got = upstream.requests[0].headers
    assert got["authorization"] == "Bearer client-key" and got["openai-organization"] == "org-1"
    assert got["x-custom"] == "kept" and "cookie" not in got and "x-hallucheck-anything" not in got
    assert got["host"] == f"127.0.0.1:{upstream.port}"  # the upstream's own name, not the client's
    assert r.headers["x-request-id"] == "up-123" and r.headers["openai-processing-ms"] == "7"
    assert r.headers["x-hallucheck-hallucinated"] == "false"


def test_with_an_upstream_key_clients_send_the_proxy_token_and_never_see_the_key(upstream):
    upstream.script(Reply(body=completion(GOOD)))
    with proxy(upstream.base_url, upstream_key="sk-upstream", token="proxy-token") as client:
        no = client.post("/v1/chat/completions", json=ask(), headers={"Authorization": "Bearer wrong"})
        yes = client.post("/v1/chat/completions", json=ask(), headers={"Authorization": "Bearer proxy-token"})
    assert no.status_code == 401 and "sk-upstream" not in no.text
    assert yes.status_code == 200 and "sk-upstream" not in yes.text
    (rec,) = upstream.requests
    assert rec.headers["authorization"] == "Bearer sk-upstream"


def test_no_request_changes_the_upstream(upstream):
    other = FakeOpenAIServer()
    try:
        upstream.script(Reply(body=completion(GOOD)), Reply(body=completion(GOOD)))
        body = ask(base_url=other.base_url, api_base=other.base_url, url=other.url)
        aimed = {"Host": f"127.0.0.1:{other.port}"}  # a loopback name, so the gate lets it in
        with proxy(upstream.base_url) as client:
            r = client.post("/v1/chat/completions", json=body, headers={"X-Forwarded-Host": f"127.0.0.1:{other.port}"})
            bad = client.post("/v1/chat/completions", json={**ask(), "hallucheck": {"upstream": other.base_url}})
            hosted = client.post("/v1/chat/completions", json=ask(), headers=aimed)
        assert r.status_code == 200 and bad.status_code == 422 and hosted.status_code == 200
        assert other.requests == [] and len(upstream.requests) == 2
    finally:
        other.close()


def test_a_redirect_from_the_upstream_is_not_followed(upstream):
    other = FakeOpenAIServer()
    try:
        upstream.script(Reply(status=307, body=b"", headers={"Location": other.url}))
        with proxy(upstream.base_url) as client:
            r = client.post("/v1/chat/completions", json=ask(), follow_redirects=False)
        assert r.status_code == 307 and other.requests == []
    finally:
        other.close()


@pytest.mark.parametrize("stream", [False, True])
def test_an_upstream_error_is_passed_through(upstream, stream):
    error = {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}
    upstream.script(Reply(status=429, body=error, headers={"Retry-After": "3"}))
    with proxy(upstream.base_url) as client:
        r = client.post("/v1/chat/completions", json=ask(stream=stream))
    assert r.status_code == 429 and r.json() == error and r.headers["retry-after"] == "3"


def test_an_upstream_that_cannot_be_reached_is_502_without_its_address():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed when the block ends: nothing listens there
    with proxy(f"http://127.0.0.1:{port}/v1") as client:
        r = client.post("/v1/chat/completions", json=ask())
    assert r.status_code == 502 and r.json()["error"]["type"] == "upstream_error"
    assert str(port) not in r.text and "127.0.0.1" not in r.text


def test_an_upstream_that_fails_mid_stream_ends_with_an_error_chunk(upstream):
    chunks = sse(stream_chunks(ANSWER), done=False)[:10]  # the role, then words of the first two sentences
    upstream.script(Reply(chunks=chunks, cut=True))
    with proxy(upstream.base_url) as client:
        r = client.post("/v1/chat/completions", json=ask(stream=True, hallucheck={"reference": REF, "policy": "hold"}))
    evs = events(r.text)
    assert evs[-1]["error"]["type"] == "upstream_error" and "[DONE]" not in evs
    assert content(evs) == f"{GOOD} "  # the checked sentence; the unfinished one is never released
    assert final_chunk(evs)["sentences"] == 1


def test_an_error_chunk_from_the_upstream_ends_the_stream(upstream):
    chunks = stream_chunks(ANSWER)[:8] + [{"error": {"message": "model crashed", "type": "server_error"}}]
    upstream.script(Reply(chunks=sse(chunks, done=False)))
    with proxy(upstream.base_url) as client:
        r = client.post("/v1/chat/completions", json=ask(stream=True))
    evs = events(r.text)
    assert evs[-1] == {"error": {"message": "model crashed", "type": "server_error"}}


def test_limits_of_the_service_apply(upstream):
    with proxy(upstream.base_url, serve=ServeConfig(max_body_bytes=2000)) as client:
        big = client.post("/v1/chat/completions", json=ask(padding="x" * 5000))
        host = client.post("/v1/chat/completions", json=ask(), headers={"Host": "evil.example"})
        n2 = client.post("/v1/chat/completions", json=ask(n=2))
    assert big.status_code == 413 and host.status_code == 400
    assert n2.status_code == 422 and n2.json()["error"]["param"] == "n"
    assert upstream.requests == []


def test_past_the_limit_of_requests_at_once_the_proxy_answers_503(upstream):
    gate = threading.Event()
    upstream.script(Reply(chunks=sse(stream_chunks(ANSWER))), Reply(body=completion(GOOD)))
    results = {}
    with proxy(upstream.base_url, standin(gate=gate), max_streams=1) as client:

        def first():
            results["first"] = client.post("/v1/chat/completions", json=ask(stream=True))

        t = threading.Thread(target=first)
        t.start()
        try:
            for _ in range(200):  # until the first stream is in (its first check waits for the gate)
                if client.get("/healthz").json()["requests"] == 1:
                    break
                threading.Event().wait(0.05)
            second = client.post("/v1/chat/completions", json=ask())
        finally:
            gate.set()
            t.join(30)
        after = client.post("/v1/chat/completions", json=ask())
    assert second.status_code == 503 and second.headers["retry-after"]
    assert results["first"].status_code == 200 and content(events(results["first"].text)) == ANSWER
    assert after.status_code == 200


# -- real clients, over a real socket ---------------------------------------------------------------
@pytest.fixture
def live(upstream):
    pytest.importorskip("uvicorn")
    config = ProxyConfig(upstream=upstream.base_url, pipeline=standin(), serve=ServeConfig())
    with LiveProxy(config) as server:
        yield server


def test_the_openai_sdk_with_extra_body(upstream, live):
    openai = pytest.importorskip("openai")
    upstream.script(Reply(body=completion(f"{GOOD} {BAD}")), Reply(chunks=sse(stream_chunks(f"{GOOD} {BAD}"))))
    client = openai.OpenAI(base_url=live.base_url, api_key="client-key", max_retries=0)
    extra = {"hallucheck": {"reference": REF, "policy": "hold"}}
    messages = [{"role": "user", "content": "Tell me about the tower."}]
    raw = client.chat.completions.with_raw_response.create(model="m", messages=messages, extra_body=extra)
    reply = raw.parse()
    chunks = list(client.chat.completions.create(model="m", messages=messages, extra_body=extra, stream=True))
    assert raw.headers["x-hallucheck-hallucinated"] == "true"
    assert reply.choices[0].message.content == f"{GOOD} {BAD}"
    assert reply.model_extra["hallucheck"]["hallucinated"] is True  # the SDK keeps the extra field
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == f"{GOOD} {BAD}"
    checks = [c.model_extra["hallucheck"] for c in chunks if not c.choices]
    assert [v["hallucinated"] for v in checks[:-1]] == [False, True] and checks[-1]["final"] is True
    assert upstream.requests[0].headers["authorization"] == "Bearer client-key"
    assert "hallucheck" not in upstream.bodies[0] and "hallucheck" not in upstream.bodies[1]


def test_the_openai_sdk_raises_on_a_bad_extension_key(upstream, live):
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=live.base_url, api_key="k", max_retries=0)
    with pytest.raises(openai.UnprocessableEntityError, match="hallucheck.refrence: unknown key"):
        client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "Hi"}], extra_body={"hallucheck": {"refrence": REF}}
        )
    assert upstream.requests == []


def test_langchain_chat_openai(upstream, live):
    lc = pytest.importorskip("langchain_openai")
    upstream.script(Reply(body=completion(f"{GOOD} {BAD}")), Reply(chunks=sse(stream_chunks(f"{GOOD} {BAD}"))))
    model = lc.ChatOpenAI(
        model="m",
        base_url=live.base_url,
        api_key="client-key",
        max_retries=0,
        extra_body={"hallucheck": {"reference": REF, "policy": "block"}},
    )
    whole = model.invoke("Tell me about the tower.")
    streamed = "".join(str(part.content) for part in model.stream("Tell me about the tower."))
    assert whole.content == f"{GOOD} " and whole.response_metadata["finish_reason"] == "content_filter"
    assert streamed == f"{GOOD} "
    assert all("hallucheck" not in b for b in upstream.bodies)


def test_curl(upstream, live):
    curl = shutil.which("curl")
    if curl is None:
        pytest.skip("curl is not installed")
    upstream.script(Reply(chunks=sse(stream_chunks(f"{GOOD} {BAD}"))))
    body = json.dumps({**ask(stream=True), "hallucheck": {"reference": REF, "policy": "block"}})
    out = subprocess.run(
        [curl, "-sN", f"{live.base_url}/chat/completions", "-H", "Content-Type: application/json", "-d", body],
        capture_output=True,
        text=True,
        timeout=60,
    )
    evs = events(out.stdout)
    assert content(evs) == f"{GOOD} " and final_chunk(evs)["hallucinated"] is True and evs[-1] == "[DONE]"


# -- timeouts --------------------------------------------------------------------------------------
def test_an_upstream_slower_than_its_timeout_is_504(upstream):
    upstream.script(Reply(body=completion(GOOD), delay=30))
    with proxy(upstream.base_url, upstream_timeout=0.5) as client:
        r = client.post("/v1/chat/completions", json=ask())
    assert r.status_code == 504 and r.json()["error"]["type"] == "upstream_error"


@pytest.mark.parametrize("policy", ["hold", "block"])
def test_a_check_slower_than_its_timeout_could_not_verify(upstream, policy):
    gate = threading.Event()  # never opened while the request runs: every check outlives its timeout
    upstream.script(Reply(chunks=sse(stream_chunks(GOOD))))
    try:
        with proxy(upstream.base_url, standin(gate=gate), check_timeout=0.5) as client:
            r = client.post(
                "/v1/chat/completions", json={**ask(stream=True), "hallucheck": {"reference": REF, "policy": policy}}
            )
    finally:
        gate.set()
    evs = events(r.text)
    final = final_chunk(evs)
    assert final["outcome"] == "could_not_verify" and evs[-1] == "[DONE]"
    if policy == "hold":  # released, marked as not verified
        assert content(evs) == GOOD and "not checked within 0.5 s" in final["error"]
    else:  # block fails closed
        assert content(evs) == "" and final["blocked"]["outcome"] == "could_not_verify"
