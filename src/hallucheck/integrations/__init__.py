"""hallucheck where RAG, evaluation and gateway code already runs: LangChain, LlamaIndex, Ragas,
DeepEval, LiteLLM, NeMo Guardrails.

Each integration is its own module and its own extra; importing this package imports none of
them, and each module imports its third-party package only when one of its classes is first used
(a clear :class:`~hallucheck.errors.MissingDependencyError` says which extra to install).

- :mod:`hallucheck.integrations.langchain`: ``HallucheckRunnable`` (``pip install ".[langchain]"`` in the repository)
- :mod:`hallucheck.integrations.llamaindex`: ``HallucheckEvaluator`` (``".[llamaindex]"``)
- :mod:`hallucheck.integrations.ragas`: ``HallucheckGroundedness`` (``".[ragas]"``)
- :mod:`hallucheck.integrations.deepeval`: ``HallucheckMetric`` (``".[deepeval]"``)
- :mod:`hallucheck.integrations.litellm`: ``HallucheckGuardrail``, a LiteLLM guardrail (``".[litellm]"``)
- :mod:`hallucheck.integrations.nemo`: an action and an output rail for NeMo Guardrails (``".[nemo]"``)

All of them check the answer against the contexts it was given (the retrieved documents, as
passages) with any hallucheck method (the default ``ce_cascade``; ``llm="none"`` runs it with no
LLM), and all of them hand back the same findings: each claim with its offsets in the answer, its
score, label and reason, and its evidence with the passage it lies in and the offsets there (see
:func:`hallucheck.integrations.common.findings`). Their ``score`` follows the host framework,
where higher is better: it is the *grounded* score, ``1 - Detection.score``, below 0.5 exactly
when hallucheck flags the answer. docs/integrations.md has a runnable example of each.
"""
