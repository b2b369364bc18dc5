"""benchmarks/qa_forms.py --write: a HaluEval-QA dev variant in which an answer's form says nothing of
its label, its four answers per question in one bootstrap group of transfer.py."""

from __future__ import annotations

import collections


def _pair(n: int, right: str, wrong: str) -> tuple[dict, dict]:
    base = {
        "dataset": "halueval_qa",
        "task": "qa",
        "question": "Which magazine was started first, Arthur's Magazine or First for Women?",
        "reference": "Arthur's Magazine (1844-1846) was a literary periodical. First for Women is a woman's magazine.",
    }
    return (
        {**base, "id": f"halueval-qa-{n}-r", "answer": right, "label": 0},
        {**base, "id": f"halueval-qa-{n}-h", "answer": wrong, "label": 1},
    )


def test_each_question_gives_both_forms_of_both_labels(bench_module):
    qa = bench_module("qa_forms")
    rows = qa.balanced_rows([_pair(0, "Arthur's Magazine", "First for Women was started first.")])
    assert len(rows) == 4
    by = {(r["id"].rsplit("-", 2)[1], r["label"]): r["answer"] for r in rows}
    assert by[("phrase", 0)] == "Arthur's Magazine"
    assert "Arthur's Magazine" in by[("sentence", 0)] and by[("sentence", 0)].endswith(".")
    assert by[("sentence", 1)] == "First for Women was started first."
    wrong = by[("phrase", 1)]  # a name of the question or the reference sharing no word with the right answer
    assert wrong and not {"arthur's", "magazine"} & set(wrong.lower().split())
    assert collections.Counter(r["label"] for r in rows) == {0: 2, 1: 2}
    assert {r["dataset"] for r in rows} == {"halueval_qa_forms"}


def test_a_question_without_a_wrong_phrase_is_left_out(bench_module):
    qa = bench_module("qa_forms")
    right, wrong = _pair(1, "1844", "It started in 1990.")
    right = {**right, "reference": "It began in 1844."}  # no other number to take
    assert qa.balanced_rows([(right, wrong)]) == []


def test_the_four_answers_of_a_question_share_a_bootstrap_group(bench_module):
    qa, tr = bench_module("qa_forms"), bench_module("transfer")
    rows = qa.balanced_rows([_pair(7, "Arthur's Magazine", "First for Women was started first.")])
    assert {tr.group_of(r["id"]) for r in rows} == {"halueval-qa-7"}
