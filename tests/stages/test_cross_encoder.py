"""The cross-encoder verifier: loading (ONNX, Hugging Face layouts, label conventions), scoring,
premise selection and clear errors for missing or corrupt checkpoints. The default method built on it:
tests/stages/ce_cascade/."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

import hallucheck
from hallucheck.cli import main
from hallucheck.errors import ConfigError
from hallucheck.models.cross_encoder import CrossEncoder, _scores_from_logits, supported_index
from hallucheck.stages.cross_encoder import CrossEncoderVerifier
from hallucheck.training.pairs import content_words
from hallucheck.types import Claim

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


def test_config_round_trips(tiny_encoder):
    from hallucheck.pipeline import Pipeline

    m = hallucheck.load_method("cross_encoder", model=str(tiny_encoder), threshold=0.4, k=2)
    again = Pipeline.from_dict(json.loads(json.dumps(m.to_dict())))
    assert again.to_dict() == m.to_dict() and again.verifier.threshold == 0.4


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
