"""LlamaIndex: an evaluator on the ``BaseEvaluator`` contract, used like its FaithfulnessEvaluator.

``pip install ".[llamaindex]"`` in the repository (llama-index-core)::

    evaluator = HallucheckEvaluator(llm="none")
    result = evaluator.evaluate_response(query=question, response=query_engine.query(question))
    result = evaluator.evaluate(query=question, response=answer, contexts=[...])   # or await aevaluate(...)

The result is an ``EvaluationResult`` (a subclass that adds hallucheck's findings):
``passing`` is True when hallucheck finds no unsupported claim, ``score`` the grounded score
(``1 - Detection.score``, below 0.5 exactly when flagged; higher is better as in LlamaIndex),
``feedback`` the explanation; ``invalid_result``/``invalid_reason`` when the answer could not be
verified. Added fields: ``hallucination_score`` (hallucheck's score), ``method`` and ``claims``
(offsets into the response, evidence with the context index and offsets inside it).
The classes are built on first use, so importing this module does not import LlamaIndex.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from .common import Checker, explain, findings, grounded_score, require

__all__ = ["HallucheckEvaluator", "HallucheckEvaluationResult"]  # noqa: F822 (built on first use by __getattr__)

_built: dict[str, type] = {}


def _build() -> dict[str, type]:
    evaluation = require(
        "llama_index.core.evaluation", "llamaindex", "llama-index-core (for the LlamaIndex integration)"
    )
    from llama_index.core.bridge.pydantic import Field

    class HallucheckEvaluationResult(evaluation.EvaluationResult):
        """``EvaluationResult`` with hallucheck's claims, offsets and evidence."""

        hallucination_score: Optional[float] = Field(
            default=None, description="hallucheck's score: above 0.5 exactly when the response is flagged"
        )
        method: Optional[str] = Field(default=None, description="the hallucheck method that checked the response")
        claims: list = Field(default_factory=list, description="each claim's offsets, score, reason and evidence")

    class HallucheckEvaluator(evaluation.BaseEvaluator):
        """Is the response supported by the retrieved contexts? A hallucheck method answers, claim
        by claim. ``method``, ``llm`` and keyword parameters go to :func:`hallucheck.load_method`
        (loaded on first use; ``llm="none"`` runs the default ``ce_cascade`` with no LLM), or pass
        a built ``pipeline``. ``raise_error=True`` raises when the response is flagged."""

        def __init__(
            self,
            method: str | None = None,
            *,
            llm: Any = None,
            pipeline: Any = None,
            raise_error: bool = False,
            **params,
        ) -> None:
            self.checker = Checker(method, llm=llm, pipeline=pipeline, **params)
            self.raise_error = raise_error

        def _get_prompts(self) -> dict:
            return {}  # hallucheck's prompts live in its methods, not in the evaluator

        def _update_prompts(self, prompts_dict: dict) -> None:
            if prompts_dict:
                from ..errors import ConfigError

                raise ConfigError("HallucheckEvaluator has no prompts to update; configure the method instead.")

        async def aevaluate(
            self,
            query: Optional[str] = None,
            response: Optional[str] = None,
            contexts: Optional[Sequence[str]] = None,
            **kwargs: Any,
        ) -> HallucheckEvaluationResult:
            if response is None or contexts is None:
                raise ValueError("HallucheckEvaluator needs the response and the contexts it was based on.")
            det = await self.checker.acheck(response, contexts, query)
            if self.raise_error and det.hallucinated:
                raise ValueError(f"The response is not supported by the contexts.\n{explain(det)}")
            unverified = det.hallucinated is None
            return HallucheckEvaluationResult(
                query=query,
                contexts=list(det.passages or ()),
                response=det.answer,
                passing=None if unverified else not det.hallucinated,
                score=grounded_score(det),
                feedback=explain(det),
                invalid_result=unverified,
                invalid_reason=explain(det) if unverified else None,
                hallucination_score=det.score,
                method=det.method,
                claims=findings(det),
            )

    return {"HallucheckEvaluator": HallucheckEvaluator, "HallucheckEvaluationResult": HallucheckEvaluationResult}


def __getattr__(name: str) -> Any:
    if name in __all__:
        if not _built:
            _built.update(_build())
        return _built[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
