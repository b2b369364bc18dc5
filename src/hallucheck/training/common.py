"""What training and export share: the run's settings, the optional dependencies and the model's
label map."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError, MissingDependencyError
from ..models.cross_encoder import TRAIN_HINT

LABELS = {0: "supported", 1: "hallucinated"}


def training_imports() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError:
        raise MissingDependencyError("PyTorch and transformers (for hallucheck train)", TRAIN_HINT) from None
    return torch, transformers


MIN_MAX_LENGTH = 16  # the fewest tokens hallucheck.models.cross_encoder.CrossEncoder accepts


@dataclass
class TrainConfig:
    """Everything that decides the trained model (recorded in the model card)."""

    train_files: list[str]
    out: str
    base: str = "minilm"
    dev_files: list[str] = field(default_factory=list)
    dev_limit: int | None = None
    epochs: int = 2
    batch_size: int = 16
    lr: float = 5e-5
    weight_decay: float = 0.01
    warmup: float = 0.06
    max_length: int = 256
    k: int = 3
    rules_per_reference: int = 2
    answer_pairs: bool = True
    compress_share: float = 0.0
    max_pairs: int | None = None
    # labelled rows whose every pair is kept (not cut by max_pairs), grouped by reference
    # (training.synth.labelled_pairs), and fusion / appended / foreign pairs per distinct reference
    whole_files: list[str] = field(default_factory=list)
    document_per_reference: int = 0
    # ready-made pairs (evidence, claim, label, weight, source per line, e.g. rule-made contrast pairs
    # from ``benchmarks/contrast_pairs.py``); up to ``pairs_per_file`` of each file, drawn with ``seed``
    pair_files: list[str] = field(default_factory=list)
    pairs_per_file: int | None = None
    # QA answers in both forms with both labels (training.qa_forms): right answers as sentences, wrong
    # ones as phrases and sentences, from the training files (a quarter of max_pairs) and the --whole files
    qa_forms: bool = False
    seed: int = 0
    patience: int = 1
    save_every: int = 200
    max_steps: int | None = None  # stop after this many optimiser steps in all (tests, smoke runs)

    def check(self) -> None:
        if not self.train_files:
            raise ConfigError("hallucheck train needs at least one training file (--data FILE.jsonl).")
        for name in ("epochs", "batch_size", "max_length", "k", "save_every"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ConfigError(f"The training parameter {name!r} must be a positive integer; got {v!r}.")
        if self.max_length < MIN_MAX_LENGTH:
            # the cross-encoder that loads the trained model refuses fewer tokens: a model nothing could load
            raise ConfigError(
                f"max_length must be at least {MIN_MAX_LENGTH} tokens (room for an evidence sentence and a claim); "
                f"got {self.max_length}."
            )
        if not (isinstance(self.lr, (int, float)) and 0 < self.lr < 1):
            raise ConfigError(f"The learning rate must be in (0, 1); got {self.lr!r}.")
        if not 0 <= self.warmup < 1:
            raise ConfigError(f"warmup is a share of the steps in [0, 1); got {self.warmup!r}.")
        if self.pairs_per_file is not None and self.pairs_per_file < 1:
            raise ConfigError(f"pairs_per_file must be a positive integer; got {self.pairs_per_file!r}.")
        if self.patience < 0:
            raise ConfigError(f"patience must be >= 0; got {self.patience!r}.")

    def fingerprint(self) -> str:
        keep = {k: v for k, v in dataclasses.asdict(self).items() if k not in ("out", "save_every", "max_steps")}
        if not self.pair_files:  # a run without ready-made pairs keeps the fingerprint it had before they existed
            keep.pop("pair_files")
            keep.pop("pairs_per_file")
        if not self.qa_forms:  # likewise a run without the QA form pairs
            keep.pop("qa_forms")
        return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()[:16]
