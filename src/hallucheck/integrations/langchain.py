"""LangChain: a Runnable that checks a chain's answer against the documents it retrieved, and a
callback handler that does the same for a chain you do not change.

``pip install ".[langchain]"`` in the repository (langchain-core). Put it after the step that produced
the answer, the LangChain way::

    chain = RunnablePassthrough.assign(answer=answer_chain) | RunnablePassthrough.assign(check=HallucheckRunnable())

Its input is the chain's dict: ``answer`` (a string or a chat message), ``context`` (the
retrieved ``Document`` list, or strings) and optionally ``question`` (the key names are
parameters). Its output is :func:`hallucheck.integrations.common.report` of the detection:
``hallucinated``, ``score`` (hallucheck's, above 0.5 exactly when flagged), ``grounded_score``,
``explanation`` and ``claims`` (each claim's offsets in the answer and its evidence's offsets in
the document it came from). ``ainvoke`` / ``abatch`` run detections concurrently
(:meth:`hallucheck.pipeline.Pipeline.arun`); ``batch`` uses LangChain's thread pool.

``HallucheckCallbackHandler`` watches a run instead (``chain.invoke(x, config={"callbacks":
[handler]})``): the documents every retriever in the run returns are collected for the run, and
each LLM or chat-model output that follows is checked against them; the reports (as above, with
``run_id`` of the LLM call, ``root_run_id`` of the whole run and the ``answer``) are appended to
``handler.results`` and passed to ``on_result`` if given. An output with no retrieved documents
before it in its run is not checked. ``raise_error=True`` makes a flagged answer raise
:class:`HallucinationFound` from the callback, which LangChain propagates to the caller.

The classes are built on first use, so importing this module does not import LangChain.
"""

from __future__ import annotations

import threading
from typing import Any

from .common import Checker, content_text, report, require

__all__ = ["HallucheckRunnable", "HallucheckCallbackHandler", "HallucinationFound"]  # noqa: F822 (built on first use)

_built: dict[str, type] = {}


def _build() -> type:
    runnables = require("langchain_core.runnables", "langchain", "langchain-core (for the LangChain integration)")

    class HallucheckRunnable(runnables.Runnable):
        """Check ``input[answer_key]`` against ``input[context_key]`` (documents or strings) with a
        hallucheck method; returns the report dict (see the module docstring).

        ``method``, ``llm`` and extra keyword parameters go to :func:`hallucheck.load_method`
        (the method loads on first use); ``llm="none"`` runs the default ``ce_cascade`` with no
        LLM. ``pipeline=`` takes a method you built. ``include_detection=True`` adds the
        :class:`~hallucheck.types.Detection` object under ``"detection"``."""

        def __init__(
            self,
            method: str | None = None,
            *,
            llm: Any = None,
            pipeline: Any = None,
            answer_key: str = "answer",
            context_key: str = "context",
            question_key: str | None = "question",
            include_detection: bool = False,
            **params: Any,
        ) -> None:
            self.checker = Checker(method, llm=llm, pipeline=pipeline, **params)
            self.answer_key = answer_key
            self.context_key = context_key
            self.question_key = question_key
            self.include_detection = include_detection

        @property
        def InputType(self) -> type:  # noqa: N802 (LangChain's name)
            return dict

        @property
        def OutputType(self) -> type:  # noqa: N802
            return dict

        def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
            base = name or f"hallucheck[{self.checker.method}]"
            return f"{base}{suffix}" if suffix else base

        def _fields(self, input: Any) -> tuple[Any, Any, str | None]:
            from ..errors import InputError

            if not isinstance(input, dict):
                raise InputError(
                    f"HallucheckRunnable takes a dict with {self.answer_key!r} and {self.context_key!r} "
                    f"(the answer and the documents it was based on); got {type(input).__name__}."
                )
            missing = [k for k in (self.answer_key, self.context_key) if k not in input]
            if missing:
                raise InputError(
                    f"HallucheckRunnable's input lacks {', '.join(map(repr, missing))} (it has "
                    f"{', '.join(map(repr, input)) or 'no keys'}); set answer_key= / context_key= to the names "
                    "your chain uses."
                )
            question = input.get(self.question_key) if self.question_key else None
            return input[self.answer_key], input[self.context_key], question if isinstance(question, str) else None

        def _out(self, det: Any) -> dict[str, Any]:
            out = report(det)
            if self.include_detection:
                out["detection"] = det
            return out

        def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> dict[str, Any]:
            return self._call_with_config(lambda x: self._out(self.checker.check(*self._fields(x))), input, config)

        async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> dict[str, Any]:
            async def run(x: Any) -> dict[str, Any]:
                return self._out(await self.checker.acheck(*self._fields(x)))

            return await self._acall_with_config(run, input, config)

    return HallucheckRunnable


class HallucinationFound(Exception):
    """Raised by ``HallucheckCallbackHandler(raise_error=True)`` when an answer is flagged; ``report``
    holds the findings (see :func:`hallucheck.integrations.common.report`)."""

    def __init__(self, report: dict[str, Any]) -> None:
        super().__init__(report["explanation"])
        self.report = report


class _Runs:
    """What a callback handler keeps of the runs it watches, by run tree (a run and the runs it
    starts): the parent of each run, the documents the tree's retrievers returned and the question
    it was asked. LangChain calls a handler from several threads, hence the lock."""

    def __init__(self) -> None:
        self.parent: dict[Any, Any] = {}
        self.documents: dict[Any, list[Any]] = {}
        self.questions: dict[Any, str] = {}
        self.lock = threading.Lock()

    def started(self, run_id: Any, parent_run_id: Any, inputs: Any = None) -> None:
        """A run started; a whole run's question is taken from its inputs (``question``, ``input``
        or ``query``)."""
        with self.lock:
            self.parent.setdefault(run_id, parent_run_id)
        if parent_run_id is None and isinstance(inputs, dict):
            question = next((inputs[k] for k in ("question", "input", "query") if isinstance(inputs.get(k), str)), None)
            if question:
                self.questions[run_id] = question

    def llm_ended(self, run_id: Any, parent_run_id: Any) -> tuple[Any, list[Any] | None]:
        """An LLM call ended: the root of its run and the documents retrieved in it so far."""
        root = self.root(run_id)
        documents = self.documents.get(root)
        if parent_run_id is None:  # the LLM call was the whole run
            with self.lock:
                self.parent.pop(run_id, None)
        return root, documents

    def root(self, run_id: Any) -> Any:
        with self.lock:
            return self._root_locked(run_id)

    def retrieved(self, run_id: Any, documents: Any) -> None:
        root = self.root(run_id)
        with self.lock:
            self.documents.setdefault(root, []).extend(documents)

    def ended(self, run_id: Any, parent_run_id: Any) -> None:
        """A chain ended or failed: when it was a whole run, forget the run."""
        if parent_run_id is None:
            self.forget(run_id)

    def forget(self, root: Any) -> None:
        """The run is over: drop its documents, question and run tree."""
        with self.lock:
            self.documents.pop(root, None)
            self.questions.pop(root, None)
            ended = [r for r in self.parent if self._root_locked(r) == root]
            for r in ended:
                self.parent.pop(r, None)

    def _root_locked(self, run_id: Any) -> Any:
        while self.parent.get(run_id) is not None:
            run_id = self.parent[run_id]
        return run_id


def _output_text(response: Any) -> str | None:
    """The text of an LLM result's first generation (a chat message's content may be a string or a
    list of content blocks: text, images, tool calls), or None."""
    generation = response.generations[0][0] if response.generations and response.generations[0] else None
    message = getattr(generation, "message", None)
    return content_text(message.content if message is not None else getattr(generation, "text", None))


def _build_handler() -> type:
    callbacks = require("langchain_core.callbacks", "langchain", "langchain-core (for the LangChain integration)")

    class HallucheckCallbackHandler(callbacks.BaseCallbackHandler):
        """Check each LLM output of a run against the documents the run retrieved before it.
        ``method``/``llm``/``pipeline``/params as for :class:`HallucheckRunnable`."""

        def __init__(
            self,
            method: str | None = None,
            *,
            llm: Any = None,
            pipeline: Any = None,
            on_result: Any = None,
            raise_error: bool = False,
            **params: Any,
        ) -> None:
            self.checker = Checker(method, llm=llm, pipeline=pipeline, **params)
            self.on_result = on_result
            self.raise_error = raise_error  # LangChain's flag: re-raise what a handler raises (HallucinationFound)
            self.results: list[dict[str, Any]] = []
            self.runs = _Runs()

        def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: Any, parent_run_id: Any = None, **kw: Any):
            self.runs.started(run_id, parent_run_id, inputs)

        def on_retriever_start(self, serialized: Any, query: str, *, run_id: Any, parent_run_id: Any = None, **kw: Any):
            self.runs.started(run_id, parent_run_id)

        def on_llm_start(self, serialized: Any, prompts: Any, *, run_id: Any, parent_run_id: Any = None, **kw: Any):
            self.runs.started(run_id, parent_run_id)

        def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: Any, parent_run_id: Any = None, **kw):
            self.runs.started(run_id, parent_run_id)

        def on_retriever_end(self, documents: Any, *, run_id: Any, parent_run_id: Any = None, **kw: Any) -> None:
            self.runs.retrieved(run_id, documents)

        def on_llm_end(self, response: Any, *, run_id: Any, parent_run_id: Any = None, **kw: Any) -> None:
            root, documents = self.runs.llm_ended(run_id, parent_run_id)
            if not documents:
                return  # nothing retrieved in this run before the answer: nothing to check against
            answer = _output_text(response)
            if answer is None or not answer.strip():
                return  # no text in the output (a tool call, an image): nothing to check
            det = self.checker.check(answer, documents, self.runs.questions.get(root))
            found = {**report(det), "answer": answer, "run_id": run_id, "root_run_id": root}
            self.results.append(found)
            if self.on_result is not None:
                self.on_result(found)
            if self.raise_error and det.hallucinated:
                raise HallucinationFound(found)

        def on_chain_end(self, outputs: Any, *, run_id: Any, parent_run_id: Any = None, **kw: Any) -> None:
            self.runs.ended(run_id, parent_run_id)

        def on_chain_error(self, error: BaseException, *, run_id: Any, parent_run_id: Any = None, **kw: Any) -> None:
            self.runs.ended(run_id, parent_run_id)

    return HallucheckCallbackHandler


def __getattr__(name: str) -> Any:
    builders = {"HallucheckRunnable": _build, "HallucheckCallbackHandler": _build_handler}
    if name in builders:
        if name not in _built:
            _built[name] = builders[name]()
        return _built[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
