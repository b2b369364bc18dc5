"""``hallucheck mitigate --llm none`` on the README's manual example: the contradicted pressure
takes the reference's value (no LLM), the change names its source offsets, the rest is untouched."""

from __future__ import annotations

import json
from pathlib import Path

from hallucheck import cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ANSWER = (EXAMPLES / "manual_answer.txt").read_text(encoding="utf-8")
REFERENCE = (EXAMPLES / "manual_reference.txt").read_text(encoding="utf-8")


def _run(capsys, *extra: str) -> tuple[int, str]:
    code = cli.main(
        [
            "mitigate",
            "--llm",
            "none",
            "--reference",
            str(EXAMPLES / "manual_reference.txt"),
            "--answer",
            str(EXAMPLES / "manual_answer.txt"),
            "--color",
            "never",
            *extra,
        ]
    )
    return code, capsys.readouterr().out


def test_mitigate_without_an_llm_replaces_the_wrong_pressure(capsys):
    code, out = _run(capsys)
    start = ANSWER.index("3.0 bar")
    source = REFERENCE.index("2.6 bar")
    assert "[-3.0-]{+2.6+}" in out
    assert f"answer[{start}:{start + 7}] '3.0 bar' -> '2.6 bar': from reference[{source}:{source + 7}]" in out
    assert out.rstrip().endswith(ANSWER.strip().replace("3.0 bar", "2.6 bar"))
    assert code == 0  # the re-check of the revision is grounded


def test_mitigate_json_records_the_edit_and_leaves_the_other_sentences(capsys):
    code, out = _run(capsys, "--format", "json")
    mit = json.loads(out)
    (edit,) = mit["edits"]
    assert ANSWER[edit["start"] : edit["end"]] == "3.0 bar" and edit["replacement"] == "2.6 bar"
    assert REFERENCE[edit["source"][0] : edit["source"][1]] == "2.6 bar"
    assert mit["revised"] == ANSWER.replace("3.0 bar", "2.6 bar")
    assert mit["after"]["hallucinated"] is False and code == 0
