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


@pytest.mark.parametrize(
    "text, lang, value",
    [
        ("ventitré", "it", 23.0),
        ("quindici", "it", 15.0),
        ("vinte e cinco", "pt", 25.0),
        ("duas", "pt", 2.0),
        ("tweeëntwintig", "nl", 22.0),
        ("veertien", "nl", 14.0),
        ("treinta y cinco", "es", 35.0),
        ("veintitrés", "es", 23.0),
        ("dix-sept", "fr", 17.0),
        ("soixante-quinze", "fr", 75.0),
        ("quatre-vingt-dix", "fr", 90.0),
        ("vingt et un", "fr", 21.0),
        ("fünfundzwanzig", "de", 25.0),
        ("neunzig", "de", 90.0),
    ],
)
def test_numbers_in_words_of_each_language(text, lang, value):
    (n,) = find_numbers(text, False, lang)
    assert (text[n.start : n.end], n.value, n.word) == (text, value, True)


def test_the_number_words_of_italian_portuguese_and_dutch_are_read_only_in_their_language():
    # "due", "sei" and "dez" are words of other languages too
    assert find_numbers("payment is due", False) == []
    assert [n.value for n in find_numbers("sono due", False, "it")] == [2.0]
