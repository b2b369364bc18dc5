"""HSP's hierarchical semantic extractor and evidence matching (paper 000: Figs. 2-4, Appendices A.1, D).

The same extractor parses the answer and the reference (the paper's output and reference
parsers are one module). It yields two levels of *semantic pieces*:

- **Sentence-level** (``level="sent"``, claim kind ``"piece"``): each sentence is broken into
  independent facts by the LLM with the Appendix A.1 prompt (``hsp_decompose.v1``), one call
  per sentence (``unit="sentence"``, default: the prompt speaks of "the user input sentence",
  and each piece then carries the offsets of the sentence it was decomposed from exactly). With
  ``unit="text"`` the whole text is decomposed in one call and each piece is mapped back to its
  sentence with :func:`hallucheck.text.align` (or, when the piece is reworded, to the sentence
  with the highest token-set similarity). Replies are parsed robustly (bullets, numbering,
  "Fact 1:" labels, preambles, echoed headers and a cut-off last line are removed; "None" means
  no facts). A reply with no usable line -- or, for the first prompt, one that lists fragments
  rather than facts (most lines under three words, or a line continuing the previous one in
  lower case: small models often answer "Python
Guido van Rossum
1991") -- is asked again
  once with a stricter, one-shot version of the prompt (``hsp_decompose_fewshot.v1``), whose
  reply is then taken as it parses (and if it gives nothing, the first reply read leniently).
- **Entity-level** (``level="ent"``, claim kind ``"entity"``): named entities of the four types
  of Appendix D's schema, each joined with its sentence into a piece written as in Appendix B,
  ``... [1994 (Type: Time)] ...``. The paper used ERNIE-UIE with the schema; offline we use
  spaCy NER and map its labels onto the schema (:data:`SPACY_TO_SCHEMA`):

  ========================================== ============== ==================================
  spaCy labels                               schema type    why
  ========================================== ============== ==================================
  DATE, TIME                                 Time           dates, years, durations, times
  CARDINAL, QUANTITY, MONEY, PERCENT, ORDINAL Number         counts, amounts, prices, rates,
                                                            measures; "first" is a number too
  GPE, LOC, FAC                              Location       countries, cities, regions,
                                                            buildings, landmarks
  PERSON, ORG, NORP                          Personal Info  names (the paper's own example
                                                            types the company "Bauer" as a
                                                            Name), employers and schools
                                                            (ORG), nationality / affiliation
                                                            (NORP)
  ========================================== ============== ==================================

  EVENT, PRODUCT, WORK_OF_ART, LAW and LANGUAGE are outside the schema and are not extracted.

**Invented pieces**: a piece most of whose content words do not occur in the decomposed text
is dropped (``min_overlap``, default 0.5; see :func:`grounded_share`): a decomposition restates
its sentence, so such a piece is the decomposer's own hallucination, which would otherwise be
checked -- and flagged -- as if the answer had said it.

**Filtering** (paper: "we filter the original sentence using sentence-level semantic pieces to
remove irrelevant information before entity-level extraction"): when both levels are on,
entity pieces come only from sentences that yielded at least one sentence-level piece (a
sentence the LLM finds no fact in -- a greeting, a heading -- is dropped), and only for
entities that the sentence's pieces mention (case-insensitive). With ``levels="ent"`` nothing
is decomposed and nothing is filtered: no LLM call is made for extraction at all (the paper's
entity-only ablation has a TER of 0.1-0.3).

**Failures**: when an *answer* sentence's decomposition still does not parse after the repair
round, the extractor emits one claim for that sentence with ``meta["error"]`` and the raw
replies: the verifier turns it into an error verdict. A *reference* sentence that does not
parse is used whole as its own piece (evidence ``meta["fallback"]``), since the reference
sentence itself is true evidence.

**Efficiency**: decompositions are kept in an LRU per extractor keyed by (sentence or text,
model id, prompt versions, token budget) and entities in an LRU keyed by (text, spaCy model),
so a reference shared by many answers is decomposed once per run, and re-checking a mitigated
answer only decomposes the sentences that changed. LLM usage is counted by the client.

:class:`PieceRetriever` is HSP's evidence matching (Eq. 5): for each answer piece the top-``k``
reference pieces of the same level by similarity -- MiniLM embedding cosine (default),
rapidfuzz Levenshtein ratio (``"fuzzy"``) or Okapi BM25 (``"bm25"``). For an entity piece the
candidates are the reference sentences holding an entity of the same type (any entity piece
when there is none), one per sentence; an entity whose (type, value) also occurs among the
reference's entity pieces (case, whitespace and a leading "the" aside) is an exact match, put first in the
evidence with ``meta["exact_match"]``, which the NLI verifier takes as entailment without an
LLM call. When the reference has no piece of the claim's level, all its pieces are the
candidates (and its sentences, if it has no pieces at all).
"""

from __future__ import annotations

from ...text.bm25 import bm25_scores
from .extract import Decomposition, HierarchicalPieceExtractor, Piece, assign_sentence, entity_key
from .parse import ENTITY_SCHEMA, ENTITY_TYPES, LEVELS, MATCHERS, SPACY_TO_SCHEMA, UNITS, grounded_share, parse_pieces
from .retrieve import PieceRetriever

__all__ = [
    "ENTITY_SCHEMA",
    "ENTITY_TYPES",
    "LEVELS",
    "MATCHERS",
    "SPACY_TO_SCHEMA",
    "UNITS",
    "Decomposition",
    "HierarchicalPieceExtractor",
    "Piece",
    "PieceRetriever",
    "assign_sentence",
    "bm25_scores",
    "entity_key",
    "grounded_share",
    "parse_pieces",
]
