"""The shipped verifier (``src/hallucheck/data/verifier``): the training configuration it was made
with, which ``hallucheck train`` takes as its defaults and ``make verifier`` runs, and the files of
a trained model that make up an installed verifier."""

from __future__ import annotations

import shutil
from pathlib import Path

# The configuration of the shipped verifier; `make verifier` runs it.
SHIPPED = {
    "epochs": 1,
    "max_pairs": 12000,
    "document_pairs": 2,
    "batch_size": 16,
    "lr": 5e-5,
    "max_length": 160,
    "k": 3,
    "rules_per_reference": 1,
    "seed": 0,
    "dev_limit": 300,
    "patience": 1,
}
SHIPPED_FILES = ("model.int8.onnx", "tokenizer.json", "config.json", "model_card.md")


def install_model(model_dir: str | Path, dest: str | Path) -> Path:
    """Copy a trained model's files (int8 ONNX, tokenizer, config, model card) from ``model_dir``
    into ``dest`` (e.g. ``src/hallucheck/data/verifier``); returns ``dest``."""
    target = Path(dest)
    target.mkdir(parents=True, exist_ok=True)
    for name in SHIPPED_FILES:
        shutil.copyfile(Path(model_dir) / name, target / name)
    return target


__all__ = ["SHIPPED", "SHIPPED_FILES", "install_model"]
