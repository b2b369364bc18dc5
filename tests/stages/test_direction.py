"""A change said in the other direction in other words (stages/gate/direction.py, read by stages/gate/meaning.py),
and the restatements it must leave alone."""

from __future__ import annotations

import pytest

import hallucheck
from hallucheck.stages.gate.direction import direction_conflict
from hallucheck.stages.gate.figures import ReferenceFacts
from hallucheck.stages.gate.meaning import meaning_conflict

TRIAL = (
    "Drug X lowered blood pressure by 10 mmHg in the trial. Patients took it daily for twelve weeks. "
    "Headaches were the most common side effect."
)
REPORT = (
    "Revenue at the retail division fell in the second half as store traffic weakened. "
    "Spending on marketing was reduced across all regions. The board declined to comment on the outlook."
)
MIXED = "Revenue at the retail division fell in the first half but rose in the second half."
TWO_SENTENCES = "Revenue at the retail division fell in the first half. Revenue at the retail division rose later."


@pytest.mark.parametrize(
    "reference, claim, said, says",
    [
        (TRIAL, "In the trial, blood pressure went up with Drug X.", "went up", "lowered"),
        (TRIAL, "Drug X pushed blood pressure up in the trial.", "pushed ... up", "lowered"),
        (REPORT, "Store traffic weakened, yet revenue at the retail division grew.", "grew", "fell"),
        (REPORT, "Marketing spending increased in every region.", "increased", "reduced"),
    ],
)
def test_a_change_said_the_other_way_in_other_words_is_a_conflict(reference, claim, said, says):
    conflict = meaning_conflict(claim, ReferenceFacts(reference))
    assert conflict is not None and conflict.kind == "direction", conflict
    assert (conflict.said, conflict.says) == (said, says)
    assert conflict.describe() == f"the answer says {said!r} where the reference says {says!r}"


@pytest.mark.parametrize(
    "reference, claim",
    [
        (TRIAL, "Drug X brought blood pressure down in the trial."),  # the same direction, other words
        (TRIAL, "Blood pressure dropped with Drug X in the trial."),
        (TRIAL, "Patients who stop Drug X see their blood pressure rise."),  # turned around by "stop"
        (TRIAL, "Blood pressure did not rise with Drug X in the trial."),  # a negation
        (TRIAL, "Blood pressure with Drug X was higher than without it."),  # a comparison: not read here
        (TRIAL, "Without Drug X, blood pressure rose in the trial."),
        (MIXED, "Revenue at the retail division rose in the first half."),  # the sentence says both
        (TWO_SENTENCES, "Revenue at the retail division rose."),  # another sentence says the claim's way
        (REPORT, "The board declined to raise its outlook."),  # "declined to" is no change
        (REPORT, "Prices at the airport rose."),  # shares too little with any sentence
        (
            "Reduce the dose, then discuss the issue with your doctor.",
            "Raise the issue with your doctor.",  # "raise" in another sense
        ),
        ("Interest in the public holiday rises each year.", "The public holiday falls on a Monday each year."),
        (
            "Scot Young fell 60ft from his West London home last year.",
            "Scot Young meant to jump from his West London home.",  # "jump" is not read
        ),
    ],
)
def test_restatements_and_other_readings_are_left_alone(reference, claim):
    assert direction_conflict(claim, ReferenceFacts(reference)) is None
    assert meaning_conflict(claim, ReferenceFacts(reference)) is None


def test_the_default_flags_the_sentence_and_names_both_words():
    det = hallucheck.detect(
        "Headaches were the most common side effect. In the trial, blood pressure went up with Drug X.",
        TRIAL,
        llm="none",
    )
    first, second = det.verdicts
    assert first.hallucinated is False
    assert second.hallucinated is True and second.label == "contradicted"
    assert "'went up'" in second.reason and "'lowered'" in second.reason
    assert second.evidence[0].text.startswith("Drug X lowered blood pressure")
    assert second.meta["meaning"] == "direction"
