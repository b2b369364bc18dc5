"""A reference given as a list of passages: every evidence says which passage it came from and
where inside it, exactly, for deterministic and LLM methods; results round-trip and old ones load."""

import json

import pytest

import hallucheck
from hallucheck.errors import InputError
from hallucheck.eval.datasets import Example, load_jsonl
from hallucheck.eval.runner import run_eval
from hallucheck.llm import FakeLLM
from hallucheck.text.passages import Passages
from hallucheck.types import Detection, Evidence

PASSAGES = [
    "The Oberoi Group was founded in 1934 by Mohan Singh Oberoi.",
    "Its head office is in Delhi. The group runs 31 hotels in seven countries.",
    "Guests can book rooms online.",
]
ANSWER = "The Oberoi Group was founded in 1934. It runs 35 hotels. The group runs 31 hotels in seven countries."
ENTAIL = {"Entailment": -0.1, "Neutral": -3.0, "Contradiction": -3.0}


def _assert_exact(det, passages):
    located = [e for v in det.verdicts for e in v.evidence if e.passage is not None]
    assert located, "no evidence was located in a passage"
    for e in located:
        assert passages[e.passage][e.passage_start : e.passage_end] == e.text
        assert det.reference[e.start : e.end] == e.text  # offsets into the joined text still hold
    return located


def test_sim_overlap_evidence_maps_back_to_passages():
    det = hallucheck.detect(ANSWER, PASSAGES, method="sim_overlap")
    located = _assert_exact(det, PASSAGES)
    assert {0, 1} <= {e.passage for e in located} and det.passages == tuple(PASSAGES)
    assert det.reference == "\n\n".join(PASSAGES)
    assert any(e.passage == 1 and e.passage_start > 0 for e in located)  # the second sentence of passage 1
    assert [v.claim.text for v in det.flagged] == ["It runs 35 hotels."]


def test_entity_check_evidence_maps_back_to_passages():
    det = hallucheck.detect(ANSWER, PASSAGES, method="entity_check", check_entities=False)
    _assert_exact(det, PASSAGES)
    (flagged,) = det.flagged
    # "35 hotels" against the passage sentence about the hotels, which says 31: contradicted, that
    # sentence (in passage 1) as the evidence
    assert flagged.label == "contradicted" and "'35 hotels'" in flagged.reason and "'31 hotels'" in flagged.reason
    assert [(e.passage, e.text) for e in flagged.evidence] == [(1, "The group runs 31 hotels in seven countries.")]


def test_llm_method_with_fake_llm_evidence_maps_back_to_passages(bow_embedder):
    llm = FakeLLM(label_scores=lambda messages, labels: ENTAIL)
    method = hallucheck.load_method("cascade", llm=llm, gate="numbers", k=1, calibrate=False)
    det = method.run(ANSWER, PASSAGES)
    located = _assert_exact(det, PASSAGES)
    judged = [v for v in det.verdicts if v.meta.get("stage") == "judge"]
    assert judged and all(v.evidence and v.evidence[0].passage is not None for v in judged)
    assert any(e.passage == 1 for e in located)
    assert llm.requests  # the judge ran on the joined passages


def test_whole_reference_evidence_spanning_passages_has_no_passage(bow_embedder):
    llm = FakeLLM(label_scores=lambda messages, labels: ENTAIL)
    short = ["Its head office is in Delhi.", "It has 31 hotels."]
    det = hallucheck.load_method("cascade", llm=llm, gate="numbers", calibrate=False).run(
        "Its head office is in Delhi.", short
    )
    (ev,) = det.verdicts[0].evidence
    assert ev.meta.get("whole") and ev.passage is None and det.reference[ev.start : ev.end] == ev.text
    one = hallucheck.load_method("cascade", llm=llm, gate="numbers", calibrate=False).run(
        "Its head office is in Delhi.", short[:1]
    )
    assert one.verdicts[0].evidence[0].passage == 0


def test_passages_locate_edges():
    p = Passages(["ab", "", "cde"])
    assert p.text == "ab\n\n\n\ncde"
    assert p.locate(0, 2) == (0, 0, 2) and p.locate(6, 9) == (2, 0, 3) and p.locate(4, 4) == (1, 0, 0)
    assert p.locate(1, 7) is None and p.locate(8, 12) is None  # across a boundary; past the end


def test_bad_passages_are_input_errors():
    method = hallucheck.load_method("sim_overlap")
    with pytest.raises(InputError, match="empty list of passages"):
        method.run(ANSWER, [])
    with pytest.raises(InputError, match="Passage 1 of the reference must be a string"):
        method.run(ANSWER, ["ok text", 3])
    with pytest.raises(InputError, match="reference is empty"):
        method.run(ANSWER, ["  ", ""])


def test_results_round_trip_and_old_results_load():
    det = hallucheck.detect(ANSWER, PASSAGES, method="sim_overlap")
    again = Detection.from_dict(json.loads(json.dumps(det.to_dict())))
    assert again == det and again.passages == tuple(PASSAGES)
    single = hallucheck.detect(ANSWER, " ".join(PASSAGES), method="sim_overlap").to_dict()
    assert "passages" not in single and all("passage" not in e for v in single["verdicts"] for e in v["evidence"])
    old = {"text": "x", "start": 0, "end": 1, "score": None, "source": "reference", "meta": {}}
    assert Evidence.from_dict(old).passage is None and Evidence.from_dict(old).to_dict() == old


def test_run_batch_and_loader_take_passages(tmp_path):
    method = hallucheck.load_method("sim_overlap")
    a, b = method.run_batch([{"answer": ANSWER, "contexts": PASSAGES}, {"answer": ANSWER, "reference": PASSAGES}])
    assert a.passages == b.passages == tuple(PASSAGES) and a.hallucinated
    path = tmp_path / "d.jsonl"
    path.write_text(
        json.dumps({"id": "1", "dataset": "d", "task": "qa", "answer": ANSWER, "contexts": PASSAGES, "label": 1})
        + "\n",
        encoding="utf-8",
    )
    (ex,) = load_jsonl(path)
    assert ex.meta["passages"] == PASSAGES and ex.reference == "\n\n".join(PASSAGES)
    assert Example.from_dict(ex.to_dict()).meta["passages"] == PASSAGES
    (rec,) = run_eval(method, [ex], progress=False)
    evs = [e for v in rec["detection"]["verdicts"] for e in v["evidence"]]
    assert rec["detection"]["passages"] == PASSAGES
    assert all(PASSAGES[e["passage"]][e["passage_start"] : e["passage_end"]] == e["text"] for e in evs)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"id": "1", "dataset": "d", "task": "qa", "answer": ANSWER, "contexts": "x", "label": 1}) + "\n"
    )
    with pytest.raises(InputError, match=r"bad.jsonl line 1: .*contexts"):
        load_jsonl(bad)
