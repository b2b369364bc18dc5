"""LiteLLM: a guardrail that checks a model's answer against the documents sent with the request.

``pip install ".[litellm]"`` in the repository (litellm). ``HallucheckGuardrail`` is a LiteLLM
``CustomGuardrail`` that implements ``apply_guardrail``, the one method LiteLLM calls for every
endpoint it guards: LiteLLM takes the answer's text out of the response (whole, or the text streamed
so far), hands it over, and puts back what the guardrail returns. So the post-call and the streaming
hooks are LiteLLM's own, for chat, text completions and the Responses API alike.

The reference is the request's: ``metadata["hallucheck_reference"]`` (a text or a list of
passages), else ``metadata["documents"]`` / ``metadata["context"]`` / ``metadata["contexts"]``,
else the same keys at the top of the request (``extra_body``). A request with none is passed
unchecked (``require_reference=True``: refused). The question, for QA methods, is the last user
message.

``on_flag``: ``"block"`` (default) refuses an answer that is flagged with LiteLLM's
``GuardrailRaisedException`` (the proxy answers 400 with the reason: which claims, why, and what
the reference says); ``"repair"`` first repairs it (:meth:`hallucheck.pipeline.Pipeline.mitigate`:
contradicted figures take the reference's value, no LLM) and hands back the repaired text when the
re-check finds it grounded, else blocks (so does a method without a mitigator). An answer that could not be checked is passed
(``fail_closed=True``: refused).

In the proxy's ``config.yaml``::

    guardrails:
      - guardrail_name: hallucheck
        litellm_params:
          guardrail: hallucheck.integrations.litellm.HallucheckGuardrail
          mode: post_call

The class is built on first use, so importing this module does not import LiteLLM.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..errors import InputError
from ..telemetry import explain
from .common import Checker, content_text, contexts_of, require

__all__ = ["HallucheckGuardrail", "REFERENCE_KEYS", "reference_of", "question_of"]  # noqa: F822 (built on first use)

REFERENCE_KEYS = ("hallucheck_reference", "documents", "context", "contexts")
ON_FLAG = ("block", "repair")

_built: dict[str, type] = {}


def reference_of(request_data: Mapping[str, Any]) -> list[str] | None:
    """The passages a request names as its reference (see the module doc), or None."""
    for holder in (request_data.get("metadata"), request_data.get("litellm_metadata"), request_data):
        if not isinstance(holder, Mapping):
            continue
        for key in REFERENCE_KEYS:
            value = holder.get(key)
            if value:
                return contexts_of(value, f"passages of '{key}'")
    return None


def question_of(request_data: Mapping[str, Any]) -> str | None:
    """The last user message's text (None when there is none)."""
    messages = request_data.get("messages")
    if not isinstance(messages, Sequence):
        return None
    for message in reversed(messages):
        if isinstance(message, Mapping) and message.get("role") == "user":
            return content_text(message.get("content")) or None
    return None


def _build() -> type:
    base = require("litellm.integrations.custom_guardrail", "litellm", "LiteLLM (for the LiteLLM guardrail)")
    exceptions = require("litellm.exceptions", "litellm", "LiteLLM (for the LiteLLM guardrail)")

    class HallucheckGuardrail(base.CustomGuardrail):
        """Check each answer text against the request's reference (see the module doc).

        ``method``, ``llm`` and ``pipeline`` as in :class:`~hallucheck.integrations.common.Checker`
        (default: ``ce_cascade`` with ``llm="none"``: no LLM call of hallucheck's own); the other
        keyword arguments (``guardrail_name``, ``event_hook``, ``default_on`` ...) are LiteLLM's."""

        def __init__(
            self,
            method: str | None = None,
            *,
            llm: Any = "none",
            pipeline: Any = None,
            on_flag: str = "block",
            require_reference: bool = False,
            fail_closed: bool = False,
            **kwargs: Any,
        ) -> None:
            if on_flag not in ON_FLAG:
                raise InputError(f"on_flag must be one of {', '.join(ON_FLAG)}; got {on_flag!r}.", field="on_flag")
            self.checker = Checker(method, llm=None if pipeline is not None else llm, pipeline=pipeline)
            self.on_flag = on_flag
            self.require_reference = require_reference
            self.fail_closed = fail_closed
            super().__init__(**kwargs)

        def _refuse(self, message: str, *, judged: bool) -> Exception:
            return exceptions.GuardrailRaisedException(
                guardrail_name=self.guardrail_name or "hallucheck",
                message=message,
                blocked_content=judged,
            )

        async def _checked(self, text: str, passages: list[str], question: str | None) -> str:
            det = await self.checker.acheck(text, passages, question)
            if det.hallucinated is False:
                return text
            if det.hallucinated is None:
                if self.fail_closed:
                    raise self._refuse(explain(det), judged=False)
                return text
            if self.on_flag == "repair" and self.checker.pipeline.mitigator is not None:
                mit = await self.checker.pipeline.amitigate(text, passages, question=question)
                if mit.changed and mit.after is not None and mit.after.hallucinated is False:
                    return str(mit.revised)
            raise self._refuse(explain(det), judged=True)

        async def apply_guardrail(
            self,
            inputs: Any,
            request_data: dict,
            input_type: str,
            logging_obj: Any = None,
        ) -> Any:
            if input_type != "response":
                return inputs  # a request holds no answer yet
            passages = reference_of(request_data)
            if passages is None:
                if self.require_reference:
                    raise self._refuse(
                        "the request gives no reference to check the answer against (metadata "
                        f"{' / '.join(REFERENCE_KEYS)})",
                        judged=False,
                    )
                return inputs
            question = question_of(request_data)
            texts = [
                await self._checked(t, passages, question) if isinstance(t, str) and t.strip() else t
                for t in inputs.get("texts") or ()
            ]
            return {**inputs, "texts": texts}

    return HallucheckGuardrail


def __getattr__(name: str) -> Any:
    if name == "HallucheckGuardrail":
        if name not in _built:
            _built[name] = _build()
        return _built[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
