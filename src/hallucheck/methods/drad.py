"""Moved to :mod:`hallucheck.generation` (DRAD is a generation strategy, not a detection recipe);
the names stay importable from here."""

from __future__ import annotations

from ..generation import (
    METHODS,
    NOT_FOUND,
    Correction,
    DRADGenerator,
    GenerationEvent,
    GenerationResult,
    Retrieval,
    drad,
    extract_answer,
    flr,
    generate,
    nor,
    srr,
    strip_restatement,
    tpr,
)

__all__ = [
    "DRADGenerator",
    "Correction",
    "GenerationEvent",
    "GenerationResult",
    "Retrieval",
    "extract_answer",
    "generate",
    "METHODS",
    "NOT_FOUND",
    "strip_restatement",
    "drad",
    "flr",
    "nor",
    "srr",
    "tpr",
]
