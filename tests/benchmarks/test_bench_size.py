"""benchmarks/bench_size.py: inputs of the asked size with unique sentences, the methods without an
LLM, and one row of the table from a fresh process."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def bs(bench_module):
    return bench_module("bench_size")


def test_texts_have_the_asked_sizes_and_no_repeated_sentence(bs):
    answer, reference = bs.make_texts(20_000)
    assert len(answer) == len(reference) == 20_000
    sentences = reference.split(". ")
    assert len(set(sentences)) == len(sentences)
    assert answer != reference  # figures and names changed in some sentences
    short, long = bs.make_texts(50_000, answer_chars=1_000)
    assert len(short) == 1_000 and len(long) == 50_000
    assert bs.make_texts(5_000) == bs.make_texts(5_000)  # seeded


def test_the_methods_are_those_that_run_without_an_llm(bs):
    methods = bs.methods_without_llm()
    assert {"ce_cascade", "cross_encoder", "entity_check", "sim_overlap", "sim_cosine"} <= set(methods)
    assert not {"cascade", "prompt", "hsp", "conli"} & set(methods)


def test_one_row_reports_time_memory_claims_and_outcome(bs, capsys):
    bs.main(["--sizes", "1000", "--methods", "sim_overlap", "--timeout", "300"])
    header, rule, row = capsys.readouterr().out.strip().splitlines()
    assert header.startswith("| method | size (chars) | seconds | peak MB")
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[0] == "sim_overlap" and cells[1] == "1,000" and float(cells[2]) >= 0 and float(cells[3]) > 0
    assert int(cells[5]) > 1 and cells[6] in ("grounded", "hallucinated")
