"""A change said in the opposite direction, in other words than the reference's: "In the trial, blood
pressure went up with Drug X." against "Drug X lowered blood pressure in the trial." (English only).

:mod:`.meaning` reads only a claim that restates a reference sentence word for word but for one word.
This reads a reworded claim, and speaks only when all of these hold:

* the claim says a change in one direction (up: "rose", "increased", "went up", "boosted"; down: "fell",
  "reduced", "lowered", "went down", ...) and no change in the other;
* the reference sentence it restates (the one sharing most of its content words, at least half of
  them and two or more besides the change words) says a change in the other direction only;
* no sentence of the reference that shares two or more of those words says a change in the claim's
  direction (a reference that states both is left to the verifier);
* "jump" is not read ("intended to jump from his home" restates "fell from his home"), nor a change word
  in another sense ("raise a concern", "falls on a Monday", "grew up in");
* neither the claim nor that sentence holds a negation, a comparison ("than"), or a word that turns a
  change around ("stop", "prevent", "without", "despite", "instead", ...): "Patients who stop the drug
  see their blood pressure rise" restates "the drug lowers blood pressure" and is not read.

What each reference sentence says is read once per reference, not once per claim, so the work grows with
the answer and the reference, not with their product.
"""

from __future__ import annotations

import re
from typing import Any
from weakref import WeakKeyDictionary

from .clauses import stems
from .index import shared_weight

_UP = frozenset(
    """increase increases increased increasing rise rises rose risen rising raise raises raised raising grow grows
    grew grown growing climb climbs climbed climbing soar soars soared soaring surge surges
    surged surging boost boosts boosted boosting hike hikes hiked""".split()
)
_DOWN = frozenset(
    """decrease decreases decreased decreasing fall falls fell fallen falling drop drops dropped dropping lowers
    lowered lowering reduce reduces reduced reducing reduction shrink shrinks shrank shrunk shrinking plunge plunges
    plunged plunging slump slumps slumped slumping slash slashes slashed slashing diminish diminishes diminished
    diminishing lessen lessens lessened lessening decline declines declined declining""".split()
)
_CHANGE = stems(" ".join(_UP | _DOWN))  # the change words' stems, left out when sentences are compared
_PHRASAL_VERBS = frozenset("go goes went gone going come comes came coming".split())  # "went up": the next word
# "pushed blood pressure up", "brought costs down": the particle within the next four words ("bring up" is
# to mention, so only "down" with bring)
_SPLIT_VERBS = {
    **dict.fromkeys("push pushes pushed pushing drive drives drove driven driving send sends sent sending".split(),
                    ("up", "down")),
    **dict.fromkeys("bring brings brought bringing".split(), ("down",)),
}  # fmt: skip
# words that turn a change around or put it in doubt: not read
_TURNS = frozenset(
    """not no never nor cannot without than stop stops stopped stopping quit quits discontinue discontinued
    discontinuing withdraw withdrawn withdrawal prevent prevents prevented preventing avoid avoids avoided despite
    instead unlike unless except reverse reversed reversal offset counter counteract fail fails failed""".split()
)
# the words after a change word that make it no change ("raise a concern", "falls on a Monday", "grew up in")
_NOT_A_CHANGE = {
    "rais": frozenset(
        """concern concerns issue issues question questions alarm awareness money funds children family objection
        objections complaint complaints point matter hand hands doubts doubt flag""".split()
    ),
    "fall": frozenset("on under within into asleep ill behind apart through short silent victim pregnant".split()),
    "fell": frozenset("on under within into asleep ill behind apart through short silent victim pregnant".split()),
    "drop": frozenset("off out by in".split()),
    "grow": frozenset(["up"]),
    "grew": frozenset(["up"]),
}
_WORD = re.compile(r"[a-z]+")
_MIN_SHARE = 0.5  # share of the claim's content words the restated sentence must hold
_MIN_SHARED = 2  # content words besides the change words the claim and a sentence must share


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("’", "'").replace("n't", " not").replace("cannot", "can not"))


def _directions(words: list[str]) -> dict[str, str]:
    """The directions of change ``words`` say (``"up"``, ``"down"``), each with its first word; ``"turn"``
    when a word turns a change around."""
    out: dict[str, str] = {}
    for k, w in enumerate(words):
        nxt = words[k + 1] if k + 1 < len(words) else ""
        if _NOT_A_CHANGE.get(w[:4], frozenset()) & set(words[k + 1 : k + 3]):
            continue
        if w in _TURNS:
            out.setdefault("turn", w)
        elif w in _UP:
            out.setdefault("up", w)
        elif w in _DOWN and not (w.startswith("declin") and nxt == "to"):  # "declined to comment"
            out.setdefault("down", w)
        elif w in _PHRASAL_VERBS and nxt in ("up", "down"):
            out.setdefault(nxt, f"{w} {nxt}")
        elif w in _SPLIT_VERBS:
            particle = next((p for p in words[k + 1 : k + 5] if p in _SPLIT_VERBS[w]), None)
            if particle:
                out.setdefault(particle, f"{w} ... {particle}")
    return out


def direction_conflict(claim: str, ref) -> tuple[str, str, int] | None:
    """``(the claim's word for the change, the sentence's, the sentence's index)`` when ``claim`` says the
    change of the reference sentence it restates in the other direction (see the module's docstring);
    else None. ``ref`` is a :class:`~hallucheck.stages.gate.figures.ReferenceFacts`."""
    said = _directions(_words(claim))
    if len(said) != 1 or "turn" in said:
        return None
    ((direction, said_word),) = said.items()
    words = stems(claim) - _CHANGE
    if len(words) < _MIN_SHARED:
        return None
    scores = shared_weight(words, ref)
    near = [i for i in scores if len(words & ref.bags[i]) >= _MIN_SHARED]
    if not near:
        return None
    best = max(near, key=lambda i: (scores[i], -i))
    if len(words & ref.bags[best]) / len(words) < _MIN_SHARE:
        return None
    says = _says(ref, best)
    if set(says) != {"up", "down"} - {direction}:
        return None
    if any(direction in _says(ref, i) for i in near):
        return None  # a sentence about the same things says the claim's direction
    (says_word,) = says.values()
    return said_word, says_word, best


# per reference: the directions of change each of its sentences says, read once
_SAID: WeakKeyDictionary[Any, dict[int, dict[str, str]]] = WeakKeyDictionary()


def _says(ref: Any, i: int) -> dict[str, str]:
    """:func:`_directions` of reference sentence ``i``, read once per reference."""
    said = _SAID.setdefault(ref, {})
    if i not in said:
        said[i] = _directions(_words(ref.sentences[i].text))
    return said[i]


__all__ = ["direction_conflict"]
