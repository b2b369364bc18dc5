"""CoNLI detection agent (Lei et al. 2023, paper 001, §3.1, Algorithm 1, Appendices B and D).

Three stages:

- :class:`HypothesisSelector` (split and select): the answer's sentences become hypotheses;
  sentences with no factual content are purged, except in short answers (see its docstring).
- :class:`WholeReferenceRetriever`: the premise is the whole reference, not retrieved pieces.
- :class:`ConliNLIVerifier`: sentence-level chain-of-thought NLI with the Appendix D prompt
  (system instruction, both few-shot examples, request) against the whole reference, several
  hypotheses per call (``batch_size``; 1 is the paper's benchmark setting). Sentences judged
  ``[C]`` then get entity-level detection: spaCy NER restricted to the nine Appendix B
  categories, one hypothesis per entity with the entity tagged ``[ entity ]``; any ``[I]``
  makes the sentence hallucinated, with the entity reasons.

Parsing is strict about what it accepts and tolerant about layout: items are found by their
``(k).`` number (``k.``, ``k)``, 1-based numbering and bullets are accepted; without usable
numbers, items are matched to hypotheses by their echoed text). A hypothesis whose judgement
is missing (skipped, or cut off by a truncated reply) is asked again once, alone with the other
missing ones; if it is still missing the verdict is ``Verdict.failed`` with the raw replies.

Scores. ``score`` is the probability that the claim is hallucinated. With a backend that gives
log-probabilities (``llm.supports_logprobs``), after the model has written its reasoning for a
hypothesis, the label letter is scored: ``llm.score_labels(messages, ["C", "I"],
prefix=<reply up to the label's bracket>)`` and ``score = P([I])`` renormalised over the two;
the claim is flagged when ``score >= threshold`` (0.5 = the more likely letter; the letter the
model wrote is kept in ``meta["text_label"]``). Without log-probabilities the score is 1.0 for
``[I]`` and 0.0 for ``[C]``. A sentence's score is the largest of its sentence-level and
entity-level scores (it is hallucinated if any of them says so).

Entity categories (Appendix B; the paper used Azure Text Analytics, we use spaCy's OntoNotes
labels from the embedded ``en_core_web_sm``):

=====================  ====================================================================
CoNLI category          spaCy labels
=====================  ====================================================================
PERSON                  PERSON
PERSONTYPE              none: spaCy has no job/role label, so this category is not detected
LOCATION                GPE, LOC, FAC
EVENT                   EVENT
SKILL                   none: spaCy has no skill label, so this category is not detected
DATETIME-DATERANGE      DATE (or TIME) whose text is a range: "1844–1846", "from 2010 to
                        2015", "between May and June", "the 1990s", "the 19th century",
                        "the past decade", "last week"
DATETIME-DURATION       DATE or TIME whose text is a length of time: "two years", "30
                        minutes", "a decade" (not "two years ago", "5 years old", "later")
QUANTITY-NUMBER         CARDINAL
QUANTITY-CURRENCY       MONEY
=====================  ====================================================================

The paper deliberately left out plain dates, organisations, percentages and ordinals (Text
Analytics' Date, Organization, Percentage, Ordinal): so do we. ``entity_categories`` takes any
of the nine names and also raw spaCy labels ("ORG", "DATE", ...) to widen the net.
"""

from __future__ import annotations

from ..evidence import WholeReferenceRetriever
from .entities import (
    CONLI_CATEGORIES,
    SPACY_LABELS,
    SPACY_TO_CONLI,
    TaggedEntity,
    conli_category,
    date_category,
    select_entities,
    tag_entity,
)
from .parse import ParsedItem, match_items, nli_kind, parse_items
from .select import HypothesisSelector
from .verify import ConliNLIVerifier, Judged

__all__ = [
    "SPACY_LABELS",
    "Judged",
    "ParsedItem",
    "TaggedEntity",
    "nli_kind",
    "CONLI_CATEGORIES",
    "SPACY_TO_CONLI",
    "ConliNLIVerifier",
    "HypothesisSelector",
    "WholeReferenceRetriever",
    "conli_category",
    "date_category",
    "match_items",
    "parse_items",
    "select_entities",
    "tag_entity",
]
