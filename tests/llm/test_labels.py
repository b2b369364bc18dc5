import pytest

from hallucheck.errors import BackendError, ConfigError
from hallucheck.llm import FakeLLM
from hallucheck.llm.labels import judge, parse_label
from hallucheck.text.edits import apply_edits
from hallucheck.types import Edit

LABELS = ("Entailment", "Neutral", "Contradiction")


def test_scored_labels_give_probabilities():
    llm = FakeLLM(label_scores=[{"Entailment": -0.1, "Neutral": -3.0, "Contradiction": -2.5}])
    j = judge(llm, "premise/hypothesis", LABELS, prompt="nli.v1")
    assert j.label == "Entailment" and j.probs["Entailment"] > 0.8 and abs(sum(j.probs.values()) - 1) < 1e-9


def test_text_reply_parsed_on_word_boundaries():
    assert parse_label("The answer is: contradiction.", LABELS) == "Contradiction"
    assert parse_label("Neutral, not Entailment", LABELS) == "Neutral"
    assert parse_label("Entailments are hard", LABELS) is None


def test_unparseable_reply_is_retried_then_reported_with_raw():
    llm = FakeLLM(["I think so", "Contradiction"])
    j = judge(llm, "x", LABELS, prompt="nli.v1")
    assert j.label == "Contradiction" and len(llm.requests) == 2
    assert "exactly one of: Entailment, Neutral, Contradiction" in llm.requests[1].messages[-1].content
    llm = FakeLLM(["maybe", ""])
    j = judge(llm, "x", LABELS, prompt="nli.v1")
    assert j.label is None and "maybe" in j.raw and "named none of the labels" in j.error


def test_backend_failure_is_an_error_judgement():
    j = judge(FakeLLM([BackendError("refused", url="http://x")]), "x", LABELS, prompt="p")
    assert not j.ok and "refused" in j.error


def test_apply_edits():
    text = "The dose is 5 mg. Take it twice."
    assert apply_edits(text, [Edit(12, 16, "10 mg"), Edit(18, 32, "")]) == "The dose is 10 mg. "
    with pytest.raises(ConfigError, match="overlap"):
        apply_edits(text, [Edit(0, 5, "a"), Edit(3, 8, "b")])
    with pytest.raises(ConfigError, match="outside the text"):
        apply_edits(text, [Edit(0, 99, "a")])


# -- issue 11 item 1: an unreadable scored reply is an error, never a tie won by position --------
@pytest.mark.parametrize(
    "scores",
    [
        {"Entailment": float("nan"), "Neutral": float("nan"), "Contradiction": float("nan")},
        {"Entailment": float("nan"), "Neutral": -3.0, "Contradiction": -0.1},
        {"Entailment": -0.1, "Neutral": float("-inf"), "Contradiction": -2.0},
    ],
)
def test_non_finite_label_logprobs_are_an_error_with_raw(scores):
    j = judge(FakeLLM(label_scores=[scores]), "x", LABELS, prompt="p")
    assert not j.ok and j.probs is None and "not finite" in j.error and j.raw


def test_no_label_among_top_alternatives_is_an_error_not_entailment():
    from hallucheck.llm.base import LLMResponse, TokenLogprob
    from hallucheck.types import Usage

    class Junk(FakeLLM):
        supports_logprobs = True

        def _score_labels(self, messages, labels, prefix):  # the base-class matching of top alternatives
            return super(FakeLLM, self)._score_labels(messages, labels, prefix)

        def _complete(self, request):
            top = (("Sure", -0.2), ("I", -2.0), ("The", -3.0))
            return LLMResponse("Sure", Usage(), "junk", logprobs=(TokenLogprob("Sure", -0.2, top),))

    j = judge(Junk(), "x", LABELS, prompt="p", use_logprobs=True)
    assert not j.ok and j.label is None and "None of the labels" in j.error
    assert "Sure" in j.raw


def test_a_cached_non_finite_label_score_is_a_miss_not_a_verdict(tmp_path):
    # an entry written before NaN was refused must not come back as a verdict
    import json

    from hallucheck.llm.cache import ResponseCache

    cache = ResponseCache(tmp_path / "c.sqlite")
    llm = FakeLLM(label_scores=[{"Entailment": -0.1, "Neutral": -3.0, "Contradiction": -2.5}], cache=cache)
    from hallucheck.llm.base import LLMRequest, as_messages

    key = llm.cache_key(
        LLMRequest(messages=as_messages("x"), prompt="p", max_tokens=1, temperature=0.0), scoring=(LABELS, "")
    )
    cache.put(key, json.dumps({"logprobs": {x: float("nan") for x in LABELS}, "usage": {}}))
    j = judge(llm, "x", LABELS, prompt="p")
    assert j.label == "Entailment" and llm.usage.calls == 1  # asked again, not read from the bad entry
