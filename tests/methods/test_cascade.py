"""Control flow of the cascade method with a scripted LLM: the gate decides without a call,
the judge gets the evidence first and decides by (calibrated) label probability, short
references are given whole, long ones as top-k sentences, and the config round-trips."""

from __future__ import annotations

import pytest

import hallucheck
from hallucheck.errors import ConfigError
from hallucheck.llm import FakeLLM
from hallucheck.methods.cascade import cascade
from hallucheck.pipeline import Pipeline

REF = "Inflate the front tyres to 2.4 bar. The rear tyres take 2.2 bar. Check the pressure when the tyres are cold."
NULL = {"Entailment": -1.2, "Neutral": -1.2, "Contradiction": -0.9}  # the content-free call (calibration)


def scores(first, *rows):
    # the content-free calibration call comes right after the first judge call
    return [first, NULL, *rows]


@pytest.fixture(autouse=True)
def _no_spacy(bow_embedder):
    return bow_embedder


def method(llm, **kw):
    kw.setdefault("gate", "numbers")  # the tests run without spaCy
    return hallucheck.load_method("cascade", llm=llm, **kw)


def test_gate_flags_a_missing_number_without_an_llm_call():
    llm = FakeLLM(label_scores=scores({"Entailment": -0.1, "Neutral": -3.0, "Contradiction": -3.0}))
    det = method(llm).run("Inflate the front tyres to 3.0 bar. Check the pressure when the tyres are cold.", REF)
    gated, judged = det.verdicts
    assert gated.hallucinated and gated.meta["stage"] == "gate" and gated.score == 1.0
    assert "'3.0 bar'" in gated.reason and "'2.4 bar'" in gated.reason  # the value it contradicts
    assert judged.meta["stage"] == "judge" and judged.hallucinated is False
    # one judge call, for the second sentence only, + the content-free calibration call
    assert len(llm.requests) == 2
    prompt = llm.requests[0].messages[-1].content
    assert prompt.index(REF) < prompt.index("Claim: Check the pressure")  # evidence first, whole short reference
    assert det.hallucinated is True


def test_judge_decides_by_calibrated_probability():
    # raw argmax is Contradiction, but the content-free input gives it as much: calibrated, Entailment wins
    llm = FakeLLM(label_scores=scores({"Entailment": -1.0, "Neutral": -1.5, "Contradiction": -0.8}))
    v = method(llm).run("Check the pressure when the tyres are cold.", REF).verdicts[0]
    assert v.meta["calibrated"] and v.meta["raw_probs"]["Contradiction"] > v.meta["raw_probs"]["Entailment"]
    assert v.meta["nli_label"] == "Entailment" and v.hallucinated is False
    llm = FakeLLM(label_scores=scores({"Entailment": -3.0, "Neutral": -0.2, "Contradiction": -2.5}))
    v = method(llm).run("Check the pressure when the tyres are cold.", REF).verdicts[0]
    assert v.label == "unverifiable" and v.hallucinated is True and v.score > 0.5  # ungrounded: Neutral is flagged
    llm = FakeLLM(label_scores=scores({"Entailment": -3.0, "Neutral": -0.2, "Contradiction": -2.5}))
    v = method(llm, flag_on="contradiction").run("Check the pressure when the tyres are cold.", REF).verdicts[0]
    assert v.hallucinated is False


def test_long_reference_gives_top_k_sentences_in_reference_order():
    long_ref = " ".join(f"Fact number {w} is about item {w}." for w in ("one", "two", "three", "four", "five", "six"))
    llm = FakeLLM(label_scores=scores({"Entailment": -0.1, "Neutral": -3.0, "Contradiction": -3.0}))
    v = method(llm, k=2, gate="none").run("Item five is about fact five.", long_ref).verdicts[0]
    assert len(v.evidence) == 2 and v.evidence[0].start < v.evidence[1].start
    assert any("five" in e.text for e in v.evidence)
    for e in v.evidence:
        assert long_ref[e.start : e.end] == e.text


def test_judge_error_is_an_error_verdict_and_no_llm_is_a_clear_error():
    llm = FakeLLM(["no idea"] * 4)  # no log-probabilities; replies name no label, even after the repair
    det = method(llm).run("Check the pressure when the tyres are cold.", REF)
    assert det.verdicts[0].status == "error" and det.hallucinated is None and det.verdicts[0].raw
    with pytest.raises(ConfigError, match="needs an LLM"):
        cascade(gate="numbers").run("Check the pressure when the tyres are cold.", REF)
    with pytest.raises(ConfigError, match="'gate'"):
        cascade(gate="names")


def test_config_round_trips():
    p = method(FakeLLM(), k=3, threshold=0.7)
    q = Pipeline.from_dict(p.to_dict(), llm=FakeLLM())
    assert q.to_dict() == p.to_dict() and q.verifier.threshold == 0.7 and q.retriever.k == 3


def test_question_goes_to_the_judge_and_calibration_is_per_prompt():
    llm = FakeLLM(label_scores=scores({"Entailment": -0.1, "Neutral": -3.0, "Contradiction": -3.0}))
    det = method(llm).run("2.4 bar", REF, question="What pressure do the front tyres take?")
    assert det.hallucinated is False
    judged, null = llm.requests
    text = judged.messages[-1].content
    assert "Question: What pressure do the front tyres take?\nAnswer: 2.4 bar" in text and text.index(REF) < text.index(
        "Question:"
    )
    assert "Question: N/A\nAnswer: N/A" in null.messages[-1].content  # the content-free input of the QA prompt
    llm = FakeLLM(label_scores=scores({"Entailment": -0.1, "Neutral": -3.0, "Contradiction": -3.0}))
    method(llm, qa_prompt=None).run("2.4 bar", REF, question="What pressure?")
    assert "Question:" not in llm.requests[0].messages[-1].content


def test_thresholds_per_task_and_gated_scores_stay_above_the_decision_point():
    # calibrated P(not entailed) = 0.6 for both judged claims below (the null call is uniform)
    uniform = {"Entailment": -1.1, "Neutral": -1.1, "Contradiction": -1.1}
    judged = {"Entailment": -0.916, "Neutral": -1.204, "Contradiction": -1.204}  # 0.4 / 0.3 / 0.3
    claim = "Check the pressure when the tyres are cold."
    for threshold, flagged in ((0.5, True), (0.7, False)):
        llm = FakeLLM(label_scores=[judged, uniform])
        v = method(llm, threshold=threshold, qa_threshold=0.99).run(claim, REF).verdicts[0]
        # the judge's own score; the verdict's is on the decision scale (above 0.5 exactly when flagged)
        assert v.meta.get("raw_score", v.score) == pytest.approx(0.6, abs=1e-3) and v.hallucinated is flagged
        assert (v.score > 0.5) is flagged
        assert f"0.60 is {'above' if flagged else 'not above'} the threshold {threshold:g}" in v.reason
    # with a question, qa_threshold decides instead (for a short answer; a sentence restating the
    # reference is a claim whatever was asked, and the summary threshold decides)
    llm = FakeLLM(label_scores=[judged, uniform])
    v = method(llm, threshold=0.99, qa_threshold=0.5).run("When cold.", REF, question="When do I check?").verdicts[0]
    assert v.hallucinated is True and v.score > 0.5
    llm = FakeLLM(label_scores=[judged, uniform])
    v = method(llm, threshold=0.99, qa_threshold=0.5).run(claim, REF, question="When do I check?").verdicts[0]
    assert v.hallucinated is False and v.meta.get("raw_score", v.score) == pytest.approx(0.6, abs=1e-3)
    # one of two numbers missing: share 0.5, scored halfway between the decision point and 1
    det = method(FakeLLM(), threshold=0.8).run("The front tyres take 2.4 bar and the rear 3.1 bar.", REF)
    gated = det.verdicts[0]
    assert gated.meta["stage"] == "gate" and gated.score == pytest.approx(0.9) and det.score > 0.8
    det = method(FakeLLM(), threshold=None).run("The front tyres take 2.4 bar and the rear 3.1 bar.", REF)
    assert det.verdicts[0].score == pytest.approx(0.75)


def test_judge_that_always_says_contradiction_is_degenerate_not_grounded():
    # issue 11 item 4: a judge that answers Contradiction whatever it is shown; noise in the two unlikely
    # labels made calibration pick Entailment and the answer came back grounded
    always = {"Entailment": -3.9, "Neutral": -4.6, "Contradiction": -0.035}
    prior = {"Entailment": -4.6, "Neutral": -4.6, "Contradiction": -0.02}
    llm = FakeLLM(label_scores=[always, prior])
    det = method(llm).run("Check the pressure when the tyres are cold.", REF)
    v = det.verdicts[0]
    assert v.status == "error" and "Degenerate calibration" in v.reason and v.meta["degenerate_calibration"]
    assert det.hallucinated is None
    # the same claim without calibration is judged on the raw labels (Contradiction)
    assert (
        method(FakeLLM(label_scores=[always]), calibrate=False)
        .run("Check the pressure when the tyres are cold.", REF)
        .hallucinated
        is True
    )
