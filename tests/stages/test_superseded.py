"""A figure the reference states and later updates (stages/gate/superseded.py): the old value stated as
current is contradicted by the newer one; the old value in its own frame, the newer value, a claim that
tells the change, and a same-kind value about something else are left as the figure check had them."""

from __future__ import annotations

import pytest

from hallucheck.stages.gate.figures import ReferenceFacts

FEE = "The monthly fee is £45. From 1 May 2026 the monthly fee is £55."
EXCESS = (
    "The standard excess is £100, but an escape of water excess of £350 applies. Following your renewal "
    "on 14 June 2025, the standard excess was increased to £150."
)
PROFIT = (
    "In its preliminary results the group reported net profit of €1.84 billion for 2024. Revenue was "
    "€14.2 billion. The audited annual report restated 2024 net profit at €1.71 billion."
)


def _statuses(reference: str, claim: str) -> dict[str, tuple[str, str]]:
    return {c.text: (c.status, c.describe()) for c in ReferenceFacts(reference).check_quantities(claim)}


@pytest.mark.parametrize(
    ("reference", "claim", "figure", "newer"),
    [
        (FEE, "The monthly fee is £45.", "£45", "£55"),
        (EXCESS, "For standard claims your excess is £100.", "£100", "£150"),
        (PROFIT, "The group's net profit for 2024 was €1.84 billion.", "€1.84 billion", "€1.71 billion"),
        (
            "The oil change interval is 20,000 km. Since March the oil change interval has been shortened "
            "to 15,000 km.",
            "Change the oil every 20,000 km.",
            "20,000 km",
            "15,000 km",
        ),
        (
            "Der monatliche Abschlag beträgt 95 €. Ab März 2025 beträgt der monatliche Abschlag nun 101 €.",
            "Ihr monatlicher Abschlag beträgt 95 €.",
            "95 €",
            "101 €",
        ),  # fmt: skip
        (
            "Les frais de tenue de compte sont de 5 € par mois. À partir de juillet, les frais de tenue de "
            "compte passent à 6 € par mois.",
            "Les frais de tenue de compte sont de 5 € par mois.",
            "5 €",
            "6 €",
        ),
        (
            "La cuota mensual es de 30 €. Desde enero de 2026, la cuota mensual sube a 35 €.",
            "La cuota mensual es de 30 €.",
            "30 €",
            "35 €",
        ),  # fmt: skip
        (
            FEE.replace("From 1 May 2026 the monthly fee is £55.", "The monthly fee is now £55."),
            "The monthly fee is £45.",
            "£45",
            "£55",
        ),  # fmt: skip
        # a time after the value is no case: "in May 2026", "with effect from"
        (
            FEE.replace("From 1 May 2026 the monthly fee is £55.", "The monthly fee rises to £55 in May 2026."),
            "The monthly fee is £45.",
            "£45",
            "£55",
        ),  # fmt: skip
        (
            FEE.replace(
                "From 1 May 2026 the monthly fee is £55.", "The monthly fee was raised to £55 with effect from 1 May."
            ),
            "The monthly fee is £45.",
            "£45",
            "£55",
        ),  # fmt: skip
    ],
)
def test_an_old_value_stated_as_current_is_contradicted_by_the_update(reference, claim, figure, newer):
    found = _statuses(reference, claim)
    status, reason = next(v for k, v in found.items() if k.startswith(figure))
    assert status == "contradicted"
    assert newer in reason  # the reason quotes the newer sentence


@pytest.mark.parametrize(
    ("reference", "claim", "figure"),
    [
        (FEE, "The monthly fee is £55.", "£55"),  # the newer value
        (FEE, "Until the end of April the monthly fee was £45.", "£45"),  # the old value in its frame
        (FEE, "The monthly fee goes up from £45 to £55.", "£45"),  # a claim that tells the change
        (PROFIT, "The preliminary results put 2024 net profit at €1.84 billion.", "€1.84 billion"),
        (PROFIT, "Revenue was €14.2 billion.", "€14.2 billion"),  # another figure of a text that updates one
        # a same-kind value about something else, even introduced as a change
        (
            "The standard excess is £100. From 2026 the excess for drivers under 25 rises to £300.",
            "The standard excess is £100.",
            "£100",
        ),  # fmt: skip
        # several values of one kind, no update
        ("Standard delivery costs £4.95. Express delivery costs £8.95.", "Standard delivery costs £4.95.", "£4.95"),
        # an update that comes before the value is no update of it
        ("From 1 May 2026 the monthly fee is £55. The joining fee is £20.", "The joining fee is £20.", "£20"),
        # the claim dates its value to the old sentence's period
        (
            "The water charge for 2024 was £1.92 per cubic metre. From April 2025 the water charge rises to £2.10 "
            "per cubic metre.",
            "The 2024 water charge was £1.92 per cubic metre.",
            "£1.92",
        ),  # fmt: skip
        # the same cue in both sentences: parallel statements, not an update
        (
            "A simple funeral now costs an average of £3,590. A full funeral now costs £5,423.",
            "A simple funeral now costs an average of £3,590.",
            "£3,590",
        ),  # fmt: skip
        # a narrative that moves on in time: the old value is the one of its own moment
        (
            "A month after the visit her weight reaches 392 lbs, a total loss of 215 lbs. After 11 months she "
            "weighs 340 lbs, a total weight loss of 267 lbs.",
            "A month after the visit her weight reaches 392 lbs, a total loss of 215 lbs.",
            "215 lbs",
        ),  # fmt: skip
        # an instruction for a case is no update of the value before it
        (
            "The recommended rear tyre pressure is 2.2 bar. When the vehicle is fully loaded, increase the rear "
            "tyre pressure to 2.6 bar.",
            "The recommended rear tyre pressure is 2.2 bar.",
            "2.2 bar",
        ),  # fmt: skip
        (
            "The standard excess is £100. For drivers under 25, the standard excess increases to £300.",
            "The standard excess is £100.",
            "£100",
        ),  # fmt: skip
        # a rule that sets a value for a case ("reduces the rate to") is no update
        (
            "The account pays 4.35% AER. A fourth withdrawal in the same year reduces the rate to 1.50% AER.",
            "The account pays 4.35% AER.",
            "4.35%",
        ),  # fmt: skip
        # "now" speaks of the value right after it, here of another referent
        (
            "Like-for-like sales grew 4.8%. Online sales rose 11% and now account for 18% of total sales.",
            "Like-for-like sales rose 4.8%.",
            "4.8%",
        ),  # fmt: skip
        # the claim's words fit neither value: the referent is unsure
        (
            "Spark plugs: every 60,000 km. The oil change interval has been shortened to 15,000 km.",
            "Their 60,000 km interval is roughly 37,000 miles.",
            "60,000 km",
        ),  # fmt: skip
        # a value for a case named right after it
        (
            "Le préavis est de trois mois. Ce préavis est réduit à un mois en cas de mutation professionnelle.",
            "Le préavis normal est de 3 mois.",
            "3 mois",
        ),  # fmt: skip
        # "now" before another kind of statement about the same words ("31% of group sales")
        (
            "Group sales increased by 4.1% to £1,236 million. Online sales now account for 31% of group sales.",
            "Group sales rose 4.1% to £1,236 million.",
            "4.1%",
        ),  # fmt: skip
        # a case named after the value: patients, a ticket, a prescription
        (
            "The usual dose is 2 tablets. The dose is reduced to 1 tablet in patients with kidney problems.",
            "The dose is 2 tablets.",
            "2 tablets",
        ),  # fmt: skip
        (
            "The baggage limit is 20 kg. The baggage limit is increased to 30 kg with a premium ticket.",
            "The baggage limit is 20 kg.",
            "20 kg",
        ),  # fmt: skip
    ],
)
def test_what_is_no_stale_figure_keeps_its_support(reference, claim, figure):
    found = _statuses(reference, claim)
    assert next(v for k, v in found.items() if k.startswith(figure))[0] == "supported", found


def test_the_check_without_the_update_still_supports_the_value():
    # the same claim against the reference without its later sentence: the update alone makes the difference
    assert _statuses("The monthly fee is £45.", "The monthly fee is £45.")["£45"][0] == "supported"
    assert _statuses(FEE, "The monthly fee is £45.")["£45"][0] == "contradicted"


def test_an_update_is_looked_for_only_within_reach_of_the_old_value():
    from hallucheck.stages.gate.superseded import UPDATE_REACH

    filler = " ".join(f"Section {n} covers another topic entirely." for n in range(UPDATE_REACH))
    near = f"The monthly fee is £45. {filler} From 1 May 2026 the monthly fee is £55."
    assert _statuses(near, "The monthly fee is £45.")["£45"][0] == "supported"  # the update is out of reach
    within = f"The monthly fee is £45. {filler.split('. ')[0]}. From 1 May 2026 the monthly fee is £55."
    assert _statuses(within, "The monthly fee is £45.")["£45"][0] == "contradicted"
