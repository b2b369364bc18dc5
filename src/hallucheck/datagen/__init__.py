"""Hallucinated data generator (thesis 004, §4.4-4.5, Appendix A.2; see docs/references.md).

From a (question, reference) pair the LLM writes, in one schema-constrained JSON reply, a
faithful ("non-hallucinated") answer, a hallucinated answer that repeats it except for subtle
hallucinations of one chosen type, and a list of the hallucinated details (Appendix A.2.1). The
types are the thesis' three (§4.5):

- ``absolute_fabrication``: entirely new, unsupported information close to the context;
- ``contextual_fabrication``: related details that subtly misrepresent the reference;
- ``detailed_information_modification``: small changes to numbers, dates or attributes.

Both answers are decomposed into triplets with the triplet extractor (§3.2), and the
hallucinated answer's triplets are labelled (§4.4 step 3): a triplet is hallucinated when it
states a detail -- a content word or a number -- that occurs neither in the faithful answer nor
in the faithful answer's triplets (light stemming: "regulates" = "regulated"). So a triplet that
also holds for the faithful answer is never labelled; a triplet only the hallucinated answer
has is. With ``confirm_with_llm=True`` the thesis' Appendix A.2.2 prompt also judges each
triplet and a triplet is labelled only when both agree (fewer false labels from extraction
noise; never more labels). A row is labelled hallucinated only when this check finds at least one
hallucinated triplet: otherwise the sample is generated once more, and if that one has none either
the (row, type) is dropped; the report counts both (``regenerated``, ``dropped``).

Each output row follows the shared JSONL schema (``id, dataset, task, question, reference,
answer, label, meta``) with ``answer`` = the hallucinated answer, ``label`` = 1, and the triplet
labels, faithful answer and description in ``meta``. Rows are appended to the output file as
they are produced, and a rerun skips ids already there (resume).

Deviations from the thesis: the A.2.1 prompt asks to highlight hallucinated details in the
text; ours asks not to (an answer with marked hallucinations is not a detection example) and
takes the details from the separate list. The A.2.1 prompt has no type parameter; ours adds the
chosen type with the §4.5 definition and example. The A.2.2 prompt asks for two boolean lists
(with and without comments); ours asks for one list of (comment, boolean) entries whose length
the schema fixes. The generator receives the reference text, not reference triplets (A.2.1's
input is the reference document).
"""

from __future__ import annotations

from .command import generate_from_file, read_input_rows
from .labels import detail_words, label_schema, label_triplets, llm_labels, novel_details, parse_llm_labels
from .rows import GenerationReport, Unconfirmed, generate_dataset, generate_rows, read_ids
from .sample import (
    GENERATE_PROMPT,
    GENERATION_SCHEMA,
    HALLUCINATION_TYPES,
    LABEL_PROMPT,
    TYPE_TITLES,
    HallucinatedSample,
    generate_sample,
    normalise_types,
    parse_sample,
    type_definition,
)

__all__ = [
    "GENERATE_PROMPT",
    "LABEL_PROMPT",
    "TYPE_TITLES",
    "label_schema",
    "type_definition",
    "GENERATION_SCHEMA",
    "HALLUCINATION_TYPES",
    "GenerationReport",
    "Unconfirmed",
    "HallucinatedSample",
    "detail_words",
    "generate_dataset",
    "generate_from_file",
    "generate_rows",
    "generate_sample",
    "label_triplets",
    "llm_labels",
    "normalise_types",
    "novel_details",
    "parse_llm_labels",
    "parse_sample",
    "read_ids",
    "read_input_rows",
]
