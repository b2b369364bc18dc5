"""What every integration shares: a lazily loaded method, the contexts read from each framework's
document types, and the findings and explanation handed back (claims, offsets, evidence)."""

from __future__ import annotations

import asyncio
import importlib
import threading
from typing import Any, Iterable, Mapping

from ..errors import InputError, MissingDependencyError, install_hint
from ..telemetry import explain  # noqa: F401 (the integrations' explanation is the event's)
from ..types import Detection


def require(module: str, extra: str, what: str) -> Any:
    """Import ``module`` or say which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(what, install_hint(extra)) from exc


def _text_of(item: Any) -> str:
    """The text of one context: a string, a LangChain ``Document`` (``page_content``), a
    LlamaIndex node or ``NodeWithScore`` (``get_content()``), or a mapping with ``page_content``
    / ``text`` / ``content``."""
    if isinstance(item, str):
        return item
    for attr in ("page_content", "text", "content"):
        if isinstance(item, Mapping) and isinstance(item.get(attr), str):
            return item[attr]
    if isinstance(getattr(item, "page_content", None), str):
        return item.page_content
    if callable(getattr(item, "get_content", None)):
        content = item.get_content()
        if content is None:
            return ""  # a node with no text (an image node, a node built with content None): nothing to check against
        if isinstance(content, str):
            return content
        raise InputError(f"A node's get_content() must give text; got {type(content).__name__}.")
    if isinstance(getattr(item, "context", None), str):  # DeepEval's RetrievedContextData
        return item.context
    raise InputError(
        f"A context must be a string, a document with page_content (LangChain), a node (LlamaIndex) "
        f"or a mapping with 'page_content' or 'text'; got {type(item).__name__}."
    )


def contexts_of(value: Any, what: str = "contexts") -> list[str]:
    """The passages to check against, from one text or a list of texts / documents / nodes.
    Empty passages are dropped; none left is an input error."""
    if value is None:
        raise InputError(f"No {what} given: the answer is checked against the documents it was based on; pass them.")
    items: Iterable[Any] = [value] if isinstance(value, str) or not isinstance(value, Iterable) else value
    if isinstance(value, Mapping):
        items = [value]
    # None (a node's missing text as LlamaIndex passes it on) is an empty context, like ""
    texts = [t for t in (_text_of(x) for x in items if x is not None) if t.strip()]
    if not texts:
        raise InputError(f"The {what} are empty: there is nothing to check the answer against.")
    return texts


def content_text(content: Any) -> str | None:
    """The text of a chat message's content: a string, or a list of content blocks (strings and
    ``{"type": "text", "text": ...}`` blocks, as LangChain and OpenAI give them) joined in order as
    LangChain's ``message.text`` joins them; None when the content holds no text (only images,
    tool calls...)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, (list, tuple)):
        return None
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, Mapping) and block.get("type", "text") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "".join(parts) if parts else None


def answer_of(value: Any) -> str:
    """The answer's text: a string, or a chat message / LLM result with ``content`` (a string or
    content blocks), ``text`` or ``response``."""
    if isinstance(value, str):
        return value
    for attr in ("content", "text", "response"):
        got = content_text(getattr(value, attr, None))
        if got is not None:
            return got
    raise InputError(f"The answer must be a string or a message with text content; got {type(value).__name__}.")


class Checker:
    """A hallucheck method loaded once, on first use (thread-safe), and run sync or async.

    ``method``/``llm``/``params`` are those of :func:`hallucheck.load_method`; or pass a built
    ``pipeline``."""

    def __init__(self, method: str | None = None, *, llm: Any = None, pipeline: Any = None, **params: Any) -> None:
        from .. import DEFAULT_METHOD

        if pipeline is not None and (method is not None or llm is not None or params):
            raise InputError("Pass either a built pipeline or method/llm/params, not both.")
        self.method = method or (getattr(pipeline, "name", None) if pipeline is not None else DEFAULT_METHOD)
        self.llm = llm
        self.params = params
        self._pipeline = pipeline
        self._lock = threading.Lock()

    @property
    def pipeline(self) -> Any:
        if self._pipeline is None:
            with self._lock:
                if self._pipeline is None:
                    from .. import load_method

                    self._pipeline = load_method(self.method, llm=self.llm, **self.params)
        return self._pipeline

    def check(self, answer: Any, contexts: Any, question: str | None = None) -> Detection:
        passages = contexts_of(contexts)
        return self.pipeline.run(answer_of(answer), passages, question=question or None)

    async def acheck(self, answer: Any, contexts: Any, question: str | None = None) -> Detection:
        passages = contexts_of(contexts)
        pipeline = self._pipeline or await asyncio.to_thread(lambda: self.pipeline)
        return await pipeline.arun(answer_of(answer), passages, question=question or None)


def findings(det: Detection) -> list[dict[str, Any]]:
    """One entry per claim checked: its text, offsets in the answer (``answer[start:end]``), whether
    it is flagged, its score (hallucheck's: above 0.5 exactly when flagged), label, reason, and its
    evidence: text, the passage (context index) it lies in and the offsets inside that passage
    (``contexts[passage][start:end]``); evidence spanning passages has ``passage`` None and offsets
    into all contexts joined by a blank line."""
    out = []
    for v in det.verdicts:
        evidence = []
        for e in v.evidence:
            inside = e.passage is not None
            evidence.append(
                {
                    "text": e.text,
                    "passage": e.passage,
                    "start": e.passage_start if inside else e.start,
                    "end": e.passage_end if inside else e.end,
                }
            )
        out.append(
            {
                "claim": v.claim.text,
                "start": v.claim.start,
                "end": v.claim.end,
                "hallucinated": v.hallucinated,
                "score": v.score,
                "label": v.label,
                "reason": v.reason,
                "evidence": evidence,
            }
        )
    return out


def grounded_score(det: Detection) -> float | None:
    """The host frameworks' direction (higher is better): ``1 - det.score``, None when unverified."""
    return None if det.score is None or det.hallucinated is None else 1.0 - det.score


def report(det: Detection) -> dict[str, Any]:
    """The JSON-friendly result the integrations return: verdict, both scores, explanation, findings."""
    return {
        "hallucinated": det.hallucinated,
        "score": det.score,
        "grounded_score": grounded_score(det),
        "method": det.method,
        "explanation": explain(det),
        "claims": findings(det),
    }
