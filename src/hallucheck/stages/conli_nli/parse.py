"""Parsing CoNLI chain-of-thought NLI replies (paper 001, Appendix D) into one judgement per hypothesis."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from rapidfuzz import fuzz

_ITEM = re.compile(
    r"^[ \t]*(?:[-*•>][ \t]*)?(?:\*\*)?(?:\((?P<a>\d{1,3})\)\.?|(?P<b>\d{1,3})[.)])(?:\*\*)?[ \t]*",
    re.MULTILINE,
)
_BRACKET = re.compile(r"\[\s*([CI])\s*\]", re.IGNORECASE)
_WORD_LABEL = re.compile(r"\[\s*(entailment|contradiction|neutral)\s*\]", re.IGNORECASE)
_REASON = re.compile(r"<\s*reason\s*>(?P<r>.*?)(?:<\s*/\s*reason\s*>|$)", re.IGNORECASE | re.DOTALL)
_CLOSE = re.compile(r"<\s*/\s*reason\s*>", re.IGNORECASE)
QUOTE = re.compile(r"[\"“]([^\"“”]{12,}?)[\"”]")
_ANSWER = re.compile(r"^\s*(?:\*\*)?answer(?:\*\*)?\s*:(?:\s|\\n)*", re.IGNORECASE)  # also a literal "\n"
_BARE = re.compile(r"(?:\s|\\n|[*:.\-])*([CI])(?:\s|[.*])*$")


@dataclass(frozen=True)
class ParsedItem:
    """One judged hypothesis read from a reply."""

    label: str  # "C" or "I"
    reason: str
    label_pos: int  # offset in the reply of the label letter; -1 if the label was a word
    text: str  # the item's text in the reply
    number: int | None = None


def _label_of(body: str, offset: int) -> tuple[str, int] | None:
    """The item's label: the last bracketed letter after ``</reason>``; with no closing tag,
    the last bracketed letter, which must then end the item (so that a reply cut off in the
    middle of its reasoning, which may quote "[I]", is not read as judged); else a bracketed
    word ([Entailment] ...). Returns (letter, offset of the letter in the reply, -1 for a word)."""
    closes = list(_CLOSE.finditer(body))
    region = closes[-1].end() if closes else 0
    found = list(_BRACKET.finditer(body, region))
    if found:
        m = found[-1]
        opened = _REASON.search(body) is not None
        if closes or not opened or not body[m.end() :].strip():
            return m.group(1).upper(), offset + m.start(1)
        return None
    words_found = list(_WORD_LABEL.finditer(body, region))
    if words_found:
        return ("C" if words_found[-1].group(1).lower() == "entailment" else "I"), -1
    # a bare letter, alone after </reason> or as the whole item ("Answer:\nI" from small models)
    bare = _BARE.match(body, region) if (closes or not _REASON.search(body)) else None
    if bare:
        return bare.group(1), offset + bare.start(1)
    return None


def _reason_of(body: str, label_pos_in_body: int | None) -> str:
    m = _REASON.search(body)
    if m:
        text = m.group("r")
        if not _CLOSE.search(body) and label_pos_in_body is not None:
            text = body[m.start("r") : label_pos_in_body].rstrip(" [")
        return " ".join(text.replace("\\n", " ").split())
    text = body if label_pos_in_body is None else body[:label_pos_in_body]
    return " ".join(_BRACKET.sub("", text).replace("\\n", " ").split()).rstrip(" [")


def _segments(reply: str) -> list[tuple[int | None, int, int]]:
    """(number, start, end) of each numbered item; one unnumbered segment per label if the reply
    has no numbers."""
    marks = list(_ITEM.finditer(reply))
    if any(m.group("a") for m in marks):  # "(k)." markers present: ignore "k." lines (lists inside reasoning)
        marks = [m for m in marks if m.group("a")]
    if marks:
        out = []
        for k, m in enumerate(marks):
            end = marks[k + 1].start() if k + 1 < len(marks) else len(reply)
            out.append((int(m.group("a") or m.group("b")), m.end(), end))
        return out
    start = _ANSWER.match(reply).end() if _ANSWER.match(reply) else 0
    out = []
    for m in _BRACKET.finditer(reply, start):
        out.append((None, start, m.end()))
        start = m.end()
    if not out and reply[start:].strip():
        out.append((None, start, len(reply)))
    return out


def parse_items(reply: str) -> list[ParsedItem]:
    """Every judged item in a reply, in order (items without a label are skipped)."""
    items = []
    for number, s, e in _segments(reply):
        body = reply[s:e]
        lab = _label_of(body, s)
        if lab is None:
            continue
        label, pos = lab
        reason = _reason_of(body, pos - s if pos >= 0 else None)
        items.append(ParsedItem(label, reason, pos, body.strip(), number))
    return items


def _similarity(item: ParsedItem, hypothesis: str) -> float:
    head = re.split(r"<\s*reason\s*>", item.text, maxsplit=1, flags=re.IGNORECASE)[0]
    return fuzz.partial_ratio(" ".join(hypothesis.lower().split()), " ".join(head.lower().split()))


def match_items(items: Sequence[ParsedItem], hypotheses: Sequence[str]) -> dict[int, ParsedItem]:
    """Assign parsed items to hypothesis indices.

    By number when every item is numbered and the numbers fit 0-based (as asked) or 1-based
    numbering; when both fit, the base under which the echoed texts match the hypotheses
    better wins (0-based on a tie). Otherwise by the echoed hypothesis text (fuzzy >= 70), or
    by order when nothing matches and the counts agree. The first item given a number wins."""
    n = len(hypotheses)
    if items and all(it.number is not None for it in items):
        nums = [it.number for it in items]
        bases = [b for b in (0, 1) if all(0 <= k - b < n for k in nums)]  # type: ignore[operator]
        if len(bases) == 2:
            fit = {b: sum(_similarity(it, hypotheses[it.number - b]) for it in items) for b in bases}  # type: ignore[operator]
            bases = [1] if fit[1] > fit[0] else [0]
        if bases:
            out: dict[int, ParsedItem] = {}
            for it in items:
                out.setdefault(it.number - bases[0], it)  # type: ignore[operator]
            return out
    if n == 1 and len(items) == 1:
        return {0: items[0]}
    out = {}
    used: set[int] = set()
    for idx, hyp in enumerate(hypotheses):
        best, best_score = None, 70.0
        for j, it in enumerate(items):
            if j in used:
                continue
            sim = _similarity(it, hyp)
            if sim > best_score:
                best, best_score = j, sim
        if best is not None:
            used.add(best)
            out[idx] = items[best]
    if not out and len(items) == n:
        return dict(enumerate(items))
    return out


def nli_kind(label: str, reason: str) -> str:
    """The NLI class behind a label: entailment, contradiction or neutral (CoNLI merges the
    last two into [I]; the reason usually says which)."""
    if label == "C":
        return "entailment"
    low = reason.lower()
    if "contradict" in low:
        return "contradiction"
    return "neutral"
