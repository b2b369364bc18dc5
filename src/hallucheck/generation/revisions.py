"""The check of a revision against the passages retrieved for it (``check_revisions``): a
revision that brings a name, date or number the passages do not support is not kept."""

from __future__ import annotations

from typing import Sequence

from ..corpus import Passage
from .rhd import RHDDetector


def unsupported_facts(
    rhd: RHDDetector,
    text: str,
    cut: int,
    end: int,
    passages: Sequence[Passage],
    question: str,
    sentence_start: int | None = None,
) -> list[str]:
    """The names, dates and numbers of the revision ``text[cut:end]`` that the passages do
    not support (entity_check's test: numbers by value, names by their words).

    A fact is supported when the question or ``text[:cut]`` already holds it, or when a
    passage holds it together with one of the names of the same sentence outside the
    revision (if it has any): "built in 1689" about the Grey Needle is not supported by a
    passage saying that a church was built in 1689."""
    from ..stages.entity_check import NER_LABELS, NUMBER, EntityCheckVerifier, content_words, number_values

    if not text[cut:end].strip():
        return []
    supported_by = EntityCheckVerifier.supported_by
    s0 = cut if sentence_start is None else sentence_start
    found = [e for e in rhd.entities(text[:end]) if e.label in NER_LABELS]
    ents = [e for e in found if e.end > cut and e.start < end]
    others = [e.text for e in found if e.start >= s0 and e.end <= cut]  # the sentence's names before the revision
    facts = [e.text for e in ents]
    facts += [m.group() for m in NUMBER.finditer(text, cut, end) if not any(e.start <= m.start() < e.end for e in ents)]
    prior = question + "\n" + text[:cut]
    prior_nw = (number_values(prior), set(content_words(prior)))
    texts = [f"{p.title or ''}: {p.text}" for p in passages]
    passage_nw = [(number_values(t), set(content_words(t))) for t in texts]
    missing: list[str] = []
    for f in facts:
        if f in missing or supported_by(f, *prior_nw):
            continue
        holders = [nw for nw in passage_nw if supported_by(f, *nw)]
        if not any(not others or any(supported_by(o, *nw) for o in others) for nw in holders):
            missing.append(f)
    return missing


__all__ = ["unsupported_facts"]
