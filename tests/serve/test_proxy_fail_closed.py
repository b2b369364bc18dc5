"""The proxy fails closed on the shape of a request and of an answer: under ``block`` (and ``hold``)
no flagged or unchecked text reaches the client by any field, whatever shape the upstream gives
its answer in; a request whose meaning the proxy could misread is refused (400), never forwarded.

The stand-in method flags a sentence with a number the reference lacks: "1925" marks the flagged
text, and must not appear anywhere in a blocked response."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from _fake_openai import FakeOpenAIServer, Reply, completion, sse, stream_chunks  # noqa: E402
from _proxy_helpers import BAD, GOOD, HOST, REF, content, events, final_chunk, standin  # noqa: E402
from hallucheck.serve.proxy import ProxyConfig, create_proxy  # noqa: E402
from hallucheck.serve.state import ServeConfig  # noqa: E402

MARK = "1925"  # only in the flagged sentence


@pytest.fixture
def upstream():
    server = FakeOpenAIServer()
    yield server
    server.close()


def proxy(upstream, serve=None, **kw) -> TestClient:
    serve = serve or ServeConfig(workers=2)
    config = ProxyConfig(upstream=upstream.base_url, pipeline=standin(), serve=serve, **kw)
    return TestClient(create_proxy(config), base_url=HOST)


def ask(policy="block", **extra):
    body = {"model": "m", "messages": [{"role": "user", "content": "Tell me."}]}
    return {**body, "hallucheck": {"reference": REF, "policy": policy}, **extra}


def post(upstream, body, **kw):
    with proxy(upstream, **kw) as client:
        return client.post("/v1/chat/completions", json=body)


# -- strict requests ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "extra, param",
    [
        ({"stream": "false"}, "stream"),
        ({"stream": "true"}, "stream"),
        ({"stream": 0}, "stream"),
        ({"logprobs": "yes"}, "logprobs"),
        ({"n": "1"}, "n"),
        ({"n": True}, "n"),
    ],
)
def test_a_field_of_the_wrong_type_is_400_and_reaches_no_upstream(upstream, extra, param):
    r = post(upstream, ask(**extra))
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["param"] == param and err["type"] == "invalid_request_error" and "code" in err
    assert upstream.requests == []


@pytest.mark.parametrize("key", ["Hallucheck", "HALLUCHECK", "hallu_check", "halucheck", "x-hallucheck", "hallucheck "])
def test_a_misspelt_extension_is_refused_not_forwarded(upstream, key):
    body = {"model": "m", "messages": [{"role": "user", "content": "Tell me."}], key: {"reference": REF}}
    r = post(upstream, body)
    assert r.status_code == 400 and r.json()["error"]["param"] == key
    assert upstream.requests == []


@pytest.mark.parametrize(
    "raw",
    [
        b'{"model": "m", "messages": [], "temperature": NaN}',
        b'{"model": "m", "messages": [], "temperature": Infinity}',
        b'{"model": "m", "messages": [], "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b'{"model": "m", "messages": [], "x": ' + b"[" * 200 + b"]" * 200 + b"}",
    ],
)
def test_nan_and_deep_nesting_are_400_without_a_traceback(upstream, raw):
    with proxy(upstream, serve=ServeConfig(max_body_bytes=1_000_000)) as client:
        r = client.post("/v1/chat/completions", content=raw, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["param"] == "body"
    assert "Traceback" not in r.text and upstream.requests == []


# -- non-streamed answers of every shape ------------------------------------------------------------
def shaped(message=None, choices=None, **top):
    body = completion(GOOD)
    if message is not None:
        body["choices"][0]["message"] = {"role": "assistant", **message}
    if choices is not None:
        body["choices"] = choices
    return {**body, **top}


def tool_call(args):
    return {"id": "call_1", "type": "function", "function": {"name": "tell", "arguments": args}}


SHAPES = {
    "list content": shaped({"content": [{"type": "text", "text": f"{GOOD} "}, {"type": "text", "text": BAD}]}),
    "reasoning": shaped({"content": GOOD, "reasoning_content": BAD}),
    "refusal": shaped({"content": GOOD, "refusal": BAD}),
    "tool call": shaped({"content": None, "tool_calls": [tool_call(json.dumps({"year": f"{BAD}"}))]}),
    "function call": shaped({"content": None, "function_call": {"name": "tell", "arguments": BAD}}),
    "choice 1": shaped(
        choices=[
            {"index": 0, "message": {"role": "assistant", "content": GOOD}, "finish_reason": "stop"},
            {"index": 1, "message": {"role": "assistant", "content": BAD}, "finish_reason": "stop"},
        ]
    ),
    "string index": shaped(
        choices=[{"index": "0", "message": {"role": "assistant", "content": f"{GOOD} {BAD}"}, "finish_reason": "stop"}]
    ),
    "no index": shaped(
        choices=[
            {"message": {"role": "assistant", "content": GOOD}, "finish_reason": "stop"},
            {"message": {"role": "assistant", "content": BAD}, "finish_reason": "stop"},
        ]
    ),
    "logprobs": shaped(
        choices=[
            {
                "index": 0,
                "message": {"role": "assistant", "content": GOOD},
                "logprobs": {"content": [{"token": t, "logprob": -0.1, "top_logprobs": []} for t in BAD.split()]},
                "finish_reason": "stop",
            }
        ]
    ),
    "unknown key": shaped({"content": GOOD, "text": BAD}),
    "top-level key": shaped(text=BAD),
    "image part": shaped({"content": [{"type": "text", "text": GOOD}, {"type": "image_url", "image_url": BAD}]}),
}


@pytest.mark.parametrize("stream", [False, True], ids=["json", "json-to-stream"])
@pytest.mark.parametrize("policy", ["block", "hold", "repair_or_block"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_under_block_no_flagged_text_leaves_by_any_field_of_a_json_answer(upstream, shape, policy, stream):
    """Also when the upstream answers JSON to a streamed request (as one that reads "stream" leniently does)."""
    upstream.script(Reply(body=SHAPES[shape]))
    r = post(upstream, ask(policy, stream=stream))
    assert r.status_code == 200, r.text
    assert r.headers["x-hallucheck-checked"] == "true"
    body = r.json()
    if policy != "hold" or shape in ("logprobs", "unknown key", "top-level key", "image part"):
        assert MARK not in r.text and MARK not in str(r.headers)
    else:  # hold releases flagged text, but only checked text, each with its verdict
        assert body["hallucheck"]["hallucinated"] is True
    if shape in ("logprobs", "unknown key", "top-level key", "image part"):
        assert body["hallucheck"]["withheld"]


def test_the_first_choice_is_still_cut_at_its_flagged_sentence_and_its_logprobs_with_it(upstream):
    tokens = [{"token": t, "logprob": -0.1, "top_logprobs": []} for t in [GOOD, " ", BAD]]
    answer = shaped(
        choices=[
            {
                "index": 0,
                "message": {"role": "assistant", "content": f"{GOOD} {BAD}"},
                "logprobs": {"content": tokens},
                "finish_reason": "stop",
            }
        ]
    )
    upstream.script(Reply(body=answer))
    r = post(upstream, ask("block", logprobs=True))
    choice = r.json()["choices"][0]
    assert choice["message"]["content"] == f"{GOOD} " and choice["finish_reason"] == "content_filter"
    assert "".join(t["token"] for t in choice["logprobs"]["content"]) == f"{GOOD} " and MARK not in r.text


def test_annotate_marks_what_it_could_not_check(upstream):
    upstream.script(Reply(body=SHAPES["image part"]))
    r = post(upstream, ask("annotate"))
    assert r.headers["x-hallucheck-checked"] == "partial"
    assert r.json()["hallucheck"]["unchecked"] and r.json()["choices"][0]["message"]["content"][1]["image_url"]


def test_annotate_checks_every_text(upstream):
    upstream.script(Reply(body=SHAPES["reasoning"]))
    r = post(upstream, ask("annotate"))
    hc = r.json()["hallucheck"]
    assert r.headers["x-hallucheck-hallucinated"] == "true" and hc["hallucinated"] is True
    assert [(f["field"], f["hallucinated"]) for f in hc["fields"]] == [("reasoning_content", True)]


@pytest.mark.parametrize("policy", ["block", "hold"])
@pytest.mark.parametrize("raw", [b"It was completed in 1925.", b"data: {}\n\n", b'{"answer": "1925"}'])
def test_an_answer_that_is_not_a_completion_is_refused_under_the_holding_policies(upstream, policy, raw):
    upstream.script(Reply(body=raw, headers={"Content-Type": "text/plain"}))
    r = post(upstream, ask(policy))
    assert r.status_code == 502 and MARK not in r.text and r.headers["x-hallucheck-checked"] == "false"


# -- streamed answers of every shape ------------------------------------------------------------------
HEAD = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def chunk(delta=None, index=0, finish=None, **extra):
    choice = {"delta": delta or {}, "finish_reason": finish, **extra}
    if index is not None:
        choice["index"] = index
    return {**HEAD, "choices": [choice]}


def words(text, index=0, key="content"):
    return [chunk({key: w}, index) for w in text.replace(" ", " \0").split("\0")]


STREAMS = {
    "reasoning": [
        chunk({"role": "assistant"}),
        *words(BAD, key="reasoning_content"),
        *words(GOOD),
        chunk(finish="stop"),
    ],
    "string index": [chunk({"role": "assistant"}, "0"), *words(f"{GOOD} {BAD}", "0"), chunk(finish="stop", index="0")],
    "no index": [chunk({"role": "assistant"}, None), *words(f"{GOOD} {BAD}", None), chunk(finish="stop", index=None)],
    "choice 1": [chunk({"role": "assistant"}), *words(GOOD), *words(BAD, 1), chunk(finish="stop")],
    "choice '1'": [chunk({"role": "assistant"}), *words(GOOD), *words(BAD, "1"), chunk(finish="stop")],
    "tool call": [
        chunk({"role": "assistant"}),
        chunk({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "t"}}]}),
        *[chunk({"tool_calls": [{"index": 0, "function": {"arguments": w}}]}) for w in ['{"y": "', BAD, '"}']],
        chunk(finish="tool_calls"),
    ],
    "list content": [
        chunk({"role": "assistant"}),
        chunk({"content": [{"type": "text", "text": f"{GOOD} "}]}),
        chunk({"content": [{"type": "text", "text": BAD}]}),
        chunk(finish="stop"),
    ],
    "unknown delta key": [chunk({"role": "assistant"}), *words(GOOD), chunk({"text": BAD}), chunk(finish="stop")],
    "choice text": [chunk({"role": "assistant"}), *words(GOOD), chunk(text=BAD), chunk(finish="stop")],
    "logprobs": [
        chunk({"role": "assistant"}),
        *words(GOOD),
        chunk({}, logprobs={"content": [{"token": BAD, "logprob": -1.0, "top_logprobs": []}]}),
        chunk(finish="stop"),
    ],
    "upstream verdict": [chunk({"role": "assistant"}), *words(GOOD), {**HEAD, "choices": [], "hallucheck": BAD}],
}


@pytest.mark.parametrize("policy", ["block", "repair_or_block"])
@pytest.mark.parametrize("shape", sorted(STREAMS))
def test_under_block_no_flagged_text_leaves_by_any_field_of_a_stream(upstream, shape, policy):
    upstream.script(Reply(chunks=sse(STREAMS[shape])))
    r = post(upstream, ask(policy, stream=True))
    assert r.status_code == 200
    assert MARK not in r.text, [e for e in events(r.text) if MARK in json.dumps(e)]
    evs = events(r.text)
    assert evs[-1] == "[DONE]"
    assert GOOD in content(evs) or shape == "tool call"


def test_hold_releases_a_checked_reasoning_text_and_its_verdict(upstream):
    upstream.script(Reply(chunks=sse(STREAMS["reasoning"])))
    r = post(upstream, ask("hold", stream=True))
    evs = events(r.text)
    reasoning = "".join(
        (c.get("delta") or {}).get("reasoning_content") or "" for e in evs if isinstance(e, dict) for c in e["choices"]
    )
    assert reasoning == BAD and content(evs) == GOOD
    fields = [e["hallucheck"] for e in evs if isinstance(e, dict) and "field" in e.get("hallucheck", {})]
    assert fields[0]["field"] == "reasoning_content" and fields[0]["hallucinated"] is True
    assert final_chunk(evs)["hallucinated"] is True


def test_annotate_names_what_it_passed_unchecked(upstream):
    upstream.script(Reply(chunks=sse(STREAMS["choice 1"])))
    r = post(upstream, ask("annotate", stream=True))
    assert final_chunk(events(r.text))["unchecked"]


def test_a_stream_cut_short_is_not_closed_with_done(upstream):
    """The upstream's stream ends cleanly but without its [DONE], mid-sentence."""
    upstream.script(Reply(chunks=sse(stream_chunks(f"{GOOD} It was completed"), done=False)[:-2]))
    r = post(upstream, ask("hold", stream=True))
    evs = events(r.text)
    assert "[DONE]" not in evs and evs[-1]["error"]["type"] == "upstream_error"
    assert content(evs) == f"{GOOD} "  # the unfinished sentence is not released
