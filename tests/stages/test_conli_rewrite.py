"""The CoNLI mitigation agent (paper 001, Appendix E) with FakeLLM: prompt, rewrite, alignment."""

from __future__ import annotations

import pytest

from hallucheck.errors import ParseError
from hallucheck.llm import FakeLLM
from hallucheck.prompts import load_prompt
from hallucheck.stages.conli_rewrite import ConliRewriteMitigator, align_sentences, clean_reply
from hallucheck.types import Claim, Detection, Verdict

REF = (
    "The Oberoi Group is a hotel company with its head office in Delhi. It was founded by Mohan Singh Oberoi in "
    "the 1930s and runs 31 hotels."
)


def test_mitigation_prompt_renders_appendix_e():
    msgs = load_prompt("conli_mitigate.v1").render(document="DOC", claim="CLAIM TEXT", instructions="INSTR")
    assert msgs[0].content.startswith("You are a proof-reading assistant for a documentation scribe.")
    assert "DOCUMENT:\nDOC\nEnd DOCUMENT." in msgs[1].content and "CLAIM:\nCLAIM TEXT\nEnd CLAIM." in msgs[1].content
    assert "Keep the rest sentences unchanged." in msgs[1].content and "remove those sentences" in msgs[1].content


# -- scores from log-probabilities -------------------------------------------------------------


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


def test_empty_rewrite_is_retried_then_a_parse_error():
    det = _detection("The sky is blue. Grass is red.", {"Grass is red.": "no"})
    with pytest.raises(ParseError) as err:
        ConliRewriteMitigator(llm=FakeLLM(["", "Answer:\n"])).rewrite(det)
    assert "even when asked again" in str(err.value)
    # when every sentence is flagged, an empty answer is a valid "remove everything"
    det = _detection("A is x.", {"A is x.": "no"})
    assert ConliRewriteMitigator(llm=FakeLLM(["Answer:\n"])).rewrite(det).revised == ""


def test_helpers_clean_reply_and_alignment():
    assert clean_reply("Answer:\nCorrected WHOLE CLAIM: A. B.\nEnd CLAIM.") == "A. B."
    assert clean_reply('Answer: "A. B."') == "A. B."
    ops = align_sentences(["A is x.", "B is y.", "C is z."], ["A is x.", "C is z!"])
    assert ops == [("match", 0, 0), ("del", 1, None), ("match", 2, 1)]


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
