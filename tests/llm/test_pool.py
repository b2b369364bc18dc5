"""Several OpenAI-compatible endpoints for one model (llm/pool.py), against fake local servers."""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from hallucheck.cli import build_parser
from hallucheck.cli._common import llm_client
from hallucheck.errors import BackendError, ConfigError
from hallucheck.llm import ResponseCache, make_llm
from hallucheck.llm.base import LLMRequest, Message
from hallucheck.llm.openai_compat import OpenAICompatLLM
from hallucheck.llm.pool import EndpointPool

from .conftest import FakeOpenAIServer, Reply, completion


@pytest.fixture
def servers(no_key):
    made = [FakeOpenAIServer() for _ in range(3)]
    try:
        yield made
    finally:
        for s in made:
            s.close()


def _slow(seconds):
    return lambda rec: Reply(body=completion("ok"), delay=seconds)


def _ask(llm, i):
    return llm.complete(f"question {i}", max_tokens=4).text


def test_requests_spread_over_the_endpoints_within_each_ones_limit(servers):
    a, b = servers[:2]
    a.default = b.default = _slow(0.05)
    pool = EndpointPool("m", [a.base_url, b.base_url], max_concurrency=[1, 2], api_key_env=None)
    with ThreadPoolExecutor(6) as ex:
        assert list(ex.map(lambda i: _ask(pool, i), range(18))) == ["ok"] * 18
    assert len(a.requests) + len(b.requests) == 18
    assert a.max_in_flight == 1 and b.max_in_flight <= 2
    assert len(b.requests) > len(a.requests) > 0  # least-busy: the endpoint with room takes more
    assert pool.served == [len(a.requests), len(b.requests)] and pool.busy == [0, 0]


def test_round_robin_takes_the_endpoints_in_turn(servers):
    pool = EndpointPool("m", ",".join(s.base_url for s in servers), balance="round-robin", api_key_env=None)
    for i in range(6):
        _ask(pool, i)
    assert [len(s.requests) for s in servers] == [2, 2, 2]


def test_a_failing_endpoint_is_skipped_and_its_request_answered_by_another(servers):
    a, b = servers[:2]
    a.default = lambda rec: Reply(status=503, body={"error": "overloaded"})
    pool = EndpointPool("m", [a.base_url, b.base_url], balance="round-robin", max_retries=0, api_key_env=None)
    assert [_ask(pool, i) for i in range(6)] == ["ok"] * 6
    assert len(a.requests) == 1 and len(b.requests) == 6  # a rests after its failure


def test_an_answer_from_an_endpoint_is_not_asked_again_elsewhere(servers):
    for s in servers:
        s.default = lambda rec: Reply(status=400, body={"error": "bad request"})
    pool = EndpointPool("m", [s.base_url for s in servers], max_retries=0, api_key_env=None)
    with pytest.raises(BackendError, match="HTTP 400"):
        _ask(pool, 0)
    assert sum(len(s.requests) for s in servers) == 1


def test_cache_keys_do_not_depend_on_which_endpoint_answers(servers, tmp_path):
    a, b, c = servers
    cache = ResponseCache(tmp_path / "responses.sqlite")
    named = EndpointPool("m", [a.base_url, b.base_url], pool="qwen-7b", cache=cache, api_key_env=None)
    for i in range(4):
        named.complete(f"question {i}")
    asked = len(a.requests) + len(b.requests)
    # the same pool resized to another endpoint answers from the cache: nothing is sent
    resized = EndpointPool("m", c.base_url, pool="qwen-7b", cache=cache, api_key_env=None)
    assert all(resized.complete(f"question {i}").cached for i in range(4)) and c.requests == []
    assert len(a.requests) + len(b.requests) == asked
    # without a name: one URL keys as the plain client does; several URLs by their set, in any order
    single = EndpointPool("m", a.base_url, api_key_env=None)
    plain = OpenAICompatLLM("m", base_url=a.base_url, api_key_env=None)
    request = LLMRequest(messages=(Message("user", "q"),))
    assert single.cache_key(request) == plain.cache_key(request)
    ab = EndpointPool("m", [a.base_url, b.base_url], api_key_env=None)
    ba = EndpointPool("m", [b.base_url, a.base_url], api_key_env=None)
    assert ab.cache_key(request) == ba.cache_key(request) != plain.cache_key(request)
    assert named.cache_key(request) == resized.cache_key(request) != ab.cache_key(request)
    # the run manifest names the same identity
    assert named.describe() == {"backend": "openai", "model": "m", "pool": "qwen-7b"}
    assert ab.describe()["base_urls"] == sorted([a.base_url, b.base_url])
    assert single.describe() == plain.describe()


def test_the_cli_options_make_a_pool(servers):
    a, b, c = servers
    parse = build_parser().parse_args
    args = parse(
        [
            "check",
            "rows.jsonl",
            "--llm",
            "openai:m",
            "--base-url",
            a.base_url,
            "--base-url",
            f"{b.base_url},{c.base_url}",
        ]
        + ["--max-concurrency", "1,2,3", "--balance", "round-robin", "--endpoint-pool", "p", "--no-cache"]
    )
    llm = llm_client(args)
    assert isinstance(llm, EndpointPool) and llm.base_urls == [a.base_url, b.base_url, c.base_url]
    assert llm.limits == [1, 2, 3] and llm.balance == "round-robin" and llm.cache_endpoint() == "pool:p"
    one = llm_client(parse(["check", "rows.jsonl", "--llm", "openai:m", "--base-url", a.base_url, "--no-cache"]))
    assert type(one) is OpenAICompatLLM and one.max_concurrency == 4  # one endpoint: the plain client, as before
    with pytest.raises(ConfigError, match="one per endpoint"):
        make_llm("openai:m", base_url=[a.base_url, b.base_url], max_concurrency=[1, 2, 3], cache=None)
    with pytest.raises(SystemExit):
        parse(["check", "rows.jsonl", "--max-concurrency", "0"])


def _judge_reply(rec):
    """An NLI judge over HTTP: the next token's top alternatives, Contradiction when the answer names Macau."""
    text = json.dumps(rec.body)
    bad = "Macau" in text
    top = [
        {"token": "Contradiction", "logprob": -0.1 if bad else -3.0},
        {"token": "Entailment", "logprob": -3.0 if bad else -0.1},
        {"token": "Neutral", "logprob": -3.0},
    ]
    first = top[0] if bad else top[1]
    return Reply(body=completion(first["token"], logprobs=[{**first, "top_logprobs": top}]))


def test_ray_actors_share_the_endpoints(servers, ray_session, tmp_path):
    """Each actor makes its own pool client from the LLM options; both endpoints serve the run."""
    import hallucheck
    from hallucheck.engines import MethodSpec
    from hallucheck.engines.ray import RayEngine
    from hallucheck.eval.datasets import Example
    from hallucheck.eval.report import compute_metrics
    from hallucheck.eval.runner import run_eval

    ray_session.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    a, b = servers[:2]
    a.default = b.default = _judge_reply
    llm = {
        "spec": "openai:served-model",
        "base_url": [a.base_url, b.base_url],
        "max_concurrency": [1, 1],
        "api_key_env": None,
        "cache": None,
        "max_retries": 0,
    }
    ref = "The Oberoi Group has its head office in Delhi."
    examples = [
        Example(
            f"e{i}",
            "t",
            "qa",
            "Where?",
            ref,
            "It runs casinos in Macau." if i % 2 else "Its office is in Delhi.",
            i % 2,
        )
        for i in range(8)
    ]
    driver = hallucheck.load_method("prompt", llm=make_llm(**llm), calibrate=False)
    spec = MethodSpec(method="prompt", params={"calibrate": False}, llm=llm, expect=driver.to_dict())
    records = run_eval(
        driver,
        examples,
        out_dir=tmp_path,
        progress=False,
        engine=RayEngine(spec, actors=2, batch_size=2, verbose=False),
    )
    assert [r["hallucinated"] for r in records] == [bool(i % 2) for i in range(8)]
    assert compute_metrics(records, bootstrap=0)["decisions"]["macro_f1"] == 1.0
    assert len(a.requests) > 0 and len(b.requests) > 0 and len(a.requests) + len(b.requests) == 8
