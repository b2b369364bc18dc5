"""Quantities in running text, with their unit or counted noun, normalised so that they compare.

``parse_quantities(text, lang=...)`` finds numbers written in digits ("2.4", "1,000", "3,0" where
the language writes a decimal comma) or in words ("four", "a day", "half an hour", "2.5 million"),
ranges ("4 to 6", "4-6", "between 4 and 6", "4 bis 6", "4至6"), percentages, money ("$2.6
million", "40 €"), measures with a unit ("2.4 bar", "38 psi", "500 mg", "2 km") and counts of a
noun ("8 tablets", "12 months"), and dates ("12 March 2021", "2021-03-12", "in 2019"). Each
:class:`Quantity` keeps its character span, its value range in the unit's base (durations in
hours, pressures in bar, masses in grams, ...) and a ``dim`` that says what it counts: a physical
dimension (``"pressure"``), a currency (``"money:USD"``), ``"percent"``, ``"date"``,
``"count:tablet"`` for a counted noun, or ``None`` for a bare number.

A unit may follow one describing word ("three remote days", "cinco primeros años"); a figure is per
the period that closes its phrase ("three remote days a week", "150 minutes of exercise every week":
:mod:`.figure_words`); "from X to Y" after a word of change is two values, not a range ("goes up from
20 to 24 days"); "20p" is 20 pence, and cents of no currency the text names are marked (``unit``
"¢") so that the figure check may take them as the other text's; "the end of March" is a date of that
month and part (:func:`~.forms.month_phases`); "quinze jours" and "huit jours" are a fortnight and a
week, said roughly.

Why not ``pint`` or ``quantulum3``: pint converts units but does not find them in text, and its
registry takes a noticeable time to load; quantulum3 finds them but only in English and pulls in a
classifier. What a RAG answer needs is a few dozen units in five languages, a unit-less counted noun
and words for numbers: this table does that in a few milliseconds per document, with no dependency.

:func:`same_value` compares two quantities of the same ``dim`` (a rounded value matches the exact
one it rounds from: "2.5 million" = "2,480,000"; a converted value within 3 %: "38 psi" = "2.6
bar").

The parts: the unit, currency and word tables in :mod:`.units`, numbers in :mod:`.numbers`, dates
in :mod:`.dates`, :class:`Quantity` and :func:`same_value` in :mod:`.quantity`; this module reads
a text with them, and ``Quantity``, ``parse_number`` and ``same_value`` are importable from here
as before.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .dates import LETTER_RUN, date_quantity, find_dates
from .figure_words import NOT_NOUNS as _NOT_NOUNS
from .figure_words import (
    OWN_TIME_AFTER,
    TO_GAP,
    change_from,
    later_rate,
    no_words_as_figures,
    share_list_units,
    with_rate,
)
from .figure_words import RELATIVE_AFTER as _RELATIVE_AFTER
from .figure_words import lemma as _lemma
from .forms import ANY_DIGIT, compound_durations, figure_forms, month_phases
from .lang import decimal_comma as uses_decimal_comma
from .numbers import find_numbers, parse_number, sig_digits, tokens_after, word_numbers, written_decimal_comma
from .quantity import EndOrder, Quantity, SpanSet, same_value
from .stopwords import STOP_WORDS
from .units import (
    ARTICLES,
    CJK,
    MONTHS,
    UNITS,
    WORD_NUMBERS,
    currency_after,
    currency_before,
    qualifier_before,
    to_base,
    unit_at,
)

_TO_ASCII = {
    **{0x0660 + d: str(d) for d in range(10)},
    **{0x06F0 + d: str(d) for d in range(10)},
    0x066B: ".",
    0x066C: ",",
}
_OTHER_DIGITS = re.compile("[\u0660-\u0669\u06f0-\u06f9]")
_RANGE_SEP = re.compile(
    r"\s*(?:-|–|—|~|to|bis|à|a|al|y|and|und|et|or|oder|ou|o|至|到|～|~|和|或)\s*",
    re.IGNORECASE,
)
_NOUN_SKIP = frozenset(
    """more less than of the a an de des du la le les der die das den von mehr weniger als del más menos que
    additional further extra other different separate full whole consecutive equal new large small big single
    double individual standard regular""".split()
)


def _measure(
    text: str,
    start: int,
    end: int,
    low: float,
    high: float,
    unit: tuple[str, str, float],
    qual: str | None,
    digits: int,
) -> Quantity:
    """The quantity ``text[start:end]`` of ``low``..``high`` in ``unit`` (surface, dimension, factor)."""
    surface, dim, factor = unit
    return Quantity(
        text[start:end],
        start,
        end,
        to_base(low, surface, factor),
        to_base(high, surface, factor),
        dim,
        surface.lower(),
        qual,
        digits,
    )


def _noun_after(
    text: str, pos: int, *, skip: bool = True, numbers: dict[str, float] = WORD_NUMBERS
) -> tuple[str, int] | None:
    """The counted noun after a number ("8 tablets", "4 weitere Tabletten"): (lemma, end).
    ``skip``: words such as "more", "of", "the" may come between ("8 more tablets"); ``numbers``: the
    number words of the text's language."""
    for k, (tok, s, e) in enumerate(tokens_after(text, pos, 3 if skip else 1)):
        low = tok.lower().rstrip(".")
        if k == 0 and s == pos and not re.match(rf"[{CJK}]", tok):
            return None  # glued to the number ("5G", "A4"): a name, not a count
        if not re.fullmatch(r"[^\W\d_]+(?:-[^\W\d_]+)*", low):
            return None
        if low in _NOUN_SKIP or (len(low) > 4 and low.endswith("ly") and k < 2):
            continue  # "8 more tablets", "13 monthly instalments"
        if low in _NOT_NOUNS or low in numbers or low in MONTHS or low in STOP_WORDS:
            return None
        if len(low) > 4 and low.endswith(("ing", "ed")):
            return None  # a verb form ("children over 12 weighing", "2 opened"): no counted noun
        return _lemma(low), e - (len(tok) - len(tok.rstrip(".")))
    return None


_WORD_THEN = re.compile(r"[ \t\u00a0]+(?P<w>[^\W\d_]{3,})(?=[ \t\u00a0]+[^\W\d_])")


def _time_unit_after_word(
    text: str, start: int, end: int, numbers: dict[str, float], lang: str
) -> tuple[str, str, float, int] | None:
    """The time unit a number counts with one describing word between: "three remote days", "5 more
    days", "cinco primeros años", "cinq premières années"; None when the word is a noun counted (in
    English, a plural: "3 goals minutes later"), a function word, or the number a year ("2019 fiscal
    year"), or the time one of its own ("years apart")."""
    m = _WORD_THEN.match(text, end)
    if not m:
        return None
    word = m.group("w")
    low = word.lower()
    if word[:1].isupper() or low in UNITS or low in numbers or low in MONTHS or low in _NOT_NOUNS:
        return None
    if low in STOP_WORDS and low not in _NOUN_SKIP:
        return None
    if lang == "en" and low.endswith("s") and not low.endswith("ss"):
        return None
    if re.fullmatch(r"1[89]\d\d|20\d\d", text[start:end]):
        return None  # a year
    u = unit_at(text, m.end())
    if u is None or u[1] != "time" or not u[0].isalpha() or len(u[0]) < 3:
        return None
    if _RELATIVE_AFTER.match(text, u[3]) or OWN_TIME_AFTER.match(text, u[3]):
        return None
    return u


_HALF_AFTER = re.compile(r"\s+and\s+a\s+half\b")
_OLD_AFTER = re.compile(r"-?\s?old\b")
_AND_A_HALF = re.compile(r"\s+(?:and a half|und ein halb|et demie?|y medio|y media|半)\b", re.IGNORECASE)
_RATE_BEFORE = re.compile(r"(?:times|time|once|twice|per|mal|fois|veces|vez|pro|par)\s*$", re.IGNORECASE)


def _relative_or_rate(text: str, start: int, uend: int, found: list[Quantity], ends: EndOrder) -> bool:
    """An article with a time unit that is a rate ("4 hours a month", "twice a day", and at the end of
    its figure's phrase: "three remote days a week") or a relative time ("a year earlier"), not an
    amount of time."""
    gap_from_last = start - found[-1].end if found else 99
    prev = ends.last_before(start)  # the figure that ends last before this one
    later = later_rate(text, prev) if prev is not None else None
    return (
        0 <= gap_from_last <= 2
        or bool(_RATE_BEFORE.search(text[max(0, start - 12) : start].rstrip()))
        or bool(_RELATIVE_AFTER.match(text, uend))
        or (later is not None and later[0] == start)
    )


# the words that can make a quantity without a digit ("four", "a day", "half an hour"), to skip a
# sentence with none of them (and no digit) at once
_QUANTITY_WORDS = frozenset(w for w in {*WORD_NUMBERS, *UNITS} if w.isalpha() and len(w) > 1)
_CJK_NUMERAL = re.compile(r"[一二三四五六七八九十两半]")


def _may_hold_quantity(text: str, numbers: dict[str, float], words: set[str]) -> bool:
    if ANY_DIGIT.search(text) or _CJK_NUMERAL.search(text):
        return True
    return not _QUANTITY_WORDS.isdisjoint(words) or not numbers.keys().isdisjoint(words)


# a price in pence glued to its "p" ("20p", "2.5p"); never "720p" or "1080p" (three digits or more)
_PENCE = re.compile(r"(?<![\w.,£$€])(\d{1,2}(?:\.\d{1,2})?|\d{3}\.\d{1,2})p(?![\w'’])")
# "quinze jours", "quince días", "quindici giorni", "huit jours": a fortnight or a week, said roughly
_ROUGH_DAYS = frozenset({"jours", "días", "dias", "giorni"})


def parse_quantities(text: str, *, lang: str | None = None, decimal_comma: bool | None = None) -> list[Quantity]:
    """Every quantity of ``text`` (see the module's docstring), in order, spans not overlapping.
    ``lang``: an ISO 639-1 code, used for decimal commas and day-first dates (``None``: English
    conventions, but "3,0" with not three digits after the comma still reads as 3.0)."""
    known, lang = lang is not None, (lang or "en").lower()
    if _OTHER_DIGITS.search(text):
        # Arabic-Indic digits and separators ("٢٫٢ bar") read as their ASCII twins, one character for one
        original = text
        found = parse_quantities(text.translate(_TO_ASCII), lang=lang, decimal_comma=decimal_comma)
        return [replace(q, text=original[q.start : q.end]) for q in found]
    forms = figure_forms(text, lang=lang)
    numbers = word_numbers(lang)
    words = set(LETTER_RUN.findall(text.lower()))
    phases = month_phases(text, [], lang) if not words.isdisjoint(MONTHS) else []
    if not forms and not phases and not _may_hold_quantity(text, numbers, words):
        return []  # no digit, no number word, no time word: nothing to read (most sentences of a long text)
    if decimal_comma is None:  # a text of no known language: as its own numbers show, else the English way
        decimal_comma = uses_decimal_comma(lang) if known else bool(written_decimal_comma(text))
    dc = decimal_comma
    dates = find_dates(text, day_first=lang != "en")
    dates = month_phases(text, dates, lang) if phases else dates
    forms += [
        Quantity(m.group(), m.start(), m.end(), float(m.group(1)) / 100, float(m.group(1)) / 100, "money:GBP", "GBP",
                 qualifier_before(text, m.start()), sig_digits(m.group(1)) if qualifier_before(text, m.start()) else 0)
        for m in _PENCE.finditer(text)
    ]  # fmt: skip
    in_dates = SpanSet((d.start, d.end) for d in dates)
    forms = [f for f in forms if not in_dates.overlaps(f.start, f.end)]
    taken = SpanSet((q.start, q.end) for q in (*dates, *forms))
    found: list[Quantity] = [*dates, *forms]
    n_pre, ends = len(found), EndOrder(found)
    first_currency: str | None = None
    nums = []
    for n in find_numbers(text, dc, lang):
        if n.word and nums and text[n.start : n.end].lower() == "cent" and not text[nums[-1].end : n.start].strip():
            continue  # "18 Cent": the subunit, read below
        if not taken.covers(n.start) and not (nums and n.start < nums[-1].end):
            nums.append(n)  # (not the scale word of the number before: "720 million")
    i, change_end = 0, -1
    while i < len(nums):
        n = nums[i]
        if len(found) > n_pre and n.start < found[-1].end:
            i += 1  # inside the quantity just read ("half an hour": "an" is not one more hour)
            continue
        low = high = n.value
        start, end = n.start, n.end
        digits = n.digits
        consumed = 1
        change = n.start == change_end  # the second value of a change ("from twenty to twelve days")
        # a range or an alternative: "4 to 6", "4-6", "between 4 and 6", "1 or 2", "4 bis 6", "4至6"; never a
        # change from one value to another ("goes up from 20 to 24 days": two values)
        if i + 1 < len(nums):
            nxt = nums[i + 1]
            gap = text[end : nxt.start]
            head = start
            cur_first, cur_next = currency_before(text, start), currency_before(text, nxt.start)
            if cur_first and cur_next and cur_first[0] == cur_next[0]:
                gap, head = text[end : cur_next[1]], cur_first[1]  # "between $720 million and $740 million"
            is_and = bool(re.fullmatch(r"\s*(?:and|und|et|y|和)\s*", gap, re.IGNORECASE))
            between = re.search(
                r"(?:between|zwischen|entre|介于|在)\s*$", text[max(0, head - 12) : head], re.IGNORECASE
            )
            # (only with a word: "rose from 2-3 % to 5 %" still has its range)
            # (its word before the first value's currency: "risen from £870 to 1,700 pounds")
            change = change_from(text, cur_first[1] if cur_first else head, end) and TO_GAP.fullmatch(gap) is not None
            if change:
                change_end = nxt.start
                if nxt.scale > 1 and n.scale == 1 and 0.1 <= low * nxt.scale / nxt.value <= 10:
                    low = high = low * nxt.scale  # "von 1,31 auf 1,24 Milliarden Euro": the scale word covers both
            elif (
                gap
                and _RANGE_SEP.fullmatch(gap)
                and not re.search(r"[.;:]", gap)
                and nxt.value >= low
                and (between or not is_and)  # "between 4 and 6"; "7, 14 and 30 tablets" is a list
                and not re.search(r"\d\S{0,12},\s*$", text[max(0, start - 16) : start])  # a list: "7, 14 to 30"
            ):
                high, end, digits, consumed = nxt.value, nxt.end, max(digits, nxt.digits), 2
                if nxt.scale > 1 and n.scale == 1 and low * nxt.scale <= high:
                    low *= nxt.scale  # "$720-740 million": the scale word covers both ends
            elif re.fullmatch(r"\s*", gap) is None:
                # "4 hours to 6 hours" / "2 bar to 3 bar": a unit between the two numbers
                u = unit_at(text, end)
                if u is not None:
                    rest = text[u[3] : nxt.start]
                    u2 = unit_at(text, nxt.end)
                    same_unit = u2 is not None and u2[0].lower() == u[0].lower()
                    and_only = re.fullmatch(r"\s*(?:and|und|et|y|和)\s*", rest, re.IGNORECASE)
                    change = (
                        change_from(text, cur_first[1] if cur_first else head, end)
                        and TO_GAP.fullmatch(rest) is not None
                    )
                    change_end = nxt.start if change else change_end
                    if (
                        not change
                        and _RANGE_SEP.fullmatch(rest)
                        and not re.search(r"[.;:]", rest)
                        and nxt.value >= low
                        and same_unit  # "38 mm and 42 mm"; never "3 days and 55 minutes"
                        and (between or not and_only)
                    ):
                        high, end, consumed = nxt.value, nxt.end, 2
        cur_b = currency_before(text, start)
        qual = qualifier_before(text, cur_b[1] if cur_b else start)  # "about £350": the word before the symbol
        half = _HALF_AFTER.match(text, end)  # (read where it stands: no copy of the rest of the text)
        if half and unit_at(text, half.end()) is not None:  # "four and a half hours"
            low, high, end = low + 0.5, high + 0.5, half.end()
        if qual == "approx" and not digits:
            digits = sig_digits(text[start:end])
        before = currency_before(text, start)
        if before:
            cur, sym_start = before
            found.append(Quantity(text[sym_start:end], sym_start, end, low, high, f"money:{cur}", cur, qual, digits))
            i += consumed
            continue
        sub = _SUBUNIT.match(text, end)
        sub_word = (sub.group(1) or sub.group(2)).lower() if sub else ""
        if sub:  # "84 cents" is $0.84
            cur = _SUBUNITS.get(sub_word, "EUR")
            # "cents" takes the currency of the text's first other amount ("€1.47, up 35 cents"), looked up once
            sign = cur
            if sub_word in ("cents", "¢"):
                if first_currency is None:
                    m = _FIRST_CURRENCY.search(text)
                    first_currency = m.group().lower() if m else ""
                if first_currency:
                    cur = "EUR" if first_currency.startswith(("€", "eur")) else "GBP" if first_currency == "£" else cur
                sign = cur if first_currency else "¢"  # cents of no currency the text names: dollars or euros
            found.append(
                Quantity(
                    text[start : sub.end()], start, sub.end(), low / 100, high / 100, f"money:{cur}", sign, qual, digits
                )
            )
            i += consumed
            continue
        cur_after = currency_after(text, end)
        if cur_after:
            found.append(
                Quantity(
                    text[start : cur_after[1]],
                    start,
                    cur_after[1],
                    low,
                    high,
                    f"money:{cur_after[0]}",
                    cur_after[0],
                    qual,
                    digits,
                )
            )
            i += consumed
            continue
        u = unit_at(text, end) or _time_unit_after_word(text, start, end, numbers, lang)
        if (
            u is not None
            and n.word
            and text[start:end].lower() in ARTICLES
            and _relative_or_rate(text, start, u[3], found, ends)
        ):
            i += consumed  # "4 hours a month", "three times a day", "a year earlier": no amount of time
            continue
        if u is not None:
            surface, dim, factor, uend = u
            if n.word and text[start:end].lower() in ARTICLES:
                qual = qual or "approx"  # "a year", "an hour": a round figure
            if _OLD_AFTER.match(text, uend) and dim == "time":
                dim = "age"  # "18-year-old", "a 6 month old baby": an age, not a duration
                uend = text.index("old", uend) + 3
            half = _AND_A_HALF.match(text, uend)
            if half:  # "an hour and a half"
                low, high, uend = low + 0.5, high + 0.5, half.end()
            if n.word and low in (8, 15) and surface.lower() in _ROUGH_DAYS and qual is None:
                qual = "approx"  # "quinze jours" is a fortnight, "huit jours" a week
            found.append(_measure(text, start, uend, low, high, (surface, dim, factor), qual, digits))
            i += consumed
            continue
        if n.word and n.value in (0.5, 0.25):  # "half an hour", "eine halbe Stunde"
            art = re.compile(r"\s+(?:an?|eine?r?|une?|una?)\s+").match(text, end)
            if art:
                u = unit_at(text, art.end())
                if u is not None:
                    found.append(_measure(text, start, u[3], low, high, u[:3], qual, digits))
                    i += consumed
                    continue
        if n.word and low == high == 1.0 and text[start:end].lower() in ARTICLES:
            i += consumed  # "a day" not followed by its unit here (a rate, "earlier"): no quantity
            continue
        # a number in words counts the word right after it ("seven days", not "seven of them")
        # ("one charge", "one of them": "one" in words is a determiner more often than a count)
        noun = _noun_after(text, end, skip=not n.word, numbers=numbers) if (not n.word or n.value > 1) else None
        year = (
            not n.word
            and low == high
            and 1800 <= low <= 2100
            and float(low).is_integer()
            and not re.search(r"[.,\s]", text[start:end])
            # "a 1932 American film" is a year; "1900 people" a count
            and (
                noun is None
                or not re.fullmatch(r"[a-z]+s|people|children|men|women|staff", text[end : noun[1]].strip())
            )
        )
        if year:
            found.append(date_quantity(text, start, end, int(low), None, None))
        elif noun is not None:
            lemma, nend = noun
            found.append(Quantity(text[start:nend], start, nend, low, high, f"count:{lemma}", lemma, qual, digits))
        elif not n.word or consumed == 2 or change:
            found.append(Quantity(text[start:end], start, end, low, high, None, None, qual, digits))
        i += consumed
    found = [
        _qualified(text, q) if k < n_pre and q.dim in ("clock", "percent", "time") else q for k, q in enumerate(found)
    ]
    found.sort(key=lambda q: q.start)
    found = no_words_as_figures(text, found)
    found = share_list_units(text, compound_durations(text, found))
    return [with_rate(text, q, found[k + 1].start if k + 1 < len(found) else None) for k, q in enumerate(found)]


def _qualified(text: str, q: Quantity) -> Quantity:
    """A clock time or fraction with the approximation word before it ("just after midnight", "about
    two-thirds")."""
    qual = q.qualifier or qualifier_before(text, q.start)
    return q if qual == q.qualifier else Quantity(q.text, q.start, q.end, q.low, q.high, q.dim, q.unit, qual, q.digits)


_SUBUNITS = {
    "cents": "USD",
    "¢": "USD",
    "cent": "EUR",
    "pence": "GBP",
    "penny": "GBP",
    "pennies": "GBP",
    "euro cents": "EUR",
}
_SUBUNITS |= {"céntimos": "EUR", "céntimo": "EUR", "centimes": "EUR", "centime": "EUR", "centavos": "USD", "分": "CNY"}
_FIRST_CURRENCY = re.compile(r"[€$£¥]|\beuros?\b|\bdollars?\b|\bEUR\b|\bUSD\b", re.IGNORECASE)
_SUBUNIT = re.compile(
    r"[ \u00a0]?(?:(euro cents|cents|Cent|pence|penny|pennies|céntimos?|centimes?|centavos)\b|(¢))", re.IGNORECASE
)


__all__ = ["Quantity", "parse_quantities", "parse_number", "same_value"]
