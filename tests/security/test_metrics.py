"""Issue 22, case 8: macro scores do not average in a class that has no example (and no prediction)."""

from __future__ import annotations

import pytest

from hallucheck.eval import metrics as m


@pytest.mark.parametrize("label", [0, 1])
def test_macro_scores_leave_out_a_class_with_no_examples(label):
    y = [label] * 4
    assert m.macro_prf(y, y) == (pytest.approx(1.0),) * 3
    t, value = m.best_threshold(y, [0.9 if label else 0.1] * 4, "macro_f1")
    assert value == pytest.approx(1.0)


def test_a_class_that_is_predicted_but_absent_still_counts():
    # class 0: p 1, r 3/4, f1 6/7; class 1 is predicted once with no example: p = r = f1 = 0 (as scikit-learn)
    assert m.macro_prf([0, 0, 0, 0], [0, 1, 0, 0]) == (
        pytest.approx(0.5),
        pytest.approx(0.375),
        pytest.approx(3 / 7),
    )
