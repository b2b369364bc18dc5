"""NeMo Guardrails: an output rail that checks the bot's message against the retrieved chunks.

``pip install ".[nemo]"`` in the repository (nemoguardrails). NeMo keeps what the bot answers in
``$bot_message`` and the chunks it retrieved (its knowledge base, or a ``context`` message with
``relevant_chunks``) in ``$relevant_chunks``. The action :data:`ACTION_NAME` checks the first
against the second with a hallucheck method and returns True when the message is grounded; the flow
:data:`FLOW_NAME` (in :data:`COLANG`, Colang 1.0) runs it as an output rail and, when the message is
flagged, says :data:`REFUSAL` instead and stops. The reasons (which claims, why, what the chunks say)
are kept in ``$hallucheck_explanation``.

Wiring, with the rails you already have::

    config = RailsConfig.from_content(colang_content=COLANG, yaml_content=YAML)
    rails = LLMRails(config)
    register(rails)                      # the action, with hallucheck's default method and no LLM

``YAML`` lists the flow under ``rails: output: flows:``. A message with no chunks to check it against
is let through (``require_chunks=True``: refused); one that could not be checked is let through
(``fail_closed=True``: refused). The action is built on first use, so importing this module does not
import NeMo Guardrails.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ..errors import InputError
from ..telemetry import explain
from .common import Checker, require

__all__ = ["ACTION_NAME", "COLANG", "FLOW_NAME", "REFUSAL", "YAML", "chunks_of", "make_action", "register"]

ACTION_NAME = "hallucheck_check_grounding"
FLOW_NAME = "hallucheck check grounding"
REFUSAL = "I could not find support for that answer in the documents I have, so I will not give it."
COLANG = f'''define bot refuse ungrounded answer
  "{REFUSAL}"

define subflow {FLOW_NAME}
  $grounded = execute {ACTION_NAME}
  if not $grounded
    bot refuse ungrounded answer
    stop
'''
YAML = f"""rails:
  output:
    flows:
      - {FLOW_NAME}
"""


def chunks_of(context: Mapping[str, Any]) -> list[str] | None:
    """The retrieved chunks NeMo keeps in the context: ``relevant_chunks_sep`` (a list) when set,
    else ``relevant_chunks`` (one text); None when there are none."""
    for key in ("relevant_chunks_sep", "relevant_chunks"):
        value = context.get(key)
        if isinstance(value, str) and value.strip():
            return [value]
        if isinstance(value, (list, tuple)):
            texts = [t for t in value if isinstance(t, str) and t.strip()]
            if texts:
                return texts
    return None


def make_action(
    method: str | None = None,
    *,
    llm: Any = "none",
    pipeline: Any = None,
    require_chunks: bool = False,
    fail_closed: bool = False,
) -> Callable[..., Any]:
    """The NeMo action :data:`ACTION_NAME`: True when ``$bot_message`` is grounded in the chunks.

    ``method``, ``llm`` and ``pipeline`` as in :class:`~hallucheck.integrations.common.Checker`
    (default: ``ce_cascade`` with no LLM)."""
    actions = require("nemoguardrails.actions.actions", "nemo", "NeMo Guardrails (for the NeMo integration)")
    checker = Checker(method, llm=None if pipeline is not None else llm, pipeline=pipeline)

    @actions.action(name=ACTION_NAME)
    async def hallucheck_check_grounding(context: dict | None = None) -> Any:
        context = context or {}
        message = context.get("bot_message")
        if not isinstance(message, str) or not message.strip():
            return True  # nothing said: nothing to check
        chunks = chunks_of(context)
        if chunks is None:
            return _result(not require_chunks, "no retrieved chunks to check the message against")
        user = context.get("user_message")
        try:
            det = await checker.acheck(message, chunks, user if isinstance(user, str) else None)
        except InputError as exc:
            return _result(not fail_closed, str(exc))
        if det.hallucinated is None:
            return _result(not fail_closed, explain(det))
        return _result(det.hallucinated is False, explain(det))

    def _result(grounded: bool, why: str) -> Any:
        return actions.ActionResult(return_value=grounded, context_updates={"hallucheck_explanation": why})

    return hallucheck_check_grounding


def register(rails: Any, **options: Any) -> Any:
    """Register the action (:func:`make_action` with ``options``) on an ``LLMRails``; returns it."""
    rails.register_action(make_action(**options), ACTION_NAME)
    return rails
