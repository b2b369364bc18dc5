"""What the proxy never passes back from its upstream: the operator's key (echoed in an error body,
a stream or a header), a second value of its own verdict headers, or a body larger than it reads."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from _fake_openai import FakeOpenAIServer, Reply, completion, sse, stream_chunks  # noqa: E402
from _proxy_helpers import BAD, GOOD, HOST, REF, content, events, standin  # noqa: E402
from hallucheck.serve.proxy import ProxyConfig, create_proxy  # noqa: E402
from hallucheck.serve.state import ServeConfig  # noqa: E402

KEY = "sk-operator-5ecret-key-0123456789"
ODD_KEY = "opkey_7f3a9"  # no shape a pattern would know: only the literal key finds it


@pytest.fixture
def upstream():
    server = FakeOpenAIServer()
    yield server
    server.close()


def proxy(upstream, key=KEY, **kw) -> TestClient:
    config = ProxyConfig(
        upstream=upstream.base_url, pipeline=standin(), serve=ServeConfig(), upstream_key=key, token="t0ken", **kw
    )
    return TestClient(create_proxy(config), base_url=HOST, headers={"Authorization": "Bearer t0ken"})


def ask(policy="annotate", **extra):
    body = {"model": "m", "messages": [{"role": "user", "content": "Tell me."}]}
    return {**body, "hallucheck": {"reference": REF, "policy": policy}, **extra}


def echo(status, stream=False, in_header=True):
    """An upstream that echoes the Authorization it got, in its body and a header."""

    def reply(rec):
        auth = rec.headers.get("authorization", "")
        headers = {"X-Echo": auth, "WWW-Authenticate": f'Bearer realm="{auth}"'} if in_header else {}
        if stream and status == 200:
            chunks = stream_chunks(f"{GOOD} Your key is {auth}.") + [{"error": {"message": f"bad {auth}"}}]
            return Reply(chunks=sse(chunks, done=False), headers=headers)
        return Reply(
            status=status, body={"error": {"message": f"Incorrect API key: {auth}", "got": auth}}, headers=headers
        )

    return reply


@pytest.mark.parametrize("key", [KEY, ODD_KEY])
@pytest.mark.parametrize("status", [400, 401, 500, 200])
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("policy", ["annotate", "block", None])
def test_the_upstream_key_never_comes_back(upstream, key, status, stream, policy):
    upstream.default = echo(status, stream)
    body = ask(policy, stream=stream) if policy else {"model": "m", "messages": [], "stream": stream}
    with proxy(upstream, key=key) as client:
        r = client.post("/v1/chat/completions", json=body)
    assert upstream.requests[0].headers["authorization"] == f"Bearer {key}"  # the key was sent ...
    assert key not in r.text and key not in str(r.headers)  # ... and never comes back
    if r.status_code != 502:  # (block refuses a 200 that is no completion: nothing of it is sent)
        assert "REDACTED" in r.text or "REDACTED" in str(r.headers)


@pytest.mark.parametrize("key", [KEY, ODD_KEY])
def test_models_do_not_echo_the_key(upstream, key):
    upstream.default = lambda rec: Reply(
        body={"data": [{"id": rec.headers["authorization"]}]}, headers={"X-Echo": rec.headers["authorization"]}
    )
    with proxy(upstream, key=key) as client:
        r = client.get("/v1/models")
    assert r.status_code == 200 and key not in r.text and key not in str(r.headers)


@pytest.mark.parametrize("stream", [False, True])
def test_each_verdict_header_has_one_value(upstream, stream):
    own = {"X-Hallucheck-Hallucinated": "false", "X-Hallucheck-Checked": "true", "X-Hallucheck-Outcome": "grounded"}
    if stream:
        upstream.script(Reply(chunks=sse(stream_chunks(f"{GOOD} {BAD}")), headers=own))
    else:
        upstream.script(Reply(body=completion(f"{GOOD} {BAD}"), headers=own))
    with proxy(upstream) as client:
        r = client.post("/v1/chat/completions", json=ask("block", stream=stream))
    for name in own:
        assert len(r.headers.get_list(name)) <= 1, (name, r.headers.get_list(name))
    if not stream:
        assert r.headers["x-hallucheck-hallucinated"] == "true"
    else:
        assert "x-hallucheck-hallucinated" not in r.headers


def test_a_json_body_over_the_limit_is_refused_unread(upstream):
    upstream.script(Reply(body=completion("x " * 200_000)))
    with proxy(upstream, max_upstream_bytes=100_000) as client:
        r = client.post("/v1/chat/completions", json=ask())
    assert r.status_code == 502 and "100,000" in r.json()["error"]["message"]


@pytest.mark.parametrize("policy", [None, "annotate", "block"])
def test_a_stream_line_over_the_limit_ends_the_stream_in_error(upstream, policy):
    long_line = b"data: " + json.dumps(stream_chunks("x" * 50_000)[1]).encode()  # no newline after it
    upstream.script(Reply(chunks=sse(stream_chunks(GOOD))[:2] + [long_line]))
    body = ask(policy, stream=True) if policy else {"model": "m", "messages": [], "stream": True}
    with proxy(upstream, max_line_bytes=10_000) as client:
        r = client.post("/v1/chat/completions", json=body)
    evs = events(r.text)
    assert "[DONE]" not in evs and "error" in evs[-1] and "x" * 10_000 not in r.text
    assert content(evs) == ("" if policy == "block" else "The")  # what passes as it comes had come
