"""What the words around a figure make of it, for :mod:`hallucheck.text.quantities`: the counted noun's
singular (:func:`lemma`), the period a figure is per ("4 hours a month", "$1.12 a share", and further on
in its phrase: "three remote days a week", "150 minutes of exercise every week"), the unit the numbers
of a list share ("7, 14 and 30 tablets"), and a change "from X to Y" ("goes up from 20 to 24 days"),
which states two values, not a range.
"""

from __future__ import annotations

import re

from .quantity import Quantity
from .stopwords import STOP_WORDS
from .units import UNITS, to_base

NOT_NOUNS = frozenset(
    """and or to in on at for with by from per every each times time is are was were be been it its this that
    them they we you he she him her us me take takes taken took use used get gets give gives make makes weighing
    ago earlier later before after
    these those as if when after before than und oder bis zu im am pro je et ou à en par pour y o en por para
    cada auf naar tot""".split()
)
RELATIVE_AFTER = re.compile(
    r"\s*(?:earlier|ago|later|before|previously|prior|früher|zuvor|plus tôt|antes)\b", re.IGNORECASE
)


def lemma(word: str) -> str:
    """A crude singular, good enough to match "tablet"/"tablets", "Tablette"/"Tabletten", "pastilla"/"pastillas"."""
    w = word.lower()
    for suf, rep in (("ies", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh"), ("xes", "x")):
        if w.endswith(suf) and len(w) > len(suf) + 2:
            return w[: -len(suf)] + rep
    for suf in ("en", "es", "s", "n", "e"):
        if w.endswith(suf) and len(w) > len(suf) + 3 and not w.endswith("ss"):
            return w[: -len(suf)]
    return w


_PER = r"(?:per|a|an|each|every|pro|je|par|por|al|a la|ogni|elke|cada)"
_RATE = re.compile(
    rf"\s*(?:{_PER}\s+|/\s*|每)"
    r"(?:(?P<adj>diluted|basic|adjusted|ordinary|common|verwässerte|dilué)\s+)?(?P<unit>[^\W\d_]+)\b",
    re.IGNORECASE,
)
# words after a time that make it a time of its own, not a period something is per
OWN_TIME_AFTER = re.compile(
    r"[-\s]?(?:old|apart|early|late|ahead|behind|away|long|after|beforehand|in advance|from now)\b", re.IGNORECASE
)
_PER_WORDS = frozenset("per a an each every pro je par por al ogni elke cada".split())
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
# words after which "a week" is a time of its own ("for a week", "in a week", "less than a week", "and a day")
_NOT_BEFORE_PERIOD = frozenset(
    """for in within after over during than about around under by at from to until till of on into since past
    before once twice nearly almost just only least most up and or then but while also whole entire full half
    take takes took taken lasts last lasted spend spent wait waited für nach innerhalb pendant dans après en
    durante dentro después por para per entro dopo binnen na gedurende voor""".split()
)
_JOINS = frozenset("and then but while which that who whose und et y e ou o oder mais pero ma maar en".split())
_NO_RATE_DIMS = ("date", "clock", "percent", "ratio", "id", "ordinal", "freq:", "label:", "code:", "age")
MAX_RATE_GAP = 4  # words between a figure and the period it is per ("two and a half hours or more of exercise a week")
# words of a verb phrase: a period after one is when something happens ("65m walls being created every year")
_VERB_WORDS = frozenset(
    """is are was were be been being am has have had having do does did will would shall should can could may
    might must get gets got ist sind war waren wird werden wurde est sont était sera es son fue será""".split()
)


def later_rate(text: str, q: Quantity, limit: int | None = None) -> tuple[int, int, float] | None:
    """(start, end, hours) of the period ``q`` is per when its phrase ends with one a few words on ("three
    remote days a week"; no figure, clause break or joining word between, and before ``limit``, the next
    figure); None when there is none or the period is a time of its own ("for a week", "a week later")."""
    if q.dim is None or (q.dim or "").startswith(_NO_RATE_DIMS) or "/" in q.dim:
        return None
    seg = text[q.end : len(text) if limit is None else limit]
    stop = re.search(r"[.;:!?,()\[\]\d]", seg)
    tokens = list(_WORD.finditer(seg[: stop.start()] if stop else seg))
    for k, t in enumerate(tokens[: MAX_RATE_GAP + 1]):
        w = t.group().lower()
        # a participle before a noun describes it ("scheduled maintenance"); one before the period is a verb
        verb_form = (
            len(w) > 4
            and w.endswith(("ed", "ing"))
            and (k + 1 >= len(tokens) or tokens[k + 1].group().lower() in _PER_WORDS)
        )
        if w in _JOINS or w in _VERB_WORDS or verb_form:
            return None  # "$500 and worked a day", "65m walls being created every year": another clause
        if w == "or" and not (k + 1 < len(tokens) and tokens[k + 1].group().lower() in ("more", "less", "fewer", "so")):
            return None
        if k == 0 or w not in _PER_WORDS or k + 1 >= len(tokens):
            continue
        unit_tok = tokens[k + 1]
        unit = unit_tok.group().lower()
        if seg[t.end() : unit_tok.start()].strip() or unit not in UNITS or UNITS[unit][0] != "time":
            continue
        before = tokens[k - 1].group().lower()
        end = q.end + unit_tok.end()
        if before in _NOT_BEFORE_PERIOD or before in UNITS or RELATIVE_AFTER.match(text, end):
            return None
        if OWN_TIME_AFTER.match(text, end):
            return None  # "a year old", "a week apart": a time of its own
        return q.end + t.start(), end, UNITS[unit][1]
    return None


# an amount of money "a quarter" is per three months ("$22 million a quarter" is $88 million a year); the
# word is no unit of time of its own ("a quarter of the staff")
_QUARTER_WORDS = frozenset({"quarter", "quartal", "trimestre", "kwartaal", "trimestrale"})
_QUARTER_HOURS = 24.0 * 30.4375 * 3


# a value per an amount of a unit: "/100 km", "per 10 kg"
_PER_AMOUNT = re.compile(
    r"\s*(?:/|per\s|pro\s|je\s|par\s|por\s)\s*(?P<n>\d+(?:[.,]\d+)?)\s*(?P<unit>[^\W\d_]+)\b", re.I
)


def _per_unit(text: str, q: Quantity, end: int, dim: str, per: float) -> Quantity:
    """``q`` read as a value per ``per`` base units of ``dim`` (its span running to ``end``)."""
    return Quantity(
        text[q.start : end], q.start, end, q.low / per, q.high / per, f"{q.dim}/{dim}", q.unit, q.qualifier, q.digits
    )


def with_rate(text: str, q: Quantity, limit: int | None = None) -> Quantity:
    """``q`` per unit of time when the text says so: "4 hours per month", "4 hours a week" and "three
    remote days a week" are rates (dimension ``time/time``), not amounts; their values compare per hour.
    A money figure may be per anything ("$1.12 a share"). ``limit``: where the next figure starts."""
    if q.dim in (None, "date", "percent") or "/" in (q.dim or ""):
        return q
    per_amount = _PER_AMOUNT.match(text, q.end)
    if per_amount and per_amount.group("unit").lower() in UNITS and not (q.dim or "").startswith("money:"):
        # "6.2 L/100 km", "120 mg/5 mL": a value per an amount of something else
        dim, factor = UNITS[per_amount.group("unit").lower()]
        if dim != "time":
            # the figure keeps its own span and the amount stays a figure of its own ("each 5 mL spoon")
            amount = float(per_amount.group("n").replace(",", ".")) * factor
            return _per_unit(text, q, q.end, dim, amount)
    m = _RATE.match(text, q.end)
    if not m:
        later = later_rate(text, q, limit)
        if later is None:
            return q
        per = later[2]
        # the span stays the figure's own; the words between are what it is about
        return Quantity(
            q.text, q.start, q.end, q.low / per, q.high / per, f"{q.dim}/time", q.unit, q.qualifier, q.digits
        )
    unit = m.group("unit").lower()
    quarter = _QUARTER_HOURS if unit in _QUARTER_WORDS and (q.dim or "").startswith("money:") else None
    if quarter is None and (unit not in UNITS or UNITS[unit][0] != "time"):
        if (q.dim or "").startswith("money:") and unit not in STOP_WORDS and unit not in NOT_NOUNS:
            # "$1.12 a share", "$0.84 per diluted share": a value per something is not a total
            dim = f"{q.dim}/{lemma(unit)}"
            return Quantity(
                text[q.start : m.end()], q.start, m.end(), q.low, q.high, dim, q.unit, q.qualifier, q.digits
            )
        if unit in UNITS and not (q.dim or "").startswith("money:"):
            # "60 mg/kg", "4.4 mg per kg body weight": a dose per body weight is not an amount
            return _per_unit(text, q, m.end(), UNITS[unit][0], UNITS[unit][1])
        return q
    if m.group("adj") or RELATIVE_AFTER.match(text, m.end()):
        return q  # "$88 million a year earlier": a period for context, not a rate
    per = quarter or UNITS[unit][1]
    return Quantity(
        text[q.start : m.end()],
        q.start,
        m.end(),
        q.low / per,
        q.high / per,
        f"{q.dim}/time",
        q.unit,
        q.qualifier,
        q.digits,
    )


# a change from one value to another: "goes up from 20 to 24 days", "was cut from $5 to $4", "passe de 20 à 24"
_CHANGE = re.compile(
    r"\b(?:go(?:es)?\s+(?:up|down)|went\s+(?:up|down)|gone\s+(?:up|down)|going\s+(?:up|down)|ris(?:es|en|ing|e)|rose|"
    r"increas\w*|rais\w*|grow(?:s|n|ing)?|grew|climb\w*|jump\w*|fall(?:s|en|ing)?|fell|drop\w*|decreas\w*|"
    r"reduc\w*|lower(?:s|ed|ing)?|cut(?:s|ting)?|declin\w*|mov(?:es|ed|ing|e)|chang(?:es|ed|ing|e)|extend\w*|"
    r"shorten\w*|doubl\w*|halv\w*|switch\w*|upgrad\w*|downgrad\w*|adjust\w*|"
    r"steig\w*|stieg\w*|sink\w*|sank|erhöh\w*|senk\w*|gesenkt|gestiegen|gesunken|"
    r"pass(?:e|es|ed|ent|é|a|ou|ó)|augment\w*|baiss\w*|diminu\w*|aument\w*|sub(?:e|en|ió|ieron|ido)|baj(?:a|an|ó)|"
    r"disminu\w*|cresc\w*|"
    r"stijg\w*|steeg|daal\w*|daalde|verhoogd|verlaagd|gaat)\b",
    re.IGNORECASE,
)
_FROM = re.compile(r"\b(?:from|von|de|desde|da|van|by|um|met)\s*$", re.IGNORECASE)  # "rising by 0.5 bar to 2.6 bar" too


def opens_change(text: str, q: Quantity) -> bool:
    """``q`` is the first value of a change "from X to Y" ("goes up from 20 to 24 days")."""
    gap = TO_GAP.match(text, q.end)
    return (
        gap is not None
        and bool(re.match(r"[\d$€£¥]|[^\W\d_]+", text[gap.end() :]))
        and change_from(text, q.start, q.end)
    )


def change_from(text: str, start: int, end: int | None = None) -> bool:
    """The number at ``start`` (ending at ``end``) opens a change "from X to Y" (a word of change before
    "from" in its clause, or the German and Dutch "von X auf Y", "van X naar Y", which name no range):
    X and Y are two values, each of its own, not a range."""
    before = text[max(0, start - 80) : start]
    m = _FROM.search(before)
    if not m:
        return False
    if end is not None and re.match(r"\s*(?:auf|naar)\s", text[end:]) and m.group().lower().startswith("v"):
        return True
    clause = re.split(r"[.;:!?]", before[: m.start()])[-1]
    return _CHANGE.search(clause[-50:]) is not None


_LIST_GAP = re.compile(r"\s*(?:,|and|or|und|oder|et|ou|y|o|、|和|或)\s*", re.IGNORECASE)
TO_GAP = re.compile(r"\s*(?:to|bis|auf|à|a|al|naar|tot)\s*", re.IGNORECASE)  # "from 20 to 24 days"


def share_list_units(text: str, found: list[Quantity]) -> list[Quantity]:
    """Bare numbers of a list take the unit or noun that ends it: "7, 14 and 30 tablets" are three
    counts of tablets, "2, 4 or 8 GB" three sizes; so does the first value of a change ("from 20 to 24
    days": 20 days)."""
    out = list(found)
    for k in range(len(out) - 2, -1, -1):
        q, nxt = out[k], out[k + 1]
        gap = text[q.end : nxt.start]
        listed = _LIST_GAP.fullmatch(gap) or (TO_GAP.fullmatch(gap) and change_from(text, q.start, q.end))
        if q.dim is None and nxt.dim not in (None, "date") and listed:
            factor = UNITS[nxt.unit][1] if nxt.unit in UNITS else 1.0
            out[k] = Quantity(
                q.text,
                q.start,
                q.end,
                to_base(q.low, nxt.unit or "", factor),
                to_base(q.high, nxt.unit or "", factor),
                nxt.dim,
                nxt.unit,
                q.qualifier,
                q.digits,
            )
    return out


_A_SECOND = re.compile(r"(?:a|an|one)\s+second", re.IGNORECASE)
_A_NAME = re.compile(r"(?:[Aa]n?)\s+[A-Z][a-z]+")
_NAME_GOES_ON = re.compile(r"[ \t]+[A-Z][a-z]")


def no_words_as_figures(text: str, found: list[Quantity]) -> list[Quantity]:
    """``found`` (sorted) without the words read as a duration that are none: "a second adult" (an
    ordinal reading holds "second adult"), "a Day Pass" (a name in title case)."""
    ordinal_at = {q.start for q in found if (q.dim or "").startswith("ordinal:")}
    return [
        q
        for q in found
        if not (q.dim == "time" and _A_SECOND.fullmatch(q.text) and q.end - 6 in ordinal_at)
        and not (_A_NAME.fullmatch(q.text) and _NAME_GOES_ON.match(text, q.end))
    ]


__all__ = [
    "no_words_as_figures",
    "NOT_NOUNS",
    "OWN_TIME_AFTER",
    "RELATIVE_AFTER",
    "TO_GAP",
    "change_from",
    "opens_change",
    "later_rate",
    "lemma",
    "share_list_units",
    "with_rate",
]
