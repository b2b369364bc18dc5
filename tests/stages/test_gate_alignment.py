"""Align, then judge (issue 44): the gate's rule table, alignment before a contradiction, the question
as context and repair only from an aligned value. Each example here failed before (at ddf85f4)."""

from __future__ import annotations

import pytest

import hallucheck
from hallucheck.errors import ConfigError
from hallucheck.stages.entity_check import EntityCheckVerifier
from hallucheck.stages.gate import RULES, ReferenceFacts, rules_off, switchable

DOSES = (
    "Adults: take 1 or 2 tablets every 4 hours, up to 8 tablets in 24 hours. Children aged 6 to 11: take "
    "1 tablet every 6 hours, up to 4 tablets in 24 hours."
)
LEAFLET = (
    "Paracetamol 500 mg tablets. Adults and children aged 16 years and over: take 1 or 2 tablets every 4 to 6 "
    "hours as needed, up to a maximum of 8 tablets in 24 hours. Children aged 10 to 15 years: take 1 tablet every "
    "4 to 6 hours as needed, up to a maximum of 4 tablets in 24 hours. Do not give to children under 10 years. Do "
    "not take for more than 3 days without talking to your doctor."
)
PENSION = (
    "The full state pension is paid from age 66 to people with at least 35 qualifying years. People with fewer "
    "years get a reduced pension."
)


def _status(ref: str, claim: str, question: str | None = None, off: frozenset[str] = frozenset()) -> dict:
    return {c.text: (c.status, c.counterpart.text if c.counterpart else None) for c in ReferenceFacts(ref).check_quantities(claim, off=off, question=question)}  # fmt: skip


def test_the_rule_table_is_ordered_named_and_switchable():
    names = [r.name for r in RULES]
    assert len(names) == len(set(names)) and names[0] == "figures"
    assert "figures" not in switchable() and {"question", "superseded", "meaning", "direction"} <= set(switchable())
    assert rules_off("question, swapped") == {"question", "swapped"}
    with pytest.raises(ConfigError, match="Unknown gate rule"):
        EntityCheckVerifier(rules_off=["questions"])
    for r in RULES:  # every rule says what it reads and what it may set
        assert r.reads and r.may_set and r.does


def test_a_value_of_another_group_is_contradicted_by_that_groups_value():
    # the adults' 8 tablets said of children: supported before (the number is in the reference)
    assert _status(DOSES, "Children can take up to 8 tablets in 24 hours.")["8 tablets"] == (
        "contradicted",
        "4 tablets",
    )
    assert _status(DOSES, "Children can take up to 4 tablets in 24 hours.")["4 tablets"][0] == "supported"
    assert _status(DOSES, "Adults can take up to 8 tablets in 24 hours.")["8 tablets"][0] == "supported"


def test_a_wrong_dose_is_contradicted_by_its_own_groups_value_not_the_childrens():
    got = _status(
        LEAFLET, "Adults can take 1 or 2 tablets every 4 to 6 hours, up to a maximum of 10 tablets in 24 hours."
    )
    assert got["10 tablets"] == ("contradicted", "8 tablets")


def test_a_figure_the_claims_words_cannot_place_is_not_compared():
    # two plans whose fees the claim's words fit alike: no alignment, so no contradiction and no repair
    ref = "Plan A: the monthly fee is £12. Plan B: the monthly fee is £18."
    assert _status(ref, "The monthly fee is £15.")["£15"][0] == "abstained"
    # named, the plan aligns it
    assert _status(ref, "Plan B: the monthly fee is £15.")["£15"] == ("contradicted", "£18")


def test_the_questions_figures_are_given_and_never_contradicted():
    q = "I am 67 and have paid in for 31 years. Can I get the full state pension?"
    answer = "With 31 qualifying years you have fewer than the 35 needed for the full pension."
    assert _status(PENSION, answer, question=q)["31 qualifying years"][0] == "given"
    # before: contradicted by the 35 years the reference requires
    assert _status(PENSION, answer, question=q, off=frozenset({"question"}))["31 qualifying years"][0] == "contradicted"
    det = hallucheck.detect(answer, PENSION, question=q, method="entity_check")
    assert not det.verdicts[0].hallucinated and "given in the question" in det.verdicts[0].reason


def test_a_figure_computed_from_the_questions_and_the_references_is_supported():
    ref = "A double room costs €85 per night. Breakfast is €12 per person per day."
    q = "We are staying 9 nights. What will the room cost?"
    assert _status(ref, "Your double room will cost €765 for the 9 nights.", question=q)["€765"][0] == "computed"
    # a wrong product is not: it is left to the verifier (no reference figure of its kind to align with)
    assert _status(ref, "Your double room will cost €756 for the 9 nights.", question=q)["€756"][0] == "abstained"
    # without the question nothing computes it
    assert _status(ref, "Your double room will cost €765 for the 9 nights.")["€765"][0] != "computed"


def test_figure_repair_takes_the_aligned_value_and_the_recheck_holds():
    from hallucheck.pipeline import Pipeline
    from hallucheck.registry import create
    from hallucheck.stages.figure_repair import FigureRepairMitigator

    answer = "Adults can take 1 or 2 tablets every 4 to 6 hours, up to a maximum of 10 tablets in 24 hours."
    pipe = Pipeline(
        name="figures",
        extractor=create("extractor", "sentences"),
        retriever=create("retriever", "all_sentences"),
        verifier=create("verifier", "entity_check", check_entities=False),
        mitigator=FigureRepairMitigator(),
    )
    mit = pipe.mitigate(answer, LEAFLET)
    # the adults' limit, not the children's "1 tablet" nor "4 tablets"
    assert mit.revised == answer.replace("10 tablets", "8 tablets")
    assert mit.after is not None and not any(v.hallucinated for v in mit.after.verdicts)


def test_a_figure_the_sentence_computes_from_its_aligned_figures():
    ref = "A double room costs €85 per night. Breakfast is €12 per person per day."
    q = "We are staying 9 nights. What will the room cost?"
    assert _status(ref, "9 nights at €85 per night come to €765.", question=q)["€765"][0] == "computed"
    # no step over its figures gives €756: left to the verifier, never contradicted by the €85 or €12
    assert _status(ref, "9 nights at €85 per night come to €756.", question=q)["€756"][0] == "abstained"
    det = hallucheck.detect("9 nights at €85 per night come to €756.", ref, question=q, method="entity_check")
    assert det.verdicts[0].label != "contradicted"


def test_a_question_figure_is_not_an_operand_with_itself():
    # "I am 40": 80 is not computed from 40 and 40 (only from a question figure and another figure)
    ref = "The membership fee is €30 a month."
    got = _status(ref, "At 80 you pay the senior fee.", question="I am 40. What is the fee?")
    assert got["80"][0] != "computed"


FUSES = "Model A uses a 15 A fuse for the heater; Model B uses a 20 A fuse for the heater."
TRAINS = "The first train leaves at 05:40 on weekdays and at 07:10 on Saturdays."


def test_the_same_value_said_of_the_thing_another_figure_beside_it_is_about_is_not_supported():
    # the reference states 15 A, but for Model A; the claim names Model B, which sets the 20 A apart
    # (before: supported, "the number is in the reference")
    assert _status(FUSES, "The heater on Model B uses a 15 A fuse.")["15 A fuse"] == ("contradicted", "20 A fuse")
    assert _status(FUSES, "The heater on Model A uses a 15 A fuse.")["15 A fuse"][0] == "supported"
    assert _status(FUSES, "Model B uses a 20 A fuse for the heater.")["20 A fuse"][0] == "supported"
    # the claim names Saturdays, which sets 07:10 apart, and "leaves", said nearest 05:40: a tie, no verdict
    # (before: supported)
    assert _status(TRAINS, "On Saturdays the first train leaves at 05:40.")["05:40"][0] == "abstained"
    assert _status(TRAINS, "On weekdays the first train leaves at 05:40.")["05:40"][0] == "supported"
    # and the correct Saturday time is no longer contradicted by the weekdays' (before: contradicted)
    assert _status(TRAINS, "On Saturdays the first train leaves at 07:10.")["07:10"][0] != "contradicted"
