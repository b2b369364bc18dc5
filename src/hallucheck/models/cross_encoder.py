"""Sequence-classification cross-encoders that score (evidence, claim) pairs.

One loader for three kinds of checkpoint, all giving the same output: the probability that the
claim is **not** supported by the evidence (hallucheck's ``score``):

* **hallucheck's own** (``hallucheck train``): labels ``supported`` / ``hallucinated``.
* **NLI models** (DeBERTa-MNLI style): the label named ``entailment`` is the supported one;
  score = 1 - P(entailment) over all labels.
* **single-logit consistency scorers** (HHEM style): score = 1 - sigmoid(logit).
* **two-label scorers with generic labels** (MiniCheck style, ``LABEL_0`` / ``LABEL_1``): label 1
  is "supported" unless ``supported_label`` says otherwise.

Backends: a directory holding an ``.onnx`` graph and a ``tokenizer.json`` runs on onnxruntime with
the ``tokenizers`` library (no PyTorch); any other directory or a hub id runs on transformers and
PyTorch. ``"embedded"`` is the verifier shipped inside the package (``hallucheck/data/verifier``).
The evidence is the first text of each pair and is what truncation shortens. A claim is kept
whole up to half the encoder's length (``max_length // 2`` tokens); a longer one is read in
overlapping windows of that many tokens (a quarter of a window overlaps the next), each against
the same evidence, and its score is its worst window's: the claim is supported only when every
part of it is, and no sentence is too long to read.
"""

from __future__ import annotations

import json
import os
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .. import _aio
from ..errors import ConfigError, MissingDependencyError, install_hint

EMBEDDED = "embedded"
ONNX_NAMES = ("model.int8.onnx", "model.onnx")
# the encoder's length in tokens when neither the caller nor the checkpoint's config gives one
MAX_LENGTH = 256
TRAIN_HINT = install_hint("train", pinned=True)


def embedded_path() -> Path:
    """The directory of the verifier shipped with the package."""
    return Path(__file__).resolve().parent.parent / "data" / "verifier"


def resolve(model: str) -> tuple[str, Path | None]:
    """``(kind, path)``: ``("onnx", dir)``, ``("torch", dir)`` or ``("hub", None)`` for a hub id."""
    if not isinstance(model, str) or not model.strip():
        raise ConfigError(f"The 'model' of a cross-encoder must be a path, a hub id or 'embedded'; got {model!r}.")
    path = embedded_path() if model == EMBEDDED else Path(model).expanduser()
    if model == EMBEDDED and not path.is_dir():
        raise ConfigError(
            f"The embedded verifier is missing from {path}: reinstall hallucheck (`make install`) or rebuild "
            "it with `make verifier`."
        )
    if path.is_file():
        raise ConfigError(
            f"The cross-encoder model {model!r} is a file: give the directory that holds it with its "
            "tokenizer.json and config.json."
        )
    if path.is_dir():
        if any((path / n).is_file() for n in ONNX_NAMES) or any(path.glob("*.onnx")):
            return "onnx", path
        if (path / "config.json").is_file():
            return "torch", path
        raise ConfigError(
            f"The directory {str(path)!r} holds no cross-encoder: expected an .onnx file with tokenizer.json, "
            "or a Hugging Face checkpoint (config.json and weights)."
        )
    if model.startswith((".", "/", "~")) or model.count("/") > 1 or "\\" in model:
        raise ConfigError(f"The cross-encoder directory {model!r} does not exist.")
    return "hub", None


def model_settings(model: str) -> dict:
    """The settings hallucheck's trained checkpoints keep in ``config.json`` (``k``, ``max_length``),
    read without loading the model; ``{}`` for other models and hub ids."""
    kind, path = resolve(model)
    cfg = path / "config.json" if path is not None else None
    if cfg is None or not cfg.is_file():
        return {}
    try:
        meta = json.loads(cfg.read_text(encoding="utf-8")).get("hallucheck")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}  # the loader reports a corrupt config with the details
    return meta if isinstance(meta, dict) else {}


def supported_index(config: dict, supported_label: str | int | None = None) -> int | None:
    """Index of the label meaning "supported"; ``None`` for a single-logit scorer."""
    num = int(config.get("num_labels") or len(config.get("id2label") or {}) or 2)
    id2label = {int(k): str(v) for k, v in (config.get("id2label") or {}).items()}
    if num == 1:
        return None
    if supported_label is not None:
        if isinstance(supported_label, int) and not isinstance(supported_label, bool):
            if not 0 <= supported_label < num:
                raise ConfigError(f"supported_label={supported_label} is out of range for a model with {num} labels.")
            return supported_label
        for i, name in id2label.items():
            if name.lower() == str(supported_label).lower():
                return i
        raise ConfigError(f"The model has no label {supported_label!r}; its labels are {sorted(id2label.values())}.")
    lowered = {i: n.lower() for i, n in id2label.items()}
    for want in ("supported", "entailment", "entail", "consistent", "factual"):
        for i, name in lowered.items():
            if name == want:
                return i
    for i, name in lowered.items():
        if name.startswith("entail"):
            return i
    if num == 2:
        return 1  # MiniCheck convention: LABEL_1 = supported
    raise ConfigError(
        f"Cannot tell which of the labels {sorted(id2label.values())} means 'supported': pass supported_label=."
    )


def _scores_from_logits(logits: np.ndarray, idx: int | None) -> np.ndarray:
    logits = np.asarray(logits, dtype=np.float64)
    if logits.ndim == 1:
        logits = logits[:, None]
    if idx is None or logits.shape[1] == 1:
        return 1.0 / (1.0 + np.exp(logits[:, 0]))  # 1 - sigmoid
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    return 1.0 - p[:, idx]


def _offsets_of(tokenizer: Any) -> Any:
    """A transformers tokenizer's ``text -> token character spans``: its offsets when it is a fast
    tokenizer, else each word's span once per token of that word."""
    if getattr(tokenizer, "is_fast", False):
        return lambda text: [
            tuple(o)
            for o in tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
            if o[1] > o[0]
        ]

    def by_words(text: str) -> list[tuple[int, int]]:
        import re

        return [
            (m.start(), m.end())
            for m in re.finditer(r"\S+", text)
            for _ in range(max(1, len(tokenizer.tokenize(m.group()))))
        ]

    return by_words


class CrossEncoder:
    """Scores (evidence, claim) pairs: probability that the claim is not supported.

    ``model``: ``"embedded"``, a local directory (ONNX or Hugging Face layout) or a hub id.
    ``onnx_file``: which ``.onnx`` of the directory (default: ``model.int8.onnx``, else ``model.onnx``).
    """

    def __init__(
        self,
        model: str = EMBEDDED,
        *,
        max_length: int = MAX_LENGTH,
        batch_size: int = 32,
        supported_label: str | int | None = None,
        onnx_file: str | None = None,
        threads: int | None = None,
        backend: str = "auto",
        trust_remote_code: bool = False,
    ) -> None:
        if backend not in ("auto", "onnx", "torch"):
            raise ConfigError(f"The 'backend' of a cross-encoder must be auto, onnx or torch; got {backend!r}.")
        if not isinstance(max_length, int) or max_length < 16:
            raise ConfigError(f"The 'max_length' of a cross-encoder must be an integer >= 16; got {max_length!r}.")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"The 'batch_size' of a cross-encoder must be a positive integer; got {batch_size!r}.")
        self.model = model
        self.max_length = max_length
        self.batch_size = batch_size
        self.supported_label = supported_label
        self.onnx_file = onnx_file
        self.threads = threads
        self.backend = backend
        self.trust_remote_code = trust_remote_code
        self.kind, self.path = resolve(model)
        if backend == "torch" and self.kind == "onnx":
            self.kind = "torch"
        if backend == "onnx" and self.kind != "onnx":
            raise ConfigError(f"backend='onnx' needs a directory with an .onnx file; {model!r} has none.")
        self._lock = threading.Lock()
        self._run: Any = None
        self._offsets: Any = None  # text -> the character spans of its tokens (no special tokens)
        self._idx: int | None = None
        self.meta: dict[str, Any] = {}

    # -- loading ------------------------------------------------------------------------------
    def _read_config(self) -> dict:
        assert self.path is not None
        cfg = self.path / "config.json"
        if not cfg.is_file():
            return {}
        try:
            return json.loads(cfg.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(
                f"The cross-encoder's {cfg} is corrupt ({exc}); rebuild or re-download the model."
            ) from None

    def _load_onnx(self) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError:
            raise MissingDependencyError(
                "onnxruntime/tokenizers (for ONNX cross-encoders)", install_hint("models")
            ) from None
        assert self.path is not None
        graph = (
            self.path / self.onnx_file
            if self.onnx_file
            else next((self.path / n for n in ONNX_NAMES if (self.path / n).is_file()), None)
            or sorted(self.path.glob("*.onnx"))[0]
        )
        tok = self.path / "tokenizer.json"
        if not graph.is_file():
            raise ConfigError(f"The ONNX file {str(graph)!r} does not exist.")
        if not tok.is_file():
            raise ConfigError(
                f"{self.path} has an ONNX graph but no tokenizer.json beside it; copy the model's tokenizer.json there."
            )
        config = self._read_config()
        self.meta = config.get("hallucheck", {}) if isinstance(config.get("hallucheck"), dict) else {}
        self._idx = supported_index(config, self.supported_label)
        try:
            tokenizer = Tokenizer.from_file(str(tok))
        except Exception as exc:  # noqa: BLE001 - the tokenizers library raises plain Exceptions
            raise ConfigError(
                f"The tokenizer {tok} cannot be read ({exc}); rebuild or re-download the model."
            ) from None
        counter = Tokenizer.from_file(str(tok))  # no truncation, no padding: the claim's own tokens
        self._offsets = lambda text: [o for o in counter.encode(text, add_special_tokens=False).offsets if o[1] > o[0]]
        tokenizer.enable_truncation(self.max_length, strategy="only_first")
        tokenizer.enable_padding(pad_id=tokenizer.token_to_id("[PAD]") or 0, pad_token="[PAD]")
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        if self.threads:
            opts.intra_op_num_threads = self.threads
        try:
            session = ort.InferenceSession(str(graph), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own exception types
            raise ConfigError(
                f"The ONNX model {graph} cannot be loaded ({str(exc).splitlines()[0][:200]}); it is corrupt or "
                "not an ONNX graph: rebuild it (`make verifier`) or point model= elsewhere."
            ) from None
        names = {i.name for i in session.get_inputs()}

        def run(evidence: Sequence[str], claims: Sequence[str]) -> np.ndarray:
            enc = tokenizer.encode_batch(list(zip(evidence, claims)))
            feeds = {
                "input_ids": np.array([e.ids for e in enc], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
            }
            if "token_type_ids" in names:
                feeds["token_type_ids"] = np.array([e.type_ids for e in enc], dtype=np.int64)
            return session.run(None, {k: v for k, v in feeds.items() if k in names})[0]

        self._run = run

    def _load_torch(self) -> None:
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError:
            raise MissingDependencyError(
                "transformers and PyTorch (for Hugging Face cross-encoders)", TRAIN_HINT
            ) from None
        source = str(self.path) if self.path is not None else self.model
        try:
            tokenizer = AutoTokenizer.from_pretrained(source, trust_remote_code=self.trust_remote_code)
            model = AutoModelForSequenceClassification.from_pretrained(source, trust_remote_code=self.trust_remote_code)
        except OSError as exc:
            where = "the directory" if self.path is not None else "the hub (is it reachable? is the id right?)"
            raise ConfigError(
                f"Cannot load the cross-encoder {self.model!r} from {where}: {str(exc).splitlines()[0][:300]}"
            ) from None
        except Exception as exc:  # noqa: BLE001 - corrupt weights raise many types
            raise ConfigError(
                f"The cross-encoder {self.model!r} cannot be loaded ({type(exc).__name__}: "
                f"{str(exc).splitlines()[0][:200]}); it is corrupt or incomplete."
            ) from None
        model.eval()
        self._offsets = _offsets_of(tokenizer)
        config = model.config.to_dict()
        self.meta = config.get("hallucheck", {}) if isinstance(config.get("hallucheck"), dict) else {}
        self._idx = supported_index(config, self.supported_label)
        if self.threads:
            torch.set_num_threads(self.threads)

        def run(evidence: Sequence[str], claims: Sequence[str]) -> np.ndarray:
            enc = tokenizer(
                list(evidence),
                list(claims),
                truncation="only_first",
                max_length=self.max_length,
                padding=True,
                return_tensors="pt",
            )
            with torch.inference_mode():
                return model(**enc).logits.float().numpy()

        self._run = run

    def load(self) -> "CrossEncoder":
        with self._lock:
            if self._run is None:
                (self._load_onnx if self.kind == "onnx" else self._load_torch)()
        return self

    # -- scoring ------------------------------------------------------------------------------
    def logits(self, evidence: Sequence[str], claims: Sequence[str]) -> np.ndarray:
        # in async code (Pipeline.arun) the forward pass runs in the event loop's executor
        return _aio.blocking(self._logits, evidence, claims)

    def _logits(self, evidence: Sequence[str], claims: Sequence[str]) -> np.ndarray:
        self.load()
        if len(evidence) != len(claims):
            raise ConfigError("logits(): evidence and claims must have the same length.")
        if not claims:
            return np.zeros((0, 2), dtype=np.float32)
        # a claim too long to read beside its evidence is read window by window (module docstring)
        windows = [self.windows(c) for c in claims]
        owner = [i for i, ws in enumerate(windows) for _ in ws]
        if len(owner) == len(claims):
            return self._forward(evidence, claims)
        pieces = [w for ws in windows for w in ws]
        out = self._forward([evidence[i] for i in owner], pieces)
        scores = _scores_from_logits(out, self._idx)
        worst: dict[int, int] = {}
        for row, i in enumerate(owner):
            if i not in worst or scores[row] > scores[worst[i]]:
                worst[i] = row
        return out[[worst[i] for i in range(len(claims))]]

    def windows(self, claim: str) -> list[str]:
        """``[claim]`` when it fits in half the encoder's length; else its overlapping windows of that
        many tokens, in order, cut at token boundaries."""
        self.load()
        size = self.max_length // 2
        if len(claim) <= size or self._offsets is None:  # a token covers at least one character
            return [claim]
        spans = self._offsets(claim)
        if len(spans) <= size:
            return [claim]
        step = size - size // 4
        out = []
        for start in range(0, len(spans), step):
            end = min(start + size, len(spans))
            out.append(claim[spans[start][0] : spans[end - 1][1]])
            if end == len(spans):
                break
        return out

    def _forward(self, evidence: Sequence[str], claims: Sequence[str]) -> np.ndarray:
        # sort by length so a batch pads little; restore the order at the end
        order = sorted(range(len(claims)), key=lambda i: len(evidence[i]) + len(claims[i]))
        parts = []
        for b in range(0, len(order), self.batch_size):
            idx = order[b : b + self.batch_size]
            parts.append(np.asarray(self._run([evidence[i] for i in idx], [claims[i] for i in idx])))
        out = np.concatenate(parts, axis=0)
        result = np.empty_like(out)
        result[np.array(order)] = out
        return result

    def score(self, evidence: Sequence[str], claims: Sequence[str]) -> np.ndarray:
        """Probability that each claim is not supported by its evidence, in [0, 1]."""
        logits = self.logits(evidence, claims)
        return np.clip(_scores_from_logits(logits, self._idx), 0.0, 1.0)


def identity(model: str) -> str:
    """The model's resolved identity: a local directory by its real path (``dir``, ``dir/``,
    ``dir//`` and a symlink to it are one model), anything else as given."""
    if isinstance(model, str) and model != EMBEDDED:
        path = Path(model).expanduser()
        if path.is_dir():
            return os.path.realpath(path)
    return model


def get_cross_encoder(
    model: str = EMBEDDED,
    max_length: int = MAX_LENGTH,
    batch_size: int = 32,
    supported_label: str | int | None = None,
    onnx_file: str | None = None,
    backend: str = "auto",
) -> CrossEncoder:
    """A shared, lazily loaded cross-encoder (one per configuration and process; a directory is
    known by its real path, so each spelling of it shares one copy)."""
    return _shared_cross_encoder(identity(model), max_length, batch_size, supported_label, onnx_file, backend)


@lru_cache(maxsize=4)
def _shared_cross_encoder(
    model: str,
    max_length: int,
    batch_size: int,
    supported_label: str | int | None,
    onnx_file: str | None,
    backend: str,
) -> CrossEncoder:
    return CrossEncoder(
        model,
        max_length=max_length,
        batch_size=batch_size,
        supported_label=supported_label,
        onnx_file=onnx_file,
        backend=backend,
    )
