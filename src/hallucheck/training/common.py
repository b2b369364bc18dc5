"""What training and export share: the optional dependencies and the model's label map."""

from __future__ import annotations

from typing import Any

from ..errors import MissingDependencyError

TRAIN_HINT = "pip install -c requirements/constraints.txt 'hallucheck[train]'"
LABELS = {0: "supported", 1: "hallucinated"}


def _imports() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError:
        raise MissingDependencyError("PyTorch and transformers (for hallucheck train)", TRAIN_HINT) from None
    return torch, transformers
