"""Sentence-level figures in ``eval`` and ``check`` (issue 47): when the data marks the wrong
sentences (``sentences``, RAGTruth ``labels``, ``spans`` or ``bad_sentence``), the run also says how
many wrong sentences were flagged and how many correct ones were flagged too, beside the answer-level
figures, in metrics.json, report.md, report.html, the summary of ``check`` and the printed lines.

The detector is the deterministic figure check: it catches the wrong weight and the wrong warranty,
not the made-up "very quiet", so one wrong sentence of three is missed while every answer with a
caught figure counts as a hit at the answer level."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hallucheck import cli
from hallucheck.errors import InputError
from hallucheck.eval.api import check_file, evaluate
from hallucheck.eval.datasets import Example
from hallucheck.eval.marks import read_marks, sentence_metrics
from hallucheck.pipeline import Pipeline
from hallucheck.registry import create

REF = "The pump delivers 40 litres per minute. It weighs 12 kg. The warranty lasts 2 years."
A = "The pump delivers 40 litres per minute. It weighs 15 kg."
B = "It weighs 12 kg. The warranty lasts 5 years."
C = "The pump delivers 40 litres per minute. It is very quiet."
D = "It weighs 12 kg."
QUIET = C.index("very quiet")
ROWS = [
    {
        "id": "a",
        "reference": REF,
        "answer": A,
        "sentences": [{"start": 0, "end": 39, "label": "supported"}, {"start": 40, "end": 56, "label": "unsupported"}],
    },
    {"id": "b", "reference": REF, "answer": B, "bad_sentence": "The warranty lasts 5 years."},
    {"id": "c", "reference": REF, "answer": C, "labels": [{"start": QUIET, "end": QUIET + 10, "label_type": "x"}]},
    {"id": "d", "reference": REF, "answer": D, "bad_sentence": None},
]


def figures() -> Pipeline:
    return Pipeline(
        name="figures",
        extractor=create("extractor", "sentences"),
        retriever=create("retriever", "all_sentences"),
        verifier=create("verifier", "entity_check", check_entities=False),
    )


@pytest.fixture
def marked(tmp_path) -> Path:
    path = tmp_path / "marked.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def test_each_way_of_marking_gives_the_sentences_and_which_are_wrong():
    assert read_marks(ROWS[0], A, "r") == [[0, 39, 0], [40, 56, 1]]
    assert read_marks(ROWS[1], B, "r") == [[0, 16, 0], [17, len(B), 1]]
    assert read_marks(ROWS[2], C, "r") == [[0, 39, 0], [40, len(C), 1]]
    assert read_marks(ROWS[3], D, "r") == [[0, len(D), 0]]
    assert read_marks({"bad_sentence": [1]}, B, "r") == [[0, 16, 0], [17, len(B), 1]]
    assert read_marks({"spans": [[QUIET, QUIET + 4]]}, C, "r") == [[0, 39, 0], [40, len(C), 1]]
    assert read_marks({"spans": json.dumps([[QUIET, QUIET + 4]])}, C, "r")[1][2] == 1  # a CSV cell
    assert read_marks({"answer": A}, A, "r") is None


@pytest.mark.parametrize(
    "record, says",
    [
        ({"bad_sentence": "It floats."}, "is not a sentence of the answer"),
        ({"bad_sentence": 4}, "is not a sentence index"),
        ({"labels": [{"start": 0, "end": 500}]}, "outside the answer"),
        ({"sentences": [{"start": 0, "end": 5, "label": "maybe"}]}, "supported or unsupported"),
    ],
)
def test_bad_marks_are_input_errors_that_say_why(record, says):
    with pytest.raises(InputError, match=says):
        read_marks(record, B, "data.jsonl line 3")


def test_a_record_without_a_label_takes_it_from_its_marks():
    ex = Example.from_dict(ROWS[0], default_dataset="marked")
    assert ex.label == 1 and "label" in ex.meta["inferred"]
    assert ex.meta["sentence_marks"] == [[0, 39, 0], [40, 56, 1]]
    assert Example.from_dict(ROWS[3], default_dataset="marked").label == 0
    assert Example.from_dict({**ROWS[2], "label": 0}, default_dataset="marked").label == 0  # a given label stands


def test_eval_reports_the_sentence_level_beside_the_answer_level(marked, tmp_path):
    run = evaluate(marked, figures(), out=tmp_path / "run", progress=False, log=None)
    d = run.metrics["decisions"]
    assert d["confusion"] == {"tp": 2, "fp": 0, "tn": 1, "fn": 1}
    s = run.metrics["sentences"]
    assert (s["wrong"], s["wrong_flagged"], s["correct"], s["correct_flagged"]) == (3, 2, 4, 0)
    assert s["recall_wrong"] == pytest.approx(2 / 3) and s["correct_flagged_share"] == 0.0
    assert json.loads((tmp_path / "run" / "metrics.json").read_text())["sentences"]["wrong_flagged"] == 2
    md = (tmp_path / "run" / "report.md").read_text()
    assert "wrong sentences flagged: 2 of 3 (66.7 %)" in md and "correct sentences flagged: 0 of 4 (0.0 %)" in md
    html = (tmp_path / "run" / "report.html").read_text()
    assert "<h2>Sentences</h2>" in html and "wrong sentences flagged: 2 of 3 (66.7 %)" in html


def test_a_run_without_marks_has_no_sentence_figures(tmp_path):
    path = tmp_path / "plain.jsonl"
    path.write_text(json.dumps({"id": "x", "reference": REF, "answer": D, "label": 0}) + "\n", encoding="utf-8")
    run = evaluate(path, figures(), out=tmp_path / "run", progress=False, log=None)
    assert "sentences" not in run.metrics
    assert "Sentences" not in (tmp_path / "run" / "report.md").read_text()


def test_check_reports_the_sentence_level_when_rows_mark_it(marked, tmp_path):
    run = check_file(marked, figures(), out=tmp_path / "check", progress=False, log=None)
    s = run.summary["sentences"]
    assert (s["wrong"], s["wrong_flagged"], s["correct"], s["correct_flagged"]) == (3, 2, 4, 0)
    assert json.loads((tmp_path / "check" / "summary.json").read_text())["sentences"]["wrong"] == 3
    assert "wrong sentences flagged: 2 of 3" in (tmp_path / "check" / "report.html").read_text()


def test_an_answer_that_failed_is_left_out_and_counted():
    examples = [Example.from_dict(r, default_dataset="m") for r in ROWS[:2]]
    flagged = {"claim": {"start": 40, "end": 56}, "hallucinated": True}
    records = [
        {"id": "a", "status": "ok", "hallucinated": True, "detection": {"verdicts": [flagged]}},
        {"id": "b", "status": "error", "hallucinated": None, "detection": None},
    ]
    s = sentence_metrics(examples, records)
    assert s["answers"] == 1 and s["answers_unverified"] == 1
    assert (s["wrong"], s["wrong_flagged"], s["correct"], s["correct_flagged"]) == (1, 1, 1, 0)


def test_the_eval_command_prints_the_sentence_lines(marked, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("hallucheck.eval.api.prepare", lambda *a, **k: (figures(), None, None))
    cli.main(["eval", "--data", str(marked), "--out", str(tmp_path / "run"), "--quiet"])
    out = capsys.readouterr().out
    assert "  wrong sentences flagged: 2 of 3 (66.7 %)" in out
    assert "  correct sentences flagged: 0 of 4 (0.0 %)" in out


def test_a_set_in_a_method_configuration_is_written_to_the_manifest_as_a_sorted_list(tmp_path):
    from hallucheck.eval.runner import json_ready

    assert json_ready({"rules_off": frozenset({"b", "a"}), "n": (1, 2)}) == {"rules_off": ["a", "b"], "n": [1, 2]}
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(ROWS[3]) + "\n", encoding="utf-8")
    for _ in range(2):  # written, then resumed with the same settings
        evaluate(path, figures(), out=tmp_path / "run", progress=False, log=None)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert isinstance(manifest["method"], dict)
