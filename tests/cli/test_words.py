"""The words of the command line (issue 47): JSON output rounds its floats; a warning of a run is
printed once, not per row; no paper numbers in --help."""

from __future__ import annotations

import json
import re

import pytest

from hallucheck import cli
from hallucheck.cli._common import rounded

REF_DE = "Der Reifendruck beträgt 2,6 bar für die Hinterreifen bei voller Beladung."
ANSWER_DE = "Der Reifendruck beträgt 3,0 bar für die Hinterreifen."


def test_rounded_rounds_floats_only():
    assert rounded({"a": 0.19862277466750922, "b": [1, 2.000049, "x"], "c": None, "d": True}) == {
        "a": 0.1986,
        "b": [1, 2.0, "x"],
        "c": None,
        "d": True,
    }


def test_detect_json_has_no_float_noise(tmp_path, capsys):
    ref = tmp_path / "ref.txt"
    ref.write_text("The pump weighs 12.5 kg and runs for 40 minutes.", encoding="utf-8")
    code = cli.main(
        [
            "detect",
            "--method",
            "sim_overlap",
            "--reference",
            str(ref),
            "--answer",
            "The pump weighs 15 kg.",
            "--format",
            "json",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1 and json.loads(out)["hallucinated"] is True
    assert not re.findall(r"\d\.\d{5,}", out)


def test_check_prints_a_warning_once_for_the_run(tmp_path, capsys):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        "".join(json.dumps({"id": i, "reference": REF_DE, "answer": ANSWER_DE}) + "\n" for i in range(3)),
        encoding="utf-8",
    )
    args = ["check", str(rows), "--method", "entity_check", "--out", str(tmp_path / "out"), "--quiet"]
    cli.main(args)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(lines) == 1 and "German" in lines[0] and lines[0].endswith("(3 of 3 rows)"), err


@pytest.mark.parametrize("command", ["", "generate-data", "methods", "detect", "mitigate", "eval", "check"])
def test_help_names_no_paper_number(command, capsys):
    with pytest.raises(SystemExit):
        cli.main([command, "--help"] if command else ["--help"])
    out = capsys.readouterr().out
    assert not re.search(r"\b(?:paper|thesis) 00\d", out, re.IGNORECASE), out
