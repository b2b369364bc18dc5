"""Golden control-flow tests of the HSP method (paper 000) with a scripted LLM, a bag-of-words embedder
and a regex NER: which calls are made, what is flagged, what the mitigator replaces, and how
unparseable replies are reported. The piece stages' own tests are in tests/stages/test_hsp_pieces.py."""

from __future__ import annotations

import pytest

import hallucheck
from _scripted.hsp import DECOMP, REF, fake_ner, hypothesis_of, input_of, make_llm, requests_of
from hallucheck.errors import ConfigError
from hallucheck.llm import FakeLLM
from hallucheck.pipeline import Pipeline
from hallucheck.stages.piece_repair import PieceRepairMitigator


@pytest.fixture(autouse=True)
def _fakes(monkeypatch, bow_embedder):
    from hallucheck.models import ner

    monkeypatch.setattr(ner, "extract_entities", fake_ner)


def nli_requests(llm):
    """NLI requests, without the content-free one of calibration."""
    return [
        r
        for r in llm.requests
        if "[Hypothesis]" in r.messages[-1].content and not r.messages[-1].content.endswith("N/A")
    ]


# -- detection --------------------------------------------------------------------------------
def test_exact_entity_match_is_entailment_without_an_llm_call():
    llm = make_llm()
    det = hallucheck.detect("Python was developed in 1991.", REF, method="hsp", llm=llm, levels="ent")
    assert llm.requests == []  # no decomposition (entity level only) and no NLI (exact match)
    (v,) = det.verdicts
    assert v.label == "supported" and v.hallucinated is False and v.score == 0.0 and v.meta["exact_match"]
    assert (
        v.evidence[0].meta["exact_match"]
        and REF[v.evidence[0].start : v.evidence[0].end] == "Guido van Rossum developed Python in 1991."
    )
    assert det.hallucinated is False


def test_hierarchical_detection_calls_nli_only_for_pieces_without_exact_match():
    llm = make_llm()
    det = hallucheck.detect("Python was developed in 1991.", REF, method="hsp", llm=llm)
    kinds = [v.claim.kind for v in det.verdicts]
    assert kinds == ["piece", "entity"]
    assert len(nli_requests(llm)) == 1  # the sentence piece; the entity (1991) matched exactly
    assert det.verdicts[1].meta["exact_match"] and det.hallucinated is False


def test_contradiction_flags_and_is_scored_by_its_probability():
    nli = {"Python was developed in 1989.": {"Entailment": -3.0, "Neutral": -2.0, "Contradiction": -0.2}}
    det = hallucheck.detect("Python was developed in 1989.", REF, method="hsp", llm=make_llm(nli), levels="sent")
    (v,) = det.verdicts
    assert v.label == "contradicted" and v.hallucinated is True
    assert 0.5 < v.score < 1.0 and v.score == pytest.approx(v.meta["probs"]["Contradiction"])
    assert det.hallucinated is True and det.score == v.score
    assert len(v.evidence) == 3 and v.evidence[0].text == "Python was developed in 1991."


def test_neutral_flags_only_in_ungrounded_mode():
    nli = {"Python is popular.": {"Entailment": -3.0, "Neutral": -0.1, "Contradiction": -2.5}}
    strict = hallucheck.detect("Python is popular.", REF, method="hsp", llm=make_llm(nli), levels="sent")
    (v,) = strict.verdicts
    assert (
        v.label == "unverifiable"
        and v.hallucinated is False
        and v.score == pytest.approx(v.meta["probs"]["Contradiction"])
    )
    assert strict.hallucinated is False
    llm = make_llm(nli)
    loose = hallucheck.detect("Python is popular.", REF, method="hsp", llm=llm, levels="sent", flag_on="ungrounded")
    (w,) = loose.verdicts
    probs = w.meta["probs"]
    assert (
        w.hallucinated is True and w.score == pytest.approx(probs["Contradiction"] + probs["Neutral"]) and w.score > 0.9
    )
    # the ungrounded mode uses the A.2 prompt with Neutral named as an output
    assert '"Contradiction", "Entailment" or "Neutral"' in nli_requests(llm)[0].messages[0].content


def test_nli_prompt_is_the_papers_with_evidence_before_the_claim():
    llm = make_llm()
    hallucheck.detect("Python is popular.", REF, method="hsp", llm=llm, levels="sent")
    content = nli_requests(llm)[0].messages[0].content
    assert content.startswith("Determine the relation between the premise and hypothesis.")
    assert 'Output only "Contradiction", "Entailment" to indicate' in content
    assert content.index("[Premise]") < content.index("[Hypothesis]\nPython is popular.")
    assert content.count("\n- ") == 3  # k = 3 evidence pieces


def test_calibration_divides_out_the_label_prior_once_per_run():
    prior = {"Entailment": -4.0, "Neutral": -1.6, "Contradiction": -0.3}  # a model that says Contradiction to anything
    same = {"Entailment": -2.0, "Neutral": -3.0, "Contradiction": -0.2}  # ... even to a copied hypothesis

    def scores(messages, labels):
        return prior if hypothesis_of(messages) == "N/A" else same

    def reply(request):
        return DECOMP[input_of(request)]

    llm = FakeLLM(reply, label_scores=scores)
    method = hallucheck.load_method("hsp", llm=llm, levels="sent")
    det = method.run("Python was developed in 1991.", REF)
    (v,) = det.verdicts
    assert v.meta["raw_probs"]["Contradiction"] > 0.8 and v.meta["calibrated"]
    assert v.label == "supported" and v.hallucinated is False and v.meta["probs"]["Entailment"] > 0.5
    method.run("Python is popular.", REF)
    assert sum(1 for r in llm.requests if r.messages[-1].content.endswith("[Hypothesis]\nN/A")) == 1
    raw = hallucheck.load_method("hsp", llm=FakeLLM(reply, label_scores=scores), levels="sent", calibrate=False)
    assert raw.run("Python was developed in 1991.", REF).hallucinated is True  # the paper's raw decision


def test_k_and_threshold():
    nli = {"Python is popular.": {"Entailment": -0.5, "Neutral": -3.0, "Contradiction": -1.2}}
    det = hallucheck.detect("Python is popular.", REF, method="hsp", llm=make_llm(nli), levels="sent", k=1)
    (v,) = det.verdicts
    assert len(v.evidence) == 1 and v.hallucinated is False and 0.25 < v.score < 0.5
    det = hallucheck.detect("Python is popular.", REF, method="hsp", llm=make_llm(nli), levels="sent", threshold=0.2)
    assert det.verdicts[0].hallucinated is True


def test_reference_is_decomposed_once_across_claims_and_runs():
    llm = make_llm()
    method = hallucheck.load_method("hsp", llm=llm, levels="sent")
    method.run("Python was developed in 1991. Python is popular.", REF)
    method.run("Python is popular.", REF)
    inputs = [input_of(r) for r in requests_of(llm, "hsp_decompose")]
    for sentence in ("Guido van Rossum developed Python in 1991.", "Python was publicly released in 1994."):
        assert inputs.count(sentence) == 1
    assert inputs.count("Python is popular.") == 1  # answer sentences are cached too


def test_usage_is_counted_per_detection():
    llm = make_llm()
    det = hallucheck.detect("Python is popular.", REF, method="hsp", llm=llm, levels="sent")
    # 3 reference sentences, 1 answer sentence, 1 NLI, 1 content-free NLI for calibration (once per run)
    assert det.usage.calls == len(llm.requests) == 3 + 1 + 1 + 1
    assert det.usage.prompt_tokens > 0


# -- failures ---------------------------------------------------------------------------------
def test_unparseable_answer_decomposition_is_an_error_verdict_with_raw():
    llm = make_llm(
        decomp={"Python is popular.": lambda r: "" if r.prompt == "hsp_decompose.v1" else "Here are the facts:"}
    )
    det = hallucheck.detect("Python is popular.", REF, method="hsp", llm=llm, levels="sent")
    (v,) = det.verdicts
    assert v.status == "error" and v.hallucinated is None and v.score is None
    assert "Here are the facts:" in v.raw and "could not be extracted" in v.reason
    assert det.hallucinated is None
    # the repair prompt was tried once after the first reply
    assert [r.prompt for r in requests_of(llm, "hsp_decompose") if input_of(r) == "Python is popular."] == [
        "hsp_decompose.v1",
        "hsp_decompose_fewshot.v1",
    ]


def test_repair_prompt_recovers_a_failed_decomposition():
    llm = make_llm(
        decomp={"Python is popular.": lambda r: "" if r.prompt == "hsp_decompose.v1" else "Python is popular."}
    )
    det = hallucheck.detect("Python is popular.", REF, method="hsp", llm=llm, levels="sent")
    assert det.verdicts[0].status == "ok"


def test_unparseable_nli_reply_is_an_error_verdict_with_raw():
    def reply(request):
        if request.prompt.startswith("hsp_decompose"):
            return DECOMP[input_of(request)]
        return "I am not sure about this one."

    det = hallucheck.detect("Python is popular.", REF, method="hsp", llm=FakeLLM(reply), levels="sent")
    (v,) = det.verdicts
    assert v.status == "error" and "I am not sure" in v.raw and "NLI failed" in v.reason and det.hallucinated is None


def test_text_nli_replies_without_logprobs_give_hard_scores():
    def reply(request):
        if request.prompt.startswith("hsp_decompose"):
            return DECOMP[input_of(request)]
        return "Contradiction"

    det = hallucheck.detect("Python was developed in 1989.", REF, method="hsp", llm=FakeLLM(reply), levels="sent")
    assert (
        det.verdicts[0].hallucinated is True
        and det.verdicts[0].score == 1.0
        and det.verdicts[0].meta["scored"] is False
    )


# -- mitigation -------------------------------------------------------------------------------
REPAIR_OK = (
    "[Reason]\nThe reference says 1991.\n[Correct Sentence]\nPython was developed in 1991.\n"
    "[Final Sentence]\nPython was developed in 1991."
)


def test_mitigation_replaces_exactly_the_flagged_sentence():
    answer = "Guido van Rossum developed Python in 1991. Python was developed in 1989.  It is named after Monty Python's Flying Circus."
    nli = {"Python was developed in 1989.": "Contradiction"}
    llm = make_llm(nli, repair=lambda r: REPAIR_OK)
    method = hallucheck.load_method("hsp", llm=llm, levels="sent")
    mit = method.mitigate(answer, REF)
    assert mit.before.hallucinated is True
    (edit,) = mit.edits  # the sentence's repair, cut down to the words it changes
    assert answer[edit.start : edit.end] == "1989" and answer[: edit.start].endswith("Python was developed in ")
    assert edit.replacement == "1991" and "The reference says 1991." in edit.reason
    assert mit.revised == answer.replace("1989", "1991")
    assert mit.after is not None and mit.after.hallucinated is False
    (repair,) = requests_of(llm, "hsp_repair")
    content = repair.messages[0].content
    assert content.startswith("You are a professional editor.")
    assert content.index("[Reference Text]\n- Python was developed in 1991.") < content.index(
        "[Sentence to Fix]\nPython was developed in 1989."
    )


def test_locate_source_repairs_the_sentence_the_piece_came_from():
    from hallucheck.text import split_sentences

    answer = "Python runs on Mars. Python was developed in 1989."
    llm = make_llm(
        {"Python was developed in 1989.": "Contradiction"},
        repair=lambda r: "[Final Sentence]\nPython was developed in 1991.",
    )
    mit = hallucheck.load_method("hsp", llm=llm, levels="sent", locate="source").mitigate(answer, REF)
    (edit,) = mit.edits
    assert (
        answer[edit.start : edit.end] == "1989" and edit.start > answer.index(". ") and mit.revised.endswith("in 1991.")
    )
    spans = split_sentences(answer)
    flagged = mit.before.flagged[0]
    assert PieceRepairMitigator(locate="source").find_sentence(flagged, [s.text for s in spans], spans) == 1
    with pytest.raises(ConfigError, match="'locate' parameter"):
        PieceRepairMitigator(locate="offsets")


def test_unflagged_answer_is_unchanged_and_nothing_is_repaired():
    llm = make_llm(repair=lambda r: pytest.fail("repair must not be called"))
    answer = "Python was developed in 1991."
    mit = hallucheck.load_method("hsp", llm=llm).mitigate(answer, REF)
    assert mit.revised == answer and mit.edits == () and not mit.changed
    direct = PieceRepairMitigator(llm=llm).mitigate(mit.before)
    assert direct.revised == answer and direct.edits == ()


def test_unparseable_repair_is_recorded_and_the_sentence_kept():
    answer = "Python was developed in 1989. Python is popular."
    llm = make_llm({"Python was developed in 1989.": "Contradiction"}, repair=lambda r: "I would change the year.")
    mit = hallucheck.load_method("hsp", llm=llm, levels="sent").mitigate(answer, REF)
    assert mit.revised == answer and not mit.changed and mit.edits == ()
    (note,) = mit.notes
    assert note.startswith("answer[0:29] not repaired:") and "I would change the year." in note
    assert "[Final Sentence]" in note


def test_several_pieces_of_one_sentence_are_repaired_in_turn():
    answer = "Python was developed by Guido van Rossum. It runs on Mars."
    nli = {"Python runs on Mars.": "Contradiction", "It runs on [Mars": "Contradiction"}
    fixes = iter(["[Final Sentence]\nIt runs on Earth.", "[Final Sentence]\nIt runs on computers."])
    llm = make_llm(nli, repair=lambda r: next(fixes))
    mit = hallucheck.load_method("hsp", llm=llm).mitigate(answer, REF + " Python runs on computers.")
    assert len(mit.before.flagged) == 2
    (edit,) = mit.edits
    assert answer[edit.start : edit.end] == "Mars" and edit.replacement == "computers"
    second = requests_of(llm, "hsp_repair")[1].messages[0].content
    assert "[Sentence to Fix]\nIt runs on Earth." in second  # the second fix starts from the first
    assert mit.revised == "Python was developed by Guido van Rossum. It runs on computers."


def test_editor_answer_correct_changes_nothing():
    llm = make_llm(
        {"Python was developed in 1989.": "Contradiction"},
        repair=lambda r: (
            "[Reason]\nCorrect\n[Correct Sentence]\nPython was developed in 1989.\n[Final Sentence]\nCorrect"
        ),
    )
    mit = hallucheck.load_method("hsp", llm=llm, levels="sent").mitigate("Python was developed in 1989.", REF)
    assert mit.revised == mit.original and mit.edits == ()


# -- configuration ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "params, message",
    [
        (
            {"levels": "sentence"},
            "'levels' parameter of HierarchicalPieceExtractor must be one of sent, ent, sent\\+ent",
        ),
        ({"matcher": "rerank"}, "'matcher' parameter of PieceRetriever must be one of embedding, fuzzy, bm25"),
        ({"flag_on": "neutral"}, "'flag_on' parameter of LLMNLIVerifier must be one of contradiction, ungrounded"),
        ({"k": 0}, "'k' parameter of PieceRetriever must be a positive integer"),
        ({"entity_types": ["Money"]}, "'entity_types' parameter"),
        ({"threshold": 2.0}, "'threshold' parameter of LLMNLIVerifier must be a number in \\[0, 1\\]"),
    ],
)
def test_bad_parameters_are_named(params, message):
    with pytest.raises(ConfigError, match=message):
        hallucheck.load_method("hsp", llm=FakeLLM(), **params)


def test_config_round_trip_keeps_the_ablation_settings():
    method = hallucheck.load_method("hsp", llm=FakeLLM(), k=4, levels="sent", matcher="bm25", flag_on="ungrounded")
    again = Pipeline.from_dict(method.to_dict(), llm=FakeLLM())
    assert again.to_dict() == method.to_dict()
    assert again.retriever.k == 4 and again.retriever.matcher == "bm25" and again.retriever.extractor.levels == "sent"
    assert again.verifier.prompt_name == "hsp_nli_3way.v1" and isinstance(again.mitigator, PieceRepairMitigator)


def test_no_llm_is_a_clear_error():
    with pytest.raises(ConfigError, match="needs an LLM"):
        hallucheck.load_method("hsp", llm=FakeLLM()).extractor.__class__(llm=None).extract("Python is popular.")
