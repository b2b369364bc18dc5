"""Named parties of a sentence and the two contrast rules that move them: :func:`role_swap` (two parties
of one sentence exchanged: "Arsenal beat Chelsea" -> "Chelsea beat Arsenal") and :func:`attribution`
(the speaker or source of "X said" / "according to X" replaced with another party of the reference).

Parties come from the project's NER (:func:`hallucheck.models.ner.extract_entities`, spaCy: people,
organisations, places), and, when spaCy is not installed or the text is not English, from runs of
capitalised words (:func:`capitalised_parties`). Two parties are swapped only when they are of one kind
and what lies between them says who does what to whom: not "X and Y", "X, Y", "between X and Y", "X met
Y" or "X vs Y", where both orders say the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Collection, Sequence

from ..text.stopwords import STOP_WORDS
from .contrast_base import COMMON_OPENERS, Candidate, change
from .contrast_words import MONTHS, WEEKDAYS

PARTY_LABELS = frozenset({"PERSON", "ORG", "GPE"})
SPEAKER_LABELS = frozenset({"PERSON", "ORG", "NAME"})


@dataclass(frozen=True)
class Party:
    """A named party: ``sentence[start:end] == text``; ``label`` is spaCy's (PERSON, ORG, GPE) or
    ``"NAME"`` for a capitalised run found without NER. With a parse (``parsed``): ``role`` is
    ``subject``, ``object``, ``agent`` (the "by" of a passive) or ``oblique`` (the object of "to", "from",
    "for", "over" ...) of the verb at offset ``head``, or ``""``."""

    text: str
    start: int
    end: int
    label: str
    role: str = ""
    head: int = -1
    parsed: bool = False
    coordinated: bool = False  # one of "A and B"


PartyFinder = Callable[[str], Sequence[Party]]
_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
# prepositions whose object has a role the subject's cannot take ("X lost to Y" is not "Y lost to X");
# not "with", "against", "between" (both orders say the same) nor places ("in", "at")
_OBLIQUE_PREPOSITIONS = frozenset("to from for on over into than towards toward after".split())
_OBJECTS = frozenset({"dobj", "dative", "obj", "iobj"})


def ner_parties(sentence: str) -> list[Party]:
    """People, organisations and places in ``sentence`` (English), with their role in the parse, by the
    project's spaCy pipeline (:func:`hallucheck.models.ner.load_spacy`, the one NER uses)."""
    from ..models.ner import load_spacy

    out = []
    for e in load_spacy()(sentence).ents:
        if e.label_ not in PARTY_LABELS or not _name_like(e.text):
            continue
        root, role, head = e.root, "", -1
        if root.dep_ in _SUBJECTS:
            role, head = "subject", root.head.idx
        elif root.dep_ in _OBJECTS:
            role, head = "object", root.head.idx
        elif root.dep_ == "pobj" and root.head.dep_ == "agent":
            role, head = "agent", root.head.head.idx
        elif root.dep_ == "pobj" and root.head.dep_ == "prep" and root.head.text.lower() in _OBLIQUE_PREPOSITIONS:
            role, head = "oblique", root.head.head.idx  # "sold the firm to Y", "lost to Y"
        coordinated = root.dep_ == "conj" or any(c.dep_ == "conj" for c in root.children)
        out.append(Party(e.text, e.start_char, e.end_char, e.label_, role, head, True, coordinated))
    return out


_NOT_NAMES = frozenset(m.capitalize() for m in MONTHS + WEEKDAYS) | {"I"}
_RUN = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:(?:of|de|da|van|von|der|del|bin|al)\s+)?[A-Z][\w'’-]*)*")


def capitalised_parties(sentence: str, *, first: bool = False) -> list[Party]:
    """Runs of capitalised words (a heuristic for names), without a sentence's capitalised first word
    when it is a common opener ("The"), months and weekdays; a run of one word opening the sentence only
    with ``first`` (and then not a function word: "Apple sued ...", not "Following ...")."""
    out = []
    for m in _RUN.finditer(sentence):
        text, start = m.group(), m.start()
        opener = text.split()[0]
        if opener.lower() in COMMON_OPENERS:  # "The Hague" keeps "Hague"; "He" is no name
            rest = text[len(opener) :].lstrip()
            start, text = m.end() - len(rest), rest
        text = text.rstrip("'’")
        if text.endswith(("'s", "’s")):
            text = text[:-2]
        alone = start == 0 and " " not in text
        if alone and (not first or text.lower() in STOP_WORDS or text.lower().endswith(("ing", "ly"))):
            continue
        if text and text not in _NOT_NAMES and _name_like(text):
            out.append(Party(text, start, start + len(text), "NAME"))
    return out


def default_party_finder() -> PartyFinder:
    """NER when spaCy and its pipeline are installed; the capitalised-words heuristic otherwise."""
    from ..errors import MissingDependencyError
    from ..models.ner import load_spacy

    try:
        load_spacy()
    except MissingDependencyError:
        return capitalised_parties
    return ner_parties


_NAME_WORD = re.compile(r"(?:[A-Z][a-zà-ÿ'’-]+|[A-Z]\.|[A-Z]{2,5}|of|de|da|van|von|der|del|bin|al|the|and|&)$")


def _name_like(text: str) -> bool:
    """Capitalised words only (initials and acronyms allowed, no digits, no possessive): "Breon Peace",
    "the Wall Street Journal", not "H5N1" or "Company's"."""
    ws = text.split()
    return bool(ws) and text[:1].isupper() and all(_NAME_WORD.match(w) for w in ws) and not text.endswith("'s")


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower())) - {"the", "of", "and"}


def _initials(text: str) -> str:
    return "".join(w[0] for w in re.findall(r"\w+", text) if w[0].isupper())


def _distinct(a: Party, b: Party) -> bool:
    """Two different parties: no word shared ("Obama" is "Barack Obama"), neither the other's initials
    ("WSU" is "Washington State University")."""
    if a.text.lower() == b.text.lower() or _words(a.text) & _words(b.text):
        return False
    short = [re.sub(r"\W", "", t) for t in (a.text, b.text)]
    return not any(s.isupper() and len(s) >= 2 and _initials(t).startswith(s) for s in short for t in (a.text, b.text))


# ---------------------------------------------------------------------------------------------- role swap

# between two parties, these say both orders are the same ("X and Y", "X met Y", "X vs Y")
_SYMMETRIC = frozenset(
    """and or with met meets meet meeting married marry marries vs versus v against between drew tied together
    alongside along partnered both neither nor also as well of the a an in on at to from for by 's""".split()
)
_LIST_JOIN = re.compile(r"^\s*(?:,|&|/|-|–|—|and\b|or\b|with\b|vs\.?|v\.?)|(?:,|&|/|\band|\bor|\bwith)\s*$", re.I)


_SYMMETRIC_VERBS = frozenset(
    """met meet meets meeting married marry marries marrying faced face faces facing played play plays playing fought
    fight fights dated date dates divorced hugged kissed resembled resembles joined merged merges partnered
    drew tied""".split()
)
_SYMMETRIC_LINKS = frozenset("and or with alongside along against between versus vs together".split())
_ROLE_PAIRS = ({"subject", "object"}, {"subject", "agent"}, {"subject", "oblique"})


def role_swap(sentence: str, parties: Sequence[Party]) -> list[Candidate]:
    """Two parties of one kind exchanged. With a parse: the subject and the object (or the agent of a
    passive) of one verb that is not symmetric ("X met Y"); without one: two parties with words
    between them that are not a list or a symmetric link ("X and Y", "X, Y", "X vs Y")."""
    out = []
    ps = sorted(parties, key=lambda p: p.start)
    for n, a in enumerate(ps):
        for b in ps[n + 1 :]:
            if a.label != b.label or not _distinct(a, b) or a.end > b.start:
                continue
            if (
                sentence.count(a.text) > 1
                or sentence.count(b.text) > 1
                or _attached(sentence, a)
                or _attached(sentence, b)
            ):
                continue
            if a.coordinated or b.coordinated:
                continue  # "designed by A and B": one of two cannot take the other's place alone
            if a.parsed or b.parsed:
                verb = re.match(r"[\w'’-]+", sentence[a.head :]) if a.head >= 0 else None
                if a.head != b.head or {a.role, b.role} not in _ROLE_PAIRS or verb is None:
                    continue
                between = set(re.findall(r"[\w']+", sentence[a.end : b.start].lower()))
                if verb.group().lower() in _SYMMETRIC_VERBS or between & _SYMMETRIC_LINKS:
                    continue
            elif not _swappable_between(sentence, a, b):
                continue
            out.append((change(sentence, a.start, a.end, b.text), change(sentence, b.start, b.end, a.text)))
    return out


def may_swap(sentence: str) -> bool:
    """A cheap look before NER: two capitalised runs with words between them that may say who does what."""
    runs = capitalised_parties(sentence, first=True)
    return any(_swappable_between(sentence, a, b) for n, a in enumerate(runs) for b in runs[n + 1 :] if _distinct(a, b))


def may_attribute(sentence: str) -> bool:
    """A cheap look before NER: a capitalised run next to a saying verb, or after "according to"."""
    return bool(speakers(sentence, capitalised_parties(sentence, first=True)))


_PLACE_PREPOSITIONS = frozenset("in at on from to near of into across through for by with".split())


def _attached(sentence: str, p: Party) -> bool:
    """The word before the party belongs to it: an article ("the Kingdom") or a capitalised title
    ("President Obama", "Sir Richard"), which would stay behind if the name moved."""
    before = re.search(r"([\w'’.-]+)\s+$", sentence[: p.start])
    if before is None:
        return False
    word = before.group(1)
    return word.lower() == "the" or (word[:1].isupper() and before.start(1) > 0)


def _swappable_between(sentence: str, a: Party, b: Party) -> bool:
    """Without a parse: words between the two that may say who does what, and neither after a
    preposition ("arrived in Paris": a place, which no capitalised run tells from a person)."""
    for p in (a, b):
        before = re.findall(r"[\w']+", sentence[: p.start].lower())[-1:]
        if before and before[0] in _PLACE_PREPOSITIONS:
            return False
    between = sentence[a.end : b.start]
    ws = re.findall(r"[\w']+", between.lower())
    if not ws or len(ws) > 12 or _LIST_JOIN.search(between) or all(w in _SYMMETRIC for w in ws):
        return False
    return not re.search(r"\bbetween\s+(?:the\s+)?$", sentence[: a.start], re.I)


# ---------------------------------------------------------------------------------------------- attribution

_SAYING = frozenset(
    """said says say told added stated claimed announced reported wrote writes argued explained noted insisted
    confirmed warned believes believed thinks thought suggested estimated predicted tweeted concluded
    acknowledged admitted revealed""".split()
)
_SAYING_RE = "|".join(sorted(_SAYING - {"told"}))
# without a parse: "X said", "X, a spokesman, said", "said X", "according to X" ("told X": X listens)
_SPEAKER_BEFORE_VERB = re.compile(rf"^(?:,[^,]{{1,80}},)?\s+(?:{_SAYING_RE}|told)\b")
_SPEAKER_AFTER = re.compile(rf"\b(?:according\s+to|{_SAYING_RE})\s+(?:the\s+)?$", re.I)
_ACCORDING = re.compile(r"\baccording\s+to\s+(?:the\s+)?$", re.I)


def speakers(sentence: str, parties: Sequence[Party]) -> list[Party]:
    """The people and organisations the sentence attributes what it says to: with a parse, the subject
    of a saying verb ("X said", "said X", "X told reporters") or the object of "according to"; without
    one, a party next to a saying verb."""
    out = []
    for p in parties:
        if p.label not in SPEAKER_LABELS:
            continue
        if p.parsed:
            verb = re.match(r"[\w'’-]+", sentence[p.head :]) if p.head >= 0 else None
            said = p.role == "subject" and verb is not None and verb.group().lower() in _SAYING
            if said or _ACCORDING.search(sentence[: p.start]):
                out.append(p)
        elif _SPEAKER_BEFORE_VERB.match(sentence[p.end :]) or _SPEAKER_AFTER.search(sentence[: p.start]):
            out.append(p)
    return out


def attribution(
    sentence: str, parties: Sequence[Party], others: Sequence[Party], speaking: Collection[str] = ()
) -> list[Candidate]:
    """For each speaker of the sentence, one candidate per other party of the reference of the same
    kind that the sentence does not name, of the likeliest to be mistaken for the speaker only: a party
    that speaks elsewhere in the reference (its text in ``speaking``), else one named in full (two
    words or more; a single capitalised word is as often a misread place or title: "Ont", "Starstruck")."""
    ranked: list[tuple[int, Candidate]] = []
    lowered = sentence.lower()
    for sp in speakers(sentence, parties):
        seen = set()
        for o in others:
            if o.label != sp.label or o.text in seen or o.text.lower() in lowered:
                continue
            if not _distinct(sp, o) or any(not _distinct(o, p) for p in parties):
                continue
            rank = 2 if o.text in speaking else 1 if len(o.text.split()) >= 2 else 0
            if rank == 0 or (o.label == "NAME" and len(o.text.split()) < min(2, len(sp.text.split()))):
                continue  # without NER, a full name only for a full name ("Riverside" is no "Alice Brown")
            seen.add(o.text)
            ranked.append((rank, (change(sentence, sp.start, sp.end, o.text),)))
    best = max((r for r, _ in ranked), default=0)
    return [c for r, c in ranked if r == best]


__all__ = [
    "PARTY_LABELS",
    "Party",
    "PartyFinder",
    "attribution",
    "capitalised_parties",
    "default_party_finder",
    "may_attribute",
    "may_swap",
    "ner_parties",
    "role_swap",
    "speakers",
]
