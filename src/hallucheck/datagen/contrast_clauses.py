"""Condition clauses of a reference sentence: where one is (:func:`condition_clauses`), the sentence
without it (:func:`condition`, the ``condition_dropped`` rule) and the sentence with it moved to the
other end (:func:`moved_condition`, a supported twin: "If X, Y." says what "Y if X." says).

A clause is a condition when it opens with "if", "unless", "provided that", "as long as", "only
if/when", "except ...", "in case of" or is a closing "with a prescription", "if necessary" ... (French
and Spanish "si"). A "when" clause is read only before what it governs, and only when that is not told
in the past: in a narrative ("When he arrived, the house was empty") it is a time, and the main clause
alone is still what the reference says. "Even if" and "as if" concede, "asked if" asks: neither is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .contrast_base import Candidate, change, first_upper, lower_opener
from .contrast_words import ASKING, CONDITION_OPENERS, CONDITION_TAILS_EN, PAST_MARKERS

_MIN_MAIN_WORDS = 4
_END = re.compile(r"[.!?]+[\"'’”)]*\s*$")


@dataclass(frozen=True)
class ConditionClause:
    """``sentence[start:end]`` is the clause (with the comma or space that joins it), ``opener`` its
    first words; ``leading``: it opens the sentence; ``main``: the sentence without it."""

    start: int
    end: int
    opener: str
    leading: bool
    main: str
    clause: str  # the clause's own words, without the joining comma or space


def _alternation(words) -> str:
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True))


def _past(text: str) -> bool:
    ws = re.findall(r"[a-z']+", text.lower())
    if any(w in PAST_MARKERS for w in ws):
        return True
    return any(w.endswith("ed") and (k == 0 or ws[k - 1] not in ("is", "are", "be", "been", "being", "get", "gets"))
               for k, w in enumerate(ws) if len(w) > 4)  # fmt: skip


def _words(text: str) -> int:
    return len(re.findall(r"\w+", text))


def condition_clauses(sentence: str, lang: str) -> list[ConditionClause]:
    openers = CONDITION_OPENERS.get(lang)
    if not openers or sentence.rstrip().endswith("?"):
        return []
    out = []
    lead = re.match(rf"(?P<open>{_alternation(openers)}|S'ils?)\b(?P<clause>[^,;:]{{2,160}}?),\s+(?P<main>\S.*)$",
                    sentence, re.IGNORECASE | re.DOTALL)  # fmt: skip
    if lead and lead.group("open")[:1].isupper() and _words(lead.group("main")) >= _MIN_MAIN_WORDS:
        opener, clause = lead.group("open").lower(), lead.group("clause")
        start = lead.start("main")
        then = re.match(r"then\s+", sentence[start:], re.IGNORECASE)  # "If X, then Y" -> "Y"
        start += then.end() if then else 0
        if (
            not (opener in ("when", "whenever") and _past(lead.group("main")))
            and _words(clause) >= 2
            and not _NO_CONDITION.match(clause)
            and not _ABSORBED.search(" ".join(clause.split()[3:]))
            and sentence[start : start + 1].isalpha()
        ):
            main = first_upper(sentence[start:])
            out.append(ConditionClause(0, start, opener, True, main, sentence[: lead.end("clause")]))
    if lang != "en":
        return out
    trailing = [o for o in openers if o not in ("when", "whenever")]
    pattern = rf"(?P<join>,?\s+)(?P<open>{_alternation(trailing)})\b(?P<clause>(?:[^,;:.!?]|[.](?=\w))*)"
    for m in re.finditer(pattern, sentence, re.IGNORECASE):
        before = sentence[: m.start()]
        prev = re.findall(r"[\w']+", before.lower())[-1:] or [""]
        if _words(before) < _MIN_MAIN_WORDS or prev[0] in ASKING or prev[0] in _NOT_BEFORE_CONDITION:
            continue
        if m.group("open")[:1].isupper() or _words(m.group("clause")) < 2 or _NO_CONDITION.match(m.group("clause")):
            continue
        if m.group("open").lower() == "except" and re.match(r"\s*that\b", m.group("clause")):
            continue
        found = _after_clause(sentence, m, prev[0])
        if found is not None:
            out.append(found)
    tails = rf"(?P<join>,?\s+)(?P<open>(?:only\s+)?(?:{_alternation(CONDITION_TAILS_EN)})(?:\s+(?:from|by)\s+(?:a|an|the|your|his|her)\s+\w+)?)\b(?=\s*(?:[.!?]|$))"
    for m in re.finditer(tails, sentence, re.IGNORECASE):
        if _words(sentence[: m.start()]) >= _MIN_MAIN_WORDS and not any(c.start <= m.start() < c.end for c in out):
            out.append(_trailing(sentence, m.start(), m.end(), m.group("open").lower(), m.start("open")))
    return out


# words after which an "if" clause is no condition of what precedes ("more than if", "as if", "even if")
# or cannot go alone ("especially if")
_NOT_BEFORE_CONDITION = frozenset("even as what and or than especially particularly mainly mostly".split())
# "if" clauses that are no condition: "if anything", "if not months", "if we're being honest", "if you will"
_NO_CONDITION = re.compile(
    r"\s*(?:anything|any|not|ever|so|at all|possible|you will|you like|you ask me|i may|"
    r"(?:we're|we are|i'm|i am|to be) (?:being )?honest)\b",
    re.IGNORECASE,
)
# a clause that has taken in its main clause (no comma after it): "When she goes out she is followed ..."
_ABSORBED = re.compile(r"\b(?:he|she|they|we|i|it|you)\s+(?:is|are|was|were|will|would|can|could|has|have|had)\b", re.I)
_BOUNDARY_WORDS = frozenset("that because so but and while where since then".split())
_SUBJECT_START = re.compile(
    r"(?:the|a|an|he|she|it|they|we|you|i|this|that|these|those|there|his|her|their|its|our)\b", re.I
)
_TAG = re.compile(r"\s*[\w\s.'’-]{1,40}?\b(?:said|says|added|reported|wrote|noted)\s*[.!]?\s*$")


def _after_clause(sentence: str, m: re.Match, prev: str) -> ConditionClause | None:
    """The clause ``m`` found after the words it follows: up to the sentence's end, before a closing
    tag (", court papers said."), or, after "that"/"because"/":", the condition opening an inner
    clause ("so that if X, a reader can ...": "if X, " goes)."""
    opener, end = m.group("open").lower(), m.end()
    rest = sentence[end:]
    if re.match(r"\s*(?:[.!]+[\"'’”)]*)?\s*$", rest) or (rest.startswith(",") and _TAG.match(rest[1:])):
        return _trailing(sentence, m.start(), end, opener, m.start("open"))
    inner = prev in _BOUNDARY_WORDS or sentence[: m.start()].rstrip().endswith(":")
    after = re.match(r",\s+", rest)
    if inner and after and _SUBJECT_START.match(rest[after.end() :]):
        start = m.start("open")
        return ConditionClause(start, end + after.end(), opener, False, sentence[:start] + rest[after.end() :],
                               sentence[start:end])  # fmt: skip
    return None


def _trailing(sentence: str, start: int, end: int, opener: str, open_at: int) -> ConditionClause:
    main = sentence[:start] + sentence[end:]
    return ConditionClause(start, end, opener, False, main, sentence[open_at:end])


def condition(sentence: str, lang: str) -> list[Candidate]:
    """The sentence without each condition clause it has (one candidate per clause)."""
    out = []
    for c in condition_clauses(sentence, lang):
        if c.leading:  # the clause and its comma go, the main clause's first letter is capitalised
            out.append((change(sentence, 0, c.end + 1, first_upper(sentence[c.end : c.end + 1])),))
        else:
            out.append((change(sentence, c.start, c.end, ""),))
    return out


def moved_condition(sentence: str, clause: ConditionClause) -> str | None:
    """``sentence`` with ``clause`` at its other end (a supported twin); None when that cannot be
    done safely: a clause with words after it, a main clause opening with a name, or one of more than
    one clause (commas, quotes, "that", reported speech), where the condition would come to govern
    another part ("We'll assume you're ok, but you can opt out if you wish")."""
    if re.search(r"[,;:\"“”]|\b(?:that|said|says|told|but|and)\b", clause.main) or clause.opener == "except":
        return None
    end = _END.search(sentence)
    stop = sentence[end.start() :].strip() if end else "."
    if clause.leading:
        body = clause.main[: len(clause.main) - len(stop)] if end else clause.main
        words = clause.clause.split(None, 1)
        if len(words) < 2:
            return None
        cond = words[0].lower() + " " + words[1]
        if cond.startswith("s'"):
            return None
        return f"{body.rstrip()} {cond}{stop}"
    if end is None or clause.end < end.start():
        return None  # words after the clause ("..., he said."): moving it would cut them off
    main = lower_opener(sentence[: clause.start])
    if main is None:
        return None
    return f"{first_upper(clause.clause.strip())}, {main.rstrip()}{stop}"


__all__ = ["ConditionClause", "condition", "condition_clauses", "moved_condition"]
