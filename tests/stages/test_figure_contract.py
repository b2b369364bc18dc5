"""The figure check's precision contract (stages/gate/figures.py, stages/gate/doubt.py): it says contradicted or
missing only when it is sure, and abstains otherwise; and the changed figures it must never let
pass as supported. Each case is one a user or a probe met; no model runs except the two
end-to-end detections of the default method."""

from __future__ import annotations

import pytest

import hallucheck
from hallucheck.stages.gate.figures import ReferenceFacts

EARNINGS_REF = (
    "Net earnings were $97 million, or $1.12 per diluted share, compared with $88 million, or $1.01 per "
    "diluted share, in the prior-year quarter. Revenue rose to $1.42 billion."
)
EARNINGS = "Net earnings rose to $97 million, or $1.12 a share, from $88 million a year earlier."
TIMETABLE_REF = (
    "Weekday timetable. The 07:12 service from York calls at Leeds. The train departs Leeds at 08:15 and "
    "reaches Newcastle at 09:45. A later service leaves Leeds at 12:30."
)
TIMETABLE = "The train departs Leeds at 08:15 and reaches Newcastle at 09:45."


def statuses(reference: str, claim: str, lang: str | None = None) -> dict[str, str]:
    return {c.text: c.status for c in ReferenceFacts(reference, lang=lang).check_quantities(claim, lang=lang)}


@pytest.mark.parametrize(
    "reference, claim",
    [
        (EARNINGS_REF, EARNINGS),  # "a year earlier" is the period, not "$88 million a year"
        (TIMETABLE_REF, TIMETABLE),  # a clock time is one figure, not two numbers
        ("Earnings per share were $0.84, up from $0.61.", "Earnings per share were 84 cents."),
        ("Children aged 10 to 15 should take one tablet.", "Children aged 10 to 15 should take one tablet daily."),
        ("About 66.3 % of patients responded; the hazard ratio was 0.95.", "About two-thirds of patients responded."),
        ("About 66.3 % of patients responded; the hazard ratio was 0.95.", "About 66 percent of patients responded."),
        ("Revenue was between $720 million and $740 million.", "Revenue was $720–740 million."),
        ("It costs 1,420 million dollars.", "It costs $1.42bn."),
        ("The last train leaves at 19:30.", "The last train leaves at 7.30 pm."),
        ("The last train leaves at 7:30 in the evening.", "The last train leaves at half past seven."),
        ("Take one tablet two times daily.", "Take one tablet twice a day."),
        ("It is for children of 6 to 12 years.", "It is suitable for an 8-year-old."),
        ("Inflate the tyres to 2.2 bar.", "Inflate the tyres to ٢٫٢ bar."),
        ("The company was founded in 1989.", "The company was founded in nineteen eighty-nine."),
        ("Staff may work two remote days a week. Book four weeks before departure.", "Staff work two days a week."),
        ("Net income rose to $188 million from $171 million.", "Net income was up $17 million."),
        (
            "Patients were randomised 1:1; those aged 70 or over were excluded.",
            "Patients aged 70 or over were excluded.",
        ),
    ],
)
def test_a_correct_paraphrase_is_never_a_conflict(reference, claim):
    got = statuses(reference, claim)
    assert got and not {s for s in got.values()} & {"contradicted", "missing"}, got


@pytest.mark.parametrize(
    "reference, claim, wrong",
    [
        (
            "The recommended cold pressure is 2.4 bar for the front tyres and 2.2 bar for the rear tyres.",
            "The recommended cold pressure is 2.2 bar for the front tyres and 2.4 bar for the rear tyres.",
            {"2.2 bar", "2.4 bar"},
        ),
        ("Your card number is 4111111111111111.", "Your card number is 4111111111111112.", {"4111111111111112"}),
        ("The usual dose is 50 mg per day.", "The usual dose is 10 to 500 mg per day.", {"10 to 500 mg per day"}),
        ("Take one tablet twice daily.", "Take one tablet three times a day.", {"three times a day"}),
        ("Take the syrup 2x daily.", "Take the syrup 3x daily.", {"3x daily"}),
        ("The modem supports 4G networks.", "The modem supports 5G networks.", {"5G"}),
        ("The 3rd dose is given at 12 months.", "The 4th dose is given at 12 months.", {"4th dose"}),
        ("The drug is in a Phase II trial.", "The drug is in a Phase III trial.", {"Phase III"}),
        ("Half of the patients (50 %) improved.", "A third of the patients improved.", {"A third"}),
        ("The last train leaves at 19:30.", "The last train leaves at 8.30 pm.", {"8.30 pm"}),
        (
            "Pay to IBAN DE89 3704 0044 0532 0130 00 by 5 May.",
            "Pay to IBAN DE89 3704 0044 0532 0130 01 by 5 May.",
            {"DE89 3704 0044 0532 0130 01"},
        ),
        ("The watch needs iOS 15 or later.", "The watch needs iOS 14 or later.", {"iOS 14"}),
    ],
)
def test_a_changed_figure_is_never_supported(reference, claim, wrong):
    got = statuses(reference, claim)
    assert {t for t, s in got.items() if s in ("contradicted", "missing")} == wrong, got


def test_non_english_forms_are_compared():
    assert statuses("Die Kaution beträgt 1.000,50 Euro.", "Die Kaution beträgt 1.000 Euro.", "de") == {
        "1.000 Euro": "contradicted"
    }
    assert set(statuses("每天服用两次。", "每天服用三次。", "zh").values()) & {"contradicted", "missing"}
    assert statuses("Comptez 1 200 g de bœuf.", "Comptez 1,2 kg de bœuf.", "fr") == {"1,2 kg": "supported"}


def test_a_value_on_another_basis_abstains_instead_of_conflicting():
    # the total, not the per-share figure: nothing in the reference says it is wrong, nor that it is right
    got = statuses("Net income was $171 million, or $0.76 per diluted share.", "Net income was 76 cents.")
    assert got == {"76 cents": "abstained"}


def test_arithmetic_explains_a_figure_only_when_it_is_not_a_stated_value_of_another_thing():
    ref = "Cars must check in 45 minutes before departure and coaches 60 minutes before."
    assert statuses(ref, "Cars must check in 60 minutes before departure.") == {"60 minutes": "contradicted"}


def test_the_evidence_shown_is_the_value_about_the_same_referent():
    ref = (
        "Adults: take 1 or 2 tablets every 4 hours, up to 8 tablets in 24 hours. Children aged 6 to 11: take "
        "1 tablet every 6 hours, up to 4 tablets in 24 hours."
    )
    (check,) = [
        c
        for c in ReferenceFacts(ref).check_quantities("Adults can take up to 12 tablets in 24 hours.")
        if c.text == "12 tablets"
    ]
    assert check.status == "contradicted" and check.counterpart.text == "8 tablets"
    assert check.sentence.text.startswith("Adults")


@pytest.mark.parametrize("answer, reference", [(EARNINGS, EARNINGS_REF), (TIMETABLE, TIMETABLE_REF)])
def test_the_default_calls_the_earnings_and_timetable_answers_grounded(answer, reference):
    det = hallucheck.detect(answer, reference, llm="none")
    assert det.hallucinated is False, [v.reason for v in det.verdicts]


def test_the_comparison_reads_a_bounded_share_of_a_large_reference():
    from hallucheck.stages.gate.index import MAX_CANDIDATES

    filler = " ".join(f"Valve {i} of the cooling loop is rated {i % 90 + 3}.5 bar." for i in range(400))
    reference = filler + " The rear tyre pressure for a fully loaded car is 2.6 bar."
    ref = ReferenceFacts(reference)
    claim = "The rear tyre pressure for a fully loaded car is 3.0 bar."
    (q,) = ref.quantities[-1]
    cands = ref._index.candidates(q, {"rear": 1.0, "tyre": 1.0, "pressu": 1.0, "load": 1.0}, {})
    assert len({i for i, _, _ in cands}) <= MAX_CANDIDATES < 401
    # the value about the same thing is still found among many of its kind
    assert statuses(reference, claim) == {"3.0 bar": "contradicted"}
    assert statuses(reference, "The rear tyre pressure for a fully loaded car is 2.6 bar.") == {"2.6 bar": "supported"}


@pytest.mark.parametrize(
    "reference, claim, figure",
    [
        # a difference of two figures of two reference sentences, after a word of comparison
        (
            "The petrol model needs 9.8 seconds to 100 km/h. The hybrid needs 8.1 seconds.",
            "The hybrid is 1.7 seconds quicker.",
            "1.7 seconds",
        ),
        # "by X to Y" is a change, not a range
        ("The basic fee is €40. From May the basic fee is €46.", "The basic fee rises by €6 to €46 in May.", "€6"),
        # two of the claim's own figures, no word of arithmetic needed
        (
            "Each seat costs £1,200; the club pays £300 of it.",
            "Of the £1,200 seat price, members pay £900 and the club £300.",
            "£900",
        ),
        # a share of two counts the claim states
        (
            "The plant has 1,600 staff, 400 of whom work nights.",
            "Night workers are a quarter of the staff, 400 of 1,600 people.",
            "a quarter",
        ),
        # a rate times what it is per
        ("Gas used: 2,000 kWh. The unit rate is 7p per kWh.", "At 7p per kWh the gas comes to £140.", "£140"),
        # a percentage applied to an amount, after a word of change
        (
            "The rent is £800 a month. It may rise by at most 5 % a year.",
            "With the 5 % cap, the rent could rise to at most £840 after a year.",
            "£840",
        ),
        # an amount a quarter is a yearly amount times four
        (
            "Marketing spend was $15 million a quarter.",
            "Marketing spend runs at about $60 million a year.",
            "$60 million a year",
        ),
    ],
)
def test_a_figure_one_step_of_arithmetic_gives_is_never_a_conflict(reference, claim, figure):
    got = statuses(reference, claim)
    assert got.get(figure) in ("supported", "computed", "abstained"), got


@pytest.mark.parametrize(
    "reference, claim, figure",
    [
        # the difference is wrong: 9.8 - 8.1 is 1.7, not 2.7
        (
            "The petrol model needs 9.8 seconds to 100 km/h. The hybrid needs 8.1 seconds.",
            "The hybrid is 2.7 seconds quicker.",
            "2.7 seconds",
        ),
        # a share that no two figures give
        (
            "The plant has 1,600 staff, 400 of whom work nights.",
            "Night workers are a third of the staff, 400 of 1,600 people.",
            "a third",
        ),
        # the rate times the wrong quantity
        ("Gas used: 2,000 kWh. The unit rate is 7p per kWh.", "At 7p per kWh the gas comes to £150.", "£150"),
        # a percentage the reference states of something else does not make a wrong value (2.4 bar + 25 %)
        (
            "The front tyres take 2.4 bar. The warning light comes on 25 percent below the recommended value.",
            "When fully loaded, increase the front pressure to 3.0 bar.",
            "3.0 bar",
        ),
        # a changed value with no arithmetic word is still a conflict
        ("The basic fee is €40. The late fee is €46.", "The late fee is €48.", "€48"),
    ],
)
def test_arithmetic_does_not_explain_away_a_wrong_figure(reference, claim, figure):
    got = statuses(reference, claim)
    assert got.get(figure) in ("contradicted", "missing"), got


def test_two_figures_the_claims_words_fit_alike_are_a_tie_and_the_check_abstains():
    # "From May" is all that tells the two fees apart, and those are words the check does not weigh: no
    # one reference figure is about the claim's, so it is not compared (issue 44: no alignment, no
    # contradiction) and never repaired from either
    got = statuses("The basic fee is €40. From May the basic fee is €46.", "From May the basic fee is €48.")
    assert got == {"€48": "abstained"}
