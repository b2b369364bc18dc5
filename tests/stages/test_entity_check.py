import pytest

import hallucheck
from hallucheck.errors import ConfigError

REF = "Inflate the front tyres to 2.4 bar (35 psi) and the rear tyres to 2.2 bar. Loaded: 2.6 bar. Costs 1,000 euros."


def test_numbers_are_compared_with_the_value_about_the_same_thing():
    det = hallucheck.detect(
        "Front: 2.40 bar. Rear: 3.0 bar. It costs 1000 euros.", REF, method="entity_check", check_entities=False
    )
    assert [v.hallucinated for v in det.verdicts] == [False, True, False]
    bad = det.verdicts[1]
    # the rear tyres' value, not the front's or the loaded one, is what "Rear: 3.0 bar" contradicts
    assert bad.label == "contradicted" and bad.meta["contradicted"] == [["3.0 bar", "2.2 bar"]]
    assert "'3.0 bar'" in bad.reason and "'2.2 bar'" in bad.reason and bad.score == 1.0
    assert [e.text for e in bad.evidence] == [
        "Inflate the front tyres to 2.4 bar (35 psi) and the rear tyres to 2.2 bar."
    ]
    (span,) = bad.meta["fact_spans"]
    assert det.answer[span["start"] : span["end"]] == "3.0 bar" and span["status"] == "contradicted"
    assert REF[span["reference"]["start"] : span["reference"]["end"]] == "2.2 bar"


LEAFLET = (
    "Paracetamol 500 mg tablets. Adults and children aged 16 years and over: take 1 or 2 tablets every 4 to 6 "
    "hours as needed. Do not take more than 8 tablets in 24 hours. Leave at least 4 hours between doses. Do not "
    "take for more than 3 days without talking to your doctor. Keep the pack for 12 months after opening."
)


def test_a_wrong_dose_whose_number_appears_elsewhere_is_contradicted_by_the_dose_sentence():
    det = hallucheck.detect("Adults can take up to 12 tablets in 24 hours.", LEAFLET, method="entity_check")
    (v,) = det.verdicts
    assert v.hallucinated and v.label == "contradicted"
    assert [e.text for e in v.evidence] == ["Do not take more than 8 tablets in 24 hours."]
    assert "'12 tablets'" in v.reason and "'8 tablets'" in v.reason
    assert [f["text"] for f in v.meta["fact_spans"]] == ["12 tablets"]


@pytest.mark.parametrize(
    "answer",
    [
        "Adults can take up to 8 tablets in 24 hours.",
        "Take one or two tablets every four to six hours.",
        "Do not use it for more than three days without asking a doctor.",
        "Do not take more than 8 tablets in a day.",
        "Keep the pack for a year after opening.",
    ],
)
def test_correct_values_written_another_way_pass(answer):
    det = hallucheck.detect(answer, LEAFLET, method="entity_check")
    assert det.hallucinated is False, det.verdicts[0].reason


@pytest.mark.parametrize(
    "answer, wrong, said",
    [
        ("Take 1 or 2 tablets every 4 to 8 hours.", "4 to 8 hours", "4 to 6 hours"),
        ("Each tablet contains 500 g of paracetamol.", "500 g", "500 mg"),
        ("Leave at least 4 days between doses.", "4 days", "4 hours"),
    ],
)
def test_changed_ranges_and_units_are_contradicted(answer, wrong, said):
    (v,) = hallucheck.detect(answer, LEAFLET, method="entity_check").verdicts
    assert v.label == "contradicted" and v.meta["contradicted"] == [[wrong, said]]


def test_a_value_with_no_counterpart_stays_unsupported():
    (v,) = hallucheck.detect("Each pack holds 7 litres.", LEAFLET, method="entity_check").verdicts
    assert v.hallucinated and v.label == "unverifiable" and v.meta["missing"] == [["7 litres", "QUANTITY"]]


def test_a_name_put_in_another_role_is_contradicted():
    ref = (
        "The supply agreement is between Acme Ltd and Borealis GmbH. Acme Ltd is the supplier and Borealis GmbH is "
        "the buyer. The agreement runs for two years."
    )
    # the name_role rule is off by default (it flagged more correct sentences than it caught errors): on
    (ok,) = hallucheck.detect("Acme Ltd is the supplier.", ref, method="entity_check", rules_off=[]).verdicts
    (bad,) = hallucheck.detect("Borealis GmbH is the supplier.", ref, method="entity_check", rules_off=[]).verdicts
    assert ok.hallucinated is False
    assert bad.label == "contradicted" and bad.meta["contradicted"] == [["Borealis GmbH", "Acme Ltd"]]
    # by default the name is in the reference, so the sentence is left to the verifier
    (default,) = hallucheck.detect("Borealis GmbH is the supplier.", ref, method="entity_check").verdicts
    assert default.hallucinated is False


@pytest.mark.parametrize(
    "answer",
    [
        "Norman Dike's company was Easy Company.",
        "Norman Dike’s company was Easy Company.",
        "Tariff A's unit price is 20p.",
    ],
)
def test_a_name_in_the_possessive_is_the_name(answer):
    ref = "Norman Dike led Easy Company for a time. Tariff A costs 20p a unit."
    (v,) = hallucheck.detect(answer, ref, method="entity_check").verdicts
    assert v.hallucinated is False, v.reason
    (other,) = hallucheck.detect("Lewis Nixon's company was Easy Company.", ref, method="entity_check").verdicts
    assert other.label == "unverifiable" and "Lewis Nixon" in other.reason


def test_sentence_without_facts_passes_with_reason():
    det = hallucheck.detect("Check them often.", REF, method="entity_check", check_entities=False)
    assert det.hallucinated is False and "No numbers or names" in det.verdicts[0].reason


def test_parts_of_numbers_are_not_numbers():
    det = hallucheck.detect(
        "Use the A4 sheet in version v2.", "Use any sheet.", method="entity_check", check_entities=False
    )
    assert det.hallucinated is False


def test_needs_something_to_check():
    with pytest.raises(ConfigError, match="check_numbers or check_entities"):
        hallucheck.load_method("entity_check", check_numbers=False, check_entities=False)


def test_the_work_on_a_sentence_of_many_figures_is_bounded():
    from hallucheck.stages.gate.align import MAX_FIGURES
    from hallucheck.stages.gate.figures import ReferenceFacts

    ref = ReferenceFacts("Values: " + ", ".join(f"{i} bar" for i in range(500)) + ".")
    claim = "It uses " + ", ".join(f"{i + 1} bar" for i in range(300)) + "."
    checks = ref.check_quantities(claim)
    assert len(checks) == 300 and [c.text for c in checks[:2]] == ["1 bar", "2 bar"]
    # a sentence of more than MAX_FIGURES figures is not compared at all (no verdict on a partial reading)
    assert {c.status for c in checks} == {"abstained"} and len(checks) > MAX_FIGURES
    assert "300 figures" in checks[0].describe()
    # and no reference value's context is worked out for it
    assert len(ref._contexts) == 0
    # a sentence of MAX_FIGURES figures is compared, figure by figure
    claim = "It uses " + ", ".join(f"{i + 1} bar" for i in range(MAX_FIGURES)) + "."
    assert all(c.status != "abstained" for c in ref.check_quantities(claim))
