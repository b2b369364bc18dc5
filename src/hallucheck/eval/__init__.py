"""Evaluation: benchmark loaders (:mod:`.datasets`), metrics (:mod:`.metrics`), and one call per run
(:func:`evaluate` for ``hallucheck eval``, :func:`check_file` for ``hallucheck check``).

>>> from hallucheck.eval import Selection, evaluate, load_dataset, metrics
>>> run = evaluate("halueval_qa", method="sim_overlap", select=Selection(limit=40), out="runs/dev")  # doctest: +SKIP
>>> examples = load_dataset("halueval_qa")                       # doctest: +SKIP
>>> metrics.macro_prf([ex.label for ex in examples], predictions)  # doctest: +SKIP
"""

from __future__ import annotations

from . import metrics
from .api import CheckRun, EvalRun, Selection, check_file, evaluate
from .check import check_exit_code, check_summary, load_check_rows, run_check
from .datasets import (
    HF_DATASETS,
    Example,
    load_dataset,
    load_delucionqa_csv,
    load_halueval,
    load_hf,
    load_jsonl,
    load_ragtruth,
    load_summedits,
    load_summeval_tsv,
)

__all__ = [
    "metrics",
    "evaluate",
    "EvalRun",
    "Selection",
    "check_file",
    "CheckRun",
    "Example",
    "load_dataset",
    "load_jsonl",
    "load_halueval",
    "load_summeval_tsv",
    "load_summedits",
    "load_delucionqa_csv",
    "load_ragtruth",
    "load_hf",
    "HF_DATASETS",
    "run_check",
    "load_check_rows",
    "check_summary",
    "check_exit_code",
]
