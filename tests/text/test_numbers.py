"""Numbers in digits: thousands separators and decimal commas (``parse_number``)."""

import pytest

from hallucheck.text.numbers import find_numbers, parse_number


@pytest.mark.parametrize(
    "token, decimal_comma, value",
    [
        ("1,000", False, 1000.0),
        ("3,0", False, 3.0),  # not three digits after the comma: a decimal comma even in English
        ("2.4", False, 2.4),
        ("1.000", True, 1000.0),
        ("1.200,50", True, 1200.5),
        ("1\u00a0000", False, 1000.0),
        ("−3", False, -3.0),
    ],
)
def test_a_number_in_digits(token, decimal_comma, value):
    assert parse_number(token, decimal_comma=decimal_comma) == value


def test_what_cannot_be_one_number_is_none():
    assert parse_number("1,000.5,3") is None
    assert parse_number("1.2.3", decimal_comma=True) is None


def test_numbers_in_words_and_scale_words():
    text = "twenty four tablets, 2.5 million people and 5G"
    found = find_numbers(text, False)
    assert (text[found[0].start : found[0].end], found[0].value, found[0].word) == ("twenty four", 24.0, True)
    # the scale word belongs to the number before it ("million" is read again as a word of its own,
    # which parse_quantities skips inside the span); "5G" is no number
    assert (text[found[1].start : found[1].end], found[1].value, found[1].word) == ("2.5 million", 2.5e6, False)
    assert not any(text[n.start : n.end] == "5" for n in found)
