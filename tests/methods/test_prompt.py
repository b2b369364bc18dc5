"""The HSP paper's prompt baselines (Appendix A.4 detection, A.5 mitigation) with a scripted LLM."""

from __future__ import annotations

import pytest

import hallucheck
from hallucheck.llm import FakeLLM
from hallucheck.pipeline import Pipeline

REF = "Guido van Rossum developed Python in 1991. Python was publicly released in 1994."
ANSWER = "Python was created by Guido van Rossum and first released in 1989."


UNIFORM = {"Entailment": -1.0, "Neutral": -1.0, "Contradiction": -1.0}


def scores(label_logprobs):
    """Scripted label scores; the content-free calibration input gets no prior."""
    return FakeLLM(
        label_scores=lambda messages, labels: UNIFORM if messages[-1].content.endswith("N/A") else label_logprobs
    )


def test_one_call_on_the_whole_answer_scored_by_log_probability():
    llm = scores({"Entailment": -2.0, "Neutral": -1.5, "Contradiction": -0.4})
    det = hallucheck.detect("  " + ANSWER, REF, method="prompt", llm=llm)
    (v,) = det.verdicts
    assert len(llm.requests) == det.usage.calls == 2  # the answer, and the content-free input once per run
    assert llm.requests[1].messages[0].content.endswith("[Hypothesis]\nN/A")
    assert v.claim.text == ANSWER and ("  " + ANSWER)[v.claim.start : v.claim.end] == ANSWER
    assert v.evidence[0].text == REF
    assert v.hallucinated is True and det.hallucinated is True
    assert v.score == pytest.approx(v.meta["probs"]["Contradiction"]) and 0.5 < v.score < 0.9
    content = llm.requests[0].messages[0].content
    assert content.startswith("Give the following premise and hypothesis, determine the relationship between them")
    assert "Relationship: Contradiction" in content  # the few-shot examples
    assert content.index(f"[Premise]\n{REF}") < content.index(f"[Hypothesis]\n{ANSWER}")


def test_label_is_read_after_the_relationship_prefix(monkeypatch):
    from hallucheck.llm.fake import FakeLLM as Fake

    seen = []
    original = Fake._score_labels

    def spy(self, messages, labels, prefix):
        seen.append(prefix)
        return original(self, messages, labels, prefix)

    monkeypatch.setattr(Fake, "_score_labels", spy)
    hallucheck.detect(
        ANSWER, REF, method="prompt", llm=scores({"Entailment": -0.1, "Neutral": -3.0, "Contradiction": -3.0})
    )
    assert seen == ["Relationship: ", "Relationship: "]


def test_uncalibrated_is_one_call():
    llm = FakeLLM(label_scores=[{"Entailment": -2.0, "Neutral": -1.5, "Contradiction": -0.4}])
    det = hallucheck.detect(ANSWER, REF, method="prompt", llm=llm, calibrate=False)
    assert len(llm.requests) == det.usage.calls == 1 and det.hallucinated is True


def test_neutral_flags_only_in_ungrounded_mode():
    probs = {"Entailment": -2.0, "Neutral": -0.2, "Contradiction": -2.5}
    strict = hallucheck.detect(ANSWER, REF, method="prompt", llm=scores(probs))
    assert strict.hallucinated is False and strict.verdicts[0].label == "unverifiable"
    loose = hallucheck.detect(ANSWER, REF, method="prompt", llm=scores(probs), flag_on="ungrounded")
    v = loose.verdicts[0]
    assert loose.hallucinated is True and v.score == pytest.approx(
        v.meta["probs"]["Neutral"] + v.meta["probs"]["Contradiction"]
    )


def test_text_reply_without_logprobs():
    det = hallucheck.detect(ANSWER, REF, method="prompt", llm=FakeLLM(["Relationship: Contradiction"]))
    assert det.hallucinated is True and det.score == 1.0
    det = hallucheck.detect(ANSWER, REF, method="prompt", llm=FakeLLM(["hmm", "no idea"]))
    assert det.hallucinated is None and det.verdicts[0].status == "error" and "hmm" in det.verdicts[0].raw


def test_mitigation_rewrites_the_flagged_answer():
    fixed = "Python was created by Guido van Rossum and first released in 1994."
    llm = FakeLLM(
        [f"[Final Sentence]\n{fixed}"],
        label_scores=[
            {"Entailment": -3.0, "Neutral": -3.0, "Contradiction": -0.1},
            UNIFORM,
            {"Entailment": -0.1, "Neutral": -3.0, "Contradiction": -3.0},
        ],
    )
    mit = hallucheck.load_method("prompt", llm=llm).mitigate(ANSWER, REF)
    assert mit.revised == fixed and mit.after.hallucinated is False
    (edit,) = mit.edits  # the whole-answer rewrite, cut down to the words it changes
    assert (ANSWER[edit.start : edit.end], edit.replacement) == ("1989", "1994")
    repair = [r for r in llm.requests if "[Sentence to Fix]" in r.messages[0].content][0].messages[0].content
    assert repair.startswith(
        "You are a professional editor. Here is a sentence may have issues. Please directly correct the sentence."
    )
    assert repair.index(f"[Reference Text]\n{REF}") < repair.index(f"[Sentence to Fix]\n{ANSWER}")


def test_unflagged_answer_is_not_rewritten():
    llm = FakeLLM(label_scores=[{"Entailment": -0.1, "Neutral": -3.0, "Contradiction": -3.0}, UNIFORM])
    mit = hallucheck.load_method("prompt", llm=llm).mitigate(ANSWER, REF)
    assert mit.revised == ANSWER and mit.edits == () and len(llm.requests) == 2


def test_unparseable_rewrite_is_recorded_with_raw():
    llm = FakeLLM(
        ["Sorry, I cannot help."],
        label_scores=[
            {"Entailment": -3.0, "Neutral": -3.0, "Contradiction": -0.1},
            UNIFORM,
            {"Entailment": -3.0, "Neutral": -3.0, "Contradiction": -0.1},
        ],
    )
    mit = hallucheck.load_method("prompt", llm=llm).mitigate(ANSWER, REF)
    assert mit.revised == ANSWER and mit.edits == ()
    (note,) = mit.notes
    assert note.startswith("not repaired:") and "Sorry, I cannot help." in note


def test_registered_and_round_trips():
    assert "prompt" in dict(hallucheck.list_methods())
    method = hallucheck.load_method("prompt", llm=FakeLLM(), flag_on="ungrounded")
    again = Pipeline.from_dict(method.to_dict(), llm=FakeLLM())
    assert again.to_dict() == method.to_dict() and again.verifier.flag_on == "ungrounded"
