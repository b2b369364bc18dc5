"""Macro scores do not average in a class that has no example, whether or not it was predicted."""

from __future__ import annotations

import pytest

from hallucheck.eval import metrics as m


@pytest.mark.parametrize("label", [0, 1])
def test_macro_scores_leave_out_a_class_with_no_examples(label):
    y = [label] * 4
    assert m.macro_prf(y, y) == (pytest.approx(1.0),) * 3
    t, value = m.best_threshold(y, [0.9 if label else 0.1] * 4, "macro_f1")
    assert value == pytest.approx(1.0)


def test_a_class_that_is_predicted_but_absent_is_left_out_too():
    # class 0: p 1, r 3/4, f1 6/7; class 1 is predicted once but has no example: no recall, not averaged in
    assert m.macro_prf([0, 0, 0, 0], [0, 1, 0, 0]) == (
        pytest.approx(1.0),
        pytest.approx(0.75),
        pytest.approx(6 / 7),
    )
