"""Warnings instead of silence for other languages (issue 20, part 3): the detection names the
languages of answer and reference, and says when an English-only stage judged another language."""

import json

import numpy as np
import pytest

import hallucheck
from hallucheck.cli import main
from hallucheck.pipeline import Pipeline, language_warnings
from hallucheck.stages.ce_cascade import WEAK_ALONE, CECascadeVerifier
from hallucheck.stages.cross_encoder import CrossEncoderVerifier
from hallucheck.stages.entity_check import EntityCheckVerifier

pytest.importorskip("langdetect")

REF_DE = (
    "Prüfen Sie den Reifendruck einmal im Monat bei kalten Reifen. Bei voller Beladung beträgt der Reifendruck "
    "hinten 3,0 bar. Das Motoröl wird einmal im Jahr gewechselt."
)
# paraphrases, not copies: a sentence the reference holds word for word is supported before any verifier reads it
ANSWER_DE = "Bei voller Beladung braucht der Reifen hinten 3,0 bar. Das Motoröl wechselt man einmal im Jahr."
COPY_DE = "Bei voller Beladung beträgt der Reifendruck hinten 3,0 bar. Das Motoröl wird einmal im Jahr gewechselt."
REF_EN = (
    "Check the tyre pressure once a month when the tyres are cold. With a full load the rear tyres take 3.0 bar. "
    "Change the engine oil once a year."
)
ANSWER_EN = "With a full load, the rear tyres need 3.0 bar. The engine oil is changed once a year."


class _FixedEncoder:
    """Stands in for the trained verifier: every claim supported."""

    meta = {"k": 3}

    def score(self, premises, claims):
        return np.full(len(claims), 0.05)


@pytest.fixture
def fake_verifier(monkeypatch):
    monkeypatch.setattr(CrossEncoderVerifier, "encoder", property(lambda self: _FixedEncoder()))


def _detect(tmp_path, capsys, answer, reference, *args):
    ref = tmp_path / "ref.txt"
    ref.write_text(reference, encoding="utf-8")
    code = main(["detect", "--reference", str(ref), "--answer", answer, "--color", "never", *args])
    return code, capsys.readouterr()


def test_the_english_only_stages_say_so():
    assert CrossEncoderVerifier.languages == ("en",) and CECascadeVerifier.languages == ("en",)
    assert EntityCheckVerifier.languages is None and hallucheck.load_method("sim_overlap").verifier.languages is None


def test_german_answer_with_ce_cascade_warns_in_text_and_json(tmp_path, capsys, fake_verifier):
    args = ("--method", "ce_cascade", "--llm", "none", "--param", "gate=numbers")
    code, out = _detect(tmp_path, capsys, ANSWER_DE, REF_DE, *args)
    assert "warning: The verifier ce_cascade.v2 was trained on English; results for German (de) are unreliable." in (
        out.err
    )
    assert "warning" not in out.out
    _, out = _detect(tmp_path, capsys, ANSWER_DE, REF_DE, *args, "--format", "json")
    meta = json.loads(out.out)["meta"]
    assert meta["language"] == {"answer": "de", "reference": "de"}
    assert meta["warnings"] == [
        "The verifier ce_cascade.v2 was trained on English; results for German (de) are unreliable.",
        WEAK_ALONE,  # a summary with --llm none (issue 21)
    ]


def test_english_gets_no_warning(tmp_path, capsys, fake_verifier):
    args = ("--method", "ce_cascade", "--llm", "none", "--param", "gate=numbers", "--format", "json")
    code, out = _detect(tmp_path, capsys, ANSWER_EN, REF_EN, *args)
    meta = json.loads(out.out)["meta"]
    # no language warning; only the one that says the verifier alone is weak on summaries (issue 21)
    assert code == 0 and meta["language"] == {"answer": "en", "reference": "en"} and meta["warnings"] == [WEAK_ALONE]
    assert "trained on" not in out.err


def test_a_method_for_any_language_warns_only_when_answer_and_reference_differ(tmp_path, capsys):
    code, out = _detect(tmp_path, capsys, COPY_DE, REF_DE, "--method", "sim_overlap", "--format", "json")
    meta = json.loads(out.out)["meta"]
    assert code == 0 and meta["language"] == {"answer": "de", "reference": "de"} and "warnings" not in meta
    code, out = _detect(tmp_path, capsys, COPY_DE, REF_EN, "--method", "sim_overlap")
    assert "warning: The answer is in German (de) and the reference in English (en)" in out.err


def test_chinese_errors_are_separate_claims():
    ref = "请每月检查一次轮胎气压。满载时后轮气压应为3.0巴。发动机油每年更换一次。"
    answer = "请每月检查一次轮胎气压。满载时后轮气压应为2.0巴。发动机油每五年更换一次。"
    det = hallucheck.detect(answer, ref, method="sim_overlap")
    assert [v.claim.text for v in det.verdicts] == [
        "请每月检查一次轮胎气压。",
        "满载时后轮气压应为2.0巴。",
        "发动机油每五年更换一次。",
    ]
    assert det.meta["language"] == {"answer": "zh", "reference": "zh"}


def test_warnings_name_each_foreign_language_once():
    stages = [CECascadeVerifier(llm=None)]
    assert language_warnings(stages, "fr", "und") == [
        "The verifier ce_cascade.v2 was trained on English; results for French (fr) are unreliable."
    ]
    assert language_warnings(stages, "en", "en") == [] and language_warnings(stages, "und", "und") == []
    both = language_warnings(stages, "de", "fr")
    assert "results for German (de) and French (fr) are unreliable" in both[0]
    assert both[1].startswith("The answer is in German (de) and the reference in French (fr)")


def test_pipeline_stages_include_the_components_inside_a_stage():
    p = hallucheck.load_method("ce_cascade", llm="none")
    assert isinstance(p, Pipeline) and p.verifier in p.stages()


@pytest.mark.integration
def test_german_answer_with_the_trained_verifier(tmp_path, capsys):
    code, out = _detect(tmp_path, capsys, ANSWER_DE, REF_DE, "--method", "ce_cascade", "--llm", "none")
    assert "trained on English; results for German (de) are unreliable" in out.err


def test_the_service_and_the_html_report_carry_the_warnings():
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from hallucheck.eval.html_report import examples_table, warnings_html
    from hallucheck.serve import ServeConfig, create_app

    with TestClient(create_app(ServeConfig(method="sim_overlap")), base_url="http://127.0.0.1:8000") as c:
        det = c.post("/v1/detect", json={"answer": ANSWER_DE, "reference": REF_EN}).json()["detection"]
    assert det["meta"]["language"] == {"answer": "de", "reference": "en"}
    assert det["meta"]["warnings"][0].startswith("The answer is in German (de) and the reference in English (en)")
    rows = [{"id": "x", "score": 0.1, "detection": det}]
    # the report says a run's warning once, above its rows, with how many rows it concerns
    assert "The answer is in German (de)" in warnings_html(rows) and "(1 of 1 rows)" in warnings_html(rows)
    assert "The answer is in German (de)" not in examples_table(rows, title="Rows", gold=False)
