"""The ``repair_or_block`` policy: a flagged sentence goes out repaired when the repair holds (its
re-check passes), and is blocked as under ``block`` when it cannot be repaired: no repair here, a
repair that changes nothing, or one whose re-check still flags it."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from _fake_openai import FakeOpenAIServer, Reply, completion, sse, stream_chunks  # noqa: E402
from _proxy_helpers import (  # noqa: E402
    BAD,
    GOOD,
    HOST,
    REF,
    TAIL,
    NumberRepair,
    NumbersVerifier,
    content,
    events,
    final_chunk,
    verdict_chunks,
)
from hallucheck.base import Mitigator  # noqa: E402
from hallucheck.pipeline import Pipeline  # noqa: E402
from hallucheck.serve.proxy import ProxyConfig, create_proxy  # noqa: E402
from hallucheck.serve.state import ServeConfig  # noqa: E402
from hallucheck.stages.claims import SentenceExtractor  # noqa: E402
from hallucheck.stages.evidence import AllSentencesRetriever  # noqa: E402
from hallucheck.types import Detection, Edit, Mitigation  # noqa: E402

ANSWER = f"{GOOD} {BAD} {TAIL}"


class NoChange(Mitigator):
    def mitigate(self, detection: Detection) -> Mitigation:
        return Mitigation(detection.answer, detection.answer, (), detection, None, notes=("nothing to change",))


class StillWrong(Mitigator):
    """Puts another figure the reference lacks in place of the wrong one."""

    def mitigate(self, detection: Detection) -> Mitigation:
        edits = [Edit(m.start(), m.end(), "1926", "a guess") for m in re.finditer(r"1925", detection.answer)]
        revised = detection.answer.replace("1925", "1926")
        return Mitigation(detection.answer, revised, tuple(edits), detection, None)


def pipeline(mitigator):
    return Pipeline(
        extractor=SentenceExtractor(),
        retriever=AllSentencesRetriever(),
        verifier=NumbersVerifier(),
        mitigator=mitigator,
        name="numbers-standin",
    )


@pytest.fixture
def upstream():
    server = FakeOpenAIServer()
    yield server
    server.close()


def post(upstream, mitigator, stream):
    if stream:
        upstream.script(Reply(chunks=sse(stream_chunks(ANSWER))))
    else:
        upstream.script(Reply(body=completion(ANSWER)))
    config = ProxyConfig(upstream=upstream.base_url, pipeline=pipeline(mitigator), serve=ServeConfig(workers=2))
    body = {"model": "m", "messages": [{"role": "user", "content": "Tell me."}], "stream": stream}
    body["hallucheck"] = {"reference": REF, "policy": "repair_or_block"}
    with TestClient(create_proxy(config), base_url=HOST) as client:
        return client.post("/v1/chat/completions", json=body)


@pytest.mark.parametrize("stream", [False, True])
def test_a_repair_that_holds_is_sent(upstream, stream):
    r = post(upstream, NumberRepair(), stream)
    fixed = ANSWER.replace("1925", "1889")
    if stream:
        evs = events(r.text)
        assert content(evs) == fixed and evs[-1] == "[DONE]"
        assert verdict_chunks(evs)[1]["action"] == "repaired"
        assert final_chunk(evs)["repaired"][0]["revised"] == BAD.replace("1925", "1889")
    else:
        choice = r.json()["choices"][0]
        assert choice["message"]["content"] == fixed and choice["finish_reason"] == "stop"
        assert r.json()["hallucheck"]["repair"]["repaired"] is True


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("mitigator", [None, NoChange(), StillWrong()], ids=["no repair", "no change", "still wrong"])
def test_a_sentence_that_cannot_be_repaired_is_blocked(upstream, mitigator, stream):
    r = post(upstream, mitigator, stream)
    assert "1925" not in r.text and "1926" not in r.text  # neither the sentence nor its failed repair
    if stream:
        evs = events(r.text)
        assert content(evs) == f"{GOOD} "
        final = final_chunk(evs)
        assert final["blocked"]["sentence"] == 1 and final["hallucinated"] is True
        stops = [c for e in evs if isinstance(e, dict) for c in e.get("choices") or () if c.get("finish_reason")]
        assert [c["finish_reason"] for c in stops] == ["content_filter"]
    else:
        body = r.json()
        choice = body["choices"][0]
        assert choice["message"]["content"] == f"{GOOD} " and choice["finish_reason"] == "content_filter"
        assert body["hallucheck"]["repair"]["repaired"] is False and body["hallucheck"]["blocked"]
        assert "1925" not in r.text and "1926" not in r.text
