"""The learned combination: the file (read once while unchanged, checked), its signals under one name
each, and the score per task."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from hallucheck.errors import ConfigError
from hallucheck.stages.ce_cascade import CECascadeVerifier, Signals, Weights, load_combination
from hallucheck.stages.ce_cascade.combination import SIGNALS, combine
from hallucheck.types import Claim, Verdict

from .conftest import REF

COMBO = {
    "features": ["verifier", "overlap", "gate"],
    "aggregate": "max",
    "tasks": {
        "qa": {"bias": 0.0, "verifier": 1.0, "overlap": -4.0, "gate": 0.0, "threshold": 0.4},
        "summary": {"bias": 0.0, "verifier": 1.0, "overlap": 0.0, "gate": 0.0, "threshold": 0.6},
    },
}


def test_learned_combination_weighs_the_signals_per_task(fixed, bow_embedder, tmp_path):
    path = tmp_path / "combine.json"
    path.write_text(json.dumps(COMBO))
    copied = "Check the pressure when the tyres are cold."
    table = {copied: 0.55, "When? " + copied: 0.55}
    v = fixed(CECascadeVerifier(gate="numbers", combine=str(path), band=None), table)
    claim = Claim(copied, 0, len(copied))
    (summ,) = v.verify([claim], [[]], reference=REF)
    # summary task: sigmoid(logit(0.55)) = 0.55 <= 0.6; the reason names the signals
    assert summ.score == pytest.approx(0.55) and not summ.hallucinated and "overlap" in summ.reason
    # a question does not make a sentence copied from the reference a QA answer (question_mode auto)
    (auto,) = v.verify([claim], [[]], reference=REF, question="When?")
    assert auto.score == pytest.approx(0.55) and not auto.hallucinated
    qa_mode = fixed(CECascadeVerifier(gate="numbers", combine=str(path), band=None, question_mode="qa"), table)
    (qa,) = qa_mode.verify([claim], [[]], reference=REF, question="When?")
    # QA weights: a sentence copied from the reference (overlap 1) is pulled down by its weight
    assert qa.meta["overlap"] == 1.0 and qa.score == pytest.approx(1 / (1 + np.exp(-(np.log(0.55 / 0.45) - 4.0))))
    assert not qa.hallucinated
    bad = tmp_path / "bad.json"
    bad.write_text('{"tasks": {"qa": {}}}')
    with pytest.raises(ConfigError, match="cannot be read"):
        CECascadeVerifier(combine=str(bad))
    # the shipped combination loads and has both tasks
    shipped = load_combination("embedded")
    assert set(shipped["tasks"]) == {"qa", "summary"} and shipped["features"] == ["verifier", "overlap", "gate"]


def test_a_combination_file_is_read_once_while_it_is_unchanged(tmp_path):
    """Every pipeline built on one combination file shares one reading; an edited file is read again."""
    combo = json.loads(json.dumps(load_combination("embedded")))
    path = tmp_path / "combine.json"
    path.write_text(json.dumps(combo))
    first = CECascadeVerifier(combine=str(path))._combo
    assert CECascadeVerifier(combine=str(path))._combo is first
    combo["tasks"]["qa"]["threshold"] = 0.9
    path.write_text(json.dumps(combo))
    stamp = path.stat().st_mtime_ns + 10**9  # a later modification time, whatever the file system's resolution
    os.utime(path, ns=(stamp, stamp))
    again = load_combination(str(path))
    assert again is not first and again["tasks"]["qa"]["threshold"] == 0.9
    assert CECascadeVerifier(combine=str(path)).settings.qa.threshold == 0.9
    path.unlink()
    with pytest.raises(ConfigError, match="cannot be read"):
        CECascadeVerifier(combine=str(path))


def test_the_missing_share_has_one_name_from_the_file_to_the_verdict():
    """combine.json calls the signal "gate" (the name the fitting script writes); it is read once into
    ``missing_share``, which is also a file's accepted name and the verdict meta's key."""
    weights = Weights.of(COMBO["tasks"]["qa"], COMBO["features"])
    assert [name for name, _ in weights.weights] == list(SIGNALS) == ["verifier", "overlap", "missing_share"]
    same = Weights.of({"bias": 0.0, "verifier": 1.0, "overlap": -4.0, "missing_share": 0.0}, SIGNALS)
    assert same == weights
    with pytest.raises(ConfigError, match="novelty"):
        Weights.of({"bias": 0.0, "novelty": 1.0}, ["novelty"])
    claim = Claim("The front tyres take 5 bar.", 0, 27)
    gate = Verdict(claim, "contradicted", True, 1.0, "", meta={"wrong_share": 0.5})
    combined = combine(claim, 0.3, gate, weights, [REF])
    assert combined.meta["missing_share"] == 0.5 and "missing facts 0.50" in combined.how
    signals = Signals.of(claim.text, 0.3, 0.5, [REF])
    assert combined.score == pytest.approx(weights.score(signals)) and signals.missing_share == 0.5


def test_the_old_import_paths_still_give_the_signals():
    from hallucheck.stages.cascade import build_gate, gate_share, missing_share
    from hallucheck.stages.cross_encoder import claim_signals, sentence_signals

    assert gate_share is missing_share
    row = claim_signals("The rear tyres take 3 bar.", 0.3, 0.25, [REF])
    assert set(row) == {"verifier", "overlap", "gate"} and row["gate"] == 0.25  # keyed as the file names them
    x = sentence_signals([("The rear tyres take 4 bar.", 0, 26)], [0.3], REF, gate=build_gate("numbers"))
    assert x.shape == (1, 3)


def test_a_one_sentence_answer_is_read_as_a_claim_and_a_short_one_as_a_qa_answer(fixed, bow_embedder, tmp_path):
    """With a question, question_mode auto reads a phrase ("2 bar") after its question with the QA weights,
    but a whole sentence, which is not in the reference word for word, as a claim with the summary weights:
    the QA weights were fitted on answers whose right ones are phrases and wrong ones sentences."""
    path = tmp_path / "combine.json"
    path.write_text(json.dumps(COMBO))
    q = "What pressure do the front tyres take?"
    sentence, phrase = "The tyres at the front should be kept at 2 bar.", "2 bar"
    table = {sentence: 0.5, f"{q} {sentence}": 0.5, f"{q} {phrase}": 0.5, phrase: 0.5}
    v = fixed(CECascadeVerifier(gate="numbers", combine=str(path), band=None), table)
    (as_claim,) = v.verify([Claim(sentence, 0, len(sentence))], [[]], reference=REF, question=q)
    (as_qa,) = v.verify([Claim(phrase, 0, len(phrase))], [[]], reference=REF, question=q)
    assert "flagged above 0.60" in as_claim.reason and "flagged above 0.40" in as_qa.reason
    qa_mode = fixed(CECascadeVerifier(gate="numbers", combine=str(path), band=None, question_mode="qa"), table)
    (forced,) = qa_mode.verify([Claim(sentence, 0, len(sentence))], [[]], reference=REF, question=q)
    assert "flagged above 0.40" in forced.reason
