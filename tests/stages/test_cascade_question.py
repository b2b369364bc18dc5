"""When the verifiers read an answer with its question (issue 20): a short answer is a QA answer;
each sentence of a longer answer, or a sentence restating the reference, is a claim of its own."""

import pytest

from hallucheck.errors import ConfigError
from hallucheck.stages.cascade import CascadeVerifier, qa_question
from hallucheck.types import Claim

REF = "Check the pressure when the tyres are cold. The recommended cold pressure for the front tyres is 2.4 bar."
Q = "What tyre pressure should I use?"


def claims(*texts):
    out, pos = [], 0
    for t in texts:
        out.append(Claim(t, pos, pos + len(t)))
        pos += len(t) + 1
    return out


def test_a_short_answer_is_read_after_its_question():
    assert qa_question(Q, claims("2.4 bar"), "auto", REF) == Q
    assert qa_question(f"  {Q} ", claims("The front tyres take 2.6 bar when loaded."), "auto", REF) == Q


def test_each_sentence_of_a_longer_answer_is_a_claim_of_its_own():
    two = claims("Check the pressure when the tyres are cold.", "Use 2.4 bar at the front.")
    assert qa_question(Q, two, "auto", REF) == ""


def test_a_sentence_restating_the_reference_is_a_claim_whatever_was_asked():
    copied = claims("The recommended cold pressure for the front tyres is 2.4 bar.")
    assert qa_question(Q, copied, "auto", REF) == ""
    assert qa_question(Q, copied, "qa", REF) == Q  # the old behaviour, on request


def test_modes_and_no_question():
    assert qa_question(None, claims("2.4 bar"), "qa", REF) == ""
    assert qa_question(Q, claims("2.4 bar"), "claims", REF) == ""
    with pytest.raises(ConfigError, match="question_mode"):
        CascadeVerifier(question_mode="sometimes")
