"""OpenTelemetry output (the ``otel`` extra): an evaluation event per detection, a span per eval/check run.

Every :class:`~hallucheck.types.Detection` a pipeline produces (``Pipeline.run`` and the error
records of ``run_batch``) is emitted as a ``gen_ai.evaluation.result`` event, the OpenTelemetry
GenAI semantic conventions' event for "the result of evaluating GenAI output for quality, accuracy,
or other characteristics" (open-telemetry/semantic-conventions-genai, model/gen-ai/events.yaml;
stability: development). As the conventions define events, it is a log record with that event
name, emitted through the Logs API, so it carries the active span's context: inside the span of
the GenAI operation being checked (or of an eval run) it is parented to it, as the convention asks.
Its attributes:

- ``gen_ai.evaluation.name`` (required): ``"hallucheck.hallucination"``;
- ``gen_ai.evaluation.score.value``: the detection's score (how likely the answer is
  hallucinated, above 0.5 exactly when flagged); absent when it could not be verified;
- ``gen_ai.evaluation.score.label``: ``"hallucinated"`` or ``"grounded"`` (absent when unverified);
- ``gen_ai.evaluation.explanation``: what was flagged, where and why
  (:func:`hallucheck.integrations.common.explain`);
- ``gen_ai.response.id``: the detection's ``id`` when one was given (``run(..., id=...)``, the
  row id of ``eval``/``check``): pass the id of the completion checked to correlate them;
- ``error.type`` when the answer could not be verified (``"unverified"``) or the run failed
  (the error's class, ``"error"`` when unknown);
- hallucheck's own: ``hallucheck.method``, ``hallucheck.claims``, ``hallucheck.claims_flagged``.

``eval`` and ``check`` runs (:func:`hallucheck.eval.runner.run_eval`) get a span,
``hallucheck eval`` / ``hallucheck check``, with the method, data and counts, so their events
nest under it (local engine; Ray actors emit theirs in their own processes).

Nothing happens without the ``opentelemetry-api`` package, and with it but no SDK configured the
API's no-op providers make it nearly free. The global providers are used unless :func:`use`
gives others (tests, or an application that keeps its own). ``HALLUCHECK_OTEL=off`` turns it off.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, Iterator, Mapping

EVENT_NAME = "gen_ai.evaluation.result"
EVALUATION_NAME = "hallucheck.hallucination"
SCOPE = "hallucheck"

_api: Any = None  # None: not looked for yet; False: opentelemetry-api is not installed
_providers: dict[str, Any] = {}


def _otel() -> Any:
    global _api
    if _api is None:
        try:
            from opentelemetry import _logs, trace

            _api = (_logs, trace)
        except ImportError:
            _api = False
    return _api


def enabled() -> bool:
    """Whether hallucheck emits telemetry: opentelemetry-api installed and HALLUCHECK_OTEL not off."""
    return bool(_otel()) and os.environ.get("HALLUCHECK_OTEL", "").strip().lower() not in ("0", "off", "false", "no")


def use(*, logger_provider: Any = None, tracer_provider: Any = None) -> None:
    """Emit through these providers instead of the global ones (``None`` goes back to the global)."""
    _providers.clear()
    if logger_provider is not None:
        _providers["logger"] = logger_provider
    if tracer_provider is not None:
        _providers["tracer"] = tracer_provider


def _version() -> str:
    from ._version import __version__

    return __version__


def explain(det: Any) -> str:
    """A reason a person reads: what was flagged, where, why, and what the contexts say."""
    if det.status == "error":
        return f"Could not check the answer: {det.error}"
    if det.hallucinated is None:
        note = det.meta.get("note") or "some claims could not be verified"
        failed = [v.reason for v in det.verdicts if v.status == "error"]
        return f"Could not verify the answer ({det.method}): {note}" + (f" ({failed[0]})" if failed else "")
    n = len(det.verdicts)
    flagged = det.flagged
    if not flagged:
        if n == 1:
            return f"The answer's one claim is supported by the contexts ({det.method})."
        return f"All {n} claims of the answer are supported by the contexts ({det.method})."
    parts = [f"{len(flagged)} of {n} claim{'s' if n != 1 else ''} not supported by the contexts ({det.method}):"]
    for v in flagged:
        line = f"- {v.claim.text!r} (answer[{v.claim.start}:{v.claim.end}], score {v.score:.2f}): {v.reason}"
        if v.evidence and v.evidence[0].text not in v.reason:
            e = v.evidence[0]
            where = f"context {e.passage}" if e.passage is not None else "the contexts"
            line += f" Closest in {where}: {e.text!r}"
        parts.append(line)
    return "\n".join(parts)


def evaluation_attributes(det: Any) -> dict[str, Any]:
    """The event's attributes for one detection (see the module docstring)."""
    attrs: dict[str, Any] = {"gen_ai.evaluation.name": EVALUATION_NAME}
    if det.status == "error":
        attrs["error.type"] = _error_type(det.error)
    elif det.hallucinated is None or det.score is None:
        attrs["error.type"] = "unverified"
    else:
        attrs["gen_ai.evaluation.score.value"] = float(det.score)
        attrs["gen_ai.evaluation.score.label"] = "hallucinated" if det.hallucinated else "grounded"
    attrs["gen_ai.evaluation.explanation"] = explain(det)
    if det.id is not None:
        attrs["gen_ai.response.id"] = str(det.id)
    attrs["hallucheck.method"] = det.method
    attrs["hallucheck.claims"] = len(det.verdicts)
    attrs["hallucheck.claims_flagged"] = len(det.flagged)
    return attrs


def _error_type(error: str | None) -> str:
    """The class name an error message starts with (``"ValueError: ..."``), else ``"error"``."""
    head = (error or "").split(":", 1)[0]
    return head if head.isidentifier() and head[:1].isupper() else "error"


def record_detection(det: Any) -> None:
    """Emit the ``gen_ai.evaluation.result`` event of ``det`` (nothing when telemetry is off).
    Telemetry never breaks a detection: a failing exporter is the SDK's to report."""
    if not enabled():
        return
    _logs, _ = _otel()
    provider = _providers.get("logger")
    logger = (provider.get_logger if provider is not None else _logs.get_logger)(SCOPE, _version())
    check = getattr(logger, "enabled", None)
    if callable(check):
        try:
            if not check(event_name=EVENT_NAME):
                return
        except TypeError:  # an API without event_name in enabled()
            pass
    logger.emit(_logs.LogRecord(event_name=EVENT_NAME, attributes=evaluation_attributes(det)))


@contextlib.contextmanager
def run_span(name: str, attributes: Mapping[str, Any]) -> Iterator[Any]:
    """A span around an eval/check run (a no-op context when telemetry is off); yields the span
    (or None) so the caller can add the counts at the end."""
    if not enabled():
        yield None
        return
    _, trace = _otel()
    provider = _providers.get("tracer")
    tracer = (provider.get_tracer if provider is not None else trace.get_tracer)(SCOPE, _version())
    clean = {k: v for k, v in attributes.items() if isinstance(v, (str, bool, int, float))}
    with tracer.start_as_current_span(name, attributes=clean) as span:
        yield span


__all__ = ["EVENT_NAME", "EVALUATION_NAME", "enabled", "use", "evaluation_attributes", "record_detection", "run_span"]
