"""The batched triplet check end to end with the embedded LLM (Qwen2.5-Coder-1.5B, llama.cpp)."""

from __future__ import annotations

import hallucheck
from hallucheck.text import split_sentences

REF = "The Oberoi Group is a hotel company with its head office in Delhi."
QUESTION = "In which city does The Oberoi Group have its head office?"


def test_triplet_method_on_a_real_example(embedded_llm):
    answer = "The Oberoi Group has its head office in Mumbai."
    # variant "detail": with the 1.5B model the default detail+cot reasoning called this triplet a direct quote
    # of the Delhi triplet (see the method notes); the thesis' detailed rules alone judge it right
    det = hallucheck.load_method("triplet", llm=embedded_llm, variant="detail").run(answer, REF, question=QUESTION)
    assert det.status == "ok" and det.verdicts, det
    # grammar-constrained JSON: every triplet gets a parsed verdict, all from ONE batched request
    assert all(v.status == "ok" for v in det.verdicts), [v.reason for v in det.verdicts]
    assert all(v.meta["requests"] == 1 and v.meta["batch_size"] == len(det.verdicts) for v in det.verdicts)
    assert det.usage.calls <= 4  # answer triplets + reference triplets + one check (+ at most one retry)
    sentences = {(s.start, s.end) for s in split_sentences(answer)}
    for v in det.verdicts:
        c = v.claim
        assert c.kind == "triplet" and len(c.meta["triplet"]) == 3 and (c.start, c.end) in sentences
        assert v.label in ("supported", "unverifiable") and v.score in (0.0, 1.0) and v.reason
    # Mumbai contradicts the reference: the triplet that carries it is not supported
    mumbai = [v for v in det.verdicts if "Mumbai" in v.claim.text]
    assert mumbai and all(v.hallucinated for v in mumbai)
    assert det.hallucinated is True
