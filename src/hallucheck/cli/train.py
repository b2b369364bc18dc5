"""``hallucheck train``: fine-tune a cross-encoder verifier. The run is
:func:`hallucheck.training.train.train`; its defaults are the shipped verifier's configuration
(:data:`hallucheck.training.shipped.SHIPPED`); this module parses the options and prints the result."""

from __future__ import annotations

import argparse
import json
import sys

from ..training.shipped import SHIPPED
from ._common import ERROR_EXITS

HELP = "fine-tune a cross-encoder verifier on CPU (resumable; exports int8 ONNX)"
# examples and exit codes, printed at the end of --help as written
EPILOG = f"""\
examples:
  hallucheck train --data train.jsonl --dev dev.jsonl --out runs/my-verifier
  hallucheck detect --method cross_encoder --param model=runs/my-verifier/model --reference r.txt --answer a.txt

exit codes:
  0  the model was trained and exported
{ERROR_EXITS}"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data",
        action="append",
        required=True,
        metavar="FILE.jsonl",
        help="labelled training rows in the shared schema (repeatable)",
    )
    p.add_argument(
        "--dev",
        action="append",
        default=[],
        metavar="FILE.jsonl",
        help="labelled dev rows for validation each epoch and model selection (repeatable)",
    )
    p.add_argument("--out", required=True, help="run directory (checkpoints, state, exported model); rerun to resume")
    p.add_argument(
        "--base",
        default="minilm",
        help="encoder to start from: minilm (embedded all-MiniLM-L6-v2) or a local Hugging Face directory",
    )
    p.add_argument(
        "--epochs", type=int, default=SHIPPED["epochs"], help="passes over the training pairs (default: %(default)s)"
    )
    p.add_argument(
        "--batch-size", type=int, default=SHIPPED["batch_size"], help="pairs per optimiser step (default: %(default)s)"
    )
    p.add_argument("--lr", type=float, default=SHIPPED["lr"], help="peak learning rate (default: %(default)s)")
    p.add_argument("--max-length", type=int, default=SHIPPED["max_length"], help="tokens per (evidence, claim) pair")
    p.add_argument("--k", type=int, default=SHIPPED["k"], help="evidence sentences per claim")
    _add_pair_options(p)
    _add_run_options(p)


def _add_pair_options(p: argparse.ArgumentParser) -> None:
    """What the training pairs are made of, beyond the answers of the training files."""
    p.add_argument(
        "--rules-per-reference",
        type=int,
        default=SHIPPED["rules_per_reference"],
        help="rule-made (FactCC-style) pairs per distinct reference; 0 turns them off",
    )
    p.add_argument(
        "--no-answer-pairs",
        dest="answer_pairs",
        action="store_false",
        help="train on rule-made pairs only (e.g. a second stage that adds edit detection)",
    )
    p.add_argument(
        "--compress-share",
        type=float,
        default=0.0,
        help="share of rule-made supported claims that are compressed copies (a clause dropped)",
    )
    p.add_argument(
        "--max-pairs", type=int, default=SHIPPED["max_pairs"], help="cap on training pairs (after shuffling)"
    )
    p.add_argument(
        "--whole",
        action="append",
        default=[],
        metavar="FILE.jsonl",
        help="labelled rows to train on in full, never cut by --max-pairs, grouped by reference (e.g. the "
        "other dev sets inside a leave-one-dataset-out fold; repeatable)",
    )
    p.add_argument(
        "--document-pairs",
        type=int,
        default=SHIPPED["document_pairs"],
        metavar="N",
        help="per distinct reference of the training files: N fusions of two of its sentences (supported), "
        "the same with one fact changed, a sentence of another document appended, and one alone (default: %(default)s)",
    )
    p.add_argument(
        "--qa-forms",
        action="store_true",
        help="add QA answers in both forms with both labels: right answers as sentences, wrong ones as phrases "
        "and sentences (HaluEval's right answers are phrases and its wrong ones sentences; without these the "
        "verifier learns the form)",
    )
    p.add_argument(
        "--pairs",
        action="append",
        default=[],
        metavar="FILE.jsonl",
        help="ready-made training pairs, one JSON object a line with evidence, claim, label (1 = not supported), "
        "weight and source, e.g. the contrast pairs of benchmarks/contrast_pairs.py (repeatable)",
    )
    p.add_argument(
        "--pairs-per-file", type=int, metavar="N", help="draw at most N pairs of each --pairs file (default: all)"
    )


def _add_run_options(p: argparse.ArgumentParser) -> None:
    """Validation, stopping, seeding and where the model goes."""
    p.add_argument("--dev-limit", type=int, default=SHIPPED["dev_limit"], help="first N rows of each dev file")
    p.add_argument(
        "--patience", type=int, default=SHIPPED["patience"], help="epochs without dev improvement before stopping"
    )
    p.add_argument(
        "--seed",
        type=int,
        default=SHIPPED["seed"],
        help="random seed: the same seed and data give the same run (default: %(default)s)",
    )
    p.add_argument("--max-steps", type=int, help="stop after this many steps (smoke runs)")
    p.add_argument(
        "--install-to",
        metavar="DIR",
        help="copy the exported model (int8 ONNX, tokenizer, config, model card) here, e.g. src/hallucheck/data/verifier",
    )
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def cmd_train(args: argparse.Namespace) -> int:
    from ..training.common import TrainConfig
    from ..training.shipped import install_model
    from ..training.train import train

    cfg = TrainConfig(
        train_files=args.data,
        out=args.out,
        base=args.base,
        dev_files=args.dev,
        dev_limit=args.dev_limit,
        epochs=args.epochs,
        batch_size=args.batch_size,
        lr=args.lr,
        max_length=args.max_length,
        k=args.k,
        rules_per_reference=args.rules_per_reference,
        max_pairs=args.max_pairs,
        seed=args.seed,
        answer_pairs=args.answer_pairs,
        compress_share=args.compress_share,
        whole_files=args.whole,
        document_per_reference=args.document_pairs,
        pair_files=args.pairs,
        qa_forms=args.qa_forms,
        pairs_per_file=args.pairs_per_file,
        patience=args.patience,
        max_steps=args.max_steps,
    )
    result = train(cfg, progress=not args.quiet, log=(lambda m: None) if args.quiet else None)
    if args.install_to:
        dest = install_model(result["model_dir"], args.install_to)
        print(f"installed the verifier into {dest}", file=sys.stderr)
    print(json.dumps({k: result[k] for k in ("best_epoch", "dev", "model_dir", "pairs", "stopped_early")}, indent=2))
    return 0


__all__ = ["EPILOG", "HELP", "add_arguments", "cmd_train"]
