"""DeepEval: a metric (``BaseMetric``) scored by a hallucheck method instead of an LLM judge.

``pip install ".[deepeval]"`` in the repository::

    from deepeval.test_case import LLMTestCase
    metric = HallucheckMetric(llm="none", threshold=0.5)
    metric.measure(LLMTestCase(input=question, actual_output=answer, retrieval_context=[...]))
    metric.score, metric.reason, metric.is_successful(), metric.claims

It reads ``actual_output`` and ``retrieval_context`` (``context`` when there is no retrieval
context; ``input`` is passed on as the question). ``score`` is the grounded score,
``1 - Detection.score``: higher is better, as DeepEval's default ``is_successful`` expects
(``score >= threshold``), and below 0.5 exactly when hallucheck flags the answer, so with the
default threshold 0.5 the metric passes exactly when hallucheck finds nothing unsupported.
``reason`` is the explanation (each flagged claim, where it is, why, what the context says);
``claims`` hallucheck's findings (offsets in the answer, evidence with the context index and
offsets inside it), ``score_breakdown`` each claim's score, ``detection`` the whole
:class:`~hallucheck.types.Detection`. An answer that could not be verified sets ``error`` and
fails. The class is built on first use, so importing this module does not import DeepEval.
"""

from __future__ import annotations

from typing import Any

from .common import Checker, explain, findings, grounded_score, require

__all__ = ["HallucheckMetric"]  # noqa: F822 (built on first use by __getattr__)

_built: dict[str, type] = {}


def _build() -> type:
    metrics = require("deepeval.metrics", "deepeval", "deepeval (for the DeepEval integration)")
    from deepeval.test_case import SingleTurnParams

    class HallucheckMetric(metrics.BaseMetric):
        """Is ``actual_output`` supported by ``retrieval_context`` (or ``context``)? ``method``,
        ``llm`` and keyword parameters go to :func:`hallucheck.load_method` (loaded on first use;
        ``llm="none"`` runs the default ``ce_cascade`` with no LLM), or pass a built ``pipeline``."""

        _required_params = [SingleTurnParams.ACTUAL_OUTPUT]

        def __init__(
            self,
            method: str | None = None,
            *,
            llm: Any = None,
            pipeline: Any = None,
            threshold: float = 0.5,
            include_reason: bool = True,
            async_mode: bool = True,
            **params: Any,
        ) -> None:
            from ..errors import ConfigError

            if not isinstance(threshold, (int, float)) or not 0.0 <= threshold <= 1.0:
                raise ConfigError(f"threshold is a grounded score in [0, 1]; got {threshold!r}.")
            self.checker = Checker(method, llm=llm, pipeline=pipeline, **params)
            self.threshold = float(threshold)
            self.include_reason = include_reason
            self.async_mode = async_mode
            self.strict_mode = False
            self.evaluation_model = f"hallucheck:{self.checker.method}"
            self.claims: list = []
            self.detection: Any = None

        @property
        def __name__(self) -> str:  # DeepEval's metric name
            return "Hallucheck Groundedness"

        def _inputs(self, test_case: Any) -> tuple[Any, Any, Any]:
            from ..errors import InputError

            contexts = test_case.retrieval_context or test_case.context
            if test_case.actual_output is None or not contexts:
                raise InputError(
                    "HallucheckMetric needs the test case's actual_output and its retrieval_context (or context): "
                    "the answer is checked against the documents it was based on."
                )
            return test_case.actual_output, contexts, test_case.input

        def _record(self, det: Any) -> float | None:
            self.detection = det
            self.claims = findings(det)
            self.score_breakdown = {f"answer[{c['start']}:{c['end']}]": c["score"] for c in self.claims}
            self.reason = explain(det) if self.include_reason else None
            self.score = grounded_score(det)
            self.error = None if self.score is not None else explain(det)
            self.success = self.is_successful()
            self.verbose_logs = explain(det)
            return self.score

        def measure(self, test_case: Any, *args: Any, **kwargs: Any) -> float | None:
            return self._record(self.checker.check(*self._inputs(test_case)))

        async def a_measure(self, test_case: Any, *args: Any, **kwargs: Any) -> float | None:
            return self._record(await self.checker.acheck(*self._inputs(test_case)))

        def is_successful(self) -> bool:
            self.success = self.error is None and self.score is not None and self.score >= self.threshold
            return self.success

    return HallucheckMetric


def __getattr__(name: str) -> Any:
    if name == "HallucheckMetric":
        if name not in _built:
            _built[name] = _build()
        return _built[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
