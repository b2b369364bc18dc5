"""Names in the reference: each sentence's named entities (tagged once per sentence) and the rule
``name_role``: a name the claim puts where the sentence it restates names another entity of its type.
"""

from __future__ import annotations

import math
import re
from typing import Any, Sequence

from ...text.segment import Span
from .clauses import clause_lists, stem, stems

_NAME_WINDOW = 3  # a name's role: the few words right beside it
_NAME_FAMILY = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT"})


def entities(ref: Any, i: int, model: str, labels: frozenset[str]) -> list[tuple[str, Span]]:
    """Named entities of reference sentence ``i`` as (label, span in the reference), computed once."""
    key = (i, model)
    if key not in ref._ents:
        from ...models.ner import extract_entities

        s = ref.sentences[i]
        ref._ents[key] = [
            (e.label, Span(s.start + e.start, s.start + e.end, e.text))
            for e in extract_entities(s.text, model=model, labels=labels)
        ]
    return ref._ents[key]


def check_name(
    ref: Any, claim: str, start: int, end: int, label: str, model: str, labels: frozenset[str]
) -> tuple[Span, Span] | None:
    """(the entity, its sentence) that stands in the reference where ``claim`` puts the name
    ``claim[start:end]``, when that is another ``label`` entity: the reference sentence saying
    most of the rest of the claim names, in the same role (the same words around it in its
    clause), another entity and not this one ("Borealis GmbH is the supplier" where the
    reference says "Acme Ltd is the supplier and Borealis GmbH is the buyer"); else None."""
    name = claim[start:end]
    name_words = stems(name)
    i, share = closest_sentence(stems(claim), ref, exclude=list(name_words))
    if i < 0 or share < 0.6:
        return None
    role_before, role_after = (set(x) for x in clause_lists(claim, start, end, window=_NAME_WINDOW))
    sent = ref.sentences[i]
    # the small NER tags a company a person as often as not: one family for proper names
    # a nationality or group ("Canadian singer The Weeknd") stands in no other name's role, nor they in its
    family = (_NAME_FAMILY - {"NORP"}) if label in _NAME_FAMILY - {"NORP"} else {label}
    ents = [sp for lab, sp in ref.entities(i, model, labels) if lab in family]

    def fit(sp: Span) -> int:
        # the same words on the same side: "<X> is the supplier" against "<Acme Ltd> is the supplier"
        before, after = clause_lists(sent.text, sp.start - sent.start, sp.end - sent.start, window=_NAME_WINDOW)
        return len(role_before & set(before)) + len(role_after & set(after))

    # where the sentence itself names it (by its text: the NER may not tag it there)
    own = [
        Span(sent.start + m.start(), sent.start + m.end(), m.group())
        for m in re.finditer(re.escape(name.strip(" .,")), sent.text, re.IGNORECASE)
    ]
    others = [sp for sp in ents if not stems(sp.text) & stems(claim) and not _overlap(sp, own)]
    if not own:
        # the name is not in that sentence (it may say it otherwise: "GOP" for "Republican"): only an
        # entity of the very same type in the very same role, on two words, stands against it
        others = [sp for sp in others if (label, sp) in {(lab, s) for lab, s in ref.entities(i, model, labels)}]
    if not others:
        return None
    best = max(others, key=fit)
    # contradicted only when another holds its role there, more closely than the name itself does
    if fit(best) >= (1 if own else 2) and fit(best) > max((fit(sp) for sp in own), default=0):
        return best, sent
    return None


def _overlap(sp: Span, spans: Sequence[Span]) -> bool:
    return any(sp.start < o.end and o.start < sp.end for o in spans)


def closest_sentence(claim_words: set[str], ref: Any, exclude: Sequence[str] = ()) -> tuple[int, float]:
    """(index, share of the claim's content words it has) of the reference sentence sharing most of
    ``claim_words`` (stemmed), IDF-weighted; ``exclude``: words left out (the name being checked)."""
    want = claim_words - {stem(w) for w in exclude}
    if not want:
        return -1, 0.0
    best, best_score = -1, 0.0
    for i, bag in enumerate(ref.bags):
        score = math.fsum(ref.idf.get(w, 0.0) for w in want & bag)  # exact: a set's order follows string hashing
        if score > best_score:
            best, best_score = i, score
    if best < 0:
        return -1, 0.0
    return best, len(want & ref.bags[best]) / len(want)
