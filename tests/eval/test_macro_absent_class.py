"""Macro averages are over the classes the labels hold: a class with no example is left out of the
mean even when it was predicted (its recall is undefined; the false predictions already lower the
other class's recall), in macro_prf, in the macro_f1 threshold search and in the run report."""

from __future__ import annotations

from pytest import approx

from hallucheck.eval import metrics as m
from hallucheck.eval.report import classification_metrics


def test_a_predicted_class_with_no_example_is_not_averaged_in():
    y, pred = [0, 0, 0, 0], [0, 0, 0, 1]
    # the grounded class: precision 3/3, recall 3/4, F1 6/7; the hallucinated class has no example
    assert m.macro_prf(y, pred) == (approx(1.0), approx(0.75), approx(6 / 7))
    assert m.macro_prf([1, 1], [1, 0]) == (approx(1.0), approx(0.5), approx(2 / 3))


def test_both_classes_present_is_the_plain_mean():
    y, pred = [1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 0]
    pc = m.per_class_prf(y, pred)
    assert m.macro_prf(y, pred)[2] == approx((pc[0]["f1"] + pc[1]["f1"]) / 2)


def test_the_threshold_search_and_the_report_agree():
    y, scores = [0, 0, 0, 0], [0.1, 0.2, 0.3, 0.9]
    t, best = m.best_threshold(y, scores, "macro_f1")
    assert best == approx(1.0) and t > 0.9  # a threshold above every score predicts all grounded
    assert m.best_threshold([0, 0, 0, 0, 1], [0.1, 0.2, 0.3, 0.8, 0.9], "macro_f1")[1] == approx(1.0)
    report = classification_metrics(y, [0, 0, 0, 1], bootstrap=0)
    assert report["macro_f1"] == approx(6 / 7) and report["balanced_accuracy"] is None
