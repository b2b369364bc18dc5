"""Tables in a reference, read as rows × columns: what a cell's figure is about is its row's label and
its column's header, not the words of the cells beside it.

A table is two or more consecutive lines that each hold two or more cells, all split the same way:
Markdown or plain pipes (``| Plan B | £15 | 20 GB |``; a ``|---|---|`` line is the header's rule) or
tabs (``EU<TAB>£2<TAB>1 GB``). Its first line is the header. Each line becomes a sentence of its own
(:func:`split_tables`), and :class:`TableRow` says, for each of its cells, the words a figure there is
about (:meth:`TableRow.referent`): the row's label (its first cell that is not a figure) and the
cell's column header. A line of another shape ends the table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ...text.quantity import Quantity
from ...text.segment import Span

_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
MAX_TABLE_LINES = 2000  # lines of one reference read as table rows (the work stays bounded)


@dataclass(frozen=True)
class TableRow:
    """One line of a table: its span in the reference, its cells (spans in the reference), the header
    cells' texts and the row's label."""

    span: Span
    cells: tuple[Span, ...]
    header: tuple[str, ...]
    label: str
    caption: str = ""  # the line above the table ("Segment results (A$ million)")

    def column(self, start: int, end: int) -> str:
        """The header of the column of reference offsets [start, end) ('' outside every cell)."""
        for n, c in enumerate(self.cells):
            if c.start <= start and end <= c.end:
                return self.header[n] if n < len(self.header) and self.label else ""
        return ""

    def referent(self, start: int, end: int) -> str:
        """The words a figure at reference offsets [start, end) in this row is about: the row's label
        and the header of the figure's column ('' outside every cell)."""
        for n, c in enumerate(self.cells):
            if c.start <= start and end <= c.end:
                head = self.header[n] if n < len(self.header) else ""
                return f"{self.label} {head}".strip()
        return ""


# a column header that says what a figure is per: its period, in the languages the quantity parser reads
_PERIODS = (
    ("hour", r"hour|hourly|stunde|stündlich|heure|horaire|hora"),
    ("day", r"day|daily|per\s+day|tag|täglich|jour|journalier|día|diario"),
    ("night", r"night|nightly|nacht|nuit|noche"),
    ("week", r"week|weekly|woche|wöchentlich|semaine|hebdomadaire|semana|semanal"),
    ("month", r"month|monthly|monat|monatlich|mois|mensuel|mensuelle|mes|mensual"),
    ("year", r"year|yearly|annual|annually|p\.?\s?a\.?|jahr|jährlich|an|annuel|annuelle|año|anual"),
)
_PERIOD = [
    (unit, re.compile(rf"(?:^|[\s(/-])(?:per\s+|a\s+|/)?(?:{words})\b", re.IGNORECASE)) for unit, words in _PERIODS
]


def per_period(q: Quantity, header: str) -> Quantity:
    """``q``, a cell's figure, as a rate when its column's header says what it is per ("Monthly fee",
    "Price per night", "Tarif/Tag"): the same span, the value per that period; else ``q`` as it is."""
    if "/" in (q.dim or "") or not (q.dim or "").startswith("money:"):
        return q
    from ...text.quantities import parse_quantities

    for unit, rx in _PERIOD:
        if rx.search(header):
            got = parse_quantities(f"{q.text} per {unit}", lang="en")
            if len(got) == 1 and "/" in (got[0].dim or ""):
                return replace(got[0], text=q.text, start=q.start, end=q.end)
            return q
    return q


_SCALES = {"m": "million", "mn": "million", "million": "million", "millions": "million", "mio": "million"}
_SCALES |= {"bn": "billion", "billion": "billion", "billions": "billion", "mrd": "billion"}
_SCALES |= {"k": "thousand", "thousand": "thousand", "thousands": "thousand", "'000": "thousand", "000": "thousand"}
_CUR = r"(?P<cur{n}>[A-Z]{{0,2}}\$|[£€¥]|\b[A-Z]{{3}}\b)"
_SCALE = r"(?P<sc{n}>m|mn|millions?|mio|bn|billions?|mrd|k|thousands?|'?000)\b\.?"
# "(A$ million)", "(£m)", "(in USD million)", "(EUR '000)", "(in millions of USD)", "(Mio. €)"
_IN_SCALE = re.compile(
    rf"\((?:in\s+)?(?:{_CUR.format(n=1)}\s?{_SCALE.format(n=1)}|{_SCALE.format(n=2)}\s*(?:of\s+)?{_CUR.format(n=2)})\s*\)",
    re.IGNORECASE,
)


def in_scale(q: Quantity, header: str, caption: str, decimal_comma: bool | None) -> Quantity:
    """``q``, a cell's bare number, as the money its column's header or the table's caption says the
    cells are in ("415" under "Revenue (A$ million)" is A$415 million); else ``q`` as it is."""
    if q.dim is not None:
        return q
    from ...text.quantities import parse_quantities
    from ...text.units import ISO_CURRENCIES

    for text in (header, caption):
        m = _IN_SCALE.search(text)
        if m is None:
            continue
        cur, scale = m.group("cur1") or m.group("cur2"), (m.group("sc1") or m.group("sc2")).rstrip(".").lower()
        if cur.isalpha() and cur.upper() not in ISO_CURRENCIES:
            continue
        got = parse_quantities(f"{cur} {q.text} {_SCALES[scale]}", decimal_comma=decimal_comma)
        if len(got) == 1 and (got[0].dim or "").startswith("money:"):
            return replace(got[0], text=q.text, start=q.start, end=q.end)
        return q
    return q


def _cells(line: str, offset: int) -> tuple[str, list[Span]] | None:
    """(the separator, the cells as spans of the reference) of a table line, or None."""
    sep = "|" if line.count("|") >= 2 else "\t" if "\t" in line else None
    if sep is None:
        return None
    out, pos = [], 0
    parts = line.split(sep)
    for n, part in enumerate(parts):
        a = pos + len(part) - len(part.lstrip())
        b = pos + len(part.rstrip())
        pos += len(part) + 1
        # an empty cell keeps its column's place ("| | Bronze | Silver |": Bronze heads the second
        # column); the blank before a row's first pipe or after its last is no cell
        if b > a or (sep == "\t" or 0 < n < len(parts) - 1):
            out.append(Span(offset + a, offset + max(a, b), line[a : max(a, b)]))
    return (sep, out) if sum(1 for c in out if c.text) >= 2 else None


def table_rows(reference: str) -> list[TableRow]:
    """Every row of every table in ``reference`` (its header line included, with itself as header)."""
    rows: list[TableRow] = []
    block: list[tuple[Span, list[Span]]] = []
    block_sep: str | None = None
    above = ["", ""]  # the last line that was no table row; the caption of the block being read

    def close() -> None:
        if len(block) >= 2:
            header = tuple(c.text for c in block[0][1])
            for span, cells in block:
                label = next((c.text for c in cells if _LETTER.search(c.text)), "")
                rows.append(TableRow(span, tuple(cells), header, label if cells is not block[0][1] else "", above[1]))
        block.clear()

    offset = 0
    for n, line in enumerate(reference.split("\n")):
        start, offset = offset, offset + len(line) + 1
        if n >= MAX_TABLE_LINES:
            break
        if _RULE.match(line) and block:
            continue  # the header's rule
        got = _cells(line, start)
        if got is None or (block and got[0] != block_sep):
            if block:
                above[0] = ""  # a table's caption is no caption of the next
            close()
            block_sep = None
            if got is None:
                above[0] = line.strip() or above[0]
                continue
        if not block:
            above[1] = above[0]
        block_sep = got[0]
        text = line.strip()
        lead = len(line) - len(line.lstrip())
        block.append((Span(start + lead, start + lead + len(text), text), got[1]))
    close()
    return rows


def split_tables(sentences: list[Span], rows: list[TableRow], reference: str) -> list[Span]:
    """``sentences`` with each one that holds table lines cut into them: the text before the table,
    each of its lines, the text after."""
    if not rows:
        return sentences
    out: list[Span] = []
    k = 0
    for s in sentences:
        inside = []
        while k < len(rows) and rows[k].span.start < s.end:
            if rows[k].span.end > s.start:
                inside.append(rows[k].span)
            k += 1
        if not inside:
            out.append(s)
            continue
        pos = s.start
        for r in inside:
            if reference[pos : r.start].strip():
                a = pos + len(reference[pos : r.start]) - len(reference[pos : r.start].lstrip())
                b = r.start - (len(reference[pos : r.start]) - len(reference[pos : r.start].rstrip()))
                out.append(Span(a, b, reference[a:b]))
            out.append(
                Span(max(r.start, s.start), min(r.end, s.end), reference[max(r.start, s.start) : min(r.end, s.end)])
            )
            pos = r.end
        rest = reference[pos : s.end]
        if rest.strip():
            a = pos + len(rest) - len(rest.lstrip())
            b = s.end - (len(rest) - len(rest.rstrip()))
            out.append(Span(a, b, reference[a:b]))
    return out


__all__ = ["MAX_TABLE_LINES", "TableRow", "in_scale", "per_period", "split_tables", "table_rows"]
