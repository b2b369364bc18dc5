"""The generation policies on their own: what each strategy retrieves, accepts and revises."""

from __future__ import annotations

import math

from hallucheck.corpus import Corpus
from hallucheck.generation import DRAD, FLR, METHODS, NOR, POLICIES, SRR, TPR, DRADGenerator
from hallucheck.generation.policies import Draft
from hallucheck.generation.rhd import RHDDetector, align_tokens
from hallucheck.llm.base import TokenLogprob
from hallucheck.llm.fake import FakeLLM
from hallucheck.models.ner import Entity
from hallucheck.text.segment import split_sentences

CORPUS = Corpus.from_texts(["The lighthouse of Port Aldermere was lit in 1791 by the engineer Ansel Marrow."])


def draft(pieces):
    tokens = [TokenLogprob(t, math.log(p), (), 0.1) for t, p in pieces]
    text = "".join(t for t, _ in pieces)
    spans = align_tokens(text, tokens)
    return Draft(text, 0, len(text), tokens, spans, list(range(len(tokens))), [], 0)


class Recorder:
    def __init__(self):
        self.calls = []

    def __call__(self, query, reason):
        self.calls.append((query, reason))
        return ()


def test_every_method_has_one_policy_and_the_generator_picks_it():
    assert METHODS == ("drad", "nor", "srr", "flr", "tpr")
    for name in METHODS:
        gen = DRADGenerator(llm=FakeLLM(), corpus=CORPUS, method=name)
        assert type(gen.policy) is POLICIES[name]
        assert gen.policy.name == name
    assert [p.one_shot for p in (DRAD, NOR, SRR, FLR, TPR)] == [False, True, True, False, False]
    assert [p.needs_logprobs for p in (DRAD, NOR, SRR, FLR, TPR)] == [True, False, False, False, True]
    assert not NOR.uses_corpus and SRR.uses_corpus


def test_srr_retrieves_once_with_the_question_and_flr_before_every_sentence():
    rec = Recorder()
    assert SRR().first_passages("Who lit it?", rec) == ()
    assert SRR().step_passages("Who lit it?", "It was lit.", ("fixed",), rec) == ("fixed",)
    assert rec.calls == [("Who lit it?", "question")]
    rec = Recorder()
    assert FLR().first_passages("Who lit it?", rec) is None
    FLR().step_passages("Who lit it?", "", None, rec)
    FLR().step_passages("Who lit it?", "It was lit in 1791.", None, rec)
    assert rec.calls == [("Who lit it?", "question"), ("It was lit in 1791.", "sentence")]
    sents = split_sentences("One. Two. Three.")
    assert FLR().accept(list(sents)) == [sents[0]]
    assert NOR().accept(list(sents)) == list(sents)


def test_tpr_regenerates_the_sentence_without_its_uncertain_tokens():
    d = draft([("It", 0.9), (" was", 0.9), (" lit", 0.9), (" in", 0.9), (" 1789", 0.2), (".", 0.9)])
    fix, ents = TPR(0.4).revision(d)
    assert ents == []
    assert (fix.cut, fix.trigger, fix.query, fix.uncertain_tokens) == (0, "token", "It was lit in.", (" 1789",))
    assert TPR(0.1).revision(d) == (None, [])
    assert NOR().revision(d) == (None, [])


def test_drad_cuts_before_the_first_hallucinated_entity_and_queries_around_it():
    def ner(text):
        i = text.find("Tomas Vell")
        return [Entity("Tomas Vell", i, i + 10, "PERSON")] if i >= 0 else []

    d = draft([("It", 0.9), (" was", 0.9), (" lit", 0.9), (" by", 0.9), (" Tomas", 0.1), (" Vell", 0.3), (".", 0.9)])
    fix, ents = DRAD(RHDDetector(ner_model=ner), m=2).revision(d)
    assert [e.text for e in ents] == ["Tomas Vell"] and ents[0].hallucinated
    assert fix.trigger == "entity" and fix.cut == d.full.index(" Tomas")
    assert fix.query == "lit by ."  # the m=2 tokens before the entity and the m=2 from its end
    assert [e.text for e in fix.entities] == ["Tomas Vell"]
    confident = draft([("It", 0.9), (" was", 0.9), (" lit", 0.9), (" by", 0.9), (" Tomas", 0.9), (" Vell", 0.9)])
    fix, ents = DRAD(RHDDetector(ner_model=ner), m=2).revision(confident)
    assert fix is None and [e.hallucinated for e in ents] == [False]
