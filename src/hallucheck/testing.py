"""Assertions for test suites: fail a test when an answer is not grounded in its reference.

>>> from hallucheck.testing import assert_grounded
>>> assert_grounded("The front tyres take 2.4 bar.",                       # doctest: +SKIP
...                 "Inflate the front tyres to 2.4 bar when cold.", method="sim_overlap")

:func:`assert_grounded` raises :class:`AssertionError` (so pytest, unittest and plain ``assert``
users all see a test failure) when the method flags the answer, and also when the answer could
not be verified: an LLM reply that did not parse, a backend that failed or an answer with no
checkable claim never passes silently. The message lists each unsupported claim with its offsets
in the answer, score, label, reason and evidence. See ``docs/testing.md``.
"""

from __future__ import annotations

from typing import Any, Sequence

from .errors import BackendError, ConfigError, ParseError
from .types import Detection, Evidence, Verdict

# evidence items shown per claim in a failure message
MAX_EVIDENCE = 3
_CLIP = 200


def _clip(text: str, limit: int = _CLIP) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _load(method: Any, llm: Any, params: dict[str, Any]) -> Any:
    if isinstance(method, str):
        from .loader import load_method

        return load_method(method, llm=llm, **params)
    if not callable(getattr(method, "run", None)):
        raise ConfigError(
            f"assert_grounded: method must be a method name (see `hallucheck methods`) or a loaded method "
            f"(hallucheck.load_method(...)); got {type(method).__name__}."
        )
    if params or llm is not None:
        raise ConfigError(
            "assert_grounded: llm= and method parameters go to hallucheck.load_method(...) when the method "
            "is already loaded; pass the method's name instead, or load it with them."
        )
    return method


def _evidence_lines(evidence: Sequence[Evidence]) -> list[str]:
    if not evidence:
        return ["evidence: none (the method gave no evidence for this claim)"]
    scored = [e for e in evidence if e.score is not None]
    if scored and len(scored) == len(evidence) and max(e.score for e in scored) <= 0:  # type: ignore[type-var]
        return ["evidence: nothing in the reference matches this claim (every candidate scores 0)"]
    ranked = sorted(evidence, key=lambda e: -e.score if e.score is not None else 0.0) if scored else list(evidence)
    lines = []
    for e in ranked[:MAX_EVIDENCE]:
        sim = "" if e.score is None else f" (similarity {e.score:.2f})"
        lines.append(f"evidence reference[{e.start}:{e.end}]{sim}: {_clip(e.text)!r}")
    if len(ranked) > MAX_EVIDENCE:
        lines.append(f"... and {len(ranked) - MAX_EVIDENCE} more evidence item(s)")
    return lines


def _claim_block(v: Verdict, mark: str) -> list[str]:
    score = "n/a" if v.score is None else f"{v.score:.2f}"
    out = [
        f"  {mark} answer[{v.claim.start}:{v.claim.end}] {_clip(v.claim.text)!r}",
        f"      score {score}, {v.label or v.status}: {v.reason or '(no reason given)'}",
    ]
    if v.status == "error":
        if v.raw:
            out.append(f"      raw LLM reply: {v.raw[:300]!r}{'…' if len(v.raw) > 300 else ''}")
    else:
        out.extend(f"      {line}" for line in _evidence_lines(v.evidence))
    return out


def _header(det: Detection) -> str:
    score = "n/a" if det.score is None else f"{det.score:.2f}"
    return f"method={det.method}, answer score={score}"


def unverified_message(det: Detection) -> str:
    """Why a detection that could not be verified fails the test."""
    lines = [f"hallucheck could not verify the answer ({_header(det)}); an unverified answer does not pass."]
    if det.error:
        lines.append(f"  error: {det.error}")
    if det.meta.get("note"):
        lines.append(f"  note: {det.meta['note']}")
    failed = [v for v in det.verdicts if v.status == "error"]
    if failed:
        lines.append(f"  {len(failed)} of {_claims(len(det.verdicts))} could not be verified:")
        for v in failed:
            lines.extend(_claim_block(v, "?"))
    elif det.score is None and not det.error and not det.meta.get("note"):
        lines.append("  the method gave no score.")
    lines.append("Fix the cause (LLM backend, method parameters, or an answer with nothing to check) and run again.")
    return "\n".join(lines)


def _claims(n: int) -> str:
    """The count of claims in words: 1 claim, 3 claims."""
    return f"{n} claim{'' if n == 1 else 's'}"


def ungrounded_message(det: Detection, failing: Sequence[Verdict], *, max_score: float | None = None) -> str:
    """The failure message for an answer with unsupported claims."""
    rule = "the method flagged it" if max_score is None else f"its score is above max_score={max_score:g}"
    lines = [
        f"Answer not grounded in the reference: {rule} ({_header(det)}; "
        f"{len(failing)} of {_claims(len(det.verdicts))} unsupported)."
    ]
    if det.question:
        lines.append(f"  question: {_clip(det.question)!r}")
    for v in failing:
        lines.extend(_claim_block(v, "✗"))
    errors = [v for v in det.verdicts if v.status == "error"]
    if errors:
        lines.append(f"  ({len(errors)} other claim(s) could not be verified.)")
    return "\n".join(lines)


def assert_grounded(
    answer: str,
    reference: str,
    *,
    method: Any = None,
    max_score: float | None = None,
    question: str | None = None,
    llm: Any = None,
    **params: Any,
) -> Detection:
    """Fail (``AssertionError``) unless ``answer`` is grounded in ``reference``; return the Detection.

    - ``method``: a method name (default: hallucheck's default method; see ``hallucheck methods``)
      or a method already loaded with :func:`hallucheck.load_method` (load it once in a fixture
      to share models across tests). ``llm`` and ``**params`` go to ``load_method`` with a name.
    - ``max_score``: when given, the answer passes if its score (in [0, 1], higher = more
      likely hallucinated) is at most ``max_score``, whatever the method's own threshold
      decided; when ``None``, the method's decision counts.
    - An answer that could not be verified (``status="error"``, ``hallucinated is None``, no
      score, or a backend/parse failure) fails with the reason, never passes.

    Input and configuration mistakes (an empty answer, an unknown method or parameter) raise
    their own :class:`~hallucheck.HallucheckError` rather than an ``AssertionError``.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's
    if max_score is not None and (
        isinstance(max_score, bool) or not isinstance(max_score, (int, float)) or not 0.0 <= float(max_score) <= 1.0
    ):
        raise ConfigError(
            f"The 'max_score' parameter of assert_grounded must be a number in [0, 1] or None; got {max_score!r}."
        )
    if method is None:
        from .loader import DEFAULT_METHOD

        method = DEFAULT_METHOD
    pipeline = _load(method, llm, params)
    try:
        det = pipeline.run(answer, reference, question=question)
    except (BackendError, ParseError) as exc:
        raise AssertionError(
            f"hallucheck could not verify the answer: {type(exc).__name__}: {exc}. "
            "An unverified answer does not pass; fix the LLM backend and run again."
        ) from exc
    unverified = det.status == "error" or det.hallucinated is None
    if max_score is not None:  # the score decides: every claim must have been scored
        unverified = unverified or det.score is None or any(v.status == "error" for v in det.verdicts)
    if unverified:
        raise AssertionError(unverified_message(det))
    if max_score is None:
        if det.hallucinated:
            raise AssertionError(ungrounded_message(det, det.flagged))
        return det
    if det.score is not None and det.score > max_score:
        over = [v for v in det.verdicts if v.status == "ok" and v.score is not None and v.score > max_score]
        raise AssertionError(ungrounded_message(det, over or det.flagged, max_score=max_score))
    return det


__all__ = ["assert_grounded", "ungrounded_message", "unverified_message"]
