"""Numbers in running text for :mod:`hallucheck.text.quantities`: :func:`parse_number` reads one
written in digits (thousands separators, decimal commas); :func:`find_numbers` finds every number of a
text, in digits or in words ("twenty four", "a day"), with its span, its significant digits and a
scale word applied ("2.5 million").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .units import ARTICLES, CJK, SCALES, UNITS, WORD_NUMBERS, unit_at, unit_here


def sig_digits(s: str) -> int:
    ds = re.sub(r"\D", "", s).lstrip("0")
    return max(1, len(ds.rstrip("0")) if "." not in s and "," not in s else len(ds))


def parse_number(token: str, *, decimal_comma: bool = False) -> float | None:
    """A number written in digits: "1,000" = 1000, "2.4", "3,0" = 3.0 where ``decimal_comma``
    (and "1.000" = 1000 there), "1 000" with a (narrow) no-break space as thousands separator."""
    t = token.replace("−", "-").replace("\u00a0", "").replace("\u202f", "").replace("'", "").replace(" ", "")
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


def find_numbers(text: str, decimal_comma: bool) -> list[_Num]:
    """Numbers in digits and in words, with spans, in order; scale words ("2.5 million") applied."""
    nums: list[_Num] = []
    # where the decimal mark is a comma, a plain space also groups thousands ("1 200 g")
    space = r"(?<![\w.,])\d{1,3}(?: \d{3})+(?:,\d+)?(?![\d_]|[.,]\d)|" if decimal_comma else ""
    for m in re.finditer(
        rf"{space}(?<![\w.,])(?:[-+−](?=\d))?\d+(?:[.,\u00a0\u202f']\d+)*(?![\d_])|(?<=[{CJK}])\d+(?:[.,]\d+)?",
        text,
    ):
        tok = m.group()
        if m.end() < len(text) and text[m.end()].isalpha() and not re.match(rf"[{CJK}]", text[m.end()]):
            glued = re.match(r"[^\W\d_]+", text[m.end() :]).group().lower()  # type: ignore[union-attr]
            if glued not in SCALES and unit_at(text, m.end()) is None:
                continue  # "5G", "3rd", "2x": not a quantity
        v = parse_number(tok, decimal_comma=decimal_comma)
        if v is None:
            # "1,2,3" or an ambiguous comma: take the parts as separate numbers
            for p in re.finditer(r"\d+(?:\.\d+)?", tok):
                nums.append(_Num(m.start() + p.start(), m.start() + p.end(), float(p.group()), sig_digits(p.group())))
            continue
        nums.append(_Num(m.start(), m.end(), v, sig_digits(tok)))
    # numbers in words (a run like "twenty four" or "two hundred" is one number)
    words = list(re.finditer(rf"[^\W\d_]+|[{CJK}]", text))
    i = 0
    while i < len(words):
        w = words[i].group().lower()
        if w in WORD_NUMBERS and not (w in ARTICLES and w not in ("uno", "una", "eins")):
            val = float(WORD_NUMBERS[w])
            start, end = words[i].start(), words[i].end()
            j = i + 1
            while j < len(words) and words[j].group().lower() in WORD_NUMBERS and words[j].start() - end <= 1:
                nxt = float(WORD_NUMBERS[words[j].group().lower()])
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


__all__ = ["parse_number"]
