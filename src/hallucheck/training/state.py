"""The resumable state of a training run (``OUT/state/``): the model, tokenizer, optimiser,
scheduler and random states, and ``progress.json`` (epoch, step, history); written atomically
(:func:`save_state`) and read back safely (:func:`load_state`: tensors and plain data only;
:func:`read_progress`)."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

from ..errors import InputError


def save_state(
    state_dir: Path, model: Any, tokenizer: Any, optimizer: Any, scheduler: Any, info: dict, torch: Any
) -> None:
    tmp = state_dir.with_name(state_dir.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    torch.save(
        {
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "torch_rng": torch.get_rng_state(),
            "py_rng": random.getstate(),
        },
        tmp / "optim.pt",
    )
    (tmp / "progress.json").write_text(json.dumps(info, indent=2))
    old = state_dir.with_name(state_dir.name + ".old")
    if state_dir.exists():
        if old.exists():
            shutil.rmtree(old)
        state_dir.rename(old)
    tmp.rename(state_dir)
    if old.exists():
        shutil.rmtree(old)


def load_state(path: Path, torch: Any) -> dict[str, Any]:
    """The optimiser, scheduler and random states saved by :func:`save_state`, read with
    ``weights_only=True``: tensors, numbers, strings and containers only, never code. A training
    directory may come from someone else (shared, downloaded), and a pickle runs whatever it names."""
    try:
        st = torch.load(path, weights_only=True, map_location="cpu")
    except Exception as exc:  # UnpicklingError for a pickle that names code; others for a damaged file
        first = (str(exc).strip().splitlines() or [""])[0][:300]
        raise InputError(
            f"{path} is not a training state hallucheck wrote (it was refused or could not be read: "
            f"{type(exc).__name__}: {first}). Nothing in it was run. Delete {path.parent} to start over "
            "from the base model, or use another --out."
        ) from None
    if not isinstance(st, dict) or not {"optimizer", "scheduler", "torch_rng", "py_rng"} <= set(st):
        raise InputError(f"{path} does not hold the optimiser state of a training run; delete {path.parent}.")
    py_rng = st["py_rng"]
    if isinstance(py_rng, list):  # a tuple may come back as a list
        st["py_rng"] = (py_rng[0], tuple(py_rng[1]), py_rng[2])
    return st


def read_progress(path: Path) -> dict[str, Any]:
    """``state/progress.json``; a damaged file is a usage error that says what to do."""
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(
            f"{path} is corrupt ({exc}); delete {path.parent} to start over from the base model, or use another --out."
        ) from None
    needed = {"epoch", "step_in_epoch", "global_step", "history", "best", "bad_epochs", "done"}
    if not isinstance(info, dict) or not needed <= set(info):
        raise InputError(f"{path} is not the progress of a training run; delete {path.parent} to start over.")
    return info


__all__ = ["load_state", "read_progress"]
