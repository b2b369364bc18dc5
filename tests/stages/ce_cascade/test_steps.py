"""The default method's verifier step by step: which step decides each claim (gate, copy, verifier,
judge), that the judge is asked only inside the band and only with an LLM, and that a failed judge
leaves the claim unverified."""

from __future__ import annotations

import math

import pytest

import hallucheck
from hallucheck.errors import BackendError, ConfigError
from hallucheck.llm import FakeLLM
from hallucheck.stages.cascade import CascadeVerifier
from hallucheck.stages.ce_cascade import WEAK_SHORT_ANSWER, CECascadeVerifier, CECascadeVerifierV1
from hallucheck.types import Claim, Evidence

from .conftest import REF, FixedEncoder

UNSURE = {"Entailment": -1.1, "Neutral": -1.1, "Contradiction": -1.1}  # the content-free calibration reply


def _claims(answer, sentences):
    return [Claim(s, answer.index(s), answer.index(s) + len(s)) for s in sentences]


def test_band_claims_outside_it_make_no_llm_call(cascade, bow_embedder):
    table = {
        "Check the pressure when the tyres are cold.": 0.05,  # sure: supported
        "Paris is the capital of Germany.": 0.95,  # sure: hallucinated
        "The rear tyres take air.": 0.5,  # unsure: the judge is asked
        "The front tyres take 5 bar.": 0.2,  # the gate flags it (5 is not in the reference)
    }
    llm = FakeLLM(label_scores=[{"Entailment": -3.0, "Neutral": -2.0, "Contradiction": -0.1}, UNSURE])
    v = cascade(llm, table)
    answer = " ".join(table)
    claims = _claims(answer, table)
    out = v.verify(claims, [[Evidence(REF, 0, len(REF))] for _ in claims], reference=REF)
    # the first sentence is the reference's, word for word: supported as a copy (no threshold, no judge)
    assert [o.meta["stage"] for o in out] == ["copy", "verifier", "judge", "gate"]
    assert [o.hallucinated for o in out] == [False, True, True, True]
    # one judge call (+ the content-free calibration call): only the claim inside the band
    judged = [r for r in llm.requests if "Claim: The rear tyres take air." in r.messages[-1].content]
    assert len(judged) == 1 and len(llm.requests) == 2
    assert not any(
        "Claim: Paris" in r.messages[-1].content or "Claim: Check the" in r.messages[-1].content for r in llm.requests
    )
    assert "uncertainty band" in out[2].reason and out[2].meta["verifier_score"] == 0.5


def test_a_sentence_copied_from_the_reference_is_supported_without_the_judge(cascade, bow_embedder):
    """A summary sentence the reference holds word for word (case and punctuation aside) is supported with
    no judge call, whatever the verifier or a judge would say; one changed word makes it a claim again."""
    copy = "check the pressure when the tyres are cold"
    changed = "Check the pressure when the tyres are wet."  # (an opposite, "hot", the gate would settle)
    table = {copy: 0.99, changed: 0.6}  # the verifier is (wrongly) sure the copy is unsupported
    flags = {"Entailment": -3.0, "Neutral": -2.0, "Contradiction": -0.1}
    llm = FakeLLM(label_scores=[flags, UNSURE])  # + calibration
    answer = f"{copy}. {changed}"
    claims = [Claim(copy, 0, len(copy)), Claim(changed, answer.index(changed), len(answer))]
    for judge in (llm, None):
        v = cascade(judge, table)
        first, second = v.verify(claims, [[Evidence(REF, 0, len(REF))] for _ in claims], reference=REF)
        assert first.meta["stage"] == "copy" and first.hallucinated is False and first.score <= 0.5
        (ev,) = first.evidence
        assert REF[ev.start : ev.end] == "Check the pressure when the tyres are cold" and ev.meta["verbatim"]
        assert "word for word" in first.reason
        assert second.hallucinated is True and second.meta["stage"] in ("judge", "verifier")
    assert not any(f"Claim: {copy}" in r.messages[-1].content for r in llm.requests)
    assert any(f"Claim: {changed}" in r.messages[-1].content for r in llm.requests)
    # verbatim=False reads the copy as any other claim; ce_cascade.v1 pipelines keep that meaning
    off = cascade(None, table, verbatim=False)
    assert off.verify(claims[:1], [[]], reference=REF)[0].meta["stage"] == "verifier"
    assert CECascadeVerifierV1().verbatim is False and CECascadeVerifier().verbatim is True


def test_no_llm_means_no_call_and_the_verifier_decides(cascade, bow_embedder):
    v = cascade(None, {"The rear tyres take air.": 0.6})
    (out,) = v.verify([Claim("The rear tyres take air.", 0, 24)], [[]], reference=REF)
    assert out.meta["stage"] == "verifier" and out.hallucinated is True and out.score == 0.6


def test_with_no_llm_a_claim_inside_the_band_is_decided_by_the_verifier_and_marked_undecided(cascade, bow_embedder):
    """Without an LLM the verifier decides every claim; one whose score is where the judge would have been
    asked says so (reason and meta), one outside the band does not."""
    unsure, sure = "The rear tyres take air.", "Paris is the capital of Germany."
    v = cascade(None, {unsure: 0.45, sure: 0.95})
    answer = f"{unsure} {sure}"
    out = v.verify(_claims(answer, [unsure, sure]), [[], []], reference=REF)
    assert [o.meta["stage"] for o in out] == ["verifier", "verifier"]
    assert out[0].hallucinated is False and out[0].meta.get("undecided") is True
    assert "uncertainty band around the threshold" in out[0].reason and "band [0.30, 0.70]" in out[0].reason
    assert "--llm" in out[0].reason
    assert out[1].hallucinated is True and "undecided" not in out[1].meta and "band" not in out[1].reason
    # with an LLM the same claim goes to the judge and is not "undecided"
    llm = FakeLLM(label_scores=[{"Entailment": -0.1, "Neutral": -2.0, "Contradiction": -3.0}, UNSURE])
    (judged,) = cascade(llm, {unsure: 0.45}).verify(
        _claims(unsure, [unsure]), [[Evidence(REF, 0, len(REF))]], reference=REF
    )
    assert judged.meta["stage"] == "judge" and "undecided" not in judged.meta


def test_judge_failure_inside_the_band_is_could_not_verify(cascade, bow_embedder):
    def fail(*a, **k):
        raise BackendError("endpoint down")

    llm = FakeLLM(label_scores=fail)
    claim = Claim("The rear tyres take air.", 0, 24)
    (out,) = cascade(llm, {claim.text: 0.55}).verify([claim], [[Evidence(REF, 0, len(REF))]], reference=REF)
    assert out.status == "error" and out.hallucinated is None
    assert "the LLM judge that should settle it failed" in out.reason and "--llm none" in out.reason
    # outside the band the failing judge is never asked, so the verifier's verdict stands
    (out,) = cascade(llm, {claim.text: 0.05}).verify([claim], [[Evidence(REF, 0, len(REF))]], reference=REF)
    assert out.status == "ok" and out.hallucinated is False


def test_llm_none_runs_the_default_without_an_llm(monkeypatch, bow_embedder):
    from hallucheck.stages import cross_encoder as ce

    monkeypatch.setattr(
        ce.CrossEncoderVerifier,
        "encoder",
        property(lambda self: FixedEncoder({"Check the pressure when the tyres are cold.": 0.1})),
    )
    det = hallucheck.detect(
        "Check the pressure when the tyres are cold.",
        REF,
        method="ce_cascade",
        llm="none",
        gate="numbers",
        combine=None,
    )
    assert det.hallucinated is False and det.usage.calls == 0
    with pytest.raises(ConfigError, match="needs an LLM"):
        hallucheck.load_method("hsp", llm="none")


def test_a_confident_verifier_decides_summaries_and_the_judge_decides_only_if_configured_to(fixed, bow_embedder):
    """On a summary (no question) the shipped combination asks the judge only where it is unsure: a
    verifier that is sure decides, whatever the judge would say. A combination whose summary band is the
    whole scale with judge weight 1 makes ``cascade``'s decisions (the judge decides each sentence)."""
    import copy

    from hallucheck.stages.ce_cascade import load_combination

    sentences = ["Check the pressure when the tyres are cold.", "The rear tyres take air.", "Paris is in France."]
    # judge P(not entailed) 0.95 (flag), 0.30 (pass), 0.85 (flag: above cascade's 0.82), no calibration
    lps = [
        {"Entailment": math.log(1 - p), "Neutral": math.log(p / 2), "Contradiction": math.log(p / 2)}
        for p in (0.95, 0.30, 0.85)
    ]
    claims = [Claim(s, 0, len(s)) for s in sentences]
    ev = [[Evidence(REF, 0, len(REF))] for _ in claims]
    table = dict(zip(sentences, (0.01, 0.99, 0.02)))  # the verifier is sure, and says the opposite of the judge
    # (verbatim=False: the first sentence is the reference's word for word, which the default supports
    # without asking the judge)
    llm = FakeLLM(label_scores=list(lps))
    ce = CECascadeVerifier(llm=llm, gate="numbers", calibrate=False, verbatim=False)
    ours = fixed(ce, table).verify(claims, ev, reference=REF)
    assert [v.meta["stage"] for v in ours] == ["verifier"] * 3 and not llm.requests
    assert [v.hallucinated for v in ours] == [False, True, False]
    judge_decides = copy.deepcopy(load_combination("embedded"))
    judge_decides["tasks"]["summary"].update(band_width=1.0, judge_weight=1.0)
    ce = CECascadeVerifier(
        llm=FakeLLM(label_scores=list(lps)), gate="numbers", calibrate=False, verbatim=False, combine=judge_decides
    )
    ours = fixed(ce, table).verify(claims, ev, reference=REF)
    theirs = CascadeVerifier(llm=FakeLLM(label_scores=list(lps)), gate="numbers", calibrate=False).verify(
        claims, ev, reference=REF
    )
    assert [v.meta["stage"] for v in ours] == ["judge"] * 3
    assert [v.hallucinated for v in ours] == [v.hallucinated for v in theirs] == [True, False, True]
    assert all(v.score > 0.5 for v in ours if v.hallucinated) and "judge decides" in ours[0].reason
    # a question with a one-sentence answer is QA: the band around the QA threshold, the verifier counts
    qa = fixed(
        CECascadeVerifier(llm=FakeLLM(label_scores=list(lps)), gate="numbers", calibrate=False),
        {"Capital? Paris": 0.01},
    )
    (v,) = qa.verify([Claim("Paris", 0, 5)], [[Evidence(REF, 0, len(REF))]], reference=REF, question="Capital?")
    assert v.meta["stage"] == "verifier" and v.hallucinated is False
    # without an LLM the verifier decides the summary, and says it is weak there
    out = fixed(CECascadeVerifier(llm=None, gate="numbers"), table).verify(claims, ev, reference=REF)
    assert [v.hallucinated for v in out] == [False, True, False]
    assert [v.meta["stage"] for v in out] == ["copy", "verifier", "verifier"]  # a copy needs no verifier
    assert all("weak" in v.meta["warning"] for v in out[1:]) and "warning" not in out[0].meta
    # a short answer read after its question, without an LLM: the warning says short answers are barely read
    qa_none = fixed(CECascadeVerifier(llm=None, gate="numbers"), {"Capital? Paris": 0.01})
    (v,) = qa_none.verify([Claim("Paris", 0, 5)], [[Evidence(REF, 0, len(REF))]], reference=REF, question="Capital?")
    assert v.hallucinated is False and v.meta["warning"] == WEAK_SHORT_ANSWER


def test_the_gate_decides_a_missing_figure_and_scores_it_above_the_threshold(cascade, bow_embedder):
    claim = Claim("The front tyres take 5 bar.", 0, 27)
    (out,) = cascade(None, {claim.text: 0.1}).verify([claim], [[]], reference=REF)
    assert out.meta["stage"] == "gate" and out.hallucinated is True and out.score > 0.5
    # the gate's own record of the share and the cascade's one name for it
    assert out.meta["wrong_share"] == 1.0


def test_an_answer_is_read_after_its_question_only_when_it_is_short():
    from hallucheck.stages.ce_cascade.verifier import read_with_question

    ref = "Arthur's Magazine (1844-1846) was an American literary periodical. First for Women is a magazine."
    q = "Which magazine was started first?"
    short, long_ = Claim("Arthur's Magazine", 0, 17), Claim("Arthur's Magazine was the one started first.", 0, 44)
    assert read_with_question(q, [short], "auto", ref) == q
    assert read_with_question(q, [long_], "auto", ref) == ""  # six words or more: a claim about the reference
    assert read_with_question(q, [long_], "qa", ref) == q
    assert read_with_question(q, [short, long_], "auto", ref) == ""  # several claims: a RAG answer
    assert read_with_question(None, [short], "auto", ref) == ""
