"""hallucheck.testing.assert_grounded: passes grounded answers, fails unsupported ones with a
message naming each claim, its score, reason and evidence, and never passes an answer that
could not be verified."""

from __future__ import annotations

import pytest

import hallucheck
from hallucheck.errors import BackendError, ConfigError, InputError
from hallucheck.llm import FakeLLM
from hallucheck.testing import assert_grounded
from hallucheck.types import Claim, Detection, Verdict

REF = "Inflate the front tyres to 2.4 bar when the tyres are cold. The rear tyres take 2.2 bar."
GROUNDED = "Inflate the front tyres to 2.4 bar. The rear tyres take 2.2 bar."
UNSUPPORTED = "Inflate the front tyres to 2.4 bar. Casinos in Macau are open every night."
PARTIAL = "The front tyres take 2.4 bar when the tyres are cold, says the manual."  # sim_overlap score 0.42

KW_REF = (
    "The recommended cold pressure for the front tyres is 2.4 bar (35 psi) and for the rear tyres 2.2 bar (32 psi)."
)
KW_ANSWER = "Use 2.4 bar for the front tyres. Fully loaded, use 3.0 bar in the rear tyres and nitrogen."


class _Stub:
    """A loaded 'method' that returns a fixed Detection (or raises)."""

    def __init__(self, result):
        self.result = result

    def run(self, answer, reference, *, question=None):
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


def _det(verdicts, hallucinated, score, **kw):
    return Detection(
        answer="A. B.",
        reference="R.",
        question=None,
        method="stub",
        hallucinated=hallucinated,
        score=score,
        verdicts=tuple(verdicts),
        **kw,
    )


# -- without an LLM (sim_overlap) --------------------------------------------------------------
def test_grounded_answer_passes_and_returns_the_detection():
    det = assert_grounded(GROUNDED, REF, method="sim_overlap")
    assert isinstance(det, Detection) and det.hallucinated is False and det.method == "sim_overlap"


def test_unsupported_claim_fails_with_text_offsets_score_reason_and_evidence():
    with pytest.raises(AssertionError) as err:
        assert_grounded(UNSUPPORTED, REF, method="sim_overlap")
    msg = str(err.value)
    start = UNSUPPORTED.index("Casinos")
    assert "Answer not grounded in the reference" in msg and "method=sim_overlap" in msg
    assert f"answer[{start}:{len(UNSUPPORTED)}] 'Casinos in Macau are open every night.'" in msg
    assert "score 1.00, unverifiable: Not similar to any reference sentence" in msg
    assert "1 of 2 claims unsupported" in msg
    # the grounded first sentence is not listed
    assert "'Inflate the front tyres to 2.4 bar.'" not in msg
    # no reference sentence shares anything with it: said so, instead of an arbitrary "closest" sentence
    assert "nothing in the reference matches this claim" in msg


def test_evidence_of_a_flagged_claim_with_a_partial_match_is_shown_with_offsets():
    with pytest.raises(AssertionError) as err:
        assert_grounded(PARTIAL, REF, method="sim_overlap", t2=0.9)  # stricter than the default 0.1
    msg = str(err.value)
    ev = "Inflate the front tyres to 2.4 bar when the tyres are cold."
    assert f"evidence reference[0:{len(ev)}] (similarity 0.58): {ev!r}" in msg
    # 1 - 0.58 = 0.42 on the decision scale (1 - t2 = 0.1 -> 0.5): 0.5 + 0.5 * 0.32 / 0.9
    assert "score 0.68" in msg


def test_max_score_decides_instead_of_the_method_threshold():
    assert hallucheck.detect(PARTIAL, REF, method="sim_overlap").hallucinated is False
    # 1 - 7/12 = 5/12 on the decision scale (1 - t2 = 0.9 -> 0.5): 5/12 * 0.5 / 0.9
    assert assert_grounded(PARTIAL, REF, method="sim_overlap", max_score=0.5).score == pytest.approx(5 / 12 / 1.8)
    with pytest.raises(AssertionError) as err:
        assert_grounded(PARTIAL, REF, method="sim_overlap", max_score=0.2)
    msg = str(err.value)
    assert "its score is above max_score=0.2" in msg and repr(PARTIAL) in msg and "score 0.23" in msg


@pytest.mark.parametrize("bad", [1.5, -0.1, "0.5", True])
def test_max_score_is_validated(bad):
    with pytest.raises(ConfigError, match="max_score"):
        assert_grounded(GROUNDED, REF, method="sim_overlap", max_score=bad)


def test_method_params_and_a_loaded_method():
    with pytest.raises(AssertionError):
        assert_grounded(PARTIAL, REF, method="sim_overlap", t2=0.9)
    loaded = hallucheck.load_method("sim_overlap", t2=0.9)
    with pytest.raises(AssertionError):
        assert_grounded(PARTIAL, REF, method=loaded)
    assert_grounded(GROUNDED, REF, method=loaded)
    with pytest.raises(ConfigError, match="already loaded"):
        assert_grounded(GROUNDED, REF, method=loaded, t2=0.5)
    with pytest.raises(ConfigError, match="method name"):
        assert_grounded(GROUNDED, REF, method=42)


def test_input_and_config_mistakes_are_errors_not_failures():
    with pytest.raises(InputError):
        assert_grounded("   ", REF, method="sim_overlap")
    with pytest.raises(ConfigError, match="Did you mean 'sim_overlap'"):
        assert_grounded(GROUNDED, REF, method="sim_overlapp")


# -- with an LLM method (keyword_match, scripted) ---------------------------------------------
def test_llm_method_flags_missing_keywords_in_the_message():
    llm = FakeLLM(["2.4 bar, front tyres, 3.0 bar, rear tyres, nitrogen"])
    with pytest.raises(AssertionError) as err:
        assert_grounded(KW_ANSWER, KW_REF, method="keyword_match", llm=llm, question="What pressure?")
    msg = str(err.value)
    assert "method=keyword_match, answer score=0.62" in msg  # 2 of 5 keywords missing: 0.4, t3 = 0.2 -> 0.5
    assert "'Fully loaded, use 3.0 bar in the rear tyres and nitrogen.'" in msg
    assert "score 0.79, unverifiable: 2 of 3 keywords not in the reference" in msg and "3.0 bar, nitrogen" in msg
    assert "evidence reference[" in msg and "'rear tyres'" in msg  # the keyword that is in the reference
    assert "question: 'What pressure?'" in msg
    assert len(llm.requests) == 1


def test_llm_method_grounded_answer_passes():
    det = assert_grounded(
        "Front tyres: 2.4 bar.", KW_REF, method="keyword_match", llm=FakeLLM(["Front tyres, 2.4 bar"])
    )
    assert det.hallucinated is False and det.usage.calls == 1


def test_llm_reply_that_never_parses_fails_as_could_not_verify():
    llm = FakeLLM(["", "Keywords:"])  # the first reply and the repair reply both unusable
    with pytest.raises(AssertionError) as err:
        assert_grounded("Front tyres: 2.4 bar.", KW_REF, method="keyword_match", llm=llm)
    msg = str(err.value)
    assert "could not verify" in msg and "does not pass" in msg
    assert "1 of 1 claim could not be verified" in msg and "Keyword extraction failed" in msg
    assert "raw LLM reply: '\\n---\\nKeywords:'" in msg


def test_backend_failure_inside_the_verifier_fails_as_could_not_verify():
    llm = FakeLLM([BackendError("connection refused")])
    with pytest.raises(AssertionError, match="could not verify(.|\n)*LLM backend failed: connection refused"):
        assert_grounded("Front tyres: 2.4 bar.", KW_REF, method="keyword_match", llm=llm)


def test_backend_error_raised_by_the_method_fails_as_could_not_verify():
    with pytest.raises(AssertionError, match="could not verify the answer: BackendError: endpoint down") as err:
        assert_grounded("A.", "R.", method=_Stub(BackendError("endpoint down")))
    assert isinstance(err.value.__cause__, BackendError)


# -- detections that could not be verified never pass -----------------------------------------
def test_error_status_detection_fails_with_its_error():
    det = _det([], None, None, status="error", error="TimeoutError: the server did not answer")
    with pytest.raises(AssertionError, match="could not verify(.|\n)*error: TimeoutError: the server did not answer"):
        assert_grounded("A.", "R.", method=_Stub(det))


def test_no_checkable_claims_fails_with_the_note():
    det = _det(
        [], None, None, meta={"note": "The answer has no checkable claims: nothing was verified.", "no_claims": True}
    )
    with pytest.raises(AssertionError, match="note: The answer has no checkable claims"):
        assert_grounded("A.", "R.", method=_Stub(det))


def test_max_score_never_passes_a_partly_unverified_answer():
    ok = Verdict(Claim("A.", 0, 2), "supported", False, 0.1, "fine")
    failed = Verdict.failed(Claim("B.", 3, 5), "judge reply did not parse", raw="???")
    with pytest.raises(AssertionError, match="1 of 2 claims could not be verified(.|\n)*raw LLM reply: '\\?\\?\\?'"):
        assert_grounded("A. B.", "R.", method=_Stub(_det([ok, failed], None, 0.1)), max_score=0.5)
    # even when the aggregate says "hallucinated" with a low score, the unscored claim blocks a pass
    flagged = Verdict(Claim("A.", 0, 2), "unverifiable", True, 0.2, "weak")
    with pytest.raises(AssertionError, match="could not verify"):
        assert_grounded("A. B.", "R.", method=_Stub(_det([flagged, failed], True, 0.2)), max_score=0.5)
    # without max_score the flagged claim fails it, and the unverified one is mentioned
    with pytest.raises(AssertionError, match="1 other claim\\(s\\) could not be verified"):
        assert_grounded("A. B.", "R.", method=_Stub(_det([flagged, failed], True, 0.2)))
