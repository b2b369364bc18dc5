"""Metrics checked against values worked out by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hallucheck.errors import ConfigError, InputError
from hallucheck.eval import metrics as m

# The running example: 6 labels, 3 hallucinated (1) and 3 grounded (0).
Y = [1, 1, 1, 0, 0, 0]
# Predictions: all three positives caught, two grounded examples flagged.
#   tp = 3 (idx 0,1,2)  fn = 0  fp = 2 (idx 3,4)  tn = 1 (idx 5)
P = [1, 1, 1, 1, 1, 0]
# Scores with a tie between a positive and a negative at 0.4.
#   positives: 0.9, 0.4, 0.6     negatives: 0.4, 0.3, 0.7
S = [0.9, 0.4, 0.6, 0.4, 0.3, 0.7]


def approx(x):
    return pytest.approx(x, abs=1e-12)


# ---------------------------------------------------------------------------------------------
# classification
# ---------------------------------------------------------------------------------------------


def test_confusion_counts():
    assert m.confusion(Y, P) == {"tp": 3, "fp": 2, "tn": 1, "fn": 0}


def test_accuracy():
    # (tp + tn) / n = (3 + 1) / 6
    assert m.accuracy(Y, P) == approx(4 / 6)


def test_precision_recall_f1_positive_class():
    # p = 3 / (3 + 2) = 0.6 ; r = 3 / (3 + 0) = 1 ; f1 = 2 * 0.6 * 1 / 1.6 = 0.75
    p, r, f1 = m.precision_recall_f1(Y, P)
    assert (p, r, f1) == (approx(0.6), approx(1.0), approx(0.75))


def test_precision_recall_f1_grounded_class():
    # class 0: p = tn / (tn + fn) = 1 / 1 ; r = tn / (tn + fp) = 1 / 3 ; f1 = 2 * 1 * (1/3) / (4/3) = 0.5
    p, r, f1 = m.precision_recall_f1(Y, P, positive=0)
    assert (p, r, f1) == (approx(1.0), approx(1 / 3), approx(0.5))


def test_per_class_and_macro():
    pc = m.per_class_prf(Y, P)
    assert pc[1] == {"precision": approx(0.6), "recall": approx(1.0), "f1": approx(0.75), "support": 3}
    assert pc[0] == {"precision": approx(1.0), "recall": approx(1 / 3), "f1": approx(0.5), "support": 3}
    # macro: p = (0.6 + 1) / 2 = 0.8 ; r = (1 + 1/3) / 2 = 2/3 ; f1 = (0.75 + 0.5) / 2 = 0.625
    assert m.macro_prf(Y, P) == (approx(0.8), approx(2 / 3), approx(0.625))


def test_sensitivity_specificity_balanced_accuracy():
    assert m.sensitivity(Y, P) == approx(1.0)  # 3 / 3
    assert m.specificity(Y, P) == approx(1 / 3)  # 1 / 3
    assert m.balanced_accuracy(Y, P) == approx(2 / 3)  # (1 + 1/3) / 2


def test_zero_division_gives_zero():
    # nothing predicted hallucinated: precision 0/0 -> 0, recall 0/2 = 0, f1 -> 0
    assert m.precision_recall_f1([1, 1, 0], [0, 0, 0]) == (0.0, 0.0, 0.0)
    # no hallucinated example at all: recall 0/0 -> 0 ; precision 0/1 = 0
    assert m.precision_recall_f1([0, 0, 0], [1, 0, 0]) == (0.0, 0.0, 0.0)
    assert m.sensitivity([0, 0], [0, 1]) == 0.0
    assert m.specificity([1, 1], [1, 0]) == 0.0
    # all one class, all correct: class 0 has no example and no prediction, so it is not averaged in
    assert m.macro_prf([1, 1, 1], [1, 1, 1]) == (approx(1.0), approx(1.0), approx(1.0))
    assert m.balanced_accuracy([1, 1, 1], [1, 1, 1]) == approx(0.5)


def test_accepts_bools_numpy_and_float_labels():
    assert m.confusion(np.array([True, False]), [1.0, 0.0]) == {"tp": 1, "fp": 0, "tn": 1, "fn": 0}
    assert m.accuracy(np.array([1, 0, 1]), (1, 1, 1)) == approx(2 / 3)


@pytest.mark.parametrize(
    "y_true, y_pred, message",
    [
        ([1, 0], [1], "same length, got 2 and 1"),
        ([], [], "empty"),
        ([1, 2, 0], [1, 0, 0], "found 2 at index 1"),
        ([1, 0], ["1", 0], "found '1' at index 0"),
        ([1, float("nan")], [1, 0], "found nan at index 1"),
        ("10", [1, 0], "got a str"),
    ],
)
def test_invalid_labels(y_true, y_pred, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        m.accuracy(y_true, y_pred)


def test_invalid_positive_class():
    with pytest.raises(ConfigError, match="positive must be 0 or 1"):
        m.precision_recall_f1(Y, P, positive=2)


# ---------------------------------------------------------------------------------------------
# ranking
# ---------------------------------------------------------------------------------------------


def test_roc_auc_with_ties():
    # all 9 (positive, negative) pairs; a win = 1, a tie = 1/2:
    #   0.9 vs (0.4, 0.3, 0.7): 1 + 1 + 1 = 3
    #   0.4 vs (0.4, 0.3, 0.7): .5 + 1 + 0 = 1.5
    #   0.6 vs (0.4, 0.3, 0.7): 1 + 1 + 0 = 2
    # AUC = 6.5 / 9 = 13/18
    assert m.roc_auc(Y, S) == approx(13 / 18)


def test_roc_auc_extremes_and_all_ties():
    assert m.roc_auc([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4]) == approx(1.0)
    assert m.roc_auc([1, 1, 0, 0], [0.1, 0.2, 0.3, 0.4]) == approx(0.0)
    assert m.roc_auc([1, 0, 1, 0], [0.5, 0.5, 0.5, 0.5]) == approx(0.5)  # every pair tied


def test_roc_auc_equals_pairwise_count_on_tie_heavy_data():
    # the definition itself: wins + ties / 2 over all (positive, negative) pairs
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 300)
    s = np.round(rng.random(300), 1)
    pos, neg = s[y == 1][:, None], s[y == 0][None, :]
    expected = ((pos > neg).sum() + 0.5 * (pos == neg).sum()) / (pos.size * neg.size)
    assert m.roc_auc(y, s) == approx(expected)


def test_roc_auc_one_class_is_nan():
    assert math.isnan(m.roc_auc([1, 1, 1], [0.1, 0.5, 0.9]))
    assert math.isnan(m.roc_auc([0, 0], [0.1, 0.5]))


def test_roc_curve_points():
    # thresholds in decreasing order; predicted 1 when score >= t
    #   t = inf : tp 0 fp 0 -> (0, 0)
    #   t = 0.9 : + pos       tp 1 fp 0 -> fpr 0,   tpr 1/3
    #   t = 0.7 : + neg       tp 1 fp 1 -> fpr 1/3, tpr 1/3
    #   t = 0.6 : + pos       tp 2 fp 1 -> fpr 1/3, tpr 2/3
    #   t = 0.4 : + pos + neg tp 3 fp 2 -> fpr 2/3, tpr 1
    #   t = 0.3 : + neg       tp 3 fp 3 -> fpr 1,   tpr 1
    fpr, tpr, thr = m.roc_curve(Y, S)
    assert fpr == [approx(v) for v in (0, 0, 1 / 3, 1 / 3, 2 / 3, 1)]
    assert tpr == [approx(v) for v in (0, 1 / 3, 1 / 3, 2 / 3, 1, 1)]
    assert thr == [math.inf, 0.9, 0.7, 0.6, 0.4, 0.3]
    # the trapezoid area under these points equals the rank AUC: 1/9 + 5/18 + 1/3 = 13/18
    area = sum((fpr[i + 1] - fpr[i]) * (tpr[i + 1] + tpr[i]) / 2 for i in range(len(fpr) - 1))
    assert area == approx(13 / 18)


def test_average_precision_step_wise():
    # thresholds descending, AP = sum (R_k - R_{k-1}) * P_k:
    #   0.9: tp1 fp0 P=1   R=1/3 -> 1/3 * 1   = 1/3
    #   0.7: tp1 fp1 P=1/2 R=1/3 -> 0
    #   0.6: tp2 fp1 P=2/3 R=2/3 -> 1/3 * 2/3 = 2/9
    #   0.4: tp3 fp2 P=3/5 R=1   -> 1/3 * 3/5 = 1/5
    #   0.3: tp3 fp3 P=1/2 R=1   -> 0
    # AP = 15/45 + 10/45 + 9/45 = 34/45
    assert m.average_precision(Y, S) == approx(34 / 45)


def test_average_precision_edges():
    assert math.isnan(m.average_precision([0, 0, 0], [0.1, 0.2, 0.3]))  # no positive
    assert m.average_precision([1, 1], [0.1, 0.2]) == approx(1.0)  # no negative: precision 1
    # one tie group holding everything: P = 1/2 at R = 1
    assert m.average_precision([1, 0], [0.5, 0.5]) == approx(0.5)


def test_pr_curve_points():
    # sklearn order: thresholds ascending, final (precision 1, recall 0) point without threshold
    precision, recall, thr = m.pr_curve(Y, S)
    assert thr == [0.3, 0.4, 0.6, 0.7, 0.9]
    assert precision == [approx(v) for v in (1 / 2, 3 / 5, 2 / 3, 1 / 2, 1, 1)]
    assert recall == [approx(v) for v in (1, 1, 2 / 3, 1 / 3, 1 / 3, 0)]


def test_invalid_scores():
    with pytest.raises(InputError, match="finite real numbers; found nan at index 2"):
        m.roc_auc([1, 0, 1], [0.2, 0.1, float("nan")])
    with pytest.raises(InputError, match="found 'high' at index 0"):
        m.average_precision([1, 0], ["high", 0.1])
    with pytest.raises(InputError, match="same length"):
        m.roc_curve([1, 0], [0.3])


# ---------------------------------------------------------------------------------------------
# thresholds
# ---------------------------------------------------------------------------------------------
# Candidates (ascending) 0.3, 0.4, 0.6, 0.7, 0.9 and 1.9 (= max + 1):
#   t    tp fp fn tn   F1(pos)=2tp/(2tp+fp+fn)  F1(neg)=2tn/(2tn+fn+fp)  macro    bal.acc  accuracy
#   0.3  3  3  0  0    6/9 = .667               0                        1/3      .5       3/6
#   0.4  3  2  0  1    6/8 = .75                2/4 = .5                 .625     2/3      4/6
#   0.6  2  1  1  2    4/6 = .667               4/6 = .667               2/3      2/3      4/6
#   0.7  1  1  2  2    2/5 = .4                 4/7                      .486     .5       3/6
#   0.9  1  0  2  3    2/4 = .5                 6/8 = .75                .625     2/3      4/6
#   1.9  0  0  3  3    0                        6/9                      1/3      .5       3/6


def test_best_threshold_macro_f1():
    assert m.best_threshold(Y, S, "macro_f1") == (0.6, approx(2 / 3))


def test_best_threshold_f1():
    assert m.best_threshold(Y, S, "f1") == (0.4, approx(0.75))


def test_best_threshold_ties_take_the_lowest():
    # balanced accuracy 2/3 is reached at 0.4, 0.6 and 0.9: the lowest wins
    assert m.best_threshold(Y, S, "balanced_accuracy") == (0.4, approx(2 / 3))
    assert m.best_threshold(Y, S, "accuracy") == (0.4, approx(4 / 6))


def test_best_threshold_above_max_when_all_grounded():
    # every example grounded: predicting nothing hallucinated is perfect (accuracy 1) -> 0.5 + 1
    assert m.best_threshold([0, 0], [0.2, 0.5], "accuracy") == (1.5, approx(1.0))


def test_best_threshold_unknown_metric():
    with pytest.raises(ConfigError, match="unknown threshold metric 'auc'; choose one of macro_f1"):
        m.best_threshold(Y, S, "auc")


def test_apply_threshold():
    assert m.apply_threshold(S, 0.6) == [1, 0, 1, 0, 0, 1]
    assert m.apply_threshold(S, 0.4) == [1, 1, 1, 1, 0, 1]
    # tuning then applying reproduces the tuned value
    t, value = m.best_threshold(Y, S, "macro_f1")
    assert m.macro_prf(Y, m.apply_threshold(S, t))[2] == approx(value)
    with pytest.raises(ConfigError, match="threshold must be a real number"):
        m.apply_threshold(S, "0.5")


# ---------------------------------------------------------------------------------------------
# bootstrap
# ---------------------------------------------------------------------------------------------


def test_bootstrap_constant_metric():
    # all predictions right -> every resample has accuracy 1
    assert m.bootstrap_ci(m.accuracy, Y, Y, n=50) == (1.0, 1.0)


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 200).tolist()
    pred = [v if rng.random() < 0.8 else 1 - v for v in y]
    a = m.bootstrap_ci(m.accuracy, y, pred, n=300, seed=7)
    b = m.bootstrap_ci(m.accuracy, y, pred, n=300, seed=7)
    assert a == b
    low, high = a
    assert low < m.accuracy(y, pred) < high
    assert 0.0 <= low < high <= 1.0
    narrow = m.bootstrap_ci(m.accuracy, y, pred, n=300, alpha=0.5, seed=7)
    assert low <= narrow[0] <= narrow[1] <= high


def test_bootstrap_skips_undefined_resamples():
    # with 2 examples, half of the resamples hold one class only (AUC nan); the others are
    # {pos, neg} pairs with AUC exactly 1
    assert m.bootstrap_ci(m.roc_auc, [1, 0], [0.9, 0.1], n=100) == (1.0, 1.0)
    assert all(math.isnan(v) for v in m.bootstrap_ci(m.roc_auc, [1, 1], [0.9, 0.1], n=20))


def test_bootstrap_invalid_parameters():
    with pytest.raises(ConfigError, match="alpha must be strictly between 0 and 1"):
        m.bootstrap_ci(m.accuracy, Y, P, alpha=1.5)
    with pytest.raises(ConfigError, match="n \\(number of resamples\\) must be a positive integer"):
        m.bootstrap_ci(m.accuracy, Y, P, n=0)
    with pytest.raises(InputError, match="same length"):
        m.bootstrap_ci(m.accuracy, Y, P[:3])


# ---------------------------------------------------------------------------------------------
# spans
# ---------------------------------------------------------------------------------------------


def test_span_prf_micro_over_examples():
    gold = [[(0, 10)], [(5, 8), (20, 30)], []]
    pred = [[(5, 15), (8, 12)], [(0, 6)], [(0, 4)]]
    # ex 1: pred merged to (5,15) = 10 chars, gold 10 chars, overlap (5,10) = 5
    # ex 2: pred 6 chars, gold 3 + 10 = 13 chars, overlap (5,6) = 1
    # ex 3: pred 4 chars, gold 0, overlap 0
    # P = 6 / 20 = 0.3 ; R = 6 / 23 ; F1 = 2 * (6/20) * (6/23) / (6/20 + 6/23) = 72 / 258 = 12/43
    p, r, f1 = m.span_prf(gold, pred)
    assert (p, r, f1) == (approx(0.3), approx(6 / 23), approx(12 / 43))


def test_span_prf_merges_overlapping_gold_spans():
    # gold (0,5) + (3,8) merge to (0,8) = 8 chars (not 10); pred (0,4) = 4 chars, all inside
    # P = 4/4 = 1 ; R = 4/8 = 0.5 ; F1 = 2 * 0.5 / 1.5 = 2/3
    assert m.span_prf([[(0, 5), (3, 8)]], [[(0, 4)]]) == (approx(1.0), approx(0.5), approx(2 / 3))


def test_span_prf_zero_division_and_errors():
    assert m.span_prf([[], []], [[], []]) == (0.0, 0.0, 0.0)
    assert m.span_prf([[(0, 5)]], [[]]) == (0.0, 0.0, 0.0)
    with pytest.raises(InputError, match="cover the same examples, got 2 and 1"):
        m.span_prf([[], []], [[]])
    with pytest.raises(InputError, match=r"pred_spans\[0\]\[0\] = \(5, 3\) is not a valid half-open span"):
        m.span_prf([[(0, 5)]], [[(5, 3)]])
    with pytest.raises(InputError, match=r"gold_spans\[0\]\[0\] must be a \(start, end\) pair"):
        m.span_prf([[(1, 2, 3)]], [[]])


# ---------------------------------------------------------------------------------------------
# cost
# ---------------------------------------------------------------------------------------------


def test_ter():
    assert m.ter(1500, 300) == approx(5.0)
    with pytest.raises(InputError, match="input_tokens must be greater than 0"):
        m.ter(10, 0)
    with pytest.raises(InputError, match="total_tokens must be a non-negative number"):
        m.ter(-1, 10)


def test_efficiency():
    records = [
        {
            "usage": {"calls": 2, "cached_calls": 0, "prompt_tokens": 100, "completion_tokens": 20, "seconds": 1.0},
            "input_tokens": 50,
            "seconds": 2.0,
        },
        {
            "usage": {"calls": 0, "cached_calls": 1, "prompt_tokens": 60, "completion_tokens": 10, "seconds": 0.0},
            "input_tokens": 30,
            "seconds": 1.0,
        },
    ]
    out = m.efficiency(records)
    # calls (2 + 0 + 1 cached)/2 ; prompt 160/2 ; completion 30/2 ; seconds (2 + 1)/2 ; LLM seconds 1/2 ; TER 190/80
    assert out == {
        "llm_calls_per_example": approx(1.5),
        "prompt_tokens_per_example": approx(80.0),
        "completion_tokens_per_example": approx(15.0),
        "seconds_per_example": approx(1.5),
        "llm_seconds_per_example": approx(0.5),
        "cached_calls": 1,
        "ter": approx(2.375),
    }
    # a cached rerun costs the method the same calls: the figure does not depend on the cache
    rerun = [
        {**r, "usage": {**r["usage"], "calls": 0, "cached_calls": 2 if i == 0 else 1}} for i, r in enumerate(records)
    ]
    assert m.efficiency(rerun)["llm_calls_per_example"] == out["llm_calls_per_example"]


def test_efficiency_without_input_tokens_with_usage_objects_and_bad_counts():
    from hallucheck.types import Usage

    out = m.efficiency([{"usage": Usage(calls=1, prompt_tokens=10, completion_tokens=5)}])
    assert out["llm_calls_per_example"] == 1.0 and out["prompt_tokens_per_example"] == 10.0
    assert out["ter"] is None and out["seconds_per_example"] is None
    assert m.efficiency([]) == {}
    # no LLM call: no TER even with input tokens
    assert m.efficiency([{"usage": {}, "input_tokens": 40}])["ter"] is None
    with pytest.raises(InputError, match=r"records\[1\].usage.completion_tokens must be a non-negative number"):
        m.efficiency([{"usage": {"calls": 1}}, {"usage": {"calls": 1, "completion_tokens": -1}}])
    with pytest.raises(InputError, match="list of run records"):
        m.efficiency({"usage": {}})


# ---------------------------------------------------------------------------------------------
# edit distance
# ---------------------------------------------------------------------------------------------


def test_edit_distance():
    # "the cat sat on the mat" -> "the cat is on mat": substitute sat->is, delete "the" = 2
    assert m.edit_distance("the cat sat on the mat", "the cat is on mat") == 2
    assert m.normalized_edit_distance("the cat sat on the mat", "the cat is on mat") == approx(2 / 6)
    assert m.edit_distance("", "a b c") == 3
    assert m.edit_distance(["a", "b"], ["b", "a"]) == 2
    assert m.edit_distance("Cat", "cat") == 1  # case-sensitive
    assert m.normalized_edit_distance("", "") == 0.0
    assert m.normalized_edit_distance("a b", "c d") == approx(1.0)


# ---------------------------------------------------------------------------------------------
# text overlap
# ---------------------------------------------------------------------------------------------

C = "The cat was found under the bed."
R = "the cat was under the bed"


def test_tokenisation():
    assert m.overlap_tokens("Don't stop -- the_end, 42!") == ["don", "t", "stop", "the", "end", "42"]


def test_rouge_1():
    # c: the x2, cat, was, found, under, bed (7) ; r: the x2, cat, was, under, bed (6)
    # overlap 6 ; P = 6/7 ; R = 6/6 ; F = 2 * (6/7) / (13/7) = 12/13
    assert m.rouge_n(C, R, 1) == approx(12 / 13)


def test_rouge_2():
    # c bigrams (6): the-cat cat-was was-found found-under under-the the-bed
    # r bigrams (5): the-cat cat-was was-under under-the the-bed
    # overlap 4 ; P = 4/6 ; R = 4/5 ; F = 2 * (2/3)(4/5) / (2/3 + 4/5) = 8/11
    assert m.rouge_n(C, R, 2) == approx(8 / 11)


def test_rouge_l():
    # LCS = "the cat was under the bed" = 6 ; P = 6/7 ; R = 6/6 ; F = 12/13
    assert m.rouge_l(C, R) == approx(12 / 13)
    # "the cat sat on the mat" vs "the cat is on the mat": LCS 5 of 6 both ways -> 5/6
    assert m.rouge_l("the cat sat on the mat", "the cat is on the mat") == approx(5 / 6)


def test_rouge_edges():
    assert m.rouge_n("", R) == 0.0
    assert m.rouge_l(R, "...") == 0.0
    assert m.rouge_n("a", "a", 2) == 0.0  # no bigram
    with pytest.raises(ConfigError, match="n must be a positive integer"):
        m.rouge_n(C, R, 0)


def test_bleu_sentence():
    cand, ref = "the cat sat on the mat", "the cat is on the mat"
    # lengths 6 and 6 -> brevity penalty 1
    # p1 = 5/6 (the x2, cat, on, mat) ; p2 = 3/5 (the-cat, on-the, the-mat)
    # p3 = 1/4 (on-the-mat) ; p4 = 0/3
    # unsmoothed: a zero precision -> 0 ; with max_n = 2: sqrt(5/6 * 3/5) = sqrt(1/2)
    assert m.bleu(cand, ref, smooth=False) == 0.0
    assert m.bleu(cand, ref, max_n=2, smooth=False) == approx(math.sqrt(0.5))
    # add-one for n > 1: p2 = 4/6, p3 = 2/5, p4 = 1/4 ; (5/6 * 2/3 * 2/5 * 1/4) ** (1/4) = (1/18) ** 0.25
    assert m.bleu(cand, ref) == approx((1 / 18) ** 0.25)
    assert m.bleu(cand, [ref]) == approx((1 / 18) ** 0.25)


def test_bleu_brevity_penalty_and_multiple_references():
    # c = 2, r = 6 -> BP = exp(1 - 6/2) = exp(-2) ; p1 = 2/2
    assert m.bleu("the cat", "the cat is on the mat", max_n=1) == approx(math.exp(-2))
    # closest reference length: |2-3| = 1 beats |2-6| = 4 -> r = 3, BP = exp(1 - 3/2)
    assert m.bleu("the cat", ["the cat is on the mat", "the cat sat"], max_n=1) == approx(math.exp(-0.5))
    # equally close references (1 and 3 words for a 2-word candidate): the shorter one, r = 1 -> BP 1
    assert m.bleu("the cat", ["cat", "the cat sat"], max_n=1) == approx(1.0)
    # clipping against the max count over references: "the the the" vs refs with 'the' x1 and x2 -> 2/3
    assert m.bleu("the the the", ["the cat", "the the dog"], max_n=1) == approx(2 / 3)


def test_bleu_edges():
    assert m.bleu("", "the cat") == 0.0
    assert m.bleu("dog", "the cat") == 0.0  # no unigram match, never smoothed
    with pytest.raises(InputError, match="at least one reference"):
        m.bleu("the cat", [])
    with pytest.raises(ConfigError, match="max_n must be a positive integer"):
        m.bleu("the cat", "the cat", max_n=0)


def test_corpus_bleu():
    cands = ["the cat sat on the mat", "the cat"]
    refs = [["the cat is on the mat"], "the cat is here"]
    # sentence 1: m1 5/6, m2 3/5, c 6, r 6 ; sentence 2: m1 2/2, m2 1/1, c 2, r 4
    # totals: p1 = 7/8, p2 = 4/6, c = 8, r = 10 -> BP = exp(1 - 10/8) = exp(-0.25)
    # BLEU = exp(-0.25) * sqrt(7/8 * 2/3) = exp(-0.25) * sqrt(7/12)
    assert m.corpus_bleu(cands, refs, max_n=2) == approx(math.exp(-0.25) * math.sqrt(7 / 12))
    with pytest.raises(InputError, match="same length"):
        m.corpus_bleu(cands, refs[:1])


# ---------------------------------------------------------------------------------------------
# optional cross-check against scikit-learn (skipped when it is not installed)
# ---------------------------------------------------------------------------------------------


def test_matches_sklearn():
    sk = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 60)
    s = np.round(rng.random(60), 1)  # coarse scores -> many ties
    pred = (s >= 0.5).astype(int)
    assert m.roc_auc(y, s) == pytest.approx(sk.roc_auc_score(y, s))
    assert m.average_precision(y, s) == pytest.approx(sk.average_precision_score(y, s))
    assert m.macro_prf(y, pred)[2] == pytest.approx(sk.f1_score(y, pred, average="macro"))
    assert m.balanced_accuracy(y, pred) == pytest.approx(sk.balanced_accuracy_score(y, pred))
    fpr, tpr, _ = sk.roc_curve(y, s, drop_intermediate=False)
    ours = m.roc_curve(y, s)
    assert ours[0] == pytest.approx(fpr.tolist()) and ours[1] == pytest.approx(tpr.tolist())


# -- question answering (DRAD) ---------------------------------------------------------------


def test_qa_normalisation_em_and_f1():
    from hallucheck.eval.metrics import exact_match, normalize_answer, qa_scores, token_f1, yes_no, yes_no_accuracy

    assert normalize_answer("The  Ansel-Marrow, (engineer)!") == "ansel marrow engineer"
    assert exact_match("the Ansel Marrow.", ["Ilse Varga", "Ansel Marrow"]) == 1.0
    assert exact_match("Marrow", "Ansel Marrow") == 0.0
    f = token_f1("Ansel Marrow the engineer", "Ansel Marrow")
    assert f["precision"] == pytest.approx(2 / 3) and f["recall"] == 1.0 and f["f1"] == pytest.approx(0.8)
    assert token_f1("", "x")["f1"] == 0.0 and token_f1("the", "a")["f1"] == 1.0  # both empty after normalising
    assert yes_no("No, it was not.") == "no" and yes_no("Perhaps") is None
    assert yes_no_accuracy(["Yes it is", "maybe", "no"], ["yes", "no", "no"]) == pytest.approx(2 / 3)
    assert qa_scores("Yes.", "yes")["accuracy"] == 1.0 and "accuracy" not in qa_scores("1791", "1791")
    with pytest.raises(InputError):
        yes_no_accuracy(["yes"], ["blue"])
    with pytest.raises(InputError):
        exact_match("x", [])
