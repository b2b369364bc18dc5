"""FakeLLM, the request/response types and the input checks shared by every backend."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import pytest

from hallucheck.errors import BackendError, BackendTimeout, ConfigError, InputError, ParseError
from hallucheck.llm.base import LabelScores, LLMRequest, LLMResponse, Message, TokenLogprob, as_messages, usage_scope
from hallucheck.llm.fake import FakeLLM
from hallucheck.types import Usage

# -- scripted replies -----------------------------------------------------------------------


def test_replies_in_order_and_requests_recorded():
    llm = FakeLLM(["first reply", "second", "third one here"])
    assert llm.complete("one", prompt="p.v1").text == "first reply"
    assert llm.complete([{"role": "system", "content": "sys"}, {"role": "user", "content": "two"}]).text == "second"
    assert llm.complete("three", max_tokens=5).text == "third one here"
    assert [r.messages for r in llm.requests] == [
        (Message("user", "one"),),
        (Message("system", "sys"), Message("user", "two")),
        (Message("user", "three"),),
    ]
    assert llm.requests[0].prompt == "p.v1"
    assert llm.requests[2].max_tokens == 5


def test_usage_counts_whitespace_words():
    llm = FakeLLM(["a b c"])
    r = llm.complete([Message("system", "x y"), Message("user", "one two three four")])
    assert (r.usage.prompt_tokens, r.usage.completion_tokens, r.usage.calls) == (6, 3, 1)
    assert r.model == "fake" and r.finish_reason == "stop" and r.cached is False
    assert llm.usage.calls == 1 and llm.usage.total_tokens == 9


def test_model_id_parameter():
    llm = FakeLLM(["x"], model_id="fake-judge")
    assert llm.model_id == "fake-judge"
    assert llm.complete("q").model == "fake-judge"
    assert llm.describe() == {"backend": "FakeLLM", "model": "fake-judge"}


def test_callable_replies_see_the_request():
    llm = FakeLLM(lambda req: f"{req.prompt}:{req.messages[-1].content.upper()}:{req.temperature}")
    assert llm.complete("hello", prompt="echo.v1").text == "echo.v1:HELLO:0.0"
    assert llm.complete("again", temperature=0.5).text == ":AGAIN:0.5"
    assert len(llm.requests) == 2  # a callable never runs out


def test_callable_items_in_a_list():
    llm = FakeLLM(["plain", lambda req: "from " + req.messages[0].content, "plain again"])
    assert [llm.complete(q).text for q in ("a", "b", "c")] == ["plain", "from b", "plain again"]


def test_exceptions_in_the_script_are_raised_in_turn():
    llm = FakeLLM(["ok 1", BackendTimeout("slow", url="http://x"), ParseError("bad", raw="{"), "ok 2"])
    assert llm.complete("1").text == "ok 1"
    with pytest.raises(BackendTimeout, match="slow"):
        llm.complete("2")
    with pytest.raises(ParseError) as ei:
        llm.complete("3")
    assert ei.value.raw == "{"
    assert llm.complete("4").text == "ok 2"
    assert llm.usage.calls == 2  # failed calls are not counted
    assert len(llm.requests) == 4


def test_running_out_of_replies_is_a_clear_assertion():
    llm = FakeLLM(["only one"])
    llm.complete("q1")
    with pytest.raises(AssertionError, match="ran out of scripted replies"):
        llm.complete("q2")
    with pytest.raises(AssertionError, match="ran out"):
        FakeLLM().complete("q")


def test_script_is_copied():
    script = ["a", "b"]
    llm = FakeLLM(script)
    llm.complete("q")
    assert script == ["a", "b"]


def test_logprobs_when_asked():
    llm = FakeLLM(["Paris is big", "Lyon"])
    r = llm.complete("q", logprobs=0)
    assert r.logprobs == (TokenLogprob("Paris", -0.1), TokenLogprob("is", -0.1), TokenLogprob("big", -0.1))
    assert llm.complete("q").logprobs is None


def test_replies_are_consumed_once_each_across_threads():
    n = 200
    llm = FakeLLM([f"reply {i}" for i in range(n)])
    with ThreadPoolExecutor(8) as pool:
        texts = list(pool.map(lambda i: llm.complete(f"q{i}").text, range(n)))
    assert sorted(texts) == sorted(f"reply {i}" for i in range(n))
    assert len(llm.requests) == n and llm.usage.calls == n


def test_usage_scope_with_fake():
    llm = FakeLLM(lambda req: "two words")
    llm.complete("outside")
    with usage_scope() as scope:
        llm.complete("one")
        llm.complete("one two")
    assert (scope.usage.calls, scope.usage.prompt_tokens, scope.usage.completion_tokens) == (2, 3, 4)
    assert llm.usage.calls == 3


# -- label scores ---------------------------------------------------------------------------


def test_label_scores_list_in_order():
    llm = FakeLLM(label_scores=[{"yes": -0.1, "no": -2.0}, {"yes": -3.0, "no": -0.2, "extra": 0.0}])
    assert llm.supports_logprobs
    first = llm.score_labels("q1", ["yes", "no"])
    second = llm.score_labels("q2", ("yes", "no"))
    assert dict(first.logprobs) == {"yes": -0.1, "no": -2.0} and first.best == "yes"
    assert dict(second.logprobs) == {"yes": -3.0, "no": -0.2} and second.best == "no"  # extras dropped
    assert first.usage.calls == 1 and first.usage.prompt_tokens == 1 and first.usage.completion_tokens == 1
    assert [r.messages[0].content for r in llm.requests] == ["q1", "q2"]
    assert llm.requests[0].stop == ("yes", "no")
    assert llm.usage.calls == 2
    with pytest.raises(AssertionError, match="ran out of scripted label scores"):
        llm.score_labels("q3", ["yes", "no"])


def test_label_scores_callable_gets_messages_and_labels():
    seen = []

    def scorer(messages, labels):
        seen.append((messages, labels))
        return {label: -float(i) for i, label in enumerate(labels)}

    llm = FakeLLM(label_scores=scorer)
    s = llm.score_labels([Message("system", "judge"), Message("user", "claim")], ["a", "b", "c"])
    assert dict(s.logprobs) == {"a": 0.0, "b": -1.0, "c": -2.0}
    assert seen == [((Message("system", "judge"), Message("user", "claim")), ("a", "b", "c"))]


def test_label_scores_values_become_floats():
    s = FakeLLM(label_scores=[{"a": -1, "b": 0}]).score_labels("q", ["a", "b"])
    assert all(type(v) is float for v in s.logprobs.values())


def test_label_scores_missing_label_is_an_assertion():
    llm = FakeLLM(label_scores=[{"yes": -0.1}])
    with pytest.raises(AssertionError, match="no"):
        llm.score_labels("q", ["yes", "no"])


def test_label_scores_exception_is_raised():
    llm = FakeLLM(label_scores=[BackendError("scorer down"), {"a": 0.0}])
    with pytest.raises(BackendError, match="scorer down"):
        llm.score_labels("q", ["a"])
    assert dict(llm.score_labels("q", ["a"]).logprobs) == {"a": 0.0}
    assert llm.usage.calls == 1


def test_without_label_scores_behaves_like_a_backend_without_logprobs():
    llm = FakeLLM(["x"])
    assert not llm.supports_logprobs
    with pytest.raises(BackendError, match="label_scores"):
        llm.score_labels("q", ["yes", "no"])
    assert llm.usage.calls == 0


# -- LabelScores ----------------------------------------------------------------------------


def test_label_scores_probs_and_best():
    s = LabelScores({"supported": math.log(0.2), "contradicted": math.log(0.6), "unverifiable": math.log(0.2)})
    p = s.probs
    assert set(p) == {"supported", "contradicted", "unverifiable"}
    assert sum(p.values()) == pytest.approx(1.0)
    assert p["contradicted"] == pytest.approx(0.6) and p["supported"] == pytest.approx(0.2)
    assert s.best == "contradicted"


def test_label_scores_probs_renormalise_over_the_set():
    s = LabelScores({"yes": math.log(0.3), "no": math.log(0.1)})  # 0.6 of the mass on other tokens
    assert s.probs == pytest.approx({"yes": 0.75, "no": 0.25})


def test_label_scores_probs_are_stable_for_very_negative_logprobs():
    s = LabelScores({"a": -1000.0, "b": -1001.0, "c": -30.0 - 1000.0})
    p = s.probs
    assert sum(p.values()) == pytest.approx(1.0)
    assert p["a"] / p["b"] == pytest.approx(math.e)
    assert s.best == "a"


def test_label_scores_single_label():
    s = LabelScores({"only": -7.0})
    assert s.probs == {"only": 1.0} and s.best == "only"


# -- input validation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "labels",
    [
        [],
        (),
        ["yes", "yes"],
        ["yes", "no", "yes"],
        ["yes", ""],
        [""],
        ["yes", 1],
        ["yes", None],
        ["yes", ["no"]],
    ],
)
def test_score_labels_rejects_bad_labels(labels):
    llm = FakeLLM(label_scores=lambda m, labels: {})
    with pytest.raises(ConfigError, match="distinct, non-empty"):
        llm.score_labels("q", labels)
    assert llm.requests == []


def test_complete_with_unknown_parameter_lists_the_allowed_ones():
    llm = FakeLLM(["x"])
    with pytest.raises(ConfigError) as ei:
        llm.complete("q", max_new_tokens=10)
    msg = str(ei.value)
    assert "max_new_tokens" in msg
    for name in ("max_tokens", "temperature", "stop", "json_schema", "logprobs", "seed"):
        assert name in msg
    assert llm.requests == []


def test_message_with_bad_role_is_an_input_error():
    with pytest.raises(InputError) as ei:
        Message("tool", "x")
    assert ei.value.field == "role"
    assert "system" in str(ei.value) and "'tool'" in str(ei.value)
    with pytest.raises(InputError) as ei:
        Message("user", None)  # type: ignore[arg-type]
    assert ei.value.field == "content"


def test_complete_with_bad_role_or_no_messages():
    llm = FakeLLM(["x"])
    with pytest.raises(InputError):
        llm.complete([{"role": "bot", "content": "hi"}])
    with pytest.raises(InputError) as ei:
        llm.complete([])
    assert ei.value.field == "messages"
    assert llm.requests == []


def test_as_messages_forms():
    assert as_messages("hi") == (Message("user", "hi"),)
    assert as_messages([Message("system", "s"), {"role": "user", "content": "u"}]) == (
        Message("system", "s"),
        Message("user", "u"),
    )


def test_stop_is_normalised_to_a_tuple():
    llm = FakeLLM(lambda req: "x")
    llm.complete("q", stop=["\n", "END"])
    llm.complete("q", stop="END")
    llm.complete("q", stop=[])
    assert [r.stop for r in llm.requests] == [("\n", "END"), ("END",), ()]


# -- types ----------------------------------------------------------------------------------


def test_llm_response_json_round_trip():
    r = LLMResponse(
        text="Paris ✓",
        usage=Usage(calls=1, prompt_tokens=3, completion_tokens=1, seconds=0.5),
        model="m",
        finish_reason="length",
        logprobs=(TokenLogprob("Par", -0.1, (("Par", -0.1), ("Ly", -2.0))), TokenLogprob("is", -0.3)),
    )
    back = LLMResponse.from_json(r.to_json())
    assert back == r
    plain = LLMResponse(text="", usage=Usage(), model="m")
    assert LLMResponse.from_json(plain.to_json()) == plain


def test_request_params_cover_generation_settings():
    req = LLMRequest(
        messages=(Message("user", "q"),),
        max_tokens=9,
        temperature=0.2,
        stop=("x",),
        json_schema={"type": "object"},
        logprobs=3,
        seed=7,
    )
    assert req.params() == {
        "max_tokens": 9,
        "temperature": 0.2,
        "stop": ["x"],
        "json_schema": {"type": "object"},
        "logprobs": 3,
        "seed": 7,
    }


def test_token_list_replies_script_logprobs_and_entropies():
    from hallucheck.llm.base import TokenLogprob

    llm = FakeLLM([[("Paris", -0.05, 0.3), (" is", -0.01)], [TokenLogprob("Hi", -2.0, (("Hi", -2.0),), 4.0)]])
    r = llm.complete("q", logprobs=5)
    assert r.text == "Paris is"
    assert [(t.token, t.logprob, t.entropy) for t in r.logprobs] == [("Paris", -0.05, 0.3), (" is", -0.01, None)]
    r2 = llm.complete("q")
    assert r2.text == "Hi" and r2.logprobs is None


def test_bad_token_items_are_reported():
    llm = FakeLLM([[42]])
    with pytest.raises(AssertionError, match="TokenLogprob"):
        llm.complete("q", logprobs=0)
