"""``hallucheck mitigate`` with an LLM (issue 47): a rewrite that is not a sentence of the answer is
named in a note with its reason, and the LLM calls are printed in all, the check and the repair apart."""

from __future__ import annotations

from _scripted.repair import scripted_llm
from hallucheck import cli

REF = "Inflate the front tyres to 2.4 bar. Check the pressure when the tyres are cold."
WRONG = "Check the pressure after a long drive."
ANSWER = f"Inflate the front tyres to 2.4 bar. {WRONG}"


def run(tmp_path, monkeypatch, capsys, reply):
    ref = tmp_path / "ref.txt"
    ref.write_text(REF, encoding="utf-8")
    llm = scripted_llm({WRONG: f"[Reason]\nThe reference says cold.\n[Final Sentence]\n{reply}"}, ("long drive",))
    monkeypatch.setattr("hallucheck.llm.make_llm", lambda *a, **k: llm)
    args = ["mitigate", "--method", "cascade", "--param", "gate=none", "--param", "calibrate=false"]
    code = cli.main([*args, "--reference", str(ref), "--answer", ANSWER, "--color", "never"])
    return code, capsys.readouterr().out, llm


def test_a_label_in_the_rewrite_is_refused_and_named(tmp_path, monkeypatch, capsys):
    code, out, _ = run(tmp_path, monkeypatch, capsys, "Correct Fix Result: The sentence has been corrected.")
    assert code == 1
    assert "(none: the answer is unchanged)" in out
    note = next(line for line in out.splitlines() if "note:" in line)
    assert "not repaired:" in note and "is refused: it talks about the sentence" in note
    assert out.rstrip().endswith(ANSWER)


def test_the_calls_of_the_check_and_the_repair_are_printed_apart(tmp_path, monkeypatch, capsys):
    code, out, llm = run(tmp_path, monkeypatch, capsys, "Check the pressure when the tyres are cold.")
    assert code == 0
    line = next(line for line in out.splitlines() if line.startswith("LLM calls in all:"))
    assert line.startswith(f"LLM calls in all: {len(llm.requests)} (0 cached): {len(llm.requests) - 1} to check")
    assert ", 1 to repair;" in line
