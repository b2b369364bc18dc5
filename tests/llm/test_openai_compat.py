"""OpenAICompatLLM against a local fake chat-completions server (127.0.0.1 only)."""

from __future__ import annotations

import contextvars
import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from hallucheck.errors import BackendError, BackendTimeout, ConfigError, RateLimited
from hallucheck.llm import make_llm
from hallucheck.llm.base import LLMRequest, Message, TokenLogprob, usage_scope
from hallucheck.llm.openai_compat import OpenAICompatLLM
from hallucheck.types import Usage

from .conftest import Reply, completion, wait_until

SECRET = "sk-test-SECRET-0123456789"


def make(server, **kw) -> OpenAICompatLLM:
    kw.setdefault("api_key_env", "HC_TEST_KEY")
    kw.setdefault("backoff", 0.01)
    kw.setdefault("timeout", 5.0)
    return OpenAICompatLLM(kw.pop("model", "test-model"), base_url=server.base_url, **kw)


def free_port() -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# -- construction ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [
        {"model": ""},
        {"base_url": "127.0.0.1:8000/v1"},
        {"base_url": "ftp://host/v1"},
        {"max_concurrency": 0},
        {"max_retries": -1},
        {"timeout": 0},
    ],
)
def test_bad_configuration_is_rejected(kw):
    args = {"model": "m", "base_url": "http://127.0.0.1:1/v1", **kw}
    with pytest.raises(ConfigError):
        OpenAICompatLLM(args.pop("model"), **args)


def test_trailing_slash_in_base_url_and_endpoint_path(server, no_key):
    client = OpenAICompatLLM("m", base_url=server.base_url + "/", backoff=0.01)
    client.complete("hi")
    rec = server.requests[0]
    assert rec.method == "POST"
    assert rec.path == "/v1/chat/completions"
    assert rec.headers["content-type"] == "application/json"
    assert client.base_url == server.base_url


# -- request body ---------------------------------------------------------------------------


def test_basic_request_body(server, no_key):
    client = make(server, model="qwen2.5:7b-instruct")
    client.complete(
        [Message("system", "Be brief."), {"role": "user", "content": "Capital of France?"}],
        max_tokens=17,
        temperature=0.3,
    )
    body = server.bodies[0]
    assert body["model"] == "qwen2.5:7b-instruct"
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Capital of France?"},
    ]
    assert body["max_tokens"] == 17
    assert body["temperature"] == 0.3
    assert body["seed"] == 0
    # nothing that was not asked for
    for key in ("stop", "logprobs", "top_logprobs", "response_format"):
        assert key not in body


def test_string_prompt_becomes_one_user_message(server, no_key):
    make(server).complete("hello there")
    assert server.bodies[0]["messages"] == [{"role": "user", "content": "hello there"}]


def test_stop_sequences(server, no_key):
    client = make(server)
    client.complete("a", stop=["\n\n", "###"])
    client.complete("b", stop=("END",))
    client.complete("c", stop="STOP")  # a single string is one stop sequence, not its characters
    assert [b["stop"] for b in server.bodies] == [["\n\n", "###"], ["END"], ["STOP"]]


def test_seed_none_is_not_sent(server, no_key):
    make(server).complete("a", seed=None)
    make(server).complete("a", seed=42)
    assert "seed" not in server.bodies[0]
    assert server.bodies[1]["seed"] == 42


@pytest.mark.parametrize("asked, logprobs, top", [(0, True, None), (5, True, 5), (20, True, 20), (50, True, 20)])
def test_logprobs_in_body_when_asked(server, no_key, asked, logprobs, top):
    make(server).complete("a", logprobs=asked)
    body = server.bodies[0]
    assert body["logprobs"] is logprobs
    assert body.get("top_logprobs") == top


def test_json_schema_becomes_response_format(server, no_key):
    schema = {
        "type": "object",
        "properties": {"label": {"type": "string", "enum": ["yes", "no"]}},
        "required": ["label"],
        "additionalProperties": False,
    }
    make(server).complete("a", json_schema=schema)
    rf = server.bodies[0]["response_format"]
    assert rf["type"] == "json_schema"
    assert rf["json_schema"]["schema"] == schema
    assert rf["json_schema"]["strict"] is True
    assert isinstance(rf["json_schema"]["name"], str) and rf["json_schema"]["name"]


def test_extra_body_is_merged(server, no_key):
    make(server, extra_body={"top_p": 0.9, "repetition_penalty": 1.1}).complete("a")
    body = server.bodies[0]
    assert body["top_p"] == 0.9 and body["repetition_penalty"] == 1.1
    assert body["model"] == "test-model"


# -- API key --------------------------------------------------------------------------------


def test_authorization_header_from_named_env_var(server, monkeypatch):
    monkeypatch.setenv("HC_TEST_KEY", SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-wrong-one")
    make(server, api_key_env="HC_TEST_KEY").complete("a")
    assert server.requests[0].headers["authorization"] == f"Bearer {SECRET}"


def test_default_env_var_is_openai_api_key(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    OpenAICompatLLM("m", base_url=server.base_url).complete("a")
    assert server.requests[0].headers["authorization"] == f"Bearer {SECRET}"


def test_no_authorization_header_when_env_var_unset(server, no_key):
    make(server, api_key_env="HC_TEST_KEY").complete("a")
    assert "authorization" not in server.requests[0].headers


def test_no_authorization_header_when_env_var_empty(server, monkeypatch):
    monkeypatch.setenv("HC_TEST_KEY", "")
    make(server, api_key_env="HC_TEST_KEY").complete("a")
    assert "authorization" not in server.requests[0].headers


def test_no_authorization_header_when_api_key_env_is_none(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    make(server, api_key_env=None).complete("a")
    assert "authorization" not in server.requests[0].headers


def test_key_is_read_at_request_time(server, monkeypatch):
    monkeypatch.delenv("HC_TEST_KEY", raising=False)
    client = make(server)
    client.complete("a")
    monkeypatch.setenv("HC_TEST_KEY", "first-key")
    client.complete("b")
    monkeypatch.setenv("HC_TEST_KEY", "second-key")
    client.complete("c")
    auth = [r.headers.get("authorization") for r in server.requests]
    assert auth == [None, "Bearer first-key", "Bearer second-key"]


def test_key_never_in_cache_key_describe_or_client_state(server, monkeypatch):
    request = LLMRequest(messages=(Message("user", "hi"),), prompt="verify.v1")
    monkeypatch.delenv("HC_TEST_KEY", raising=False)
    client = make(server)
    key_without = client.cache_key(request)
    monkeypatch.setenv("HC_TEST_KEY", SECRET)
    key_with = client.cache_key(request)
    assert key_with == key_without  # the key does not depend on the secret at all
    assert SECRET not in key_with
    described = client.describe()
    assert SECRET not in json.dumps(described)
    assert described == {"backend": "openai", "model": "test-model", "base_url": server.base_url}
    assert SECRET not in repr(vars(client))
    client.complete("a")
    assert server.requests[0].headers["authorization"] == f"Bearer {SECRET}"


# -- response parsing -----------------------------------------------------------------------


def test_parses_content_usage_model_and_finish_reason(server, no_key):
    server.script(
        Reply(
            body=completion(
                "Paris.", prompt_tokens=21, completion_tokens=2, model="served/qwen", finish_reason="length"
            )
        )
    )
    r = make(server).complete("Capital of France?")
    assert r.text == "Paris."
    assert r.model == "served/qwen"
    assert r.finish_reason == "length"
    assert r.usage.prompt_tokens == 21 and r.usage.completion_tokens == 2
    assert r.usage.calls == 1 and r.usage.cached_calls == 0 and r.usage.seconds > 0
    assert r.logprobs is None
    assert r.cached is False


def test_parses_logprobs_with_top_alternatives(server, no_key):
    lp = [
        {
            "token": "Par",
            "logprob": -0.01,
            "bytes": [80, 97, 114],
            "top_logprobs": [{"token": "Par", "logprob": -0.01}, {"token": "Lyon", "logprob": -4.6}],
        },
        {"token": "is", "logprob": -0.2, "top_logprobs": []},
    ]
    server.script(Reply(body=completion("Paris", logprobs=lp)))
    r = make(server).complete("q", logprobs=2)
    assert r.logprobs == (
        TokenLogprob("Par", -0.01, (("Par", -0.01), ("Lyon", -4.6))),
        TokenLogprob("is", -0.2, ()),
    )


def test_missing_optional_fields_have_defaults(server, no_key):
    server.script(Reply(body={"choices": [{"message": {"role": "assistant", "content": None}, "logprobs": None}]}))
    r = make(server, model="my-model").complete("q")
    assert r.text == ""
    assert r.model == "my-model"
    assert r.finish_reason == "stop"
    assert r.usage.prompt_tokens == 0 and r.usage.completion_tokens == 0
    assert r.logprobs is None


@pytest.mark.parametrize(
    "payload",
    [
        {"error": {"message": "model not loaded"}},
        {"choices": []},
        {"choices": [{"finish_reason": "stop"}]},
        {"choices": [{"message": None}]},
        {"choices": None},
        ["not", "an", "object"],
    ],
)
def test_payload_without_choices_is_a_backend_error(server, no_key, payload):
    server.script(Reply(body=payload))
    with pytest.raises(BackendError) as ei:
        make(server).complete("q")
    assert server.base_url in str(ei.value)
    assert "choices" in str(ei.value)
    assert len(server.requests) == 1


def test_non_json_body_is_a_backend_error(server, no_key):
    server.script(Reply(body="<html><body>502 Bad Gateway</body></html>", headers={"Content-Type": "text/html"}))
    client = make(server, max_retries=3)
    with pytest.raises(BackendError) as ei:
        client.complete("q")
    assert "not JSON" in str(ei.value)
    assert server.url in str(ei.value)
    assert ei.value.url == server.url
    assert len(server.requests) == 1  # a malformed 200 is not retried
    assert client.usage.calls == 0


def test_reply_that_is_not_http_is_a_backend_error(server, no_key):
    server.script(Reply(raw=b"SSH-2.0-OpenSSH_9.6\r\n\r\n"), Reply(raw=b"SSH-2.0-OpenSSH_9.6\r\n\r\n"))
    with pytest.raises(BackendError) as ei:
        make(server, max_retries=1).complete("q")
    assert server.url in str(ei.value)
    assert len(server.requests) == 2


def test_truncated_reply_is_retried_then_succeeds(server, no_key):
    cut = b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\nConnection: close\r\n\r\n{"choi'
    server.script(Reply(raw=cut), Reply(body=completion("whole")))
    r = make(server, max_retries=1).complete("q")
    assert r.text == "whole"
    assert len(server.requests) == 2


# -- retries --------------------------------------------------------------------------------


def test_retries_429_and_500_then_succeeds(server, no_key):
    server.script(
        Reply(status=429, body={"error": "slow down"}),
        Reply(status=500, body={"error": "oops"}),
        Reply(body=completion("finally", prompt_tokens=4, completion_tokens=1)),
    )
    client = make(server, max_retries=3)
    r = client.complete("q")
    assert r.text == "finally"
    assert len(server.requests) == 3
    # every attempt sends the same request
    assert server.bodies[0] == server.bodies[1] == server.bodies[2]
    # one logical call, whatever the number of attempts
    assert client.usage.calls == 1 and client.usage.prompt_tokens == 4


@pytest.mark.parametrize("status", [408, 409, 502, 503, 504])
def test_other_transient_statuses_are_retried(server, no_key, status):
    server.script(Reply(status=status, body={"error": "transient"}), Reply(body=completion("ok")))
    assert make(server, max_retries=1).complete("q").text == "ok"
    assert len(server.requests) == 2


def test_backoff_grows_between_attempts(server, no_key):
    server.script(*(Reply(status=503, body="busy") for _ in range(3)))
    client = make(server, max_retries=3, backoff=0.05)
    t0 = time.perf_counter()
    client.complete("q")
    elapsed = time.perf_counter() - t0
    assert len(server.requests) == 4
    assert elapsed >= 0.05 + 0.10 + 0.20  # exponential: backoff * 2**(attempt-1)
    assert elapsed < 3.0


def test_rate_limited_after_all_retries(server, no_key):
    server.default = lambda rec: Reply(status=429, body={"error": "rate limit reached"})
    with pytest.raises(RateLimited) as ei:
        make(server, max_retries=2).complete("q")
    err = ei.value
    assert server.url in str(err)
    assert "429" in str(err) and "3 attempts" in str(err)
    assert err.status == 429 and err.url == server.url
    assert len(server.requests) == 3


def test_server_error_after_all_retries(server, no_key):
    server.default = lambda rec: Reply(status=500, body="internal error: CUDA out of memory")
    with pytest.raises(BackendError) as ei:
        make(server, max_retries=2).complete("q")
    err = ei.value
    assert not isinstance(err, RateLimited)
    assert server.url in str(err)
    assert "500" in str(err) and "CUDA out of memory" in str(err)
    assert err.status == 500
    assert len(server.requests) == 3


def test_no_retries_means_one_attempt(server, no_key):
    server.default = lambda rec: Reply(status=503, body="busy")
    with pytest.raises(BackendError):
        make(server, max_retries=0).complete("q")
    assert len(server.requests) == 1


@pytest.mark.parametrize("status", [401, 403])
def test_auth_failure_names_the_env_var_and_is_not_retried(server, monkeypatch, status):
    monkeypatch.setenv("MY_LLM_KEY", SECRET)
    server.default = lambda rec: Reply(status=status, body={"error": "invalid api key"})
    with pytest.raises(BackendError) as ei:
        make(server, api_key_env="MY_LLM_KEY", max_retries=3).complete("q")
    err = ei.value
    assert not isinstance(err, (RateLimited, BackendTimeout))
    assert "MY_LLM_KEY" in str(err)
    assert str(status) in str(err) and server.url in str(err)
    assert SECRET not in str(err)
    assert err.status == status
    assert len(server.requests) == 1


def test_client_error_is_not_retried(server, no_key):
    server.default = lambda rec: Reply(status=400, body={"error": "max_tokens too large"})
    with pytest.raises(BackendError) as ei:
        make(server, max_retries=3).complete("q")
    assert "max_tokens too large" in str(ei.value)
    assert ei.value.status == 400
    assert len(server.requests) == 1


# -- timeouts and unreachable endpoints ------------------------------------------------------


def test_slow_server_times_out_with_url(server, no_key):
    server.default = lambda rec: Reply(delay=3.0, body=completion("too late"))
    client = make(server, timeout=0.2, max_retries=1)
    t0 = time.perf_counter()
    with pytest.raises(BackendTimeout) as ei:
        client.complete("q")
    assert time.perf_counter() - t0 < 2.0
    assert server.url in str(ei.value)
    assert ei.value.url == server.url
    assert "timeout" in str(ei.value)
    assert wait_until(lambda: len(server.requests) == 2)


def test_timeout_then_success(server, no_key):
    server.script(Reply(delay=3.0, body=completion("late")), Reply(body=completion("on time")))
    assert make(server, timeout=0.3, max_retries=1).complete("q").text == "on time"


def test_unreachable_endpoint(no_key):
    port = free_port()
    base = f"http://127.0.0.1:{port}/v1"
    client = OpenAICompatLLM("m", base_url=base, max_retries=1, backoff=0.01, timeout=2.0)
    t0 = time.perf_counter()
    with pytest.raises(BackendError) as ei:
        client.complete("q")
    assert time.perf_counter() - t0 < 2.0
    err = ei.value
    assert not isinstance(err, BackendTimeout)
    assert f"{base}/chat/completions" in str(err)
    assert err.url == f"{base}/chat/completions"
    assert "Is the server running" in str(err) and "/v1" in str(err)


# -- concurrency ----------------------------------------------------------------------------


def _hammer(client, n_threads=8, per_thread=2):
    def work(i):
        return [client.complete(f"thread {i} call {j}").text for j in range(per_thread)]

    with ThreadPoolExecutor(n_threads) as pool:
        return [t for texts in pool.map(work, range(n_threads)) for t in texts]


def test_max_concurrency_is_respected(server, no_key):
    server.default = lambda rec: Reply(delay=0.08, body=completion("ok"))
    client = make(server, max_concurrency=2)
    texts = _hammer(client)
    assert texts == ["ok"] * 16
    assert len(server.requests) == 16
    assert server.max_in_flight == 2  # never more than 2, and the limit was actually reached
    assert client.usage.calls == 16


def test_server_does_see_parallel_requests_without_a_low_limit(server, no_key):
    # the control for the test above: the fake server can observe more than 2 in flight
    server.default = lambda rec: Reply(delay=0.15, body=completion("ok"))
    _hammer(make(server, max_concurrency=8), per_thread=1)
    assert server.max_in_flight > 2


def test_concurrency_slot_is_released_after_errors(server, no_key):
    server.default = lambda rec: Reply(status=400, body="bad")
    client = make(server, max_concurrency=1, max_retries=0)
    for _ in range(3):
        with pytest.raises(BackendError):
            client.complete("q")
    server.default = lambda rec: Reply(body=completion("fine"))
    assert client.complete("q").text == "fine"


# -- score_labels ---------------------------------------------------------------------------

LABELS = ("supported", "contradicted", "unverifiable")


def _first_token(top, token=None, logprob=None):
    token = token if token is not None else top[0][0]
    logprob = logprob if logprob is not None else top[0][1]
    return [{"token": token, "logprob": logprob, "top_logprobs": [{"token": t, "logprob": p} for t, p in top]}]


def test_score_labels_from_top_logprobs(server, no_key):
    top = [("Sup", -0.2), (" contr", -2.3), ("The", -3.5), ("\n", -4.0)]  # together at most 1
    server.script(Reply(body=completion("Sup", prompt_tokens=30, completion_tokens=1, logprobs=_first_token(top))))
    client = make(server)
    scores = client.score_labels("Is the claim supported?", LABELS)
    assert dict(scores.logprobs) == {"supported": -0.2, "contradicted": -2.3, "unverifiable": -30.0}
    assert scores.best == "supported"
    assert scores.usage.calls == 1 and scores.usage.prompt_tokens == 30
    body = server.bodies[0]
    assert body["max_tokens"] == 1
    assert body["logprobs"] is True and body["top_logprobs"] == 20
    assert body["messages"] == [{"role": "user", "content": "Is the claim supported?"}]


def test_score_labels_takes_best_matching_token_case_insensitively(server, no_key):
    top = [("unver", -0.7), ("UN", -2.0), ("Un", -1.5), ("c", -3.3), ("co", -2.2)]  # the reply: the likeliest
    server.script(Reply(body=completion("unver", logprobs=_first_token(top))))
    scores = make(server).score_labels("q", LABELS)
    assert dict(scores.logprobs) == {"supported": -30.0, "contradicted": -2.2, "unverifiable": -0.7}


def test_score_labels_with_prefix_adds_assistant_message(server, no_key):
    server.script(Reply(body=completion("yes", logprobs=_first_token([("yes", -0.1), ("no", -2.4)]))))
    scores = make(server).score_labels([{"role": "user", "content": "Supported?"}], ["yes", "no"], prefix="Answer:")
    assert dict(scores.logprobs) == {"yes": -0.1, "no": -2.4}
    assert server.bodies[0]["messages"][-1] == {"role": "assistant", "content": "Answer:"}


def test_score_labels_without_top_alternatives_uses_chosen_token(server, no_key):
    server.script(Reply(body=completion("no", logprobs=[{"token": "no", "logprob": -0.05, "top_logprobs": []}])))
    scores = make(server).score_labels("q", ["yes", "no"])
    assert dict(scores.logprobs) == {"yes": -30.0, "no": -0.05}


def test_score_labels_errors_without_logprobs(server, no_key):
    server.script(Reply(body=completion("supported")))
    client = make(server)
    with pytest.raises(BackendError) as ei:
        client.score_labels("q", LABELS)
    assert "no log-probabilities" in str(ei.value)
    assert "test-model" in str(ei.value)
    assert client.usage.calls == 0


# -- usage accounting -----------------------------------------------------------------------


def test_client_usage_sums_calls_and_tokens(server, no_key):
    server.script(
        Reply(body=completion("a", prompt_tokens=10, completion_tokens=2)),
        Reply(body=completion("b", prompt_tokens=5, completion_tokens=7)),
    )
    client = make(server)
    client.complete("x")
    client.complete("y")
    u = client.usage
    assert (u.calls, u.cached_calls, u.prompt_tokens, u.completion_tokens) == (2, 0, 15, 9)
    assert u.total_tokens == 24 and u.seconds > 0


def test_failed_calls_are_not_counted(server, no_key):
    server.script(Reply(status=400, body="bad"))
    client = make(server)
    with usage_scope() as scope, pytest.raises(BackendError):
        client.complete("x")
    assert client.usage == Usage()
    assert scope.usage == Usage()


def test_usage_scope_nested(server, no_key):
    server.default = lambda rec: Reply(body=completion("ok", prompt_tokens=3, completion_tokens=1))
    client = make(server)
    client.complete("before")
    with usage_scope() as outer:
        client.complete("o1")
        with usage_scope() as inner:
            client.complete("i1")
            client.complete("i2")
        client.complete("o2")
    client.complete("after")
    assert (inner.usage.calls, inner.usage.prompt_tokens, inner.usage.completion_tokens) == (2, 6, 2)
    assert (outer.usage.calls, outer.usage.prompt_tokens, outer.usage.completion_tokens) == (4, 12, 4)
    assert client.usage.calls == 6


def test_usage_scope_follows_copied_context_into_threads(server, no_key):
    server.default = lambda rec: Reply(delay=0.02, body=completion("ok", prompt_tokens=2, completion_tokens=5))
    client = make(server, max_concurrency=4)
    with usage_scope() as scope:
        threads = []
        for i in range(6):
            ctx = contextvars.copy_context()
            threads.append(threading.Thread(target=ctx.run, args=(client.complete, f"call {i}")))
        # a plain thread does not inherit the scope
        threads.append(threading.Thread(target=client.complete, args=("outside",)))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert (scope.usage.calls, scope.usage.prompt_tokens, scope.usage.completion_tokens) == (6, 12, 30)
    assert client.usage.calls == 7


def test_separate_scopes_in_separate_threads(server, no_key):
    """One scope per example, examples running in threads: each counts only its own calls."""
    server.default = lambda rec: Reply(delay=0.01, body=completion("ok", prompt_tokens=1, completion_tokens=1))
    client = make(server, max_concurrency=4)

    def example(n):
        with usage_scope() as s:
            for i in range(n):
                client.complete(f"{n}-{i}")
        return s.usage.calls

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(example, [1, 2, 3, 4])) == [1, 2, 3, 4]
    assert client.usage.calls == 10


def test_score_labels_is_accounted(server, no_key):
    server.script(
        Reply(
            body=completion(
                "yes", prompt_tokens=11, completion_tokens=1, logprobs=_first_token([("yes", -0.3), ("no", -1.4)])
            )
        )
    )
    client = make(server)
    with usage_scope() as scope:
        client.score_labels("q", ["yes", "no"])
    assert (scope.usage.calls, scope.usage.prompt_tokens, scope.usage.completion_tokens) == (1, 11, 1)
    assert client.usage.calls == 1


# -- make_llm -------------------------------------------------------------------------------


def test_make_llm_builds_an_openai_client(server, no_key):
    client = make_llm("openai:qwen2.5:7b-instruct", base_url=server.base_url, cache=None, backoff=0.01, max_retries=0)
    assert isinstance(client, OpenAICompatLLM)
    assert client.model_id == "qwen2.5:7b-instruct"
    assert client.complete("q").text == "ok"
    assert server.bodies[0]["model"] == "qwen2.5:7b-instruct"
    with pytest.raises(ConfigError):
        make_llm("openai:", base_url=server.base_url, cache=None)


# -- issue 11 items 1 and 5: malformed scoring replies ------------------------------------------
def _lp(token, logprob, top):
    return [{"token": token, "logprob": logprob, "top_logprobs": [{"token": t, "logprob": v} for t, v in top]}]


def test_score_labels_with_no_label_among_alternatives_is_unreadable(server, no_key):
    from hallucheck.errors import UnreadableReply

    server.script(Reply(body=completion("Sure", logprobs=_lp("Sure", -0.1, [("Sure", -0.1), ("The", -2.5)]))))
    with pytest.raises(UnreadableReply) as err:
        make(server).score_labels("q", ["Entailment", "Neutral", "Contradiction"])
    assert "Sure" in err.value.raw and isinstance(err.value, BackendError)


@pytest.mark.parametrize("bad", ["NaN", "abc", None, [1], {"x": 1}])
def test_non_numeric_or_nan_logprobs_are_unreadable_not_a_crash(server, no_key, bad):
    from hallucheck.errors import UnreadableReply

    value = float("nan") if bad == "NaN" else bad
    body = json.dumps(
        completion("Entailment", logprobs=_lp("Entailment", value, [("Entailment", value), ("Neutral", -2.0)]))
    )
    server.script(Reply(body=body))
    with pytest.raises(UnreadableReply):
        make(server).score_labels("q", ["Entailment", "Neutral", "Contradiction"])


@pytest.mark.parametrize(
    "usage", ["lots", [1, 2], {"prompt_tokens": "x", "completion_tokens": None}, {"prompt_tokens": 1.5e3}]
)
def test_wrong_typed_usage_does_not_lose_the_answer(server, no_key, usage):
    body = completion("hello")
    body["usage"] = usage
    server.script(Reply(body=body))
    r = make(server).complete("q")
    assert r.text == "hello" and r.usage.prompt_tokens >= 0


def test_logprobs_not_asked_for_are_ignored_even_when_malformed(server, no_key):
    body = completion("hello")
    body["choices"][0]["logprobs"] = {"content": "garbage"}
    server.script(Reply(body=body))
    assert make(server).complete("q").text == "hello"


# -- issue 11 item 2: the cache key holds the endpoint ------------------------------------------
def test_two_endpoints_with_the_same_model_name_do_not_share_cached_answers(server, no_key, tmp_path, monkeypatch):
    from hallucheck.llm.cache import ResponseCache

    from .conftest import FakeOpenAIServer

    other = FakeOpenAIServer()
    try:
        server.script(Reply(body=completion("from the first")))
        other.script(Reply(body=completion("from the second")))
        cache = ResponseCache(tmp_path / "c.sqlite")
        first = OpenAICompatLLM("same-model", base_url=server.base_url, api_key_env="HC_TEST_KEY", cache=cache)
        second = OpenAICompatLLM("same-model", base_url=other.base_url, api_key_env="HC_TEST_KEY", cache=cache)
        assert first.complete("q").text == "from the first"
        assert second.complete("q").text == "from the second" and len(other.requests) == 1
        # the same endpoint does hit the cache, and the key never depends on the API key
        request = LLMRequest(messages=(Message("user", "q"),))
        key = first.cache_key(request)
        monkeypatch.setenv("HC_TEST_KEY", SECRET)
        assert first.complete("q").cached and first.cache_key(request) == key and SECRET not in key
        # a query string in the URL is not part of the key either (credentials are refused outright)
        creds = OpenAICompatLLM(
            "same-model",
            base_url=server.base_url + "?key=zz",
            api_key_env="HC_TEST_KEY",
            cache=cache,
        )
        assert creds.cache_key(request) == key
    finally:
        other.close()
