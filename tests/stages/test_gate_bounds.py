"""The ``bounds`` gate rule: a limit turned the other way is contradicted ("at least 8 tablets" where the
reference says "up to 8 tablets"); a figure with no limit word, or a claim's "over"/"under" that
compares the user's figure with a threshold, is left as it was. Each contradiction failed before."""

from __future__ import annotations

import pytest

from hallucheck.stages.gate import ReferenceFacts
from hallucheck.text.quantities import parse_quantities

REF = (
    "Adults: take up to 8 tablets in 24 hours. For all ages, leave at least 4 hours between doses. "
    "The deposit is at least £200. Do not take for more than 3 days. Each bag may weigh up to 23 kg."
)


def _check(claim: str, off: frozenset[str] = frozenset()) -> dict:
    return {c.text: (c.status, c.note) for c in ReferenceFacts(REF).check_quantities(claim, off=off)}


@pytest.mark.parametrize(
    "claim, figure, limit",
    [
        ("You can take at least 8 tablets in 24 hours.", "8 tablets", "an upper limit"),
        ("Leave no more than 4 hours between doses.", "4 hours", "a lower limit"),
        ("The deposit is at most £200.", "£200", "a lower limit"),
        ("Take it for at least 3 days.", "3 days", "an upper limit"),
    ],
)
def test_a_limit_turned_the_other_way_is_contradicted(claim, figure, limit):
    status, note = _check(claim)[figure]
    assert status == "contradicted" and limit in note
    assert _check(claim, off=frozenset({"bounds"}))[figure][0] == "supported"


def test_a_limit_against_a_bound_the_other_way_is_contradicted():
    ref = "Staff may work from home on more than three days per week."
    got = ReferenceFacts(ref).check_quantities("Staff may work up to three remote days a week.")
    assert [(c.text, c.status) for c in got] == [("three remote days a week", "contradicted")]
    assert "a lower limit" in got[0].note


@pytest.mark.parametrize(
    "claim, figure",
    [
        ("You can take up to 8 tablets in 24 hours.", "8 tablets"),
        ("Leave no less than 4 hours between doses.", "4 hours"),
        ("Take 8 tablets in 24 hours.", "8 tablets"),
        ("Your 25 kg bag is over 23 kg.", "23 kg"),
    ],
)
def test_the_same_limit_no_limit_or_a_comparison_of_the_users_figure_is_left_alone(claim, figure):
    assert _check(claim)[figure][0] == "supported"


def test_no_less_than_is_a_lower_limit_and_not_more_than_an_upper_one():
    got = parse_quantities("Wait no less than 4 hours and take not more than 8 tablets.", lang="en")
    assert [(q.text, q.qualifier) for q in got] == [("4 hours", "min"), ("8 tablets", "max")]
