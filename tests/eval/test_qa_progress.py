"""run_qa progress: one plain line per question when stderr is not a terminal (CI logs)."""

from __future__ import annotations

from types import SimpleNamespace

from hallucheck.eval.qa import run_qa
from hallucheck.types import Usage


class _Gen:
    method = "stub"

    def generate(self, question):
        return SimpleNamespace(
            answer="Paris.",
            short_answer="Paris",
            retrieval_calls=1,
            corrections=(),
            llm_calls=1,
            usage=Usage(calls=1),
            seconds=0.0,
            to_dict=lambda: {},
        )

    def to_dict(self):
        return {"type": "stub"}


def test_run_qa_progress_is_plain_lines_off_a_terminal(capsys):
    qs = [{"id": str(i), "question": "Capital of France?", "answers": ["Paris"]} for i in range(3)]
    run_qa(_Gen(), qs)
    err = capsys.readouterr().err
    assert "\r" not in err
    assert err.splitlines() == [f"[{i}/3] stub: F1=1.00 retrievals=1" for i in (1, 2, 3)]
