"""A warning of the run (the ``--llm none`` one, an unread language) is said once per run, with how
many rows it concerns, not on every row of the report (issue 47)."""

from __future__ import annotations

import json

from hallucheck.eval.check import finish_check
from hallucheck.eval.datasets import Example
from hallucheck.eval.html_report import render_eval_html, run_warnings

LLM_NONE = "Without an LLM the trained verifier decides alone (add --llm)."
GERMAN = "names are checked only in English text"


def _record(i: int, warnings: list[str]) -> dict:
    answer = f"Answer {i}."
    verdict = {"claim": {"text": answer, "start": 0, "end": len(answer)}, "hallucinated": i % 2 == 0, "score": 0.7}
    return {
        "id": f"r{i}",
        "label": i % 2,
        "status": "ok",
        "hallucinated": i % 2 == 0,
        "score": 0.7 if i % 2 == 0 else 0.2,
        "detection": {"answer": answer, "verdicts": [verdict], "meta": {"warnings": warnings}},
    }


RECORDS = [_record(i, [LLM_NONE] + ([GERMAN] if i == 3 else [])) for i in range(6)]


def test_each_warning_is_counted_once_per_row_that_carries_it():
    assert run_warnings(RECORDS) == [(LLM_NONE, 6), (GERMAN, 1)]
    assert run_warnings([_record(0, [])]) == []


def test_the_eval_report_says_each_warning_once():
    metrics = {"examples": 6, "positives": 3, "errors": 0, "unverified": 0}
    html = render_eval_html(RECORDS, metrics, None)
    assert html.count(LLM_NONE) == 1 and "(6 of 6 rows)" in html
    assert html.count(GERMAN) == 1 and "(1 of 6 rows)" in html


def test_the_check_summary_and_report_say_each_warning_once(tmp_path):
    rows = [Example(r["id"], "rows", "check", None, "Ref.", r["detection"]["answer"], None) for r in RECORDS]
    summary = finish_check(tmp_path, rows, RECORDS)
    assert summary["warnings"] == [{"warning": LLM_NONE, "rows": 6}, {"warning": GERMAN, "rows": 1}]
    assert json.loads((tmp_path / "summary.json").read_text())["warnings"][0]["rows"] == 6
    assert (tmp_path / "report.html").read_text().count(LLM_NONE) == 1
