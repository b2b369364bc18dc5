"""Registers hallucheck's own components and methods (lazily: nothing heavy is imported)."""

from .registry import register

_M = "hallucheck.methods"
_S = "hallucheck.stages"

# methods: (name, target, needs_llm, summary)
METHODS = [
    (
        "sim_cosine",
        f"{_M}.delucionqa:sim_cosine",
        False,
        "DelucionQA SIM-COSINE: a sentence is unsupported if no reference sentence has MiniLM cosine > t1 (0.6).",
    ),
    (
        "sim_overlap",
        f"{_M}.delucionqa:sim_overlap",
        False,
        "DelucionQA SIM-OVERLAP: word-overlap ratio (DP alignment of long shared phrases) with any reference sentence <= t2 (0.1).",
    ),
    (
        "sim_hybrid",
        f"{_M}.delucionqa:sim_hybrid",
        False,
        "DelucionQA SIM-HYBRID: unsupported if both cosine <= t1 (0.1) and overlap <= t2 (0.9).",
    ),
    (
        "keyword_match",
        f"{_M}.delucionqa:keyword_match",
        True,
        "DelucionQA KEYWORD-MATCH: LLM-extracted keywords missing from the reference; hallucinated if share > t3 (0.2).",
    ),
    (
        "entity_check",
        f"{_M}.checks:entity_check",
        False,
        "Deterministic: a sentence whose numbers, dates or names do not occur in the reference is unsupported.",
    ),
]


def _methods(entries: list[tuple[str, str, bool, str]]) -> None:
    for name, target, needs_llm, summary in entries:
        register("method", name, target, summary=summary)
        if needs_llm:
            NEEDS_LLM.add(name)


NEEDS_LLM: set[str] = set()
_methods(METHODS)

_methods(
    [
        (
            "cascade",
            f"{_M}.cascade:cascade",
            True,
            "hallucheck's low-cost LLM method: numbers/names gate, then a short calibrated LLM NLI call per remaining sentence.",
        ),
    ]
)
# --- trained verifier (ours) ---
_methods(
    [
        (
            "ce_cascade",
            f"{_M}.trained:ce_cascade",
            True,
            "hallucheck's default: numbers/names gate, trained cross-encoder verifier, LLM judge only where the verifier is unsure "
            "(--llm none: no LLM call).",
        ),
        (
            "cross_encoder",
            f"{_M}.trained:cross_encoder",
            False,
            "hallucheck's trained cross-encoder verifier alone (or any NLI/HHEM/MiniCheck-style checkpoint), no LLM.",
        ),
    ]
)
# methods that use an LLM when they have one and run without (``llm="none"``, ``--llm none``)
OPTIONAL_LLM: set[str] = {"ce_cascade"}
register(
    "verifier",
    "cross_encoder",
    f"{_S}.cross_encoder:CrossEncoderVerifier",
    summary="Trained (evidence, claim) cross-encoder: P(unsupported) against the top-k reference sentences.",
)
register(
    "verifier",
    "ce_cascade",
    f"{_S}.cross_encoder:CECascadeVerifier",
    summary="Entity gate, trained cross-encoder, LLM judge inside the uncertainty band only.",
)
register(
    "retriever",
    "lexical_topk",
    f"{_S}.evidence:LexicalRetriever",
    summary="Top-k reference sentences by IDF-weighted word overlap (the trained verifier's premise).",
)
# --- end trained verifier ---
register(
    "verifier", "cascade", f"{_S}.cascade:CascadeVerifier", summary="Entity/number gate, then a compact LLM NLI judge."
)
register(
    "retriever",
    "compact",
    f"{_S}.evidence:CompactRetriever",
    summary="Whole reference if short, else top-k sentences by cosine (in reference order).",
)
register("extractor", "sentences", f"{_S}.claims:SentenceExtractor", summary="Each answer sentence is a claim.")
register("retriever", "all_sentences", f"{_S}.evidence:AllSentencesRetriever", summary="All reference sentences.")
register(
    "retriever", "embedding_topk", f"{_S}.evidence:EmbeddingRetriever", summary="Top-k reference sentences by cosine."
)
register("verifier", "similarity", f"{_S}.similarity:SimilarityVerifier", summary="DelucionQA cosine/overlap/hybrid.")
register("verifier", "keyword_match", f"{_S}.keyword:KeywordVerifier", summary="DelucionQA keyword match.")
register(
    "verifier",
    "entity_check",
    f"{_S}.entity_check:EntityCheckVerifier",
    summary="Numbers, dates, names in the reference.",
)

# --- HSP + prompt baselines (paper 000): registrations below ---
_methods(
    [
        (
            "hsp",
            f"{_M}.hsp:hsp",
            True,
            "HSP: sentence- and entity-level semantic pieces of answer and reference, top-k evidence, 3-way LLM NLI; piece repair.",
        ),
        (
            "prompt",
            f"{_M}.prompt:prompt",
            True,
            "HSP paper's prompt baseline: one few-shot NLI call on the whole answer (A.4); whole-answer rewrite (A.5).",
        ),
    ]
)
register(
    "extractor",
    "hsp_pieces",
    f"{_S}.hsp_pieces:HierarchicalPieceExtractor",
    summary="HSP semantic pieces: LLM sentence decomposition + schema entities.",
)
register("extractor", "nli_whole_answer", f"{_S}.nli:WholeAnswerExtractor", summary="The whole answer is one claim.")
register(
    "retriever",
    "hsp_evidence",
    f"{_S}.hsp_pieces:PieceRetriever",
    summary="Top-k reference pieces of the same level (embedding, fuzzy or BM25); exact entity matches.",
)
register("verifier", "nli_llm", f"{_S}.nli:LLMNLIVerifier", summary="3-way LLM NLI (Entailment/Neutral/Contradiction).")
register(
    "mitigator",
    "piece_repair",
    f"{_S}.piece_repair:PieceRepairMitigator",
    summary="HSP: repair each flagged piece's sentence.",
)
register(
    "mitigator",
    "prompt_rewrite",
    f"{_S}.piece_repair:PromptRewriteMitigator",
    summary="Rewrite the whole answer (A.5).",
)
# --- end HSP ---

# --- CoNLI (paper 001): registrations below ---
_methods(
    [
        (
            "conli",
            f"{_M}.conli:conli",
            True,
            "CoNLI: sentence-level then entity-level chain-of-thought NLI against the whole reference; rewrite agent.",
        ),
    ]
)
register(
    "extractor",
    "conli_hypotheses",
    f"{_S}.conli_nli:HypothesisSelector",
    summary="CoNLI split and select: answer sentences, noise purged except in short answers.",
)
register(
    "retriever",
    "whole_reference",
    f"{_S}.evidence:WholeReferenceRetriever",
    summary="The whole reference is the premise of every claim.",
)
register(
    "verifier",
    "conli_nli",
    f"{_S}.conli_nli:ConliNLIVerifier",
    summary="CoNLI hierarchical CoT NLI ([C]/[I]), batched hypotheses, entity-level pass.",
)
register(
    "mitigator",
    "conli_rewrite",
    f"{_S}.conli_rewrite:ConliRewriteMitigator",
    summary="CoNLI mitigation agent: rewrite flagged sentences from the detection reasons; others kept verbatim.",
)
# --- end CoNLI ---

# --- triplet verification (thesis 004): registrations below ---
_methods(
    [
        (
            "triplet",
            f"{_M}.triplet:triplet",
            True,
            "Thesis 004: LLM triplets of answer and reference; all answer triplets checked against all reference triplets in one request (detail+CoT prompt).",
        ),
        (
            "triplet_single",
            f"{_M}.triplet:triplet_single",
            True,
            "Thesis 004 baseline (RefChecker style): LLM answer triplets, each checked in its own request against the reference text.",
        ),
    ]
)
register(
    "extractor",
    "triplets",
    f"{_S}.triplets:TripletExtractor",
    summary="LLM (arg1, relation, arg2) triplets of the answer.",
)
register(
    "retriever",
    "reference_triplets",
    f"{_S}.triplets:TripletRetriever",
    summary="LLM triplets of the reference (cached per reference), all given to every claim.",
)
register(
    "verifier",
    "triplet_set",
    f"{_S}.triplets:BatchedTripletVerifier",
    summary="All answer triplets vs all reference triplets in one LLM request.",
)
register(
    "verifier",
    "triplet_single",
    f"{_S}.triplets:SingleTripletVerifier",
    summary="One LLM request per answer triplet with the reference text (RefChecker).",
)
# --- end triplet ---

# --- DRAD (paper 003) ---
# Generation recipes (kind "generator"): they answer a question from a corpus instead of
# checking a given answer, so they are not detection methods.
for _name, _summary in (
    ("drad", "DRAD: RHD flags uncertain entities while generating; SEK retrieves with their context and regenerates."),
    ("nor", "DRAD baseline NOR: generation without retrieval."),
    ("srr", "DRAD baseline SRR: retrieve once with the question, then generate."),
    ("flr", "DRAD baseline FLR: retrieve before every sentence with the last generated sentence."),
    ("tpr", "DRAD baseline TPR (FLARE): regenerate a sentence with a token below the probability threshold."),
):
    register("generator", _name, f"hallucheck.generation:{_name}", summary=_summary)
# RHD's detection-only mode (hallucheck.generation.rhd.RHDDetector.detect) needs token
# log-probabilities, which the (answer, reference) Verifier interface does not carry, so it
# is not registered as a verifier.
# --- end DRAD ---
