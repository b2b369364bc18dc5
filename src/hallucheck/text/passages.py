"""A reference given as several passages: one text for the stages, offsets mapped back per passage.

Stages see one reference text: the passages joined with :data:`SEP` (a blank line, which the
sentence splitter always treats as a boundary). :class:`Passages` keeps where each passage
starts in that text, so evidence found in the joined text can say which passage it came from
and where inside it: ``passages[e.passage][e.passage_start:e.passage_end] == text[e.start:e.end]``.
"""

from __future__ import annotations

import bisect
import dataclasses
from typing import Any, Sequence

from ..errors import InputError
from ..types import Evidence, Verdict

SEP = "\n\n"


def check_passages(value: Any, field: str = "reference") -> tuple[str, ...]:
    """A list (or tuple) of passage strings, validated; anything else is an :class:`InputError`."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise InputError(
            f"The {field} must be a string or a list of passage strings; got {type(value).__name__}.", field=field
        )
    if not value:
        raise InputError(f"The {field} is an empty list of passages: give at least one passage.", field=field)
    for i, p in enumerate(value):
        if not isinstance(p, str):
            raise InputError(f"Passage {i} of the {field} must be a string; got {type(p).__name__}.", field=field)
    return tuple(value)


class Passages:
    """The joined text of ``passages`` and the map from its offsets back to each passage."""

    def __init__(self, passages: Sequence[str], sep: str = SEP) -> None:
        self.passages = tuple(passages)
        self.sep = sep
        self.starts: list[int] = []
        pos = 0
        for p in self.passages:
            self.starts.append(pos)
            pos += len(p) + len(sep)
        self.text = sep.join(self.passages)

    def locate(self, start: int, end: int) -> tuple[int, int, int] | None:
        """(passage index, start, end inside it) for ``text[start:end]``, or None when the span is
        out of range or crosses a passage boundary."""
        if not (0 <= start <= end <= len(self.text)):
            return None
        i = bisect.bisect_right(self.starts, start) - 1
        if i < 0:
            return None
        s, e = start - self.starts[i], end - self.starts[i]
        if e > len(self.passages[i]) or s > len(self.passages[i]):
            return None
        return i, s, e

    def evidence(self, ev: Evidence) -> Evidence:
        """``ev`` with its passage and offsets inside it (unchanged when it is not reference text
        or spans several passages)."""
        if ev.source != "reference":
            return ev
        where = self.locate(ev.start, ev.end)
        if where is None:
            return ev
        return dataclasses.replace(ev, passage=where[0], passage_start=where[1], passage_end=where[2])

    def verdict(self, v: Verdict) -> Verdict:
        if not v.evidence:
            return v
        return dataclasses.replace(v, evidence=tuple(self.evidence(e) for e in v.evidence))


__all__ = ["SEP", "Passages", "check_passages"]
