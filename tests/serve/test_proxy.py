"""hallucheck proxy in-process (FastAPI's TestClient) in front of a fake OpenAI-compatible upstream
that streams word by word: the extension, both response shapes, every policy, what is forwarded
and what is refused. The real default method (ce_cascade, llm none) checks in the end-to-end
tests; a scripted stand-in (a number the reference lacks is unsupported) elsewhere."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from _fake_openai import FakeOpenAIServer, Reply, completion, sse, stream_chunks  # noqa: E402
from _proxy_helpers import (  # noqa: E402
    ANSWER,
    BAD,
    GOOD,
    HOST,
    REF,
    TAIL,
    content,
    events,
    final_chunk,
    standin,
    verdict_chunks,
)
from hallucheck.serve.proxy import ProxyConfig, create_proxy  # noqa: E402
from hallucheck.serve.state import ServeConfig  # noqa: E402


@pytest.fixture
def upstream():
    server = FakeOpenAIServer()
    yield server
    server.close()


def proxy(upstream, pipeline=None, **kw) -> TestClient:
    config = ProxyConfig(upstream=upstream.base_url, pipeline=pipeline, serve=ServeConfig(workers=2), **kw)
    return TestClient(create_proxy(config), base_url=HOST)


def ask(stream=False, policy=None, **extra):
    ext = {"reference": REF, **({"policy": policy} if policy else {})}
    body = {"model": "m", "messages": [{"role": "user", "content": "Tell me about the tower."}], "hallucheck": ext}
    return {**body, "stream": stream, **extra}


def streams(upstream, text=ANSWER, usage=False, delay=0.0):
    upstream.script(Reply(chunks=sse(stream_chunks(text, usage=usage)), chunk_delay=delay))


# -- the real default method, end to end ---------------------------------------------------------
def test_annotate_stream_with_the_default_method_forwards_every_chunk_and_a_verdict_per_sentence(upstream):
    streams(upstream, f"{GOOD} {BAD}", usage=True)
    with proxy(upstream) as client:
        r = client.post("/v1/chat/completions", json=ask(stream=True))
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    evs = events(r.text)
    sent = [e for e in sse(stream_chunks(f"{GOOD} {BAD}", usage=True), done=False)]
    forwarded = [e for e in evs if isinstance(e, dict) and "hallucheck" not in e]
    assert forwarded == [events(s.decode())[0] for s in sent]  # the upstream's chunks, unchanged
    assert content(evs) == f"{GOOD} {BAD}"
    verdicts = verdict_chunks(evs)
    assert [v["sentence"]["start"] for v in verdicts] == [0, len(GOOD) + 1]
    assert [v["hallucinated"] for v in verdicts] == [False, True]
    assert all(e["choices"] == [] for e in evs if isinstance(e, dict) and "hallucheck" in e)
    final = final_chunk(evs)
    assert final["hallucinated"] is True and final["outcome"] == "hallucinated" and final["method"] == "ce_cascade"
    assert [v["claim"]["text"] for v in final["verdicts"] if v["hallucinated"]] == [BAD]
    flagged = [v for v in final["verdicts"] if v["hallucinated"]][0]["claim"]
    assert f"{GOOD} {BAD}"[flagged["start"] : flagged["end"]] == BAD  # offsets into the whole answer
    assert evs[-1] == "[DONE]" and evs[-2]["hallucheck"]["final"] is True
    sent_body = upstream.bodies[0]
    assert "hallucheck" not in sent_body and sent_body["stream"] is True and sent_body["model"] == "m"


def test_non_streaming_with_the_default_method_adds_the_verdict_and_header(upstream):
    upstream.script(Reply(body=completion(f"{GOOD} {BAD}")))
    with proxy(upstream) as client:
        r = client.post("/v1/chat/completions", json=ask())
    assert r.status_code == 200
    body = r.json()
    assert r.headers["x-hallucheck-hallucinated"] == "true"
    assert body["choices"][0]["message"]["content"] == f"{GOOD} {BAD}"
    expected = completion(f"{GOOD} {BAD}")
    assert {k: v for k, v in body.items() if k != "hallucheck"} == expected
    hc = body["hallucheck"]
    assert hc["hallucinated"] is True and hc["policy"] == "annotate" and hc["reference"] == "extension"
    assert [v["claim"]["text"] for v in hc["verdicts"] if v["hallucinated"]] == [BAD]


def test_each_streamed_sentence_is_judged_as_in_the_whole_answer(upstream):
    """A sentence is read with the one before it: "It is 330 metres tall." alone after the
    question would be a one-sentence answer; in the stream it is judged as the whole check does."""
    streams(upstream)
    upstream.script(Reply(body=completion(ANSWER)))
    with proxy(upstream) as client:
        streamed = verdict_chunks(events(client.post("/v1/chat/completions", json=ask(stream=True)).text))
        whole = client.post("/v1/chat/completions", json=ask()).json()["hallucheck"]["verdicts"]
    assert [v["hallucinated"] for v in streamed] == [v["hallucinated"] for v in whole] == [False, True, False]
    assert [v["verdicts"][0]["claim"]["text"] for v in streamed] == [GOOD, BAD, TAIL]
    assert streamed[2]["verdicts"][0]["claim"]["start"] == 0  # offsets into the sentence itself


def test_a_grounded_answer_says_false(upstream):
    upstream.script(Reply(body=completion(GOOD)))
    with proxy(upstream) as client:
        r = client.post("/v1/chat/completions", json=ask())
    assert r.headers["x-hallucheck-hallucinated"] == "false" and r.json()["hallucheck"]["outcome"] == "grounded"


def test_what_the_method_loads_is_frozen_out_of_full_collections_after_its_first_check(upstream):
    import gc

    gc.unfreeze()
    try:
        upstream.script(Reply(body=completion(GOOD)))
        with proxy(upstream) as client:
            assert gc.get_freeze_count() == 0
            assert client.post("/v1/chat/completions", json=ask()).status_code == 200
            assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_repair_with_the_default_method(upstream):
    """With llm none the default method repairs a wrong figure where it can; where it has no
    repair (before that work is in), the sentence goes out as in hold, and the chunks say so."""
    from hallucheck.loader import load_method

    streams(upstream, f"{GOOD} {BAD}")
    with proxy(upstream) as client:
        r = client.post("/v1/chat/completions", json=ask(stream=True, policy="repair"))
    evs = events(r.text)
    bad = verdict_chunks(evs)[1]
    assert bad["hallucinated"] is True
    if load_method("ce_cascade", llm="none").mitigator is None:
        assert content(evs) == f"{GOOD} {BAD}" and bad["repair"]["applied"] == "hold"
    else:
        assert content(evs) == f"{GOOD} {BAD.replace('1925', '1889')}" and bad["action"] == "repaired"


def test_repair_without_a_mitigator_behaves_as_hold_and_says_so(upstream):
    streams(upstream)
    with proxy(upstream, standin()) as client:
        r = client.post("/v1/chat/completions", json=ask(stream=True, policy="repair"))
    evs = events(r.text)
    assert content(evs) == ANSWER
    bad = verdict_chunks(evs)[1]
    assert bad["hallucinated"] is True and bad["repair"]["applied"] == "hold" and "mitigator" in bad["repair"]["note"]
    assert final_chunk(evs)["repair"]["applied"] == "hold"


# -- policies (the stand-in method) ----------------------------------------------------------------
def test_hold_releases_the_text_one_checked_sentence_at_a_time(upstream):
    streams(upstream, usage=True)
    with proxy(upstream, standin()) as client:
        r = client.post("/v1/chat/completions", json=ask(stream=True, policy="hold"))
    evs = [e for e in events(r.text) if e != "[DONE]"]
    pieces = [i for i, e in enumerate(evs) if content([e])]
    assert [content([evs[i]]) for i in pieces] == [f"{GOOD} ", f"{BAD} ", TAIL]  # whole sentences only
    for i in pieces:  # each piece is followed by its sentence's verdict
        assert evs[i + 1]["choices"] == [] and "sentence" in evs[i + 1]["hallucheck"]
    assert evs[0]["choices"][0]["delta"] == {"role": "assistant"}
    finish = [i for i, e in enumerate(evs) if any(c.get("finish_reason") for c in e.get("choices") or ())]
    assert finish == [len(evs) - 3] and evs[finish[0]]["choices"][0]["finish_reason"] == "stop"
    assert evs[-2].get("usage") and evs[-1]["hallucheck"]["final"] is True  # usage, then the detection
    assert [v["hallucinated"] for v in verdict_chunks(evs)] == [False, True, False]
    assert final_chunk(evs)["sentences"] == 3


def test_block_never_sends_the_unsupported_sentence(upstream):
    streams(upstream)
    with proxy(upstream, standin()) as client:
        r = client.post("/v1/chat/completions", json=ask(stream=True, policy="block"))
    assert "1925" not in r.text and "330" not in r.text.split('"final"')[0].split("content_filter")[1]
    evs = events(r.text)
    assert content(evs) == f"{GOOD} "
    stops = [c for e in evs if isinstance(e, dict) for c in e.get("choices") or () if c.get("finish_reason")]
    assert [c["finish_reason"] for c in stops] == ["content_filter"]
    blocked = verdict_chunks(evs)[-1]
    assert blocked["action"] == "blocked" and blocked["hallucinated"] is True and "text" not in blocked["sentence"]
    final = final_chunk(evs)
    assert final["hallucinated"] is True and final["blocked"]["start"] == len(GOOD) + 1
    assert evs[-1] == "[DONE]"


def test_block_lets_a_grounded_answer_through(upstream):
    streams(upstream, f"{GOOD} {TAIL}")
    with proxy(upstream, standin(), policy="block") as client:
        r = client.post("/v1/chat/completions", json=ask(stream=True))
    evs = events(r.text)
    assert content(evs) == f"{GOOD} {TAIL}" and final_chunk(evs)["hallucinated"] is False
    stops = [c["finish_reason"] for e in evs if isinstance(e, dict) for c in e.get("choices") or ()]
    assert "content_filter" not in stops and "stop" in stops


def test_block_non_streaming_cuts_at_the_unsupported_sentence(upstream):
    upstream.script(Reply(body=completion(ANSWER)))
    with proxy(upstream, standin()) as client:
        r = client.post("/v1/chat/completions", json=ask(policy="block"))
    body = r.json()
    assert "1925" not in r.text
    assert body["choices"][0]["message"]["content"] == f"{GOOD} "
    assert body["choices"][0]["finish_reason"] == "content_filter"
    assert r.headers["x-hallucheck-hallucinated"] == "true" and body["hallucheck"]["blocked"] == {
        "start": len(GOOD) + 1
    }


def test_repair_replaces_the_unsupported_sentence_and_marks_it(upstream):
    streams(upstream)
    with proxy(upstream, standin(repair=True)) as client:
        r = client.post("/v1/chat/completions", json=ask(stream=True, policy="repair"))
    evs = events(r.text)
    fixed = BAD.replace("1925", "1889")
    assert content(evs) == f"{GOOD} {fixed} {TAIL}"
    marked = verdict_chunks(evs)[1]
    assert marked["action"] == "repaired" and marked["repair"]["revised"] == fixed
    assert marked["repair"]["original"] == BAD and marked["repair"]["after"]["hallucinated"] is False
    assert final_chunk(evs)["repaired"] == [{"sentence": 1, "original": BAD, "revised": fixed}]


def test_repair_non_streaming(upstream):
    upstream.script(Reply(body=completion(ANSWER)))
    with proxy(upstream, standin(repair=True)) as client:
        r = client.post("/v1/chat/completions", json=ask(policy="repair"))
    body = r.json()
    assert body["choices"][0]["message"]["content"] == ANSWER.replace("1925", "1889")
    assert body["hallucheck"]["repair"]["repaired"] is True and body["hallucheck"]["hallucinated"] is True


def test_annotate_interleaves_verdicts_after_their_sentence(upstream):
    streams(upstream)
    with proxy(upstream, standin()) as client:
        r = client.post("/v1/chat/completions", json=ask(stream=True))
    evs = [e for e in events(r.text) if e != "[DONE]"]
    seen = ""
    for e in evs:
        if "hallucheck" in e and not e["hallucheck"].get("final"):
            s = e["hallucheck"]["sentence"]
            assert len(seen) >= s["end"], "a verdict came before its sentence's text"
        seen += content([e])
    assert len(verdict_chunks(evs)) == 3


# -- the extension and where the reference comes from ----------------------------------------------
@pytest.mark.parametrize(
    "ext, field",
    [
        ({"reference": REF, "upstream": "http://evil/v1"}, "hallucheck.upstream"),
        ({"reference": REF, "policy": "shout"}, "hallucheck.policy"),
        ({"reference": REF, "documents": [REF]}, "hallucheck"),
        ({"documents": "not a list"}, "hallucheck.documents"),
        ({"reference": "  ..  "}, "hallucheck.reference"),
        ("text", "hallucheck"),
    ],
)
def test_a_bad_extension_is_422_and_reaches_no_upstream(upstream, ext, field):
    with proxy(upstream, standin()) as client:
        r = client.post("/v1/chat/completions", json={**ask(), "hallucheck": ext})
    assert r.status_code == 422 and r.json()["error"]["param"] == field
    assert upstream.requests == []


def test_a_policy_the_operator_does_not_offer_is_422(upstream):
    with proxy(upstream, standin(), policies=("block",), policy="block") as client:
        r = client.post("/v1/chat/completions", json=ask(policy="annotate"))
    assert r.status_code == 422 and "block" in r.json()["error"]["message"]


def test_documents_are_a_reference(upstream):
    upstream.script(Reply(body=completion(ANSWER)))
    body = {**ask(), "hallucheck": {"documents": ["The Eiffel Tower is in Paris.", "It was completed in 1889."]}}
    with proxy(upstream, standin()) as client:
        r = client.post("/v1/chat/completions", json=body)
    flagged = [v["claim"]["text"] for v in r.json()["hallucheck"]["verdicts"] if v["hallucinated"]]
    assert flagged == [BAD, TAIL]  # 330 is in neither document


def test_without_the_extension_the_system_and_tool_messages_are_the_reference(upstream):
    upstream.script(Reply(body=completion(ANSWER)))
    messages = [
        {"role": "system", "content": "The Eiffel Tower is in Paris."},
        {"role": "tool", "tool_call_id": "1", "content": "It was completed in 1925 and is 330 metres tall."},
        {"role": "user", "content": "Tell me."},
    ]
    with proxy(upstream, standin()) as client:
        r = client.post("/v1/chat/completions", json={"model": "m", "messages": messages})
    hc = r.json()["hallucheck"]
    assert hc["reference"] == "messages" and hc["hallucinated"] is False


def test_without_any_reference_the_request_passes_unchecked(upstream):
    upstream.script(Reply(body=completion(ANSWER)))
    streams(upstream)
    body = {"model": "m", "messages": [{"role": "user", "content": "Hi"}]}
    with proxy(upstream, standin()) as client:
        r = client.post("/v1/chat/completions", json=body)
        s = client.post("/v1/chat/completions", json={**body, "stream": True})
    assert r.headers["x-hallucheck-checked"] == "false" and r.json() == completion(ANSWER)
    assert s.headers["x-hallucheck-checked"] == "false" and "hallucheck" not in s.text
    assert content(events(s.text)) == ANSWER


# -- DRAD on the stream ----------------------------------------------------------------------------
def with_logprobs(chunks, unsure):
    """The chunks with a log-probability per word: -4.0 (p ~ 0.02) for words in ``unsure``, else -0.01."""
    out = []
    for c in chunks:
        delta = c["choices"][0]["delta"] if c.get("choices") else {}
        word = delta.get("content")
        if word:
            lp = -4.0 if word.strip(" .") in unsure else -0.01
            entry = {"token": word, "logprob": lp, "top_logprobs": [{"token": word, "logprob": lp}]}
            c = {**c, "choices": [{**c["choices"][0], "logprobs": {"content": [entry]}}]}
        out.append(c)
    return out


def test_with_logprobs_each_sentence_verdict_has_the_rhd_of_its_entities(upstream):
    pytest.importorskip("spacy")
    upstream.script(Reply(chunks=sse(with_logprobs(stream_chunks(f"{GOOD} {BAD}"), {"1925"}))))
    with proxy(upstream, standin()) as client:
        r = client.post("/v1/chat/completions", json=ask(stream=True, policy="hold", logprobs=True))
    first, second = verdict_chunks(events(r.text))
    if "error" in first["rhd"]:
        pytest.skip(f"no NER model here: {first['rhd']['error']}")
    assert first["rhd"]["hallucinated"] is False and second["rhd"]["hallucinated"] is True
    (flagged,) = [e for e in second["rhd"]["entities"] if e["hallucinated"]]
    assert "1925" in flagged["text"] and flagged["probability"] < 0.1
    assert BAD[flagged["start"] : flagged["end"]] == flagged["text"]  # offsets in the sentence
    assert upstream.bodies[0]["logprobs"] is True


def test_without_logprobs_there_is_no_rhd(upstream):
    streams(upstream)
    with proxy(upstream, standin()) as client:
        r = client.post("/v1/chat/completions", json=ask(stream=True))
    assert all("rhd" not in v for v in verdict_chunks(events(r.text)))
