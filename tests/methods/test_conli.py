"""CoNLI (paper 001) as a method, with FakeLLM: the hierarchical entity pass through the pipeline,
mitigation end to end, registration. The stages' own tests are in tests/stages/test_conli_*.py."""

from __future__ import annotations

import re

import pytest

import hallucheck
from _scripted.conli import REF, hypotheses_of, nli_reply
from hallucheck.errors import ConfigError
from hallucheck.llm import FakeLLM
from hallucheck.models import ner
from hallucheck.pipeline import Pipeline
from hallucheck.stages.conli_rewrite import ConliRewriteMitigator
from hallucheck.types import Claim, Detection, Verdict


@pytest.fixture
def fake_ner(monkeypatch):
    """spaCy stand-in: capitalised words and numbers, with spaCy labels."""
    labels = {"Mumbai": "GPE", "Delhi": "GPE", "Oberoi": "PERSON", "31": "CARDINAL", "40": "CARDINAL", "Group": "ORG"}

    def extract(text, *, model="x", labels_filter=None, **_):
        out = []
        for m in re.finditer(r"\b(?:Mumbai|Delhi|Oberoi|31|40|Group)\b", text):
            out.append(ner.Entity(m.group(), m.start(), m.end(), labels[m.group()]))
        return out

    monkeypatch.setattr(ner, "extract_entities", extract)


# -- the hierarchy -----------------------------------------------------------------------------


def test_entity_checks_run_only_on_sentences_judged_grounded(fake_ner):
    answer = "The head office is in Mumbai. Mohan Singh Oberoi runs 31 hotels."
    llm = FakeLLM(nli_reply(lambda h: "I" if "Mumbai" in h else "C"))
    det = hallucheck.load_method("conli", llm=llm).run(answer, REF)
    asked = [hypotheses_of(r) for r in llm.requests]
    assert asked[:2] == [["The head office is in Mumbai."], ["Mohan Singh Oberoi runs 31 hotels."]]
    entity_hyps = [h for hs in asked[2:] for h in hs]
    # only the grounded sentence's entities, one tagged hypothesis each (ORG is not a CoNLI category)
    assert entity_hyps == ["Mohan Singh [ Oberoi ] runs 31 hotels.", "Mohan Singh Oberoi runs [ 31 ] hotels."]
    assert not any("Mumbai" in h for h in entity_hyps)
    first, second = det.verdicts
    assert first.hallucinated and first.meta["level"] == "sentence" and "entities" not in first.meta
    assert second.hallucinated is False and [e["category"] for e in second.meta["entities"]] == [
        "PERSON",
        "QUANTITY-NUMBER",
    ]
    assert answer[second.meta["entities"][1]["start"] : second.meta["entities"][1]["end"]] == "31"


def test_an_entity_judged_I_makes_the_sentence_hallucinated_with_its_reason(fake_ner):
    answer = "Oberoi runs 40 hotels."
    llm = FakeLLM(nli_reply(lambda h: "I" if "[ 40 ]" in h else "C"))
    v = hallucheck.load_method("conli", llm=llm).run(answer, REF).verdicts[0]
    assert v.hallucinated is True and v.meta["level"] == "entity" and v.meta["sentence"]["label"] == "C"
    assert v.reason.startswith("Entity-level: [ 40 ] (QUANTITY-NUMBER): premise reference")
    assert v.label == "contradicted" and v.score == 1.0


def test_entity_batching_groups_entity_hypotheses(fake_ner):
    llm = FakeLLM(nli_reply(lambda h: "C"))
    hallucheck.load_method("conli", llm=llm, batch_size=4).run("Oberoi runs 31 hotels in Delhi.", REF)
    assert [len(hypotheses_of(r)) for r in llm.requests] == [1, 3]


def test_entity_level_off_makes_no_entity_calls(fake_ner):
    llm = FakeLLM(nli_reply(lambda h: "C"))
    hallucheck.load_method("conli", llm=llm, entity_level=False).run("Oberoi runs 31 hotels in Delhi.", REF)
    assert len(llm.requests) == 1


def test_failed_entity_check_makes_the_sentence_unverified(fake_ner):
    ok = nli_reply(lambda h: "C")
    llm = FakeLLM([ok, "garbage", "more garbage"])
    v = hallucheck.load_method("conli", llm=llm, entity_level=True).run("Delhi is nice.", REF).verdicts[0]
    assert v.status == "error" and "[ Delhi ]" in v.reason and v.meta["sentence"]["label"] == "C"


# -- scores from log-probabilities -------------------------------------------------------------


# -- mitigation --------------------------------------------------------------------------------


def _detection(answer: str, flagged: dict[str, str]) -> Detection:
    from hallucheck.text import split_sentences

    verdicts = []
    for s in split_sentences(answer):
        bad = s.text in flagged
        verdicts.append(
            Verdict(
                Claim(s.text, s.start, s.end),
                "unverifiable" if bad else "supported",
                bad,
                1.0 if bad else 0.0,
                flagged.get(s.text, ""),
            )
        )
    return Detection(answer, REF, None, "conli", any(v.hallucinated for v in verdicts), None, tuple(verdicts))


def test_unflagged_answer_is_unchanged_without_an_llm_call():
    llm = FakeLLM(nli_reply(lambda h: "C"))
    method = hallucheck.load_method("conli", llm=llm, entity_level=False)
    answer = "The head office is in Delhi. It runs 31 hotels."
    mit = method.mitigate(answer, REF)
    assert mit.revised == answer and mit.edits == () and not mit.changed
    assert not any(r.prompt.startswith("conli_mitigate") for r in llm.requests)
    direct = ConliRewriteMitigator(llm=FakeLLM([])).mitigate(_detection(answer, {}))
    assert direct.revised == answer and direct.edits == ()


def test_end_to_end_mitigation_through_the_pipeline(fake_ner):
    answer = "The head office is in Mumbai. It runs 31 hotels."

    def reply(request):
        if request.prompt.startswith("conli_mitigate"):
            return "Answer:\nThe head office is in Delhi. It runs 31 hotels.\nEnd CLAIM."
        return nli_reply(lambda h: "I" if "Mumbai" in h else "C")(request)

    mit = hallucheck.load_method("conli", llm=FakeLLM(reply)).mitigate(answer, REF)
    assert mit.revised == "The head office is in Delhi. It runs 31 hotels."
    assert mit.before.hallucinated is True and mit.after.hallucinated is False
    # detection: 2 sentences + 1 entity call; mitigation: 1; re-check: 2 sentences + 2 entity calls
    assert mit.usage.calls == 8


# -- the method --------------------------------------------------------------------------------


def test_method_is_registered_and_round_trips():
    names = dict(hallucheck.list_methods())
    assert "conli" in names
    llm = FakeLLM()
    p = hallucheck.load_method("conli", llm=llm, batch_size=4, entity_level=False)
    assert p.verifier.batch_size == 4 and p.verifier.entity_level is False and p.mitigator is not None
    again = Pipeline.from_dict(p.to_dict(), llm=llm)
    assert again.to_dict() == p.to_dict() and again.verifier.llm is llm and again.mitigator.llm is llm
    with pytest.raises(ConfigError, match="batch_size"):
        hallucheck.load_method("conli", llm=llm, batch_size=0)
    with pytest.raises(ConfigError, match="Did you mean 'batch_size'"):
        hallucheck.load_method("conli", llm=llm, batch_sise=2)
