"""hallucheck train on a tiny model and tiny data made here: pairs follow the per-sentence rule,
the loop lowers the loss, runs are reproducible, a killed run resumes to the same model, the
export writes ONNX (fp32 and int8) with a model card, and bad input is a clear error."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random

import pytest

from hallucheck.cli import main
from hallucheck.errors import ConfigError, InputError
from hallucheck.training.pairs import answer_pairs, build_pairs, perturb, rule_pairs, select_evidence

pytest.importorskip("torch")
pytest.importorskip("transformers")

ROWS = [
    {
        "id": "q1-r",
        "question": "What is the capital of France?",
        "reference": "Paris is the capital of France.",
        "answer": "Paris",
        "label": 0,
    },
    {
        "id": "q1-h",
        "question": "What is the capital of France?",
        "reference": "Paris is the capital of France.",
        "answer": "Berlin is the capital of France.",
        "label": 1,
    },
    {
        "id": "s1-r",
        "question": None,
        "reference": "The front tyres take 2 bar. The rear tyres take 3 bar. Check the pressure "
        "when the tyres are cold. The lighthouse was built in 1689.",
        "answer": "The front tyres take 2 bar. Check the pressure when the tyres are cold.",
        "label": 0,
    },
    {
        "id": "s1-h",
        "question": None,
        "reference": "The front tyres take 2 bar. The rear tyres take 3 bar. Check the pressure "
        "when the tyres are cold. The lighthouse was built in 1689.",
        "answer": "The front tyres take 2 bar. The lighthouse was built in 1701.",
        "label": 1,
    },
]


def write_rows(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_answer_pairs_follow_the_per_sentence_rule():
    pairs = answer_pairs(ROWS, k=2)
    qa = [p for p in pairs if p.source == "qa"]
    assert [(p.claim, p.label) for p in qa] == [
        ("What is the capital of France? Paris", 0),
        ("What is the capital of France? Berlin is the capital of France.", 1),
    ]
    summ = {(p.claim, p.label, p.weight) for p in pairs if p.source.startswith("summary")}
    # a right summary's sentences are supported; of the hallucinated one, the sentence it shares with the
    # right summary is supported and only the changed one is hallucinated (at a lower weight)
    assert ("The front tyres take 2 bar.", 0, 1.0) in summ
    assert ("The lighthouse was built in 1701.", 1, 0.7) in summ
    assert sum(1 for c, lab, _ in summ if lab == 1) == 1
    # evidence: the top-k sentences, best first
    ev = select_evidence("The lighthouse was built in 1701.", ROWS[2]["reference"], k=2)
    assert ev.startswith("The lighthouse was built in 1689.")


def test_rule_pairs_change_one_fact_and_are_seeded():
    rng = random.Random(0)
    doc = "Anna Berg joined Acme in 2019. She paid 40 dollars. It was not raining in Oslo."
    seen = set()
    for _ in range(30):
        out = perturb("Anna Berg was hired by Acme in 2019.", doc, rng)
        assert out is not None and out[0] != "Anna Berg was hired by Acme in 2019."
        seen.add(out[1])
    assert {"number", "name", "negation"} <= seen
    a = rule_pairs(ROWS, per_reference=2, seed=3)
    assert a == rule_pairs(ROWS, per_reference=2, seed=3)
    assert {p.label for p in a} == {0, 1} and all(p.source.startswith("rule-") for p in a)
    kept = [p for p in a if p.label == 0]
    bad = [p for p in a if p.label == 1]
    assert len(kept) == len(bad) and all(k.claim != b.claim for k, b in zip(kept, bad))


def test_build_pairs_is_deterministic(tmp_path):
    f = write_rows(tmp_path / "t.jsonl", ROWS)
    assert build_pairs([f], seed=1) == build_pairs([f], seed=1)
    assert len(build_pairs([f], seed=1, max_pairs=3)) == 3


def _config(tmp_path, tiny_encoder, out="run", **kw):
    from hallucheck.training.train import TrainConfig

    train_file = write_rows(tmp_path / "train.jsonl", ROWS * 4)
    dev_file = write_rows(tmp_path / "dev.jsonl", ROWS)
    base = dict(
        train_files=[str(train_file)],
        out=str(tmp_path / out),
        base=str(tiny_encoder),
        dev_files=[str(dev_file)],
        epochs=2,
        batch_size=4,
        lr=5e-3,
        max_length=64,
        k=2,
        seed=0,
        save_every=1,
        warmup=0.0,
    )
    base.update(kw)
    return TrainConfig(**base)


def _loss_on(model_dir, pairs):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(model_dir))
    model = AutoModelForSequenceClassification.from_pretrained(str(model_dir)).eval()
    enc = tok(
        [p.evidence for p in pairs],
        [p.claim for p in pairs],
        padding=True,
        truncation="only_first",
        max_length=64,
        return_tensors="pt",
    )
    with torch.no_grad():
        return float(torch.nn.functional.cross_entropy(model(**enc).logits, torch.tensor([p.label for p in pairs])))


def test_training_lowers_the_loss_and_exports(tmp_path, tiny_encoder):
    from hallucheck.models.cross_encoder import CrossEncoder
    from hallucheck.training.train import train

    cfg = _config(tmp_path, tiny_encoder, epochs=3)
    result = train(cfg, progress=False, log=lambda m: None)
    pairs = build_pairs(cfg.train_files, k=cfg.k, rules_per_reference=cfg.rules_per_reference, seed=0)
    assert _loss_on(tmp_path / "run" / "state", pairs) < _loss_on(tiny_encoder, pairs)
    model = tmp_path / "run" / "model"
    for name in ("model.onnx", "model.int8.onnx", "tokenizer.json", "config.json", "model_card.md"):
        assert (model / name).is_file(), name
    config = json.loads((model / "config.json").read_text())
    assert config["id2label"] == {"0": "supported", "1": "hallucinated"} and config["hallucheck"]["k"] == 2
    card = (model / "model_card.md").read_text()
    import hashlib

    sha = hashlib.sha256((tmp_path / "train.jsonl").read_bytes()).hexdigest()
    assert sha in card and '"lr": 0.005' in card and "AUROC" in card
    # per-epoch validation recorded; the kept epoch is the best by dev AUROC
    hist = result["history"]
    assert [h["epoch"] for h in hist] == [1, 2, 3][: len(hist)] and all("dev.jsonl" in h["dev"] for h in hist)
    assert result["best_epoch"] == max(hist, key=lambda h: (h["mean_auroc"], -h["epoch"]))["epoch"]
    # the exported graph scores like the kept PyTorch checkpoint
    ev, cl = ["paris is the capital of france ."], ["berlin is the capital of france"]
    assert CrossEncoder(str(model), onnx_file="model.onnx").score(ev, cl) == pytest.approx(
        CrossEncoder(str(tmp_path / "run" / "best")).score(ev, cl), abs=1e-4
    )


def test_runs_are_reproducible_and_a_killed_run_resumes(tmp_path, tiny_encoder, monkeypatch):
    from hallucheck.models.cross_encoder import CrossEncoder
    from hallucheck.training import train as train_mod

    ev, cl = ["the front tyres take 2 bar .", "paris is the capital of france ."], ["front 3 bar", "paris capital"]
    train_mod.train(_config(tmp_path, tiny_encoder, out="a"), progress=False, log=lambda m: None)
    train_mod.train(_config(tmp_path, tiny_encoder, out="b"), progress=False, log=lambda m: None)
    a = CrossEncoder(str(tmp_path / "a" / "best")).score(ev, cl)
    assert CrossEncoder(str(tmp_path / "b" / "best")).score(ev, cl) == pytest.approx(a, abs=1e-6)

    real_save = train_mod.save_state
    calls = {"n": 0}

    def killed_after_three(*args, **kw):
        real_save(*args, **kw)
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(train_mod, "save_state", killed_after_three)
    with pytest.raises(KeyboardInterrupt):
        train_mod.train(_config(tmp_path, tiny_encoder, out="c"), progress=False, log=lambda m: None)
    monkeypatch.setattr(train_mod, "save_state", real_save)
    said = []
    train_mod.train(_config(tmp_path, tiny_encoder, out="c"), progress=False, log=said.append)
    assert any("resuming" in m for m in said)
    assert CrossEncoder(str(tmp_path / "c" / "best")).score(ev, cl) == pytest.approx(a, abs=1e-5)
    # another configuration in the same directory is refused
    with pytest.raises(InputError, match="another configuration"):
        train_mod.train(_config(tmp_path, tiny_encoder, out="c", lr=1e-3), progress=False, log=lambda m: None)


def test_bad_input_is_a_clear_error(tmp_path, tiny_encoder, capsys):
    from hallucheck.training.train import train

    with pytest.raises(InputError, match="does not exist"):
        train(_config(tmp_path, tiny_encoder, train_files=[str(tmp_path / "missing.jsonl")]), progress=False)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"reference": "x", "answer": "y", "label": 1}\n\xff\xfe\n')
    with pytest.raises(InputError, match="bad.jsonl:2"):
        train(_config(tmp_path, tiny_encoder, train_files=[str(bad)], out="bad"), progress=False)
    with pytest.raises(ConfigError, match="learning rate"):
        train(_config(tmp_path, tiny_encoder, lr=5.0, out="lr"), progress=False)
    with pytest.raises(ConfigError, match="base encoder"):
        train(_config(tmp_path, tiny_encoder, base=str(tmp_path), out="base"), progress=False)
    code = main(["train", "--data", str(bad), "--out", str(tmp_path / "cli"), "--base", str(tiny_encoder)])
    assert code == 2 and "bad.jsonl:2" in capsys.readouterr().err


def test_cli_train_installs_the_model(tmp_path, tiny_encoder, capsys):
    train_file = write_rows(tmp_path / "train.jsonl", ROWS * 2)
    dest = tmp_path / "installed"
    code = main(
        [
            "train",
            "--data",
            str(train_file),
            "--dev",
            str(train_file),
            "--out",
            str(tmp_path / "run"),
            "--base",
            str(tiny_encoder),
            "--epochs",
            "1",
            "--batch-size",
            "4",
            "--max-length",
            "64",
            "--quiet",
            "--install-to",
            str(dest),
        ]
    )
    assert code == 0
    assert sorted(p.name for p in dest.iterdir()) == [
        "config.json",
        "model.int8.onnx",
        "model_card.md",
        "tokenizer.json",
    ]
    summary = json.loads(capsys.readouterr().out)
    assert summary["best_epoch"] == 1 and "train.jsonl" in summary["dev"]
    # the installed directory is a working verifier
    import hallucheck

    det = hallucheck.detect(
        "Berlin is the capital of France.", "Paris is the capital of France.", method="cross_encoder", model=str(dest)
    )
    assert det.status == "ok" and 0.0 <= det.score <= 1.0
    # the verifier uses the length it was trained with (from its config, not a second load)
    assert hallucheck.load_method("cross_encoder", model=str(dest)).verifier.encoder.max_length == 64


def test_compressed_positives_and_their_hallucinated_twins_differ_only_in_a_fact():
    from hallucheck.training.pairs import compress

    rng = random.Random(0)
    s = "On Monday, the city council approved the new budget of 40 million dollars, officials said."
    out = {compress(s, rng) for _ in range(20)}
    assert out <= {
        "On Monday, the city council approved the new budget of 40 million dollars.",
        "The city council approved the new budget of 40 million dollars, officials said.",
    }
    assert compress("A short one.", rng) is None
    rows = [
        {
            "id": "d-r",
            "reference": s + " The mayor, who took office in 2019, welcomed the vote on Tuesday.",
            "answer": "x",
            "label": 0,
        }
    ]
    pairs = rule_pairs(rows, per_reference=2, compress_share=1.0, seed=1)
    kept = [p for p in pairs if p.label == 0]
    assert kept and all(p.source == "rule-compressed" for p in kept)
    for good, bad in zip(pairs[::2], pairs[1::2]):
        assert good.label == 0 and bad.label == 1 and good.evidence == bad.evidence
        assert len(set(good.claim.split()) ^ set(bad.claim.split())) <= 3  # one fact changed


def test_the_model_card_names_every_file_the_model_learned_from_with_its_hash(tmp_path):
    """Dev rows trained on whole (``--whole``) are training data: the card lists them with their hash,
    by name, not as machine paths among the hyper-parameters."""
    import hashlib

    from hallucheck.training.export import model_card

    whole = write_rows(tmp_path / "wice.jsonl", ROWS)
    cfg = _config(tmp_path, "minilm", whole_files=[str(whole)])
    info = {"history": [{"epoch": 1, "steps": 3, "loss": 0.5, "dev": None}], "best": {"epoch": 1}}
    card = model_card(cfg, info, {"qa": 4, "whole-claim": 2})
    training = card.split("## Training data")[1].split("## Dev files")[0]
    for f in (tmp_path / "train.jsonl", whole):
        assert f"| {f.name}" in training and hashlib.sha256(f.read_bytes()).hexdigest() in training
    assert "(every row, `--whole`)" in training
    assert str(tmp_path) not in card and "whole_files" not in card


def test_ready_made_pairs_join_the_run_drawn_per_file_and_named_in_the_card(tmp_path):
    """``--pairs`` files (e.g. rule-made contrast pairs) add their pairs to the run, at most
    ``pairs_per_file`` of each, the same draw for the same seed; a bad line is a clear error naming it;
    a run without them keeps the fingerprint it had before the option existed."""
    from hallucheck.training.common import TrainConfig
    from hallucheck.training.export import model_card
    from hallucheck.training.run_pairs import extra_pairs

    ready = tmp_path / "contrast.jsonl"
    lines = [
        {
            "evidence": f"The pump runs at night {i}.",
            "claim": f"The pump does not run at night {i}.",
            "label": 1,
            "weight": 1.0,
            "source": "contrast-negation",
        }
        for i in range(10)
    ]
    ready.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    cfg = _config(tmp_path, "minilm", pair_files=[str(ready)], pairs_per_file=4)
    got = extra_pairs(cfg)
    assert len(got) == 4 and all(p.source == "contrast-negation" and p.label == 1 for p in got)
    assert {p.claim for p in got} <= {x["claim"] for x in lines}
    assert [p.claim for p in extra_pairs(cfg)] == [p.claim for p in got]
    assert len(extra_pairs(_config(tmp_path, "minilm", pair_files=[str(ready)]))) == 10

    card = model_card(cfg, {"history": [], "best": {"epoch": 1}}, {"contrast-negation": 4})
    assert "| contrast.jsonl (ready-made pairs, `--pairs`)" in card and str(tmp_path) not in card

    plain = _config(tmp_path, "minilm")
    before = {k: v for k, v in dataclasses.asdict(plain).items() if k not in ("out", "save_every", "max_steps")}
    before.pop("pair_files"), before.pop("pairs_per_file"), before.pop("qa_forms")
    assert plain.fingerprint() == hashlib.sha256(json.dumps(before, sort_keys=True).encode()).hexdigest()[:16]
    assert cfg.fingerprint() != plain.fingerprint()

    ready.write_text('{"evidence": "x", "claim": "y"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="line 1: not a training pair .*missing label"):
        extra_pairs(cfg)
    with pytest.raises(ConfigError, match="pairs_per_file"):
        TrainConfig(**{**dataclasses.asdict(cfg), "pairs_per_file": 0}).check()


def test_a_claim_longer_than_the_encoder_length_is_read_in_its_first_window(tmp_path, tiny_encoder):
    """A ready-made pair whose claim alone is longer than max_length tokens trains (it crashed the
    tokenizer: nothing was left to truncate); the claim is cut to its first max_length // 2 tokens, as
    the verifier reads a long claim at inference."""
    from hallucheck.training.train import train

    long_claim = " ".join(f"the pump number {i} runs at night and stops at dawn" for i in range(30))
    ready = tmp_path / "long.jsonl"
    pair = {"evidence": "The pump runs at night.", "claim": long_claim, "label": 1, "weight": 1.0, "source": "long"}
    ready.write_text(json.dumps(pair) + "\n", encoding="utf-8")
    cfg = _config(tmp_path, tiny_encoder, pair_files=[str(ready)], epochs=1, max_steps=3)
    result = train(cfg, progress=False, log=lambda m: None)
    assert result["pairs"] > 1

    from transformers import AutoTokenizer

    from hallucheck.training.train import _Run

    run = _Run.__new__(_Run)  # only the tokenizer and the configuration are read
    run.cfg, run.tokenizer = cfg, AutoTokenizer.from_pretrained(str(tiny_encoder))
    cut = run.claim_window(long_claim)
    assert long_claim.startswith(cut) and len(run.tokenizer(cut, add_special_tokens=False)["input_ids"]) == 32
    assert run.claim_window("A short claim.") == "A short claim."
