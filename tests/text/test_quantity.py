"""``same_value``: two quantities of one dimension that state the same value (rounded, converted, a
range written another way), and ones that do not."""

import pytest

from hallucheck.text.quantities import parse_quantities
from hallucheck.text.quantity import Quantity, same_value


def one(text, lang=None):
    qs = parse_quantities(text, lang=lang)
    assert len(qs) == 1, [q.text for q in qs]
    return qs[0]


@pytest.mark.parametrize(
    "a, b",
    [
        ("four to six hours", "4 to 6 hours"),
        ("4–6 hours", "between 4 and 6 hours"),
        ("three days", "3 days"),
        ("a day", "24 hours"),
        ("half an hour", "30 minutes"),
        ("2.5 million customers", "2,500,000 customers"),
        ("25 percent", "25%"),
        ("38 psi", "2.6 bar"),
        ("$2.6 million", "2.6 million dollars"),
        ("12 March 2021", "2021-03-12"),
    ],
)
def test_paraphrased_values_are_the_same(a, b):
    assert same_value(one(a), one(b)), (a, b)


@pytest.mark.parametrize(
    "a, b",
    [
        ("12 tablets", "8 tablets"),
        ("3.0 bar", "2.6 bar"),
        ("2.4 psi", "2.4 bar"),
        ("500 mg", "500 g"),
        ("3 days", "3 hours"),
        ("4 to 8 hours", "4 to 6 hours"),
        ("3 days", "3.5 days"),
        ("10 tablets", "14 tablets"),
        ("12 March 2021", "13 March 2021"),
    ],
)
def test_different_values_differ(a, b):
    assert not same_value(one(a), one(b)), (a, b)


def test_rounding_is_recognised_only_where_the_text_rounds():
    assert same_value(one("about 2.5 million customers"), one("2,480,000 customers"))
    assert not same_value(one("2,500,000 customers"), one("2,480,000 customers"))


def test_a_value_inside_a_stated_range_is_consistent_and_other_dimensions_never_match():
    assert same_value(one("8 years"), one("6 to 12 years")) and not same_value(one("14 years"), one("6 to 12 years"))
    eight = Quantity("8", 0, 1, 8.0, 8.0, None)
    assert not same_value(eight, Quantity("8 bar", 0, 5, 8.0, 8.0, "pressure", "bar"))
