"""Golden control-flow tests of the triplet methods (thesis 004) with a scripted FakeLLM."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

import hallucheck
from hallucheck.errors import BackendError, ConfigError, ParseError
from hallucheck.llm import FakeLLM
from hallucheck.pipeline import Pipeline
from hallucheck.prompts import load_prompt
from hallucheck.stages.triplets import (
    VARIANTS,
    BatchedTripletVerifier,
    TripletExtractor,
    TripletRetriever,
    extract_triplets,
    locate_triplet,
    normalise_variant,
    parse_triplets,
    parse_verification,
    variant_prompt,
    verdict_prefixes,
    verification_schema,
)
from hallucheck.types import Claim

REF = (
    "The Oberoi family is an Indian family that is famous for its involvement in hotels, namely through The Oberoi "
    "Group.The Oberoi Group is a hotel company with its head office in Delhi."
)
REF_TRIPLETS = [
    ["The Oberoi family", "is", "an Indian family"],
    ["The Oberoi family", "is famous for its involvement in", "hotels through The Oberoi Group"],
    ["The Oberoi Group", "is", "a hotel company"],
    ["The Oberoi Group", "has its head office in", "Delhi"],
]
ANSWER = (
    "The Oberoi Group is a hotel company. Its head office is in Mumbai. "
    "The Oberoi family is Indian. It was founded in 1934."
)
ANS_TRIPLETS = [
    ["The Oberoi Group", "is", "a hotel company"],
    ["The Oberoi Group's head office", "is in", "Mumbai"],
    ["The Oberoi family", "is", "Indian"],
    ["The Oberoi Group", "was founded in", "1934"],
]


def final(*labels: str, cot: bool = False) -> str:
    fa = {str(i): v for i, v in enumerate(labels, 1)}
    if not cot:
        return json.dumps({"final_answer": fa})
    ref = {str(i): {"source_triplets": [i], "reasoning": f"reason {i}"} for i in range(1, len(labels) + 1)}
    return json.dumps({"referred_triplets": ref, "final_answer": fa})


def scripted(verify, *, answer=ANS_TRIPLETS, reference=REF_TRIPLETS, single="True"):
    """A FakeLLM answering by prompt: extraction (answer or reference), batched check, single check."""
    verify_replies = list(verify) if isinstance(verify, (list, tuple)) else None

    def reply(req):
        if req.prompt.startswith("triplet_extract"):
            text = req.messages[-1].content
            return json.dumps({"triplets": reference if "Indian family that is famous" in text else answer})
        if req.prompt.startswith("triplet_verify"):
            if verify_replies is not None:
                item = verify_replies.pop(0)
                if isinstance(item, Exception):
                    raise item
                return item
            return verify(req)
        if req.prompt.startswith("triplet_refchecker"):
            return single(req) if callable(single) else single
        raise AssertionError(f"unexpected prompt {req.prompt}")

    return FakeLLM(reply)


def requests_for(llm, prefix):
    return [r for r in llm.requests if r.prompt.startswith(prefix)]


# -- extraction ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply, expected",
    [
        ('{"triplets": [["a", "b", "c"], ["d", "e", "f"]]}', [("a", "b", "c"), ("d", "e", "f")]),
        ('```json\n{"triplets": [["a", "b", "c"]]}\n```', [("a", "b", "c")]),
        ('Here they are: [["a", "b", "c"]]', [("a", "b", "c")]),
        ('{"triplets": [{"subject": "a", "predicate": "b", "object": "c"}]}', [("a", "b", "c")]),
        (
            '{"triplets": [["a", "b", "c"], ["a", "b"], ["", "x", "y"], ["a", " b ", "c"], [1, 2, 3]]}',
            [("a", "b", "c")],
        ),
        ('{"triplets": []}', []),
    ],
)
def test_parse_triplets_formats(reply, expected):
    assert parse_triplets(reply) == expected


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "   ",
        "no json here",
        '{"triplets": [["a", "b", "c"], ["d", "e"',
        '{"items": 3}',
        '{"triplets": [["a", "b"]]}',
    ],
)
def test_parse_triplets_rejects_bad_replies_keeping_raw(reply):
    with pytest.raises(ParseError) as err:
        parse_triplets(reply)
    assert err.value.raw == reply


def test_extraction_uses_schema_and_question_and_retries_truncated_json_once():
    llm = FakeLLM(
        [
            '{"triplets": [["Delhi", "is", "the ci',
            '{"triplets": [["The Oberoi Group", "has its head office in", "Delhi"]]}',
        ]
    )
    out = extract_triplets(llm, "Delhi", question="The Oberoi Group has a head office in what city?")
    assert out.triplets == (("The Oberoi Group", "has its head office in", "Delhi"),)
    first, second = llm.requests
    assert first.json_schema["properties"]["triplets"]["items"]["minItems"] == 3
    assert "The Oberoi Group has a head office in what city?" in first.messages[-1].content
    assert first.messages[-1].content.rstrip().endswith("Output only the JSON object.")
    assert second.prompt == "triplet_extract.v1+retry" and second.messages[-1].role == "user"
    assert "could not be used" in second.messages[-1].content


class CutOffLLM(FakeLLM):
    """Reports the first reply as cut off at max_tokens."""

    def _complete(self, request):
        response = super()._complete(request)
        return replace(response, finish_reason="length") if len(self.requests) == 1 else response


def test_extraction_cut_off_is_retried_with_a_larger_budget():
    llm = CutOffLLM(['{"triplets": [["a", "b", "c"]]}', '{"triplets": [["a", "b", "c"], ["d", "e", "f"]]}'])
    out = extract_triplets(llm, "text", max_tokens=100)
    assert len(out.triplets) == 2  # the cut-off reply was not salvaged
    assert [r.max_tokens for r in llm.requests] == [100, 200]


def test_extraction_that_never_parses_raises_with_both_raw_replies():
    llm = FakeLLM(["", "still not json"])
    with pytest.raises(ParseError) as err:
        extract_triplets(llm, "text")
    assert "still not json" in err.value.raw and len(llm.requests) == 2
    det = hallucheck.load_method("triplet", llm=FakeLLM(["", "nope"])).run_batch([{"answer": "x", "reference": REF}])[0]
    assert det.status == "error" and "could not be parsed" in det.error


# -- offsets ---------------------------------------------------------------------------------------


def test_triplet_claims_map_to_their_answer_sentence():
    llm = scripted([final("True", "False", "True", "False")])
    claims = TripletExtractor(llm=llm).extract(ANSWER)
    assert [c.kind for c in claims] == ["triplet"] * 4
    spans = [ANSWER[c.start : c.end] for c in claims]
    assert spans == [
        "The Oberoi Group is a hotel company.",
        "Its head office is in Mumbai.",
        "The Oberoi family is Indian.",
        "It was founded in 1934.",
    ]
    c = claims[1]
    assert c.text == "The Oberoi Group's head office | is in | Mumbai"
    assert (c.meta["arg1"], c.meta["relation"], c.meta["arg2"]) == ("The Oberoi Group's head office", "is in", "Mumbai")
    assert c.meta["sentence"] == 1 and c.meta["aligned"] is True
    assert "mumbai" in c.meta["found_words"] and "oberoi" in c.meta["missing_words"]
    assert c.meta["found_parts"]["arg2"]["method"] == "exact"
    assert ANSWER[c.meta["found_parts"]["arg2"]["start"] : c.meta["found_parts"]["arg2"]["end"]] == "Mumbai"


def test_unlocatable_triplet_spans_the_whole_answer_and_says_so():
    start, end, meta = locate_triplet(("Paris", "hosts", "Louvre"), "One sentence here. Another one.")
    assert (start, end) == (0, len("One sentence here. Another one."))
    assert meta["aligned"] is False and meta["sentence"] is None


def test_reference_evidence_has_reference_sentence_offsets():
    llm = scripted([])
    ev = TripletRetriever(llm=llm).reference_triplets(REF)
    assert [e.meta["triplet"] for e in ev] == REF_TRIPLETS
    assert REF[ev[3].start : ev[3].end] == "The Oberoi Group is a hotel company with its head office in Delhi."
    assert REF[ev[0].start : ev[0].end].startswith("The Oberoi family is an Indian family")


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


def test_thesis_line_format_is_parsed():
    reply = (
        "[REFERRED TRIPLETS]\ntriplet_idx_1: (source triplets #1, #3) -> same\ntriplet_idx_2: None\n"
        "[FINAL ANSWER]\n1:True\n2:False\n"
    )
    parsed, problems = parse_verification(reply, 2)
    assert {i: p.supported for i, p in parsed.items()} == {1: True, 2: False} and not problems


@pytest.mark.parametrize(
    "reply, n, expected, problem",
    [
        ('{"final_answer": ["True", "False"]}', 2, {1: True, 2: False}, None),
        (
            '{"final_answer": [{"idx": 2, "verdict": "False"}, {"idx": 1, "verdict": "True"}]}',
            2,
            {1: True, 2: False},
            None,
        ),
        ('{"final_answer": {"triplet_idx_1": true, "2": "false"}}', 2, {1: True, 2: False}, None),
        ('{"final_answer": {"1": "True", "7": "False"}}', 2, {1: True}, "unknown triplet index"),
        (
            '{"referred_triplets": {"1": {"source_triplets": [2], "reasoning": "x"}}, "final_answer": {"1": "Tr',
            1,
            {},
            "no True/False verdict for triplet 1",
        ),
        ('{"other": 1}', 1, {}, 'no "final_answer"'),
    ],
)
def test_parse_verification_variants(reply, n, expected, problem):
    parsed, problems = parse_verification(reply, n)
    assert {i: p.supported for i, p in parsed.items()} == expected
    assert (problem is None and not problems) or any(problem in p for p in problems)


def test_cut_off_reply_keeps_its_complete_verdicts():
    parsed, _ = parse_verification('{"final_answer": {"1": "True", "2": "False", "3": "Tr', 3)
    assert {i: p.supported for i, p in parsed.items()} == {1: True, 2: False}


def test_context_window_splits_answer_triplets_but_keeps_the_reference_whole():
    many = [["The Oberoi Group", f"has hotel number {i} in", f"city {i}"] for i in range(12)]
    llm = scripted(
        lambda req: final(*["True"] * req.messages[-1].content.split("Input Triplets:")[1].count('["'), cot=False),
        answer=many,
    )
    verifier = BatchedTripletVerifier(llm=llm, variant="baseline", context_tokens=520)
    claims = TripletExtractor(llm=llm).extract(ANSWER)
    evidence = TripletRetriever(llm=llm).retrieve(claims, REF)
    verdicts = verifier.verify(claims, evidence, reference=REF)
    checks = requests_for(llm, "triplet_verify")
    assert 1 < len(checks) < len(many)
    sizes = [len(r.json_schema["properties"]["final_answer"]["required"]) for r in checks]
    assert sum(sizes) == len(many)
    for r in checks:  # every request holds the whole reference
        assert all(json.dumps(t) in r.messages[-1].content for t in REF_TRIPLETS)
    assert len(verdicts) == len(many) and all(v.status == "ok" and v.hallucinated is False for v in verdicts)
    assert verdicts[-1].meta["requests"] == len(checks)


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


# -- variants and prompts ----------------------------------------------------------------------------


def test_every_variant_has_its_prompt_and_names_normalise():
    assert len(VARIANTS) == 8
    for v in VARIANTS:
        p = load_prompt(variant_prompt(v))
        assert p.variables == {"reference_triplets", "answer_triplets"}
    assert normalise_variant("CoT + Detail") == "detail+cot"
    assert normalise_variant("few-shot+detail+cot") == "detail+cot+fewshot"
    assert normalise_variant("baseline") == "baseline"
    with pytest.raises(ConfigError, match="Unknown prompt feature 'persona'"):
        normalise_variant("detail+persona")


def test_prompts_quote_the_thesis_appendix():
    base = load_prompt("triplet_verify_baseline.v1").render(reference_triplets="R", answer_triplets="A")
    assert "Consider paraphrased information, contextual clues (e.g., pronouns or synonyms)" in base[0].content
    detail = load_prompt("triplet_verify_detail.v1").render(reference_triplets="R", answer_triplets="A")
    assert "Even a slight difference in numeric value or specific wording means False" in detail[0].content
    assert (
        "[BEGIN FEW-SHOT-EXAMPLES]"
        in load_prompt("triplet_verify_fewshot.v1").render(reference_triplets="R", answer_triplets="A")[1].content
    )
    single = load_prompt("triplet_refchecker.v1").render(question_block="", reference="R", claim="C")
    assert "Please DO NOT use your own knowledge for the judgment" in single[0].content
    assert single[1].content.index("R") < single[1].content.index("C")


def test_verification_schema_requires_every_index():
    s = verification_schema(3, cot=True)
    assert s["required"] == ["referred_triplets", "final_answer"]
    assert s["properties"]["referred_triplets"]["required"] == ["1", "2", "3"]
    assert s["properties"]["final_answer"]["properties"]["2"]["enum"] == ["True", "False"]


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


def test_verifier_accepts_non_triplet_claims():
    llm = FakeLLM([final("False")])
    claim = Claim("Mumbai is the head office.", 0, 26, kind="sentence")
    ev = TripletRetriever(llm=FakeLLM([json.dumps({"triplets": REF_TRIPLETS})])).retrieve([claim], REF)
    (v,) = BatchedTripletVerifier(llm=llm, variant="baseline").verify([claim], ev, reference=REF)
    assert v.hallucinated is True and '1: ["Mumbai is the head office."]' in llm.requests[0].messages[-1].content
