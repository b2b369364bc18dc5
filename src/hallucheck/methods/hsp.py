"""HSP: hierarchical semantic piece detection and mitigation (Liu et al. 2025, paper 000, Algorithm 1;
see docs/references.md).

    SP_r <- HierarchicalSemanticExtractor(Ref)        HierarchicalPieceExtractor (reference side, cached)
    SP_o <- HierarchicalSemanticExtractor(Output)     HierarchicalPieceExtractor (answer side)
    E_i  <- EvidenceMatching(sp_oi, SP_r)            PieceRetriever: top-k by MiniLM cosine (k=3)
    V_i  <- FactVerifier(sp_oi, E_i)                 LLMNLIVerifier: A.2 prompt, 3-way, log-prob scored
    Output' <- HallucinationMitigator(...)           PieceRepairMitigator: A.3 prompt per flagged piece

Paper defaults: k = 3, both levels, embedding similarity, flag on Contradiction. The paper's
embedder (SFR-Embedding-2-R) is not available offline; MiniLM (``embedder="minilm"``) is the
default and any sentence-transformers model can be named as ``"st:<model>"``.

Ablations (Tables 5-7): ``levels="sent" | "ent" | "sent+ent"``, ``k``, ``matcher="embedding" |
"fuzzy" | "bm25"``. ``flag_on="ungrounded"`` also flags Neutral (CoNLI's definition of a
hallucination) and then scores P(Contradiction) + P(Neutral); ``unit="text"`` decomposes each
text in one LLM call instead of one call per sentence.
"""

from __future__ import annotations

from typing import Sequence

from ..llm.base import LLMClient
from ..pipeline import Pipeline
from ..stages.hsp_pieces import ENTITY_TYPES, HierarchicalPieceExtractor, PieceRetriever
from ..stages.nli import LLMNLIVerifier
from ..stages.piece_repair import PieceRepairMitigator


def hsp(
    *,
    llm: LLMClient | None = None,
    k: int = 3,
    levels: str = "sent+ent",
    matcher: str = "embedding",
    flag_on: str = "contradiction",
    threshold: float | None = None,
    unit: str = "sentence",
    embedder: str = "minilm",
    entity_types: Sequence[str] = ENTITY_TYPES,
    filter_entities: bool = True,
    nli_prompt: str | None = None,
    decompose_prompt: str = "hsp_decompose.v1",
    min_overlap: float = 0.5,
    calibrate: bool = True,
    locate: str = "embedding",
) -> Pipeline:
    """The HSP method as a pipeline with its piece-repair mitigator.

    ``threshold``: flag a piece when its score exceeds it (default: when the most likely NLI
    label is a flagged one, as in the paper). ``nli_prompt``: default ``hsp_nli.v1`` (A.2) for
    ``flag_on="contradiction"``, ``hsp_nli_3way.v1`` for ``"ungrounded"``. ``decompose_prompt``:
    the first decomposition prompt (A.1, ``hsp_decompose.v1``; ``hsp_decompose_fewshot.v1``,
    its one-shot form and the retry prompt, suits small models better and saves the retry).
    ``min_overlap``: pieces sharing less of their content words with their sentence are
    dropped as the decomposer's own inventions (0 keeps all). ``calibrate``: contextual
    calibration of the NLI label probabilities (our addition for small models, see
    :mod:`hallucheck.stages.nli`; ``False`` is the paper's raw decision). ``locate``: how the
    mitigator finds the sentence to repair -- ``"embedding"`` (the paper) or ``"source"`` (the
    sentence the piece came from)."""
    extractor = HierarchicalPieceExtractor(
        llm=llm,
        levels=levels,
        unit=unit,
        entity_types=entity_types,
        filter_entities=filter_entities,
        prompt=decompose_prompt,
        min_overlap=min_overlap,
    )
    return Pipeline(
        name="hsp",
        extractor=extractor,
        retriever=PieceRetriever(extractor=extractor, llm=llm, k=k, matcher=matcher, embedder=embedder),
        verifier=LLMNLIVerifier(llm=llm, prompt=nli_prompt, flag_on=flag_on, threshold=threshold, calibrate=calibrate),
        mitigator=PieceRepairMitigator(llm=llm, embedder=embedder, locate=locate),
        llm=llm,
    )
