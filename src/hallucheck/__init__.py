"""hallucheck: find and fix ungrounded hallucinations in LLM answers.

>>> import hallucheck
>>> det = hallucheck.detect("Delhi is the capital of France.", "The Oberoi Group's head office is in Delhi.",
...                         method="sim_overlap")

Importing this package loads nothing heavy; models load on first use. A method is built through
one front door, :class:`MethodSpec` (``MethodSpec.of(name, params=..., llm=...).build()`` gives the
method, its LLM client and the spec); :func:`load_method` is its one-line form.

Docstrings cite the papers by tag ("paper 000" to "paper 003", "thesis 004") with the section they
follow; docs/references.md gives authors, year, venue and title for each tag.
"""

from __future__ import annotations

from typing import Any

from ._version import __version__
from .errors import (
    BackendError,
    BackendTimeout,
    ConfigError,
    HallucheckError,
    InputError,
    MissingDependencyError,
    ParseError,
    RateLimited,
)
from .loader import DEFAULT_METHOD, BuiltMethod, LLMInput, MethodSpec, list_methods, load_method
from .types import Claim, Detection, Edit, Evidence, Mitigation, Usage, Verdict


def detect(
    answer: str,
    reference: str,
    *,
    question: str | None = None,
    method: str = DEFAULT_METHOD,
    llm: LLMInput = None,
    **params: Any,
) -> Detection:
    """Check ``answer`` against ``reference`` with ``method``; see :class:`Detection`."""
    return load_method(method, llm=llm, **params).run(answer, reference, question=question)


async def adetect(
    answer: str,
    reference: str,
    *,
    question: str | None = None,
    method: str = DEFAULT_METHOD,
    llm: LLMInput = None,
    **params: Any,
) -> Detection:
    """:func:`detect` for async code (``await hallucheck.adetect(...)``): the same Detection,
    without blocking the event loop or starting a thread per call; see
    :meth:`~hallucheck.pipeline.Pipeline.arun`. Detections awaited together (``asyncio.gather``)
    have their LLM requests in flight together. To check many answers, load the method once and
    await its ``arun`` / ``arun_batch``."""
    from ._aio import run

    return await run(detect, answer, reference, question=question, method=method, llm=llm, **params)


__all__ = [
    "__version__",
    "DEFAULT_METHOD",
    "adetect",
    "detect",
    "list_methods",
    "load_method",
    "BuiltMethod",
    "MethodSpec",
    "Claim",
    "Detection",
    "Edit",
    "Evidence",
    "Mitigation",
    "Usage",
    "Verdict",
    "HallucheckError",
    "InputError",
    "ConfigError",
    "BackendError",
    "BackendTimeout",
    "RateLimited",
    "ParseError",
    "MissingDependencyError",
]
