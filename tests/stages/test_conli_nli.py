"""CoNLI (paper 001) detection stages with FakeLLM: selection, batching, parsing of [C]/[I] replies
(well-formed and not), log-probability scores, entity tagging."""

from __future__ import annotations

import pytest

from _scripted.conli import REF, hypotheses_of, nli_reply
from hallucheck.errors import BackendError, ConfigError
from hallucheck.llm import FakeLLM
from hallucheck.pipeline import Pipeline
from hallucheck.prompts import load_prompt
from hallucheck.stages.conli_nli import (
    CONLI_CATEGORIES,
    ConliNLIVerifier,
    HypothesisSelector,
    WholeReferenceRetriever,
    conli_category,
    date_category,
    match_items,
    parse_items,
    tag_entity,
)
from hallucheck.types import Claim

# -- prompt ------------------------------------------------------------------------------------


def test_detection_prompt_has_system_both_shots_and_request():
    v = ConliNLIVerifier(llm=FakeLLM())
    msgs = v.messages("PREMISE TEXT", ["First hyp.", "Second  hyp."])
    assert [m.role for m in msgs] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert msgs[0].content.startswith("You are a helpful assistant. You will be presented with a premise")
    assert "Make conservative judgement. Only mark [I] when you are very confident." in msgs[0].content
    assert "Will Smith won the 2022 Oscar." in msgs[1].content and "It's neutral. </reason> [I]" in msgs[2].content
    assert "tagged [ words ]" in msgs[3].content and "[ foreigner ]" in msgs[4].content
    assert "Premise:\nPREMISE TEXT\n\nHypothesis:\n(0). First hyp.\n(1). Second hyp." in msgs[5].content
    assert msgs[5].content.endswith('Begin your answer with "Answer:\\n"')


# -- parsing -----------------------------------------------------------------------------------


def test_parse_labels_and_reasons_from_the_papers_own_example_answer():
    shot = load_prompt("conli_detect.v1").parts[2][1]
    items = parse_items(shot)
    assert [(it.number, it.label) for it in items] == [(0, "I"), (1, "C"), (2, "I")]
    assert items[0].reason.startswith('premise reference: "They are presented annually')
    assert items[0].reason.endswith("It's contradiction.") and "</reason>" not in items[0].reason
    assert shot[items[2].label_pos] == "I" and shot[items[2].label_pos - 1] == "["


@pytest.mark.parametrize(
    "reply",
    [
        "Answer:\n1. A is x. <reason> ok </reason> [C]\n2. B is y. <reason> no </reason> [I]",  # 1-based
        "Answer:\n0) A is x. <reason> ok </reason> [C]\n1) B is y. <reason> no </reason> [I]",  # k)
        "Answer:\n- **(0).** A is x. <reason> ok </reason> [ C ]\n- **(1).** B is y. <reason> no </reason> [i]",
        "Answer:\nA is x. <reason> ok </reason> [C]\nB is y. <reason> no </reason> [I]",  # no numbers
        "Answer:\n(1). B is y. <reason> no </reason> [I]\n(0). A is x. <reason> ok </reason> [C]",  # reordered
    ],
)
def test_numbering_variants_map_to_the_right_hypothesis(reply):
    found = match_items(parse_items(reply), ["A is x.", "B is y."])
    assert found[0].label == "C" and found[1].label == "I"
    assert found[0].reason == "ok" and found[1].reason == "no"


def test_label_inside_an_unfinished_reason_is_not_a_judgement():
    cut = "Answer:\n(0). A is x. <reason> if not aligned we mark [I] and if"
    assert parse_items(cut) == []
    # a reason that quotes [C] before its closing tag: the label after </reason> counts
    items = parse_items("(0). A. <reason> one could say [C] but no. </reason> [I]")
    assert [it.label for it in items] == ["I"]


def test_batching_puts_n_hypotheses_in_one_call():
    llm = FakeLLM(nli_reply(lambda h: "C"))
    v = ConliNLIVerifier(llm=llm, batch_size=3, entity_level=False)
    claims = [Claim(f"Sentence number {i}.", 0, 1) for i in range(5)]
    verdicts = v.verify(claims, [[]] * 5, reference=REF)
    assert len(llm.requests) == 2  # 3 + 2
    assert hypotheses_of(llm.requests[0]) == [f"Sentence number {i}." for i in range(3)]
    assert hypotheses_of(llm.requests[1]) == ["Sentence number 3.", "Sentence number 4."]
    assert "(2). Sentence number 2." in llm.requests[0].messages[-1].content
    assert all(v.status == "ok" and v.hallucinated is False and v.score == 0.0 for v in verdicts)


def test_batch_size_one_is_one_call_per_hypothesis():
    llm = FakeLLM(nli_reply(lambda h: "C"))
    ConliNLIVerifier(llm=llm, entity_level=False).verify(
        [Claim("A.", 0, 2), Claim("B.", 3, 5)], [[], []], reference=REF
    )
    assert [hypotheses_of(r) for r in llm.requests] == [["A."], ["B."]]


def test_missing_hypothesis_is_asked_again_alone_then_answered():
    first = "Answer:\n(0). A is x. <reason> ok </reason> [C]\n(1). B is y. <reason> premise ref"  # truncated
    second = "Answer:\n(0). B is y. <reason> premise reference: None. It's neutral. </reason> [I]"
    llm = FakeLLM([first, second])
    v = ConliNLIVerifier(llm=llm, batch_size=3, entity_level=False)
    out = v.verify([Claim("A is x.", 0, 7), Claim("B is y.", 8, 15)], [[], []], reference=REF)
    assert len(llm.requests) == 2 and hypotheses_of(llm.requests[1]) == ["B is y."]
    assert out[0].hallucinated is False and out[1].hallucinated is True
    assert out[1].label == "unverifiable" and out[1].meta["sentence"]["attempt"] == 2


def test_still_missing_after_retry_is_a_failed_verdict_with_the_raw_replies():
    llm = FakeLLM(["I cannot judge this.", "Still no idea."])
    out = ConliNLIVerifier(llm=llm, entity_level=False).verify([Claim("A is x.", 0, 7)], [[]], reference=REF)
    v = out[0]
    assert v.status == "error" and v.hallucinated is None and v.score is None and v.label is None
    assert "I cannot judge this." in v.raw and "Still no idea." in v.raw and "even when it was asked again" in v.reason
    det = Pipeline(
        extractor=HypothesisSelector(),
        retriever=WholeReferenceRetriever(),
        verifier=ConliNLIVerifier(llm=FakeLLM(["?", "?"]), entity_level=False),
    ).run("A is x.", REF)
    assert det.hallucinated is None  # nothing flagged but unverified: not "grounded"


def test_backend_failure_fails_the_batch_without_retry():
    llm = FakeLLM([BackendError("refused")])
    out = ConliNLIVerifier(llm=llm, entity_level=False).verify([Claim("A.", 0, 2)], [[]], reference=REF)
    assert out[0].status == "error" and "refused" in out[0].reason and len(llm.requests) == 1


def test_entity_tagging_and_category_mapping():
    assert tag_entity("Moved to Delhi in 1990.", 9, 14) == "Moved to [ Delhi ] in 1990."
    assert conli_category("GPE", "Delhi") == "LOCATION" and conli_category("FAC", "JFK") == "LOCATION"
    assert conli_category("ORG", "Oberoi Group") is None and conli_category("PERCENT", "5%") is None
    assert (
        conli_category("MONEY", "$5") == "QUANTITY-CURRENCY" and conli_category("CARDINAL", "31") == "QUANTITY-NUMBER"
    )
    assert date_category("1844–1846") == date_category("from 2010 to 2015") == "DATETIME-DATERANGE"
    assert date_category("the 1990s") == "DATETIME-DATERANGE"
    assert date_category("two years") == date_category("30 minutes") == "DATETIME-DURATION"
    assert date_category("April 5, 2014") is None and date_category("two years ago") is None
    assert len(CONLI_CATEGORIES) == 9
    with pytest.raises(ConfigError, match="Unknown entity categories"):
        ConliNLIVerifier(entity_categories=("PLACE",))
    ConliNLIVerifier(entity_categories=("LOCATION", "ORG"))  # raw spaCy labels widen the net


# -- scores from log-probabilities -------------------------------------------------------------


class ScoringFake(FakeLLM):
    """FakeLLM that records the prefix of each score_labels call."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.prefixes = []

    def _score_labels(self, messages, labels, prefix):
        self.prefixes.append(prefix)
        return super()._score_labels(messages, labels, prefix)


def test_logprob_backend_scores_the_label_letter_after_the_reasoning():
    reply = (
        'Answer:\n(0). A is x. <reason> premise reference: "x". It\'s entailment. </reason> [C]\n'
        "(1). B is y. <reason> premise reference: None. It's neutral. </reason> [I]"
    )
    llm = ScoringFake([reply], label_scores=[{"C": -0.1, "I": -2.4}, {"C": -3.0, "I": -0.05}])
    out = ConliNLIVerifier(llm=llm, batch_size=2, entity_level=False).verify(
        [Claim("A is x.", 0, 7), Claim("B is y.", 8, 15)], [[], []], reference=REF
    )
    assert llm.prefixes[0].endswith("It's entailment. </reason> [") and llm.prefixes[0].startswith("Answer:\n(0).")
    assert llm.prefixes[1].endswith("It's neutral. </reason> [") and "[C]\n(1)." in llm.prefixes[1]
    assert 0.05 < out[0].score < 0.15 and out[0].hallucinated is False
    assert out[1].score > 0.9 and out[1].hallucinated is True
    assert out[0].meta["sentence"]["scored"] is True
    # the scoring call sees the same prompt as the generation
    assert llm.requests[1].messages == llm.requests[0].messages


def test_scored_label_decides_with_threshold_and_keeps_the_written_letter():
    reply = "Answer:\n(0). A is x. <reason> ok </reason> [C]"
    llm = FakeLLM([reply], label_scores=[{"C": -0.9, "I": -0.6}])
    v = ConliNLIVerifier(llm=llm, entity_level=False).verify([Claim("A is x.", 0, 7)], [[]], reference=REF)[0]
    assert v.hallucinated is True and v.meta["sentence"]["text_label"] == "C" and 0.5 < v.score < 0.6
    llm = FakeLLM([reply], label_scores=[{"C": -0.9, "I": -0.6}])
    v = ConliNLIVerifier(llm=llm, entity_level=False, threshold=0.7).verify(
        [Claim("A is x.", 0, 7)], [[]], reference=REF
    )[0]
    assert v.hallucinated is False


def test_text_backend_scores_are_zero_or_one():
    llm = FakeLLM(nli_reply(lambda h: "I"))
    v = ConliNLIVerifier(llm=llm, entity_level=False).verify([Claim("A.", 0, 2)], [[]], reference=REF)[0]
    assert v.score == 1.0 and "scored" not in v.meta["sentence"]


def test_quoted_premise_becomes_evidence_with_offsets():
    llm = FakeLLM(
        [
            'Answer:\n(0). X. <reason> premise reference: "a hotel company with its head office in Delhi". '
            "It's contradiction. </reason> [I]"
        ]
    )
    v = ConliNLIVerifier(llm=llm, entity_level=False).verify([Claim("X.", 0, 2)], [[]], reference=REF)[0]
    (ev,) = v.evidence
    assert REF[ev.start : ev.end] == "a hotel company with its head office in Delhi"


# -- selection ---------------------------------------------------------------------------------


def test_selection_purges_noise_but_not_in_short_answers():
    sel = HypothesisSelector()
    answer = "Sure! The head office is in Delhi. Does that help? It has 31 hotels."
    claims = sel.extract(answer)
    assert [c.text for c in claims] == ["The head office is in Delhi.", "It has 31 hotels."]
    assert all(answer[c.start : c.end] == c.text for c in claims)
    assert [c.text for c in sel.extract("Delhi")] == ["Delhi"]  # a short answer is its own hypothesis
    assert len(HypothesisSelector(purge=False).extract(answer)) == 4


# -- mitigation --------------------------------------------------------------------------------


def test_no_llm_is_a_config_error():
    with pytest.raises(ConfigError, match="needs an LLM"):
        ConliNLIVerifier().verify([Claim("A.", 0, 2)], [[]], reference=REF)


def test_prefill_starts_the_reply_and_is_part_of_the_scored_prefix():
    llm = ScoringFake(
        [' premise reference: "x". It\'s entailment. </reason> [C]'], label_scores=[{"C": -0.1, "I": -3.0}]
    )
    v = ConliNLIVerifier(llm=llm, entity_level=False, prefill=True).verify(
        [Claim("A is x.", 0, 7)], [[]], reference=REF
    )[0]
    assert llm.requests[0].messages[-1].role == "assistant"
    assert llm.requests[0].messages[-1].content == "Answer:\n(0). A is x. <reason>"
    assert llm.prefixes[0] == 'Answer:\n(0). A is x. <reason> premise reference: "x". It\'s entailment. </reason> ['
    assert llm.requests[1].messages[-1].role == "user"  # scoring: prompt + prefix, no duplicated prefill
    assert v.hallucinated is False and v.reason == 'premise reference: "x". It\'s entailment.'
