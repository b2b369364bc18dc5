"""Training: resuming never runs code from ``state/optim.pt``; a corrupt
``progress.json`` and ``--max-length 1`` are usage errors, not a crash or a model nothing loads."""

from __future__ import annotations

import json
import os
import pickle

import pytest

from hallucheck.errors import ConfigError, InputError

pytest.importorskip("torch")
pytest.importorskip("transformers")

ROWS = [
    {
        "id": "a",
        "reference": "Paris is the capital of France.",
        "answer": "Paris is the capital of France.",
        "label": 0,
    },
    {
        "id": "b",
        "reference": "Paris is the capital of France.",
        "answer": "Berlin is the capital of France.",
        "label": 1,
    },
    {
        "id": "c",
        "reference": "The front tyres take 2 bar. The rear tyres take 3 bar.",
        "answer": "The front tyres take 2 bar.",
        "label": 0,
    },
    {
        "id": "d",
        "reference": "The front tyres take 2 bar. The rear tyres take 3 bar.",
        "answer": "The rear tyres take 5 bar.",
        "label": 1,
    },
]


class Payload:
    """Unpickling this calls os.system, which would create the marker file."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _config(tmp_path, tiny_encoder, **kw):
    from hallucheck.training.common import TrainConfig

    data = tmp_path / "train.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS * 2), encoding="utf-8")
    base = dict(
        train_files=[str(data)],
        out=str(tmp_path / "run"),
        base=str(tiny_encoder),
        epochs=1,
        batch_size=4,
        max_length=32,
        k=2,
        save_every=1,
        max_steps=1,
    )
    base.update(kw)
    return TrainConfig(**base)


def _interrupted_run(tmp_path, tiny_encoder, monkeypatch):
    """A run killed after its first saved state: ``run/state`` holds progress.json and optim.pt."""
    from hallucheck.training import train as train_mod

    real = train_mod.save_state

    def killed(*a, **k):
        real(*a, **k)
        raise KeyboardInterrupt

    monkeypatch.setattr(train_mod, "save_state", killed)
    with pytest.raises(KeyboardInterrupt):
        train_mod.train(_config(tmp_path, tiny_encoder, max_steps=None), progress=False, log=lambda m: None)
    monkeypatch.setattr(train_mod, "save_state", real)
    state = tmp_path / "run" / "state"
    assert (state / "optim.pt").is_file() and (state / "progress.json").is_file()
    return train_mod, state


def test_a_crafted_pickle_in_the_training_state_does_not_run(tmp_path, tiny_encoder, monkeypatch):
    train_mod, state = _interrupted_run(tmp_path, tiny_encoder, monkeypatch)
    marker = tmp_path / "pwned"
    import torch

    # the file format torch.save writes, as a real training state is; plain torch.load would run os.system
    torch.save(
        {"optimizer": Payload(str(marker)), "scheduler": {}, "torch_rng": None, "py_rng": None}, state / "optim.pt"
    )
    with open(tmp_path / "plain.pkl", "wb") as f:  # and a bare pickle
        pickle.dump(Payload(str(marker)), f)
    with pytest.raises(InputError, match="optim.pt") as err:
        train_mod.train(_config(tmp_path, tiny_encoder, max_steps=None), progress=False, log=lambda m: None)
    assert not marker.exists(), "resuming ran code from the pickle"
    assert "Nothing in it was run" in str(err.value)
    with pytest.raises(InputError):
        train_mod.load_state(tmp_path / "plain.pkl", torch)
    assert not marker.exists()


def test_the_state_hallucheck_writes_loads_without_pickled_code(tmp_path, tiny_encoder, monkeypatch):
    train_mod, state = _interrupted_run(tmp_path, tiny_encoder, monkeypatch)
    import torch

    st = train_mod.load_state(state / "optim.pt", torch)
    assert set(st) >= {"optimizer", "scheduler", "torch_rng", "py_rng"}
    said: list[str] = []
    train_mod.train(_config(tmp_path, tiny_encoder, max_steps=None), progress=False, log=said.append)
    assert any("resuming" in m for m in said)


def test_a_corrupt_progress_file_is_a_usage_error(tmp_path, tiny_encoder, monkeypatch):
    train_mod, state = _interrupted_run(tmp_path, tiny_encoder, monkeypatch)
    (state / "progress.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="progress.json is corrupt"):
        train_mod.train(_config(tmp_path, tiny_encoder, max_steps=None), progress=False, log=lambda m: None)
    # the CLI maps an InputError to exit 2 (a usage error), never 3 "unexpected JSONDecodeError"


@pytest.mark.parametrize("length", [1, 8, 15])
def test_a_max_length_no_verifier_can_load_is_refused(tmp_path, tiny_encoder, length):
    from hallucheck.training.train import train

    with pytest.raises(ConfigError, match="max_length must be at least 16"):
        train(_config(tmp_path, tiny_encoder, max_length=length), progress=False, log=lambda m: None)
