"""hallucheck's own deterministic checks (no LLM)."""

from __future__ import annotations

from typing import Sequence

from ..llm.base import LLMClient
from ..pipeline import Pipeline
from ..stages.claims import SentenceExtractor
from ..stages.entity_check import EntityCheckVerifier
from ..stages.evidence import AllSentencesRetriever


def entity_check(
    *,
    llm: LLMClient | None = None,
    check_numbers: bool = True,
    check_entities: bool = True,
    check_meaning: bool = True,
    rules_off: Sequence[str] | str | None = None,
) -> Pipeline:
    """The gate alone; ``rules_off``: its rules switched off by name (None: the default set, ``[]`` or
    ``""``: every rule on; ``hallucheck.stages.gate.RULES``)."""
    return Pipeline(
        name="entity_check",
        extractor=SentenceExtractor(),
        retriever=AllSentencesRetriever(),
        verifier=EntityCheckVerifier(
            check_numbers=check_numbers, check_entities=check_entities, check_meaning=check_meaning, rules_off=rules_off
        ),
        llm=llm,
    )
