"""Triplet-based checking (thesis 004: Ch. 3, §4.7, Appendix A.1 and A.3).

Three stages and their helpers:

- :class:`TripletExtractor` (ClaimExtractor): the LLM decomposes the answer into
  ``(arg1, relation, arg2)`` triplets following the thesis' principles (§3.2: full
  contextualisation, accuracy and completeness, grammatical and semantic consistency), with
  JSON output constrained by a schema. Each triplet becomes a ``Claim`` (``kind="triplet"``,
  ``text="arg1 | relation | arg2"``) whose offsets are the answer sentence its words were found
  in (found by code with :func:`hallucheck.text.align`, never trusted from the LLM).
- :class:`TripletRetriever` (EvidenceRetriever): the same extraction on the reference, cached
  per (reference, model, prompt version) so one reference is decomposed once per run. Every
  claim receives all reference triplets (the check is set-against-set).
- :class:`BatchedTripletVerifier` (Verifier): the thesis' contribution: all answer triplets are
  checked against all reference triplets in ONE request (§2.4, §4.7), one verdict per triplet,
  with the Appendix A.1 prompt variants (baseline / detail / CoT / few-shot and combinations).
  The request is split only when it would not fit the context window (token counts from
  ``llm.count_tokens``): answer triplets first, the reference triplets too when they alone
  are too long (the thesis' "prompt splitting"; a triplet is then supported if any part of
  the reference supports it).
- :class:`SingleTripletVerifier` (Verifier): the RefChecker baseline of §5.2 / Appendix A.3:
  one answer triplet and the reference *text* per request.

Deviations from the thesis, and why:

- Output format: the thesis' prompts ask for lines ``triplet_idx:True``; ours ask for the same
  content as one JSON object (``{"final_answer": {"1": "True", ...}}``, with CoT a
  ``"referred_triplets"`` section first, as the thesis' ``[REFERRED TRIPLETS]`` /
  ``[FINAL ANSWER]`` sections). The schema names every triplet index, so a grammar-constrained
  backend must give exactly one verdict per triplet, which small local models otherwise often
  fail to do. Replies in the thesis' line format are still parsed (servers that ignore the
  schema).
- Prompt order: the thesis lists the input (answer) triplets before the source (reference)
  triplets; we put the reference first and the answer triplets last so that llama.cpp reuses the
  cached prefix of one reference across answers.
- Few-shot: the thesis' two few-shot examples are not in its appendix; ours are built from the
  thesis' own running example (§3.1, §3.3, §4.1, §4.5).
- Labels: the thesis' verdict is binary (supported / not supported), so a False verdict maps to
  ``label="unverifiable"`` (not supported; the prompt does not distinguish contradicted).
- Scores: ``score`` is 1.0 / 0.0 from the parsed verdict. With ``label_scores=True`` and a
  backend with log-probabilities, each triplet's verdict is re-scored by teacher forcing the
  reply up to that verdict and reading P(True) / P(False) (one extra, prefix-cached call per
  triplet), giving a continuous ``score = P(False)``.
"""

from __future__ import annotations

from .extract import (
    EXTRACT_PROMPT,
    PARTS,
    Extraction,
    Triplet,
    TripletExtractor,
    TripletRetriever,
    claim_triplet,
    extract_triplets,
    extraction_schema,
    format_triplets,
    locate_triplet,
    parse_triplets,
    triplet_text,
)
from .parse import (
    DEFAULT_VARIANT,
    VARIANTS,
    ParsedVerdict,
    normalise_variant,
    parse_verification,
    variant_prompt,
    verdict_prefixes,
    verification_schema,
)
from .verify import REFCHECKER_PROMPT, BatchedTripletVerifier, SingleTripletVerifier

__all__ = [
    "DEFAULT_VARIANT",
    "EXTRACT_PROMPT",
    "PARTS",
    "REFCHECKER_PROMPT",
    "Triplet",
    "claim_triplet",
    "triplet_text",
    "BatchedTripletVerifier",
    "Extraction",
    "ParsedVerdict",
    "SingleTripletVerifier",
    "TripletExtractor",
    "TripletRetriever",
    "VARIANTS",
    "extract_triplets",
    "extraction_schema",
    "format_triplets",
    "locate_triplet",
    "normalise_variant",
    "parse_triplets",
    "parse_verification",
    "variant_prompt",
    "verification_schema",
    "verdict_prefixes",
]
