"""A claim longer than the encoder can read beside its evidence is read in windows, never a
tokenizer truncation error: its score is its worst window's, and a detection with such a sentence
is verified like any other."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

import hallucheck  # noqa: E402
from hallucheck.models.cross_encoder import CrossEncoder, get_cross_encoder  # noqa: E402

WORDS = "the quarterly report lists the inspection of pumps valves filters and gauges in building number".split()
# one sentence of 2,236 characters with no full stop inside it
LONG = ("The " + " ".join(WORDS[i % len(WORDS)] for i in range(1, 350)))[:2235] + "."
REFERENCE = "The pumps were inspected in March. The filters were replaced in April. The gauges were read."


def test_the_long_sentence_is_as_long_as_the_one_that_failed():
    assert len(LONG) == 2236 and LONG.count(".") == 1


def test_the_embedded_encoder_scores_a_long_claim_from_its_windows():
    ce = get_cross_encoder().load()
    windows = ce.windows(LONG)
    assert len(windows) > 1 and windows[0].startswith("The quarterly") and LONG.endswith(windows[-1])
    for w in windows:
        assert 0 < len(ce._offsets(w)) <= ce.max_length // 2
    # consecutive windows overlap, so no fact is cut in two without being read whole once
    assert sum(len(ce._offsets(w)) for w in windows) > len(ce._offsets(LONG))
    (score,) = ce.score([REFERENCE], [LONG])
    per_window = ce.score([REFERENCE] * len(windows), windows)
    assert score == pytest.approx(float(np.max(per_window)), abs=1e-6)


def test_a_short_claim_is_read_whole():
    ce = get_cross_encoder().load()
    assert ce.windows("The pumps were inspected in March.") == ["The pumps were inspected in March."]


@pytest.mark.parametrize("method", ["cross_encoder", "ce_cascade"])
def test_a_detection_with_a_long_sentence_is_verified(method):
    det = hallucheck.detect("The pumps were inspected in March. " + LONG, REFERENCE, method=method, llm="none")
    assert det.error is None and det.outcome != "could_not_verify"
    assert [v.status for v in det.verdicts] == ["ok", "ok"]


def test_a_transformers_encoder_windows_a_claim_too(tiny_encoder):
    ce = CrossEncoder(str(tiny_encoder), max_length=64, backend="torch").load()
    claim = " ".join(["the front tyre pressure is 2 bar"] * 40)  # about 280 tokens
    windows = ce.windows(claim)
    assert len(windows) > 1 and all(len(ce._offsets(w)) <= 32 for w in windows)
    (score,) = ce.score(["the front tyres take 2 bar ."], [claim])
    assert 0.0 <= score <= 1.0
