"""The default method's settings: every default in one place, each task's threshold, band and judge
weight resolved once at construction, what ``hallucheck methods --params`` says they are, and the
settings a pipeline saved as ``ce_cascade.v1`` keeps."""

from __future__ import annotations

import dataclasses
import inspect
import math

import pytest

from hallucheck.llm import FakeLLM
from hallucheck.stages.ce_cascade import DEFAULTS, CECascadeVerifier, CECascadeVerifierV1, load_combination, resolve
from hallucheck.stages.ce_cascade.settings import FALLBACK_BAND_WIDTH, V1_DEFAULTS, TaskSettings
from hallucheck.types import Claim, Evidence

from .conftest import REF

SHIPPED = load_combination("embedded")["tasks"]


def test_each_task_resolves_from_the_shipped_combination():
    settings = CECascadeVerifier().settings
    for name in ("qa", "summary"):
        task = getattr(settings, name)
        t, width = SHIPPED[name]["threshold"], SHIPPED[name]["band_width"]
        assert isinstance(task, TaskSettings) and task.task == name
        assert task.threshold == t and task.band == (max(0.0, t - width), min(1.0, t + width))
        assert task.judge_threshold == DEFAULTS.judge_threshold
        assert task.judge_weight == SHIPPED[name].get("judge_weight", 0.5)
    assert settings.task(True) is settings.qa and settings.task(False) is settings.summary
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.qa.threshold = 0.9  # type: ignore[misc]


def test_parameters_override_the_combination_and_fallbacks_fill_what_it_lacks():
    given = resolve(load_combination("embedded"), threshold=0.3, qa_threshold=0.6, band_width=0.05)
    assert given.summary.threshold == 0.3 and given.qa.threshold == 0.6
    assert given.summary.band == pytest.approx((0.25, 0.35)) and given.qa.band == pytest.approx((0.55, 0.65))
    alone = resolve(None)  # combine=None: the verifier's score alone
    assert alone.qa.weights is None and alone.qa.threshold == 0.5 and alone.qa.judge_weight == 0.5
    assert alone.summary.band == pytest.approx((0.5 - FALLBACK_BAND_WIDTH, 0.5 + FALLBACK_BAND_WIDTH))
    fixed_band = resolve(None, band=[0.2, 0.9], judge_threshold=None)
    assert fixed_band.qa.band == (0.2, 0.9) and fixed_band.qa.judge_threshold == fixed_band.qa.threshold
    assert resolve(None, band=None).summary.band is None
    one_task = {"features": ["verifier"], "tasks": {"qa": {"bias": 0.0, "verifier": 1.0, "threshold": 0.3}}}
    assert resolve(one_task).summary.threshold == 0.3  # a combination with one task serves both


def test_every_default_is_written_once():
    """The method's parameters and its verifier's take their defaults from DEFAULTS."""
    from hallucheck.methods.cross_encoder import ce_cascade

    method = inspect.signature(ce_cascade).parameters
    verifier = inspect.signature(CECascadeVerifier.__init__).parameters
    fields = {f.name for f in dataclasses.fields(DEFAULTS)}
    for name, p in {**method, **verifier}.items():
        if name in fields:
            assert p.default == getattr(DEFAULTS, name), name
    assert method["k"].default == DEFAULTS.judge_k
    v1 = inspect.signature(CECascadeVerifierV1.__init__).parameters
    assert v1["judge_threshold"].default is None and v1["verbatim"].default is False
    assert (V1_DEFAULTS.judge_threshold, V1_DEFAULTS.verbatim) == (None, False)


def test_the_parameter_table_says_what_none_stands_for(capsys):
    from hallucheck.cli import main

    assert main(["methods", "--params", "ce_cascade"]) == 0
    rows = {
        line.split()[0]: line
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("    ") and line.split()[0] in ("threshold", "band_width")
    }
    qa, summary = SHIPPED["qa"]["band_width"], SHIPPED["summary"]["band_width"]
    assert f"shipped: qa {qa:g}, summary {summary:g}" in rows["band_width"]
    assert f"qa {SHIPPED['qa']['threshold']:g}, summary {SHIPPED['summary']['threshold']:g}" in rows["threshold"]
    assert rows["band_width"].split()[1] == "None"  # the value stays None: the combination's, whatever it is


def test_a_pipeline_saved_as_ce_cascade_v1_keeps_the_raw_mean():
    """v2 changed what the band's mean means; a v1 config (no judge_threshold key) still loads as v1."""
    from hallucheck.methods.cross_encoder import ce_cascade
    from hallucheck.pipeline import Pipeline

    config = ce_cascade(llm=None).to_dict()
    verifier = config["params"]["verifier"]
    assert verifier["type"] == "ce_cascade.v2" and verifier["params"]["judge_threshold"] == 0.82
    verifier["type"] = "ce_cascade.v1"
    del verifier["params"]["judge_threshold"]
    old = Pipeline.from_dict(config)
    assert type(old.verifier) is CECascadeVerifierV1 and old.verifier.judge_threshold is None
    assert old.to_dict()["params"]["verifier"]["type"] == "ce_cascade.v1"


def test_a_pipeline_saved_as_v1_keeps_its_summary_band_and_its_mean(fixed, bow_embedder):
    """ce_cascade.v1 averaged the judge's raw score with the combination's inside a narrower band on
    summaries; v2 mixes the judge's score put on the combination's scale, in the shipped (wider) band. A
    v1 pipeline keeps meaning what it meant."""
    claim = Claim("The rear tyres take air.", 0, 24)
    ev = [[Evidence(REF, 0, len(REF))]]
    lp = {"Entailment": math.log(0.1), "Neutral": math.log(0.45), "Contradiction": math.log(0.45)}
    v1 = CECascadeVerifierV1(llm=FakeLLM(label_scores=[lp]), gate="numbers", calibrate=False)
    summary, t = v1.settings.summary, SHIPPED["summary"]["threshold"]
    width = SHIPPED["summary"]["band_width_v1"]
    assert summary.band == pytest.approx((t - width, t + width)) and summary.judge_weight == 0.5
    assert summary.judge_threshold == t  # no mapping: the raw mean
    v2 = CECascadeVerifier(llm=FakeLLM(label_scores=[lp]), gate="numbers", calibrate=False)
    v2_width = SHIPPED["summary"]["band_width"]
    assert v2_width > width and v2.settings.summary.judge_threshold != t  # v2 maps the judge's score
    # a combined score inside v2's band and outside v1's: v1's verifier decides, v2 asks the judge
    between = t - (width + v2_width) / 2
    s = _verifier_score_for(fixed, claim, between)
    (out1,) = fixed(v1, {claim.text: s}).verify([claim], ev, reference=REF)
    (out2,) = fixed(v2, {claim.text: s}).verify([claim], ev, reference=REF)
    assert out1.meta["combined_score"] == pytest.approx(between, abs=1e-3)
    assert out1.meta["stage"] == "verifier" and out2.meta["stage"] == "judge"


def _verifier_score_for(fixed, claim, combined):
    """The verifier score whose combined score (shipped summary weights, no gate fact) is ``combined``:
    bisection, the combination rising with the verifier's score."""
    lo, hi = 1e-6, 1 - 1e-6
    for _ in range(60):
        mid = (lo + hi) / 2
        v = fixed(CECascadeVerifier(llm=None, gate="numbers"), {claim.text: mid})
        (out,) = v.verify([claim], [[Evidence(REF, 0, len(REF))]], reference=REF)
        lo, hi = (mid, hi) if out.meta["combined_score"] < combined else (lo, mid)
    return (lo + hi) / 2


def test_config_round_trips():
    import json

    import hallucheck
    from hallucheck.errors import ConfigError
    from hallucheck.pipeline import Pipeline

    m = hallucheck.load_method("ce_cascade", llm="none", band=[0.2, 0.6])
    again = Pipeline.from_dict(json.loads(json.dumps(m.to_dict())))
    assert again.to_dict() == m.to_dict() and again.verifier.settings == m.verifier.settings
    with pytest.raises(ConfigError, match="band"):
        hallucheck.load_method("ce_cascade", llm="none", band=[0.8, 0.2])
