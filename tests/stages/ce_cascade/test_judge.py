"""The judge step and the decision made with it: the judge's score put on the task's scale, mixed
with the combination's by the task's judge weight; and, with a scripted LLM, the decisions of the
judge path pinned to the ones the default made before it was split into steps (scores to 1e-9, labels,
stages and reasons)."""

from __future__ import annotations

import math
import re

import pytest

from hallucheck.errors import BackendError
from hallucheck.llm import FakeLLM
from hallucheck.stages.ce_cascade import CECascadeVerifier, CECascadeVerifierV1, to_scale
from hallucheck.stages.ce_cascade.decision import final_score
from hallucheck.types import Claim, Evidence

from .conftest import REF


def test_to_scale_moves_the_source_point_onto_the_target_and_keeps_the_ends():
    assert to_scale(0.82, 0.82, 0.45) == pytest.approx(0.45)
    assert to_scale(0.0, 0.82, 0.45) == 0.0 and to_scale(1.0, 0.82, 0.45) == pytest.approx(1.0)
    xs = [i / 20 for i in range(21)]
    ys = [to_scale(x, 0.82, 0.45) for x in xs]
    assert ys == sorted(ys) and to_scale(0.3, 0.45, 0.45) == 0.3


def test_the_final_score_mixes_by_the_judge_weight():
    assert final_score(0.2, 0.6, 0.5) == pytest.approx(0.4)
    assert final_score(0.2, 0.6, 1.0) == 0.6 and final_score(0.2, 0.6, 0.0) == 0.2


def test_the_judge_score_is_put_on_the_combination_scale_before_the_mean(cascade, bow_embedder):
    """The judge says P(not entailed) 0.6: below its own threshold (0.82), so it must not flag a claim
    the verifier scores just above the task threshold. Averaged raw, 0.6 would pull the mean up."""
    lp = {"Entailment": math.log(0.4), "Neutral": math.log(0.3), "Contradiction": math.log(0.3)}
    claim = Claim("The rear tyres take air.", 0, 24)
    ev = [[Evidence(REF, 0, len(REF))]]
    (out,) = cascade(FakeLLM(label_scores=[lp]), {claim.text: 0.55}, calibrate=False).verify([claim], ev, reference=REF)
    assert out.meta["stage"] == "judge" and out.meta["judge_score"] == pytest.approx(0.6)
    assert out.score == pytest.approx(0.5 * (0.55 + 0.5 * 0.6 / 0.82)) and out.hallucinated is False
    # a reason a person can read: in words first (who decided, what they found), the figures after
    assert out.reason.startswith(
        "The trained verifier is unsure of this sentence (its score is in the uncertainty band around the "
        "threshold), so the LLM judge was asked: it finds this sentence supported by the reference, and with the "
        "verifier's score taken into account the sentence is not flagged."
    )
    assert "Scores: judge 0.60 (its own threshold 0.82), final 0.46 (flagged above 0.50)" in out.reason
    # judge_threshold=None: no mapping, the raw mean (0.575) flags it
    v = cascade(FakeLLM(label_scores=[lp]), {claim.text: 0.55}, calibrate=False, judge_threshold=None)
    (raw,) = v.verify([claim], ev, reference=REF)
    assert raw.score == pytest.approx(0.575) and raw.hallucinated is True
    # a confident judge still flags a claim the verifier leans to call supported
    sure = {"Entailment": math.log(0.05), "Neutral": math.log(0.15), "Contradiction": math.log(0.8)}
    (hit,) = cascade(FakeLLM(label_scores=[sure]), {claim.text: 0.35}, calibrate=False).verify(
        [claim], ev, reference=REF
    )
    assert hit.hallucinated is True and hit.score == pytest.approx(0.5 * (0.35 + 0.5 + 0.5 * (0.95 - 0.82) / 0.18))


# -- the judge path, pinned ------------------------------------------------------------------------

# claim -> the P(not entailed) the scripted judge gives it (before calibration), or a failure
JUDGE = {
    "The rear tyres take air.": 0.95,
    "Berlin is a city in France.": 0.30,
    "The spare tyre takes air.": "down",
    "Paris": 0.90,
    "Lyon": 0.60,
}
QUESTION = "What is the capital of France?"


def _scripted_judge(messages, labels):
    text = messages[-1].content
    for claim, p in JUDGE.items():
        if f"Claim: {claim}" in text or f"Answer: {claim}" in text:
            if p == "down":
                raise BackendError("endpoint down")
            return {"Entailment": math.log(1 - p), "Neutral": math.log(p * 0.4), "Contradiction": math.log(p * 0.6)}
    return {"Entailment": math.log(0.5), "Neutral": math.log(0.2), "Contradiction": math.log(0.3)}  # content-free


def _shipped_combination():
    import copy

    from hallucheck.stages.ce_cascade import load_combination

    return copy.deepcopy(load_combination("embedded"))


def test_the_shipped_summary_policy_lets_a_confident_verifier_decide_and_the_judge_only_inside_the_band(
    fixed, bow_embedder
):
    """On summaries and RAG answers the judge is asked only inside the shipped band around the threshold
    (combine.json's band_width) and its score, on the task's scale, weighs by the shipped judge weight: a
    judge that flags everything cannot flag a sentence the verifier is sure of."""
    sure, unsure = "Check the tyres every month.", "The rear tyres take air."
    claims = [Claim(sure, 0, len(sure)), Claim(unsure, len(sure) + 1, len(sure) + 1 + len(unsure))]
    ev = [[Evidence(REF, 0, len(REF))] for _ in claims]
    llm = FakeLLM(label_scores=_scripted_judge)
    v = fixed(CECascadeVerifier(llm=llm, gate="numbers"), {sure: 0.02, unsure: 0.6})
    task = v.settings.summary
    shipped = _shipped_combination()["tasks"]["summary"]
    width, a = shipped["band_width"], shipped["judge_weight"]
    assert task.judge_weight == a and task.band == pytest.approx((task.threshold - width, task.threshold + width))
    first, second = v.verify(claims, ev, reference=REF)
    assert first.meta["stage"] == "verifier" and first.hallucinated is False  # the judge was not asked
    assert not any(f"Claim: {sure}" in r.messages[-1].content for r in llm.requests)
    assert second.meta["stage"] == "judge" and "uncertainty band" in second.reason
    p, j = second.meta["combined_score"], second.meta["judge_score"]
    assert task.band[0] <= p <= task.band[1]
    assert second.score == pytest.approx((1 - a) * p + a * to_scale(j, 0.82, task.threshold))
    assert second.hallucinated is (second.score > task.threshold)


def _pinned(verdicts):
    return [
        (v.claim.text, v.meta.get("stage"), v.label, v.hallucinated, v.score, v.meta.get("judge_score"))
        for v in verdicts
    ]


def test_the_judge_path_makes_the_decisions_it_made_before_the_split(fixed, bow_embedder):
    """The shipped combination and bands, a calibrated scripted judge: a summary's sentences (the judge
    decides each the gate and the copy rule leave; one judge call fails), QA answers inside and outside
    the band (mixed evenly with the judge on the task's scale; one where the judge's label and the mixed
    decision disagree), and a ce_cascade.v1 verifier (the raw mean in its narrower summary band). The
    figures are the ones the verifier gave before its steps were split into modules."""
    summary = [
        "The rear tyres take air.",
        "Berlin is a city in France.",
        "The spare tyre takes air.",
        "The front tyres take 5 bar.",
        "Check the pressure when the tyres are cold.",
    ]
    claims = [Claim(s, 0, len(s)) for s in summary]
    ev = [[Evidence(REF, 0, len(REF))] for _ in claims]
    # the summary policy of that time (the judge decided every sentence); the shipped one is tested below
    judge_decides = _shipped_combination()
    judge_decides["tasks"]["summary"].update(band_width=1.0, judge_weight=1.0)
    v = fixed(
        CECascadeVerifier(llm=FakeLLM(label_scores=_scripted_judge), gate="numbers", combine=judge_decides),
        dict.fromkeys(summary, 0.4),
    )
    out = v.verify(claims, ev, reference=REF)
    for answer, score in (("Paris", 0.3), ("Lyon", 0.05), ("Paris", 0.99)):
        qa = fixed(
            CECascadeVerifier(llm=FakeLLM(label_scores=_scripted_judge), gate="numbers"),
            {f"{QUESTION} {answer}": score},
        )
        out += qa.verify([Claim(answer, 0, len(answer))], ev[:1], reference=REF, question=QUESTION)
    v1 = fixed(CECascadeVerifierV1(llm=FakeLLM(label_scores=_scripted_judge), gate="numbers"), {summary[0]: 0.8})
    out += v1.verify(claims[:1], ev[:1], reference=REF)

    expected = [
        ("The rear tyres take air.", "judge", "contradicted", True, 0.9487179487179489, 0.9743589743589745),
        ("Berlin is a city in France.", "judge", "supported", False, 0.3602251407129457, 0.4615384615384616),
        ("The spare tyre takes air.", "judge", None, None, None, None),
        ("The front tyres take 5 bar.", "gate", "contradicted", True, 1.0, None),
        ("Check the pressure when the tyres are cold.", "copy", "supported", False, 0.2508700438935152, None),
        ("Paris", "judge", "contradicted", True, 0.4317781712058118, 0.9473684210526316),
        ("Lyon", "judge", "supported", False, 0.2094897361081695, 0.75),
        ("Paris", "verifier", "unverifiable", True, 0.9000845683479918, None),
        ("The rear tyres take air.", "judge", "contradicted", True, 0.8168012245979661, 0.9743589743589745),
    ]
    got = _pinned(out)
    assert [g[:4] for g in got] == [e[:4] for e in expected]
    for g, e in zip(got, expected):
        for a, b in zip(g[4:], e[4:]):
            assert (a is None and b is None) or a == pytest.approx(b, abs=1e-9), (g, e)
    # in words first, the figures after (rounded)
    assert out[0].reason == (
        "The LLM judge decides summaries and claims: it finds no support for this sentence in the reference, so "
        "the sentence is flagged. The judge's reply: Contradiction (Entailment 0.03, Neutral 0.49, Contradiction "
        "0.49). Scores: judge 0.97 (its own threshold 0.82), final 0.95 (flagged above 0.64); combined score 0.38: "
        "verifier 0.40, overlap with the closest reference sentence 0.00, missing facts 0.00."
    )
    assert out[2].status == "error" and out[2].reason == (
        "Could not verify: the trained verifier is unsure of this sentence and the LLM judge that should settle it "
        "failed (NLI failed: LLM backend failed: endpoint down). Rerun when the LLM is back, or with --llm none to "
        "take the verifier's decision (combined score 0.38: verifier 0.40, overlap with the closest reference "
        "sentence 0.00, missing facts 0.00; uncertainty band [0.00, 1.00])."
    )
    assert out[6].reason == (
        "The trained verifier is unsure of this sentence (its score is in the uncertainty band around the "
        "threshold), so the LLM judge was asked: it finds this sentence supported by the reference, and with the "
        "verifier's score taken into account the sentence is not flagged. The judge's reply: Contradiction "
        "(Entailment 0.25, Neutral 0.37, Contradiction 0.38). Scores: judge 0.75 (its own threshold 0.82), final "
        "0.21 (flagged above 0.22); uncertainty band [0.02, 0.42]; combined score 0.22: verifier 0.05, overlap "
        "with the closest reference sentence 0.00, missing facts 0.00."
    )
    assert out[8].reason.startswith(
        "The trained verifier is unsure of this sentence (its score is in the uncertainty band around the "
        "threshold), so the LLM judge was asked: it finds no support for this sentence in the reference, and "
        "with the verifier's score taken into account the sentence is flagged."
    )
    assert "Scores: judge 0.97 (its own threshold 0.64), final 0.82 (flagged above 0.64)" in out[8].reason
    assert all(not re.match(r"\W*[\d.]", v.reason) for v in out)  # no reason opens with a figure
    # the meta keys a user reads, unchanged
    assert set(out[5].meta) >= {"verifier_score", "overlap", "missing_share", "combined_score", "stage", "judge_score"}
