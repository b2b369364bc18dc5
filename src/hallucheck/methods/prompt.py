"""The HSP paper's prompt baselines (paper 000, Appendix A.4 and A.5).

Detection (A.4, ``prompt_detect.v1``): one few-shot NLI call with the whole reference as the
premise and the whole answer as the hypothesis. The reply is made to start with
``"Relationship: "`` (the few-shot examples' format) and the label is read from the next token
by log-probability when the backend gives them, so the score is continuous: P(Contradiction),
or P(Contradiction) + P(Neutral) with ``flag_on="ungrounded"``. Without log-probabilities the
reply is parsed and the score is 0 or 1.

Mitigation (A.5, ``prompt_repair.v1``): the flagged answer is rewritten whole by the LLM
against the whole reference (:class:`~hallucheck.stages.piece_repair.PromptRewriteMitigator`).
"""

from __future__ import annotations

from ..llm.base import LLMClient
from ..pipeline import Pipeline
from ..stages.nli import LLMNLIVerifier, WholeAnswerExtractor, WholeReferenceRetriever
from ..stages.piece_repair import PromptRewriteMitigator

PREFIX = "Relationship: "


def prompt(
    *,
    llm: LLMClient | None = None,
    flag_on: str = "contradiction",
    threshold: float | None = None,
    calibrate: bool = True,
) -> Pipeline:
    """The prompt-based detection baseline with prompt-based mitigation. ``calibrate``: the same
    contextual calibration of the label probabilities as HSP's default (one extra call per run),
    so that the two are compared with the same judge; ``False`` is the paper's raw decision."""
    return Pipeline(
        name="prompt",
        extractor=WholeAnswerExtractor(),
        retriever=WholeReferenceRetriever(),
        verifier=LLMNLIVerifier(
            llm=llm, prompt="prompt_detect.v1", prefix=PREFIX, flag_on=flag_on, threshold=threshold, calibrate=calibrate
        ),
        mitigator=PromptRewriteMitigator(llm=llm),
        llm=llm,
    )
