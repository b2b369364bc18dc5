"""The gate on a sample of human-written entailment pairs (``tests/data/gate_precision_sample.jsonl``,
drawn by ``benchmarks/gate_precision.py --sample``): 20 entailed hypotheses that carry a figure or a
name, paraphrases people wrote of the premise, and 20 contradictions that change a figure. Sources:
MNLI (OANC and CC BY-SA 3.0 parts), SNLI (CC BY-SA 4.0) and FEVER-NLI (FEVER text CC BY-SA 3.0, from
salesforce/DocNLI), premises and hypotheses unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import hallucheck

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "gate_precision_sample.jsonl"


def _flagged(pair: dict) -> bool:
    det = hallucheck.detect(pair["claim"], pair["evidence"], method="entity_check")
    return any(v.hallucinated for v in det.verdicts)


def test_the_gate_flags_almost_no_human_paraphrase_and_catches_changed_figures():
    pairs = [json.loads(x) for x in SAMPLE.read_text(encoding="utf-8").splitlines() if x.strip()]
    correct = [p for p in pairs if p["label"] == 0]
    errors = [p for p in pairs if p["label"] == 1]
    assert len(correct) == len(errors) == 20
    false_conflicts = [p["claim"] for p in correct if _flagged(p)]
    caught = sum(_flagged(p) for p in errors)
    assert len(false_conflicts) <= 1, false_conflicts
    assert caught >= 14  # 15 of 20 when written
