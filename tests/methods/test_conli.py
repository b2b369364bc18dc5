"""CoNLI (paper 001) control flow with FakeLLM: selection, batching, the hierarchical entity
pass, parsing of [C]/[I] replies (well-formed and not), log-probability scores, mitigation."""

from __future__ import annotations

import re

import pytest

import hallucheck
from hallucheck.errors import BackendError, ConfigError, ParseError
from hallucheck.llm import FakeLLM
from hallucheck.models import ner
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
from hallucheck.stages.conli_rewrite import ConliRewriteMitigator, align_sentences, clean_reply
from hallucheck.types import Claim, Detection, Verdict

REF = (
    "The Oberoi Group is a hotel company with its head office in Delhi. It was founded by Mohan Singh Oberoi in "
    "the 1930s and runs 31 hotels."
)


def hypotheses_of(request) -> list[str]:
    """The numbered hypotheses of a CoNLI detection request (last user turn)."""
    block = request.messages[-1].content.split("Hypothesis:\n", 1)[1].split("\n\nBegin your answer", 1)[0]
    return [re.sub(r"^\(\d+\)\. ", "", line) for line in block.splitlines()]


def nli_reply(judge):
    """A FakeLLM reply function: ``judge(hypothesis) -> "C" | "I"`` for every hypothesis asked."""

    def reply(request):
        if request.prompt.startswith("conli_mitigate"):
            raise AssertionError("unexpected mitigation call")
        lines = ["Answer:"]
        for i, h in enumerate(hypotheses_of(request)):
            lab = judge(h)
            why = "It's entailment." if lab == "C" else "It's contradiction."
            lines.append(f'({i}). {h} <reason> premise reference: "head office in Delhi". {why} </reason> [{lab}]')
        return "\n".join(lines)

    return reply


@pytest.fixture
def fake_ner(monkeypatch):
    """spaCy stand-in: capitalised words and numbers, with spaCy labels."""
    labels = {"Mumbai": "GPE", "Delhi": "GPE", "Oberoi": "PERSON", "31": "CARDINAL", "40": "CARDINAL", "Group": "ORG"}

    def extract(text, *, model="x", labels_filter=None, **_):
        out = []
        for m in re.finditer(r"\b(?:Mumbai|Delhi|Oberoi|31|40|Group)\b", text):
            out.append(ner.Entity(m.group(), m.start(), m.end(), labels[m.group()]))
        return out

    monkeypatch.setattr(ner, "extract_entities", extract)


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


def test_mitigation_prompt_renders_appendix_e():
    msgs = load_prompt("conli_mitigate.v1").render(document="DOC", claim="CLAIM TEXT", instructions="INSTR")
    assert msgs[0].content.startswith("You are a proof-reading assistant for a documentation scribe.")
    assert "DOCUMENT:\nDOC\nEnd DOCUMENT." in msgs[1].content and "CLAIM:\nCLAIM TEXT\nEnd CLAIM." in msgs[1].content
    assert "Keep the rest sentences unchanged." in msgs[1].content and "remove those sentences" in msgs[1].content


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


# -- the hierarchy -----------------------------------------------------------------------------


def test_entity_checks_run_only_on_sentences_judged_grounded(fake_ner):
    answer = "The head office is in Mumbai. Mohan Singh Oberoi runs 31 hotels."
    llm = FakeLLM(nli_reply(lambda h: "I" if "Mumbai" in h else "C"))
    det = hallucheck.load_method("conli", llm=llm).run(answer, REF)
    asked = [hypotheses_of(r) for r in llm.requests]
    assert asked[:2] == [["The head office is in Mumbai."], ["Mohan Singh Oberoi runs 31 hotels."]]
    entity_hyps = [h for hs in asked[2:] for h in hs]
    # only the grounded sentence's entities, one tagged hypothesis each (ORG is not a CoNLI category)
    assert entity_hyps == ["Mohan Singh [ Oberoi ] runs 31 hotels.", "Mohan Singh Oberoi runs [ 31 ] hotels."]
    assert not any("Mumbai" in h for h in entity_hyps)
    first, second = det.verdicts
    assert first.hallucinated and first.meta["level"] == "sentence" and "entities" not in first.meta
    assert second.hallucinated is False and [e["category"] for e in second.meta["entities"]] == [
        "PERSON",
        "QUANTITY-NUMBER",
    ]
    assert answer[second.meta["entities"][1]["start"] : second.meta["entities"][1]["end"]] == "31"


def test_an_entity_judged_I_makes_the_sentence_hallucinated_with_its_reason(fake_ner):
    answer = "Oberoi runs 40 hotels."
    llm = FakeLLM(nli_reply(lambda h: "I" if "[ 40 ]" in h else "C"))
    v = hallucheck.load_method("conli", llm=llm).run(answer, REF).verdicts[0]
    assert v.hallucinated is True and v.meta["level"] == "entity" and v.meta["sentence"]["label"] == "C"
    assert v.reason.startswith("Entity-level: [ 40 ] (QUANTITY-NUMBER): premise reference")
    assert v.label == "contradicted" and v.score == 1.0


def test_entity_batching_groups_entity_hypotheses(fake_ner):
    llm = FakeLLM(nli_reply(lambda h: "C"))
    hallucheck.load_method("conli", llm=llm, batch_size=4).run("Oberoi runs 31 hotels in Delhi.", REF)
    assert [len(hypotheses_of(r)) for r in llm.requests] == [1, 3]


def test_entity_level_off_makes_no_entity_calls(fake_ner):
    llm = FakeLLM(nli_reply(lambda h: "C"))
    hallucheck.load_method("conli", llm=llm, entity_level=False).run("Oberoi runs 31 hotels in Delhi.", REF)
    assert len(llm.requests) == 1


def test_failed_entity_check_makes_the_sentence_unverified(fake_ner):
    ok = nli_reply(lambda h: "C")
    llm = FakeLLM([ok, "garbage", "more garbage"])
    v = hallucheck.load_method("conli", llm=llm, entity_level=True).run("Delhi is nice.", REF).verdicts[0]
    assert v.status == "error" and "[ Delhi ]" in v.reason and v.meta["sentence"]["label"] == "C"


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


def _detection(answer: str, flagged: dict[str, str]) -> Detection:
    from hallucheck.text import split_sentences

    verdicts = []
    for s in split_sentences(answer):
        bad = s.text in flagged
        verdicts.append(
            Verdict(
                Claim(s.text, s.start, s.end),
                "unverifiable" if bad else "supported",
                bad,
                1.0 if bad else 0.0,
                flagged.get(s.text, ""),
            )
        )
    return Detection(answer, REF, None, "conli", any(v.hallucinated for v in verdicts), None, tuple(verdicts))


def test_mitigation_removes_an_unsupported_sentence_and_keeps_the_rest_verbatim():
    answer = "The head office is in Delhi.  It won a Nobel prize in 1999. It runs 31 hotels."
    det = _detection(answer, {"It won a Nobel prize in 1999.": "premise reference: None. It's neutral."})
    # the LLM drops the sentence but also paraphrases an unflagged one
    llm = FakeLLM(["Answer:\nThe head office is located in Delhi. It runs 31 hotels."])
    m = ConliRewriteMitigator(llm=llm)
    r = m.rewrite(det)
    assert r.revised == "The head office is in Delhi.  It runs 31 hotels."
    assert r.restored == ("The head office is in Delhi.",)
    (edit,) = r.edits
    assert answer[edit.start : edit.end] == "It won a Nobel prize in 1999. " and edit.replacement == ""
    assert "It's neutral." in edit.reason
    instr = llm.requests[0].messages[-1].content
    assert (
        "Rewrite instruction 1:\nRewrite sentence in the CLAIM: It won a Nobel prize in 1999.\n"
        "Reason for rewriting the sentence: premise reference: None. It's neutral." in instr
    )
    assert "CLAIM:\n" + answer + "\nEnd CLAIM." in instr


def test_mitigation_rewrites_a_flagged_sentence_and_drops_additions_elsewhere():
    answer = "The head office is in Mumbai. It runs 31 hotels."
    det = _detection(answer, {"The head office is in Mumbai.": "Premise says Delhi. It's contradiction."})
    llm = FakeLLM(["Answer:\nThe head office is in Delhi. It runs 31 hotels. It is the best chain in India."])
    r = ConliRewriteMitigator(llm=llm).rewrite(det)
    assert r.revised == "The head office is in Delhi. It runs 31 hotels."
    assert r.dropped == ("It is the best chain in India.",)
    mit = ConliRewriteMitigator(llm=FakeLLM(["Answer:\nThe head office is in Delhi. It runs 31 hotels."])).mitigate(det)
    assert mit.revised == "The head office is in Delhi. It runs 31 hotels." and mit.before is det


def test_flagged_sentence_left_unchanged_is_removed_or_kept():
    answer = "It won a Nobel prize. It runs 31 hotels."
    det = _detection(answer, {"It won a Nobel prize.": "Not in the premise."})
    assert ConliRewriteMitigator(llm=FakeLLM([answer])).rewrite(det).revised == "It runs 31 hotels."
    r = ConliRewriteMitigator(llm=FakeLLM([answer]), unchanged="keep").rewrite(det)
    assert r.revised == answer and r.unchanged_flagged == ("It won a Nobel prize.",)


def test_removing_the_last_sentences_takes_the_whitespace_before_them():
    answer = "It runs 31 hotels. It won a prize. It flies to Mars."
    det = _detection(answer, {"It won a prize.": "no", "It flies to Mars.": "no"})
    r = ConliRewriteMitigator(llm=FakeLLM(["Answer:\nIt runs 31 hotels."])).rewrite(det)
    assert r.revised == "It runs 31 hotels." and len(r.edits) == 1


def test_unflagged_answer_is_unchanged_without_an_llm_call():
    llm = FakeLLM(nli_reply(lambda h: "C"))
    method = hallucheck.load_method("conli", llm=llm, entity_level=False)
    answer = "The head office is in Delhi. It runs 31 hotels."
    mit = method.mitigate(answer, REF)
    assert mit.revised == answer and mit.edits == () and not mit.changed
    assert not any(r.prompt.startswith("conli_mitigate") for r in llm.requests)
    direct = ConliRewriteMitigator(llm=FakeLLM([])).mitigate(_detection(answer, {}))
    assert direct.revised == answer and direct.edits == ()


def test_empty_rewrite_is_retried_then_a_parse_error():
    det = _detection("The sky is blue. Grass is red.", {"Grass is red.": "no"})
    with pytest.raises(ParseError) as err:
        ConliRewriteMitigator(llm=FakeLLM(["", "Answer:\n"])).rewrite(det)
    assert "even when asked again" in str(err.value)
    # when every sentence is flagged, an empty answer is a valid "remove everything"
    det = _detection("A is x.", {"A is x.": "no"})
    assert ConliRewriteMitigator(llm=FakeLLM(["Answer:\n"])).rewrite(det).revised == ""


def test_end_to_end_mitigation_through_the_pipeline(fake_ner):
    answer = "The head office is in Mumbai. It runs 31 hotels."

    def reply(request):
        if request.prompt.startswith("conli_mitigate"):
            return "Answer:\nThe head office is in Delhi. It runs 31 hotels.\nEnd CLAIM."
        return nli_reply(lambda h: "I" if "Mumbai" in h else "C")(request)

    mit = hallucheck.load_method("conli", llm=FakeLLM(reply)).mitigate(answer, REF)
    assert mit.revised == "The head office is in Delhi. It runs 31 hotels."
    assert mit.before.hallucinated is True and mit.after.hallucinated is False
    # detection: 2 sentences + 1 entity call; mitigation: 1; re-check: 2 sentences + 2 entity calls
    assert mit.usage.calls == 8


def test_helpers_clean_reply_and_alignment():
    assert clean_reply("Answer:\nCorrected WHOLE CLAIM: A. B.\nEnd CLAIM.") == "A. B."
    assert clean_reply('Answer: "A. B."') == "A. B."
    ops = align_sentences(["A is x.", "B is y.", "C is z."], ["A is x.", "C is z!"])
    assert ops == [("match", 0, 0), ("del", 1, None), ("match", 2, 1)]


# -- the method --------------------------------------------------------------------------------


def test_method_is_registered_and_round_trips():
    names = dict(hallucheck.list_methods())
    assert "conli" in names
    llm = FakeLLM()
    p = hallucheck.load_method("conli", llm=llm, batch_size=4, entity_level=False)
    assert p.verifier.batch_size == 4 and p.verifier.entity_level is False and p.mitigator is not None
    again = Pipeline.from_dict(p.to_dict(), llm=llm)
    assert again.to_dict() == p.to_dict() and again.verifier.llm is llm and again.mitigator.llm is llm
    with pytest.raises(ConfigError, match="batch_size"):
        hallucheck.load_method("conli", llm=llm, batch_size=0)
    with pytest.raises(ConfigError, match="Did you mean 'batch_size'"):
        hallucheck.load_method("conli", llm=llm, batch_sise=2)


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


def test_paraphrase_of_an_unflagged_sentence_is_not_attached_to_a_flagged_neighbour():
    answer = "The company has its head office in the city of Delhi. It won a Nobel prize in 1999."
    det = _detection(answer, {"It won a Nobel prize in 1999.": "Not in the premise."})
    # the LLM rewrites the unflagged sentence beyond recognition and removes the flagged one
    r = ConliRewriteMitigator(llm=FakeLLM(["Answer:\nDelhi hosts the main office."])).rewrite(det)
    assert r.revised == "The company has its head office in the city of Delhi."
    assert r.restored == ("The company has its head office in the city of Delhi.",)
    assert r.dropped == ("Delhi hosts the main office.",)
    # a retry after an empty reply says what is missing
    llm = FakeLLM(["", "Answer:\nThe company has its head office in the city of Delhi."])
    assert (
        ConliRewriteMitigator(llm=llm).rewrite(det).revised == "The company has its head office in the city of Delhi."
    )
    assert "corrected WHOLE CLAIM now" in llm.requests[1].messages[-1].content
