"""The LLM repair path under the repair contract (issue 47): a revision is one sentence of the answer
and nothing else. A label, a comment on the sentence, quotes, a second sentence or an explanation is
refused when the reply comes back, before any re-check could accept it; every dropped rewrite is
reported with its reason; the LLM calls of the check and of the repair are counted apart.

The judge here accepts every claim but the buy-back one, as the embedded model's re-check accepted
"Correct Fix Result: The sentence has been corrected ..." on an earnings release: only the contract
stands between such a reply and the revised answer."""

from __future__ import annotations

import pytest

from _scripted.repair import claim_of, judge_requests, repair_requests, scripted_llm
from hallucheck.cli.mitigate import usage_line
from hallucheck.pipeline import Pipeline
from hallucheck.registry import create
from hallucheck.stages.piece_repair import PieceRepairMitigator, PromptRewriteMitigator
from hallucheck.types import Mitigation

REF = (
    "Acme's revenue for the third quarter was 4.2 million euros, up 8 per cent. "
    "The board proposes a dividend of 0.30 euros per share. The annual meeting is on 12 May."
)
GROUNDED = "Revenue for the third quarter was 4.2 million euros."
WRONG = "The board proposes to buy back shares."
ANSWER = f"{GROUNDED} {WRONG}"
FIXED = "The board proposes a dividend of 0.30 euros per share."

# what small models put in the [Final Sentence] part instead of the sentence, and the reason given
META = {
    "earnings release": (
        "Correct Fix Result: The sentence has been corrected to use the correct word 'dividend'.",
        "it talks about the sentence",
    ),
    "label": (f"Revised Sentence: {FIXED}", "it talks about the sentence"),
    "short label": (f"Fix: {FIXED}", "it puts a label ('Fix:') before the sentence"),
    "reported": ("The sentence has been corrected to mention the dividend.", "it talks about the sentence"),
    "second sentence": (f"{FIXED} The reference gives no buy-back.", "it talks about the sentence"),
    "explained": (f"{FIXED} This corrects the proposal.", "it adds an explanation"),
    "two sentences": (f"{FIXED} Shares are not bought back.", "it is 2 sentences where it replaces 1"),
    "remark": (f"{FIXED[:-1]} (a buy-back is not mentioned).", "it talks about the sentence"),
    "quoted": (f'It should say "{FIXED}"', "it quotes the sentence instead of being it"),
    "no change needed": ("No changes are needed.", "it talks about the sentence"),
}


def pipeline(llm, mitigator=None) -> Pipeline:
    return Pipeline(
        name="scripted",
        extractor=create("extractor", "sentences"),
        retriever=create("retriever", "all_sentences"),
        verifier=create("verifier", "cascade", llm=llm, gate="none", calibrate=False, qa_prompt=None),
        mitigator=mitigator or PieceRepairMitigator(llm=llm, locate="source"),
    )


def run(reply: str):
    llm = scripted_llm({WRONG: f"[Reason]\nThe reference gives a dividend.\n[Final Sentence]\n{reply}"}, ("buy back",))
    return pipeline(llm).mitigate(ANSWER, REF), llm


def test_a_clean_rewrite_is_kept_and_rechecked():
    mit, llm = run(FIXED)
    assert mit.revised == f"{GROUNDED} {FIXED}"
    assert mit.after is not None and mit.after.hallucinated is False
    assert mit.notes == ()
    assert [claim_of(r.messages) for r in judge_requests(llm)][-1] == FIXED  # the re-check read the revision


@pytest.mark.parametrize("kind", sorted(META))
def test_meta_text_is_refused_with_its_reason_before_the_recheck(kind):
    reply, why = META[kind]
    mit, llm = run(reply)
    assert mit.revised == ANSWER and not mit.edits
    (note,) = mit.notes
    start = ANSWER.index(WRONG)
    assert note.startswith(f"answer[{start}:{len(ANSWER)}] not repaired: piece {WRONG!r}: its rewrite"), note
    assert why in note, note
    # the reply never reached the re-check: the judge read the answer's sentences only
    assert {claim_of(r.messages) for r in judge_requests(llm)} == {GROUNDED, WRONG}
    assert mit.after is not None and mit.after.hallucinated is True


def test_no_revision_holds_meta_text_whatever_the_editor_says():
    for reply, _ in META.values():
        mit, _llm = run(reply)
        assert reply not in mit.revised and "Fix Result" not in mit.revised


def test_a_sentence_the_llm_leaves_as_it_was_is_reported():
    for reply in ("Correct", WRONG):
        mit, _llm = run(reply)
        assert mit.revised == ANSWER
        (note,) = mit.notes
        assert "not repaired:" in note and "the LLM found no error in it" in note, note


def test_an_unparsed_reply_is_reported_with_the_raw_reply():
    llm = scripted_llm({WRONG: "I think the answer is fine overall."}, ("buy back",))
    mit = pipeline(llm).mitigate(ANSWER, REF)
    (note,) = mit.notes
    assert "not repaired:" in note and "no [Final Sentence] part" in note and "raw reply" in note


def test_the_whole_answer_rewrite_is_held_to_the_same_words():
    reply = f"Corrected answer: {GROUNDED} {FIXED}"
    llm = scripted_llm({ANSWER: f"[Final Sentence]\n{reply}"}, ("buy back",))
    mit = pipeline(llm, PromptRewriteMitigator(llm=llm)).mitigate(ANSWER, REF)
    assert mit.revised == ANSWER
    (note,) = mit.notes
    assert note.startswith("not repaired: its rewrite") and "'Corrected answer'" in note


def test_usage_counts_every_call_the_check_and_the_repair_apart():
    mit, llm = run(FIXED)
    judged, repaired = len(judge_requests(llm)), len(repair_requests(llm))
    assert (judged, repaired) == (4, 1)  # two sentences checked, two re-checked; one repair
    assert mit.usage.calls == judged + repaired
    assert mit.repair_usage.calls == repaired
    assert mit.repair_usage.prompt_tokens == sum(len(m.content.split()) for m in repair_requests(llm)[0].messages)
    line = usage_line(mit)
    assert line.startswith("LLM calls in all: 5 (0 cached): 4 to check the answer and re-check revisions, 1 to repair")
    # the split survives the JSON form
    back = Mitigation.from_dict(mit.to_dict())
    assert back.repair_usage == mit.repair_usage and back.usage == mit.usage


def test_a_refused_rewrite_still_counts_its_call():
    mit, llm = run(META["earnings release"][0])
    assert mit.repair_usage.calls == len(repair_requests(llm)) == 1
    assert mit.usage.calls == len(llm.requests)
