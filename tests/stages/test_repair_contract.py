"""The repair contract (stages/repair_contract.py) with a scripted LLM that answers every kind of
meta-text and a wrong figure: no meta-text lands in a kept revision, no grounded sentence changes or
reaches the LLM, every refusal says why; and figure repair without an LLM (English and German)."""

from __future__ import annotations

import pytest

from hallucheck.llm import FakeLLM
from hallucheck.pipeline import Pipeline
from hallucheck.registry import create
from hallucheck.stages.conli_rewrite import ConliRewriteMitigator
from hallucheck.stages.figure_repair import FigureRepairMitigator, rewrite_figure, write_number
from hallucheck.stages.gate.figures import ReferenceFacts
from hallucheck.stages.piece_repair import PieceRepairMitigator, PromptRewriteMitigator
from hallucheck.stages.repair_checks import meta_text, revision_problem
from hallucheck.stages.repair_contract import compose, narrow
from hallucheck.types import Edit

REF = (
    "Checking the tyre pressure. Check the pressure of all four tyres at least once a month. "
    "The recommended cold pressure for the front tyres is 2.4 bar (35 psi) and for the rear tyres 2.2 bar "
    "(32 psi). When the vehicle is fully loaded, increase the rear tyre pressure to 2.6 bar (38 psi)."
)
GROUNDED = "Check the tyre pressure at least once a month."
WRONG_FIGURE = "When the vehicle is fully loaded, increase the rear tyre pressure to 3.0 bar."
MISSING = "Tighten the valve caps to 5 Nm."
ANSWER = f"{GROUNDED} {WRONG_FIGURE} {MISSING}"
FIXED = "Tighten the valve caps by hand."

# what a small LLM answers instead of the sentence, and why the contract must refuse it
META_REPLIES = {
    "label": (f"Corrected sentence: {FIXED}", "talks about the sentence"),
    "here is": (f"Here is the revised answer: {FIXED}", "talks about the sentence"),
    "is now": (f'Corrected sentence is now "{FIXED}"', "talks about the sentence"),
    "quoted": (f"“{FIXED[:-1]}”.", "quotes"),
    "explained": (f"{FIXED} This corrects the torque, which is not given.", "explanation"),
    "noted": (f"{FIXED} (Note: the torque was removed.)", "explanation"),
    "german": ("Ziehen Sie die Ventilkappen von Hand fest, ohne Werkzeug zu benutzen.", "is in German"),
    "wrong figure": ("Tighten the valve caps to 7 Nm.", "adds the figure '7 Nm'"),
    "sure": (f"Sure! {FIXED}", "introduces the sentence"),
}


def detector(mitigator=None) -> Pipeline:
    """The deterministic figure check as the detector: the same one re-checks every revision."""
    return Pipeline(
        name="figures",
        extractor=create("extractor", "sentences"),
        retriever=create("retriever", "all_sentences"),
        verifier=create("verifier", "entity_check", check_entities=False),
        mitigator=mitigator,
    )


def piece_llm(final: str) -> FakeLLM:
    return FakeLLM(lambda request: f"[Reason]\nThe reference gives no torque.\n[Final Sentence]\n{final}")


def _sentences_sent(llm: FakeLLM) -> list[str]:
    return [r.messages[-1].content.rsplit("[Sentence to Fix]\n", 1)[-1].strip() for r in llm.requests]


def test_the_detector_flags_the_wrong_figure_and_the_missing_torque():
    det = detector().run(ANSWER, REF)
    assert [v.hallucinated for v in det.verdicts] == [False, True, True]


@pytest.mark.parametrize("kind", sorted(META_REPLIES))
def test_piece_repair_meta_text_and_wrong_figures_are_refused_with_reasons(kind):
    reply, why = META_REPLIES[kind]
    llm = piece_llm(reply)
    mit = detector(PieceRepairMitigator(llm=llm, locate="source")).mitigate(ANSWER, REF)
    # the wrong figure is repaired from the reference, without the LLM; only the torque sentence is sent
    assert _sentences_sent(llm) == [MISSING]
    assert mit.revised == f"{GROUNDED} {WRONG_FIGURE.replace('3.0 bar', '2.6 bar')} {MISSING}"
    # meta-text is refused by the mitigator as the reply comes back (issue 47), the rest by the contract
    (refusal,) = [n for n in mit.notes if n.startswith("refused:") or " not repaired: " in n]
    where = f"answer[{ANSWER.index(MISSING)}:{len(ANSWER)}]"
    assert refusal.startswith((f"refused: {where} {MISSING!r} stays", f"{where} not repaired: ")), refusal
    assert why in refusal, refusal
    # the torque sentence stays flagged after the re-check; the figure's sentence is grounded now
    assert [v.hallucinated for v in mit.after.verdicts] == [False, False, True]


def test_a_clean_revision_is_kept_and_only_the_changed_words_are_edited():
    llm = piece_llm(FIXED)
    mit = detector(PieceRepairMitigator(llm=llm, locate="source")).mitigate(ANSWER, REF)
    assert mit.revised == f"{GROUNDED} {WRONG_FIGURE.replace('3.0 bar', '2.6 bar')} {FIXED}"
    assert not [n for n in mit.notes if n.startswith("refused:")]
    assert mit.after.hallucinated is False
    figure, torque = mit.edits
    assert (ANSWER[figure.start : figure.end], figure.replacement) == ("3.0 bar", "2.6 bar")
    assert REF[figure.source[0] : figure.source[1]] == "2.6 bar"
    assert ANSWER[torque.start : torque.end] == "to 5 Nm" and torque.replacement == "by hand"
    assert torque.source is None


def test_a_revision_no_better_on_recheck_is_refused():
    # the LLM "fixes" the torque with another torque the reference does not give either, but one the
    # text-level checks cannot see as new: the same figure, reworded
    llm = piece_llm("Tighten the valve caps firmly to 5 Nm.")
    mit = detector(PieceRepairMitigator(llm=llm, locate="source")).mitigate(ANSWER, REF)
    (refusal,) = [n for n in mit.notes if n.startswith("refused:")]
    assert "no better" in refusal and "1 unsupported claim(s)" in refusal
    assert mit.revised.endswith(MISSING)


def test_whole_answer_rewrites_never_change_a_grounded_sentence():
    # the prompt baseline rewrites the whole answer: it also "improves" the grounded sentence
    rewrite = f"Check the tyre pressure every week. {WRONG_FIGURE.replace('3.0', '2.6')} {FIXED}"
    llm = FakeLLM(lambda request: f"[Final Sentence]\n{rewrite}")
    mit = detector(PromptRewriteMitigator(llm=llm)).mitigate(ANSWER, REF)
    assert mit.revised.startswith(GROUNDED + " ")
    assert mit.revised.endswith(FIXED)
    (refusal,) = [n for n in mit.notes if n.startswith("refused:")]
    assert refusal.startswith(f"refused: answer[0:{len(GROUNDED)}]") and "grounded" in refusal


@pytest.mark.parametrize("kind", ["label", "explained", "german", "wrong figure"])
def test_conli_rewrites_are_held_to_the_same_contract(kind):
    reply, why = META_REPLIES[kind]
    llm = FakeLLM(lambda request: f"Answer:\n{GROUNDED} {WRONG_FIGURE.replace('3.0', '2.6')} {reply}")
    mit = detector(ConliRewriteMitigator(llm=llm)).mitigate(ANSWER, REF)
    assert mit.revised.startswith(f"{GROUNDED} {WRONG_FIGURE.replace('3.0', '2.6')}")
    assert reply not in mit.revised and mit.revised.endswith(MISSING)
    (refusal,) = [n for n in mit.notes if n.startswith("refused:")]
    assert why in refusal, refusal


def test_no_kept_revision_holds_meta_text_whatever_the_llm_says():
    for kind, (reply, _) in META_REPLIES.items():
        mit = detector(PieceRepairMitigator(llm=piece_llm(reply), locate="source")).mitigate(ANSWER, REF)
        for edit in mit.edits:
            assert meta_text(ANSWER[edit.start : edit.end], edit.replacement) is None, kind
        assert GROUNDED in mit.revised and reply not in mit.revised, kind


# -- figure repair without an LLM -----------------------------------------------------------------


def test_llm_none_repairs_the_figure_and_says_what_needs_an_llm():
    mit = detector(FigureRepairMitigator()).mitigate(ANSWER, REF)
    assert mit.revised == f"{GROUNDED} {WRONG_FIGURE.replace('3.0 bar', '2.6 bar')} {MISSING}"
    (note,) = mit.notes
    start = ANSWER.index(MISSING)
    assert note.startswith(f"answer[{start}:{start + len(MISSING)}] needs an LLM") and "5 Nm" in note
    assert [v.hallucinated for v in mit.after.verdicts] == [False, False, True]


def test_llm_none_repairs_a_german_answer_in_its_own_format():
    ref_de = (
        "Der empfohlene Kaltdruck beträgt für die Vorderreifen 2,4 bar und für die Hinterreifen 2,2 bar. "
        "Bei voll beladenem Fahrzeug erhöhen Sie den Druck der Hinterreifen auf 2,6 bar (38 psi)."
    )
    answer = "Bei voll beladenem Fahrzeug erhöhen Sie den Druck der Hinterreifen auf 3,0 bar."
    mit = detector(FigureRepairMitigator()).mitigate(answer, ref_de)
    assert mit.revised == answer.replace("3,0 bar", "2,6 bar") and mit.after.hallucinated is False
    (edit,) = mit.edits
    assert ref_de[edit.source[0] : edit.source[1]] == "2,6 bar"


def test_a_figure_repair_that_leaves_its_sentence_flagged_is_refused_and_the_llm_gets_the_original():
    # the wrong pressure can take the reference's value, but the sentence stays unsupported (the torque):
    # fewer wrong facts in a sentence the re-check still flags is no better, so nothing of it changes
    both = "When the vehicle is fully loaded, increase the rear tyre pressure to 3.0 bar and tighten the caps to 5 Nm."
    answer = f"{GROUNDED} {both}"
    mit = detector(FigureRepairMitigator()).mitigate(answer, REF)
    assert mit.revised == answer and not mit.edits
    (refusal,) = [n for n in mit.notes if n.startswith("refused:")]
    assert "no better (1 unsupported claim(s) and 2 wrong fact(s) before, 1 and 1 after)" in refusal, refusal
    assert [v.hallucinated for v in mit.after.verdicts] == [False, True]
    # with an LLM, the sentence it is sent is the answer's own, and its whole repair is kept
    fixed = "When the vehicle is fully loaded, increase the rear tyre pressure to 2.6 bar."
    llm = piece_llm(fixed)
    mit = detector(PieceRepairMitigator(llm=llm, locate="source")).mitigate(answer, REF)
    assert _sentences_sent(llm) == [both]
    assert mit.revised == f"{GROUNDED} {fixed}" and mit.after.hallucinated is False


@pytest.mark.parametrize(
    "answer_span, ref_span, ref_sentence, langs, expected",
    [
        ("3,0 bar", "2.6 bar", "Increase it to 2.6 bar (38 psi).", ("de", "en"), "2,6 bar"),
        ("3.0 bar", "2,6 bar", "Erhöhen auf 2,6 bar (38 psi).", ("en", "de"), "2.6 bar"),
        ("45 psi", "2.6 bar", "Increase it to 2.6 bar (38 psi).", ("en", "en"), "38 psi"),
        ("1.200 Euro", "1,450.50 euros", "It costs 1,450.50 euros.", ("de", "en"), "1.450,50 Euro"),
        ("12 tablets", "8 tablets", "Take at most 8 tablets.", ("en", "en"), "8 tablets"),
        ("3 Stunden", "2 hours", "Wait 2 hours.", ("de", "en"), "2 Stunden"),
        ("80%", "100 per cent", "Set the limit to 100 per cent.", ("en", "en"), "100%"),
        ("5 years", "12 months", "For 12 months after it ends.", ("en", "en"), "12 months"),
        ("5 Jahre", "12 months", "For 12 months after it ends.", ("de", "en"), None),
        ("2018", "2 June 2017", "It was released on 2 June 2017.", ("en", "en"), "2017"),
        ("2018", "2. Juni 2017", "Es erschien am 2. Juni 2017.", ("en", "de"), "2017"),
        ("May 2018", "2 June 2017", "It was released on 2 June 2017.", ("en", "en"), "2 June 2017"),
    ],
)
def test_the_reference_value_is_written_as_the_answer_writes_figures(
    answer_span, ref_span, ref_sentence, langs, expected
):
    got, why = rewrite_figure(answer_span, ref_span, ref_sentence, answer_lang=langs[0], ref_lang=langs[1])
    assert got == expected
    assert (why == "") == (expected is not None)


def test_write_number():
    assert write_number(2.6, 1, ",", None) == "2,6"
    assert write_number(1450.5, 2, ",", ".") == "1.450,50"
    assert write_number(-3.0, 0, ".", None) == "-3"


# -- the pieces -------------------------------------------------------------------------------------


def test_narrow_cuts_an_edit_down_to_its_changed_words():
    text = "The pressure is 3.0 bar here."
    (edit,) = narrow(text, [Edit(0, len(text), "The pressure is 2.6 bar here.", "why")])
    assert (text[edit.start : edit.end], edit.replacement, edit.reason) == ("3.0", "2.6", "why")
    (edit,) = narrow(text, [Edit(0, len(text), "The pressure is fine here.", "why")])
    assert (text[edit.start : edit.end], edit.replacement) == ("3.0 bar", "fine")


def test_compose_maps_a_second_round_back_onto_the_original():
    text = "A is 3.0 bar. B is 5 Nm."
    first = [Edit(5, 12, "2.6 bar", "figure", source=(0, 7))]
    middle = "A is 2.6 bar. B is 5 Nm."
    second = [Edit(middle.index("5 Nm"), middle.index("5 Nm") + 4, "tight", "llm")]
    edits = compose(text, first, second)
    from hallucheck.text.edits import apply_edits

    assert apply_edits(text, edits) == "A is 2.6 bar. B is tight."
    assert [text[e.start : e.end] for e in edits] == ["3.0 bar", "5 Nm"]


def test_revision_problem_accepts_a_plain_sentence_and_a_removal():
    facts = ReferenceFacts(REF, lang="en")
    assert revision_problem(MISSING, FIXED, facts=facts, answer_lang="en", lang="en") is None
    assert revision_problem(MISSING, "", facts=facts, answer_lang="en", lang="en") is None
    got = revision_problem(MISSING, "Tighten the valve caps to 7 Nm.", facts=facts, answer_lang="en", lang="en")
    assert got and "7 Nm" in got


def test_second_round_notes_name_offsets_of_the_original_answer():
    ref = "The rear tyres take 2.25 bar. The front tyres take 2.4 bar."
    answer = f"The rear tyres take 3 bar. {MISSING}"
    mit = detector(PieceRepairMitigator(llm=piece_llm(f"Corrected sentence: {FIXED}"), locate="source")).mitigate(
        answer, ref
    )
    assert mit.revised == f"The rear tyres take 2.25 bar. {MISSING}"  # the figure is one character longer
    # the mitigator's own note (its reply is refused as meta-text when it comes back) ...
    (refusal,) = [n for n in mit.notes if " not repaired: " in n]
    start = answer.index(MISSING)
    assert refusal.startswith(f"answer[{start}:{len(answer)}] not repaired: "), refusal
    # ... and the contract's note on a revision it refuses after the re-check
    mit = detector(PieceRepairMitigator(llm=piece_llm("Tighten the valve caps to 7 Nm."), locate="source")).mitigate(
        answer, ref
    )
    (refusal,) = [n for n in mit.notes if n.startswith("refused:")]
    assert refusal.startswith(f"refused: answer[{start}:{len(answer)}] {MISSING!r}"), refusal


@pytest.mark.parametrize(
    "text, start, end, expected",
    [("A. B. C.", 3, 5, "A. C."), ("A. B.", 3, 5, "A."), ("B. A.", 0, 2, "A."), ("a very big", 1, 6, "a big")],
)
def test_a_removal_takes_its_whitespace(text, start, end, expected):
    from hallucheck.stages.repair_contract import _with_gaps
    from hallucheck.text.edits import apply_edits

    assert apply_edits(text, _with_gaps(text, [Edit(start, end, "")])) == expected


def test_llm_none_names_a_sentence_the_verifier_decided_alone_inside_its_band():
    """A sentence the default's verifier passed although its score was where an LLM judge would have been
    asked (``meta["undecided"]``) stays as it is, and the notes say it needs an LLM to decide; a sentence
    decided outside the band is not named."""
    from hallucheck.types import Claim, Detection, Verdict

    unsure = "The TPMS light also turns on whenever the oil needs changing."
    answer = f"{GROUNDED} {unsure}"
    start = answer.index(unsure)
    verdicts = (
        Verdict(Claim(GROUNDED, 0, len(GROUNDED)), "supported", False, 0.1, "sure", meta={"stage": "verifier"}),
        Verdict(
            Claim(unsure, start, len(answer)),
            "supported",
            False,
            0.5,
            "in the band",
            meta={"stage": "verifier", "undecided": True},
        ),
    )
    det = Detection(answer, REF, None, "ce_cascade", False, 0.5, verdicts)
    mit = FigureRepairMitigator().mitigate(det)
    assert mit.revised == answer and not mit.edits
    (note,) = mit.notes
    assert note.startswith(f"answer[{start}:{len(answer)}] needs an LLM to decide") and "TPMS" in note
    # the same sentence decided outside the band is not named
    sure = (verdicts[0], Verdict(verdicts[1].claim, "supported", False, 0.1, "sure", meta={"stage": "verifier"}))
    assert FigureRepairMitigator().mitigate(Detection(answer, REF, None, "ce_cascade", False, 0.1, sure)).notes == ()
