"""Question answering (DRAD, Su et al. 2024, §4.2): exact match, token F1/precision/recall, yes/no accuracy."""

from __future__ import annotations

import re
from collections import Counter
from typing import Sequence

from ...errors import InputError

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)


def normalize_answer(text: str) -> str:
    """Lower-case, drop punctuation and the articles a/an/the, collapse whitespace (the usual
    normalisation of extractive QA scoring)."""
    if not isinstance(text, str):
        raise InputError(f"An answer must be a string; got {type(text).__name__}.")
    text = _PUNCT.sub(" ", text.lower())
    return " ".join(_ARTICLES.sub(" ", text).split())


def _golds(gold: str | Sequence[str]) -> list[str]:
    golds = [gold] if isinstance(gold, str) else list(gold)
    if not golds or not all(isinstance(g, str) for g in golds):
        raise InputError("Gold answers must be a string or a non-empty list of strings.")
    return golds


def exact_match(prediction: str, gold: str | Sequence[str]) -> float:
    """1.0 if the normalised prediction equals any normalised gold answer, else 0.0."""
    p = normalize_answer(prediction)
    return float(any(p == normalize_answer(g) for g in _golds(gold)))


def _prf_tokens(pred: list[str], gold: list[str]) -> tuple[float, float, float]:
    if not pred or not gold:
        same = float(pred == gold)
        return same, same, same
    common = sum((Counter(pred) & Counter(gold)).values())
    if common == 0:
        return 0.0, 0.0, 0.0
    p, r = common / len(pred), common / len(gold)
    return p, r, 2 * p * r / (p + r)


def token_f1(prediction: str, gold: str | Sequence[str]) -> dict[str, float]:
    """Token-level precision, recall and F1 of the normalised answers; with several gold
    answers, the one giving the best F1."""
    pred = normalize_answer(prediction).split()
    best = max((_prf_tokens(pred, normalize_answer(g).split()) for g in _golds(gold)), key=lambda x: x[2])
    return {"precision": best[0], "recall": best[1], "f1": best[2]}


def yes_no(text: str) -> str | None:
    """ "yes" or "no" if the answer's first yes/no word is one (``None`` when it has neither)."""
    m = re.search(r"\b(yes|no)\b", text.lower())
    return m.group(1) if m else None


def yes_no_accuracy(predictions: Sequence[str], golds: Sequence[str]) -> float:
    """Share of answers whose yes/no (:func:`yes_no`) equals the gold yes/no; an answer with
    neither counts as wrong."""
    predictions, golds = list(predictions), list(golds)
    if len(predictions) != len(golds):
        raise InputError(f"predictions and golds differ in length ({len(predictions)} vs {len(golds)}).")
    if not golds:
        raise InputError("yes_no_accuracy needs at least one example.")
    bad = [g for g in golds if yes_no(g) is None]
    if bad:
        raise InputError(f"Gold answers of yes/no questions must be 'yes' or 'no'; got {bad[0]!r}.")
    return sum(yes_no(p) == yes_no(g) for p, g in zip(predictions, golds)) / len(golds)


def qa_scores(prediction: str, gold: str | Sequence[str]) -> dict[str, float]:
    """EM and token precision/recall/F1 of one answer; for a yes/no gold, ``accuracy`` too."""
    out = {"em": exact_match(prediction, gold), **token_f1(prediction, gold)}
    golds = _golds(gold)
    if all(yes_no(g) is not None and normalize_answer(g) in ("yes", "no") for g in golds):
        out["accuracy"] = float(yes_no(prediction) == yes_no(golds[0]))
    return out
