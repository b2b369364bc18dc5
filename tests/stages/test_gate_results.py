"""A figure the answer computes for the user's case is about that case: it is computed or left
unjudged -- never contradicted by a reference figure of something else that
happens to share its unit. A value per kilogram or per 100 km is a rate, not an amount. Each example
failed before (at b5595c9)."""

from __future__ import annotations

import hallucheck
from hallucheck.stages.gate import ReferenceFacts
from hallucheck.text.quantities import parse_quantities

HIRE = "Daily hire rates: €41 for a city car, €56 for an estate and €83 for a van."
GYM = "Membership: Basic £19.99/month; Plus £29.99/month. Personal training sessions cost £25 each for all members."
DOSE = (
    "Paracetamol oral suspension for children: 15 mg/kg per dose, every 4 to 6 hours. Do not exceed 60 mg/kg per day."
)


def _checks(ref: str, claim: str, question: str | None = None) -> dict:
    return {c.text: c for c in ReferenceFacts(ref).check_quantities(claim, question=question)}


def test_a_total_for_the_users_case_is_not_contradicted_by_a_unit_price():
    q = "I want the estate for 5 days."
    # before: contradicted by the estate's €56 a day
    assert _checks(HIRE, "For your 5 days the estate comes to €280.", question=q)["€280"].status == "abstained"
    # before: contradicted by Basic's £19.99 a month
    got = _checks(GYM, "Basic with 2 sessions makes £69.99 a month.", question="I would book 2 sessions a month.")
    assert got["£69.99 a month"].status != "contradicted"


def test_a_total_whose_operands_are_stated_is_computed_or_left_to_the_verifier():
    q = "I want the estate for 5 days."
    assert _checks(HIRE, "The estate costs €56, so 5 days come to €280.", question=q)["€280"].status == "computed"
    # no step over 56 and 5 gives €290, but a result no step gives is as often worked from a figure of an
    # earlier sentence: it abstains (before: contradicted, "no sum ... of the figures (56, 5) gives it")
    assert _checks(HIRE, "The estate costs €56, so 5 days come to €290.", question=q)["€290"].status == "abstained"


def test_a_total_worked_from_an_earlier_sentence_is_not_contradicted():
    # blind set 16: the total adds the prices of the sentence before; the £20 fee and the "2" beside it
    # are not its operands (before: contradicted, "no sum ... of the figures (20, 2) gives it")
    ref = (
        "| Vaccine | Doses | Price per dose |\n|---|---|---|\n| Typhoid | 1 | £40 |\n| Rabies | 3 | £75 |\n"
        "| Yellow fever | 1 | £80 |\n\nConsultation fee: £20 (waived if 2 or more vaccines are given at once)."
    )
    answer = (
        "Typhoid is £40, yellow fever £80, and rabies is 3 doses at £75 each, which is £225. Together that "
        "comes to £345, and the £20 consultation fee is waived because you are having 2 or more vaccines."
    )
    first, total = hallucheck.detect(answer, ref, method="entity_check").verdicts
    assert first.label == "supported" and "'£225' (worked out from the figures beside it)" in first.reason
    assert total.label != "contradicted" and "£345" in total.reason


def test_a_result_with_an_operand_the_check_cannot_read_is_left_unjudged():
    # 56 x 5 + 20 = 300, but the reference does not state the €20 insurance: the arithmetic over the
    # figures it can read (56, 5) is no ground to call the total wrong (before: contradicted)
    claim = "The estate costs €56, so 5 days plus the €20 insurance come to €300."
    assert _checks(HIRE, claim, question="I want the estate for 5 days.")["€300"].status != "contradicted"


FERRY = "Single fares: adult £14.50, child (4-15) £7.25, car up to 5 m £46.00, bicycle £3.00."


def test_a_total_over_more_than_two_operands_is_computed_or_left_unjudged_never_contradicted():
    # 2 x 14.50 + 7.25 + 46.00 = 82.25: more steps than the rule works out; with three operands or more a
    # correct total is often one the rule cannot follow, so a total it cannot find is not called wrong
    # (before: "no sum, difference, product or share of the figures it is computed from (2, 14.5, 7.25, 46)")
    q = "We are 2 adults and 1 child taking the car."
    claim = "Two adult singles at £14.50, a child single at £7.25 and the car at £46.00 come to £82.25 in total."
    assert _checks(FERRY, claim, question=q)["£82.25"].status == "abstained"


def test_a_stated_figure_said_wrong_is_still_contradicted_by_its_own_value():
    # no word of a result before it: a restatement, compared as before
    assert _checks(HIRE, "The estate costs €61.")["€61"].counterpart.text == "€56"
    assert _checks(HIRE, "The estate costs €61.")["€61"].status == "contradicted"
    assert _checks(GYM, "Plus costs £32.99 a month.")["£32.99 a month"].status == "contradicted"


def test_a_dose_per_kilogram_is_a_rate_and_never_contradicts_the_childs_dose():
    (q,) = parse_quantities("Do not exceed 60 mg/kg per day.")
    assert q.text == "60 mg/kg" and q.dim == "mass/mass"
    got = _checks(DOSE, "For an 18 kg child one dose is 270 mg.", question="My daughter weighs 18 kg.")
    assert got["270 mg"].status != "contradicted"
    # a wrong rate is compared with the rate
    got = _checks(DOSE, "The dose is 20 mg/kg every 4 to 6 hours.")
    assert got["20 mg/kg"].status == "contradicted" and "15 mg/kg" in got["20 mg/kg"].counterpart.text


def test_a_value_per_100_km_is_a_rate_and_the_amount_it_is_per_stays_a_figure():
    qs = {q.text: q for q in parse_quantities("Fuel consumption (combined): 6.2 L/100 km; tank 50 L.")}
    assert qs["6.2 L"].dim.endswith("/length")  # a rate, never compared with an amount of litres
    assert qs["100 km"].dim == "length"
    # a concentration: "each 5 mL" and "120 mg" said apart are not wrong (before the amount was its own
    # figure again, the 5 mL was "missing")
    ref = "Paracetamol oral suspension 120 mg/5 mL. Children: 15 mg/kg per dose, every 4 to 6 hours."
    got = _checks(ref, "Each 5 mL spoon contains 120 mg of paracetamol.")
    assert got["5 mL"].status == "supported" and got["120 mg"].status != "contradicted"
    assert _checks(ref, "The strength is 120 mg/5 mL.")["120 mg"].status == "supported"
    assert _checks(ref, "The strength is 250 mg/5 mL.")["250 mg"].status in ("contradicted", "missing")


def test_the_arithmetic_over_many_results_is_worked_out_once_per_pass(monkeypatch):
    from hallucheck.stages.gate import computed

    calls = []
    real = computed._results
    monkeypatch.setattr(computed, "_results", lambda ops: calls.append(ops) or real(ops))
    results = ", ".join(f"so €{1000 + 7 * n} for {n + 2} days" for n in range(25))
    claim = f"The estate costs €56 and the van €83, {results}."
    got = ReferenceFacts(HIRE).check_quantities(claim, question="How much for a few days?")
    assert len(got) > 50  # under the 64 figures a sentence is read with
    # no result is given by a step over the two prices: one list of operands, worked out once
    assert len(calls) == 1
    assert all(c.status != "computed" for c in got if c.text.startswith("€1"))


def test_a_result_rounded_to_its_digits_is_no_operand_for_the_next():
    # 83 / 56 = 1.48 "is" 1 day when rounded; it must not then make 56 + 1 = €57 a computed figure
    claim = "The estate costs €56 and the van €83, so €57 for 1 days."
    got = _checks(HIRE, claim)
    assert got["€57"].status != "computed"


BROADBAND = (
    "FibreLink 500 plan\nAverage peak-time download speed: 500 Mbps\nMinimum guaranteed download speed: 350 Mbps\n"
    "Upload speed: 75 Mbps"
)


def test_a_value_the_reference_states_of_another_row_is_not_computed_from_the_question_by_chance():
    # 2 x 250 = 500, but the reference states 500 Mbps as the average speed: the claim copies that row's
    # value for the guaranteed minimum (before: "computed" from the question's figures, so never contradicted)
    q = "We are 2 people and each of us streams at 250 Mbps. Is the plan fast enough?"
    wrong = _checks(BROADBAND, "The guaranteed minimum download speed is 500 Mbps.", question=q)["500 Mbps"]
    assert wrong.status == "contradicted" and wrong.counterpart.text == "350 Mbps"
    right = _checks(BROADBAND, "Together you need 500 Mbps, which is the average peak-time speed.", question=q)
    assert right["500 Mbps"].status == "supported"


def test_a_wrong_figure_that_equals_a_sum_of_the_sentences_figures_is_not_worked_out():
    # the coolant's figure is about the coolant's 7 litres; that 4 + 2 gives 6 is chance, and the words say
    # no result (before: '6 litres' (worked out from the figures beside it), the sentence supported)
    ref = "The engine holds 4 litres of oil and the gearbox 2 litres. The coolant system holds 7 litres."
    claim = "The engine holds 4 litres of oil and the gearbox 2 litres, and the coolant system holds 6 litres."
    assert _checks(ref, claim)["6 litres"].status != "computed"
    (verdict,) = hallucheck.detect(claim, ref, method="entity_check").verdicts
    assert "worked out" not in verdict.reason and "'6 litres'" in verdict.reason
    # said as a result, it is still worked out: "so the two hold 6 litres"
    said = "The engine holds 4 litres of oil and the gearbox 2 litres, so together they hold 6 litres."
    assert _checks(ref, said)["6 litres"].status == "computed"


CONTRACT = "Monthly fee: £15.29 on a 12-month contract. Joining fee: £20 (waived for 12-month contracts)."


def test_a_value_far_from_the_figure_it_was_compared_with_beside_an_aligned_one_is_a_result():
    # before: "£183.48" was contradicted by the £20 joining fee (12 x 15.29, worked from the sentence before)
    got = _checks(CONTRACT, "Over 12 months that contract would cost £183.48.")
    assert got["12 months"].status == "supported" and got["£183.48"].status == "abstained"
    # a figure said wrong near its own value stays contradicted, and so does a far one with nothing aligned beside it
    assert _checks(CONTRACT, "The joining fee is £25.")["£25"].status == "contradicted"
    assert _checks(CONTRACT, "The joining fee is £200.")["£200"].status == "contradicted"


HOTEL = (
    "Room rates per night: standard room £85; superior room £110; suite £140. Breakfast is £12 per person per "
    "night. Parking costs £4 per hour in the hotel garage. Late checkout until 2 pm costs £25 per room. Every room "
    "has a kettle and free Wi-Fi. Check-in opens at 3 pm. Cots are free for children under 2. Pets stay for £15 "
    "per night in superior rooms. The spa opens at 7 am. The town museum, founded in 1860, shows 120 paintings."
)


def test_a_step_over_the_users_figures_takes_its_operand_from_what_the_claim_is_about():
    q = "We stay 3 nights in a standard room. What do we pay?"
    assert _checks(HOTEL, "Three nights in a standard room come to £255.", question=q)["£255"].status == "computed"
    # before: computed as 3 x 120, the museum's paintings; now no step over the room rates gives it
    assert _checks(HOTEL, "Three nights in a standard room come to £360.", question=q)["£360"].status == "abstained"
