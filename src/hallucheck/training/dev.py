"""Dev validation of a training run (:mod:`hallucheck.training.train`), at the answer level as at
inference: an answer's score is the highest of its sentences'; AUROC, balanced accuracy and macro
F1 per dev file, and the mean AUROC that picks the best epoch."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import numpy as np

from .pairs import claim_text, read_rows, select_evidence


def dev_examples(files: Sequence[str], limit: int | None, k: int) -> list[dict]:
    """Dev answers as ``{file, label, pairs: [(evidence, claim)]}``, claims being answer sentences
    (with the question in QA), each with its top-k evidence: the inputs the verifier sees."""
    from ..text import split_sentences

    out = []
    for f in files:
        rows = read_rows(f)
        if limit:
            rows = rows[:limit]
        for row in rows:
            q = row.get("question") if isinstance(row.get("question"), str) else None
            sents = [s.text for s in split_sentences(row["answer"])] or [row["answer"].strip()]
            ref_sents = [s.text for s in split_sentences(row["reference"])]
            pairs = []
            for s in sents:
                claim = claim_text(s, q)
                pairs.append((select_evidence(claim, row["reference"], k=k, sentences=ref_sents), claim))
            out.append({"file": Path(f).name, "label": int(row["label"]), "pairs": pairs})
    return out


def answer_metrics(
    examples: Sequence[dict], scores: Sequence[float], threshold: float = 0.5
) -> dict[str, dict[str, float]]:
    """Per dev file: AUROC, balanced accuracy and macro F1 of answer scores (max over sentences)."""
    from ..eval.metrics import balanced_accuracy, macro_prf, roc_auc

    by: dict[str, tuple[list[int], list[float]]] = {}
    pos = 0
    for ex in examples:
        n = len(ex["pairs"])
        s = max(scores[pos : pos + n]) if n else 0.0
        pos += n
        y, sc = by.setdefault(ex["file"], ([], []))
        y.append(ex["label"])
        sc.append(float(s))
    out = {}
    for name, (y, sc) in by.items():
        pred = [int(x > threshold) for x in sc]
        two = len(set(y)) == 2
        out[name] = {
            "n": len(y),
            "auroc": roc_auc(y, sc) if two else float("nan"),
            "balanced_accuracy": balanced_accuracy(y, pred) if two else float("nan"),
            "macro_f1": macro_prf(y, pred)[2],
        }
    return out


def mean_auroc(metrics: dict[str, dict[str, float]]) -> float:
    vals = [m["auroc"] for m in metrics.values() if not math.isnan(m["auroc"])]
    return float(np.mean(vals)) if vals else float("nan")


__all__ = ["answer_metrics", "dev_examples"]
