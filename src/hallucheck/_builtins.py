"""hallucheck's own components and methods: one table, read by :mod:`hallucheck.registry`.

This module is data only. It imports nothing (no stage, no model, not even the registry), so
listing methods loads nothing heavy and the registry can read it without an import cycle.
Targets are ``"module:attr"`` strings that the registry imports on first use. Each row's
metadata (``needs_llm``, ``llm_optional``, ``mitigates``, ``version``, ``summary``) is stored on
the registry entry; everything else reads it from there (:func:`hallucheck.registry.entry`).
"""

from __future__ import annotations

from typing import Any

_M = "hallucheck.methods"
_S = "hallucheck.stages"


def _method(
    name: str, target: str, summary: str, *, needs_llm: bool, llm_optional: bool = False, mitigates: bool = False
) -> dict[str, Any]:
    return {
        "kind": "method",
        "name": name,
        "target": target,
        "summary": summary,
        "needs_llm": needs_llm,
        "llm_optional": llm_optional,
        "mitigates": mitigates,
    }


def _stage(kind: str, name: str, target: str, summary: str, *, needs_llm: bool = False, **meta: bool) -> dict[str, Any]:
    return {"kind": kind, "name": name, "target": target, "summary": summary, "needs_llm": needs_llm, **meta}


BUILTINS: tuple[dict[str, Any], ...] = (
    # --- DelucionQA (paper 002) and the deterministic check ---
    _method(
        "sim_cosine",
        f"{_M}.delucionqa:sim_cosine",
        "DelucionQA SIM-COSINE: a sentence is unsupported if no reference sentence has MiniLM cosine > t1 (0.6).",
        needs_llm=False,
    ),
    _method(
        "sim_overlap",
        f"{_M}.delucionqa:sim_overlap",
        "DelucionQA SIM-OVERLAP: word-overlap ratio (DP alignment of long shared phrases) with any reference sentence <= t2 (0.1).",
        needs_llm=False,
    ),
    _method(
        "sim_hybrid",
        f"{_M}.delucionqa:sim_hybrid",
        "DelucionQA SIM-HYBRID: unsupported if both cosine <= t1 (0.1) and overlap <= t2 (0.9).",
        needs_llm=False,
    ),
    _method(
        "keyword_match",
        f"{_M}.delucionqa:keyword_match",
        "DelucionQA KEYWORD-MATCH: LLM-extracted keywords missing from the reference; hallucinated if share > t3 (0.2).",
        needs_llm=True,
    ),
    _method(
        "entity_check",
        f"{_M}.checks:entity_check",
        "Deterministic: a sentence whose numbers, dates or names do not occur in the reference is unsupported.",
        needs_llm=False,
    ),
    _method(
        "cascade",
        f"{_M}.cascade:cascade",
        "hallucheck's low-cost LLM method: numbers/names gate, then a short calibrated LLM NLI call per remaining sentence.",
        needs_llm=True,
        mitigates=True,
    ),
    _stage("extractor", "sentences", f"{_S}.claims:SentenceExtractor", "Each answer sentence is a claim."),
    _stage("retriever", "all_sentences", f"{_S}.evidence:AllSentencesRetriever", "All reference sentences."),
    _stage("retriever", "embedding_topk", f"{_S}.evidence:EmbeddingRetriever", "Top-k reference sentences by cosine."),
    _stage(
        "retriever",
        "compact",
        f"{_S}.evidence:CompactRetriever",
        "Whole reference if short, else top-k sentences by cosine (in reference order).",
    ),
    _stage("verifier", "similarity", f"{_S}.similarity:SimilarityVerifier", "DelucionQA cosine/overlap/hybrid."),
    _stage("verifier", "keyword_match", f"{_S}.keyword:KeywordVerifier", "DelucionQA keyword match.", needs_llm=True),
    _stage(
        "verifier", "entity_check", f"{_S}.entity_check:EntityCheckVerifier", "Numbers, dates, names in the reference."
    ),
    _stage(
        "verifier",
        "cascade",
        f"{_S}.cascade:CascadeVerifier",
        "Entity/number gate, then a compact LLM NLI judge.",
        needs_llm=True,
    ),
    # --- trained verifier (ours) ---
    _method(
        "ce_cascade",
        f"{_M}.cross_encoder:ce_cascade",
        "hallucheck's default: numbers/names gate; QA answers by the trained cross-encoder verifier, with the LLM judge "
        "where it is unsure; summaries and claims by the LLM judge (--llm none: the verifier alone, weak there).",
        needs_llm=True,
        llm_optional=True,
        mitigates=True,
    ),
    _method(
        "cross_encoder",
        f"{_M}.cross_encoder:cross_encoder",
        "hallucheck's trained cross-encoder verifier alone (or any NLI/HHEM/MiniCheck-style checkpoint), no LLM.",
        needs_llm=False,
    ),
    _stage(
        "verifier",
        "cross_encoder",
        f"{_S}.cross_encoder:CrossEncoderVerifier",
        "Trained (evidence, claim) cross-encoder: P(unsupported) against the top-k reference sentences.",
    ),
    _stage(
        "verifier",
        "ce_cascade",
        f"{_S}.ce_cascade:CECascadeVerifierV1",
        "Entity gate, trained cross-encoder, LLM judge inside the uncertainty band only; in the band the judge's raw "
        "score is averaged in (what pipelines saved before v2 meant).",
        needs_llm=True,
        llm_optional=True,
    ),
    _stage(
        "verifier",
        "ce_cascade",
        f"{_S}.ce_cascade:CECascadeVerifier",
        "Entity gate, trained cross-encoder, LLM judge inside the uncertainty band only, its score put on the "
        "combination's scale before the mean.",
        needs_llm=True,
        llm_optional=True,
        version=2,
    ),
    # --- published open detectors, as their authors run them ---
    _method(
        "hhem",
        f"{_M}.detectors:hhem",
        "Vectara HHEM-2.1-open (Apache-2.0): its T5 prompt and head on each sentence against the reference, "
        "windowed when long; no LLM.",
        needs_llm=False,
    ),
    _method(
        "minicheck",
        f"{_M}.detectors:minicheck",
        "MiniCheck (Apache-2.0 code; Flan-T5-L / RoBERTa-L / DeBERTa-v3-L checkpoints, see their cards): the authors' chunking, "
        "label tokens and max over chunks on each sentence; no LLM.",
        needs_llm=False,
    ),
    _method(
        "lettucedetect",
        f"{_M}.detectors:lettucedetect",
        "KRLabs LettuceDetect (MIT; ModernBERT base / large): hallucinated tokens of the answer as spans, "
        "grouped into its sentences; long references chunked; no LLM.",
        needs_llm=False,
    ),
    _method(
        "bespoke_minicheck",
        f"{_M}.detectors:bespoke_minicheck",
        "Bespoke-MiniCheck-7B (CC BY-NC 4.0 weights) on an OpenAI-compatible endpoint: the authors' prompt, "
        "P(Yes) from 5 alternatives, 32K-token chunks, max over chunks, on each sentence.",
        needs_llm=True,
    ),
    _method(
        "granite_guardian",
        f"{_M}.detectors:granite_guardian",
        "IBM Granite Guardian 3.0-3.2 (Apache-2.0) groundedness risk on a text-completions endpoint: its chat "
        "template's prompt, P(Yes) over Yes/No alternatives, on the whole answer.",
        needs_llm=True,
    ),
    _method(
        "lynx",
        f"{_M}.detectors:lynx",
        "PatronusAI Lynx (CC BY-NC 4.0 weights) on an OpenAI-compatible endpoint: the model card's prompt with "
        "the question, its JSON PASS/FAIL, P(FAIL) at the label token where logprobs are given; whole answer.",
        needs_llm=True,
    ),
    _stage(
        "verifier",
        "hhem",
        f"{_S}.hhem:HHEMVerifier",
        "HHEM-2.1-open without remote code: P(unsupported) = 1 - P(consistent) at the first token of its prompt.",
    ),
    _stage(
        "verifier",
        "minicheck",
        f"{_S}.minicheck:MiniCheckVerifier",
        "MiniCheck: 1 - max over the reference's chunks of P(supported) (label tokens 3/209 for Flan-T5).",
    ),
    _stage(
        "verifier",
        "lettucedetect",
        f"{_S}.lettucedetect:LettuceDetectVerifier",
        "LettuceDetect: a claim's highest token P(hallucinated); its hallucinated tokens as spans (meta['spans']).",
    ),
    _stage(
        "verifier",
        "bespoke_minicheck",
        f"{_S}.llm_detectors:BespokeMiniCheckVerifier",
        "Bespoke-MiniCheck-7B: 1 - max over chunks of P(Yes) (an OpenAI-compatible endpoint).",
        needs_llm=True,
    ),
    _stage(
        "verifier",
        "granite_guardian",
        f"{_S}.llm_detectors:GraniteGuardianVerifier",
        "Granite Guardian groundedness: P(Yes) over its Yes/No alternatives (a text-completions endpoint).",
        needs_llm=True,
    ),
    _stage(
        "verifier",
        "lynx",
        f"{_S}.llm_detectors:LynxVerifier",
        "PatronusAI Lynx: P(FAIL) of its JSON verdict (an OpenAI-compatible endpoint).",
        needs_llm=True,
    ),
    _stage(
        "retriever",
        "lexical_topk",
        f"{_S}.evidence:LexicalRetriever",
        "Top-k reference sentences by IDF-weighted word overlap (the trained verifier's premise).",
    ),
    # --- HSP + prompt baselines (paper 000) ---
    _method(
        "hsp",
        f"{_M}.hsp:hsp",
        "HSP: sentence- and entity-level semantic pieces of answer and reference, top-k evidence, 3-way LLM NLI; piece repair.",
        needs_llm=True,
        mitigates=True,
    ),
    _method(
        "prompt",
        f"{_M}.prompt:prompt",
        "HSP paper's prompt baseline: one few-shot NLI call on the whole answer (A.4); whole-answer rewrite (A.5).",
        needs_llm=True,
        mitigates=True,
    ),
    _stage(
        "extractor",
        "hsp_pieces",
        f"{_S}.hsp_pieces:HierarchicalPieceExtractor",
        "HSP semantic pieces: LLM sentence decomposition + schema entities.",
        needs_llm=True,
    ),
    _stage("extractor", "nli_whole_answer", f"{_S}.nli:WholeAnswerExtractor", "The whole answer is one claim."),
    _stage(
        "retriever",
        "hsp_evidence",
        f"{_S}.hsp_pieces:PieceRetriever",
        "Top-k reference pieces of the same level (embedding, fuzzy or BM25); exact entity matches.",
        needs_llm=True,
    ),
    _stage(
        "verifier",
        "nli_llm",
        f"{_S}.nli:LLMNLIVerifier",
        "3-way LLM NLI (Entailment/Neutral/Contradiction).",
        needs_llm=True,
    ),
    _stage(
        "mitigator",
        "piece_repair",
        f"{_S}.piece_repair:PieceRepairMitigator",
        "HSP: repair each flagged piece's sentence.",
        needs_llm=True,
    ),
    _stage(
        "mitigator",
        "figure_repair",
        f"{_S}.figure_repair:FigureRepairMitigator",
        "No LLM: a contradicted figure takes the reference's value, written in the answer's format.",
    ),
    _stage(
        "mitigator",
        "prompt_rewrite",
        f"{_S}.piece_repair:PromptRewriteMitigator",
        "Rewrite the whole answer (A.5).",
        needs_llm=True,
    ),
    # --- CoNLI (paper 001) ---
    _method(
        "conli",
        f"{_M}.conli:conli",
        "CoNLI: sentence-level then entity-level chain-of-thought NLI against the whole reference; rewrite agent.",
        needs_llm=True,
        mitigates=True,
    ),
    _stage(
        "extractor",
        "conli_hypotheses",
        f"{_S}.conli_nli:HypothesisSelector",
        "CoNLI split and select: answer sentences, noise purged except in short answers.",
    ),
    _stage(
        "retriever",
        "whole_reference",
        f"{_S}.evidence:WholeReferenceRetriever",
        "The whole reference is the premise of every claim.",
    ),
    _stage(
        "verifier",
        "conli_nli",
        f"{_S}.conli_nli:ConliNLIVerifier",
        "CoNLI hierarchical CoT NLI ([C]/[I]), batched hypotheses, entity-level pass.",
        needs_llm=True,
    ),
    _stage(
        "mitigator",
        "conli_rewrite",
        f"{_S}.conli_rewrite:ConliRewriteMitigator",
        "CoNLI mitigation agent: rewrite flagged sentences from the detection reasons; others kept verbatim.",
        needs_llm=True,
    ),
    # --- triplet verification (thesis 004) ---
    _method(
        "triplet",
        f"{_M}.triplet:triplet",
        "Triplets (Osmanaj 2025): LLM triplets of answer and reference; all answer triplets checked against all reference triplets in one request (detail+CoT prompt).",
        needs_llm=True,
    ),
    _method(
        "triplet_single",
        f"{_M}.triplet:triplet_single",
        "Triplets baseline (RefChecker style, Osmanaj 2025): LLM answer triplets, each checked in its own request against the reference text.",
        needs_llm=True,
    ),
    _stage(
        "extractor",
        "triplets",
        f"{_S}.triplets:TripletExtractor",
        "LLM (arg1, relation, arg2) triplets of the answer.",
        needs_llm=True,
    ),
    _stage(
        "retriever",
        "reference_triplets",
        f"{_S}.triplets:TripletRetriever",
        "LLM triplets of the reference (cached per reference), all given to every claim.",
        needs_llm=True,
    ),
    _stage(
        "verifier",
        "triplet_set",
        f"{_S}.triplets:BatchedTripletVerifier",
        "All answer triplets vs all reference triplets in one LLM request.",
        needs_llm=True,
    ),
    _stage(
        "verifier",
        "triplet_single",
        f"{_S}.triplets:SingleTripletVerifier",
        "One LLM request per answer triplet with the reference text (RefChecker).",
        needs_llm=True,
    ),
    # --- DRAD (paper 003) ---
    # Generation recipes (kind "generator"): they answer a question from a corpus instead of
    # checking a given answer, so they are not detection methods. RHD's detection-only mode
    # (hallucheck.generation.rhd.RHDDetector.detect) needs token log-probabilities, which the
    # (answer, reference) Verifier interface does not carry, so it is not registered as a verifier.
    *(
        _stage("generator", name, f"hallucheck.generation:{name}", summary, needs_llm=True)
        for name, summary in (
            (
                "drad",
                "DRAD: RHD flags uncertain entities while generating; SEK retrieves with their context and regenerates.",
            ),
            ("nor", "DRAD baseline NOR: generation without retrieval."),
            ("srr", "DRAD baseline SRR: retrieve once with the question, then generate."),
            ("flr", "DRAD baseline FLR: retrieve before every sentence with the last generated sentence."),
            ("tpr", "DRAD baseline TPR (FLARE): regenerate a sentence with a token below the probability threshold."),
        )
    ),
)
