"""Golden control-flow tests of the triplet methods (thesis 004) with a scripted FakeLLM. The
stages' own tests (parsing, extraction, locating, prompts) are in tests/stages/test_triplets.py."""

from __future__ import annotations

import json

import pytest

import hallucheck
from _scripted.triplets import ANS_TRIPLETS, ANSWER, REF, REF_TRIPLETS, final, requests_for, scripted
from hallucheck.errors import BackendError, ConfigError, ParseError
from hallucheck.llm import FakeLLM
from hallucheck.pipeline import Pipeline
from hallucheck.stages.triplets import (
    extract_triplets,
    verdict_prefixes,
)


def test_extraction_that_never_parses_raises_with_both_raw_replies():
    llm = FakeLLM(["", "still not json"])
    with pytest.raises(ParseError) as err:
        extract_triplets(llm, "text")
    assert "still not json" in err.value.raw and len(llm.requests) == 2
    # in a method: the answer is one error verdict with both replies, no verifier or reference request
    llm = FakeLLM(["", "nope"])
    det = hallucheck.load_method("triplet", llm=llm).run_batch([{"answer": "x", "reference": REF}])[0]
    (v,) = det.verdicts
    assert det.status == "ok" and det.hallucinated is None and len(llm.requests) == 2
    assert v.status == "error" and "could not be extracted" in v.reason and "nope" in v.raw


# -- batched check ---------------------------------------------------------------------------------


def test_batched_check_makes_one_request_for_all_triplets():
    llm = scripted([final("True", "False", "True", "False", cot=True)])
    det = hallucheck.detect(ANSWER, REF, method="triplet", llm=llm)
    verify = requests_for(llm, "triplet_verify")
    assert len(verify) == 1 and len(llm.requests) == 3  # answer triplets, reference triplets, ONE check
    assert det.usage.calls == 3
    user = verify[0].messages[-1].content
    # reference triplets first, answer triplets last (prefix caching); all four answer triplets in the one request
    assert user.index("Source Triplets:") < user.index("Input Triplets:")
    for i, t in enumerate(ANS_TRIPLETS, 1):
        assert f"{i}: {json.dumps(t)}" in user.split("Input Triplets:")[1]
    for i, t in enumerate(REF_TRIPLETS, 1):
        assert f"{i}: {json.dumps(t)}" in user.split("Input Triplets:")[0]
    assert verify[0].json_schema["properties"]["final_answer"]["required"] == ["1", "2", "3", "4"]
    assert "referred_triplets" in verify[0].json_schema["properties"]  # default variant detail+cot
    assert [v.hallucinated for v in det.verdicts] == [False, True, False, True]
    assert [v.score for v in det.verdicts] == [0.0, 1.0, 0.0, 1.0]
    assert [v.label for v in det.verdicts] == ["supported", "unverifiable", "supported", "unverifiable"]
    assert det.hallucinated is True and det.score == 1.0
    v = det.verdicts[1]
    assert v.reason.startswith("reason 2") and "#2" in v.reason
    assert v.evidence[0].meta["triplet"] == REF_TRIPLETS[1]  # cited source triplet 2, with reference offsets
    assert v.meta["variant"] == "detail+cot" and v.meta["batch_size"] == 4 and v.meta["requests"] == 1


def test_reference_triplets_are_extracted_once_per_reference():
    llm = scripted(lambda req: final("True", "True", "True", "True"))
    method = hallucheck.load_method("triplet", llm=llm, variant="detail")
    method.run(ANSWER, REF)
    method.run("The Oberoi Group is a hotel company in Delhi.", REF)
    extracts = requests_for(llm, "triplet_extract")
    assert len(extracts) == 3  # two answers, one reference
    assert sum("Indian family that is famous" in r.messages[-1].content for r in extracts) == 1


def test_no_answer_triplets_means_no_reference_extraction_and_no_check():
    llm = scripted([], answer=[])
    det = hallucheck.detect("Hmm.", REF, method="triplet", llm=llm)
    assert det.verdicts == () and det.hallucinated is None and len(llm.requests) == 1  # nothing verified (issue 11)
    assert "no checkable claims" in det.meta["note"]


def test_empty_reference_triplets_flag_every_claim_without_a_check():
    llm = scripted([], reference=[])
    det = hallucheck.detect(ANSWER, REF, method="triplet", llm=llm)
    assert not requests_for(llm, "triplet_verify")
    assert all(v.hallucinated and v.score == 1.0 and "no triplets" in v.reason for v in det.verdicts)


def test_plain_variant_verdicts_have_a_generic_reason():
    llm = scripted([final("True", "False", "True", "True")])
    det = hallucheck.detect(ANSWER, REF, method="triplet", llm=llm, variant="detail")
    req = requests_for(llm, "triplet_verify")[0]
    assert req.prompt == "triplet_verify_detail.v1" and "referred_triplets" not in req.json_schema["properties"]
    assert "gives no explanation" in det.verdicts[1].reason and det.verdicts[1].evidence == ()


def test_malformed_json_is_retried_once_then_parsed():
    llm = scripted(['{"final_answer": {"1": "True", "2": ', final("True", "False", "True", "True")])
    det = hallucheck.detect(ANSWER, REF, method="triplet", llm=llm, variant="detail")
    verify = requests_for(llm, "triplet_verify")
    assert len(verify) == 2 and verify[1].prompt == "triplet_verify_detail.v1+retry"
    assert "True or False for each of the 4 input triplets" in verify[1].messages[-1].content
    assert [v.status for v in det.verdicts] == ["ok"] * 4 and det.verdicts[1].hallucinated is True


def test_wrong_label_for_one_triplet_is_asked_again_then_an_error_for_that_triplet_only():
    bad = json.dumps({"final_answer": {"1": "True", "2": "Maybe", "3": "False", "4": "True"}})
    llm = scripted([bad, bad])
    det = hallucheck.detect(ANSWER, REF, method="triplet", llm=llm, variant="detail")
    assert len(requests_for(llm, "triplet_verify")) == 2
    assert "'Maybe' instead of True or False" in requests_for(llm, "triplet_verify")[1].messages[-1].content
    v1, v2, v3, v4 = det.verdicts
    assert v1.status == v3.status == v4.status == "ok" and v3.hallucinated is True
    assert v2.status == "error" and v2.hallucinated is None and v2.score is None and "Maybe" in v2.raw
    assert det.hallucinated is True  # triplet 3 is flagged whatever triplet 2 is


def test_empty_replies_give_error_verdicts_and_an_unverified_answer():
    llm = scripted(["", ""])
    det = hallucheck.detect(ANSWER, REF, method="triplet", llm=llm, variant="detail")
    assert all(v.status == "error" for v in det.verdicts)
    assert det.hallucinated is None and det.score is None


def test_missing_verdicts_are_filled_by_the_retry():
    llm = scripted(
        [
            json.dumps({"final_answer": {"1": "True", "2": "False"}}),
            json.dumps({"final_answer": {"1": "False", "2": "True", "3": "True", "4": "True"}}),
        ]
    )
    det = hallucheck.detect(ANSWER, REF, method="triplet", llm=llm, variant="detail")
    # the first reply's verdicts are kept; the retry only fills in triplets 3 and 4
    assert [v.hallucinated for v in det.verdicts] == [False, True, False, False]


def test_backend_failure_gives_error_verdicts():
    llm = scripted([BackendError("server down")])
    det = hallucheck.detect(ANSWER, REF, method="triplet", llm=llm)
    assert all(v.status == "error" and "server down" in v.reason for v in det.verdicts)


def test_max_triplets_per_request_caps_the_batch():
    llm = scripted(lambda req: final(*["False"] * len(req.json_schema["properties"]["final_answer"]["required"])))
    det = hallucheck.detect(ANSWER, REF, method="triplet", llm=llm, variant="baseline", max_triplets_per_request=3)
    assert [
        len(r.json_schema["properties"]["final_answer"]["required"]) for r in requests_for(llm, "triplet_verify")
    ] == [3, 1]
    assert all(v.hallucinated for v in det.verdicts)


def test_long_reference_is_split_and_any_part_can_support():
    refs = [["The Oberoi Group", f"owns hotel {i} in", f"town number {i} of India"] for i in range(40)]
    refs[35] = ["The Oberoi Group", "has its head office in", "Delhi"]

    def verify(req):
        user = req.messages[-1].content
        n = len(req.json_schema["properties"]["final_answer"]["required"])
        return final(*(["True"] if "head office in" in user.split("Input Triplets:")[0] else ["False"]) * n)

    llm = scripted(verify, answer=[["The Oberoi Group's head office", "is in", "Delhi"]], reference=refs)
    det = hallucheck.detect(
        "Its head office is in Delhi.", REF, method="triplet", llm=llm, variant="baseline", context_tokens=900
    )
    checks = requests_for(llm, "triplet_verify")
    assert len(checks) >= 2  # the reference triplets did not fit one request
    (v,) = det.verdicts
    assert v.status == "ok" and v.hallucinated is False and "parts" in v.reason


def test_label_scores_give_continuous_scores_by_teacher_forcing():
    reply = final("True", "False", "True", "False", cot=True)
    scores = iter(
        [
            {"True": -0.1, "False": -2.4},
            {"True": -1.6, "False": -0.3},
            {"True": -0.2, "False": -1.8},
            {"True": -2.0, "False": -0.2},
        ]
    )
    llm = scripted([reply])
    llm._label_scores = lambda messages, labels: next(scores)
    llm.supports_logprobs = True
    det = hallucheck.detect(ANSWER, REF, method="triplet", llm=llm, label_scores=True)
    scored = [v.score for v in det.verdicts]
    assert all(0.0 < s < 1.0 for s in scored) and scored[1] > 0.5 > scored[0]
    assert [v.hallucinated for v in det.verdicts] == [False, True, False, True]
    prefixes = verdict_prefixes(reply, 4)
    assert prefixes[1].endswith('"final_answer": {"1": "') and prefixes[4].endswith('"4": "')


def test_without_logprobs_label_scores_fall_back_to_parsed_verdicts():
    llm = scripted([final("True", "False", "True", "False", cot=True)])
    det = hallucheck.detect(ANSWER, REF, method="triplet", llm=llm, label_scores=True)
    assert [v.score for v in det.verdicts] == [0.0, 1.0, 0.0, 1.0]


def test_config_round_trips_with_normalised_variant():
    llm = FakeLLM()
    method = hallucheck.load_method("triplet", llm=llm, variant="CoT+detail", max_triplets_per_request=5)
    config = method.to_dict()
    assert config["params"]["verifier"] == {
        "type": "triplet_set.v1",
        "params": {
            "variant": "detail+cot",
            "label_scores": False,
            "context_tokens": None,
            "max_triplets_per_request": 5,
            "tokens_per_verdict": None,
        },
    }
    assert Pipeline.from_dict(config, llm=llm).to_dict() == config
    assert llm.requests == []  # nothing runs at construction


@pytest.mark.parametrize("bad", [{"variant": ""}, {"max_triplets_per_request": 0}, {"context_tokens": -5}])
def test_bad_parameters_are_reported(bad):
    with pytest.raises(ConfigError):
        hallucheck.load_method("triplet", llm=FakeLLM(), **bad)


# -- per-triplet baseline ------------------------------------------------------------------------------


def test_per_triplet_baseline_makes_one_request_per_triplet_with_the_reference_text():
    answers = iter(["True", "False", "True", "False"])
    llm = scripted([], single=lambda req: next(answers))
    det = hallucheck.detect(ANSWER, REF, method="triplet_single", llm=llm, question="Where is the head office?")
    singles = requests_for(llm, "triplet_refchecker")
    assert len(singles) == 4 and len(llm.requests) == 5  # answer triplets + one request per triplet
    assert not requests_for(llm, "triplet_verify")
    assert not any(
        "Indian family that is famous" in r.messages[-1].content for r in requests_for(llm, "triplet_extract")
    )
    for r, t in zip(singles, ANS_TRIPLETS):
        user = r.messages[-1].content
        assert REF in user and "(" + ", ".join(json.dumps(x) for x in t) + ")" in user
        assert user.index("### Question:") < user.index("### Reference:") < user.index("### Claim:")
    assert [v.hallucinated for v in det.verdicts] == [False, True, False, True]
    assert [v.score for v in det.verdicts] == [0.0, 1.0, 0.0, 1.0]
    assert det.usage.calls == 5


def test_per_triplet_baseline_scores_labels_with_logprobs():
    llm = scripted([])
    llm._label_scores = [
        {"True": -0.2, "False": -1.7},
        {"True": -2.3, "False": -0.1},
        {"True": -0.1, "False": -3.0},
        {"True": -0.9, "False": -0.5},
    ]
    llm.supports_logprobs = True
    det = hallucheck.detect(ANSWER, REF, method="triplet_single", llm=llm)
    assert [v.hallucinated for v in det.verdicts] == [False, True, False, True]
    assert 0.0 < det.verdicts[0].score < 0.5 < det.verdicts[1].score < 1.0
    assert det.verdicts[1].meta["probs"]["False"] == pytest.approx(det.verdicts[1].score)


def test_per_triplet_baseline_unparseable_reply_is_an_error_for_that_triplet():
    answers = iter(["True", "perhaps", "no idea", "False", "True"])
    llm = scripted([], single=lambda req: next(answers))
    det = hallucheck.detect(ANSWER, REF, method="triplet_single", llm=llm)
    assert [v.status for v in det.verdicts] == ["ok", "error", "ok", "ok"]
    assert det.verdicts[1].raw and "perhaps" in det.verdicts[1].raw
