"""Dates: ISO, dotted or slashed (day first outside English), Chinese and with month words."""

from hallucheck.text.dates import find_dates


def test_day_first_depends_on_the_language_unless_the_day_cannot_be_a_month():
    assert [q.date for q in find_dates("on 03/04/2021", day_first=False)] == [(2021, 3, 4)]
    assert [q.date for q in find_dates("am 03.04.2021", day_first=True)] == [(2021, 4, 3)]
    assert [q.date for q in find_dates("on 31/03/2025", day_first=False)] == [(2025, 3, 31)]


def test_month_words_in_several_languages_and_chinese():
    assert [q.date for q in find_dates("12 de marzo de 2021 y 2021年3月12日", day_first=True)] == [
        (2021, 3, 12),
        (2021, 3, 12),
    ]
    assert [q.date for q in find_dates("March 2021", day_first=False)] == [(2021, 3, None)]


def test_may_is_a_month_only_when_it_looks_like_one():
    assert find_dates("you may 2 times", day_first=False) == []
    assert [q.date for q in find_dates("May 2", day_first=False)] == [(None, 5, 2)]
