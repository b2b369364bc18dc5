import pytest

import hallucheck
from hallucheck.errors import ConfigError, InputError
from hallucheck.llm import FakeLLM

REF = "The Oberoi Group is a hotel company with its head office in Delhi."


@pytest.mark.parametrize(
    "answer, reference, field, text",
    [
        ("", REF, "answer", "The answer is empty"),
        ("   \n\t", REF, "answer", "The answer is empty"),
        ("Delhi", "", "reference", "The reference is empty"),
        ("Delhi", " \n ", "reference", "The reference is empty"),
        (None, REF, "answer", "The answer must be a string; got NoneType"),
        (42, REF, "answer", "The answer must be a string; got int"),
        ("Delhi", b"bytes ref", "reference", "must be text (str), not bytes"),
    ],
)
def test_bad_inputs_raise_input_error_naming_the_field(answer, reference, field, text):
    with pytest.raises(InputError) as err:
        hallucheck.detect(answer, reference, method="sim_overlap")
    assert err.value.field == field and text in str(err.value)


def test_huge_text_is_refused_with_advice(monkeypatch):
    from hallucheck import base

    monkeypatch.setattr(base, "MAX_TEXT_CHARS", 100)
    with pytest.raises(InputError, match="more than the limit of 100.*Split it"):
        hallucheck.detect("Delhi", "x" * 101, method="sim_overlap")


def test_run_batch_records_bad_items_and_completes_the_rest():
    method = hallucheck.load_method("sim_overlap")
    items = [
        {"id": "a", "answer": "Delhi", "reference": REF},
        {"id": "b", "answer": "", "reference": REF},
        {"id": "c", "answer": "It was founded on the moon in 1820.", "reference": REF},
    ]
    seen = []
    results = method.run_batch(items, progress=seen.append)
    assert [r.id for r in results] == ["a", "b", "c"] and len(seen) == 3
    assert results[0].hallucinated is False and results[2].hallucinated is True
    assert results[1].status == "error" and "answer is empty" in results[1].error and results[1].hallucinated is None
    with pytest.raises(InputError):
        method.run_batch(items, on_error="raise")
    with pytest.raises(ConfigError, match="on_error must be one of raise, record"):
        method.run_batch(items, on_error="ignore")


def test_run_batch_in_threads_keeps_order_and_per_item_usage():
    llm = FakeLLM(lambda req: "hotel company, Delhi")
    method = hallucheck.load_method("keyword_match", llm=llm)
    items = [{"id": str(i), "answer": "The hotel company is in Delhi.", "reference": REF} for i in range(8)]
    results = method.run_batch(items, workers=4)
    assert [r.id for r in results] == [str(i) for i in range(8)]
    assert all(r.usage.calls == 1 for r in results)
    assert llm.usage.calls == 8


def test_llm_failure_in_batch_is_recorded():
    from hallucheck.errors import BackendError

    llm = FakeLLM([BackendError("down", url="http://127.0.0.1:9/v1"), "hotel company"])
    method = hallucheck.load_method("keyword_match", llm=llm)
    results = method.run_batch([{"answer": "A hotel company.", "reference": REF}] * 2)
    assert results[0].verdicts[0].status == "error" and "down" in results[0].verdicts[0].reason
    assert results[1].hallucinated is False


def test_mitigate_without_mitigator_says_what_to_do():
    with pytest.raises(ConfigError, match="has no mitigator"):
        hallucheck.load_method("sim_overlap").mitigate("Delhi", REF)


@pytest.mark.parametrize("answer", ["...", "!!! ??", "🙂🙂", "\x00\x00\x00", "— … —"])
def test_answer_without_words_is_an_input_error_not_grounded(answer):
    # issue 11 item 3: only punctuation, emoji or NUL bytes was reported GROUNDED "0 of 0 claims"
    with pytest.raises(InputError, match="no letters or digits"):
        hallucheck.detect(answer, REF, method="sim_overlap")


def test_answer_without_claims_could_not_be_verified():
    # issue 11 item 3: an extractor that finds no claim verifies nothing: never "grounded"
    from hallucheck.base import ClaimExtractor

    class NoClaims(ClaimExtractor):
        def extract(self, answer, *, question=None):
            return []

    method = hallucheck.load_method("sim_overlap")
    method.extractor = NoClaims()
    det = method.run("Delhi is the capital.", REF)
    assert det.hallucinated is None and det.score is None and det.verdicts == ()
    assert "no checkable claims" in det.meta["note"] and det.meta["no_claims"]
