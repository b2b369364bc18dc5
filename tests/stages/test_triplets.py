"""Triplet stages (thesis 004) with a scripted FakeLLM: extraction and its parsing, locating,
verification reply parsing, prompt variants."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from _scripted.triplets import ANSWER, REF, REF_TRIPLETS, final, requests_for, scripted
from hallucheck.errors import ConfigError, ParseError
from hallucheck.llm import FakeLLM
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
    verification_schema,
)
from hallucheck.types import Claim

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


def test_verifier_accepts_non_triplet_claims():
    llm = FakeLLM([final("False")])
    claim = Claim("Mumbai is the head office.", 0, 26, kind="sentence")
    ev = TripletRetriever(llm=FakeLLM([json.dumps({"triplets": REF_TRIPLETS})])).retrieve([claim], REF)
    (v,) = BatchedTripletVerifier(llm=llm, variant="baseline").verify([claim], ev, reference=REF)
    assert v.hallucinated is True and '1: ["Mumbai is the head office."]' in llm.requests[0].messages[-1].content
