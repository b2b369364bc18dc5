"""The cross-encoder verifier: loading (ONNX, Hugging Face layouts, label conventions), scoring,
premise selection, clear errors for missing or corrupt checkpoints, and the default method's
uncertainty band (claims outside it make no LLM call)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

import hallucheck
from hallucheck.cli import main
from hallucheck.errors import ConfigError
from hallucheck.llm import FakeLLM
from hallucheck.models.cross_encoder import CrossEncoder, _scores_from_logits, supported_index
from hallucheck.stages.ce_cascade import CECascadeVerifier
from hallucheck.stages.cross_encoder import CrossEncoderVerifier
from hallucheck.training.pairs import content_words
from hallucheck.types import Claim, Evidence

REF = (
    "The front tyres take 2 bar. The rear tyres take 3 bar. Check the pressure when the tyres are cold. "
    "Paris is the capital of France. Berlin is the capital of Germany."
)


def test_label_conventions():
    assert supported_index({"id2label": {"0": "contradiction", "1": "neutral", "2": "entailment"}}) == 2
    assert supported_index({"id2label": {"0": "ENTAILMENT", "1": "NOT_ENTAILMENT"}}) == 0
    assert supported_index({"id2label": {"0": "supported", "1": "hallucinated"}}) == 0
    assert supported_index({"id2label": {"0": "LABEL_0", "1": "LABEL_1"}}) == 1  # MiniCheck convention
    assert supported_index({"num_labels": 1, "id2label": {"0": "LABEL_0"}}) is None  # HHEM-style single logit
    assert supported_index({"id2label": {"0": "LABEL_0", "1": "LABEL_1"}}, "LABEL_0") == 0
    with pytest.raises(ConfigError, match="no label 'yes'"):
        supported_index({"id2label": {"0": "a", "1": "b"}}, "yes")
    with pytest.raises(ConfigError, match="supported_label"):
        supported_index({"id2label": {"0": "a", "1": "b", "2": "c"}})
    # score = P(not supported): softmax over labels, or 1 - sigmoid for one logit
    s = _scores_from_logits(np.array([[0.0, 0.0, 2.0]]), 2)
    assert s[0] == pytest.approx(1 - np.exp(2) / (2 + np.exp(2)))
    assert _scores_from_logits(np.array([[0.0]]), None)[0] == pytest.approx(0.5)
    assert _scores_from_logits(np.array([[3.0]]), None)[0] == pytest.approx(1 / (1 + np.exp(3)))


def test_hugging_face_directory_scores_pairs_in_order(tiny_encoder):
    enc = CrossEncoder(str(tiny_encoder), batch_size=2)
    ev = ["the front tyres take 2 bar .", "paris is the capital of france .", "x", "the rear tyres take 3 bar ."]
    cl = ["front tyres 2 bar", "paris capital", "the lighthouse was built in 1689", "rear 3"]
    s = enc.score(ev, cl)
    assert s.shape == (4,) and np.all((s >= 0) & (s <= 1))
    # batching and the length sort do not change a pair's score
    single = [float(CrossEncoder(str(tiny_encoder), batch_size=1).score([e], [c])[0]) for e, c in zip(ev, cl)]
    assert s == pytest.approx(single, abs=1e-5)


def test_nli_and_single_logit_checkpoints(tmp_path, make_tiny_encoder):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    nli = make_tiny_encoder(
        tmp_path / "nli", num_labels=3, id2label={0: "contradiction", 1: "neutral", 2: "entailment"}
    )
    hhem = make_tiny_encoder(tmp_path / "hhem", num_labels=1)
    ev, cl = ["paris is the capital of france ."], ["paris is in france"]
    for path, expect in ((nli, lambda z: 1 - torch.softmax(z, -1)[0, 2]), (hhem, lambda z: 1 - torch.sigmoid(z[0, 0]))):
        tok = AutoTokenizer.from_pretrained(path)
        model = AutoModelForSequenceClassification.from_pretrained(path).eval()
        with torch.no_grad():
            logits = model(**tok(ev, cl, return_tensors="pt")).logits
        assert CrossEncoder(str(path)).score(ev, cl)[0] == pytest.approx(float(expect(logits)), abs=1e-5)


def test_onnx_export_round_trip_matches_pytorch(tiny_encoder, tmp_path):
    from hallucheck.training.export import export_onnx

    out = export_onnx(tiny_encoder, tmp_path / "onnx")
    assert (out / "model.onnx").is_file() and (out / "model.int8.onnx").is_file() and (out / "tokenizer.json").is_file()
    ev = ["the front tyres take 2 bar .", "paris is the capital of france . berlin is the capital of germany ."]
    cl = ["front tyres 2 bar", "berlin is the capital of france"]
    torch_scores = CrossEncoder(str(tiny_encoder)).score(ev, cl)
    onnx_scores = CrossEncoder(str(out), onnx_file="model.onnx").score(ev, cl)
    assert onnx_scores == pytest.approx(torch_scores, abs=1e-4)
    int8_scores = CrossEncoder(str(out)).score(ev, cl)  # model.int8.onnx is preferred
    assert int8_scores == pytest.approx(torch_scores, abs=0.05)


def test_premise_is_the_top_k_sentences_best_first_with_offsets(tiny_encoder):
    v = CrossEncoderVerifier(model=str(tiny_encoder), k=2)
    claim = Claim("Berlin is the capital of France.", 0, 32)
    premises, hyps, evs = v.premises([claim], REF, None)
    assert [e.text for e in evs[0]] == ["Berlin is the capital of Germany.", "Paris is the capital of France."] or [
        e.text for e in evs[0]
    ] == ["Paris is the capital of France.", "Berlin is the capital of Germany."]
    for e in evs[0]:
        assert REF[e.start : e.end] == e.text
    assert premises[0] == " ".join(e.text for e in evs[0]) and hyps[0] == claim.text
    # a QA claim is judged after its question; a short reference is given whole
    _, hyps, evs = v.premises([claim], "Paris is in France.", "Which city?")
    assert hyps[0] == "Which city? Berlin is the capital of France." and evs[0][0].meta["whole"]


def test_missing_and_corrupt_checkpoints_are_clear_errors(tmp_path, tiny_encoder, capsys):
    with pytest.raises(ConfigError, match="does not exist"):
        CrossEncoder(str(tmp_path / "nowhere" / "model"))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError, match="holds no cross-encoder"):
        CrossEncoder(str(empty))
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "model.onnx").write_bytes(b"not an onnx graph")
    shutil.copy(tiny_encoder / "tokenizer.json", bad / "tokenizer.json")
    with pytest.raises(ConfigError, match="corrupt"):
        CrossEncoder(str(bad)).score(["a"], ["b"])
    broken = tmp_path / "broken"
    shutil.copytree(tiny_encoder, broken)
    (broken / "model.safetensors").write_bytes(b"\x00" * 64)
    with pytest.raises(ConfigError, match="cannot be loaded|Cannot load"):
        CrossEncoder(str(broken)).score(["a"], ["b"])
    # the command line: exit 2 with a one-line message, no traceback
    ref = tmp_path / "ref.txt"
    ref.write_text(REF, encoding="utf-8")
    for model in (tmp_path / "nowhere" / "model", bad):
        code = main(
            [
                "detect",
                "--method",
                "cross_encoder",
                "--param",
                f"model={model}",
                "--reference",
                str(ref),
                "--answer",
                "The front tyres take 2 bar.",
            ]
        )
        err = capsys.readouterr().err
        assert code == 2 and "Traceback" not in err and str(model) in err and err.count("\n") == 1


class _FixedEncoder:
    """Stands in for a loaded cross-encoder: scores by the claim text."""

    meta = {"k": 3}

    def __init__(self, table):
        self.table = table

    def score(self, premises, claims):
        return np.array([self.table[c] for c in claims])


def _cascade(llm, table, **kw):
    kw.setdefault("combine", None)
    kw.setdefault("threshold", 0.5)
    v = CECascadeVerifier(llm=llm, gate="numbers", band=(0.3, 0.7), **kw)
    v._ce._encoder = _FixedEncoder(table)
    return v


def test_band_claims_outside_it_make_no_llm_call(bow_embedder):
    table = {
        "Check the pressure when the tyres are cold.": 0.05,  # sure: supported
        "Paris is the capital of Germany.": 0.95,  # sure: hallucinated
        "The rear tyres take air.": 0.5,  # unsure: the judge is asked
        "The front tyres take 5 bar.": 0.2,
    }  # the gate flags it (5 is not in the reference)
    llm = FakeLLM(
        label_scores=[
            {"Entailment": -3.0, "Neutral": -2.0, "Contradiction": -0.1},
            {"Entailment": -1.1, "Neutral": -1.1, "Contradiction": -1.1},
        ]
    )
    v = _cascade(llm, table)
    answer = "Check the pressure when the tyres are cold. Paris is the capital of Germany. The rear tyres take air. The front tyres take 5 bar."
    claims = [
        Claim(s, answer.index(s), answer.index(s) + len(s))
        for s in (
            "Check the pressure when the tyres are cold.",
            "Paris is the capital of Germany.",
            "The rear tyres take air.",
            "The front tyres take 5 bar.",
        )
    ]
    out = v.verify(claims, [[Evidence(REF, 0, len(REF))] for _ in claims], reference=REF)
    # the first sentence is the reference's, word for word: supported as a copy (no threshold, no judge)
    assert [o.meta["stage"] for o in out] == ["copy", "verifier", "judge", "gate"]
    assert [o.hallucinated for o in out] == [False, True, True, True]
    # one judge call (+ the content-free calibration call): only the claim inside the band
    judged = [r for r in llm.requests if "Claim: The rear tyres take air." in r.messages[-1].content]
    assert len(judged) == 1 and len(llm.requests) == 2
    assert not any(
        "Claim: Paris" in r.messages[-1].content or "Claim: Check the" in r.messages[-1].content for r in llm.requests
    )
    assert "uncertainty band" in out[2].reason and out[2].meta["verifier_score"] == 0.5


def test_a_sentence_copied_from_the_reference_is_supported_without_the_judge(bow_embedder):
    """A summary sentence the reference holds word for word (case and punctuation aside) is supported with
    no judge call, whatever the verifier or a judge would say; one changed word makes it a claim again."""
    copy = "check the pressure when the tyres are cold"
    changed = "Check the pressure when the tyres are wet."  # (an opposite, "hot", the gate would settle)
    table = {copy: 0.99, changed: 0.6}  # the verifier is (wrongly) sure the copy is unsupported
    flags = {"Entailment": -3.0, "Neutral": -2.0, "Contradiction": -0.1}
    llm = FakeLLM(label_scores=[flags, {"Entailment": -1.1, "Neutral": -1.1, "Contradiction": -1.1}])  # + calibration
    answer = f"{copy}. {changed}"
    claims = [Claim(copy, 0, len(copy)), Claim(changed, answer.index(changed), len(answer))]
    for judge in (llm, None):
        v = _cascade(judge, table)
        first, second = v.verify(claims, [[Evidence(REF, 0, len(REF))] for _ in claims], reference=REF)
        assert first.meta["stage"] == "copy" and first.hallucinated is False and first.score <= 0.5
        (ev,) = first.evidence
        assert REF[ev.start : ev.end] == "Check the pressure when the tyres are cold" and ev.meta["verbatim"]
        assert "word for word" in first.reason
        assert second.hallucinated is True and second.meta["stage"] in ("judge", "verifier")
    assert not any(f"Claim: {copy}" in r.messages[-1].content for r in llm.requests)
    assert any(f"Claim: {changed}" in r.messages[-1].content for r in llm.requests)
    # verbatim=False reads the copy as any other claim; ce_cascade.v1 pipelines keep that meaning
    off = _cascade(None, table, verbatim=False)
    assert off.verify(claims[:1], [[]], reference=REF)[0].meta["stage"] == "verifier"
    from hallucheck.stages.ce_cascade import CECascadeVerifierV1

    assert CECascadeVerifierV1().verbatim is False and CECascadeVerifier().verbatim is True


def test_no_llm_means_no_call_and_the_verifier_decides(bow_embedder):
    table = {"The rear tyres take air.": 0.6}
    v = _cascade(None, table)
    claim = Claim("The rear tyres take air.", 0, 24)
    (out,) = v.verify([claim], [[]], reference=REF)
    assert out.meta["stage"] == "verifier" and out.hallucinated is True and out.score == 0.6


def test_the_judge_score_is_put_on_the_combination_scale_before_the_mean(bow_embedder):
    """The judge says P(not entailed) 0.6: below its own threshold (0.82), so it must not flag a claim
    the verifier scores just above the task threshold. Averaged raw, 0.6 would pull the mean up."""
    import math

    lp = {"Entailment": math.log(0.4), "Neutral": math.log(0.3), "Contradiction": math.log(0.3)}
    claim = Claim("The rear tyres take air.", 0, 24)
    ev = [[Evidence(REF, 0, len(REF))]]
    (out,) = _cascade(FakeLLM(label_scores=[lp]), {claim.text: 0.55}, calibrate=False).verify(
        [claim], ev, reference=REF
    )
    assert out.meta["stage"] == "judge" and out.meta["judge_score"] == pytest.approx(0.6)
    assert out.score == pytest.approx(0.5 * (0.55 + 0.5 * 0.6 / 0.82)) and out.hallucinated is False
    # a reason a person can read: the judge's own score against its own threshold, and the result
    assert "the judge's P(unsupported) 0.60 is not above its own threshold 0.82" in out.reason
    assert "the final score is 0.46, not above 0.50" in out.reason
    # judge_threshold=None: no mapping, the raw mean (0.575) flags it
    v = _cascade(FakeLLM(label_scores=[lp]), {claim.text: 0.55}, calibrate=False, judge_threshold=None)
    (raw,) = v.verify([claim], ev, reference=REF)
    assert raw.score == pytest.approx(0.575) and raw.hallucinated is True
    # a confident judge still flags a claim the verifier leans to call supported
    sure = {"Entailment": math.log(0.05), "Neutral": math.log(0.15), "Contradiction": math.log(0.8)}
    (hit,) = _cascade(FakeLLM(label_scores=[sure]), {claim.text: 0.35}, calibrate=False).verify(
        [claim], ev, reference=REF
    )
    assert hit.hallucinated is True and hit.score == pytest.approx(0.5 * (0.35 + 0.5 + 0.5 * (0.95 - 0.82) / 0.18))


def test_a_pipeline_saved_as_ce_cascade_v1_keeps_the_raw_mean():
    """v2 changed what the band's mean means; a v1 config (no judge_threshold key) still loads as v1."""
    from hallucheck.methods.cross_encoder import ce_cascade
    from hallucheck.pipeline import Pipeline
    from hallucheck.stages.ce_cascade import CECascadeVerifierV1

    config = ce_cascade(llm=None).to_dict()
    verifier = config["params"]["verifier"]
    assert verifier["type"] == "ce_cascade.v2" and verifier["params"]["judge_threshold"] == 0.82
    verifier["type"] = "ce_cascade.v1"
    del verifier["params"]["judge_threshold"]
    old = Pipeline.from_dict(config)
    assert type(old.verifier) is CECascadeVerifierV1 and old.verifier.judge_threshold is None
    assert old.to_dict()["params"]["verifier"]["type"] == "ce_cascade.v1"


def test_to_scale_moves_the_source_point_onto_the_target_and_keeps_the_ends():
    from hallucheck.stages.ce_cascade import to_scale

    assert to_scale(0.82, 0.82, 0.45) == pytest.approx(0.45)
    assert to_scale(0.0, 0.82, 0.45) == 0.0 and to_scale(1.0, 0.82, 0.45) == pytest.approx(1.0)
    xs = [i / 20 for i in range(21)]
    ys = [to_scale(x, 0.82, 0.45) for x in xs]
    assert ys == sorted(ys) and to_scale(0.3, 0.45, 0.45) == 0.3


def test_judge_failure_inside_the_band_is_could_not_verify(bow_embedder):
    from hallucheck.errors import BackendError

    def fail(*a, **k):
        raise BackendError("endpoint down")

    llm = FakeLLM(label_scores=fail)
    v = _cascade(llm, {"The rear tyres take air.": 0.55})
    (out,) = v.verify([Claim("The rear tyres take air.", 0, 24)], [[Evidence(REF, 0, len(REF))]], reference=REF)
    assert (
        out.status == "error"
        and out.hallucinated is None
        and "judge failed" in out.reason
        and "--llm none" in out.reason
    )
    # outside the band the failing judge is never asked, so the verifier's verdict stands
    v = _cascade(llm, {"The rear tyres take air.": 0.05})
    (out,) = v.verify([Claim("The rear tyres take air.", 0, 24)], [[Evidence(REF, 0, len(REF))]], reference=REF)
    assert out.status == "ok" and out.hallucinated is False


def test_llm_none_runs_the_default_without_an_llm(monkeypatch, bow_embedder):
    from hallucheck.stages import cross_encoder as ce

    monkeypatch.setattr(
        ce.CrossEncoderVerifier,
        "encoder",
        property(lambda self: _FixedEncoder({"Check the pressure when the tyres are cold.": 0.1})),
    )
    det = hallucheck.detect(
        "Check the pressure when the tyres are cold.",
        REF,
        method="ce_cascade",
        llm="none",
        gate="numbers",
        combine=None,
    )
    assert det.hallucinated is False and det.usage.calls == 0
    with pytest.raises(ConfigError, match="needs an LLM"):
        hallucheck.load_method("hsp", llm="none")


def test_config_round_trips(tiny_encoder):
    from hallucheck.pipeline import Pipeline

    m = hallucheck.load_method("cross_encoder", model=str(tiny_encoder), threshold=0.4, k=2)
    again = Pipeline.from_dict(json.loads(json.dumps(m.to_dict())))
    assert again.to_dict() == m.to_dict() and again.verifier.threshold == 0.4
    m = hallucheck.load_method("ce_cascade", llm="none", band=[0.2, 0.6])
    assert Pipeline.from_dict(json.loads(json.dumps(m.to_dict()))).to_dict() == m.to_dict()
    with pytest.raises(ConfigError, match="band"):
        hallucheck.load_method("ce_cascade", llm="none", band=[0.8, 0.2])


def test_learned_combination_weighs_the_signals_per_task(bow_embedder, tmp_path):
    combo = {
        "features": ["verifier", "overlap", "gate"],
        "aggregate": "max",
        "tasks": {
            "qa": {"bias": 0.0, "verifier": 1.0, "overlap": -4.0, "gate": 0.0, "threshold": 0.4},
            "summary": {"bias": 0.0, "verifier": 1.0, "overlap": 0.0, "gate": 0.0, "threshold": 0.6},
        },
    }
    path = tmp_path / "combine.json"
    path.write_text(json.dumps(combo))
    copied = "Check the pressure when the tyres are cold."
    v = _cascade(None, {copied: 0.55, "When? " + copied: 0.55}, combine=str(path), threshold=None)
    v.band = None
    claim = Claim(copied, 0, len(copied))
    (summ,) = v.verify([claim], [[]], reference=REF)
    # summary task: sigmoid(logit(0.55)) = 0.55 <= 0.6; the reason names the signals
    assert summ.score == pytest.approx(0.55) and not summ.hallucinated and "overlap" in summ.reason
    # a question does not make a sentence copied from the reference a QA answer (question_mode auto)
    (auto,) = v.verify([claim], [[]], reference=REF, question="When?")
    assert auto.score == pytest.approx(0.55) and not auto.hallucinated
    v.question_mode = "qa"
    (qa,) = v.verify([claim], [[]], reference=REF, question="When?")
    # QA weights: a sentence copied from the reference (overlap 1) is pulled down by its weight
    assert qa.meta["overlap"] == 1.0 and qa.score == pytest.approx(1 / (1 + np.exp(-(np.log(0.55 / 0.45) - 4.0))))
    assert not qa.hallucinated
    bad = tmp_path / "bad.json"
    bad.write_text('{"tasks": {"qa": {}}}')
    with pytest.raises(ConfigError, match="cannot be read"):
        CECascadeVerifier(combine=str(bad))
    # the shipped combination loads and has both tasks
    from hallucheck.stages.ce_cascade import load_combination

    shipped = load_combination("embedded")
    assert set(shipped["tasks"]) == {"qa", "summary"} and shipped["features"] == ["verifier", "overlap", "gate"]


def test_a_combination_file_is_read_once_while_it_is_unchanged(tmp_path):
    """Every pipeline built on one combination file shares one reading; an edited file is read again."""
    import os

    from hallucheck.stages.ce_cascade import load_combination

    combo = json.loads(json.dumps(load_combination("embedded")))
    path = tmp_path / "combine.json"
    path.write_text(json.dumps(combo))
    first = CECascadeVerifier(combine=str(path))._combo
    assert CECascadeVerifier(combine=str(path))._combo is first
    combo["tasks"]["qa"]["threshold"] = 0.9
    path.write_text(json.dumps(combo))
    stamp = path.stat().st_mtime_ns + 10**9  # a later modification time, whatever the file system's resolution
    os.utime(path, ns=(stamp, stamp))
    again = load_combination(str(path))
    assert again is not first and again["tasks"]["qa"]["threshold"] == 0.9
    path.unlink()
    with pytest.raises(ConfigError, match="cannot be read"):
        CECascadeVerifier(combine=str(path))


class _PremiseEncoder:
    """Stands in for a loaded cross-encoder: a claim is supported (0.05) by a premise that holds every
    one of its words, else not (0.9); records the premises it was given."""

    meta = {"k": 2, "max_length": 128}

    def __init__(self):
        self.seen = []

    def score(self, premises, claims):
        self.seen.extend(premises)
        return np.array(
            [0.05 if set(content_words(c)) <= set(content_words(p)) else 0.9 for p, c in zip(premises, claims)]
        )


def test_chunked_premises_keep_far_apart_facts_together_with_offsets_into_the_reference():
    filler = " ".join(f"Filler sentence {i} mentions the weather in town {i}." for i in range(12))
    reference = f"Alice founded the bakery in Lyon. {filler} Bob joined it twelve years later."
    claim = Claim("Alice founded the bakery in Lyon, and Bob joined it twelve years later.", 0, 0)
    for premise in ("sentences", "chunks", "both"):
        v = CrossEncoderVerifier(premise=premise, chunk_words=400)
        v._encoder = _PremiseEncoder()
        (score,), (ev,) = v.scores([claim], reference)
        assert score == pytest.approx(0.05), premise
        for e in ev:
            assert reference[e.start : e.end] == e.text
    # with chunks smaller than the distance between the two facts, no chunk supports the fused claim
    v = CrossEncoderVerifier(premise="chunks", chunk_words=30)
    v._encoder = enc = _PremiseEncoder()
    (score,), (ev,) = v.scores([claim], reference)
    assert score == pytest.approx(0.9) and len(enc.seen) > 3  # every chunk was read
    assert ev[0].meta["chunks"] == len(enc.seen) and reference[ev[0].start : ev[0].end] == ev[0].text
    # "both": the better of the chunks and the top-k sentences, with that premise's evidence
    v = CrossEncoderVerifier(premise="both", chunk_words=30)
    v._encoder = _PremiseEncoder()
    (score,), (ev,) = v.scores([claim], reference)
    assert score == pytest.approx(0.05) and {e.meta.get("index") for e in ev} == {0, 13}


def test_chunk_words_follow_the_encoder_length_and_premise_is_checked():
    v = CrossEncoderVerifier(premise="chunks")
    v._encoder = _PremiseEncoder()
    assert v.premise_words == int((128 - 48) / 1.4)
    with pytest.raises(ConfigError, match="premise"):
        CrossEncoderVerifier(premise="paragraphs")


def test_summaries_are_decided_by_the_judge_as_cascade_decides_them(bow_embedder):
    """Issue 21: on a summary (no question) the shipped combination sends every sentence the gate
    passes to the judge and takes its decision whole, so the default is never below ``cascade`` there
    whatever the verifier says; with --llm none the verifier decides and a warning says it is weak."""
    import math

    from hallucheck.stages.cascade import CascadeVerifier

    sentences = ["Check the pressure when the tyres are cold.", "The rear tyres take air.", "Paris is in France."]
    # judge P(not entailed) 0.95 (flag), 0.30 (pass), 0.85 (flag: above cascade's 0.82), no calibration
    lps = [
        {"Entailment": math.log(1 - p), "Neutral": math.log(p / 2), "Contradiction": math.log(p / 2)}
        for p in (0.95, 0.30, 0.85)
    ]
    claims = [Claim(s, 0, len(s)) for s in sentences]
    ev = [[Evidence(REF, 0, len(REF))] for _ in claims]
    # the verifier says the opposite of the judge on every sentence
    table = dict(zip(sentences, (0.01, 0.99, 0.02)))
    # (verbatim=False: the first sentence is the reference's word for word, which the default supports
    # without asking the judge -- test_a_sentence_copied_from_the_reference_is_supported_without_the_judge)
    ce = CECascadeVerifier(llm=FakeLLM(label_scores=list(lps)), gate="numbers", calibrate=False, verbatim=False)
    ce._ce._encoder = _FixedEncoder(table)
    ours = ce.verify(claims, ev, reference=REF)
    theirs = CascadeVerifier(llm=FakeLLM(label_scores=list(lps)), gate="numbers", calibrate=False).verify(
        claims, ev, reference=REF
    )
    assert [v.meta["stage"] for v in ours] == ["judge"] * 3
    assert [v.hallucinated for v in ours] == [v.hallucinated for v in theirs] == [True, False, True]
    assert all(v.score > 0.5 for v in ours if v.hallucinated) and "judge decides" in ours[0].reason
    # a question with a one-sentence answer is QA: the band around the QA threshold, the verifier counts
    qa = CECascadeVerifier(llm=FakeLLM(label_scores=list(lps)), gate="numbers", calibrate=False)
    qa._ce._encoder = _FixedEncoder({"Capital? Paris": 0.01})
    (v,) = qa.verify([Claim("Paris", 0, 5)], [[Evidence(REF, 0, len(REF))]], reference=REF, question="Capital?")
    assert v.meta["stage"] == "verifier" and v.hallucinated is False
    # without an LLM the verifier decides the summary, and says it is weak there
    alone = CECascadeVerifier(llm=None, gate="numbers")
    alone._ce._encoder = _FixedEncoder(table)
    out = alone.verify(claims, ev, reference=REF)
    assert [v.hallucinated for v in out] == [False, True, False]
    assert [v.meta["stage"] for v in out] == ["copy", "verifier", "verifier"]  # a copy needs no verifier
    assert all("weak" in v.meta["warning"] for v in out[1:]) and "warning" not in out[0].meta


def test_a_pipeline_saved_as_v1_keeps_its_summary_band_and_its_mean(bow_embedder):
    """ce_cascade.v1 averaged the judge's raw score with the combination's inside a band of +/-0.13 on
    summaries; v2 lets the judge decide every summary sentence. A v1 pipeline keeps meaning what it meant."""
    import math

    from hallucheck.stages.ce_cascade import CECascadeVerifierV1

    claim = Claim("The rear tyres take air.", 0, 24)
    ev = [[Evidence(REF, 0, len(REF))]]
    lp = {"Entailment": math.log(0.1), "Neutral": math.log(0.45), "Contradiction": math.log(0.45)}
    v1 = CECascadeVerifierV1(llm=FakeLLM(label_scores=[lp]), gate="numbers", calibrate=False)
    weights, t, band = v1.task_settings(False)
    assert band == pytest.approx([t - 0.13, t + 0.13]) and v1.judge_weight(weights) == 0.5
    v1._ce._encoder = _FixedEncoder({claim.text: 0.01})  # far below the band: the verifier decides
    (out,) = v1.verify([claim], ev, reference=REF)
    assert out.meta["stage"] == "verifier"
    v2 = CECascadeVerifier(llm=FakeLLM(label_scores=[lp]), gate="numbers", calibrate=False)
    v2._ce._encoder = _FixedEncoder({claim.text: 0.01})
    (out,) = v2.verify([claim], ev, reference=REF)
    assert out.meta["stage"] == "judge" and out.hallucinated  # the judge's 0.9 > 0.82 decides
