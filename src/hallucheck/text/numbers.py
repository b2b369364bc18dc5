"""Numbers in running text for :mod:`hallucheck.text.quantities`: :func:`parse_number` reads one
written in digits (thousands separators, decimal commas); :func:`find_numbers` finds every number of a
text, in digits or in words ("twenty four", "a day", "vingt et un", "dix-sept", "treinta y cinco"), with
its span, its significant digits and a scale word applied ("2.5 million"). The words of English, German,
French, Spanish and Chinese are always read (:data:`~.units.WORD_NUMBERS`); those of Italian, Portuguese
and Dutch only in a text of that language (:func:`word_numbers`), as some of them are common words
elsewhere ("due", "tre", "sei", "een").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from .units import ARTICLES, CJK, CURRENCY_SIGNS, ISO_CURRENCIES, SCALES, UNITS, WORD_NUMBERS, unit_at, unit_here

_UNITS_10 = ("", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def _compounds(tens: dict[str, int], units: dict[str, int], join: Callable[[str, str], str]) -> dict[str, float]:
    """Compound number words ("einundzwanzig", "ventitré", "vijfentwintig") from a language's tens and
    units and its way of writing them together (``join(tens_word, unit_word) -> word``)."""
    return {join(t, u): float(tv + uv) for t, tv in tens.items() for u, uv in units.items()}


_IT_UNITS = {"uno": 1, "due": 2, "tré": 3, "quattro": 4, "cinque": 5, "sei": 6, "sette": 7, "otto": 8, "nove": 9}
_IT_TENS = {"venti": 20, "trenta": 30, "quaranta": 40, "cinquanta": 50, "sessanta": 60, "settanta": 70,
            "ottanta": 80, "novanta": 90}  # fmt: skip
_NL_UNITS = {"een": 1, "twee": 2, "drie": 3, "vier": 4, "vijf": 5, "zes": 6, "zeven": 7, "acht": 8, "negen": 9}
_NL_TENS = {"twintig": 20, "dertig": 30, "veertig": 40, "vijftig": 50, "zestig": 60, "zeventig": 70,
            "tachtig": 80, "negentig": 90}  # fmt: skip
_DE_UNITS = {"ein": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9}
_DE_TENS = {"zwanzig": 20, "dreißig": 30, "dreissig": 30, "vierzig": 40, "fünfzig": 50, "sechzig": 60,
            "siebzig": 70, "achtzig": 80, "neunzig": 90}  # fmt: skip
_ES_TWENTIES = {"veintiuno": 21, "veintiún": 21, "veintiuna": 21, "veintidós": 22, "veintidos": 22, "veintitrés": 23,
                "veintitres": 23, "veinticuatro": 24, "veinticinco": 25, "veintiséis": 26, "veintiseis": 26,
                "veintisiete": 27, "veintiocho": 28, "veintinueve": 29}  # fmt: skip
# number words of German, French and Spanish the shared table leaves out (tens, teens and compounds)
MORE_WORD_NUMBERS: dict[str, float] = {
    **_compounds(_DE_TENS, _DE_UNITS, lambda t, u: f"{u}und{t}"),
    "siebzig": 70, "achtzig": 80, "neunzig": 90, "dreissig": 30,
    "septante": 70, "huitante": 80, "octante": 80, "nonante": 90, "vingts": 20,
    "diecisiete": 17, "dieciocho": 18, "diecinueve": 19, "dieciseis": 16, "setenta": 70, "ochenta": 80,
    "noventa": 90, "ciento": 100, **_ES_TWENTIES,
}  # fmt: skip
# number words read only in a text of their language: some are common words of another ("due", "sei", "een")
LANG_WORD_NUMBERS: dict[str, dict[str, float]] = {
    "it": {
        "uno": 1, "una": 1, "un": 1, "due": 2, "tre": 3, "quattro": 4, "cinque": 5, "sei": 6, "sette": 7, "otto": 8,
        "nove": 9, "dieci": 10, "undici": 11, "dodici": 12, "tredici": 13, "quattordici": 14, "quindici": 15,
        "sedici": 16, "diciassette": 17, "diciotto": 18, "diciannove": 19, **_IT_TENS, "cento": 100,
        "mezzo": 0.5, "mezza": 0.5,
        # "ventuno", "ventotto": the tens drop their vowel before "uno" and "otto"
        **_compounds(_IT_TENS, _IT_UNITS, lambda t, u: (t[:-1] if u in ("uno", "otto") else t) + u),
    },
    "pt": {
        "um": 1, "uma": 1, "dois": 2, "duas": 2, "três": 3, "tres": 3, "quatro": 4, "cinco": 5, "seis": 6,
        "sete": 7, "oito": 8, "nove": 9, "dez": 10, "onze": 11, "doze": 12, "treze": 13, "catorze": 14,
        "quatorze": 14, "quinze": 15, "dezesseis": 16, "dezasseis": 16, "dezessete": 17, "dezassete": 17,
        "dezoito": 18, "dezenove": 19, "dezanove": 19, "vinte": 20, "trinta": 30, "quarenta": 40,
        "cinquenta": 50, "sessenta": 60, "setenta": 70, "oitenta": 80, "noventa": 90, "cem": 100, "cento": 100,
        "meio": 0.5, "meia": 0.5,
    },
    "nl": {
        "een": 1, "één": 1, "twee": 2, "drie": 3, "vier": 4, "vijf": 5, "zes": 6, "zeven": 7, "acht": 8,
        "negen": 9, "tien": 10, "elf": 11, "twaalf": 12, "dertien": 13, "veertien": 14, "vijftien": 15,
        "zestien": 16, "zeventien": 17, "achttien": 18, "negentien": 19, **_NL_TENS, "honderd": 100,
        "duizend": 1000, "half": 0.5, "halve": 0.5,
        # "eenentwintig", "tweeëntwintig": the unit, "en" ("ën" after an e), the tens
        **_compounds(_NL_TENS, _NL_UNITS, lambda t, u: f"{u}{'ën' if u.endswith('e') else 'en'}{t}"),
    },
}  # fmt: skip
# words that join tens and units ("treinta y cinco", "vinte e cinco", "vingt et un")
_NUMBER_JOINS = frozenset({"y", "e", "et"})


def word_numbers(lang: str | None = None) -> dict[str, float]:
    """The number words read in a text of ``lang`` (an ISO 639-1 code; None: the shared table only)."""
    key = (lang or "").lower().split("-")[0]
    if key not in _BY_LANG:
        _BY_LANG[key] = {**WORD_NUMBERS, **MORE_WORD_NUMBERS, **LANG_WORD_NUMBERS.get(key, {})}
    return _BY_LANG[key]


_BY_LANG: dict[str, dict[str, float]] = {}


def sig_digits(s: str) -> int:
    ds = re.sub(r"\D", "", s).lstrip("0")
    return max(1, len(ds.rstrip("0")) if "." not in s and "," not in s else len(ds))


# a number written so that only one reading is possible, whatever the language: dots grouping thousands
# before a decimal comma ("1.000,50") or two dots or more ("1.000.000"); commas grouping thousands before
# a decimal point ("1,000.50") or two commas or more ("1,000,000")
_COMMA_DECIMAL = re.compile(r"[-+]?\d{1,3}(?:\.\d{3})+,\d+|[-+]?\d{1,3}(?:\.\d{3}){2,}")
_POINT_DECIMAL = re.compile(r"[-+]?\d{1,3}(?:,\d{3})+\.\d+|[-+]?\d{1,3}(?:,\d{3}){2,}")
_WRITTEN = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)+")


def _plain(token: str, decimal_comma: bool) -> str | None:
    """``token`` as a plain decimal ("1000.5"), or None where it is no one number."""
    t = token.replace("−", "-").replace("\u00a0", "").replace("\u202f", "").replace("'", "").replace(" ", "")
    if _COMMA_DECIMAL.fullmatch(t):
        return t.replace(".", "").replace(",", ".")
    if _POINT_DECIMAL.fullmatch(t):
        return t.replace(",", "")
    if decimal_comma:
        if re.fullmatch(r"[-+]?\d{1,3}(?:\.\d{3})+(?:,\d+)?", t):
            return t.replace(".", "").replace(",", ".")
        t = t.replace(",", ".")
        return None if t.count(".") > 1 else t
    if re.fullmatch(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?", t):
        return t.replace(",", "")
    if "," in t:
        # "3,0" in an English text: a decimal comma only when it cannot be thousands
        head, _, tail = t.partition(",")
        if len(tail) == 3 or "," in tail or "." in t:
            return None
        t = f"{head}.{tail}"
    return t


def parse_number(token: str, *, decimal_comma: bool = False) -> float | None:
    """A number written in digits: "1,000" = 1000, "2.4", "3,0" = 3.0 where ``decimal_comma``
    (and "1.000" = 1000 there), "1 000" with a (narrow) no-break space as thousands separator. A number
    that can be read only one way ("1.000,50", "1,000.50", "1.000.000") is read so in any language."""
    t = _plain(token, decimal_comma)
    try:
        return None if t is None else float(t)
    except ValueError:
        return None


def written_number(text: str) -> Fraction | None:
    """The one number written in digits in ``text`` (a figure's own text, "$12,345,678,901,234,567,890"),
    exact at any length (a float keeps about 16 digits), where its separators say which is the decimal
    mark: the last where two kinds are used ("1.234.567,89"), none where one kind is used twice or more
    ("1.000.000"), one mark alone when four digits or more come before it ("12345678901234567890,5") or
    other than three after it ("0.12345678901", "2,5"); None where ``text`` holds no such one number
    ("1.000" may be one or a thousand)."""
    tokens = _NUMBER_TOKEN.findall(text)
    if len(tokens) != 1:
        return None
    t = re.sub(r"[\u00a0\u202f' ]", "", tokens[0].replace("−", "-"))
    seps = re.findall(r"[.,]", t)
    if len(set(seps)) == 2:
        head, _, tail = t.rpartition(seps[-1])
        t = re.sub(r"[.,]", "", head) + "." + tail
    elif len(seps) > 1:
        t = re.sub(r"[.,]", "", t)
    elif seps:
        head, tail = t.split(seps[0])
        if len(head.lstrip("+-")) < 4 and len(tail) == 3:
            return None  # "1.000": a thousand, or one to three places
        t = t.replace(seps[0], ".")
    return Fraction(t)


_NUMBER_TOKEN = re.compile(r"(?<![\w.,])[-+−]?\d+(?:[.,\u00a0\u202f']\d+| \d{3}(?!\d))*")


def written_decimal_comma(text: str) -> bool | None:
    """What the numbers of ``text`` show of its decimal mark where its language is not known: True when
    one can be read only with a decimal comma ("1.000,50", "1.000.000"), False when one only with a
    decimal point ("1,000.50", "1,000,000"), None when none says (or they disagree)."""
    comma = point = False
    for m in _WRITTEN.finditer(text):
        comma = comma or _COMMA_DECIMAL.fullmatch(m.group()) is not None
        point = point or _POINT_DECIMAL.fullmatch(m.group()) is not None
    return None if comma == point else comma


@dataclass
class _Num:
    start: int
    end: int
    value: float
    digits: int
    word: bool = False  # written in words
    scale: float = 1.0  # the scale word applied ("million": 1e6)


def tokens_after(text: str, pos: int, n: int = 4) -> list[tuple[str, int, int]]:
    out = []
    i = pos
    while len(out) < n:
        m = re.compile(rf"\s*([{CJK}]|[%°º€$£¥]|[^\W\d_]+(?:[./-]?[^\W\d_]+)*\.?|[()\[\],;:]|\d+)", re.UNICODE).match(
            text, i
        )
        if not m:
            break
        out.append((m.group(1), m.start(1), m.end(1)))
        i = m.end()
    return out


_LETTERS = re.compile(r"[^\W\d_]+")


def find_numbers(text: str, decimal_comma: bool, lang: str | None = None) -> list[_Num]:
    """Numbers in digits and in words (those of ``lang`` too: :func:`word_numbers`), with spans, in
    order; scale words ("2.5 million") applied."""
    table = word_numbers(lang)
    nums: list[_Num] = []
    # where the decimal mark is a comma, a plain space also groups thousands ("1 200 g")
    space = r"(?<![\w.,])\d{1,3}(?: \d{3})+(?:,\d+)?(?![\d_]|[.,]\d)|" if decimal_comma else ""
    for m in re.finditer(
        rf"{space}(?<![\w.,])(?:[-+−](?=\d))?\d+(?:[.,\u00a0\u202f']\d+)*(?![\d_])|(?<=[{CJK}])\d+(?:[.,]\d+)?",
        text,
    ):
        tok = m.group()
        if m.end() < len(text) and text[m.end()].isalpha() and not re.match(rf"[{CJK}]", text[m.end()]):
            glued = _LETTERS.match(text, m.end()).group().lower()  # type: ignore[union-attr]
            if glued not in SCALES and unit_at(text, m.end()) is None:
                continue  # "5G", "3rd", "2x": not a quantity
        v = parse_number(tok, decimal_comma=decimal_comma)
        if v is None:
            # "1,2,3" or an ambiguous comma: take the parts as separate numbers
            for p in re.finditer(r"\d+(?:\.\d+)?", tok):
                nums.append(_Num(m.start() + p.start(), m.start() + p.end(), float(p.group()), sig_digits(p.group())))
            continue
        nums.append(_Num(m.start(), m.end(), v, sig_digits(tok)))
    # numbers in words (a run like "twenty four", "two hundred", "vingt et un" or "dix-sept" is one number)
    words = list(re.finditer(rf"[^\W\d_]+|[{CJK}]", text))
    i = 0
    while i < len(words):
        w = words[i].group().lower()
        if w in table and not (w in ARTICLES and w not in ("uno", "una", "eins")):
            val = float(table[w])
            start, end = words[i].start(), words[i].end()
            j = i + 1
            while j < len(words) and words[j].start() - end <= 1:
                nxt_word = words[j].group().lower()
                joined = (
                    nxt_word in _NUMBER_JOINS
                    and j + 1 < len(words)
                    and words[j + 1].start() - words[j].end() <= 1
                    and val >= 20
                    and val % 10 == 0
                    and table.get(words[j + 1].group().lower(), 10) < 10
                )
                if joined:  # "treinta y cinco", "vingt et un"
                    val += float(table[words[j + 1].group().lower()])
                    end = words[j + 1].end()
                    j += 2
                    break
                if nxt_word not in table:
                    break
                nxt = float(table[nxt_word])
                hyphen = text[end : words[j].start()] == "-"
                if nxt in (100, 1000, 1e6, 1e9) and val < nxt:
                    val *= nxt
                elif val >= 20 and nxt < 10 and val % 10 == 0:
                    val += nxt
                elif val in (60, 80) and 10 <= nxt < 20 and hyphen:
                    val += nxt  # "soixante-dix", "quatre-vingt-quinze"
                elif val == 10 and 7 <= nxt <= 9 and hyphen:
                    val += nxt  # "dix-sept"
                elif val == 4 and nxt == 20 and hyphen:
                    val = 80  # "quatre-vingts"
                else:
                    break
                end = words[j].end()
                j += 1
            if w in ("un", "une") and _is_article_use(text, end):
                i = j  # the French article, not the number one
                continue
            before = text[max(0, start - 5) : start].rstrip()
            if (
                val in (1e3, 1e6, 1e9)
                and float(table[w]) == val
                and (before[-1:] in CURRENCY_SIGNS or (before[-3:] in ISO_CURRENCIES and not before[-4:-3].isalpha()))
            ):
                # "(A$ million)", "in £ thousand", "(in USD million)": the unit of a table's figures, no figure itself
                i = j
                continue
            nums.append(_Num(start, end, val, 1, word=True))
            i = j
            continue
        if w in ARTICLES:
            # "a day", "an hour", "ein Tag": one of a time unit
            after = tokens_after(text, words[i].end(), 1)
            unit = after[0][0].lower().rstrip(".") if after else ""
            if unit in UNITS and UNITS[unit][0] == "time":
                nums.append(_Num(words[i].start(), words[i].end(), 1.0, 1, word=True))
        i += 1
    nums.sort(key=lambda n: n.start)
    # drop word numbers inside a digit number's span (never happens) and merge scale words
    out: list[_Num] = []
    for n in nums:
        after = tokens_after(text, n.end, 2)
        if after:
            sw = after[0][0].lower()
            if sw not in SCALES:
                sw = sw.rstrip(".")  # "£1,236 million." ends a sentence
            two = f"{sw} {after[1][0].lower()}" if len(after) > 1 else ""
            if two in SCALES:
                n = _Num(n.start, after[1][2], n.value * SCALES[two], n.digits, n.word, SCALES[two])
            elif sw in SCALES and (len(sw) > 1 or not n.word) and not unit_here(text, n.start, sw):
                n = _Num(n.start, after[0][1] + len(sw), n.value * SCALES[sw], n.digits, n.word, SCALES[sw])
            else:
                n = _Num(n.start, n.end, n.value, 0, n.word)  # written out in full: exact
        else:
            n = _Num(n.start, n.end, n.value, 0, n.word)
        out.append(n)
    return out


def _is_article_use(text: str, end: int) -> bool:
    """French "un"/"une" is an article unless a unit follows ("une heure" is one hour)."""
    after = tokens_after(text, end, 1)
    return not (after and after[0][0].lower() in UNITS)


__all__ = ["parse_number", "written_decimal_comma", "written_number"]
