"""Ragas: a metric for ``ragas.evaluate`` (``SingleTurnMetric``, the contract of ragas 0.4's
evaluation loop), scored by a hallucheck method instead of an LLM judge.

``pip install ".[ragas]"`` in the repository::

    from ragas import EvaluationDataset, evaluate
    metric = HallucheckGroundedness(llm="none")
    result = evaluate(dataset, metrics=[metric])          # a column "hallucheck_groundedness"
    metric.results                                         # hallucheck's findings, one per row scored

Each row needs ``response`` and ``retrieved_contexts`` (``user_input`` is passed on as the
question). The value is the grounded score, ``1 - Detection.score``: higher is better, as with
Ragas' faithfulness, and below 0.5 exactly when hallucheck flags the response; NaN when the
response could not be verified. Since Ragas keeps only the number, the metric keeps each row's
report (:func:`hallucheck.integrations.common.report`: claims with offsets, evidence with the
context index and offsets inside it, explanation) in ``metric.results``, in the order rows
finished, each with the row's ``user_input`` and ``response`` to match it by. ``score(...)`` /
``await ascore(...)`` score one response directly and return a Ragas ``MetricResult`` whose
``reason`` is the explanation. The class is built on first use, so importing this module does
not import Ragas.
"""

from __future__ import annotations

import math
from typing import Any

from .common import Checker, explain, grounded_score, report, require

__all__ = ["HallucheckGroundedness"]  # noqa: F822 (built on first use by __getattr__)

_built: dict[str, type] = {}


def _build() -> type:
    base = require("ragas.metrics.base", "ragas", "ragas (for the Ragas integration)")
    from dataclasses import dataclass, field

    from ragas.metrics.result import MetricResult

    @dataclass
    class HallucheckGroundedness(base.SingleTurnMetric):
        """Grounded score of ``response`` against ``retrieved_contexts`` by a hallucheck method
        (``method``/``llm``/``params`` as in :func:`hallucheck.load_method`, loaded on first
        use; ``llm="none"`` runs the default ``ce_cascade`` with no LLM; or a built ``pipeline``)."""

        name: str = "hallucheck_groundedness"
        _required_columns: dict = field(
            default_factory=lambda: {
                base.MetricType.SINGLE_TURN: {"response", "retrieved_contexts", "user_input:optional"}
            }
        )
        method: str | None = None
        llm: Any = None
        params: dict = field(default_factory=dict)
        pipeline: Any = field(default=None, repr=False)
        results: list = field(default_factory=list, repr=False)

        def __post_init__(self) -> None:
            super().__post_init__()
            self.checker = Checker(self.method, llm=self.llm, pipeline=self.pipeline, **self.params)

        def init(self, run_config: Any) -> None:
            pass  # no LLM or embeddings of Ragas' to set up

        async def _check(self, response: Any, contexts: Any, question: Any) -> Any:
            det = await self.checker.acheck(response, contexts, question if isinstance(question, str) else None)
            self.results.append({"user_input": question, "response": det.answer, **report(det)})
            return det

        async def _single_turn_ascore(self, sample: Any, callbacks: Any) -> float:
            det = await self._check(sample.response, sample.retrieved_contexts, sample.user_input)
            value = grounded_score(det)
            return math.nan if value is None else value

        async def ascore(self, response: str, retrieved_contexts: list, user_input: str | None = None) -> Any:
            det = await self._check(response, retrieved_contexts, user_input)
            value = grounded_score(det)
            return MetricResult(value=math.nan if value is None else value, reason=explain(det))

        def score(self, response: str, retrieved_contexts: list, user_input: str | None = None) -> Any:
            det = self.checker.check(response, retrieved_contexts, user_input)
            self.results.append({"user_input": user_input, "response": det.answer, **report(det)})
            value = grounded_score(det)
            return MetricResult(value=math.nan if value is None else value, reason=explain(det))

    return HallucheckGroundedness


def __getattr__(name: str) -> Any:
    if name == "HallucheckGroundedness":
        if name not in _built:
            _built[name] = _build()
        return _built[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
