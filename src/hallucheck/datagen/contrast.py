"""Rule-made contrast pairs for errors of meaning (issue 33): from the sentences of a reference, pairs of
an unsupported sentence and its supported twin, both about one reference sentence.

Kinds (:data:`KINDS`), each one rule (:mod:`.contrast_rules`, :mod:`.contrast_clauses`,
:mod:`.contrast_names`):

* ``negation``: a negation inserted or removed ("is" / "is not"; French, German, Spanish too);
* ``comparison_inverted``: a comparative for its opposite ("higher" / "lower", "more ... than" / "less
  ... than");
* ``direction_inverted``: a word of direction or order for its opposite ("before" / "after", "rose" /
  "fell", "above" / "below");
* ``quantifier_strengthened``: a hedged quantifier or modal made absolute ("usually" -> "always",
  "some of" -> "all of", "may" -> "will", "can" -> "must");
* ``condition_dropped``: a condition clause dropped, the main clause kept ("When the vehicle is fully
  loaded, increase ..." -> "Increase ...");
* ``role_swap``: two named parties of one sentence exchanged (the project's NER, see
  :mod:`.contrast_names`);
* ``attribution_changed``: the speaker of "X said" / "according to X" replaced with another named party
  of the same reference;
* ``invented_clause``: a clause made from a sentence of *another* reference appended to the sentence
  ("A, and B'"): fluent, and what the reference does not hold.

Every pair has twins: the sentence itself, and where it is cheap a rewording that keeps its meaning
(:mod:`.contrast_twins`: a synonym of a word no rule touched, a time adverbial moved; for a dropped
condition the condition moved to the other end; for an invented clause the sentence joined the same way
to another sentence of its own reference), so that "edited" does not mean "wrong". A pair is made only
when the rule applies and the changed sentence is not itself in the reference. Deterministic: the random
choices of a reference depend only on ``seed``, the dataset, the row id and the kind.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Sequence

from ..text.lang import UNDETERMINED, detect_language
from ..text.premise import content_words, select_evidence_indices
from ..text.segment import Span, split_sentences
from .contrast_base import Candidate, Change, apply_changes, diff_changes, norm
from .contrast_clauses import condition_clauses, moved_condition
from .contrast_join import fused, invented_clause
from .contrast_names import (
    Party,
    PartyFinder,
    attribution,
    capitalised_parties,
    default_party_finder,
    may_attribute,
    may_swap,
    role_swap,
    speakers,
)
from .contrast_rules import comparison, condition, direction, negation, quantifier
from .contrast_twins import moved_adverbial_twins, synonym_twins

KINDS = (
    "negation",
    "comparison_inverted",
    "direction_inverted",
    "quantifier_strengthened",
    "condition_dropped",
    "role_swap",
    "attribution_changed",
    "invented_clause",
)
LANGUAGES = ("en", "fr", "de", "es")
ENGLISH_ONLY = frozenset({"role_swap", "attribution_changed", "invented_clause"})
_WORD_RULES = {
    "negation": negation,
    "comparison_inverted": comparison,
    "direction_inverted": direction,
    "quantifier_strengthened": quantifier,
    "condition_dropped": condition,
}
USABLE_WORDS = (5, 60)  # words of a reference sentence a pair is made from
MAX_NER_SENTENCES = 4  # sentences per reference and kind whose parties are looked up
_LANG_SAMPLE = 600  # characters of a reference its language is told from


@dataclass(frozen=True)
class Twin:
    """A supported text about the pair's sentence: ``how`` = ``copy`` (the sentence itself), ``synonym``,
    ``moved_adverbial``, ``moved_condition`` or ``fused`` (joined to reference sentences ``also``)."""

    text: str
    how: str
    changes: tuple[Change, ...] = ()
    also: tuple[int, ...] = ()

    def to_dict(self) -> dict:
        return {
            "text": self.text,
            "how": self.how,
            "changes": [c.to_dict() for c in self.changes],
            "also": list(self.also),
        }


@dataclass(frozen=True)
class ContrastPair:
    """One contrast pair; ``changes`` turn ``sentence`` into ``unsupported`` (offsets into the sentence;
    the sentence is ``reference[sentence_start:sentence_end]``, sentence ``sentence_index`` of it)."""

    id: str
    kind: str
    lang: str
    dataset: str
    row_id: str
    sentence: str
    sentence_index: int
    sentence_start: int
    sentence_end: int
    unsupported: str
    changes: tuple[Change, ...]
    twins: tuple[Twin, ...] = field(default_factory=tuple)

    @property
    def twin(self) -> str:
        """The most reworded twin (the sentence itself when there is no rewording)."""
        return self.twins[-1].text if self.twins else self.sentence

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__ if k not in ("changes", "twins")}
        d["changes"] = [c.to_dict() for c in self.changes]
        d["twins"] = [t.to_dict() for t in self.twins]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "ContrastPair":
        twins = tuple(
            Twin(t["text"], t["how"], tuple(Change.from_dict(c) for c in t["changes"]), tuple(t.get("also", ())))
            for t in d["twins"]
        )
        plain = {k: d[k] for k in cls.__dataclass_fields__ if k not in ("changes", "twins")}
        return cls(**plain, changes=tuple(Change.from_dict(c) for c in d["changes"]), twins=twins)


def usable(text: str) -> bool:
    """A sentence a pair can be made from: one line of prose of 5 to 60 words, no question, no list or
    page furniture ("|", "»", links)."""
    n = len(text.split())
    if not USABLE_WORDS[0] <= n <= USABLE_WORDS[1] or "\n" in text or text.rstrip().endswith("?"):
        return False
    if re.search(r"[|»«{}<>]|https?:|www\.", text) or not re.match(r"[\"“‘(]?[A-ZÀ-Ý0-9]", text):
        return False
    letters = sum(c.isalpha() for c in text)
    return letters >= 0.6 * len(text)


class _Reference:
    """One reference, split once; the parties of its sentences looked up on demand and kept."""

    def __init__(self, reference: str, finder: PartyFinder | None) -> None:
        self.text = reference
        self.spans: list[Span] = split_sentences(reference)
        self.usable = [i for i, s in enumerate(self.spans) if usable(s.text)]
        self.norm = f" {norm(reference)} "
        self._finder = finder
        self._parties: dict[int, list[Party]] = {}
        self.words: set[str] | None = None  # content words, for invented clauses
        self._rest: dict[int, str] = {}

    def parties(self, i: int) -> list[Party]:
        if i not in self._parties:
            if self._finder is None:
                self._finder = default_party_finder()
            self._parties[i] = list(self._finder(self.spans[i].text))
        return self._parties[i]

    def looked_up(self) -> set[int]:
        return set(self._parties)

    def holds(self, text: str, besides: int) -> bool:
        """The reference has ``text`` word for word (case and punctuation aside) outside its sentence
        ``besides`` (a dropped condition leaves words of its own sentence: is it said elsewhere?)."""
        words = f" {norm(text)} "
        if words not in self.norm:
            return False
        span = self.spans[besides]
        rest = self._rest.get(besides)
        if rest is None:
            rest = self._rest[besides] = f" {norm(self.text[: span.start])} | {norm(self.text[span.end :])} "
        return words in rest


def contrast_pairs(
    reference: str,
    *,
    dataset: str = "",
    row_id: str = "",
    seed: int = 0,
    kinds: Sequence[str] = KINDS,
    per_kind: int = 1,
    foreign: Sequence[str] = (),
    parties: PartyFinder | None = None,
    lang: str | None = None,
) -> list[ContrastPair]:
    """Up to ``per_kind`` pairs of each of ``kinds`` from the sentences of ``reference``.

    ``foreign``: sentences of other references, for ``invented_clause``; ``parties``: the function
    that finds the named parties of a sentence (default: the project's NER, else capitalised words);
    ``lang``: the reference's language (detected when None; pairs are made in English, French, German
    and Spanish, the name rules and invented clauses in English only)."""
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise ValueError(f"unknown contrast kinds {unknown}; the kinds are {', '.join(KINDS)}")
    lang = lang or detect_language(reference[:_LANG_SAMPLE])
    lang = "en" if lang == UNDETERMINED else lang
    if lang not in LANGUAGES:
        return []
    ref = _Reference(reference, parties)
    out: list[ContrastPair] = []
    for kind in kinds:
        if kind in ENGLISH_ONLY and lang != "en":
            continue
        rng = random.Random(f"{seed}|{dataset}|{row_id}|{kind}")
        order = list(ref.usable)
        rng.shuffle(order)
        made, looked_up = 0, 0
        for i in order:
            if made >= per_kind or looked_up >= MAX_NER_SENTENCES:
                break
            sentence = ref.spans[i].text
            if kind in ("role_swap", "attribution_changed"):
                if not _may_name(kind, sentence):
                    continue
                looked_up += 1
            candidates = [c for c in _candidates(kind, i, ref, lang, rng, foreign) if _changes_meaning(c, i, ref)]
            if not candidates:
                continue
            chosen = rng.choice(candidates)
            out.append(_pair(kind, i, chosen, ref, lang, dataset, row_id, rng))
            made += 1
    return out


def _may_name(kind: str, sentence: str) -> bool:
    """Cheap look before NER (capitalised words as names): might the rule apply?"""
    return may_swap(sentence) if kind == "role_swap" else may_attribute(sentence)


def _candidates(kind: str, i: int, ref: _Reference, lang: str, rng: random.Random, foreign) -> list[Candidate]:
    sentence = ref.spans[i].text
    if kind in _WORD_RULES:
        return _WORD_RULES[kind](sentence, lang)
    if kind == "role_swap":
        return role_swap(sentence, ref.parties(i))
    if kind == "attribution_changed":
        others, speaking = _other_parties(i, ref, rng)
        return attribution(sentence, ref.parties(i), others, speaking)
    clause = _invented(sentence, ref, foreign, rng)
    return [clause] if clause else []


def _other_parties(i: int, ref: _Reference, rng: random.Random) -> tuple[list[Party], set[str]]:
    """Parties of other sentences of the reference (those already looked up, and up to
    MAX_NER_SENTENCES more with capitalised runs, sentences that quote someone first: other speakers are
    the likeliest to be mistaken for this one), and the texts of those that speak there."""
    others = [k for k in ref.usable if k != i and capitalised_parties(ref.spans[k].text)]
    rng.shuffle(others)
    others.sort(key=lambda k: not may_attribute(ref.spans[k].text))
    chosen = sorted(set(others[:MAX_NER_SENTENCES]) | (ref.looked_up() - {i}))
    parties = [p for k in chosen for p in ref.parties(k)]
    speaking = {p.text for k in chosen for p in speakers(ref.spans[k].text, ref.parties(k))}
    return parties, speaking


def _changes_meaning(candidate: Candidate, i: int, ref: _Reference) -> bool:
    sentence = ref.spans[i].text
    changed = apply_changes(sentence, candidate)
    return norm(changed) != norm(sentence) and not ref.holds(changed, besides=i)


def _invented(sentence: str, ref: _Reference, foreign: Sequence[str], rng: random.Random) -> Candidate | None:
    if ref.words is None:
        ref.words = set(content_words(ref.text))
    return invented_clause(sentence, ref.words, foreign, rng)


def _fused_twin(i: int, ref: _Reference, connector: str) -> Twin | None:
    """The sentence joined the same way to the next (else the previous) sentence of its reference."""
    sentence = ref.spans[i].text
    for k in (i + 1, i - 1):
        if 0 <= k < len(ref.spans) and k in ref.usable:
            text = fused(sentence, ref.spans[k].text, connector)
            if text is not None:
                return Twin(text, "fused", diff_changes(sentence, text), (k,))
    return None


# ---------------------------------------------------------------------------------------------- twins


def _pair(kind, i, chosen, ref, lang, dataset, row_id, rng) -> ContrastPair:
    span = ref.spans[i]
    sentence = span.text
    twins = [Twin(sentence, "copy")]
    preferred: Twin | None = None
    if kind == "condition_dropped":
        for c in condition_clauses(sentence, lang):
            dropped = c.start if not c.leading else 0
            if any(ch.start == dropped for ch in chosen):
                moved = moved_condition(sentence, c)
                if moved:
                    preferred = Twin(moved, "moved_condition", diff_changes(sentence, moved))
    elif kind == "invented_clause":
        connector = ", and " if chosen[0].after.startswith(", and ") else "; "
        preferred = _fused_twin(i, ref, connector)
    if preferred is None and lang == "en":
        protect = [(c.start - 1, c.end + 1) for c in chosen]
        options = moved_adverbial_twins(sentence) + synonym_twins(sentence, protect)
        varied = [o for o in options if " stated" not in o[0] and not o[0].startswith("Stated")]
        options = varied or options  # "said" -> "stated" would be most twins of news
        if options:
            text, how = rng.choice(options)
            preferred = Twin(text, how, diff_changes(sentence, text))
    if preferred is not None and norm(preferred.text) != norm(sentence):
        twins.append(preferred)
    return ContrastPair(
        id=f"{row_id}:s{i}:{kind}",
        kind=kind,
        lang=lang,
        dataset=dataset,
        row_id=row_id,
        sentence=sentence,
        sentence_index=i,
        sentence_start=span.start,
        sentence_end=span.end,
        unsupported=apply_changes(sentence, chosen),
        changes=tuple(sorted(chosen, key=lambda c: c.start)),
        twins=tuple(twins),
    )


# ---------------------------------------------------------------------------------------------- rows


def pairs_from_rows(
    rows: Iterable[dict],
    *,
    seed: int = 0,
    kinds: Sequence[str] = KINDS,
    per_kind: int = 1,
    parties: PartyFinder | None = None,
    foreign_references: int = 12,
    dataset: str | None = None,
) -> Iterator[tuple[ContrastPair, str]]:
    """``(pair, reference)`` for the distinct references of shared-schema ``rows`` (each under the id of
    its first row). The foreign sentences of a reference come from ``foreign_references`` other
    references of the same rows, chosen by a seeded shuffle."""
    refs: dict[str, tuple[str, str]] = {}
    for row in rows:
        refs.setdefault(row["reference"], (str(row.get("id", len(refs))), dataset or str(row.get("dataset", ""))))
    texts = list(refs)
    order = list(range(len(texts)))
    random.Random(f"{seed}|foreign").shuffle(order)
    position = {r: p for p, r in enumerate(order)}
    finder = parties
    for n, text in enumerate(texts):
        row_id, name = refs[text]
        foreign = []
        if "invented_clause" in kinds and len(texts) > 1:
            for step in range(1, min(foreign_references, len(texts) - 1) + 1):
                other = texts[order[(position[n] + step) % len(texts)]]
                foreign.extend(s.text for s in split_sentences(other)[:30])
        if finder is None and ("role_swap" in kinds or "attribution_changed" in kinds):
            finder = default_party_finder()
        for pair in contrast_pairs(
            text,
            dataset=name,
            row_id=row_id,
            seed=seed,
            kinds=kinds,
            per_kind=per_kind,
            foreign=foreign,
            parties=finder,
        ):
            yield pair, text


def training_rows(pair: ContrastPair, reference: str, *, k: int = 3, tag: str = "") -> list[dict]:
    """The pair as verifier training rows (``evidence, claim, label, weight, source``, the format of
    :class:`hallucheck.training.pairs.Pair`): the unsupported sentence (label 1, weight 1) and each twin
    (label 0, weights summing to 1). The evidence of each is the top-``k`` reference sentences for it,
    always holding the sentence it was made from (and a fused twin's other sentence)."""
    sents = [s.text for s in split_sentences(reference)]
    source = f"contrast-{tag}-{pair.kind}" if tag else f"contrast-{pair.kind}"

    def evidence(claim: str, needed: Sequence[int]) -> str:
        if len(sents) <= k:
            return reference.strip()
        idx = select_evidence_indices(claim, reference, k=k, sentences=sents)
        for j in needed:
            if j not in idx:
                idx = [x for x in idx if x not in needed][: k - len(needed)] + list(needed)
        return " ".join(sents[j] for j in idx)

    rows = [{"evidence": evidence(pair.unsupported, [pair.sentence_index]), "claim": pair.unsupported, "label": 1,
             "weight": 1.0, "source": source}]  # fmt: skip
    for t in pair.twins:
        needed = [pair.sentence_index, *t.also]
        rows.append({"evidence": evidence(t.text, needed), "claim": t.text, "label": 0,
                     "weight": round(1.0 / len(pair.twins), 4), "source": f"{source}-twin-{t.how}"})  # fmt: skip
    return rows


__all__ = ["KINDS", "ContrastPair", "Twin", "contrast_pairs", "pairs_from_rows", "training_rows", "usable"]
