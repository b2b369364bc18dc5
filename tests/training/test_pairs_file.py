"""A bad line in a run's pairs.jsonl is an input error naming the file and the line (exit 2 from
``hallucheck train``), never an "unexpected TypeError" from building a Pair."""

from __future__ import annotations

import json

import pytest

from hallucheck.errors import InputError
from hallucheck.training.pairs import Pair
from hallucheck.training.train import read_pairs

GOOD = {"evidence": "Paris is the capital of France.", "claim": "Paris is the capital.", "label": 0}


def write(path, *lines):
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return path


def test_good_pairs_are_read(tmp_path):
    f = write(tmp_path / "pairs.jsonl", json.dumps(GOOD), "", json.dumps({**GOOD, "label": 1, "weight": 0.7}))
    assert read_pairs(f) == [Pair(**GOOD), Pair(**{**GOOD, "label": 1, "weight": 0.7})]


@pytest.mark.parametrize(
    "line, problem",
    [
        ('{"evidence": "x", "claim": "y", "label": 1, "colour": "red"}', "unknown fields colour"),
        ('{"evidence": "x", "label": 1}', "missing claim"),
        ('{"evidence": "x", "claim": 3, "label": 1}', "wrong type for claim"),
        ('{"evidence": "x", "claim": "y", "label": true}', "wrong type for label"),
        ('{"evidence": "x", "claim": "y", "label": 2}', "the label must be 0 or 1"),
        (
            '{"evidence": "x", "claim": "y", "label": 1, "weight": -1}',
            "the label must be 0 or 1 and the weight a positive number",
        ),
        ('["x", "y", 1]', "expected a JSON object, got list"),
        ('{"evidence": "x", "claim": ', "not JSON"),
    ],
)
def test_a_bad_line_names_the_file_the_line_and_the_problem(tmp_path, line, problem):
    f = write(tmp_path / "pairs.jsonl", json.dumps(GOOD), line)
    with pytest.raises(InputError) as err:
        read_pairs(f)
    message = str(err.value)
    assert f"pairs.jsonl line 2: not a training pair ({problem}" in message
    assert "delete the file to rebuild" in message


def test_cli_train_with_a_bad_pairs_file_exits_2(tmp_path, tiny_encoder, capsys):
    from hallucheck.cli import main

    data = tmp_path / "train.jsonl"
    data.write_text(json.dumps({"reference": "Paris is the capital.", "answer": "Paris.", "label": 0}) + "\n")
    out = tmp_path / "run"
    out.mkdir()
    write(out / "pairs.jsonl", json.dumps(GOOD), '{"evidence": "x", "claim": "y", "label": 1, "extra": 1}')
    code = main(["train", "--data", str(data), "--out", str(out), "--base", str(tiny_encoder), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "pairs.jsonl line 2: not a training pair (unknown fields extra)" in err
    assert "unexpected" not in err
