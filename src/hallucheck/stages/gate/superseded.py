"""A figure the reference states and then updates: "The fee is £45. From 1 May the fee is £55."

The figure check finds "£45" in the reference and would call "The fee is £45." supported. Yet the text
goes on to replace that value: a price that rises from a date, a profit restated in the audited report,
a leaflet revised, an excess increased at renewal. Stating the old value as the current one is wrong, and
a reader who trusts the figure check is misled by exactly the copy it waves through.

:func:`superseded` reads the figures :meth:`.facts.ReferenceFacts.check_quantities` held **supported**
and turns one into a contradiction (its counterpart the newer value) only when all of these hold:

* a **later** sentence of the reference states a value of the same kind and basis (a date is never
  read as an update: "From 1 May" is the cue, not the new value) that is **not** the claim's value;
* that value is **introduced as an update**, in a sentence that does not open with a condition or a
  scope ("When the vehicle is fully loaded, increase the rear tyre pressure to 2.6 bar" sets a value for
  a case; "For drivers under 25 ..." speaks of others): a verb that reports a change right before it
  ("was increased to", "rises to", "will rise to", "restated ... at", "erhöht auf", "porté à", "sube a";
  not an instruction, "increase ... to"), or its sentence opens with a time
  from which it holds ("From 1 April 2025", "As of", "With effect from", "Ab dem", "À partir du",
  "A partir del"; not "After ...", which in a narrative moves the story on) or has "now" (or "no
  longer", "finally", "désormais", "jetzt", "ahora") just before the value ("is now £55") -- a cue the
  old sentence does not carry too ("A simple funeral now costs £3,590." is no update of "A full funeral
  now costs £5,423."); and no case is named right after the value ("reduced to 1 tablet in patients with
  kidney problems", "réduit à un mois en cas de mutation"; a time there, "in May 2026", is no case);
* it is **about the same thing**: the words around it, words of change left out, fit the claim's words
  around its value nearly as well as the old value's do (:data:`UPDATE_FIT`, both at least
  :data:`MIN_FIT`; so "the excess for drivers under 25 rises to £300" does not update "the standard
  excess is £100");
* it stands within :data:`UPDATE_REACH` sentences of the old one, among at most
  :data:`MAX_UPDATE_VALUES` values of its kind there (the work stays bounded on long references: past
  that many, the figure abstains, as whether one of them updates it is not read);
* the claim does not place its value **in the old frame**: no word such as "previously", "until",
  "initially", "preliminary" (and their German, French, Spanish forms), no date or year that the old
  sentence gives and the newer one does not ("the 2024/25 charge was £1.92"), and not the newer value
  too (a claim that tells the change).

Anything less sure leaves the figure as it was: this module only ever turns a *supported* figure into a
contradicted one, with the newer sentence named as its reason (or, past :data:`MAX_UPDATE_VALUES`, into an
abstained one). The words before and after each candidate value are read within :data:`CUE_REACH`
characters of it, so the work grows with the number of values, not with their product with the
sentence's length.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Sequence
from weakref import WeakKeyDictionary

from ...text.quantities import Quantity, parse_quantities, same_value
from .clauses import Clauses, stem, value_context

UPDATE_FIT = 0.65  # how well the newer value's words must fit the claim's, against the old value's
UPDATE_REACH = 20  # sentences after the old value's in which an update of it is looked for
MIN_FIT = 0.5  # and both at least this well (a word of the value's clause): else the referent is unsure
MAX_UPDATE_VALUES = 256  # values of a figure's kind read after it for an update; past that, it abstains
CUE_REACH = 200  # characters before and after a value in which its cue of change or its case is read
PAST_CAP = (
    f"not compared: the reference goes on to give more than {MAX_UPDATE_VALUES} values of its kind, "
    "and whether one of them updates it is not read"
)
# a verb that reports a change, never one that sets a value: an intransitive one ("rises to", "fell to"),
# a transitive one in the passive ("was increased to", "has been shortened to"), one whose meaning is to
# update ("restated ... at", "revised to"), or a future ("will rise to", "will be cut to"). Not an
# instruction ("increase the rear tyre pressure to 2.6 bar") nor a rule ("a fourth withdrawal reduces the
# rate to 1.50 %"): they set a value for a case, they do not update one.
_TRANSITIVE = (
    r"raised|increased|reduced|lowered|shortened|extended|lengthened|changed|adjusted|moved|replaced|cut|set|"
    r"brought|decreased|capped|limited|fixed"
)
_CHANGED = (
    r"ris(?:es|en)|rose|fall(?:s|en)|fell|climb(?:s|ed)|drop(?:s|ped)|(?:goes|went|gone)\s+(?:up|down)|"
    r"restat(?:es|ed)|revis(?:es|ed)|amend(?:s|ed)|updat(?:es|ed)|correct(?:s|ed)|"
    rf"(?:is|are|was|were|been|be)\s+(?:\w+\s+)?(?:{_TRANSITIVE})|"
    r"(?:will|shall)\s+(?:rise|fall|climb|drop|go\s+up|go\s+down)"
)
# the stems of words that say a change: left out when two values' words are compared (they are the cue,
# not what the value is about: "Online sales rose 11 %" is no update of "Like-for-like sales rose 4.8 %"; "change"
# stays, a noun as often: "the oil change interval")
_CUE_STEMS = frozenset(
    stem(w)
    for w in """rise rises rose risen rising fall falls fell fallen climb climbed drop dropped grow grew grown
    increase increased decrease decreased reduce reduced raise raised lower lowered restate
    restated revise revised amend amended update updated correct corrected shorten shortened extend extended
    now previously currently""".split()
)
# a verb of change, then at most a few words, then "to"/"at" (or its German, French, Spanish word)
# right before the value
_CHANGED_TO = re.compile(
    rf"(?:\b(?:{_CHANGED})\b[^.;:!?]{{0,60}}?\b(?:to|at)"
    r"|\b(?:erhöht|gesenkt|angehoben|reduziert|geändert|verkürzt|verlängert|korrigiert|steigt|steigen|sinkt|sinken)"
    r"\b[^.;:!?]{0,40}?\bauf"
    r"|\b(?:porté|portée|portés|relevé|relevée|ramené|ramenée|abaissé|abaissée|réduit|réduite|passe|passent|"
    r"fixé|fixée|augmente|augmentent|diminue|diminuent|rectifié|rectifiée|corrigé|corrigée)\b[^.;:!?]{0,40}?\bà"
    r"|\b(?:aumenta|aumentan|sube|suben|baja|bajan|pasa|pasan|eleva|elevan|reduce|reducen|fija|fijado|fijada|"
    r"corregido|corregida|rectificado|rectificada)\b[^.;:!?]{0,40}?\ba)"
    r"\s+(?:(?:about|around|some|approximately|rund|etwa|environ|unos|unas)\s+)?\S*$",
    re.IGNORECASE,
)
# a sentence that opens with the time from which its values hold
_FROM_THEN = re.compile(
    r"^\W*(?:from|as\s+of|as\s+from|since|with\s+effect\s+from|effective(?:\s+from)?|starting(?:\s+(?:on|from))?|"
    r"beginning|ab|seit|vom|à\s+partir\s+d|depuis|dès|a\s+partir\s+d|desde|con\s+efecto)\b",
    re.IGNORECASE,
)
# a sentence that opens with a condition or a scope sets a value for a case, not an update ("When the
# vehicle is fully loaded, ...", "For drivers under 25 ...")
_FOR_A_CASE = re.compile(
    r"^\W*(?:if|when|whenever|unless|for|in\s+case|once|while|during|where|wenn|falls|für|bei|si|quand|lorsque|"
    r"pour|en\s+cas|cuando|para|en\s+caso|durante)\b",
    re.IGNORECASE,
)
_NOW_REACH = 15  # characters before a value that "now" may stand in ("is now", "now costs", "now stands at")
# a time after "in"/"en": the value holds from then on, an update
_TIME = (
    r"(?:(?:19|20)\d\d|january|february|march|april|may|june|july|august|september|october|november|december|"
    r"spring|summer|autumn|fall|winter|the\s+(?:new|next|coming|following)\s+(?:year|month|quarter)|"
    r"q[1-4]|janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre|enero|febrero|"
    r"marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|januar|februar|märz|juni|juli|"
    r"oktober|dezember)\b"
)
# a condition right after the value: the value holds for a case ("réduit à un mois en cas de mutation")
_CASE_AFTER = re.compile(
    r"^\W*(?:\S+\s+){0,2}?(?:if|when|whenever|unless|in\s+case|for|where|provided|only|wenn|falls|bei|sofern|"
    r"si|lorsque|quand|en\s+cas|pour|sauf|cuando|en\s+caso|para|salvo|"
    # "in patients with ...", "with a prescription", "during pregnancy": a case; "in May", "in 2026", "with
    # effect from": a time
    r"(?:in|among|with|during|while|under|over|bei|chez|dans|avec|pendant|en|con|durante)\s+(?!"
    + _TIME
    + r"|effect\b|immediate))",
    re.IGNORECASE,
)
# words that say a value now holds in place of another
_NOW = re.compile(
    r"\b(?:now|no\s+longer|instead|finally|ultimately|eventually|henceforth|replaced|corrected|correction|revised|"
    r"restated|amended|jetzt|nun|nunmehr|künftig|neu|désormais|dorénavant|finalement|maintenant|ahora|"
    r"actualmente|finalmente|en\s+adelante)\b",
    re.IGNORECASE,
)
# words that place a claim's value in the old frame
_OLD_FRAME = re.compile(
    r"\b(?:previously|formerly|originally|initially|initial|preliminary|earlier|before|until|till|used\s+to|"
    r"old|former|first\s+(?:reported|announced|proposed|published)|had\s+(?:been|put|proposed|reported)|"
    r"bisher|früher|ursprünglich|zunächst|vorläufig|bis|vorher|alte[nrs]?|"
    r"auparavant|initialement|d'abord|jusqu|ancien(?:ne)?s?|provisoire|"
    r"anteriormente|inicialmente|antes|hasta|antiguo|antigua|provisional)\b",
    re.IGNORECASE,
)


def superseded(ref: Any, claim: str, claim_qs: Sequence[Quantity], checks: list[Any]) -> list[Any]:
    """``checks`` (one per value of ``claim_qs``, as :meth:`~.facts.ReferenceFacts.check_quantities`
    made them, against ``ref``, a :class:`~.facts.ReferenceFacts`; facts imports this module, not the
    reverse) with each supported figure that a later sentence of the reference updates turned into a
    contradiction by the newer value (see the module's docstring)."""
    if not claim_qs or _OLD_FRAME.search(claim):
        return checks
    out = list(checks)
    clauses = Clauses(claim, [(q.start, q.end) for q in claim_qs])
    told: dict[tuple[int, int], bool] = {}  # whether the claim states a reference value too, read once
    for k, (q, c) in enumerate(zip(claim_qs, checks)):
        if c.status != "supported" or c.sentence is None or c.counterpart is None or q.dim in (None, "date"):
            continue
        i = _sentence_index(ref, c.sentence.start)
        if i is None:
            continue
        old = next((j for j, r in enumerate(ref.quantities[i]) if ref.span_of(i, r) == c.counterpart), None)
        if old is None:
            continue
        ctx = {w: x for w, x in value_context(clauses, claim_qs, k).items() if not w.startswith("#")}
        fit_old = _fit(ctx, ref.ref_context(i, old))
        newer, capped = _newer(ref, q, claim_qs, i, ctx, fit_old, told)
        if capped:
            out[k] = replace(c, status="abstained", note=PAST_CAP)
            continue
        if newer is None or _dated_to_old(ref, i, newer[0], claim):
            continue
        i2, r2 = newer
        out[k] = replace(c, status="contradicted", counterpart=ref.span_of(i2, r2), sentence=ref.sentences[i2])
    return out


# per reference, read once: its sentences by where they start, and the times each sentence gives
_STARTS: WeakKeyDictionary[Any, dict[int, int]] = WeakKeyDictionary()
_TIMES: WeakKeyDictionary[Any, dict[int, set[str]]] = WeakKeyDictionary()


def _sentence_index(ref: Any, start: int) -> int | None:
    if ref not in _STARTS:
        _STARTS[ref] = {s.start: i for i, s in reversed(list(enumerate(ref.sentences)))}
    return _STARTS[ref].get(start)


def _sentence_times(ref: Any, i: int) -> set[str]:
    known = _TIMES.setdefault(ref, {})
    if i not in known:
        known[i] = _times(ref.sentences[i].text)
    return known[i]


def _newer(
    ref: Any,
    q: Quantity,
    claim_qs: Sequence[Quantity],
    i: int,
    ctx: dict[str, float],
    fit_old: float,
    told: dict[tuple[int, int], bool],
) -> tuple[tuple[int, Quantity] | None, bool]:
    """The last value after sentence ``i`` that updates the claim's value ``q``, as (sentence, value), or
    None; and whether more than :data:`MAX_UPDATE_VALUES` values of its kind follow within reach (then
    none is read)."""
    found: tuple[int, Quantity] | None = None
    old = ref.sentences[i].text
    says_now = not _NOW.search(old)
    read = 0
    for i2 in range(i + 1, min(len(ref.sentences), i + 1 + UPDATE_REACH)):
        text = ref.sentences[i2].text
        if _FOR_A_CASE.match(text):
            continue
        # a cue the old sentence carries too makes the two parallel, not one an update of the other ("A simple
        # funeral now costs £3,590." / "A full funeral now costs £5,423.")
        opens_from = bool(_FROM_THEN.match(text)) and not _FROM_THEN.match(old)
        for j2, r2 in enumerate(ref.quantities[i2]):
            if r2.dim != q.dim or r2.unit != q.unit:
                continue
            read += 1
            if read > MAX_UPDATE_VALUES:
                return None, True
            if (i2, j2) not in told:
                told[i2, j2] = any(same_value(other, r2) for other in claim_qs)
            if same_value(q, r2) or told[i2, j2]:
                continue  # the claim's value, or the claim states the newer value too: it tells the change
            # "now" and its like speak of the value right after them ("is now £55"), not of a whole sentence
            now = says_now and _NOW.search(text[max(0, r2.start - _NOW_REACH) : r2.start]) is not None
            cue = opens_from or now or _CHANGED_TO.search(text, max(0, r2.start - CUE_REACH), r2.start)
            if not cue or _CASE_AFTER.match(text[r2.end : r2.end + CUE_REACH]):
                continue
            fit_new = _fit(ctx, ref.ref_context(i2, j2))
            if fit_old >= MIN_FIT and fit_new >= max(MIN_FIT, UPDATE_FIT * fit_old):
                found = (i2, r2)
    return found, False


def _dated_to_old(ref: Any, i: int, i2: int, claim: str) -> bool:
    """Whether the claim gives a date or year that the old sentence ``i`` gives and the newer ``i2`` does
    not (the claim speaks of the old period)."""
    return bool((_times(claim) & _sentence_times(ref, i)) - _sentence_times(ref, i2))


def _times(text: str) -> set[str]:
    """The years ("2024", "2024/25") and dates a text gives, as written (lower case)."""
    years = set(re.findall(r"\b(?:19|20)\d{2}(?:/\d{2,4})?\b", text))
    return years | {q.text.lower() for q in parse_quantities(text) if q.dim == "date"}


def _fit(ctx: dict[str, float], ref_ctx: dict[str, float]) -> float:
    """How well two values' words agree (:func:`.clauses.value_context`'s weights), without the words of change."""
    return sum(
        w * ref_ctx[word]
        for word, w in ctx.items()
        if word in ref_ctx and not word.startswith("#") and word not in _CUE_STEMS
    )


__all__ = ["CUE_REACH", "MAX_UPDATE_VALUES", "MIN_FIT", "UPDATE_FIT", "UPDATE_REACH", "superseded"]
