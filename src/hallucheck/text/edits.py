"""Apply span edits to a text (used by every mitigator)."""

from __future__ import annotations

from typing import Sequence

from ..errors import ConfigError
from ..types import Edit


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """Replace each ``text[e.start:e.end]`` with ``e.replacement``. Edits must not overlap."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    out, pos = [], 0
    for e in ordered:
        if not (0 <= e.start <= e.end <= len(text)):
            raise ConfigError(f"Edit [{e.start}:{e.end}] is outside the text (length {len(text)}).")
        if e.start < pos:
            raise ConfigError(f"Edits overlap at [{e.start}:{e.end}]; merge them first.")
        out.append(text[pos : e.start])
        out.append(e.replacement)
        pos = e.end
    out.append(text[pos:])
    return "".join(out)
