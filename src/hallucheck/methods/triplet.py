"""Triplet-based hallucination detection (thesis 004: "knowledge-level" checking with LLMs; see
docs/references.md).

- ``triplet``: the thesis' method. The LLM decomposes the answer and the reference into
  ``(arg1, relation, arg2)`` triplets (§3.2), then checks ALL answer triplets against ALL
  reference triplets in one request (§3.3, §4.7), with the Appendix A.1 prompt ``variant``
  (default ``detail+cot``, the best in Table 5.2: sensitivity 0.88, specificity 0.82 with GPT-4o).
  LLM calls per answer: 1 (answer triplets) + 1 per distinct reference (cached) + 1 check
  (more only when the context window forces a split).
- ``triplet_single``: the RefChecker baseline of §5.2 / Appendix A.3.1: the same answer triplets,
  each checked in its own request against the reference text: 1 + N calls for N triplets.

An answer is hallucinated when any of its triplets is not supported; its score is the highest
triplet score. Neither method has a mitigator.

With small local models the best variant may differ from the thesis' GPT-4o result: the
embedded Qwen2.5-Coder-1.5B, asked for CoT reasoning, has called a contradicting triplet a
"direct quote" of the reference and marked it True, where the ``detail`` variant judged it
correctly (see benchmarks/bench_triplet.py for measured numbers per variant).
"""

from __future__ import annotations

from ..llm.base import LLMClient
from ..pipeline import Pipeline
from ..stages.evidence import AllSentencesRetriever
from ..stages.triplets import (
    DEFAULT_VARIANT,
    BatchedTripletVerifier,
    SingleTripletVerifier,
    TripletExtractor,
    TripletRetriever,
)


def triplet(
    *,
    llm: LLMClient | None = None,
    variant: str = DEFAULT_VARIANT,
    label_scores: bool = False,
    max_triplets: int = 24,
    context_tokens: int | None = None,
    max_triplets_per_request: int | None = None,
) -> Pipeline:
    """The thesis' batched triplet-set check. ``variant``: ``baseline``, ``detail``, ``cot``,
    ``fewshot`` or a ``+`` combination; ``label_scores=True`` gives continuous scores with a
    log-probability backend (one extra cached-prefix call per triplet)."""
    return Pipeline(
        name="triplet",
        extractor=TripletExtractor(llm=llm, max_triplets=max_triplets),
        retriever=TripletRetriever(llm=llm, max_triplets=max(2 * max_triplets, 1)),
        verifier=BatchedTripletVerifier(
            llm=llm,
            variant=variant,
            label_scores=label_scores,
            context_tokens=context_tokens,
            max_triplets_per_request=max_triplets_per_request,
        ),
        llm=llm,
    )


def triplet_single(
    *, llm: LLMClient | None = None, max_triplets: int = 24, use_logprobs: bool | None = None
) -> Pipeline:
    """RefChecker-style baseline: one request per answer triplet with the reference text."""
    return Pipeline(
        name="triplet_single",
        extractor=TripletExtractor(llm=llm, max_triplets=max_triplets),
        retriever=AllSentencesRetriever(),
        verifier=SingleTripletVerifier(llm=llm, use_logprobs=use_logprobs),
        llm=llm,
    )
