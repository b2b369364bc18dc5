"""Figures that are not a number with a unit, for :mod:`hallucheck.text.quantities`: clock times
("08:15", "7.30 am", "half past seven", "14h30"), ratios ("1:1", "3:1"), frequencies ("twice
daily", "three times a day", "3x daily", "2-mal täglich", "每天三次"), ordinals and stage labels
("4th dose", "Phase III", "Grade 2"), glued codes ("5G", "4G"), and fractions ("two-thirds",
"a third of", "three quarters"). Each is read as one :class:`~hallucheck.text.quantity.Quantity`
whose ``dim`` says what it is, so that a clock time is never two numbers and a frequency never a
bare count:

* ``clock``: minutes after midnight; ``unit`` ``"24h"`` when the hour is unambiguous (written with
  a leading zero, above 12, or with am/pm), ``"12h"`` otherwise ("at 8:15" may be morning or
  evening; it matches 08:15 and 20:15);
* ``ratio``: the first term over the second;
* ``freq:<period>``: how many times per day, week, month or year;
* ``ordinal:<noun>``, ``label:<word>``, ``code:<letters>``: the number of the position, stage or
  code, compared only with the same noun, word or letters ("the first year" is a ``time`` of one
  year, :data:`FIRST_SPAN`; "los primeros años", the first few, no position);
* fractions are ``percent`` values, approximate (``qualifier="approx"``);
* the part of a month ("the end of March", "early June", "fin mars"): :func:`month_phases`, a date.

Spans never overlap; :func:`figure_forms` returns them in order and the caller reads numbers only
outside them.
"""

from __future__ import annotations

import re

from .quantity import Quantity, SpanSet, non_overlapping
from .stopwords import STOP_WORDS
from .units import CJK, ISO_CURRENCIES, MONTHS, UNITS, WORD_NUMBERS, unit_at

_MONTH_NAMES = frozenset(MONTHS)
ANY_DIGIT = re.compile(r"[\d²³¹⁰-⁹₀-₉]")  # what str.isdigit takes for a digit in running text

_CLOCK = re.compile(
    r"(?<![\w.,:])(?P<h>[01]?\d|2[0-4])(?:(?P<sep>:|\s?h\s?)(?P<m>[0-5]\d)|\.(?P<dm>[0-5]\d)(?=\s*(?:[ap]\.?m\b|uhr\b|h\b)))"
    r"(?:\s*(?P<ap>[ap])(?:\.m\.|m)(?!\w))?(?![\d:]|\.\d)",
    re.IGNORECASE,
)
_CLOCK_AFTER_AT = re.compile(
    r"\b(?:at|until|till|by|from|um|bis|ab|à|a las|de las|desde las|hasta las)\s+(?P<h>[01]?\d|2[0-3])\.(?P<m>[0-5]\d)"
    r"(?!\d|[.,]\d|\s*(?:%|per|[^\W\d_]*\s*(?:kg|mg|km|m|g|l|ml)\b))",
    re.IGNORECASE,
)
_HOUR_AMPM = re.compile(r"(?<![\w.,:])(?P<h>1[0-2]|0?[1-9])\s*(?P<ap>[ap])(?:\.m\.|m)(?!\w)", re.IGNORECASE)
_HOUR_WORD = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|noon|midnight|1[0-2]|0?[1-9]"
_MINUTE_WORDS = (
    "twenty-(?:one|two|three|four|five|six|seven|eight|nine)|twenty|one|two|three|four|five|six|seven|eight|nine|"
    "ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
)
_PAST = re.compile(
    rf"\b(?P<f>half|(?:a\s+)?quarter|(?P<mins>\d{{1,2}}|{_MINUTE_WORDS})(?:\s+minutes)?)\s+"
    rf"(?P<rel>past|to|after|before)\s+(?P<h>{_HOUR_WORD})\b",
    re.IGNORECASE,
)
_OCLOCK = re.compile(rf"\b(?P<h>{_HOUR_WORD})\s+o'?clock\b|\b(?P<n>noon|midnight)\b", re.IGNORECASE)
# "3:1", "3 : 1"; not "Ages 3–12: 50%" (a label before a colon, a range's end, a percentage)
_RATIO = re.compile(r"(?<![\w.,:\-–])(?P<a>\d{1,3})(?::|\s:\s)(?P<b>\d{1,3})(?![\w:%]|[.,]\d|\s?%)")

_ONCE = {"once": 1, "twice": 2, "thrice": 3}
_PERIODS = {
    "day": "day", "daily": "day", "days": "day", "täglich": "day", "tag": "day", "jour": "day", "día": "day",
    "dia": "day", "diario": "day", "diaria": "day", "diariamente": "day", "quotidien": "day",
    "week": "week", "weekly": "week", "woche": "week", "wöchentlich": "week", "semaine": "week",
    "semana": "week", "semanal": "week", "hebdomadaire": "week",
    "month": "month", "monthly": "month", "monat": "month", "monatlich": "month", "mois": "month",
    "mes": "month", "mensual": "month", "mensuel": "month",
    "year": "year", "yearly": "year", "annually": "year", "annual": "year", "jahr": "year", "jährlich": "year",
    "an": "year", "año": "year", "anual": "year",
    "hour": "hour", "hourly": "hour", "stunde": "hour", "heure": "hour", "hora": "hour",
}  # fmt: skip
_NUM_WORD = "|".join(sorted((re.escape(w) for w in WORD_NUMBERS if w.isascii() and len(w) > 2), key=len, reverse=True))
_FREQ = re.compile(
    rf"\b(?:(?P<once>once|twice|thrice)|(?P<n>\d+|{_NUM_WORD})(?:\s*[-‐]?\s*(?:times|time|x|×|mal|fois|veces|vez)))"
    r"(?:\s+(?:a|an|per|each|every|pro|par|por|al|a\s+la|am|im|in\s+the|in\s+a)\s+(?P<p1>[^\W\d_]+)"
    r"|\s+(?P<p2>daily|weekly|monthly|yearly|annually|hourly|täglich|wöchentlich|monatlich|jährlich|diario|diaria|"
    r"diariamente|semanal|mensual|anual|quotidien(?:ne)?s?|hebdomadaire|mensuel(?:le)?|par\s+jour))?",
    re.IGNORECASE,
)
_CJK_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_CJK_FREQ = re.compile(
    rf"(?:每(?P<p1>天|日|周|星期|月|年)|一(?P<p2>天|日|周|月|年))\s*(?:服用|用药|使用|吃|喝|[{CJK}]{{0,3}}?)?"
    r"(?P<n>[一二两三四五六七八九十]|\d+)\s*次"
)
_CJK_PERIOD = {"天": "day", "日": "day", "周": "week", "星期": "week", "月": "month", "年": "year"}
_ORDINAL = re.compile(
    r"(?<![\w.])(?P<n>\d+)(?:st|nd|rd|th|\.?(?:er|ème|e|º|ª|o|a))(?!\w)(?:[\s-]+(?P<noun>[^\W\d_]+))?", re.IGNORECASE
)
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10}
_LABEL = re.compile(
    r"\b(?P<word>phase|stage|grade|type|class|level|tier|category|schedule|step|phase|stufe|klasse|fase|etapa|"
    r"classe|niveau|grado|nivel|tipo)\s+(?P<n>\d+[a-z]?|(?:I{1,3}|IV|V|VI{1,3}|IX|X)\b)",
    re.IGNORECASE,
)
_CODE = re.compile(r"(?<![\w.,])(?P<n>\d+)(?P<letters>[A-Za-z]{1,2})(?![\w])")
_FRACTION = re.compile(
    r"\b(?:(?P<num>one|two|three|a|an)[\s-]+(?P<den>halves|half|thirds?|quarters?|fifths?|tenths?)"
    r"|(?P<half>half))\b(?P<of>\s+of\b)?",
    re.IGNORECASE,
)
_FRACTION_DEN = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fifth": 5}
_FRACTION_DEN |= {"fifths": 5, "tenth": 10, "tenths": 10}


def _word_value(w: str) -> int | None:
    w = w.lower()
    if w.isdigit():
        return int(w)
    if w in _ONCE:
        return _ONCE[w]
    v = WORD_NUMBERS.get(w)
    return int(v) if v is not None and float(v).is_integer() else None


def _q(text: str, s: int, e: int, value: float, dim: str, unit: str | None = None, qual: str | None = None) -> Quantity:
    return Quantity(text[s:e], s, e, float(value), float(value), dim, unit, qual, 2 if qual == "approx" else 0)


_HMS = re.compile(r"(?<![\w.,:])(?P<h>\d{1,2}):(?P<m>[0-5]\d):(?P<s>[0-5]\d)(?![\d:])")


def _clocks(text: str) -> list[Quantity]:
    out = []
    for m in _HMS.finditer(text):  # "2:06:41" is a time taken, in hours
        hours = int(m.group("h")) + int(m.group("m")) / 60 + int(m.group("s")) / 3600
        out.append(Quantity(m.group(), m.start(), m.end(), hours, hours, "time", "h"))
    for m in _CLOCK.finditer(text):
        h, mins = int(m.group("h")), int(m.group("m") or m.group("dm"))
        ap = (m.group("ap") or "").lower()
        sep = m.group("sep")
        if sep == ":" and m.group("m") is None:
            continue
        sep = sep.strip() if sep else sep
        if h == 24 and mins:
            continue
        if (
            sep
            and sep != ":"
            and not re.search(
                r"(?:à|vers|dès|jusqu'à|avant|après|um|ab|bis|a las|at)\s*$",
                text[max(0, m.start() - 12) : m.start()],
                re.I,
            )
        ):
            # "2 h 30" after no word for a point in time is a duration ("mijoter 2 h 30", "soit 1 h 24")
            out.append(Quantity(m.group(), m.start(), m.end(), h + mins / 60, h + mins / 60, "time", "h"))
            continue
        if ap:
            if h > 12:
                continue
            h = h % 12 + (12 if ap == "p" else 0)
            unit = "24h"
        else:
            unit = "24h" if h > 12 or h == 0 or m.group("h").startswith("0") or sep != ":" else "12h"
        out.append(_q(text, m.start(), m.end(), (h % 24) * 60 + mins, "clock", unit))
    for m in _CLOCK_AFTER_AT.finditer(text):
        h, mins = int(m.group("h")), int(m.group("m"))
        unit = "24h" if h > 12 or m.group("h").startswith("0") else "12h"
        out.append(_q(text, m.start("h"), m.end(), h * 60 + mins, "clock", unit))
    for m in _HOUR_AMPM.finditer(text):
        h = int(m.group("h")) % 12 + (12 if m.group("ap").lower() == "p" else 0)
        out.append(_q(text, m.start(), m.end(), h * 60, "clock", "24h"))
    for m in _PAST.finditer(text):
        h = _hour(m.group("h"))
        f = m.group("f").lower()
        words = m.group("mins").lower().split("-") if m.group("mins") else []
        mins = 30 if f == "half" else 15 if "quarter" in f else sum(_word_value(w) or 0 for w in words) or None
        if h is None or mins is None:
            continue
        at = re.search(r"\b(?:at|um|à|by|until)\s+$", text[max(0, m.start() - 8) : m.start()], re.IGNORECASE)
        if (
            m.group("rel").lower() in ("to", "before")
            and m.group("mins")
            and "minute" not in m.group().lower()
            and not at
        ):
            continue  # "4 to 8", "ten to twelve": a range, not ten minutes to twelve ("at five to six" is a time)
        value = h * 60 + mins if m.group("rel").lower() in ("past", "after") else h * 60 - mins
        out.append(_q(text, m.start(), m.end(), value % 1440, "clock", "24h" if h in (0, 12) else "12h"))
    for m in _OCLOCK.finditer(text):
        h = _hour(m.group("h") or m.group("n"))
        if h is not None:
            out.append(_q(text, m.start(), m.end(), h * 60, "clock", "24h" if h in (0, 12) else "12h"))
    return out


def _hour(word: str) -> int | None:
    w = word.lower()
    if w == "noon":
        return 12
    if w == "midnight":
        return 0
    v = _word_value(w)
    return v if v is not None and 0 <= v <= 12 else None


def _frequencies(text: str) -> list[Quantity]:
    out = []
    for m in _FREQ.finditer(text):
        n = _word_value(m.group("once") or m.group("n"))
        period_word = (m.group("p1") or m.group("p2") or "").lower()
        period = "day" if period_word.startswith("par") else _PERIODS.get(period_word)
        if n is None or (period is None and not m.group("once")):
            continue  # "three times" alone: no period to compare
        if period is None:
            continue
        out.append(_q(text, m.start(), m.end(), n, f"freq:{period}"))
    for m in _CJK_FREQ.finditer(text):
        raw = m.group("n")
        n = int(raw) if raw.isdigit() else _CJK_DIGITS.get(raw)
        period = _CJK_PERIOD.get(m.group("p1") or m.group("p2") or "")
        if n and period:
            out.append(_q(text, m.start(), m.end(), n, f"freq:{period}"))
    return out


_ORDINAL_WORDS = {
    w: i + 1
    for ws in (
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth",
        "erste zweite dritte vierte fünfte sechste siebte achte neunte zehnte elfte zwölfte",
        "premier deuxième troisième quatrième cinquième sixième septième huitième neuvième dixième onzième douzième",
        "primero segundo tercero cuarto quinto sexto séptimo octavo noveno décimo undécimo duodécimo",
    )
    for i, w in enumerate(ws.split())
} | {"première": 1, "primer": 1, "primera": 1, "primeiro": 1, "primeira": 1, "eerste": 1}
_ORDINAL_WORD = re.compile(
    r"\b(?P<w>"
    + "|".join(sorted(_ORDINAL_WORDS, key=len, reverse=True))
    + r")(?P<suffix>[nrsm]|e|a|s|ère)?\s+(?P<noun>[^\W\d_]+)",
    re.IGNORECASE,
)
# "the first year", "el primer mes", "das erste Jahr": the span of time from the start, one unit long
FIRST_SPAN = re.compile(r"(?:first|erste[nmrs]?|premi(?:er|ère)|primer[oa]?|prim[oa]|primeir[oa])\s", re.IGNORECASE)
# an account, card or reference number: compared digit for digit ("DE89 3704 0044 0532 0130 00")
_IDENTIFIER = re.compile(
    r"\b(?:[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?|\d{4}(?:[ -]\d{4}){2,4}|"
    r"[A-Z]{1,4}-\d[\dA-Z]*(?:-[\dA-Z]+){1,4})\b"
)


# a number that names a version, route or platform: "iOS 14", "Android 10", "Route 42", "Gleis 4"
_NAMED = re.compile(
    r"(?<=[\w,;:] )(?P<word>[A-Z][A-Za-z]{1,14}|[a-z]+[A-Z][A-Za-z]*)\s(?P<n>\d{1,3}(?:\.\d)?)(?![\w.,:%]|\.\d)"
)
_NOT_NAMES = frozenset(
    "In On At By For From To Until Since And Or The Of Up Over Under About Around After Before Between Step Page".split()
)


def _ordinal_words(text: str) -> list[Quantity]:
    """Positions written in words ("the third dose", "la segunda dosis"), and "the first year", a span."""
    out = []
    for m in _ORDINAL_WORD.finditer(text):
        noun = m.group("noun").lower()
        if noun in STOP_WORDS or noun in ("quarter", "half") or noun in WORD_NUMBERS or noun.isdigit():
            continue  # "the third quarter" is a period, "first of all" no position
        if (m.group("suffix") or "").lower() == "s" and not m.group("w").lower().endswith("s"):
            continue  # "los primeros años", "les premiers jours": the first few, no one position
        value = _ORDINAL_WORDS[m.group("w").lower()]
        unit = UNITS.get(noun)
        if value == 1 and unit is not None and unit[0] == "time" and not noun.endswith("s"):
            # "the first year" is a year, from the start: it is what "twelve months" or "one year" says
            out.append(Quantity(m.group(), m.start(), m.end(), unit[1], unit[1], "time", noun))
            continue
        noun = noun[:-1] if len(noun) > 3 and noun.endswith("s") else noun
        out.append(_q(text, m.start(), m.end(), value, f"ordinal:{noun}"))
    return out


def _ordinals_and_labels(text: str, lang: str) -> list[Quantity]:
    out = []
    for m in _NAMED.finditer(text):
        word = m.group("word")
        if word in _NOT_NAMES or word.lower() in _MONTH_NAMES or unit_at(text, m.end()) is not None:
            continue
        if word in ISO_CURRENCIES:  # "USD 5.2 million": an amount, not a version or route
            continue
        if _PLURAL_AFTER.match(text, m.end()):
            continue  # "Model 3 owners" reads either way: a count is the safer reading
        out.append(_q(text, m.start(), m.end(), float(m.group("n")), f"label:{word.lower()}"))
    for m in _IDENTIFIER.finditer(text):
        ident = re.sub(r"[ -]", "", m.group()).upper()
        out.append(Quantity(m.group(), m.start(), m.end(), float(len(ident)), float(len(ident)), "id", ident))
    out += _ordinal_words(text)
    for m in _LABEL.finditer(text):
        raw = m.group("n")
        value = _ROMAN.get(raw.lower()) if raw.isalpha() else int(re.match(r"\d+", raw).group())  # type: ignore[union-attr]
        if value is not None:
            out.append(_q(text, m.start(), m.end(), value, f"label:{m.group('word').lower()}"))
    for m in _ORDINAL.finditer(text):
        suffix = re.split(r"[\s-]", m.group()[len(m.group("n")) :])[0].lower()
        if lang == "en" and suffix not in ("st", "nd", "rd", "th"):
            continue
        if lang != "en" and suffix.startswith(".") and not m.group("noun"):
            continue  # "3." ends a sentence
        noun = (m.group("noun") or "").lower()
        if noun in STOP_WORDS:
            noun = ""
        noun = noun[:-1] if len(noun) > 3 and noun.endswith("s") else noun
        end = m.end() if noun else m.end("n") + len(suffix)
        out.append(_q(text, m.start(), end, int(m.group("n")), f"ordinal:{noun}" if noun else "ordinal"))
    for m in _CODE.finditer(text):
        letters = m.group("letters")
        if letters.lower() in ("st", "nd", "rd", "th", "x", "h", "am", "pm") or not letters.isupper():
            continue  # ordinals, frequencies and times above; "2kg" and "5mg" are units
        out.append(_q(text, m.start(), m.end(), int(m.group("n")), f"code:{letters.lower()}"))
    return out


_OF_AN_HOUR = re.compile(r"\b(?:(?P<f>a\s+quarter|three[\s-]+quarters|half)\s+(?:of\s+)?an\s+hour)\b", re.IGNORECASE)
_OUT_OF = re.compile(
    rf"(?<![\d.,])\b(?P<n>\d+|{_NUM_WORD})\s+(?P<w>out\s+of|in)\s+(?P<e>every\s+)?(?P<m>\d+|{_NUM_WORD})\b",
    re.IGNORECASE,
)


def _fractions(text: str) -> list[Quantity]:
    out = []
    for m in _OF_AN_HOUR.finditer(text):  # "a quarter of an hour" is 15 minutes
        f = m.group("f").lower()
        hours = 0.25 if "quarter" in f and "three" not in f else 0.75 if "three" in f else 0.5
        out.append(Quantity(m.group(), m.start(), m.end(), hours, hours, "time", "hour"))
    for m in _OUT_OF.finditer(text):  # "19 out of 20", "one in three": a share
        n, d = _word_value(m.group("n")), _word_value(m.group("m"))
        if m.group("w").lower() == "in" and not m.group("e") and re.fullmatch(r"1[89]\d\d|2[01]\d\d", m.group("m")):
            continue  # "31,000 in 1991": a year, not one in so many
        if n is not None and d and n < d:
            out.append(_q(text, m.start(), m.end(), 100.0 * n / d, "percent", "fraction", "approx"))
    for m in _FRACTION.finditer(text):
        if m.group("half"):
            if not m.group("of"):
                continue  # "half an hour" is a duration, read elsewhere
            num, den = 1, 2
        else:
            den_word = m.group("den").lower()
            word = m.group("num").lower()
            num = 1 if word in ("a", "an", "one") else int(WORD_NUMBERS[word])
            den = _FRACTION_DEN[den_word]
            if word in ("a", "an") and not m.group("of"):
                continue  # "a quarter" of a year, "a third" place: a fraction only "of" something
            if den_word in ("quarter", "quarters") and _OF_YEAR.match(text, m.end()):
                continue
        end = m.end("of") - 3 if m.group("of") else m.end()
        out.append(_q(text, m.start(), end, 100.0 * num / den, "percent", "fraction", "approx"))
    return out


_PHASE_WORDS = {
    "end": "end", "late": "end", "fin": "end", "finales": "end", "fines": "end", "ende": "end", "fine": "end",
    "fim": "end", "final": "end", "eind": "end", "beginning": "start", "start": "start", "early": "start",
    "début": "start", "debut": "start", "principios": "start", "comienzos": "start", "inicios": "start",
    "anfang": "start", "inizio": "start", "início": "start", "inicio": "start", "begin": "start",
    "middle": "mid", "mid": "mid", "mi": "mid", "mediados": "mid", "mitte": "mid", "metà": "mid", "meados": "mid",
    "midden": "mid",
}  # fmt: skip
_MONTH = "|".join(sorted((re.escape(m) for m in MONTHS if len(m) > 3 or m in ("may", "mai")), key=len, reverse=True))
_NOT_A_DAY = r"\b(?!\s*\d{1,2}\b)"  # "the end of March", not "start March 3"
# English names a part of a month with "of" ("the end of March"), or "late", "early", "mid" before it
_PHASE_EN = re.compile(
    rf"\b(?:(?P<p>end|beginning|start|middle)\s+of(?:\s+the\s+month\s+of)?\s+|(?P<q>late|early|mid)[\s-]+)"
    rf"(?P<m>{_MONTH}){_NOT_A_DAY}",
    re.IGNORECASE,
)
_PHASE_OTHER_WORDS = sorted(set(_PHASE_WORDS) - {"end", "beginning", "start", "middle", "late", "early"}, key=len)
_PHASE_OTHER = re.compile(
    rf"\b(?P<p>{'|'.join(reversed(_PHASE_OTHER_WORDS))})"
    rf"(?:\s+de|\s+d['’]|\s+di|\s+do|\s+van)?[\s-]+(?P<m>{_MONTH}){_NOT_A_DAY}",
    re.IGNORECASE,
)


def month_phases(text: str, dates: list[Quantity], lang: str = "en") -> list[Quantity]:
    """``dates`` with the part of a month a text names ("the end of March", "early May", "fin mars",
    "Anfang Juni", "finales de marzo"; the words of English in an English text, of the others in
    another): a date of that month (and year, when given) whose ``unit`` is the part ("end", "start",
    "mid"), which :func:`~hallucheck.text.quantity.same_value` holds to the days
    :data:`~hallucheck.text.quantity.PHASE_DAYS` gives it."""
    out = list(dates)
    for m in (_PHASE_EN if lang == "en" else _PHASE_OTHER).finditer(text):
        phase = _PHASE_WORDS[(m.group("p") or m.group("q")).lower()]
        month = MONTHS[m.group("m").lower()]
        after = [d for d in out if d.start == m.start("m") and d.date is not None and d.date[2] is None]
        if after:  # "the end of March 2024": the date the month starts
            d = after[0]
            out[out.index(d)] = Quantity(
                text[m.start() : d.end], m.start(), d.end, d.low, d.high, "date", phase, date=d.date
            )
        elif not any(d.start < m.end() and m.start() < d.end for d in out):
            key = float(month * 100)
            out.append(Quantity(m.group(), m.start(), m.end(), key, key, "date", phase, date=(None, month, None)))
    return non_overlapping(out)


def compound_durations(text: str, found: list[Quantity]) -> list[Quantity]:
    """ "2 hours 19 minutes", "3 h 35 min", "1 hour and 40 minutes": one duration, not two."""
    out: list[Quantity] = []
    for q in found:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.dim == q.dim == "time"
            and not prev.is_range
            and not q.is_range
            and q.low < prev.low
            and re.fullmatch(r"\s*(?:,|and|und|et|y)?\s*", text[prev.end : q.start])
        ):
            out[-1] = Quantity(
                text[prev.start : q.end], prev.start, q.end, prev.low + q.low, prev.high + q.high, "time",
                prev.unit, prev.qualifier, prev.digits,
            )  # fmt: skip
            continue
        out.append(q)
    return out


_PLURAL_AFTER = re.compile(r"\s+[a-z]+s\b")
_OF_YEAR = re.compile(r"\s*(?:of\s+(?:the\s+)?)?(?:year|\d{4})")


def figure_forms(text: str, *, lang: str = "en") -> list[Quantity]:
    """Clock times, ratios, frequencies, ordinals, labels, codes and fractions of ``text``, in order,
    spans not overlapping (the earlier and then the longer one kept)."""
    if not ANY_DIGIT.search(text) and not re.search(
        r"(?i)\b(?:once|twice|thrice|times|half|halves|thirds?|quarters?|fifths?|tenths?|noon|midnight|o'?clock|"
        r"phase|stage|grade|out of|in every|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|erste|zweite|dritte|"
        r"vierte|fünfte|premi|deuxième|troisième|primer|primeir|eerste|segundo|tercero)|[次]",
        text,
    ):
        return []
    found = _clocks(text) + _frequencies(text) + _ordinals_and_labels(text, lang) + _fractions(text)
    taken_clock = SpanSet((q.start, q.end) for q in found if q.dim == "clock")
    for m in _RATIO.finditer(text):
        if not taken_clock.overlaps(m.start(), m.end()) and int(m.group("b")) > 0:
            found.append(_q(text, m.start(), m.end(), int(m.group("a")) / int(m.group("b")), "ratio"))
    return non_overlapping(found)


__all__ = ["ANY_DIGIT", "FIRST_SPAN", "figure_forms", "month_phases"]
