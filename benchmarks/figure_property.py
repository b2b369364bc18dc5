"""Property test of the figure check from real text (issue 32, item 4).

    python benchmarks/figure_property.py [--limit 30000] [--seed 0] [--per-doc 3] [--rare-extra 2]
        [--data ../shared/data/train] [--out results.jsonl] [--examples 3]

From the references of ``--data`` (CNN/DM articles of ``halueval_summ.jsonl`` and Wikipedia
passages of ``halueval_qa.jsonl``, taken alternately, each deduplicated and shuffled with
``--seed``), up to ``--per-doc`` sentences with figures (those where
:func:`hallucheck.text.quantities.parse_quantities` finds one) are drawn per reference at random,
and up to ``--rare-extra`` more that allow a rare form (scale words, percent, clause order, unit
conversion, currency, separators, clock times: so that their rates rest on more cases); for each
sentence this script writes, by rule:

* ``verbatim``: the sentence as it is;
* meaning-preserving rewrites, one figure each, every form that applies (a form that does not apply
  to the sentence is skipped): ``separators`` ("1,420,000" <-> "1420000"), ``scale`` ("1,420,000"
  -> "1.42 million", "$1.42 billion" -> "$1,420 million", "£5m" <-> "£5 million", "2 million" ->
  "2,000,000"), ``number_words`` (0..20 to words, "two".."twenty" to digits), ``percent`` ("%" <->
  "percent" <-> "per cent"), ``currency`` ("$5" <-> "5 dollars", "$0.84" <-> "84 cents"),
  ``clause_order`` (a fronted adverbial moved to the end: "In 2013, X." -> "X in 2013."; an
  attribution moved to the front: "X, police said." -> "Police said X."), ``approx`` ("about",
  "nearly", "more than" ... with the value rounded to two significant figures, or to a multiple of
  5 below 100: at most 12.5 % off), ``unit_conversion`` (km <-> miles, kg <-> lb, metres <-> feet,
  cm <-> inches, mph <-> km/h, rounded to within 1 %);
* single-figure corruptions, one of each kind that applies: ``value`` (one digit changed, or the
  value times 2, 3 or 10 or halved; "five" -> another number word), ``unit`` (mg -> g, km -> miles,
  days -> weeks, $ -> £ ..., the number kept), ``scale`` (million <-> billion, thousand -> million,
  m <-> bn), ``referent_swap`` (two figures of one kind in the sentence trade places: whole
  surfaces, or only the numbers of two counts of different things), ``date`` (the day, month or
  year of a date changed), ``time`` (the hour or the minutes of a clock time changed).

Each claim is checked against its whole reference with
``ReferenceFacts(reference).check_quantities(claim)`` (one ``ReferenceFacts`` per reference). A
verbatim sentence or a rewrite is a **false conflict** when any figure check says ``contradicted``
or ``missing``; a corruption is **caught** when any says so ("at the figure": a check whose span
overlaps the changed figure does). The tables are printed as markdown; ``--out`` writes one JSON line
per generated item (group, kind, form, claim, the original sentence, reference id, the change, the
statuses) so that failures can be read. Deterministic for a given ``--seed``; the figures written
and changed are found by this script's own patterns, not by the parser under test (which only
picks the sentences and the pairs of one kind for ``referent_swap``).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "train"
SOURCES = (("cnndm", "halueval_summ.jsonl"), ("wiki", "halueval_qa.jsonl"))
REWRITES = (
    "separators",
    "scale",
    "number_words",
    "percent",
    "currency",
    "clause_order",
    "approx",
    "unit_conversion",
)
CORRUPTIONS = ("value", "unit", "scale", "referent_swap", "date", "time")
FLAGGED = frozenset({"contradicted", "missing"})


@dataclass
class Item:
    """One generated claim: ``group`` is verbatim, rewrite or corruption; ``spans`` the changed
    figures' spans in ``claim``; ``change`` says what was done ("1,420,000 -> 1.42 million")."""

    group: str
    kind: str
    claim: str
    sentence: str
    change: str = ""
    spans: list[tuple[int, int]] = field(default_factory=list)
    ref_id: str = ""
    source: str = ""


# ---------------------------------------------------------------------------------------------
# numbers in the text, by this script's own patterns

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_NUM_RE = re.compile(rf"(?<![\d.,])(?:{_NUM})(?!\d|[.,]\d)")
_MONTH_NAMES = "January February March April May June July August September October November December".split()
_MONTH_ABBR = "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec".split()
_MONTH = "(?:" + "|".join(sorted(_MONTH_NAMES + _MONTH_ABBR, key=len, reverse=True)) + ")"
_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty"
).split()
_WORD_VALUE = {w: i for i, w in enumerate(_WORDS)}
_QUALIFIERS = re.compile(
    r"\b(?:about|around|approximately|roughly|some|nearly|almost|over|under|more than|less than|fewer than|"
    r"at least|at most|up to|just|only|exactly|estimated|an estimated|close to|below|above|than|top|"
    r"upwards of|no|number|No\.|nos?\.?)\s*[$£€]?\s*$",
    re.IGNORECASE,
)
_DETERMINERS = re.compile(
    r"\b(?:a|an|the|his|her|its|their|our|my|your|this|that|these|those|each|every|per)\s+[$£€]?$", re.IGNORECASE
)
_SENTENCE_START_OK = frozenset(
    """In On At By About Some Nearly Almost Over Under Around Only Just The A An More Less Than Since From To Of
    And Or For With After Before During Until Between Within Last This Those These Its Their His Her Aged Age
    Up Down Rising Falling Of Per Each Every Another Another Just""".split()
)


@dataclass(frozen=True)
class Num:
    """A number in digits in the text: ``text[start:end]``, its value, and what is around it."""

    start: int
    end: int
    raw: str
    before: str
    after: str

    @property
    def value(self) -> Decimal:
        return Decimal(self.raw.replace(",", ""))

    @property
    def commas(self) -> bool:
        return "," in self.raw

    @property
    def decimals(self) -> int:
        return len(self.raw.split(".")[1]) if "." in self.raw else 0

    @property
    def integer(self) -> bool:
        return "." not in self.raw

    @property
    def year_like(self) -> bool:
        return self.integer and not self.commas and len(self.raw) == 4 and 1000 <= int(self.raw) <= 2100

    @property
    def glued_before(self) -> bool:
        """ "COVID-19", "A4", "#3", "2-1": part of a code, a score or a range's second end."""
        b = self.before
        return bool(b) and (b[-1].isalnum() or b[-1] in "#/_" or (b[-1] in "-–—" and len(b) > 1 and b[-2].isalnum()))

    @property
    def suffix(self) -> str:
        """Letters glued after the number ("5G", "10th", "5m", "3D")."""
        m = re.match(r"[A-Za-z]+", self.after)
        return m.group() if m else ""

    @property
    def clock(self) -> bool:
        return bool(re.match(r"\s?(?:[:.]\d\d(?!\d)|[ap]\.?m\b)", self.after, re.IGNORECASE)) or self.before.endswith(
            ":"
        )

    @property
    def in_date(self) -> bool:
        return bool(
            re.search(rf"\b{_MONTH}\.?\s*$", self.before)
            or re.match(rf"(?:st|nd|rd|th)?\s*(?:of\s+)?{_MONTH}\b", self.after)
            or re.match(r"(?:st|nd|rd|th)\b", self.after)
        )

    @property
    def named(self) -> bool:
        """After a capitalised word that does not start the sentence: "Apollo 11", "Chapter 3"."""
        m = re.search(r"(?:^|\s)([A-Z][\w'’.]*)\s+$", self.before)
        if not m:
            return bool(re.search(r"\b(?:No|no|number|Number|page|Page)\.?\s*$", self.before))
        word = m.group(1).rstrip(".")
        at_start = self.before[: m.start(1)].strip(" \"'“‘(") == ""
        if word in _SENTENCE_START_OK and at_start:
            return False
        return True

    @property
    def currency(self) -> str | None:
        m = re.search(r"([A-Za-z]*)([$£€])\s?$", self.before)
        if not m:
            return None
        return "foreign" if m.group(1) else m.group(2)

    @property
    def in_range(self) -> bool:
        return bool(
            re.match(r"\s*(?:%|\s?percent|\s?per cent)?\s*(?:-|–|—|to|and|or)\s*[$£€]?\d", self.after)
            or re.search(r"(?:\d\s*%?\s*(?:-|–|—)|\bto|\band|\bor|\bbetween|\bfrom)\s*[$£€]?$", self.before)
        )

    @property
    def plain(self) -> bool:
        """Not part of a code, a name, a date, a clock time or a glued form."""
        return not (self.glued_before or self.named or self.in_date or self.clock or self.currency == "foreign")


def numbers(text: str) -> list[Num]:
    return [
        Num(m.start(), m.end(), m.group(), text[max(0, m.start() - 30) : m.start()], text[m.end() : m.end() + 30])
        for m in _NUM_RE.finditer(text)
    ]


def fmt(value: Decimal, *, commas: bool, decimals: int) -> str:
    q = Decimal(1).scaleb(-decimals) if decimals else Decimal(1)
    v = value.quantize(q)
    s = f"{v:,f}" if commas else f"{v:f}"
    return s


def plain_decimal(value: Decimal, *, commas: bool = False) -> str:
    """``value`` without trailing zeros after the point."""
    s = f"{value.normalize():,f}" if commas else f"{value.normalize():f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


def apply(text: str, repls: Sequence[tuple[int, int, str]]) -> tuple[str, list[tuple[int, int]]]:
    """``text`` with each (start, end, new) replaced (non-overlapping), and the new spans."""
    out, spans, pos, shift = [], [], 0, 0
    for s, e, new in sorted(repls):
        out.append(text[pos:s])
        out.append(new)
        spans.append((s + shift, s + shift + len(new)))
        shift += len(new) - (e - s)
        pos = e
    out.append(text[pos:])
    return "".join(out), spans


def _cap_like(word: str, like: str) -> str:
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


# ---------------------------------------------------------------------------------------------
# rewrites: each returns candidate (replacements, change) pairs; the generator keeps one at random

Edit = tuple[list[tuple[int, int, str]], str]


def rw_separators(text: str) -> list[Edit]:
    out = []
    for n in numbers(text):
        if not n.plain or n.suffix and n.suffix.lower() not in ("m", "bn", "k"):
            continue
        if n.commas:
            if n.integer and 1000 <= n.value <= 2100:
                continue  # "1,900" -> "1900" would read as a year
            new = n.raw.replace(",", "")
        elif n.value >= 10000 and not n.year_like:
            new = fmt(n.value, commas=True, decimals=n.decimals)
        else:
            continue
        out.append(([(n.start, n.end, new)], f"{n.raw} -> {new}"))
    return out


_SCALE_WORDS = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}
_SCALE_ABBR = {"k": ("thousand", 3), "m": ("million", 6), "bn": ("billion", 9)}
_SCALE_RE = re.compile(
    rf"(?P<cur>(?<![A-Za-z])[$£€]\s?)?(?<![\d.,])(?P<num>{_NUM})(?P<sp>\s?)(?P<scale>thousand|million|billion|trillion|bn|m|k)\b"
)


def _scales(text: str) -> Iterator[re.Match]:
    for m in _SCALE_RE.finditer(text):
        scale = m.group("scale")
        if scale in ("m", "k") and (m.group("sp") or not m.group("cur")):
            continue  # "5m" is five metres unless it is money
        if scale == "bn" and not m.group("cur") and m.group("sp"):
            continue
        before = text[max(0, m.start() - 2) : m.start()]
        if before and (before[-1].isalnum() or before[-1] in "-–"):
            continue
        if text[m.end() : m.end() + 1] == "-":
            continue  # "a $5million-a-year deal": leave compounds alone
        yield m


def rw_scale(text: str) -> list[Edit]:
    out: list[Edit] = []
    for m in _scales(text):
        num, scale, cur = m.group("num"), m.group("scale"), m.group("cur") or ""
        value = Decimal(num.replace(",", ""))
        s, e = m.start(), m.end()
        if scale in _SCALE_ABBR:
            word, power = _SCALE_ABBR[scale]
            new = f"{cur}{num} {word}"
            out.append(([(s, e, new)], f"{m.group()} -> {new}"))
        else:
            word, power = scale, _SCALE_WORDS[scale]
            if cur and word in ("million", "billion"):
                new = f"{cur}{num}{'m' if word == 'million' else 'bn'}"
                out.append(([(s, e, new)], f"{m.group()} -> {new}"))
        if power >= 9:
            lower = value * 1000
            if lower == lower.to_integral_value() or lower * 100 == (lower * 100).to_integral_value():
                lower_word = "million" if power == 9 else "billion"
                new = f"{cur}{plain_decimal(lower, commas=True)} {lower_word}"
                out.append(([(s, e, new)], f"{m.group()} -> {new}"))
        if power <= 9:
            full = value.scaleb(power)
            if full == full.to_integral_value():
                new = f"{cur}{plain_decimal(full, commas=True)}"
                out.append(([(s, e, new)], f"{m.group()} -> {new}"))
    taken = [(m.start(), m.end()) for m in _scales(text)]
    for n in numbers(text):
        if not n.plain or not n.integer or n.suffix or n.value < 1_000_000 or n.value % 1000:
            continue
        if any(a <= n.start < b for a, b in taken):
            continue
        power = 9 if n.value >= 1_000_000_000 else 6
        mant = n.value.scaleb(-power)
        if mant * 1000 != (mant * 1000).to_integral_value():
            continue
        new = f"{plain_decimal(mant)} {'billion' if power == 9 else 'million'}"
        out.append(([(n.start, n.end, new)], f"{n.raw} -> {new}"))
    return out


_FRACTION_AFTER = re.compile(r"(?:-|\s)(?:thirds?|quarters?|fifths?|halves|half|sixths?|eighths?|tenths?)\b", re.I)
_WORD_ALT = "(?:" + "|".join(_WORDS) + ")"
_WORD_RE = re.compile(r"\b(" + "|".join(_WORDS[2:]) + r")\b", re.IGNORECASE)


def _word_numbers(text: str) -> Iterator[re.Match]:
    """Number words "two".."twenty" that stand alone (not "twenty-five", "two-thirds", "Formula Two")."""
    for m in _WORD_RE.finditer(text):
        w = m.group()
        before, after = text[max(0, m.start() - 20) : m.start()], text[m.end() : m.end() + 20]
        if w[0].isupper() and before.strip(" \"'“‘(") != "":
            continue  # capitalised inside the sentence: a name
        if re.search(r"[-–]\s*$", before) or re.match(r"-(?:to-|" + "|".join(_WORDS[1:10]) + r")\b", after, re.I):
            continue
        if _FRACTION_AFTER.match(after) or re.match(r"\s+hundred\b", after, re.I):
            continue  # "two-thirds", "four hundred"
        if re.search(r"\b(?:hundred|thousand)\s+(?:and\s+)?$", before, re.I):
            continue  # "three hundred and twenty"
        yield m


def rw_number_words(text: str) -> list[Edit]:
    out: list[Edit] = []
    for n in numbers(text):
        if not n.plain or not n.integer or n.commas or n.value > 20 or n.currency or n.in_range:
            continue
        if n.suffix or re.match(r"\s?%|\.\d|:", n.after) or n.before.endswith(("-", "–", "/", ".")):
            continue
        word = _WORDS[int(n.value)]
        if n.start == 0 or text[: n.start].strip(" \"'“‘(") == "":
            word = word.capitalize()
        out.append(([(n.start, n.end, word)], f"{n.raw} -> {word}"))
    for m in _word_numbers(text):
        value = _WORD_VALUE[m.group().lower()]
        after = text[m.end() : m.end() + 12]
        if re.match(rf"\s*(?:-|–|to|or|and)\s*(?:\d|{_WORD_ALT}\b)", after, re.I) or re.search(
            rf"(?:\d|\b{_WORD_ALT})\s*(?:-|–|to|or|and)\s*$", text[max(0, m.start() - 20) : m.start()], re.I
        ):
            continue  # "from five to 3": a range is rewritten whole or not at all
        out.append(([(m.start(), m.end(), str(value))], f"{m.group()} -> {value}"))
    return out


_PCT_RE = re.compile(rf"(?<![\d.,])(?P<num>{_NUM})(?P<form>\s?%|\s(?:percent|per cent)\b)(?!\s*(?:age|point))")


def rw_percent(text: str, rng: random.Random) -> list[Edit]:
    out: list[Edit] = []
    for m in _PCT_RE.finditer(text):
        form = m.group("form").strip()
        options = [f for f in ("%", " percent", " per cent") if f.strip() != form]
        new = m.group("num") + rng.choice(options)
        out.append(([(m.start(), m.end(), new)], f"{m.group()} -> {new}"))
    return out


_CUR_NAMES = {"$": ("dollar", "dollars"), "£": ("pound", "pounds"), "€": ("euro", "euros")}
_SYM_RE = re.compile(
    rf"(?<![A-Za-z$£€])(?P<sym>[$£€])\s?(?P<num>{_NUM})(?:(?P<sp>\s?)(?P<scale>thousand|million|billion|trillion|bn|m|k)\b)?(?![\w-]|[.,]\d)"
)
_WORDCUR_RE = re.compile(
    rf"(?<![\d.,$£€])(?P<num>{_NUM})(?:\s(?P<scale>thousand|million|billion|trillion))?\s(?P<word>dollars|dollar|euros|euro|cents)\b"
)


def rw_currency(text: str) -> list[Edit]:
    out: list[Edit] = []
    for m in _SYM_RE.finditer(text):
        sym, num, scale = m.group("sym"), m.group("num"), m.group("scale")
        if re.search(r"\b[A-Z]{1,3}\s?$", text[max(0, m.start() - 4) : m.start()]):
            continue  # "US $237": the country's dollar
        if scale in ("m", "k") and m.group("sp"):
            continue
        value = Decimal(num.replace(",", ""))
        if not scale and sym in "$£" and value < 1 and "." in num and len(num.split(".")[1]) == 2:
            cents = int(num.split(".")[1])
            new = f"{cents} {'cents' if sym == '$' else 'pence'}"
        elif scale == "k":
            new = f"{plain_decimal(value * 1000, commas=True)} {_CUR_NAMES[sym][1]}"
        else:
            word = {"m": "million", "bn": "billion"}.get(scale or "", scale or "")
            name = _CUR_NAMES[sym][0 if value == 1 and not word else 1]
            new = f"{num} {word + ' ' if word else ''}{name}"
        out.append(([(m.start(), m.end(), new)], f"{m.group()} -> {new}"))
    for m in _WORDCUR_RE.finditer(text):
        num, scale, word = m.group("num"), m.group("scale"), m.group("word")
        if text[max(0, m.start() - 1) : m.start()].isalpha():
            continue
        if word == "cents":
            if scale or "." in num or int(num.replace(",", "")) >= 100:
                continue
            new = f"$0.{int(num):02d}"
        else:
            sym = "$" if word.startswith("dollar") else "€"
            new = f"{sym}{num}{' ' + scale if scale else ''}"
        out.append(([(m.start(), m.end(), new)], f"{m.group()} -> {new}"))
    return out


_FRONTED = re.compile(
    r"^(?P<phrase>(?:In|On|By|During|After|Before|Since|At|Over|Last|This|Earlier|Until|Between|From|Within|"
    r"For|Throughout|Of)\s[^,;:\"“”]{2,70}?(?:,\s\d{4})?),\s(?P<rest>[a-z][^;:\"“”]{10,200}?)(?P<end>[.!?])$"
)
_ATTRIB = re.compile(
    r"^(?P<body>[A-Z][^\"“”;]{15,300}?),\s(?P<who>(?:police|officials|authorities|he|she|they|it|"
    r"[A-Z][\w.'’-]*(?:\s[A-Z][\w.'’-]*){0,3}|the\s[a-z]+(?:\s[a-z]+)?)|(?:a|the)\s[a-z]+\s[a-z]+)\s"
    r"(?P<verb>said|says|added|reported|told\s[A-Z][\w]*|announced|confirmed)(?P<end>[.!?])$"
)
_ACCORDING_FRONT = re.compile(r"^According to (?P<who>[^,;\"“”]{3,80}), (?P<rest>[^;\"“”]{10,300}?)(?P<end>[.!?])$")
_ACCORDING_END = re.compile(r"^(?P<body>[A-Z][^;\"“”]{10,300}?), according to (?P<who>[^,;\"“”]{3,80})(?P<end>[.!?])$")
_ONE_CLAUSE_ONLY = re.compile(r",|\b(?:and|but|while|when|after|before|which|who|where|as|until|since)\b")
_LOWER_FIRST = frozenset(
    "The A An It This That There These Those Its Their His Her Our Some More Most Many All About Only Both Each "
    "Every Several Police Officials Authorities Researchers Scientists".split()
)


def rw_clause_order(text: str) -> list[Edit]:
    out: list[Edit] = []
    s = text.strip()
    lead = len(text) - len(text.lstrip())
    m = _FRONTED.match(s)
    if m and not _ONE_CLAUSE_ONLY.search(m.group("rest")):
        phrase = m.group("phrase")
        first = phrase.split()[0]
        phrase = first.lower() + phrase[len(first) :]
        rest = m.group("rest")
        new = rest[0].upper() + rest[1:] + " " + phrase + m.group("end")
        out.append(([(lead, lead + len(s), new)], "fronted phrase moved to the end"))
    m = _ATTRIB.match(s)
    if m:
        body, who, verb = m.group("body"), m.group("who"), m.group("verb")
        first = body.split()[0]
        if first in _LOWER_FIRST:
            body = first.lower() + body[len(first) :]
        who = who[0].upper() + who[1:]
        new = f"{who} {verb} {'that ' if verb.startswith('told') else ''}{body}{m.group('end')}"
        out.append(([(lead, lead + len(s), new)], "attribution moved to the front"))
    m = _ACCORDING_FRONT.match(s)
    if m:
        rest = m.group("rest")
        first = rest.split()[0]
        if first in _LOWER_FIRST:
            rest = first.lower() + rest[len(first) :]
        new = f"{m.group('rest')[0].upper()}{rest[1:]}, according to {m.group('who')}{m.group('end')}"
        out.append(([(lead, lead + len(s), new)], "'according to' moved to the end"))
    m = _ACCORDING_END.match(s)
    if m:
        body = m.group("body")
        first = body.split()[0]
        if first in _LOWER_FIRST:
            body = first.lower() + body[len(first) :]
        new = f"According to {m.group('who')}, {body}{m.group('end')}"
        out.append(([(lead, lead + len(s), new)], "'according to' moved to the front"))
    return out


def _round_approx(n: Num) -> Decimal | None:
    v = n.value
    if v <= 0:
        return None
    if n.integer:
        if v < 20:
            return None
        if v < 100:
            return (v / 5).quantize(Decimal(1), rounding="ROUND_HALF_UP") * 5
        digits = len(str(int(v)))
        step = Decimal(10) ** (digits - 2)
        return (v / step).quantize(Decimal(1), rounding="ROUND_HALF_UP") * step
    mag = v.adjusted()  # exponent of the leading digit
    step = Decimal(10) ** (mag - 1)
    r = (v / step).quantize(Decimal(1), rounding="ROUND_HALF_UP") * step
    return r.normalize() if r >= 1 else r


def rw_approx(text: str, rng: random.Random) -> list[Edit]:
    out: list[Edit] = []
    for n in numbers(text):
        if not n.plain or n.year_like or n.in_range or n.value == 0:
            continue
        money_abbr = n.suffix in ("m", "bn", "k") and n.currency
        if n.suffix and not money_abbr:
            continue
        if n.after.startswith(("-", "–")) or n.before.endswith(("-", "–")):
            continue  # "37-year-old": no room for "about"
        if re.match(r"\s[A-Z]", n.after) or (re.search(r",\s*$", n.before) and re.match(r"\s*[,)]", n.after)):
            continue  # "2752 Wu Chien-Shiung" (a name), "Frederik, 46," (an age in apposition)
        head = n.start - (len(n.before) - len(re.sub(r"[$£€]\s?$", "", n.before)))
        before = text[max(0, head - 25) : head]
        if _QUALIFIERS.search(before) or _DETERMINERS.search(before + text[head : n.start]):
            continue
        if re.search(r"[$£€]$", before.rstrip()):
            continue
        r = _round_approx(n)
        if r is None:
            continue
        if r < n.value:
            qual = rng.choice(["about", "around", "roughly", "more than", "over"])
        elif r > n.value:
            qual = rng.choice(["about", "around", "nearly", "almost"])
        else:
            qual = rng.choice(["about", "around", "roughly"])
        num = plain_decimal(r, commas=n.commas or r >= 10000)
        if text[:head].strip(" \"'“‘(") == "":
            qual = qual.capitalize()
        new = f"{qual} {text[head : n.start]}{num}"
        out.append(([(head, n.end, new)], f"{text[head : n.end]} -> {new}"))
    return out


_LENGTH_UNITS = {
    "km": "km", "kilometres": "km", "kilometers": "km", "kilometre": "km", "kilometer": "km",
    "miles": "mi", "mile": "mi",
    "kg": "kg", "kilograms": "kg", "kilogrammes": "kg", "kilogram": "kg", "kilos": "kg",
    "lbs": "lb", "lb": "lb",
    "metres": "m", "meters": "m", "metre": "m", "meter": "m",
    "feet": "ft", "foot": "ft", "ft": "ft",
    "cm": "cm", "centimetres": "cm", "centimeters": "cm",
    "inches": "in", "inch": "in",
    "mph": "mph", "km/h": "kmh", "kph": "kmh",
}  # fmt: skip
_CONVERT = {  # unit -> (target, factor, plural name, singular name)
    "km": ("mi", 0.621371, "miles", "mile"),
    "mi": ("km", 1.609344, "km", "km"),
    "kg": ("lb", 2.204623, "lb", "lb"),
    "lb": ("kg", 0.4535924, "kg", "kg"),
    "m": ("ft", 3.280840, "feet", "foot"),
    "ft": ("m", 0.3048, "metres", "metre"),
    "cm": ("in", 0.3937008, "inches", "inch"),
    "in": ("cm", 2.54, "cm", "cm"),
    "mph": ("kmh", 1.609344, "km/h", "km/h"),
    "kmh": ("mph", 0.621371, "mph", "mph"),
}
_UNIT_RE = re.compile(
    rf"(?<![\d.,])(?P<num>{_NUM})(?P<sep>\s|-)?(?P<unit>"
    + "|".join(sorted((re.escape(u) for u in _LENGTH_UNITS), key=len, reverse=True))
    + r")(?![\w/])"
)


def rw_unit_conversion(text: str) -> list[Edit]:
    out: list[Edit] = []
    for m in _UNIT_RE.finditer(text):
        before = text[max(0, m.start() - 12) : m.start()]
        if before and (before[-1].isalnum() or before[-1] in "-–$£€"):
            continue
        if re.match(r"\s*\d", text[m.end() :]) or re.search(r"(?:ft|feet|foot|metres?|m)\s*(?:and\s+)?$", before):
            continue  # "5ft 10in", "6 feet 2 inches": a compound height
        if re.match(r"\s*(?:-|–|to)\s*\d", text[m.end() :]) or re.search(
            r"\d\s*(?:,|and|or|to|by|x|×|-|–)\s*$", before
        ):
            continue  # "1.5 and 1.65 inches", "5-10 km": the unit is shared, converting one end changes the other
        value = float(m.group("num").replace(",", ""))
        if value == 0:
            continue
        target, factor, plural, singular = _CONVERT[_LENGTH_UNITS[m.group("unit")]]
        conv = value * factor
        for d in (0, 1, 2, 3):
            r = round(conv, d)
            if r and abs(r - conv) <= 0.01 * conv:
                break
        num = plain_decimal(Decimal(str(r)), commas=r >= 10000)
        if m.group("sep") == "-":
            new = f"{num}-{singular}"
        else:
            new = f"{num} {plural}"
        out.append(([(m.start(), m.end(), new)], f"{m.group()} -> {new}"))
    return out


# ---------------------------------------------------------------------------------------------
# corruptions


def _change_digit(raw: str, rng: random.Random) -> str:
    digits = [i for i, ch in enumerate(raw) if ch.isdigit()]
    int_part = raw.split(".")[0]
    # not the zeros that end a whole number ("1,000": its "1"): they are often rounding
    trailing = len(int_part) - len(int_part.rstrip("0,")) if "." not in raw else 0
    pos = [i for i in digits if i < len(int_part) - trailing or i >= len(int_part)] or digits
    i = rng.choice(pos)
    lead = i == 0 and len(int_part.replace(",", "")) > 1
    choices = [d for d in "0123456789" if d != raw[i] and not (lead and d == "0")]
    return raw[:i] + rng.choice(choices) + raw[i + 1 :]


def co_value(text: str, rng: random.Random) -> list[Edit]:
    out: list[Edit] = []
    for n in numbers(text):
        if not n.plain or n.year_like:
            continue
        if n.suffix and not (n.suffix in ("m", "bn", "k") and n.currency) and n.suffix not in ("s",):
            continue
        if rng.random() < 0.5:
            new = _change_digit(n.raw, rng)
        else:
            factors = [Decimal(2), Decimal(3), Decimal(10)] + ([Decimal("0.5")] if n.value % 2 == 0 and n.value else [])
            v = n.value * rng.choice(factors)
            new = fmt(v, commas=n.commas or (v >= 10000 and n.value >= 10000), decimals=n.decimals)
        if Decimal(new.replace(",", "")) == n.value:
            continue
        out.append(([(n.start, n.end, new)], f"{n.raw} -> {new}"))
    for m in _word_numbers(text):
        value = _WORD_VALUE[m.group().lower()]
        new = rng.choice([w for w in _WORDS[2:] if _WORD_VALUE[w] != value])
        out.append(([(m.start(), m.end(), _cap_like(new, m.group()))], f"{m.group()} -> {new}"))
    return out


_UNIT_SWAP = {
    "mg": "g", "g": "mg", "grams": "kilograms", "gram": "kilogram", "kilograms": "grams", "kilogram": "gram",
    "kg": "g", "lb": "kg", "lbs": "kg", "tonnes": "kilograms", "tons": "pounds",
    "km": "miles", "kilometres": "miles", "kilometers": "miles", "miles": "km", "mile": "km",
    "metres": "feet", "meters": "feet", "metre": "foot", "meter": "foot", "feet": "metres", "foot": "metre",
    "ft": "m", "cm": "inches", "inches": "cm", "inch": "cm", "mm": "cm", "centimetres": "inches",
    "seconds": "minutes", "second": "minute", "minutes": "hours", "minute": "hour", "hours": "days",
    "hour": "day", "days": "weeks", "day": "week", "weeks": "months", "week": "month", "months": "years",
    "month": "year", "years": "months", "year": "month", "decades": "years",
    "mph": "km/h", "km/h": "mph", "litres": "gallons", "liters": "gallons", "gallons": "litres",
    "acres": "hectares", "hectares": "acres", "dollars": "euros", "euros": "dollars",
}  # fmt: skip
_UNIT_WORD = "|".join(sorted((re.escape(u) for u in _UNIT_SWAP), key=len, reverse=True))
_UNIT_SWAP_RE = re.compile(
    rf"(?<![\d.,])(?P<num>{_NUM}|\b(?:{'|'.join(_WORDS[2:])}))(?P<sep>\s|-)?(?:(?P<scale>million|billion|thousand)\s)?"
    rf"(?P<unit>{_UNIT_WORD})(?![\w/])",
    re.IGNORECASE,
)


def co_unit(text: str) -> list[Edit]:
    out: list[Edit] = []
    for m in _UNIT_SWAP_RE.finditer(text):
        unit = m.group("unit")
        if unit.lower() not in _UNIT_SWAP or (unit != unit.lower() and unit not in ("km/h",)):
            continue
        if m.group("sep") is None and len(unit) > 3:
            continue  # "5days": not a unit
        before = text[max(0, m.start() - 2) : m.start()]
        if before and (before[-1].isalnum() or before[-1] in "$£€"):
            continue
        s, e = m.start("unit"), m.end("unit")
        new = _UNIT_SWAP[unit.lower()]
        if re.search(rf"\d\s?-?{re.escape(new)}\b", text):
            continue  # "4 km (2.5 miles)": the sentence gives the value in the other unit too
        out.append(([(s, e, new)], f"{m.group()} -> {text[m.start() : s]}{new}"))
    for m in _SYM_RE.finditer(text):
        sym = m.group("sym")
        if re.search(r"\b[A-Z]{1,3}\s?$", text[max(0, m.start() - 4) : m.start()]):
            continue
        new = {"$": "£", "£": "$", "€": "£"}[sym]
        if new in text:
            continue  # "£9.99 ($9.99)": the sentence gives the price in the other currency too
        out.append(([(m.start("sym"), m.end("sym"), new)], f"{m.group()} -> {new}{text[m.end('sym') : m.end()]}"))
    return out


_SCALE_SWAP = {"thousand": "million", "million": "billion", "billion": "million", "trillion": "billion"}
_SCALE_SWAP_ABBR = {"m": "bn", "bn": "m", "k": "m"}
_SCALE_WORD_RE = re.compile(
    rf"(?<![\d.,])(?P<num>{_NUM}|\b(?:{'|'.join(_WORDS[2:])}))\s(?P<scale>thousand|million|billion|trillion)\b",
    re.IGNORECASE,
)


def co_scale(text: str) -> list[Edit]:
    out: list[Edit] = []
    seen = set()
    for m in _scales(text):
        scale = m.group("scale")
        new = _SCALE_SWAP_ABBR.get(scale) or _SCALE_SWAP[scale]
        seen.add(m.start("scale"))
        out.append(([(m.start("scale"), m.end("scale"), new)], f"{m.group()} -> ...{new}"))
    for m in _SCALE_WORD_RE.finditer(text):
        if m.start("scale") in seen or m.group("scale") != m.group("scale").lower():
            continue
        new = _SCALE_SWAP[m.group("scale")]
        out.append(([(m.start("scale"), m.end("scale"), new)], f"{m.group()} -> ...{new}"))
    return out


_NUMBER_AT = re.compile(rf"^(?:[$£€]\s?)?(?P<n>{_NUM}|(?:{'|'.join(_WORDS[2:])})\b)", re.IGNORECASE)


def _plain_at(text: str, q: Any) -> bool:
    """The bare number ``q`` is not part of a code or a name ("Boeing 737-297", "Apollo 11")."""
    n = next((n for n in numbers(text) if n.start == q.start), None)
    return n is not None and n.plain and not n.after.startswith(("-", "–"))


def co_referent_swap(text: str, quantities: Sequence[Any]) -> list[Edit]:
    """Two figures of one kind (as the parser reads them) trade places: whole surfaces when they have
    the same dimension, only the numbers when they count different things ("3 men and 4 women")."""
    out: list[Edit] = []
    qs = [q for q in quantities if q.text.strip()]
    for a_i, a in enumerate(qs):
        for b in qs[a_i + 1 :]:
            if a.end > b.start or (a.low, a.high) == (b.low, b.high):
                continue
            if _coordinated(text, a, b, qs):
                continue  # "size 18, 16 or even 14": the order of a list says nothing
            count_a, count_b = (a.dim or "").startswith("count:"), (b.dim or "").startswith("count:")
            if count_a and count_b:
                ma, mb = _NUMBER_AT.match(a.text), _NUMBER_AT.match(b.text)
                if not ma or not mb or ma.group("n").lower() == mb.group("n").lower():
                    continue
                ra = (a.start + ma.start("n"), a.start + ma.end("n"), mb.group("n"))
                rb = (b.start + mb.start("n"), b.start + mb.end("n"), ma.group("n"))
                out.append(([ra, rb], f"{ma.group('n')} <-> {mb.group('n')}"))
            elif a.dim == b.dim and a.dim is not None and a.text != b.text and not count_a:
                if text[a.start : a.end] != a.text or text[b.start : b.end] != b.text:
                    continue
                out.append(([(a.start, a.end, b.text), (b.start, b.end, a.text)], f"{a.text} <-> {b.text}"))
            elif a.dim is None and b.dim is None and a.text != b.text and _plain_at(text, a) and _plain_at(text, b):
                out.append(([(a.start, a.end, b.text), (b.start, b.end, a.text)], f"{a.text} <-> {b.text}"))
    return out


_LIST_GAP = re.compile(r"[\s,;/()&]*(?:(?:and|or|nor|and even|or even|even|then|as well as)?[\s,;/()&]*)")


def _coordinated(text: str, a: Any, b: Any, qs: Sequence[Any]) -> bool:
    """``a`` and ``b`` are items of one list: between them only other figures and "," / "and" / "or"."""
    gap = text[a.end : b.start]
    for q in qs:
        if a.end <= q.start and q.end <= b.start:
            gap = gap.replace(q.text, " ")
    return bool(_LIST_GAP.fullmatch(gap))


_DATE_MDY = re.compile(
    rf"\b(?P<month>{_MONTH})(?P<dot>\.?)\s(?P<day>\d{{1,2}})(?P<sfx>st|nd|rd|th)?\b(?:,?\s(?P<year>1[5-9]\d\d|20\d\d)\b)?"
)
_DATE_DMY = re.compile(
    rf"\b(?P<day>\d{{1,2}})(?P<sfx>st|nd|rd|th)?\s(?:of\s)?(?P<month>{_MONTH})(?P<dot>\.?)(?:,?\s(?P<year>1[5-9]\d\d|20\d\d)\b)?"
)
_DATE_MY = re.compile(rf"\b(?P<month>{_MONTH})(?P<dot>\.?),?\s(?P<year>1[5-9]\d\d|20\d\d)\b")
_YEAR = re.compile(r"(?<![\d.,$£€-])\b(?P<year>1[5-9]\d\d|20\d\d)\b(?![\d,.%]\d|[-–]\d|\w|\s?%)")


def co_date(text: str, rng: random.Random) -> list[Edit]:
    out: list[Edit] = []
    taken: list[tuple[int, int]] = []
    for rx in (_DATE_MDY, _DATE_DMY, _DATE_MY, _YEAR):
        for m in rx.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            gd = m.groupdict()
            if gd.get("day") and not 1 <= int(gd["day"]) <= 31:
                continue
            if rx is _YEAR and re.match(r"\s+(?:people|men|women|children|[a-z]+s)\b", text[m.end() :]):
                continue  # "1900 people" is a count
            taken.append((m.start(), m.end()))
            parts = [p for p in ("day", "month", "year") if gd.get(p)]
            part = rng.choice(parts)
            s, e = m.start(part), m.end(part)
            old = m.group(part)
            if part == "day":
                new = str(rng.choice([d for d in range(1, 29) if d != int(old)]))
            elif part == "month":
                names = _MONTH_NAMES if old in _MONTH_NAMES else [a for a in _MONTH_ABBR if a != "Sept"]
                same = _MONTH_NAMES.index(old) if old in _MONTH_NAMES else None
                new = rng.choice([x for i, x in enumerate(names) if x != old and i != same])
            else:
                new = str(int(old) + rng.choice([-10, -5, -3, -2, -1, 1, 2, 3, 5, 10]))
            out.append(([(s, e, new)], f"{m.group()} -> {text[m.start() : s]}{new}{text[e : m.end()]} ({part})"))
    return out


_CLOCK_RE = re.compile(
    r"(?<![\d.,:$£€])\b(?P<h>\d{1,2})(?:(?P<sep>[:.])(?P<m>[0-5]\d))?\s?(?P<ap>[ap]\.?m\b\.?)"
    r"|(?<![\d.,:$£€])\b(?P<h2>[01]?\d|2[0-3]):(?P<m2>[0-5]\d)\b(?![.:,]\d)",
    re.IGNORECASE,
)


def co_time(text: str, rng: random.Random) -> list[Edit]:
    out: list[Edit] = []
    for m in _CLOCK_RE.finditer(text):
        if m.group("h") is not None:
            h, mins, hg = int(m.group("h")), m.group("m"), "h"
            if not 1 <= h <= 12:
                continue
            mg = "m"
        else:
            h, mins, hg, mg = int(m.group("h2")), m.group("m2"), "h2", "m2"
        if mins is not None and rng.random() < 0.5:
            new = f"{(int(mins) + 15 * rng.choice([1, 2, 3])) % 60:02d}"
            s, e = m.start(mg), m.end(mg)
        else:
            k = rng.choice([1, 2, 3, 4, 5])
            nh = (h - 1 + k) % 12 + 1 if hg == "h" else (h + k) % 24
            width = len(m.group(hg))
            new = f"{nh:0{width}d}" if hg == "h2" and width == 2 else str(nh)
            s, e = m.start(hg), m.end(hg)
        out.append(([(s, e, new)], f"{m.group()} -> {text[m.start() : s]}{new}{text[e : m.end()]}"))
    return out


# ---------------------------------------------------------------------------------------------
# generation


def generate(sentence: str, rng: random.Random, quantities: Sequence[Any] | None = None) -> list[Item]:
    """The verbatim sentence, one rewrite of each form that applies and one corruption of each kind
    that applies. ``quantities``: the sentence's parsed quantities (for ``referent_swap``; parsed
    here when not given)."""
    if quantities is None:
        from hallucheck.text.quantities import parse_quantities

        quantities = parse_quantities(sentence)
    items = [Item("verbatim", "verbatim", sentence, sentence)]
    makers: list[tuple[str, str, Any]] = [
        ("rewrite", "separators", lambda: rw_separators(sentence)),
        ("rewrite", "scale", lambda: rw_scale(sentence)),
        ("rewrite", "number_words", lambda: rw_number_words(sentence)),
        ("rewrite", "percent", lambda: rw_percent(sentence, rng)),
        ("rewrite", "currency", lambda: rw_currency(sentence)),
        ("rewrite", "clause_order", lambda: rw_clause_order(sentence)),
        ("rewrite", "approx", lambda: rw_approx(sentence, rng)),
        ("rewrite", "unit_conversion", lambda: rw_unit_conversion(sentence)),
        ("corruption", "value", lambda: co_value(sentence, rng)),
        ("corruption", "unit", lambda: co_unit(sentence)),
        ("corruption", "scale", lambda: co_scale(sentence)),
        ("corruption", "referent_swap", lambda: co_referent_swap(sentence, quantities)),
        ("corruption", "date", lambda: co_date(sentence, rng)),
        ("corruption", "time", lambda: co_time(sentence, rng)),
    ]
    for group, kind, make in makers:
        edits = [e for e in make() if _non_overlapping(e[0])]
        if not edits:
            continue
        repls, change = rng.choice(edits)
        claim, spans = apply(sentence, repls)
        if claim == sentence:
            continue
        items.append(Item(group, kind, claim, sentence, change, spans))
    return items


def _non_overlapping(repls: Sequence[tuple[int, int, str]]) -> bool:
    r = sorted(repls)
    return all(a[1] <= b[0] for a, b in zip(r, r[1:]))


def load_references(data: Path, seed: int) -> list[tuple[str, str, str]]:
    """(source, id, reference) of each distinct reference, sources taken in turn, each shuffled."""
    per_source = []
    for source, name in SOURCES:
        path = data / name
        if not path.exists():
            continue
        seen: dict[str, str] = {}
        with open(path, encoding="utf-8") as f:
            for line in f:
                row = json.loads(line)
                ref = row["reference"]
                if ref.strip() and ref not in seen:
                    seen[ref] = re.sub(r"-[rh]$", "", row["id"])
        refs = [(source, rid, ref) for ref, rid in seen.items()]
        random.Random(f"{seed}:{source}").shuffle(refs)
        per_source.append(refs)
    out = []
    for k in range(max((len(r) for r in per_source), default=0)):
        out.extend(refs[k] for refs in per_source if k < len(refs))
    return out


def figure_sentences(reference: str) -> list[tuple[str, list[Any]]]:
    """The reference's sentences (of 25 to 350 characters and four words or more) with a figure, and
    their parsed quantities."""
    from hallucheck.text.quantities import parse_quantities
    from hallucheck.text.segment import split_sentences

    out = []
    for s in split_sentences(reference):
        t = s.text.strip()
        if not 25 <= len(t) <= 350 or len(t.split()) < 4:
            continue
        qs = parse_quantities(t)
        if qs:
            out.append((t, qs))
    return out


def _rare(sentence: str) -> bool:
    """A form that few sentences allow applies (so that its rate rests on more cases)."""
    rng = random.Random(0)
    return bool(
        rw_scale(sentence)
        or rw_percent(sentence, rng)
        or rw_clause_order(sentence)
        or rw_unit_conversion(sentence)
        or rw_currency(sentence)
        or rw_separators(sentence)
        or co_time(sentence, rng)
    )


def items_for(source: str, ref_id: str, reference: str, seed: int, per_doc: int, rare_extra: int = 2) -> list[Item]:
    """The items of ``per_doc`` sentences drawn at random, and of up to ``rare_extra`` more sentences
    that allow a rare form (scale, percent, clause order, unit conversion, currency, separators, time)."""
    rng = random.Random(f"{seed}:{ref_id}")
    sents = figure_sentences(reference)
    order = rng.sample(range(len(sents)), len(sents))
    picked = order[:per_doc]
    picked += [i for i in order[per_doc:] if _rare(sents[i][0])][:rare_extra]
    chosen = [sents[i] for i in sorted(picked)]
    items = []
    for sentence, qs in chosen:
        for it in generate(sentence, rng, qs):
            it.ref_id, it.source = ref_id, source
            items.append(it)
    return items


def check(facts: Any, item: Item) -> dict[str, Any]:
    checks = facts.check_quantities(item.claim)
    statuses = [
        {
            "text": c.text,
            "start": c.start,
            "end": c.end,
            "status": c.status,
            "counterpart": c.counterpart.text if c.counterpart is not None else None,
        }
        for c in checks
    ]
    flagged = [c for c in statuses if c["status"] in FLAGGED]
    at = any(c["start"] < e and s < c["end"] for c in flagged for s, e in item.spans)
    return {"flagged": bool(flagged), "at_figure": at, "statuses": statuses}


def run(
    references: Iterable[tuple[str, str, str]], *, limit: int, seed: int, per_doc: int, rare_extra: int = 2
) -> Iterator[dict[str, Any]]:
    from hallucheck.stages.gate.figures import ReferenceFacts

    n = 0
    for source, ref_id, reference in references:
        items = items_for(source, ref_id, reference, seed, per_doc, rare_extra)
        if not items:
            continue
        facts = ReferenceFacts(reference)  # one per reference, for all its claims
        for it in items:
            if n >= limit:
                return
            rec = asdict(it)
            rec.update(check(facts, it))
            n += 1
            yield rec


def tables(records: Sequence[dict[str, Any]]) -> str:
    by: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by[(r["group"], r["kind"])].append(r)
    lines = [
        "| rewrite | n | false conflicts | rate | contradicted | missing |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for group, kinds in (("verbatim", ("verbatim",)), ("rewrite", REWRITES)):
        for kind in kinds:
            rs = by.get((group, kind), [])
            bad = [r for r in rs if r["flagged"]]
            contra = sum(any(c["status"] == "contradicted" for c in r["statuses"]) for r in rs)
            missing = sum(any(c["status"] == "missing" for c in r["statuses"]) for r in rs)
            lines.append(f"| {kind} | {len(rs)} | {len(bad)} | {_pct(len(bad), len(rs))} | {contra} | {missing} |")
    rw = [r for r in records if r["group"] == "rewrite"]
    bad = sum(r["flagged"] for r in rw)
    lines.append(f"| **all rewrites** | {len(rw)} | {bad} | {_pct(bad, len(rw))} | | |")
    lines += [
        "",
        "| corruption | n | caught | catch rate | caught at the figure |",
        "|---|---:|---:|---:|---:|",
    ]
    for kind in CORRUPTIONS:
        rs = by.get(("corruption", kind), [])
        caught = sum(r["flagged"] for r in rs)
        at = sum(r["at_figure"] for r in rs)
        lines.append(f"| {kind} | {len(rs)} | {caught} | {_pct(caught, len(rs))} | {_pct(at, len(rs))} |")
    co = [r for r in records if r["group"] == "corruption"]
    caught = sum(r["flagged"] for r in co)
    lines.append(
        f"| **all corruptions** | {len(co)} | {caught} | {_pct(caught, len(co))} | "
        f"{_pct(sum(r['at_figure'] for r in co), len(co))} |"
    )
    return "\n".join(lines)


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f} %" if b else "–"


def examples(records: Sequence[dict[str, Any]], k: int) -> str:
    """Up to ``k`` failures per kind: false conflicts of rewrites, missed corruptions."""
    out = []
    shown: Counter = Counter()
    for r in records:
        fail = r["flagged"] if r["group"] != "corruption" else not r["flagged"]
        key = (r["group"], r["kind"])
        if not fail or shown[key] >= k:
            continue
        shown[key] += 1
        bad = [
            f"{c['text']!r}={c['status']}" + (f" (vs {c['counterpart']!r})" if c["counterpart"] else "")
            for c in r["statuses"]
        ]
        out.append(f"- {r['group']}/{r['kind']} [{r['ref_id']}] {r['change']}\n    {r['claim']}\n    {'; '.join(bad)}")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA, help="folder of halueval_summ.jsonl and halueval_qa.jsonl")
    ap.add_argument("--limit", type=int, default=30000, help="generated items to check (default 30000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-doc", type=int, default=3, help="sentences with figures drawn per reference")
    ap.add_argument(
        "--rare-extra", type=int, default=2, help="more sentences per reference that allow a rare form (default 2)"
    )
    ap.add_argument("--out", type=Path, help="write one JSON line per generated item here")
    ap.add_argument("--examples", type=int, default=0, help="print up to N failures per kind")
    args = ap.parse_args(argv)

    refs = load_references(args.data, args.seed)
    if not refs:
        sys.exit(f"no references under {args.data}")
    t0 = time.perf_counter()
    records = []
    out = open(args.out, "w", encoding="utf-8") if args.out else None
    try:
        for rec in run(refs, limit=args.limit, seed=args.seed, per_doc=args.per_doc, rare_extra=args.rare_extra):
            records.append(rec)
            if out is not None:
                out.write(json.dumps(rec, ensure_ascii=False) + "\n")
    finally:
        if out is not None:
            out.close()
    secs = time.perf_counter() - t0
    n_refs = len({r["ref_id"] for r in records})
    n_sents = sum(r["group"] == "verbatim" for r in records)
    print(
        f"{len(records)} generated items from {n_sents} sentences of {n_refs} references (seed {args.seed}), {secs:.0f} s\n"
    )
    print(tables(records))
    if args.examples:
        print("\nFailures (false conflicts of verbatim/rewrites, missed corruptions):\n")
        print(examples(records, args.examples))


if __name__ == "__main__":
    main()
