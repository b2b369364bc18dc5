"""The unit and currency look-ups at a position of a text."""

import pytest

from hallucheck.text.units import currency_after, currency_before, to_base, unit_at


def test_the_longest_unit_that_fits_wins_and_converts_to_its_base():
    surface, dim, factor, end = unit_at("50 km/h here", 2)
    assert (surface, dim, factor, end) == ("km/h", "speed", 1.0, 7)
    surface, dim, factor, _ = unit_at("38 psi", 2)
    assert dim == "pressure" and 38 * factor == pytest.approx(2.62, abs=0.01)
    assert to_base(212.0, "°F", 5 / 9) == pytest.approx(100.0)


def test_one_letter_units_only_in_their_usual_case_and_place():
    assert unit_at("5G modem", 1) is None
    assert unit_at("3 M", 1) is None
    assert unit_at("2 m", 1)[1] == "length"


def test_currencies_before_and_after_a_number():
    assert currency_before("costs $2.6", 7) == ("USD", 6)
    assert currency_before("SEK 410", 4) == ("SEK", 0)
    assert currency_after("40 € each", 2)[0] == "EUR"
    assert currency_after("40 dollars", 2) == ("USD", 10)
