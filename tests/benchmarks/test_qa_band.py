"""benchmarks/qa_band.py: replaying a judged run for a narrower QA band."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def qb(bench_module):
    return bench_module("qa_band")


def _row(label, *verdicts):
    return {"label": label, "detection": {"verdicts": list(verdicts)}}


def _judged(p, judge, flagged):
    return {"hallucinated": flagged, "meta": {"stage": "judge", "combined_score": p, "judge_score": judge}}


def test_inside_the_band_the_judge_counts_outside_the_combination_decides(qb):
    t = 0.2
    rows = [
        # combination 0.15 (below t) but the judge is sure it is unsupported (0.99 -> ~0.99 on t's scale):
        # the mean 0.57 > t, flagged inside a band that holds 0.15, passed by a band that does not
        _row(1, _judged(0.15, 0.99, True)),
        # combination 0.25 (above t), judge says supported (0.0): mean 0.125 < t inside the band
        _row(0, _judged(0.25, 0.0, False)),
        # the gate settled it: kept whatever the band
        _row(1, {"hallucinated": True, "meta": {"stage": "gate"}}),
    ]
    assert qb.replay(rows, t, 0.1) == ([1, 0, 1], [1, 0, 1], 2)
    assert qb.replay(rows, t, 0.0) == ([1, 0, 1], [0, 1, 1], 0)
    # a band reaching below 0 is cut at 0, as ce_cascade cuts it
    assert qb.replay(rows, t, 0.3)[2] == 2


def test_the_judge_score_is_mapped_onto_the_combination_scale_before_the_mean(qb):
    # the judge at exactly its own threshold lands exactly on the combination's threshold: the mean of
    # t and a score just above t is above t
    row = _row(1, _judged(0.21, qb.JUDGE_THRESHOLD, True))
    assert qb.replay([row], 0.2, 0.05)[1] == [1]
    row = _row(0, _judged(0.19, qb.JUDGE_THRESHOLD, False))
    assert qb.replay([row], 0.2, 0.05)[1] == [0]
