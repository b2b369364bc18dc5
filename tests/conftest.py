"""Shared test helpers: a deterministic fake embedder and paths to the shared data."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


class BagOfWordsEmbedder:
    """Hashes words into a vector: texts sharing words get high cosine. Deterministic."""

    name = "bow-test"

    def encode(self, texts):
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().replace(".", " ").split():
                out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % 64] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.clip(norms, 1e-9, None)


@pytest.fixture
def bow_embedder(monkeypatch):
    from hallucheck.models import embeddings

    emb = BagOfWordsEmbedder()
    monkeypatch.setattr(embeddings, "get_embedder", lambda name="minilm": emb)
    return emb


@pytest.fixture
def shared_data():
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not available")
    return SHARED_DATA


def _model_dir() -> str:
    from hallucheck.llm.llama_cpp import default_model_dir

    return str(default_model_dir())


_MODEL_DIR = _model_dir()


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    """Never touch the user's real response cache from tests; share the assembled models."""
    monkeypatch.setenv("HALLUCHECK_CACHE_DIR", str(tmp_path / "hallucheck-cache"))
    monkeypatch.setenv("HALLUCHECK_MODEL_DIR", _MODEL_DIR)


# --- a tiny cross-encoder built by the tests (random weights, real config and tokenizer) ---

WORDS = (
    "the a is was not in on of to and bar tyre tyres front rear pressure cold check inflate "
    "paris london berlin france germany capital city river built year lighthouse 1689 1701 2 3 4 . , ?"
).split()


def build_tiny_encoder(
    dest: Path, *, num_labels: int = 2, id2label: dict[int, str] | None = None, seed: int = 0
) -> Path:
    """Save a tiny BertForSequenceClassification (+ fast tokenizer with tokenizer.json) into ``dest``."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    dest.mkdir(parents=True, exist_ok=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]
    (dest / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tok = BertTokenizerFast(vocab_file=str(dest / "vocab.txt"), do_lower_case=True)
    labels = id2label or {i: f"LABEL_{i}" for i in range(num_labels)}
    cfg = BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=128,
        num_labels=num_labels,
        id2label=labels,
        label2id={v: k for k, v in labels.items()},
    )
    torch.manual_seed(seed)
    model = BertForSequenceClassification(cfg)
    model.save_pretrained(dest)
    tok.save_pretrained(dest)
    return dest


@pytest.fixture(scope="session")
def tiny_encoder(tmp_path_factory):
    """A tiny two-label classifier directory (Hugging Face layout), built once per session."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    return build_tiny_encoder(tmp_path_factory.mktemp("tiny-encoder"))


@pytest.fixture
def make_tiny_encoder():
    """``build_tiny_encoder(dest, num_labels=..., id2label=...)`` for tests that need other label layouts."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    return build_tiny_encoder


# --- one local Ray instance for the whole session (start-up takes seconds) ---


@pytest.fixture(scope="session")
def ray_session(tmp_path_factory):
    """``ray.init(num_cpus=2)`` once; tests start their own actors on it. Skips without ray."""
    ray = pytest.importorskip("ray", reason="the Ray engine needs ray (pip install 'hallucheck[ray]'); CI installs it")
    cache = tmp_path_factory.mktemp("ray-cache")  # actors never touch the user's response cache
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"HALLUCHECK_CACHE_DIR": str(cache), "HALLUCHECK_MODEL_DIR": _MODEL_DIR}},
    )
    yield ray
    ray.shutdown()
