"""Errors of meaning the gate can be sure of without a model: a claim that restates one reference
sentence word for word but for a negation, an opposite, or a condition.

The claim is aligned with the reference sentence that shares most of its content words
(:func:`.facts.closest_sentence`, IDF-weighted). Only when the two hold the same content words, apart
from what is compared, does this speak:

* **negation**: one says "not" / "never" / "no" / "cannot" (or their German, French, Spanish
  forms) once more than the other ("Aspirin is safe for children." against "Aspirin is not safe
  for children.");
* **opposite**: the claim has one word of a pair of opposites where the sentence has the other, and
  nothing else differs ("higher"/"lower", "before"/"after", "front"/"rear", "minimum"/"maximum",
  "increase"/"decrease", "always"/"never", ...);
* **dropped condition**: the claim is the sentence without a clause that sets a condition on it
  ("When the vehicle is fully loaded, increase the rear tyre pressure to 2.6 bar." restated as
  "Increase the rear tyre pressure to 2.6 bar."): every content word of the claim is in the
  sentence, and the words it leaves out are a clause that opens the sentence with a condition word
  ("when", "if", "unless", "only", "until", ...). A clause after what it governs is not read: in a
  narrative it is as often a time ("was standing on the rim when it smashed").

Anything looser (reworded sentences, several differences, a claim drawing on two sentences) is left
to the verifier and judge: a paraphrase that says "forbidden" for "not allowed" differs in a content
word and is never read here. One exception: a change (rose, fell, went up, reduced) said in the other
direction in other words is read by :mod:`.direction`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ...text.segment import Span
from ...text.stopwords import STOP_WORDS
from .clauses import stem, stems

_TOKEN = re.compile(r"[^\W\d_]+", re.UNICODE)
_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")
_NEGATIONS = frozenset(
    """not no never cannot without nor nicht kein keine keinen keinem keiner nie niemals ohne ne pas jamais aucun
    aucune sans nunca sin ningún ninguna ninguno tampoco""".split()
)
_OPPOSITES = [
    ("higher", "lower"), ("more", "less"), ("more", "fewer"), ("increase", "decrease"), ("increases", "decreases"),
    ("increased", "decreased"), ("rise", "fall"), ("rises", "falls"), ("rose", "fell"), ("before", "after"),
    ("above", "below"), ("over", "under"), ("maximum", "minimum"), ("max", "min"), ("always", "never"),
    ("front", "rear"), ("left", "right"), ("upper", "lower"), ("inside", "outside"), ("open", "closed"),
    ("earlier", "later"), ("first", "last"), ("faster", "slower"), ("larger", "smaller"), ("longer", "shorter"),
    ("heavier", "lighter"), ("cheaper", "dearer"), ("warmer", "colder"), ("hot", "cold"), ("include", "exclude"),
    ("includes", "excludes"), ("included", "excluded"), ("allowed", "forbidden"), ("permitted", "prohibited"),
    ("with", "without"), ("on", "off"), ("start", "stop"), ("enable", "disable"), ("enabled", "disabled"),
    ("buyer", "seller"), ("tenant", "landlord"), ("lender", "borrower"), ("employer", "employee"),
    ("höher", "niedriger"), ("mehr", "weniger"), ("vor", "nach"), ("vorne", "hinten"), ("mindestens", "höchstens"),
    ("plus", "moins"), ("avant", "après"), ("supérieur", "inférieur"), ("avant", "arrière"),
    ("más", "menos"), ("antes", "después"), ("mayor", "menor"), ("delantero", "trasero"),
]  # fmt: skip
_OPPOSITE: dict[str, set[str]] = {}
for _a, _b in _OPPOSITES:
    _OPPOSITE.setdefault(_a, set()).add(_b)
    _OPPOSITE.setdefault(_b, set()).add(_a)
_CONDITIONS = frozenset(
    """if when whenever unless only until provided except wenn falls sofern nur bis außer si lorsque quand
    seulement uniquement sauf jusqu cuando solo sólo únicamente salvo hasta""".split()
)
_MIN_SHARE = 0.75  # share of the claim's content words the aligned sentence must hold to be read at all


@dataclass(frozen=True)
class MeaningConflict:
    """What the claim changes in the reference sentence ``sentence``: ``kind`` is ``negation``,
    ``opposite``, ``condition`` or ``direction``; ``said``/``says`` the claim's and the sentence's words for it."""

    kind: str
    said: str
    says: str
    sentence: Span

    def describe(self) -> str:
        if self.kind == "negation":
            return f"the reference says the opposite ({self.says!r} where the answer has {self.said!r})"
        if self.kind in ("opposite", "direction"):
            return f"the answer says {self.said!r} where the reference says {self.says!r}"
        return f"the answer leaves out the reference's condition {self.says!r}"


_ANSWER_PARTICLE = re.compile(r"^\s*(?:no|yes|nein|ja|non|oui|sí|si)\s*[,.;:!]\s*", re.IGNORECASE)


_BOUND = frozenset("less more fewer later earlier longer sooner".split())


def _tokens(text: str) -> list[str]:
    # "No, do not use vinegar": the answer to a question, not a negation of what follows
    t = _ANSWER_PARTICLE.sub("", text).lower().replace("’", "'").replace("n't", " not").replace("cannot", "can not")
    words = _TOKEN.findall(t)
    # "do not take more than 8", "no less than 13", "not only": a bound or an emphasis on a figure, not a
    # negation of the sentence ("take no more than 8" says the same)
    return [w for k, w in enumerate(words) if not (w in ("no", "not") and _bounds(words, k + 1))]


def _bounds(words: list[str], k: int) -> bool:
    """A comparative followed by "than" within the :data:`_BOUND_REACH` words from ``k`` ("do not take
    it for more than 3 days": a verb, its object and a preposition may come between), or "only" at ``k``."""
    if words[k : k + 1] == ["only"]:
        return True
    return any(
        w in _BOUND and words[n + 1 : n + 2] == ["than"] for n, w in enumerate(words[k : k + _BOUND_REACH], start=k)
    )


_BOUND_REACH = 4


def _content(tokens: list[str]) -> Counter:
    return Counter(
        stem(w) for w in tokens if w not in STOP_WORDS and w not in _NEGATIONS and w not in _OPPOSITE and len(w) > 1
    )


def meaning_conflict(
    claim: str, ref, question: str | None = None, *, off: frozenset[str] = frozenset()
) -> MeaningConflict | None:
    """The error of meaning ``claim`` makes against the reference sentence it restates, if it is one of
    the three this module is sure of (see the module's docstring), or a change said in the other
    direction in other words (:mod:`.direction`); else None. ``ref`` is a
    :class:`~hallucheck.stages.gate.figures.ReferenceFacts`; ``question``: the question the claim answers (a
    condition it states need not be repeated in the answer); ``off``: the gate rules switched off
    (``meaning``, ``direction``)."""
    conflict = None if "meaning" in off else _word_for_word(claim, ref, question)
    if conflict is None and "direction" not in off:
        from .direction import direction_conflict

        found = direction_conflict(claim, ref)
        if found is not None:
            said, says, i = found
            conflict = MeaningConflict("direction", said, says, ref.sentences[i])
    return conflict


def _word_for_word(claim: str, ref, question: str | None) -> MeaningConflict | None:
    i, share = _closest(stems(claim), ref)
    if i < 0 or share < _MIN_SHARE:
        return None
    sentence = ref.sentences[i]
    if Counter(_FIGURE.findall(claim)) - Counter(_FIGURE.findall(sentence.text)):
        return None  # a figure the sentence does not give: the claim does not restate it word for word
    c_tokens, r_tokens = _tokens(claim), _tokens(sentence.text)
    c_content, r_content = _content(c_tokens), _content(r_tokens)
    if sum(c_content.values()) < 2:
        return None
    extra, lacking = c_content - r_content, r_content - c_content
    c_words, r_words = set(c_tokens), set(r_tokens)
    if not extra and not lacking:
        flips = [(a, b) for a in c_words & _OPPOSITE.keys() - r_words for b in _OPPOSITE[a] & (r_words - c_words)]
        if len(flips) == 1:
            return MeaningConflict("opposite", flips[0][0], flips[0][1], sentence)
        c_neg = [w for w in c_tokens if w in _NEGATIONS]
        r_neg = [w for w in r_tokens if w in _NEGATIONS]
        if not flips and len(c_neg) % 2 != len(r_neg) % 2:
            return MeaningConflict(
                "negation", " ".join(c_neg) or "(no negation)", " ".join(r_neg) or "(none)", sentence
            )
        return None
    polar = _OPPOSITE.keys() | _NEGATIONS
    if not extra and sum(lacking.values()) >= 2 and c_words & polar <= r_words:
        return _dropped_condition(sentence, c_tokens, c_content, question)
    return None


def _dropped_condition(
    sentence: Span, c_tokens: list[str], c_content: Counter, question: str | None
) -> MeaningConflict | None:
    """The condition clause opening ``sentence`` (or its part between semicolons) that the claim leaves
    out, when the claim restates what that clause governs, and neither the claim nor the question takes
    any of its words."""
    if [w for w in c_tokens if w in _NEGATIONS] != [w for w in _tokens(sentence.text) if w in _NEGATIONS]:
        return None
    asked = _content(_tokens(question or ""))
    for part in re.split(r"[;:]|(?<=[.!?])\s+", sentence.text):
        p_tokens = _tokens(part)
        if c_content - _content(p_tokens):
            continue  # the claim restates another part of the sentence
        # a condition set before what it governs ("When the vehicle is fully loaded, increase ..."); a clause
        # after it is as often a time in a narrative ("was standing on the rim when it smashed")
        for word in (w for w in p_tokens[:2] if w in _CONDITIONS and w not in c_tokens):
            clause = _condition_clause(part, word)
            words = _content([w for w in _tokens(clause) if w not in _CONDITIONS])
            # a clause of its own (two words or more) none of whose words the claim or the question takes
            if sum(words.values()) >= 2 and not words & c_content and not words & asked:
                return MeaningConflict("condition", "", clause, sentence)
    return None


def _closest(words: set[str], ref) -> tuple[int, float]:
    """(index, share of ``words`` it holds) of the reference sentence sharing most of ``words``,
    IDF-weighted (:func:`.fact_index.shared_weight`)."""
    from .index import shared_weight

    scores = shared_weight(words, ref)
    if not scores or not words:
        return -1, 0.0
    best = max(scores, key=lambda i: (scores[i], -i))
    return best, len(words & ref.bags[best]) / len(words)


def _condition_clause(sentence: str, word: str) -> str:
    """The clause of ``sentence`` that ``word`` opens (up to the next comma or the end)."""
    m = re.search(rf"\b{re.escape(word)}\b[^,;.]*", sentence, re.IGNORECASE)
    return m.group().strip() if m else word


__all__ = ["MeaningConflict", "meaning_conflict"]
