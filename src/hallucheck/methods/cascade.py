"""``cascade``: hallucheck's low-cost LLM method (not from the papers).

Answer sentences are the claims. A deterministic entity/number gate flags sentences whose
numbers, dates or names are missing from the reference with no LLM call; the rest are judged by
the embedded (or any) LLM with a short NLI prompt, evidence first, label read by
log-probability and contextually calibrated (:mod:`hallucheck.stages.cascade`). The evidence is
the whole reference when it has at most ``k`` sentences, else the ``k`` most similar sentences.
Flagged sentences are repaired one by one with the HSP paper's A.3 prompt (the sentence itself
is the one repaired).

It is the configuration that meets the Token Expansion Ratio target of at most 2: one short
call per sentence that passes the gate, no decomposition, no chain of thought
(``benchmarks/bench_dev.py``; numbers in ``docs/benchmarks.md``).
"""

from __future__ import annotations

from ..llm.base import LLMClient
from ..pipeline import Pipeline
from ..stages.cascade import JUDGE_THRESHOLD, CascadeVerifier
from ..stages.claims import SentenceExtractor
from ..stages.evidence import CompactRetriever
from ..stages.piece_repair import PieceRepairMitigator

# The judge's default threshold (tuned on held-apart dev rows; where and how: the comment on
# hallucheck.stages.cascade.JUDGE_THRESHOLD). Tune your own (`--param threshold=...`,
# `--param qa_threshold=...`) for a stronger judge.
THRESHOLD: float | None = JUDGE_THRESHOLD
QA_THRESHOLD: float | None = JUDGE_THRESHOLD


def cascade(
    *,
    llm: LLMClient | None = None,
    gate: str = "entities",
    k: int = 4,
    flag_on: str = "ungrounded",
    threshold: float | None = THRESHOLD,
    qa_threshold: float | None = QA_THRESHOLD,
    calibrate: bool = True,
    prompt: str = "cascade_nli.v1",
    qa_prompt: str | None = "cascade_nli_qa.v1",
    embedder: str = "minilm",
    question_mode: str = "auto",
) -> Pipeline:
    """Gate then judge. ``gate``: ``entities`` | ``numbers`` | ``none``. ``k``: evidence
    sentences for long references. ``flag_on``: ``ungrounded`` (Neutral counts, default) or
    ``contradiction``. ``threshold`` / ``qa_threshold``: flag a judged claim when the judge's
    score exceeds it, without / with a question (default 0.82, tuned on held-apart dev rows;
    ``None``: the most likely label decides). ``question_mode``: ``auto`` (the question is used for a
    one-sentence answer; each sentence of a longer answer is judged on its own), ``qa``, ``claims``."""
    return Pipeline(
        name="cascade",
        extractor=SentenceExtractor(),
        retriever=CompactRetriever(k=k, embedder=embedder),
        verifier=CascadeVerifier(
            llm=llm,
            gate=gate,
            prompt=prompt,
            qa_prompt=qa_prompt,
            flag_on=flag_on,
            threshold=threshold,
            qa_threshold=qa_threshold,
            calibrate=calibrate,
            question_mode=question_mode,
        ),
        mitigator=PieceRepairMitigator(llm=llm, embedder=embedder, locate="source"),
        llm=llm,
    )
