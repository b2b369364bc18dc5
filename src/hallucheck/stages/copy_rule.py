"""The copy rule of ``ce_cascade``: an answer sentence the reference holds word for word is supported
with no verifier threshold and no judge call -- but only where the reference itself asserts it.

A copy (five words or more; the same words in the same order, case and the punctuation around words
aside, inner punctuation counting: "3.5" is not "35") counts only

- inside one sentence of one passage: never across a sentence end or a blank line ("The drug is
  safe. For children under two, it is dangerous." does not hold "The drug is safe for children
  under two");
- when the rest of that sentence, if the copy is only part of it, cannot change what the part says:
  what comes before the copy is a bare connective ("However,") or an earlier clause closed by
  ", and" / ", but" / ";"; what comes after it is a later clause opened by ";" or by "and" / "but"
  and a pronoun, an auxiliary or an adverb of time; and neither holds a word that negates,
  conditions, limits, hedges, attributes or refutes ("not", "if", "when", "until", "only", "may",
  "says", "according", "myth", ...), a quotation mark or a question mark. So "When the vehicle is
  fully loaded, increase the rear tyre pressure to 2.6 bar" does not hold "Increase the rear tyre
  pressure to 2.6 bar", nor "A blogger says the vaccine contains microchips" "The vaccine contains
  microchips";
- when no sentence near it in its passage refutes or denies it ("It is not: ...", "Fact check: this
  is false.", "None of these is true.", "... was a myth", "... later corrected ..."), the sentence
  before it does not announce it with a colon after such a word or an attributing one ("A viral post
  claims:"), and no list it is an item of is introduced so ("Myths:").

Where unsure, no copy: the verifier or the judge reads the sentence.
"""

from __future__ import annotations

import bisect
import re
from typing import Sequence

from ..text.segment import Span, split_sentences

# a token: a run of non-space characters, its punctuation at either end not counted
_TOKEN = re.compile(r"\S+")
_EDGE = "\"'()[]{}<>.,;:!?‘’“”«»„-–—*_"
_BLANK = re.compile(r"\n[ \t]*\n")  # a passage boundary (passages are joined with a blank line)
_BULLET = re.compile(r"[ \t]*(?:[-*•·]|\d{1,3}[.)])\s")  # a list item's mark at the start of its line

# words that, in the part of a sentence a copy leaves out, can change what the copied part says
_NEGATION = "not no never nor neither none nobody nothing nowhere without cannot hardly barely scarcely"
_CONDITION = (
    "if unless whether when whenever wherever until till once provided providing assuming except excepting "
    "excluding only solely exclusively just case event lest while whilst before after during otherwise "
    "depending subject"
)
_HEDGE = (
    "may might could would should must perhaps possibly probably likely unlikely nearly almost approximately "
    "roughly than least seem seems seemed appear appears appeared apparently supposedly purportedly "
    "reportedly allegedly alleged suspected expected expects estimated estimates predicted predicts predict "
    "forecast forecasts plan plans planned hope hopes hoped intend intends intended"
)
_ATTRIBUTION = (
    "say says said saying claim claims claimed claiming tell tells told believe believes believed belief "
    "think thinks thought argue argues argued insist insists insisted suggest suggests suggested report "
    "reports reported according accused accuses testified testify wrote writes written post posted tweet "
    "tweeted blog blogger announced quoted quote quotes rumour rumours rumor rumors story stories legend "
    "theory theories hypothetical hypothetically imagine imagined novel fiction fictional film movie dream"
)
_REFUTATION = (
    "deny denies denied myth myths misconception misconceptions hoax false falsely untrue fake debunked "
    "disproved disproven refuted propaganda lie lies lied wrong incorrect misleading"
)
QUALIFIERS = frozenset(" ".join((_NEGATION, _CONDITION, _HEDGE, _ATTRIBUTION, _REFUTATION)).split())

# before the copy: a bare connective, or an earlier clause closed by ", and" / ", but" / ";"
_LEAD_CONNECTIVES = frozenset(
    "and but so also however meanwhile moreover furthermore besides additionally indeed still yet then".split()
)
_LEAD_CLAUSE = re.compile(r"(?:[,;]\s*(?:and|but|so|yet)|;)\s*$", re.IGNORECASE)
# after the copy: a later clause opened by ";" or by "and"/"but" and a subject, an auxiliary or an adverb
_TRAIL_CLAUSE = re.compile(
    r"^\s*(?:;|[,;]\s*however\b|,?\s*(?:and|but)\s+(?:he|she|it|they|we|i|you|there|this|that|these|those|is|are|"
    r"was|were|has|have|had|will|did|does|do|then|later|also|now|soon|eventually|subsequently)\b)",
    re.IGNORECASE,
)
_BREAKS = frozenset(";:()[]{}—–-!?…")
# a quotation mark: a double one, or a single one that is not an apostrophe inside a word ("Reye's")
_QUOTE = re.compile(r"[\"“”„«»‹›]|(?<![^\W_])['‘’]|['‘’](?![^\W_])")

# a sentence near the copy that refutes, denies or corrects what is around it
_REFUTES = re.compile(
    r"\b(?:false|falsely|untrue|not\s+true|n[o’']t\s+true|no\s+truth|myths?|misconceptions?|hoax(?:es)?|debunk\w*|"
    r"disprov\w*|refut\w*|baseless|unfounded|fake|fabricat\w*|propaganda|rumou?rs?|misinformation|disinformation|"
    r"fact[-\s]?check\w*|retract\w*|corrected|correction|den(?:y|ies|ied)|nonsense|conspiracy|satir\w*|mistaken|"
    r"wrong|incorrect|inaccurate|misleading|not\s+the\s+case|no\s+evidence|urban\s+legend|old\s+wives|outdated|"
    r"obsolete|superseded|withdrawn|no\s+longer|or\s+so\s+(?:the\s+story|it\s+is\s+said|they\s+say|we\s+are\s+told))\b",
    re.IGNORECASE,
)
# a sentence that says "not" of what came before it: "It is not: ...", "That was never so.", "No."
_DENIES_BEFORE = re.compile(
    r"^\W*(?:(?:but|and|yet|however|in\s+fact|actually)\W+)?(?:(?:it|this|that|these|those|they|which|such|"
    r"neither|none)\b[^.!?;:]{0,20}?\b(?:is|was|are|were|does|did|do|has|have|had|can|could|will|would)?\s*"
    r"(?:not|n[’']t|never|no\s+longer)\b|(?:no|not\s+so|nope|not\s+at\s+all)\W*$)",
    re.IGNORECASE,
)
# a sentence that refutes a whole list before it: "None of these is true.", "All of the above are myths."
_REFUTES_LIST = re.compile(
    r"\b(?:none\s+of\s+(?:these|those|them|the\s+above)|neither\s+of|(?:all\s+(?:of\s+)?)?(?:these|those|the\s+above)"
    r"\s+(?:are|were|is|was)\s+(?:all\s+)?(?:false|untrue|myths?|wrong|incorrect|nonsense))\b",
    re.IGNORECASE,
)
_FORWARD = re.compile(r"\b(?:the\s+following|as\s+follows|below)\b", re.IGNORECASE)  # points at what comes next
MAX_HITS = 32  # places a copy's words are checked at; beyond them, no copy (the verifier reads it)
NEAR = 3  # sentences either side, in the same passage, that can refute a copy
LIST_REACH = 50  # sentences after it that can refute the list it belongs to


def tokens(text: str, offset: int = 0) -> list[tuple[str, int, int]]:
    """(lower-cased word, start, end) of each token of ``text``, punctuation at its edges left out;
    offsets are ``offset`` plus the position in ``text``."""
    out = []
    for m in _TOKEN.finditer(text):
        raw = m.group()
        core = raw.strip(_EDGE)
        if core:
            start = offset + m.start() + len(raw) - len(raw.lstrip(_EDGE))
            out.append((core.lower(), start, start + len(core)))
    return out


class CopyIndex:
    """Where a reference holds an answer sentence word for word, and whether the reference asserts it there.

    Built once per reference (its sentences, each sentence's words, the passage of each sentence); each
    :meth:`find` is then one substring search over the reference's words plus the checks around a hit.
    ``sentences``: the reference's sentences, when the caller has split it already."""

    def __init__(self, reference: str, sentences: Sequence[Span] | None = None) -> None:
        self.reference = reference
        self.sentences = list(sentences) if sentences is not None else split_sentences(reference)
        breaks = [m.start() for m in _BLANK.finditer(reference)]
        self._passage = [bisect.bisect_right(breaks, s.start) for s in self.sentences]
        self._words: list[list[tuple[str, int, int]]] = []
        self._starts: list[int] = []
        parts: list[str] = []
        pos = 0
        # each sentence's words between spaces, sentences apart by a line break: a match of the words
        # of one answer sentence (no line break in it) never spans two reference sentences
        for s in self.sentences:
            ws = tokens(s.text, s.start)
            chunk = " " + " ".join(w for w, _, _ in ws) + " "
            self._words.append(ws)
            self._starts.append(pos)
            parts.append(chunk)
            pos += len(chunk) + 1
        self._text = "\n".join(parts)

    def find(self, sentence: str, *, min_words: int = 5) -> tuple[int, int] | None:
        """``(start, end)`` in the reference of a copy of ``sentence`` that the reference asserts, or
        None: no copy, fewer than ``min_words`` words, or none of the first :data:`MAX_HITS` places that
        hold its words asserts it."""
        said = tokens(sentence)
        if len(said) < min_words:
            return None
        needle = " " + " ".join(w for w, _, _ in said) + " "
        at, tried = self._text.find(needle), 0
        while at >= 0 and tried < MAX_HITS:
            tried += 1
            k = bisect.bisect_right(self._starts, at) - 1
            i = self._text.count(" ", self._starts[k], at)  # the copy's first word in sentence k
            j = i + len(said) - 1
            if self._same_breaks(sentence, said, k, i) and self._asserted(k, i, j):
                ws = self._words[k]
                return ws[i][1], ws[j][2]
            at = self._text.find(needle, at + 1)
        return None

    def _same_breaks(self, sentence: str, said: list[tuple[str, int, int]], k: int, i: int) -> bool:
        """Whether the punctuation that breaks a sentence between words (";", ":", brackets, dashes, "!",
        "?") is the same between the answer's words as between the copied ones: "safe; for children"
        is not "safe for children"."""
        ws = self._words[k]
        for t in range(len(said) - 1):
            ours = {c for c in sentence[said[t][2] : said[t + 1][1]] if c in _BREAKS}
            theirs = {c for c in self.reference[ws[i + t][2] : ws[i + t + 1][1]] if c in _BREAKS}
            if ours != theirs:
                return False
        return True

    # -- the checks around a copy of words i..j of sentence k

    def _asserted(self, k: int, i: int, j: int) -> bool:
        return self._rest_keeps_it(k, i, j) and not self._refuted(k)

    def _rest_keeps_it(self, k: int, i: int, j: int) -> bool:
        """Whether the words of sentence ``k`` outside the copy leave what the copy says unchanged."""
        s, ws = self.sentences[k], self._words[k]
        a, b = ws[i][1], ws[j][2]
        lead, trail = self.reference[s.start : a], self.reference[b : s.end]
        rest = [w for w, _, _ in ws[:i]] + [w for w, _, _ in ws[j + 1 :]]
        if "?" in lead or "?" in trail:
            return False
        if self._quoted(s.start, a) or self._quoted(b, s.end):
            # a whole sentence with its quotation and who said it ('"We are pleased," he said.') holds
            # what it says; quotation marks around the copy alone, or around part of its sentence, do not
            if rest or not self._quoted(a, b):
                return False
        if any(w in QUALIFIERS or w.endswith(("n't", "n’t")) for w in rest):
            return False
        lead_words = [w for w, _, _ in ws[:i]]
        if lead_words and not (set(lead_words) <= _LEAD_CONNECTIVES or _LEAD_CLAUSE.search(lead)):
            return False
        return not (j + 1 < len(ws) and not _TRAIL_CLAUSE.match(trail))

    def _quoted(self, start: int, end: int) -> bool:
        """Whether ``reference[start:end]`` has a quotation mark (an apostrophe inside a word is none)."""
        m = _QUOTE.search(self.reference, start, end + 1)  # one character on: is the mark inside a word?
        return m is not None and m.start() < end

    def _refuted(self, k: int) -> bool:
        """Whether a sentence around sentence ``k`` in its passage refutes, denies or announces it."""
        p, n = self._passage[k], len(self.sentences)
        same = [x for x in range(max(0, k - NEAR), min(n, k + NEAR + 1)) if x != k and self._passage[x] == p]
        if any(_REFUTES.search(self.sentences[x].text) for x in same):
            return True
        if any(x > k and _DENIES_BEFORE.search(self.sentences[x].text) for x in same if x <= k + 2):
            return True
        if k > 0 and self._passage[k - 1] == p and self._announces(k - 1):
            return True
        later = range(k + 1, min(n, k + 1 + LIST_REACH))
        if any(self._passage[x] == p and _REFUTES_LIST.search(self.sentences[x].text) for x in later):
            return True
        return self._list_intro_refutes(k)

    def _announces(self, x: int) -> bool:
        """Sentence ``x`` announces what follows (a colon, "the following") with a refuting, attributing or
        conditioning word ("A viral post claims:", "If you are over 65, do the following.")."""
        text = self.sentences[x].text.rstrip()
        return (text.endswith(":") or bool(_FORWARD.search(text))) and (
            bool(_REFUTES.search(text)) or any(w in QUALIFIERS for w, _, _ in self._words[x])
        )

    def _is_item(self, x: int) -> bool:
        start = self.sentences[x].start
        line = self.reference.rfind("\n", 0, start) + 1
        return (
            line <= start
            and bool(_BULLET.match(self.reference, line))
            and not self.reference[line:start].strip(" \t-*•·0123456789.)")
        )

    def _list_intro_refutes(self, k: int) -> bool:
        """Whether sentence ``k`` is a list item whose list is introduced as myths, claims, rumours..."""
        if not self._is_item(k):
            return False
        x = k - 1
        while x >= 0 and self._passage[x] == self._passage[k] and self._is_item(x):
            x -= 1
        if x < 0 or self._passage[x] != self._passage[k]:
            return False
        return bool(_REFUTES.search(self.sentences[x].text)) or any(w in QUALIFIERS for w, _, _ in self._words[x])


def copy_span(
    sentence: str, reference: str, *, min_words: int = 5, sentences: Sequence[Span] | None = None
) -> tuple[int, int] | None:
    """Where ``reference`` holds ``sentence`` word for word and asserts it (:class:`CopyIndex`), as
    ``(start, end)`` offsets into ``reference``; None when it does not, or where unsure."""
    return CopyIndex(reference, sentences).find(sentence, min_words=min_words)


__all__ = ["CopyIndex", "QUALIFIERS", "copy_span", "tokens"]
