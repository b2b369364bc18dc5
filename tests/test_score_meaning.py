"""One meaning of ``score`` across methods (issue 25, item 5): a claim's or an answer's score is
above 0.5 exactly when its verdict flags it. The rule is :func:`hallucheck.base.decision_score`,
applied by ``Pipeline.run``; this suite runs every registered method that works without an LLM
(collected from the registry, as the conformance suite does) over the shipped labelled sample and
the shipped manual example, and checks every claim and every answer against it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import hallucheck
from hallucheck import registry
from hallucheck.base import decision_score
from hallucheck.errors import ConfigError, MissingDependencyError
from hallucheck.models.ner import Entity

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ROWS = [json.loads(line) for line in (EXAMPLES / "eval_sample.jsonl").read_text(encoding="utf-8").splitlines()]
ROWS.append(
    {
        "question": None,
        "answer": (EXAMPLES / "manual_answer.txt").read_text(encoding="utf-8"),
        "reference": (EXAMPLES / "manual_reference.txt").read_text(encoding="utf-8"),
    }
)
# one figure wrong among several right ones: a low share of wrong facts, still flagged
FACTS_REF = "Anna Berg met Tom Lind in Oslo on 3 May 2021 and paid 40 euros for 2 tickets."
FACTS_ANSWER = "Anna Berg met Tom Lind in Oslo on 3 May 2021 and paid 45 euros for 2 tickets."
NO_LLM_METHODS = sorted(e.name for e in registry.available("method") if e.runs_without_llm)
NEEDS_VERIFIER_MODEL = {"cross_encoder", "ce_cascade"}


@pytest.fixture(autouse=True)
def _stand_ins(monkeypatch, bow_embedder):
    """The bag-of-words embedder (tests/conftest.py) and a NER that finds capitalised names."""
    from hallucheck.models import ner

    def extract(text, *, model=None, labels=None, **_):
        return [
            Entity(m.group(), m.start(), m.end(), "PERSON") for m in re.finditer(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b", text)
        ]

    monkeypatch.setattr(ner, "extract_entities", extract)


def _load(name):
    if name in NEEDS_VERIFIER_MODEL:
        pytest.importorskip("onnxruntime")
        pytest.importorskip("tokenizers")
    return hallucheck.load_method(name, llm="none")


def _agrees(score, hallucinated):
    return (score > 0.5) == hallucinated


@pytest.mark.parametrize("name", NO_LLM_METHODS)
def test_every_no_llm_method_scores_above_half_exactly_when_it_flags(name):
    method = _load(name)
    checked = 0
    for row in [*ROWS, {"question": None, "answer": FACTS_ANSWER, "reference": FACTS_REF}]:
        try:
            det = method.run(row["answer"], row["reference"], question=row["question"])
        except (MissingDependencyError, ConfigError) as exc:  # hub weights (hhem, minicheck) not here
            pytest.skip(f"{name}: {exc}")
        for v in det.verdicts:
            if v.status == "ok" and v.score is not None:
                assert 0.0 <= v.score <= 1.0
                assert _agrees(v.score, v.hallucinated), (name, v.claim.text, v.hallucinated, v.score, v.meta)
                checked += 1
        if det.hallucinated is not None and det.score is not None:
            assert _agrees(det.score, det.hallucinated), (name, row["answer"], det.hallucinated, det.score)
    assert checked > len(ROWS)


def test_entity_check_flags_one_wrong_figure_with_a_score_above_half():
    det = hallucheck.detect(FACTS_ANSWER, FACTS_REF, method="entity_check")
    assert det.hallucinated is True and det.score > 0.5  # was 0.20: 1 of 5 facts wrong
    (v,) = det.verdicts
    # the gate scores 0.5 + half its share of wrong facts itself (the share is kept for the cascades)
    assert v.meta["wrong_share"] == pytest.approx(0.2) and v.score == pytest.approx(0.6)
    assert "raw_score" not in v.meta  # nothing had to be moved onto the decision scale


def test_sim_overlap_scores_a_grounded_answer_at_most_half():
    # one shared 5-word phrase: overlap 5/12, above t2 = 0.1 (grounded), but 1 - overlap = 0.58 was its score
    ref = "Inflate the front tyres to 2.4 bar when the tyres are cold."
    det = hallucheck.detect(
        "Always inflate the front tyres to the value printed inside the door frame.", ref, method="sim_overlap"
    )
    assert det.verdicts[0].evidence[0].score == pytest.approx(5 / 12)
    assert det.hallucinated is False and det.score <= 0.5
    assert det.score == pytest.approx(0.5 * (7 / 12) / 0.9)  # 1 - t2 = 0.9 lands on 0.5, monotone below


def test_decision_score_rule():
    # with the verifier's threshold: a monotone map putting the threshold on 0.5
    xs = [i / 20 for i in range(21)]
    for t in (0.0, 0.1, 0.5, 0.9):
        mapped = [decision_score(x, x >= t, t) for x in xs]
        assert mapped == sorted(mapped)
        assert all(_agrees(m, x >= t) for m, x in zip(mapped, xs) if x != t or t in (0.0, 0.5))
    assert decision_score(0.9, True, 0.9) > 0.5  # flagged at the threshold itself: just above
    # without one: a score on the wrong side moves just past 0.5, order kept among such scores
    assert 0.505 <= decision_score(0.2, True) < decision_score(0.3, True) <= 0.51
    assert 0.495 < decision_score(0.6, False) < decision_score(0.7, False) <= 0.5
    assert decision_score(0.7, True) == 0.7 and decision_score(0.2, False) == 0.2  # already agreeing: unchanged
    assert decision_score(0.7, None) == 0.7  # not verified: left alone
