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

Why not ``pint`` or ``quantulum3``: pint converts units but does not find them in text, and its
registry takes a noticeable time to load; quantulum3 finds them but only in English and pulls in a
classifier. What a RAG answer needs is a few dozen units in five languages, a unit-less counted noun
and words for numbers: this table does that in a few milliseconds per document, with no dependency.

:func:`same_value` compares two quantities of the same ``dim`` (a rounded value matches the exact
one it rounds from: "2.5 million" = "2,480,000"; a converted value within 3 %: "38 psi" = "2.6
bar").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from .lang import decimal_comma as uses_decimal_comma

# ---------------------------------------------------------------------------------------------
# units: surface form (lower case) -> (dimension, factor to the dimension's base unit)

_UNITS: dict[str, tuple[str, float]] = {}


def _add(dim: str, factor: float, *names: str) -> None:
    for n in names:
        _UNITS[n] = (dim, factor)


# pressure (bar)
_add("pressure", 1.0, "bar", "bars", "巴")
_add("pressure", 1.0 / 14.5038, "psi")
_add("pressure", 0.01, "kpa")
_add("pressure", 10.0, "mpa")
_add("pressure", 0.001, "mbar", "hpa")
# mass (g)
_add("mass", 1.0, "g", "gram", "grams", "gramme", "grammes", "gramm", "gramo", "gramos", "克")
_add(
    "mass",
    1e-3,
    "mg",
    "milligram",
    "milligrams",
    "milligramm",
    "miligramo",
    "miligramos",
    "milligramme",
    "milligrammes",
    "毫克",
)
_add("mass", 1e-6, "µg", "μg", "mcg", "microgram", "micrograms", "微克")
_add(
    "mass", 1e3, "kg", "kilogram", "kilograms", "kilo", "kilos", "kilogramm", "kilogramo", "kilogramos", "公斤", "千克"
)
_add("mass", 1e6, "t", "tonne", "tonnes", "ton", "tons", "tonnen", "toneladas", "吨")
_add("mass", 453.592, "lb", "lbs", "pound-mass")
_add("mass", 28.3495, "oz", "ounce", "ounces")
# volume (l)
_add("volume", 1.0, "l", "litre", "litres", "liter", "liters", "litro", "litros", "升")
_add("volume", 1e-3, "ml", "millilitre", "millilitres", "milliliter", "milliliters", "mililitro", "mililitros", "毫升")
_add("volume", 0.01, "cl")
_add("volume", 0.1, "dl")
_add("volume", 3.78541, "gallon", "gallons", "gal")
# length (m)
_add("length", 1.0, "m", "metre", "metres", "meter", "meters", "metro", "metros", "mètre", "mètres", "米")
_add(
    "length", 1e3, "km", "kilometre", "kilometres", "kilometer", "kilometers", "kilómetro", "kilómetros", "公里", "千米"
)
_add(
    "length",
    0.01,
    "cm",
    "centimetre",
    "centimetres",
    "centimeter",
    "centimeters",
    "zentimeter",
    "zentimetern",
    "centímetros",
    "centimètres",
    "厘米",
)
_add(
    "length",
    1e-3,
    "mm",
    "millimetre",
    "millimetres",
    "millimeter",
    "millimeters",
    "millimetern",
    "milímetros",
    "milímetro",
    "millimètre",
    "millimètres",
    "毫米",
)
_add("length", 1609.34, "mile", "miles", "mi")
_add("length", 0.3048, "ft", "foot", "feet")
_add("length", 0.0254, "in.", "inch", "inches")
# speed (km/h)
_add("speed", 1.0, "km/h", "kmh", "kph", "km/std")
_add("speed", 1.60934, "mph")
# temperature (kept per scale: °C and °F are not converted, a difference would be ambiguous)
# temperatures in °C; Fahrenheit is converted by its offset as well (_FAHRENHEIT)
_add("temperature", 1.0, "°c", "°", "ºc", "degrees celsius", "grad celsius", "grados", "degrés", "℃")
_add("temperature", 5 / 9, "°f", "degrees fahrenheit", "℉")
_FAHRENHEIT = frozenset({"°f", "degrees fahrenheit", "℉"})
# energy, power, electricity
_add("power", 1.0, "w", "watt", "watts")
_add("power", 1e3, "kw", "kilowatt", "kilowatts")
_add("power", 0.7457, "hp")
_add("energy", 1.0, "kwh")
_add("voltage", 1.0, "v", "volt", "volts")
_add("current", 1.0, "a", "amp", "amps", "ampere", "amperes")
_add("torque", 1.0, "nm", "newton metres", "newton meters")
_add("frequency", 1.0, "hz")
_add("data", 1.0, "gb", "gigabyte", "gigabytes")
_add("data", 1e-3, "mb", "megabyte", "megabytes")
_add("data", 1e3, "tb", "terabyte", "terabytes")
# time (hours)
_add(
    "time",
    1 / 3600,
    "s",
    "sec",
    "secs",
    "second",
    "seconds",
    "sekunde",
    "sekunden",
    "seconde",
    "secondes",
    "segundo",
    "segundos",
    "秒",
    "秒钟",
)
_add("time", 1 / 60, "min", "mins", "minute", "minutes", "minuten", "minuto", "minutos", "分钟")
_add(
    "time",
    1.0,
    "h",
    "hr",
    "hrs",
    "hour",
    "hours",
    "stunde",
    "stunden",
    "std",
    "heure",
    "heures",
    "hora",
    "horas",
    "小时",
    "个小时",
)
_add("time", 24.0, "day", "days", "tag", "tage", "tagen", "jour", "jours", "día", "días", "dia", "dias", "天", "日")
_add("time", 24.0 * 7, "week", "weeks", "woche", "wochen", "semaine", "semaines", "semana", "semanas", "周", "星期")
_add("time", 24.0 * 30.4375, "month", "months", "monat", "monate", "monaten", "mois", "mes", "meses", "个月", "月")
_add(
    "time",
    24.0 * 365.25,
    "year",
    "years",
    "jahr",
    "jahre",
    "jahren",
    "an",
    "ans",
    "année",
    "années",
    "año",
    "años",
    "年",
)
# working days are no calendar days: a dimension of their own
_add(
    "workday",
    1.0,
    "business day",
    "business days",
    "working day",
    "working days",
    "banking day",
    "banking days",
    "werktag",
    "werktage",
    "werktagen",
    "arbeitstag",
    "arbeitstage",
    "arbeitstagen",
    "jour ouvrable",
    "jours ouvrables",
    "jours ouvrés",
    "día hábil",
    "días hábiles",
    "工作日",
    "个工作日",
)
_add("time", 24.0, "calendar day", "calendar days", "kalendertag", "kalendertage", "kalendertagen")
# percent
_add("percent", 1.0, "%", "percent", "per cent", "pct", "prozent", "pour cent", "por ciento", "por cien")
_add("percent", 0.01, "basis points", "bps")

# the unit names by their first character, longest first (the longest unit that fits wins)
_UNITS_LONGEST_FIRST: dict[str, tuple[str, ...]] = {}
for _name in sorted(_UNITS, key=len, reverse=True):
    _UNITS_LONGEST_FIRST[_name[:1]] = (*_UNITS_LONGEST_FIRST.get(_name[:1], ()), _name)

_CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "元": "CNY", "￥": "CNY"}
_CURRENCY_WORDS = {
    **dict.fromkeys(["usd", "dollar", "dollars", "dólares", "dólar", "dollars us", "美元"], "USD"),
    **dict.fromkeys(["eur", "euro", "euros", "欧元"], "EUR"),
    **dict.fromkeys(["gbp", "pound", "pounds", "sterling", "pfund", "libras", "livres"], "GBP"),
    **dict.fromkeys(["chf", "franc", "francs", "franken"], "CHF"),
    **dict.fromkeys(["jpy", "yen"], "JPY"),
    **dict.fromkeys(["cny", "rmb", "yuan", "人民币"], "CNY"),
}
_SCALES = {
    "thousand": 1e3, "k": 1e3, "tausend": 1e3, "mil": 1e3, "mille": 1e3, "千": 1e3,
    "million": 1e6, "millions": 1e6, "mn": 1e6, "m": 1e6, "mio": 1e6, "mio.": 1e6, "millionen": 1e6, "millón": 1e6,
    "millones": 1e6, "万": 1e4, "百万": 1e6,
    "billion": 1e9, "billions": 1e9, "bn": 1e9, "b": 1e9, "mrd": 1e9, "mrd.": 1e9, "milliarde": 1e9,
    "milliarden": 1e9, "milliard": 1e9, "milliards": 1e9, "mil millones": 1e9, "亿": 1e8,
    "trillion": 1e12,
}  # fmt: skip

_WORD_NUMBERS = {
    # English
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
    "million": 1e6, "billion": 1e9, "dozen": 12, "half": 0.5, "quarter": 0.25,
    # German
    "null": 0, "eins": 1, "ein": 1, "eine": 1, "einen": 1, "einem": 1, "einer": 1, "zwei": 2, "drei": 3,
    "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "elf": 11, "zwölf": 12,
    "dreizehn": 13, "vierzehn": 14, "fünfzehn": 15, "sechzehn": 16, "siebzehn": 17, "achtzehn": 18,
    "neunzehn": 19, "zwanzig": 20, "dreißig": 30, "vierzig": 40, "fünfzig": 50, "sechzig": 60, "hundert": 100, "tausend": 1000, "halbe": 0.5, "halben": 0.5,
    # French
    "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8, "neuf": 9,
    "dix": 10, "onze": 11, "douze": 12, "treize": 13, "quatorze": 14, "quinze": 15, "seize": 16, "vingt": 20,
    "trente": 30, "quarante": 40, "cinquante": 50, "soixante": 60, "cent": 100, "demi": 0.5,
    "demie": 0.5,
    # Spanish
    "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8,
    "nueve": 9, "diez": 10, "once": 11, "doce": 12, "trece": 13, "catorce": 14, "quince": 15, "dieciséis": 16,
    "veinte": 20, "treinta": 30, "cuarenta": 40, "cincuenta": 50, "sesenta": 60, "cien": 100, "media": 0.5,
    "medio": 0.5,
    # Chinese
    "零": 0, "一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
    "十": 10, "半": 0.5,
}  # fmt: skip
# "a"/"an" count as one only before a unit or a time word ("a day", "an hour", "a week")
_ARTICLES = frozenset({"a", "an", "ein", "eine", "einen", "einem", "einer", "un", "une", "uno", "una"})

_MONTHS = {
    **{m: i + 1 for i, m in enumerate("january february march april may june july august september october november december".split())},
    **{m: i + 1 for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())},
    "sept": 9,
    **{m: i + 1 for i, m in enumerate("januar februar märz april mai juni juli august september oktober november dezember".split())},
    **{m: i + 1 for i, m in enumerate("janvier février mars avril mai juin juillet août septembre octobre novembre décembre".split())},
    **{m: i + 1 for i, m in enumerate("enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre".split())},
}  # fmt: skip
# English "may" and "march" are common words: a month only when capitalised or with a year
_AMBIGUOUS_MONTHS = frozenset({"may", "march", "mar", "jan", "sept", "dec", "mai"})

# words that qualify a value: kept for the reason text, not for matching
_QUALIFIERS = {
    "max": (
        "up to", "no more than", "not more than", "at most", "maximum", "a maximum of", "max.", "max", "höchstens",
        "bis zu", "maximal", "jusqu'à", "au maximum", "pas plus de", "hasta", "como máximo", "no más de", "最多", "不超过",
    ),
    "min": ("at least", "no less than", "minimum", "a minimum of", "min.", "mindestens", "au moins", "al menos", "至少"),
    "approx": ("about", "around", "approximately", "roughly", "nearly", "almost", "circa", "ca.", "etwa", "ungefähr",
               "environ", "aproximadamente", "unos", "unas", "大约", "约"),
}  # fmt: skip

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_DIGITS = r"\d+(?:[.,\u00a0\u202f ']\d+)*"
_NUM_TOKEN = re.compile(r"[-+−]?(?:\d+(?:[.,\u00a0\u202f']\d+)*|\.\d+)")
_WORD_RE = re.compile(rf"[^\W\d_]+(?:['’-][^\W\d_]+)*|[{_CJK}]", re.UNICODE)
_RANGE_SEP = re.compile(
    r"\s*(?:-|–|—|~|to|bis|à|a|al|y|and|und|et|or|oder|ou|o|至|到|～|~|和|或)\s*",
    re.IGNORECASE,
)
_NOUN_SKIP = frozenset(
    """more less than of the a an de des du la le les der die das den von mehr weniger als del más menos que
    additional further extra other different separate full whole consecutive""".split()
)
_NOT_NOUNS = frozenset(
    """and or to in on at for with by from per every each times time is are was were be been it its this that
    them they we you he she him her us me take takes taken took use used get gets give gives make makes weighing
    ago earlier later before after
    these those as if when after before than und oder bis zu im am pro je et ou à en par pour y o en por para
    cada""".split()
)


@dataclass(frozen=True)
class Quantity:
    """One quantity found in a text: ``text[start:end]`` (``start``/``end`` relative to the text
    parsed), its value range ``low``..``high`` in the base unit of ``dim``, the surface ``unit``, a
    ``qualifier`` (``max``, ``min``, ``approx`` or None) and ``digits``: the significant digits
    of a value written rounded ("2.5 million", "about 40"), 0 for a value written in full (exact)."""

    text: str
    start: int
    end: int
    low: float
    high: float
    dim: str | None
    unit: str | None = None
    qualifier: str | None = None
    digits: int = 0
    date: tuple[int | None, int | None, int | None] | None = field(default=None, compare=False)

    @property
    def is_range(self) -> bool:
        return self.low != self.high

    def describe(self) -> str:
        return self.text


def _sig_digits(s: str) -> int:
    ds = re.sub(r"\D", "", s).lstrip("0")
    return max(1, len(ds.rstrip("0")) if "." not in s and "," not in s else len(ds))


def parse_number(token: str, *, decimal_comma: bool = False) -> float | None:
    """A number written in digits: "1,000" = 1000, "2.4", "3,0" = 3.0 where ``decimal_comma``
    (and "1.000" = 1000 there), "1 000" with a (narrow) no-break space as thousands separator."""
    t = token.replace("−", "-").replace("\u00a0", "").replace("\u202f", "").replace("'", "")
    if decimal_comma:
        if re.fullmatch(r"[-+]?\d{1,3}(?:\.\d{3})+(?:,\d+)?", t):
            t = t.replace(".", "").replace(",", ".")
        else:
            t = t.replace(",", ".")
            if t.count(".") > 1:
                return None
    else:
        if re.fullmatch(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?", t):
            t = t.replace(",", "")
        elif "," in t:
            # "3,0" in an English text: a decimal comma only when it cannot be thousands
            head, _, tail = t.partition(",")
            if len(tail) == 3 or "," in tail or "." in t:
                return None
            t = f"{head}.{tail}"
    try:
        return float(t)
    except ValueError:
        return None


@dataclass
class _Num:
    start: int
    end: int
    value: float
    digits: int
    word: bool = False  # written in words


def _tokens_after(text: str, pos: int, n: int = 4) -> list[tuple[str, int, int]]:
    out = []
    i = pos
    while len(out) < n:
        m = re.compile(rf"\s*([{_CJK}]|[%°º€$£¥]|[^\W\d_]+(?:[./-]?[^\W\d_]+)*\.?|[()\[\],;:]|\d+)", re.UNICODE).match(
            text, i
        )
        if not m:
            break
        out.append((m.group(1), m.start(1), m.end(1)))
        i = m.end()
    return out


def _numbers(text: str, decimal_comma: bool) -> list[_Num]:
    """Numbers in digits and in words, with spans, in order; scale words ("2.5 million") applied."""
    nums: list[_Num] = []
    for m in re.finditer(
        rf"(?<![\w.,])(?:[-+−](?=\d))?\d+(?:[.,\u00a0\u202f']\d+)*(?![\d_])|(?<=[{_CJK}])\d+(?:[.,]\d+)?", text
    ):
        tok = m.group()
        if m.end() < len(text) and text[m.end()].isalpha() and not re.match(rf"[{_CJK}]", text[m.end()]):
            glued = re.match(r"[^\W\d_]+", text[m.end() :]).group().lower()  # type: ignore[union-attr]
            if glued not in _SCALES and _unit_at(text, m.end()) is None:
                continue  # "5G", "3rd", "2x": not a quantity
        v = parse_number(tok, decimal_comma=decimal_comma)
        if v is None:
            # "1,2,3" or an ambiguous comma: take the parts as separate numbers
            for p in re.finditer(r"\d+(?:\.\d+)?", tok):
                nums.append(_Num(m.start() + p.start(), m.start() + p.end(), float(p.group()), _sig_digits(p.group())))
            continue
        nums.append(_Num(m.start(), m.end(), v, _sig_digits(tok)))
    # numbers in words (a run like "twenty four" or "two hundred" is one number)
    words = list(re.finditer(rf"[^\W\d_]+|[{_CJK}]", text))
    i = 0
    while i < len(words):
        w = words[i].group().lower()
        if w in _WORD_NUMBERS and not (w in _ARTICLES and w not in ("uno", "una", "eins")):
            val = float(_WORD_NUMBERS[w])
            start, end = words[i].start(), words[i].end()
            j = i + 1
            while j < len(words) and words[j].group().lower() in _WORD_NUMBERS and words[j].start() - end <= 1:
                nxt = float(_WORD_NUMBERS[words[j].group().lower()])
                if nxt in (100, 1000, 1e6, 1e9) and val < nxt:
                    val *= nxt
                elif val >= 20 and nxt < 10 and val % 10 == 0:
                    val += nxt
                else:
                    break
                end = words[j].end()
                j += 1
            if w in ("un", "une") and _is_article_use(text, end):
                i = j  # the French article, not the number one
                continue
            nums.append(_Num(start, end, val, 1, word=True))
            i = j
            continue
        if w in _ARTICLES:
            # "a day", "an hour", "ein Tag": one of a time unit
            after = _tokens_after(text, words[i].end(), 1)
            unit = after[0][0].lower().rstrip(".") if after else ""
            if unit in _UNITS and _UNITS[unit][0] == "time":
                nums.append(_Num(words[i].start(), words[i].end(), 1.0, 1, word=True))
        i += 1
    nums.sort(key=lambda n: n.start)
    # drop word numbers inside a digit number's span (never happens) and merge scale words
    out: list[_Num] = []
    for n in nums:
        after = _tokens_after(text, n.end, 2)
        if after:
            sw = after[0][0].lower()
            if sw not in _SCALES:
                sw = sw.rstrip(".")  # "£1,236 million." ends a sentence
            two = f"{sw} {after[1][0].lower()}" if len(after) > 1 else ""
            if two in _SCALES:
                n = _Num(n.start, after[1][2], n.value * _SCALES[two], n.digits, n.word)
            elif sw in _SCALES and (len(sw) > 1 or not n.word) and not _unit_here(text, n.start, sw):
                n = _Num(n.start, after[0][1] + len(sw), n.value * _SCALES[sw], n.digits, n.word)
            else:
                n = _Num(n.start, n.end, n.value, 0, n.word)  # written out in full: exact
        else:
            n = _Num(n.start, n.end, n.value, 0, n.word)
        out.append(n)
    return out


def _is_article_use(text: str, end: int) -> bool:
    """French "un"/"une" is an article unless a unit follows ("une heure" is one hour)."""
    after = _tokens_after(text, end, 1)
    return not (after and after[0][0].lower() in _UNITS)


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
        _to_base(low, surface, factor),
        _to_base(high, surface, factor),
        dim,
        surface.lower(),
        qual,
        digits,
    )


def _to_base(value: float, surface: str, factor: float) -> float:
    """``value`` in ``surface`` units, in its dimension's base unit (°F by its offset too)."""
    return (value - 32.0) * factor if surface.lower() in _FAHRENHEIT else value * factor


def _unit_here(text: str, number_start: int, word: str) -> bool:
    """ "m" after a number is metres unless money comes before the number ("2 m"; "£418.5m" is
    418.5 million pounds)."""
    return word == "m" and _currency_before(text, number_start) is None


def _unit_at(text: str, pos: int) -> tuple[str, str, float, int] | None:
    """(surface, dim, factor, end) of a unit starting at ``pos`` (after optional space)."""
    m = re.compile(r"-(?=[^\W\d_])|[ \t\u00a0\u202f]*").match(text, pos)  # "2 bar", "2bar", "2-year"
    i = m.end() if m else pos
    rest = text[i : i + 24].lower()
    best = None
    for cand in _UNITS_LONGEST_FIRST.get(rest[:1], ()):
        if rest.startswith(cand):
            tail = rest[len(cand) : len(cand) + 1]
            cjk = bool(re.match(rf"[{_CJK}]", cand[-1]))
            if cjk or not tail or not (tail.isalnum() or tail == "_"):
                if cand in ("°",) and rest[1:2] in ("c", "f"):
                    continue
                best = cand
                break
    if best is None:
        return None
    if best in ("in.", "a", "an", "t", "mi", "s", "m", "h", "v", "w", "g", "l") and i > pos + 1:
        # one-letter units only written right after the number or after one space, and never the article "a"
        return None
    if best in ("a", "an", "in.", "mi"):
        return None
    if len(best) == 1 and best.isalpha() and text[i] != {"v": "V", "w": "W"}.get(best, best):
        return None  # "5G" is no mass, "3 M" no length: one-letter units only in their usual case
    dim, factor = _UNITS[best]
    return text[i : i + len(best)], dim, factor, i + len(best)


def _noun_after(text: str, pos: int, *, skip: bool = True) -> tuple[str, int] | None:
    """The counted noun after a number ("8 tablets", "4 weitere Tabletten"): (lemma, end).
    ``skip``: words such as "more", "of", "the" may come between ("8 more tablets")."""
    for k, (tok, s, e) in enumerate(_tokens_after(text, pos, 3 if skip else 1)):
        low = tok.lower().rstrip(".")
        if k == 0 and s == pos and not re.match(rf"[{_CJK}]", tok):
            return None  # glued to the number ("5G", "A4"): a name, not a count
        if not re.fullmatch(r"[^\W\d_]+(?:-[^\W\d_]+)*", low):
            return None
        if low in _NOUN_SKIP:
            continue
        if low in _NOT_NOUNS or low in _WORD_NUMBERS or low in _MONTHS:
            return None
        if len(low) > 4 and low.endswith(("ing", "ed")):
            return None  # a verb form ("children over 12 weighing", "2 opened"): no counted noun
        return _lemma(low), e - (len(tok) - len(tok.rstrip(".")))
    return None


def _lemma(word: str) -> str:
    """A crude singular, good enough to match "tablet"/"tablets", "Tablette"/"Tabletten", "pastilla"/"pastillas"."""
    w = word.lower()
    for suf, rep in (("ies", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh"), ("xes", "x")):
        if w.endswith(suf) and len(w) > len(suf) + 2:
            return w[: -len(suf)] + rep
    for suf in ("en", "es", "s", "n", "e"):
        if w.endswith(suf) and len(w) > len(suf) + 3 and not w.endswith("ss"):
            return w[: -len(suf)]
    return w


def _qualifier_before(text: str, pos: int) -> str | None:
    before = text[max(0, pos - 24) : pos].lower().rstrip()
    for q, words in _QUALIFIERS.items():
        for w in words:
            if before.endswith(w):
                return q
    return None


_ISO_CURRENCIES = frozenset(
    "USD EUR GBP CHF JPY CNY SEK NOK DKK ISK PLN CZK HUF CAD AUD NZD INR HKD SGD KRW BRL MXN ZAR TRY RUB".split()
)


def _currency_before(text: str, pos: int) -> tuple[str, int] | None:
    """(currency, start of its symbol or code) written just before a number: "$2.6", "SEK 410"."""
    window = text[max(0, pos - 6) : pos]
    m = re.search(r"(US\$|[€$£¥₹￥]|\b[A-Z]{3})[ \u00a0\u202f]?$", window)
    if not m:
        return None
    tok = m.group(1)
    code = "USD" if tok == "US$" else _CURRENCY_SYMBOLS.get(tok) or (tok if tok in _ISO_CURRENCIES else None)
    return (code, max(0, pos - 6) + m.start(1)) if code else None


_AND_A_HALF = re.compile(r"\s+(?:and a half|und ein halb|et demie?|y medio|y media|半)\b", re.IGNORECASE)
_RATE_BEFORE = re.compile(r"(?:times|time|once|twice|per|mal|fois|veces|vez|pro|par)\s*$", re.IGNORECASE)
_RELATIVE_AFTER = re.compile(
    r"\s*(?:earlier|ago|later|before|previously|prior|früher|zuvor|plus tôt|antes)\b", re.IGNORECASE
)


def _relative_or_rate(text: str, start: int, uend: int, found: list["Quantity"]) -> bool:
    """An article with a time unit that is a rate ("4 hours a month", "twice a day") or a relative
    time ("a year earlier"), not an amount of time."""
    gap_from_last = start - found[-1].end if found else 99
    return (
        0 <= gap_from_last <= 2
        or bool(_RATE_BEFORE.search(text[max(0, start - 12) : start].rstrip()))
        or bool(_RELATIVE_AFTER.match(text, uend))
    )


def _currency_after(text: str, pos: int) -> tuple[str, int] | None:
    m = re.compile(r"[ \u00a0\u202f]*([€$£¥元￥]|[^\W\d_]+(?: us)?)", re.UNICODE).match(text, pos)
    if not m:
        return None
    tok = m.group(1).lower()
    if tok in _CURRENCY_SYMBOLS:
        return _CURRENCY_SYMBOLS[tok], m.end(1)
    if tok in _CURRENCY_WORDS:
        return _CURRENCY_WORDS[tok], m.end(1)
    if tok.upper() in _ISO_CURRENCIES and m.group(1).isupper():
        return tok.upper(), m.end(1)
    first = tok.split()[0]
    if first in _CURRENCY_WORDS:
        return _CURRENCY_WORDS[first], m.start(1) + len(first)
    return None


_DATE_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_DATE_DOTS = re.compile(r"\b(\d{1,2})[./](\d{1,2})[./](\d{4})\b")
_DATE_CJK = re.compile(r"(\d{4})\s*年(?:\s*(\d{1,2})\s*月)?(?:\s*(\d{1,2})\s*[日号])?")
_MONTH_WORD = "(?:" + "|".join(sorted((re.escape(m) for m in _MONTHS), key=len, reverse=True)) + r")\b\.?"


# "12 March 2021", "12. März 2021", "12 de marzo de 2021", "March 12, 2021", "March 2021", "12 March"
_DATE_WORDS = re.compile(
    rf"(?:(?P<d1>\d{{1,2}})(?:\.|st|nd|rd|th|er)?\s+(?:de\s+)?(?P<m1>{_MONTH_WORD})(?:\s+(?:de\s+)?(?P<y1>\d{{4}}))?)"
    rf"|(?:(?P<m2>{_MONTH_WORD})\s+(?P<d2>\d{{1,2}})(?!\d)(?:st|nd|rd|th)?(?:,?\s+(?P<y2>\d{{4}}))?)"
    rf"|(?:(?P<m3>{_MONTH_WORD})\s+(?:de\s+)?(?P<y3>\d{{4}}))",
    re.UNICODE | re.IGNORECASE,
)


def _dates(text: str, *, day_first: bool) -> list[Quantity]:
    out: list[Quantity] = []
    for m in _DATE_ISO.finditer(text):
        y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
        out.append(_date_q(text, m.start(), m.end(), y, mo, d))
    for m in _DATE_DOTS.finditer(text):
        a, b, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
        d, mo = (a, b) if day_first else (b, a)
        if mo > 12 and d <= 12:  # "31/03/2025" is day first whatever the language
            d, mo = mo, d
        if 1 <= mo <= 12:
            out.append(_date_q(text, m.start(), m.end(), y, mo, d))
    for m in _DATE_CJK.finditer(text):
        out.append(
            _date_q(
                text,
                m.start(),
                m.end(),
                int(m.group(1)),
                int(m.group(2)) if m.group(2) else None,
                int(m.group(3)) if m.group(3) else None,
            )
        )
    # "12 March 2021", "12. März 2021", "12 de marzo de 2021", "March 12, 2021", "March 2021", "12 March"
    words = set(_LETTER_RUN.findall(text.lower()))
    for m in _DATE_WORDS.finditer(text) if not words.isdisjoint(_MONTHS) else ():
        mw = (m.group("m1") or m.group("m2") or m.group("m3")).lower().rstrip(".")
        d = m.group("d1") or m.group("d2")
        y = m.group("y1") or m.group("y2") or m.group("y3")
        if (
            mw in _AMBIGUOUS_MONTHS
            and not text[m.start("m1") if m.group("m1") else m.start() :][:1].isupper()
            and not y
        ):
            continue  # "you may 2" is no date; "May 2" and "2 May 2020" are
        if d and not 1 <= int(d) <= 31:
            continue
        out.append(_date_q(text, m.start(), m.end(), int(y) if y else None, _MONTHS[mw], int(d) if d else None))
    out.sort(key=lambda q: (q.start, -(q.end - q.start)))
    kept: list[Quantity] = []
    for q in out:
        if kept and q.start < kept[-1].end:
            continue
        kept.append(q)
    return kept


def _date_q(text: str, s: int, e: int, y: int | None, mo: int | None, d: int | None) -> Quantity:
    key = (y or 0) * 10000 + (mo or 0) * 100 + (d or 0)
    return Quantity(text[s:e], s, e, float(key), float(key), "date", date=(y, mo, d))


# the words that can make a quantity without a digit ("four", "a day", "half an hour"), to skip a
# sentence with none of them (and no digit) at once
_QUANTITY_WORDS = frozenset(w for w in {*_WORD_NUMBERS, *_UNITS} if w.isalpha() and len(w) > 1)
_LETTER_RUN = re.compile(r"[^\W\d_]+")
_CJK_NUMERAL = re.compile(r"[一二三四五六七八九十两半]")


def _may_hold_quantity(text: str) -> bool:
    if any(ch.isdigit() for ch in text) or _CJK_NUMERAL.search(text):
        return True
    return not _QUANTITY_WORDS.isdisjoint(_LETTER_RUN.findall(text.lower()))


def parse_quantities(text: str, *, lang: str | None = None, decimal_comma: bool | None = None) -> list[Quantity]:
    """Every quantity of ``text`` (see the module's docstring), in order, spans not overlapping.
    ``lang``: an ISO 639-1 code, used for decimal commas and day-first dates (``None``: English
    conventions, but "3,0" with not three digits after the comma still reads as 3.0)."""
    if not _may_hold_quantity(text):
        return []  # no digit, no number word, no time word: nothing to read (most sentences of a long text)
    lang = (lang or "en").lower()
    dc = decimal_comma if decimal_comma is not None else uses_decimal_comma(lang)
    dates = _dates(text, day_first=lang != "en")
    taken = [(q.start, q.end) for q in dates]
    found: list[Quantity] = list(dates)
    nums = [n for n in _numbers(text, dc) if not any(a <= n.start < b for a, b in taken)]
    i = 0
    while i < len(nums):
        n = nums[i]
        if found and found[-1].dim != "date" and n.start < found[-1].end:
            i += 1  # inside the quantity just read ("half an hour": "an" is not one more hour)
            continue
        low = high = n.value
        start, end = n.start, n.end
        digits = n.digits
        consumed = 1
        # a range or an alternative: "4 to 6", "4-6", "between 4 and 6", "1 or 2", "4 bis 6", "4至6"
        if i + 1 < len(nums):
            nxt = nums[i + 1]
            gap = text[end : nxt.start]
            is_and = bool(re.fullmatch(r"\s*(?:and|und|et|y|和)\s*", gap, re.IGNORECASE))
            between = re.search(
                r"(?:between|zwischen|entre|介于|在)\s*$", text[max(0, start - 12) : start], re.IGNORECASE
            )
            if (
                gap
                and _RANGE_SEP.fullmatch(gap)
                and not re.search(r"[.;:]", gap)
                and nxt.value >= low
                and (between or not is_and)  # "between 4 and 6"; "7, 14 and 30 tablets" is a list
                and not re.search(r",\s*$", text[max(0, start - 3) : start])
            ):
                high, end, digits, consumed = nxt.value, nxt.end, max(digits, nxt.digits), 2
            elif re.fullmatch(r"\s*", gap) is None:
                # "4 hours to 6 hours" / "2 bar to 3 bar": a unit between the two numbers
                u = _unit_at(text, end)
                if u is not None:
                    rest = text[u[3] : nxt.start]
                    if _RANGE_SEP.fullmatch(rest) and not re.search(r"[.;:]", rest) and nxt.value >= low:
                        high, end, consumed = nxt.value, nxt.end, 2
        qual = _qualifier_before(text, start)
        if qual == "approx" and not digits:
            digits = _sig_digits(text[start:end])
        before = _currency_before(text, start)
        if before:
            cur, sym_start = before
            found.append(Quantity(text[sym_start:end], sym_start, end, low, high, f"money:{cur}", cur, qual, digits))
            i += consumed
            continue
        cur_after = _currency_after(text, end)
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
        u = _unit_at(text, end)
        if (
            u is not None
            and n.word
            and text[start:end].lower() in _ARTICLES
            and _relative_or_rate(text, start, u[3], found)
        ):
            i += consumed  # "4 hours a month", "three times a day", "a year earlier": no amount of time
            continue
        if u is not None:
            surface, dim, factor, uend = u
            if n.word and text[start:end].lower() in _ARTICLES:
                qual = qual or "approx"  # "a year", "an hour": a round figure
            if re.match(r"-?\s?old\b", text[uend:]) and dim == "time":
                dim = "age"  # "18-year-old", "a 6 month old baby": an age, not a duration
                uend = text.index("old", uend) + 3
            half = _AND_A_HALF.match(text, uend)
            if half:  # "an hour and a half"
                low, high, uend = low + 0.5, high + 0.5, half.end()
            found.append(_measure(text, start, uend, low, high, (surface, dim, factor), qual, digits))
            i += consumed
            continue
        if n.word and n.value in (0.5, 0.25):  # "half an hour", "eine halbe Stunde"
            art = re.compile(r"\s+(?:an?|eine?r?|une?|una?)\s+").match(text, end)
            if art:
                u = _unit_at(text, art.end())
                if u is not None:
                    found.append(_measure(text, start, u[3], low, high, u[:3], qual, digits))
                    i += consumed
                    continue
        if n.word and low == high == 1.0 and text[start:end].lower() in _ARTICLES:
            i += consumed  # "a day" not followed by its unit here (a rate, "earlier"): no quantity
            continue
        # a number in words counts the word right after it ("seven days", not "seven of them")
        # ("one charge", "one of them": "one" in words is a determiner more often than a count)
        noun = _noun_after(text, end, skip=not n.word) if (not n.word or n.value > 1) else None
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
            found.append(_date_q(text, start, end, int(low), None, None))
        elif noun is not None:
            lemma, nend = noun
            found.append(Quantity(text[start:nend], start, nend, low, high, f"count:{lemma}", lemma, qual, digits))
        elif not n.word or consumed == 2:
            found.append(Quantity(text[start:end], start, end, low, high, None, None, qual, digits))
        i += consumed
    found.sort(key=lambda q: q.start)
    return [_with_rate(text, q) for q in _share_list_units(text, found)]


_RATE = re.compile(
    r"\s*(?:(?:per|a|an|each|every|pro|je|par|por|al|a la)\s+|/\s*|每)(?P<unit>[^\W\d_]+)\b", re.IGNORECASE
)


def _with_rate(text: str, q: Quantity) -> Quantity:
    """``q`` per unit of time when the text says so: "4 hours per month" and "4 hours a week" are
    rates (dimension ``time/time``), not amounts; their values compare per hour."""
    if q.dim in (None, "date", "percent") or "/" in (q.dim or ""):
        return q
    m = _RATE.match(text, q.end)
    if not m:
        return q
    unit = m.group("unit").lower()
    if unit not in _UNITS or _UNITS[unit][0] != "time":
        return q
    per = _UNITS[unit][1]
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


_LIST_GAP = re.compile(r"\s*(?:,|and|or|und|oder|et|ou|y|o|、|和|或)\s*", re.IGNORECASE)


def _share_list_units(text: str, found: list[Quantity]) -> list[Quantity]:
    """Bare numbers of a list take the unit or noun that ends it: "7, 14 and 30 tablets" are three
    counts of tablets, "2, 4 or 8 GB" three sizes."""
    out = list(found)
    for k in range(len(out) - 2, -1, -1):
        q, nxt = out[k], out[k + 1]
        if q.dim is None and nxt.dim not in (None, "date") and _LIST_GAP.fullmatch(text[q.end : nxt.start]):
            factor = _UNITS[nxt.unit][1] if nxt.unit in _UNITS else 1.0
            out[k] = Quantity(
                q.text,
                q.start,
                q.end,
                _to_base(q.low, nxt.unit or "", factor),
                _to_base(q.high, nxt.unit or "", factor),
                nxt.dim,
                nxt.unit,
                q.qualifier,
                q.digits,
            )
    return out


def _rounds_to(exact: float, rounded: float, digits: int) -> bool:
    """``rounded`` (written with ``digits`` significant digits) is ``exact`` rounded."""
    if abs(exact - rounded) <= 1e-9 * max(abs(exact), abs(rounded), 1.0):
        return True
    if digits <= 0 or rounded == 0 or exact == 0:
        return False
    mag = math.floor(math.log10(abs(rounded)))
    step = 10 ** (mag - max(digits, 1) + 1)
    return abs(exact - rounded) < step / 2


def same_value(a: Quantity, b: Quantity) -> bool:
    """``a`` states what ``b`` states, for two quantities of the same ``dim``: equal, one the other
    rounded, within 3 % when their units differ (a converted value); within 15 % or inside the
    other's range when either is approximate ("about 40", "over a year"); dates when every part
    both give agrees (and they give one part both)."""
    if a.dim != b.dim:
        return False
    if a.dim == "date":
        return all(x is None or y is None or x == y for x, y in zip(a.date or (), b.date or ())) and any(
            x is not None and y is not None for x, y in zip(a.date or (), b.date or ())
        )
    if a.qualifier == "approx" or b.qualifier == "approx":
        # "about 40", "over a year": within 15 %, or inside the other's range
        lo, hi = min(a.low, b.low), max(a.high, b.high)
        inside = (a.low >= b.low * 0.85 and a.high <= b.high * 1.15) or (
            b.low >= a.low * 0.85 and b.high <= a.high * 1.15
        )
        return inside or abs(hi - lo) <= 0.15 * max(abs(hi), abs(lo))
    if a.is_range != b.is_range:
        # one value inside a stated range ("an 8-year-old" where "children of 6 to 12 years") is consistent
        single, rng = (a, b) if b.is_range else (b, a)
        return rng.low <= single.low <= rng.high
    converted = (
        a.unit is not None
        and b.unit is not None
        and _UNITS.get(a.unit, (None, 0))[1] != _UNITS.get(b.unit, (None, 0))[1]
    )
    for x, y in ((a.low, b.low), (a.high, b.high)):
        if converted:
            if abs(x - y) > 0.03 * max(abs(x), abs(y)):
                return False
        elif not (_rounds_to(y, x, a.digits) or _rounds_to(x, y, b.digits)):
            return False
    return True


__all__ = ["Quantity", "parse_quantities", "parse_number", "same_value"]
