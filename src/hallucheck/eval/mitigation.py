"""Mitigation quality (HSP Table 8, CoNLI Table 5): overlap with the dataset's correct answer
before and after revision, groundedness before and after, and how much was changed.

BERTScore is computed with our embedded MiniLM's contextual token vectors (its last layer,
i.e. bert-score's ``num_layers=6`` for this model), greedy cosine matching, no IDF weighting
and no baseline rescaling — so values are comparable between our runs, not to papers that
used a RoBERTa-large BERTScore.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import metrics as M


def bertscore(
    candidates: Sequence[str], references: Sequence[str], *, embedder: str = "minilm"
) -> list[tuple[float, float, float]]:
    """(precision, recall, F1) per pair."""
    from ..models.embeddings import get_embedder

    if len(candidates) != len(references):
        from ..errors import InputError

        raise InputError(f"bertscore needs as many references as candidates ({len(candidates)} vs {len(references)}).")
    emb = get_embedder(embedder)
    cand_tok = emb.token_embeddings(list(candidates))
    ref_tok = emb.token_embeddings(list(references))
    out = []
    for c, r in zip(cand_tok, ref_tok):
        if len(c) == 0 or len(r) == 0:
            out.append((0.0, 0.0, 0.0))
            continue
        c = c / np.linalg.norm(c, axis=1, keepdims=True)
        r = r / np.linalg.norm(r, axis=1, keepdims=True)
        sim = c @ r.T
        p = float(sim.max(axis=1).mean())
        rec = float(sim.max(axis=0).mean())
        out.append((p, rec, 2 * p * rec / (p + rec) if p + rec > 0 else 0.0))
    return out


def _overlap_scores(texts: Sequence[str], golds: Sequence[str], with_bertscore: bool) -> dict[str, float]:
    n = len(texts)
    res = {
        "rouge1": sum(M.rouge_n(t, g, 1) for t, g in zip(texts, golds)) / n,
        "rouge2": sum(M.rouge_n(t, g, 2) for t, g in zip(texts, golds)) / n,
        "rougeL": sum(M.rouge_l(t, g) for t, g in zip(texts, golds)) / n,
        "bleu_avg": sum(sum(M.bleu(t, [g], max_n=k) for k in range(1, 5)) / 4 for t, g in zip(texts, golds)) / n,
        "bleu4": M.corpus_bleu(list(texts), [[g] for g in golds], max_n=4),
    }
    if with_bertscore:
        res["bertscore_f1"] = sum(f for _, _, f in bertscore(texts, golds)) / n
    return res


def mitigation_metrics(records: Sequence[dict[str, Any]], *, with_bertscore: bool = True) -> dict[str, Any]:
    """Metrics over run records that carry a ``mitigation`` entry (see the eval runner)."""
    recs = [r for r in records if r.get("mitigation") and r.get("status") != "error"]
    if not recs:
        return {}
    originals = [r["detection"]["answer"] for r in recs]
    revised = [r["mitigation"]["revised"] for r in recs]
    out: dict[str, Any] = {"n": len(recs)}
    out["flagged_before"] = sum(1 for r in recs if r["hallucinated"]) / len(recs)
    after = [r["mitigation"]["after_hallucinated"] for r in recs]
    out["flagged_after"] = sum(1 for a in after if a) / len(recs)
    out["changed"] = sum(1 for o, v in zip(originals, revised) if o != v) / len(recs)
    out["edit_distance"] = sum(M.normalized_edit_distance(o, v) for o, v in zip(originals, revised)) / len(recs)
    grounded = [(o, v) for r, o, v in zip(recs, originals, revised) if r.get("label") == 0]
    if grounded:
        out["over_mitigation"] = sum(1 for o, v in grounded if o != v) / len(
            grounded
        )  # grounded answers that were rewritten
        out["grounded_edit_distance"] = sum(M.normalized_edit_distance(o, v) for o, v in grounded) / len(grounded)
    with_gold = [(o, v, r["right_answer"]) for r, o, v in zip(recs, originals, revised) if r.get("right_answer")]
    if with_gold:
        o, v, g = zip(*with_gold)
        before = _overlap_scores(o, g, with_bertscore)
        after_s = _overlap_scores(v, g, with_bertscore)
        for k in before:
            out[f"{k}_before"] = before[k]
            out[f"{k}_after"] = after_s[k]
    return out
