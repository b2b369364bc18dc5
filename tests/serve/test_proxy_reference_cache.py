"""``hallucheck proxy`` parses a request's reference once (:mod:`hallucheck.stages.prepared`): every
sentence ``hold`` checks, the next request with the same reference, and ``repair_or_block``'s repair
and re-check read that one parse; a new reference is parsed anew; what the client gets is the same
as with a fresh parse for every sentence. The real default method (ce_cascade, llm none)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from _fake_openai import FakeOpenAIServer, Reply, sse, stream_chunks  # noqa: E402
from _proxy_helpers import HOST, content, events, final_chunk, verdict_chunks  # noqa: E402
from hallucheck.serve.proxy import ProxyConfig, create_proxy  # noqa: E402
from hallucheck.serve.state import ServeConfig  # noqa: E402
from hallucheck.stages import prepared  # noqa: E402
from hallucheck.stages.gate import figures  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ANSWER = (ROOT / "examples" / "manual_answer.txt").read_text(encoding="utf-8").strip()
REFERENCE = (ROOT / "examples" / "manual_reference.txt").read_text(encoding="utf-8")
OTHER = REFERENCE.replace("2.6 bar (38 psi)", "2.8 bar (41 psi)")


@pytest.fixture(autouse=True)
def _empty_cache():
    prepared.REFERENCES.clear()
    yield
    prepared.REFERENCES.configure(prepared.MAX_REFERENCES, prepared.MAX_CHARS)
    prepared.REFERENCES.clear()


@pytest.fixture
def parses(monkeypatch):
    """The gate's parses of each reference (ReferenceFacts built), counted by text."""
    calls: Counter[str] = Counter()
    init = figures.ReferenceFacts.__init__

    def counting(self, reference, **kw):
        calls[reference] += 1
        init(self, reference, **kw)

    monkeypatch.setattr(figures.ReferenceFacts, "__init__", counting)
    return calls


@pytest.fixture
def upstream():
    server = FakeOpenAIServer()
    yield server
    server.close()


def held(upstream, reference: str, policy: str = "hold") -> list:
    """The events of one streamed request of the shipped answer, checked against ``reference``."""
    upstream.script(Reply(chunks=sse(stream_chunks(ANSWER))))
    config = ProxyConfig(upstream=upstream.base_url, serve=ServeConfig(workers=2), policies=(policy,), policy=policy)
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "How do I look after the tyres?"}]}
    body["hallucheck"] = {"reference": reference}
    with TestClient(create_proxy(config), base_url=HOST) as client:
        r = client.post("/v1/chat/completions", json=body)
    assert r.status_code == 200
    return events(r.text)


def verdicts(evs: list) -> list:
    return [{k: v for k, v in chunk.items() if k != "seconds"} for chunk in verdict_chunks(evs)]


def test_every_sentence_and_a_second_request_read_one_parse(upstream, parses):
    first = held(upstream, REFERENCE)
    assert len(verdict_chunks(first)) == 4 and content(first) == ANSWER
    second = held(upstream, REFERENCE)
    assert parses[REFERENCE] == 1  # 4 sentences, 2 requests: one parse
    assert verdicts(second) == verdicts(first)
    held(upstream, OTHER)  # another reference: parsed anew, once
    assert parses[OTHER] == 1 and parses[REFERENCE] == 1


def test_the_client_gets_what_a_fresh_parse_gives(upstream, parses):
    cached = held(upstream, REFERENCE)
    prepared.REFERENCES.configure(max_references=0)
    fresh = held(upstream, REFERENCE)
    assert parses[REFERENCE] == 1 + 4  # without the cache: a parse per sentence
    assert verdicts(fresh) == verdicts(cached)
    assert content(fresh) == content(cached)
    assert final_chunk(fresh)["verdicts"] == final_chunk(cached)["verdicts"]


def test_repair_or_block_repairs_from_the_same_parse(upstream, parses):
    evs = held(upstream, REFERENCE, policy="repair_or_block")
    repaired = [v for v in verdict_chunks(evs) if v.get("action") == "repaired"]
    assert repaired and "2.6 bar" in repaired[0]["repair"]["revised"]
    held(upstream, REFERENCE, policy="repair_or_block")
    assert parses[REFERENCE] == 1  # detections, repairs and their re-checks, two requests
