"""The tables behind :mod:`hallucheck.text.quantities`: units (surface form -> dimension and
factor to the dimension's base unit), currencies, scale words, numbers in words, months and
qualifiers, in the five languages the parser reads (and the time units and qualifiers of Italian,
Portuguese and Dutch, whose number words :mod:`.numbers` reads in a text of that language); and the
look-ups of a unit or currency at a position of a text (:func:`unit_at`, :func:`currency_before`,
:func:`currency_after`). Data and look-ups only: the parsing is in :mod:`.quantities`, the numbers in
:mod:`.numbers`.
"""

from __future__ import annotations

import re

# ---------------------------------------------------------------------------------------------
# units: surface form (lower case) -> (dimension, factor to the dimension's base unit)

UNITS: dict[str, tuple[str, float]] = {}


def _add(dim: str, factor: float, *names: str) -> None:
    for n in names:
        UNITS[n] = (dim, factor)


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
_add("length", 1609.34, "mile", "miles", "mi", "英里")
_add("length", 0.3048, "ft", "foot", "feet")
_add("length", 0.0254, "in.", "inch", "inches")
# speed (km/h)
_add("area", 1.0, "m²", "m2", "sq m", "square metres", "square meters", "quadratmeter", "mètres carrés", "平方米")
_add("area", 1e4, "hectare", "hectares", "ha", "hektar", "公顷")
_add("area", 4046.86, "acre", "acres")
_add("area", 1e6, "km²", "km2", "square kilometres", "square kilometers", "sq km")
_add("area", 0.092903, "sq ft", "square feet", "square foot")
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
_add("time", 24.0, "giorno", "giorni", "dag", "dagen")  # Italian, Dutch
_add("time", 24.0 * 7, "week", "weeks", "woche", "wochen", "semaine", "semaines", "semana", "semanas", "周", "星期")
_add("time", 24.0 * 7, "settimana", "settimane", "weken")
_add("time", 24.0 * 14, "fortnight", "fortnights")
_add("time", 24.0 * 30.4375, "month", "months", "monat", "monate", "monaten", "mois", "mes", "meses", "个月", "月")
_add("time", 24.0 * 30.4375, "mese", "mesi", "mês", "maand", "maanden")
_add("time", 24.0 * 365.25, "anno", "anni", "ano", "anos", "jaar", "jaren")
_add("time", 1.0, "uur", "uren")
_add("time", 1 / 60, "minuti", "minuut")
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
for _name in sorted(UNITS, key=len, reverse=True):
    _UNITS_LONGEST_FIRST[_name[:1]] = (*_UNITS_LONGEST_FIRST.get(_name[:1], ()), _name)

_CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "元": "CNY", "￥": "CNY"}
CURRENCY_SIGNS = frozenset(_CURRENCY_SYMBOLS)  # the signs a currency is written with
_CURRENCY_WORDS = {
    **dict.fromkeys(["usd", "dollar", "dollars", "dólares", "dólar", "dollars us", "美元"], "USD"),
    **dict.fromkeys(["eur", "euro", "euros", "欧元"], "EUR"),
    **dict.fromkeys(["gbp", "pound", "pounds", "sterling", "pfund", "libras", "livres"], "GBP"),
    **dict.fromkeys(["chf", "franc", "francs", "franken"], "CHF"),
    **dict.fromkeys(["jpy", "yen"], "JPY"),
    **dict.fromkeys(["cny", "rmb", "yuan", "人民币"], "CNY"),
}
SCALES = {
    "thousand": 1e3, "k": 1e3, "tausend": 1e3, "mil": 1e3, "mille": 1e3, "千": 1e3,
    "million": 1e6, "millions": 1e6, "mn": 1e6, "m": 1e6, "mio": 1e6, "mio.": 1e6, "millionen": 1e6, "millón": 1e6,
    "millones": 1e6, "万": 1e4, "百万": 1e6,
    "billion": 1e9, "billions": 1e9, "bn": 1e9, "b": 1e9, "mrd": 1e9, "mrd.": 1e9, "milliarde": 1e9,
    "milliarden": 1e9, "milliard": 1e9, "milliards": 1e9, "mil millones": 1e9, "亿": 1e8,
    "trillion": 1e12,
}  # fmt: skip

WORD_NUMBERS = {
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
ARTICLES = frozenset(
    {"a", "an", "ein", "eine", "einen", "einem", "einer", "un", "une", "uno", "una", "um", "uma", "een"}
)

MONTHS = {
    **{m: i + 1 for i, m in enumerate("january february march april may june july august september october november december".split())},
    **{m: i + 1 for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())},
    "sept": 9,
    **{m: i + 1 for i, m in enumerate("januar februar märz april mai juni juli august september oktober november dezember".split())},
    **{m: i + 1 for i, m in enumerate("janvier février mars avril mai juin juillet août septembre octobre novembre décembre".split())},
    **{m: i + 1 for i, m in enumerate("enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre".split())},
}  # fmt: skip
# English "may" and "march" are common words: a month only when capitalised or with a year
AMBIGUOUS_MONTHS = frozenset({"may", "march", "mar", "jan", "sept", "dec", "mai"})

# words that qualify a value: kept for the reason text, not for matching
_QUALIFIERS = {
    "max": (
        "up to", "no more than", "not more than", "at most", "maximum", "a maximum of", "max.", "max", "höchstens",
        "bis zu", "maximal", "jusqu'à", "au maximum", "pas plus de", "hasta", "como máximo", "no más de", "最多", "不超过",
        "fino a", "al massimo", "até", "no máximo", "maximaal", "hoogstens",
    ),
    "min": ("at least", "no less than", "minimum", "a minimum of", "min.", "mindestens", "au moins", "al menos", "至少",
            "almeno", "pelo menos", "no mínimo", "minstens", "ten minste"),
    "approx": ("about", "around", "approximately", "roughly", "nearly", "almost", "circa", "ca.", "etwa", "ungefähr",
               "environ", "aproximadamente", "unos", "unas", "大约", "约", "rund", "knapp", "fast",
               "près de", "presque", "casi", "cerca de", "alrededor de", "just after",
               "just before", "shortly after", "shortly before", "超过", "近", "à peu près", "quasi",
               "all'incirca", "intorno a", "quase", "em torno de", "por volta de", "mais ou menos", "ongeveer",
               "bijna", "zo'n", "rond de"),
}  # fmt: skip

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"


def to_base(value: float, surface: str, factor: float) -> float:
    """``value`` in ``surface`` units, in its dimension's base unit (°F by its offset too)."""
    return (value - 32.0) * factor if surface.lower() in _FAHRENHEIT else value * factor


def unit_here(text: str, number_start: int, word: str) -> bool:
    """ "m" after a number is metres unless money comes before the number ("2 m"; "£418.5m" is
    418.5 million pounds)."""
    return word == "m" and currency_before(text, number_start) is None


def unit_at(text: str, pos: int) -> tuple[str, str, float, int] | None:
    """(surface, dim, factor, end) of a unit starting at ``pos`` (after optional space)."""
    m = re.compile(r"-(?=[^\W\d_])|[ \t\u00a0\u202f]*").match(text, pos)  # "2 bar", "2bar", "2-year"
    i = m.end() if m else pos
    rest = text[i : i + 24].lower()
    best = None
    for cand in _UNITS_LONGEST_FIRST.get(rest[:1], ()):
        if rest.startswith(cand):
            tail = rest[len(cand) : len(cand) + 1]
            cjk = bool(re.match(rf"[{CJK}]", cand[-1]))
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
    dim, factor = UNITS[best]
    return text[i : i + len(best)], dim, factor, i + len(best)


ISO_CURRENCIES = frozenset(
    "USD EUR GBP CHF JPY CNY SEK NOK DKK ISK PLN CZK HUF CAD AUD NZD INR HKD SGD KRW BRL MXN ZAR TRY RUB".split()
)


def currency_before(text: str, pos: int) -> tuple[str, int] | None:
    """(currency, start of its symbol or code) written just before a number: "$2.6", "SEK 410"."""
    window = text[max(0, pos - 6) : pos]
    m = re.search(r"(US\$|[€$£¥₹￥]|\b[A-Z]{3})[ \u00a0\u202f]?$", window)
    if not m:
        return None
    tok = m.group(1)
    code = "USD" if tok == "US$" else _CURRENCY_SYMBOLS.get(tok) or (tok if tok in ISO_CURRENCIES else None)
    return (code, max(0, pos - 6) + m.start(1)) if code else None


def currency_after(text: str, pos: int) -> tuple[str, int] | None:
    m = re.compile(r"[ \u00a0\u202f]*(?:d[e']\s?)?([€$£¥元￥]|[^\W\d_]+(?: us)?)", re.UNICODE).match(text, pos)
    if not m:
        return None
    tok = m.group(1).lower()
    if tok in _CURRENCY_SYMBOLS:
        spaced = m.start(1) > pos  # "12 $", not "12$"
        if spaced and tok in ("£", "$", "¥") and re.match(r"[ \u00a0\u202f]?\d", text[m.end(1) : m.end(1) + 2]):
            return None  # the sign of the next amount ("children aged 4–12 £8"), not this one's (a euro sign
            # may follow its amount, and "12 € 50" is 12.50 in French)
        return _CURRENCY_SYMBOLS[tok], m.end(1)
    if tok in _CURRENCY_WORDS:
        return _CURRENCY_WORDS[tok], m.end(1)
    if tok.upper() in ISO_CURRENCIES and m.group(1).isupper():
        return tok.upper(), m.end(1)
    first = tok.split()[0]
    if first in _CURRENCY_WORDS:
        return _CURRENCY_WORDS[first], m.start(1) + len(first)
    return None


_BOUNDS = ("just over", "just under", "more than", "over", "less than", "fewer than", "under", "mehr als", "über",
           "weniger als", "plus de", "moins de", "más de", "menos de")  # fmt: skip
_BELOW = frozenset({"less than", "fewer than", "under", "weniger als", "moins de", "menos de"})
_NEGATED = re.compile(r"\b(?:not|no|never|nicht|kein\w*|pas|ne|jamais|nunca)\b[^.;,]*$")


def qualifier_before(text: str, pos: int) -> str | None:
    before = text[max(0, pos - 24) : pos].lower().rstrip()
    for w in _BOUNDS:
        if before.endswith(w) and (len(before) == len(w) or not before[-len(w) - 1].isalpha()):
            # "not more than 8" is a maximum; "more than 20" a rounded figure ("21")
            if _NEGATED.search(text[max(0, pos - 40) : pos].lower()):
                return "min" if w in _BELOW else "max"  # "not more than 8", "no less than 4": a limit
            if w.startswith("just"):
                return "approx"
            return "below" if w in _BELOW else "above"  # "under half an hour" holds 25 minutes
    for q, words in _QUALIFIERS.items():
        for w in words:
            # a whole word: "fast" (German "almost") is no qualifier at the end of "breakfast"
            if before.endswith(w) and not (w[0].isalpha() and before[-len(w) - 1 : -len(w)].isalpha()):
                return q
    return None
