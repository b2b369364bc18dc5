"""Errors of meaning the gate is sure of without a model (stages/gate/meaning.py): a negation, an opposite or
a dropped condition in a sentence that otherwise restates one reference sentence; and the restatements
it must leave alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import hallucheck
from hallucheck.stages.gate.figures import ReferenceFacts
from hallucheck.stages.gate.meaning import meaning_conflict

MANUAL = (Path(__file__).resolve().parents[2] / "examples" / "manual_reference.txt").read_text(encoding="utf-8")
LEAFLET = (
    "Take the tablets with or after food. Do not give aspirin to children under 16. The tablets may be taken "
    "with milk. Keep the pack below 25 °C; store it in a dry place. The drug is safe for adults. For children "
    "under two, it is dangerous."
)
CONTRACT = "The tenant pays the deposit to the landlord. Rent is due before the fifth working day of the month."


@pytest.mark.parametrize(
    "reference, claim, kind",
    [
        (LEAFLET, "Give aspirin to children under 16.", "negation"),
        (LEAFLET, "The tablets may not be taken with milk.", "negation"),
        (CONTRACT, "Rent is due after the fifth working day of the month.", "opposite"),
        (LEAFLET, "Keep the pack above 25 °C; store it in a dry place.", "opposite"),
        (MANUAL, "Increase the rear tyre pressure to 2.6 bar.", "condition"),
    ],
)
def test_a_restated_sentence_with_its_meaning_changed_is_a_conflict(reference, claim, kind):
    conflict = meaning_conflict(claim, ReferenceFacts(reference))
    assert conflict is not None and conflict.kind == kind, conflict


@pytest.mark.parametrize(
    "reference, claim, question",
    [
        (LEAFLET, "Do not give aspirin to children under 16.", None),
        (LEAFLET, "No, do not give aspirin to children under 16.", "Can I give aspirin to my 12-year-old?"),
        (LEAFLET, "Aspirin must never be given to children under 16.", None),  # reworded: left to the verifier
        (LEAFLET, "Store the pack in a dry place.", None),  # the other part of the sentence, no condition dropped
        (MANUAL, "Increase the rear tyre pressure to 2.6 bar.", "What if the vehicle is fully loaded?"),
        (CONTRACT, "The tenant pays the deposit to the landlord.", None),
        (LEAFLET, "The drug is safe for adults.", None),
    ],
)
def test_a_faithful_restatement_is_left_alone(reference, claim, question):
    assert meaning_conflict(claim, ReferenceFacts(reference), question) is None


def test_the_default_flags_a_dropped_condition_at_the_gate_with_the_condition_named():
    det = hallucheck.detect("Increase the rear tyre pressure to 2.6 bar.", MANUAL, llm="none")
    (v,) = det.verdicts
    assert v.hallucinated and v.label == "contradicted" and v.meta["stage"] == "gate"
    assert "When the vehicle is fully loaded" in v.reason and v.meta["meaning"] == "condition"
    assert v.evidence[0].text.startswith("When the vehicle is fully loaded")


def test_the_check_can_be_turned_off():
    det = hallucheck.detect("Give aspirin to children under 16.", LEAFLET, method="entity_check", check_meaning=False)
    assert not det.verdicts[0].hallucinated


@pytest.mark.parametrize(
    "reference, claim",
    [
        # a clause after what it governs is a time in a narrative, not a condition the summary must keep
        ("Passenger Jin Pai was standing on the rim of a toilet when it smashed to the ground.",
         "Passenger Jin Pai was standing on the rim of a toilet."),
        # "no less than" bounds a figure; it does not negate the sentence
        ("No less than 13 of the 22 players were English.", "13 of the 22 players were English."),
    ],
)  # fmt: skip
def test_a_narrative_time_or_a_bound_is_no_error_of_meaning(reference, claim):
    assert meaning_conflict(claim, ReferenceFacts(reference)) is None


def test_a_limit_said_with_no_or_not_is_the_same_limit():
    ref = ReferenceFacts("Do not take more than 8 tablets in 24 hours.")
    assert meaning_conflict("Take no more than 8 tablets in 24 hours.", ref) is None


def test_a_near_verbatim_bound_with_an_object_is_no_negation():
    # issue 44: "it" between the verb and "more than" made the bound read as a negation, and a correct
    # sentence failed assert_grounded
    ref = ReferenceFacts(
        "Do not give to children under 10 years. Do not take for more than 3 days without talking to your doctor."
    )
    assert meaning_conflict("Do not take it for more than 3 days without talking to your doctor.", ref) is None
    # a negation added to the same sentence is still read
    assert meaning_conflict("Do not take for more than 3 days with talking to your doctor.", ref) is not None


TYRES = "The rear tyres take 2.2 bar. Inflate the front tyres to 2.4 bar. Check the pressure when the tyres are cold."


def test_a_claim_with_another_figure_than_the_sentence_does_not_restate_it():
    """ "front tyres take 2.4 bar" shares as many words with the rear sentence as with the front one; the
    rear sentence gives 2.2 bar, so the claim is not that sentence with "front" for "rear"."""
    ref = ReferenceFacts(TYRES)
    assert meaning_conflict("The front tyres take 2.4 bar.", ref) is None
    swapped = meaning_conflict("The front tyres take 2.2 bar.", ref)
    assert swapped is not None and (swapped.kind, swapped.said, swapped.says) == ("opposite", "front", "rear")


def test_a_tie_between_two_sentences_is_broken_the_same_way_in_every_process():
    """Two sentences that share equally weighted words with a claim tie exactly, whatever order the
    process's string hashing gives a set of words: the earlier sentence is the aligned one."""
    script = (
        "from hallucheck.stages.gate.figures import ReferenceFacts\n"
        "from hallucheck.stages.gate.index import shared_weight\n"
        "from hallucheck.stages.gate.clauses import stems\n"
        f"ref = ReferenceFacts({TYRES!r})\n"
        "w = shared_weight(stems('The front tyres take 2.4 bar.'), ref)\n"
        "print(w[0] == w[1], max(w, key=lambda i: (w[i], -i)))\n"
    )
    seen = {
        subprocess.run(
            [sys.executable, "-c", script], env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        for seed in range(6)
    }  # fmt: skip
    assert seen == {"True 0"}
