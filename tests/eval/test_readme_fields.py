"""Eval data with only the README's fields (id, question, reference, answer, label): ``dataset`` and
``task`` are optional, filled in from the file's name and the question, and the run's manifest says
what was filled in (issue 25, item 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hallucheck.cli import main
from hallucheck.errors import InputError
from hallucheck.eval import Example, load_dataset, load_jsonl

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "examples" / "eval_sample.jsonl"
REF = "The Oberoi Group is a hotel company. Its head office is in Delhi."


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_readme_fields_load_with_dataset_from_the_file_and_task_from_the_question(tmp_path):
    p = _write(
        tmp_path / "my.jsonl",
        [
            {"id": "1", "question": "Where is the head office?", "reference": REF, "answer": "In Delhi.", "label": 0},
            {"id": "2", "question": None, "reference": REF, "answer": "It runs casinos.", "label": 1},
            {"id": "3", "reference": REF, "answer": "It is a hotel company.", "label": 0},
        ],
    )
    examples = load_dataset(str(p))
    assert [(ex.dataset, ex.task) for ex in examples] == [
        ("my", "qa"),
        ("my", "summarization"),
        ("my", "summarization"),
    ]
    assert all(ex.meta["inferred"] == ["dataset", "task"] for ex in examples)


def test_given_dataset_and_task_are_kept_and_not_marked_inferred(tmp_path):
    row = {"id": "1", "dataset": "d", "task": "dialogue", "question": "q?", "reference": REF, "answer": "a", "label": 0}
    (ex,) = load_jsonl(_write(tmp_path / "x.jsonl", [row]))
    assert (ex.dataset, ex.task) == ("d", "dialogue") and "inferred" not in ex.meta
    (ex,) = load_jsonl(_write(tmp_path / "y.jsonl", [{k: v for k, v in row.items() if k != "task"}]))
    assert (ex.dataset, ex.task, ex.meta["inferred"]) == ("d", "qa", ["task"])


def test_from_dict_without_a_default_still_needs_a_dataset():
    with pytest.raises(InputError, match="field 'dataset' is missing"):
        Example.from_dict({"id": "1", "reference": REF, "answer": "a", "label": 0})
    ex = Example.from_dict({"id": "1", "reference": REF, "answer": "a", "label": 0}, default_dataset="mine")
    assert (ex.dataset, ex.task) == ("mine", "summarization")


def test_eval_on_readme_fields_runs_and_the_manifest_says_what_was_inferred(tmp_path, capsys):
    p = _write(
        tmp_path / "my.jsonl",
        [
            {"id": "1", "question": "Where is the head office?", "reference": REF, "answer": "In Delhi.", "label": 0},
            {"id": "2", "question": None, "reference": REF, "answer": "It runs casinos in Macau.", "label": 1},
        ],
    )
    out = tmp_path / "run"
    code = main(["eval", "--method", "sim_overlap", "--data", str(p), "--out", str(out), "--quiet"])
    assert code == 0, capsys.readouterr().err
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["data"] == "my"
    assert manifest["inferred"] == {"rows": 2, "dataset": {"my": 2}, "task": {"qa": 1, "summarization": 1}}


def test_shipped_sample_has_only_the_readme_fields_and_both_labels():
    rows = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert 10 <= len(rows) <= 20
    assert all(set(r) == {"id", "question", "reference", "answer", "label"} for r in rows)
    assert {r["label"] for r in rows} == {0, 1}
    assert {r["question"] is None for r in rows} == {True, False}  # questions and summaries


def test_eval_runs_end_to_end_on_the_shipped_sample(tmp_path, capsys):
    out = tmp_path / "sample"
    code = main(["eval", "--method", "sim_overlap", "--data", str(SAMPLE), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 0, err
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["examples"] == 16 and metrics["errors"] == 0 and metrics["unverified"] == 0
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["inferred"]["dataset"] == {"eval_sample": 16}
    assert (out / "report.html").is_file()
