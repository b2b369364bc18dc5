"""Declared constraints answer questions about their values: which values are legal when they are
few (:meth:`Constraint.choices`) and a legal value other than a given one
(:meth:`Constraint.other_than`), so that nothing reads their descriptions' words."""

from __future__ import annotations

import pytest

from hallucheck.constraints import (
    BOOL,
    NONE,
    POSITIVE_INT,
    TEXT,
    UNIT,
    InstanceOf,
    Interval,
    ListOf,
    NoOtherValue,
    OneOf,
    check_param,
    choices,
    other_than,
)


def test_choices_are_the_legal_values_when_they_are_few():
    assert OneOf("score", "reference").choices() == ("score", "reference")
    assert BOOL.choices() == (False, True)
    assert choices((OneOf("auto", "qa"), NONE)) == ("auto", "qa", None)
    assert choices((UNIT, NONE)) is None  # a number in [0, 1] is not a few values
    assert UNIT.choices() is None and TEXT.choices() is None and ListOf(UNIT).choices() is None


SPECS = [
    POSITIVE_INT,
    UNIT,
    Interval(int, 0, 3),
    Interval(float, 2.0),
    Interval(float, None, -1.0),
    BOOL,
    TEXT,
    InstanceOf(dict),
    OneOf("entities", "numbers", "none"),
    (UNIT, NONE),
    (OneOf("auto"), ListOf(UNIT, length=2), NONE),
    ListOf(POSITIVE_INT),
]


@pytest.mark.parametrize("spec", SPECS, ids=repr)
@pytest.mark.parametrize("value", [None, 0, 1, 0.5, True, "auto", "entities", [0.2, 0.6]])
def test_other_than_gives_a_legal_value_that_differs(spec, value):
    other = other_than(spec, value)
    check_param("Owner", "p", other, spec)  # legal
    assert not (other == value and type(other) is type(value))


def test_other_than_keeps_close_to_the_value_it_moves_from():
    assert other_than(POSITIVE_INT, 4) == 5
    assert other_than(UNIT, 0.82) == 0.42
    assert other_than(BOOL, True) is False
    assert other_than(TEXT, "minilm") == "minilm-other"
    assert other_than(OneOf("entities", "numbers"), "entities") == "numbers"
    low, high = other_than((OneOf("auto"), ListOf(UNIT, length=2), NONE), "auto")
    assert 0 <= low <= high <= 1  # a pair is [low, high]


def test_no_other_value_is_said_so():
    with pytest.raises(NoOtherValue, match="no value other than 'x'"):
        other_than(OneOf("x"), "x")
    with pytest.raises(NoOtherValue):
        NONE.other_than(None)
    assert issubclass(NoOtherValue, LookupError)
