"""HSP decomposition replies (paper 000, Appendices A.1 and D): the entity schema, and parsing an
LLM decomposition reply into semantic pieces."""

from __future__ import annotations

import re

from ...errors import ParseError
from ...text import split_sentences, words
from ...text.stopwords import STOP_WORDS

LEVELS = ("sent", "ent", "sent+ent")
UNITS = ("sentence", "text")
MATCHERS = ("embedding", "fuzzy", "bm25")
ENTITY_TYPES: tuple[str, ...] = ("Time", "Number", "Location", "Personal Info")

# Appendix D, Table 12: the fields each type covers (documentation; spaCy labels map onto types).
ENTITY_SCHEMA: dict[str, tuple[str, ...]] = {
    "Time": (
        "Date",
        "Calendar date",
        "Date range",
        "Year",
        "Month",
        "Time",
        "Time range",
        "End time",
        "Start time",
        "Time period",
        "Duration",
    ),
    "Number": (
        "Price",
        "Cost",
        "Expenditure",
        "Spending",
        "Expense",
        "Quantity",
        "Amount",
        "Number",
        "Total",
        "Ratio",
        "Percentage",
        "Rate",
        "Proportion",
        "Maximum value",
        "Minimum value",
        "Percentile",
        "Length",
        "Area",
        "Volume",
        "Weight",
        "Temperature",
    ),
    "Location": (
        "City",
        "Country",
        "Province",
        "State",
        "Region",
        "Area",
        "Street",
        "Address",
        "Place",
        "Building",
        "Scenic spot",
        "Landmark",
    ),
    "Personal Info": (
        "Name",
        "First name",
        "Last name",
        "Position",
        "Degree",
        "Education",
        "Graduated from",
        "Employer",
    ),
}
SPACY_TO_SCHEMA: dict[str, str] = {
    "DATE": "Time",
    "TIME": "Time",
    "CARDINAL": "Number",
    "QUANTITY": "Number",
    "MONEY": "Number",
    "PERCENT": "Number",
    "ORDINAL": "Number",
    "GPE": "Location",
    "LOC": "Location",
    "FAC": "Location",
    "PERSON": "Personal Info",
    "ORG": "Personal Info",
    "NORP": "Personal Info",
}


# --------------------------------------------------------------------------------------------
# parsing the decomposition reply
# --------------------------------------------------------------------------------------------
_FENCE = re.compile(r"^\s*```[\w-]*\s*$")
_BULLET = re.compile(r"^\s*(?:[-*•·–]+\s*|\(?\d{1,3}[.)]\s+|\(\d{1,3}\)\s*|\d{1,3}:\s+)")
_LABELLED = re.compile(
    r"^\s*(?:(?:independent|atomic|semantic)\s+)?(?:fact|piece|statement|claim)s?\s*\d{0,3}\s*[:.)-]\s+", re.IGNORECASE
)
_PREAMBLE = re.compile(
    r"^(?:here\b|sure\b|certainly\b|of course\b|okay\b|ok\b|the (?:independent |atomic )?facts\b|"
    r"independent facts\b|facts\b|output\b|answer\b|semantic pieces?\b|breakdown\b|broken down\b)[^\n]*:$",
    re.IGNORECASE,
)
_HEADER = re.compile(r"^\[[^\]\n]{1,40}\]\s*:?$")
_NOTE = re.compile(r"^(?:note|explanation|reasoning)\b\s*:", re.IGNORECASE)
_NONE = re.compile(
    r"^(?:none|n/?a|nothing|no (?:independent |atomic )?facts?(?: (?:found|to extract|here))?)[.!]?$", re.IGNORECASE
)


def _clean_line(line: str) -> str:
    line = line.replace("**", "").strip()
    for _ in range(2):
        line = _BULLET.sub("", line)
        line = _LABELLED.sub("", line)
    line = line.strip()
    if len(line) >= 2 and line[0] in "\"'“‘`" and line[-1] in "\"'”’`":
        line = line[1:-1].strip()
    return line


def _stems(text: str) -> set[str]:
    return {w.text.lower()[:5] for w in words(text) if w.text.lower() not in STOP_WORDS}


def grounded_share(piece: str, source: str) -> float:
    """The share of the piece's content words (stop words aside, compared by their first five
    letters) that occur in ``source``: 1.0 for a restatement, low for an invented fact."""
    stems = _stems(piece)
    if not stems:
        return 1.0
    return len(stems & _stems(source)) / len(stems)


def parse_pieces(
    reply: str, *, truncated: bool = False, max_pieces: int = 32, source: str | None = None, strict: bool = False
) -> list[str]:
    """The semantic pieces in an A.1 decomposition reply, one per line.

    ``[]`` when the reply says there is no fact ("None"). Raises :class:`ParseError` (keeping
    the reply) when no line is usable. ``truncated``: the reply hit the token limit, so its
    last line may be cut and is dropped. ``strict``: also reject a reply of fragments rather
    than facts -- most pieces under three words while ``source`` (the decomposed text) has
    more, or a piece that starts in lower case (a fact broken across lines)."""
    if not isinstance(reply, str) or not reply.strip():
        raise ParseError(
            "The LLM returned an empty reply instead of the sentence's facts.",
            raw=reply if isinstance(reply, str) else "",
        )
    lines = [ln for ln in reply.strip().splitlines() if not _FENCE.match(ln)]
    if truncated and len(lines) > 1:
        lines = lines[:-1]
    found: list[str] = []
    for raw_line in lines:
        line = _clean_line(raw_line)
        if not line or not re.search(r"\w", line) or _HEADER.match(line) or _PREAMBLE.match(line) or _NOTE.match(line):
            continue
        if _NONE.match(line):
            continue
        found.append(line)
    if len(found) == 1 and len(lines) == 1:  # facts written on one line: split into sentences
        found = [s.text for s in split_sentences(found[0])] or found
    unique: list[str] = []
    seen: set[str] = set()
    for piece in found:
        key = " ".join(piece.lower().split())
        if key not in seen:
            seen.add(key)
            unique.append(piece)
    if not unique:
        if any(_NONE.match(_clean_line(ln)) for ln in lines):
            return []
        raise ParseError("No facts could be read from the LLM's decomposition reply.", raw=reply)
    if strict:
        if any(p[0].islower() for p in unique):
            raise ParseError(
                "The decomposition reply breaks a fact across lines (a line starts in lower case).", raw=reply
            )
        short = sum(1 for p in unique if len(words(p)) < 3)
        if source is not None and len(words(source)) >= 4 and short * 2 > len(unique):
            raise ParseError(
                "The decomposition reply lists fragments (mostly under three words), not facts.", raw=reply
            )
    return unique[:max_pieces]
