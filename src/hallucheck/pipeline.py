"""Pipeline: extractor -> retriever -> verifier (-> mitigator, re-checked)."""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import contextvars
import time
from typing import Any, Callable, Iterable, Mapping, Sequence

from . import _aio, registry
from .base import (
    ClaimExtractor,
    Component,
    EvidenceRetriever,
    Mitigator,
    Verifier,
    check_text,
    decision_score,
    on_decision_scale,
)
from .errors import ConfigError, HallucheckError
from .llm.base import LLMClient, usage_scope
from .registry import build_component
from .telemetry import record_detection
from .text.lang import UNDETERMINED, detect_language, language_name, language_scope
from .text.passages import SEP as PASSAGE_SEP
from .text.passages import Passages, check_passages
from .types import Detection, Mitigation

ON_ERROR = ("raise", "record")


def _field(item: Any, name: str, default: Any = None) -> Any:
    if isinstance(item, Mapping):
        return item.get(name, default)
    return getattr(item, name, default)


def item_reference(item: Any) -> Any:
    """The reference of a batch item: its ``contexts`` / ``passages`` list when it has one (a
    mapping key, or ``meta["passages"]`` of an :class:`~hallucheck.eval.Example`), else ``reference``."""
    for key in ("contexts", "passages"):
        value = _field(item, key)
        if value is not None:
            return value
    meta = _field(item, "meta")
    if isinstance(meta, Mapping) and meta.get("passages") is not None:
        return meta["passages"]
    return _field(item, "reference")


def item_arguments(item: Any) -> dict[str, Any]:
    """What :meth:`Pipeline.run` is given for one batch item (a mapping or an object): its
    ``answer``, reference (:func:`item_reference`), ``question`` and ``id``."""
    return {
        "answer": _field(item, "answer"),
        "reference": item_reference(item),
        "question": _field(item, "question"),
        "id": _field(item, "id"),
    }


_KINDS = (
    (ClaimExtractor, "claim extractor"),
    (EvidenceRetriever, "retriever"),
    (Verifier, "verifier"),
    (Mitigator, "mitigator"),
)


def _stages(component: Any, seen: set[int] | None = None) -> Iterable[Component]:
    """``component`` and every component among its parameters, depth first, each once."""
    seen = set() if seen is None else seen
    if not isinstance(component, Component) or id(component) in seen:
        return
    seen.add(id(component))
    yield component
    for value in component.get_params().values():
        for v in value if isinstance(value, (list, tuple)) else (value,):
            yield from _stages(v, seen)


def _names(codes: Sequence[str]) -> str:
    names = [language_name(c).split(" (")[0] for c in codes]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def language_warnings(stages: Iterable[Component], answer_lang: str, reference_lang: str) -> list[str]:
    """What a user should know about the languages of a check: a stage whose models know only
    other languages (its ``languages`` attribute), and an answer and a reference in two languages."""
    warnings = []
    texts = [x for x in dict.fromkeys((answer_lang, reference_lang)) if x != UNDETERMINED]
    for stage in stages:
        known = stage.languages
        if known is None:
            continue
        foreign = [x for x in texts if x not in known]
        if not foreign:
            continue
        kind = next((label for cls, label in _KINDS if isinstance(stage, cls)), "stage")
        name = stage.registry_name or type(stage).__name__
        warnings.append(
            f"The {kind} {name} was trained on {_names(known)}; results for "
            f"{' and '.join(language_name(x) for x in foreign)} are unreliable."
        )
    if UNDETERMINED not in (answer_lang, reference_lang) and answer_lang != reference_lang:
        warnings.append(
            f"The answer is in {language_name(answer_lang)} and the reference in {language_name(reference_lang)}: "
            "claims are compared across languages, so matching words, names and numbers is unreliable."
        )
    return warnings


def no_mitigator_message(name: str) -> str:
    """Why method ``name`` cannot repair: it repairs only with an LLM and was loaded without one
    ("repairing needs an LLM"), or it has no mitigator at all."""
    try:
        found = registry.entry("method", name)
    except HallucheckError:
        found = None
    if found is not None and found.mitigates and found.needs_llm:
        return (
            f"Method {name!r} was loaded without an LLM (--llm none), and repairing needs an LLM: it rewrites "
            "the flagged claims with one. Run with an LLM (--llm embedded, or --llm openai:MODEL --base-url URL) "
            "to repair; without one, only detection runs."
        )
    return (
        f"Method {name!r} has no mitigator. Use a method that mitigates (tagged [mitigates] by `hallucheck methods`)."
    )


class Pipeline(Component):
    """A method: stages wired together. Build one yourself or get one with :func:`hallucheck.load_method`."""

    registry_name = "pipeline"

    def __init__(
        self,
        *,
        extractor: ClaimExtractor,
        retriever: EvidenceRetriever,
        verifier: Verifier,
        mitigator: Mitigator | None = None,
        name: str = "custom",
        llm: LLMClient | None = None,
    ) -> None:
        for label, obj, cls in (
            ("extractor", extractor, ClaimExtractor),
            ("retriever", retriever, EvidenceRetriever),
            ("verifier", verifier, Verifier),
        ):
            if not isinstance(obj, cls):
                raise ConfigError(f"Pipeline {label} must be a {cls.__name__}; got {type(obj).__name__}.")
        if mitigator is not None and not isinstance(mitigator, Mitigator):
            raise ConfigError(f"Pipeline mitigator must be a Mitigator; got {type(mitigator).__name__}.")
        self.extractor = extractor
        self.retriever = retriever
        self.verifier = verifier
        self.mitigator = mitigator
        self.name = name
        self.llm = llm

    # -- detection --------------------------------------------------------------------------
    def run(
        self, answer: str, reference: str | Sequence[str], *, question: str | None = None, id: str | None = None
    ) -> Detection:
        """Detect unsupported claims of ``answer`` against ``reference``: a text, or a list of
        passages (the stages see them joined by a blank line; each evidence then carries
        ``passage`` and offsets inside that passage, and the Detection keeps ``passages``)."""
        check_text(answer, "answer", need_words=True)
        joined = None
        if isinstance(reference, (list, tuple)):
            joined = Passages(check_passages(reference))
            reference = joined.text
        check_text(reference, "reference", need_words=True)
        if question is not None and not isinstance(question, str):
            raise ConfigError(f"The question must be a string or None; got {type(question).__name__}.")
        t0 = time.perf_counter()
        languages = {"answer": detect_language(answer), "reference": detect_language(reference)}
        with usage_scope() as tally, language_scope(languages["answer"], languages["reference"]):
            claims = self.extractor.extract(answer, question=question)
            evidence = self.retriever.retrieve(claims, reference, question=question)
            verdicts = self.verifier.verify(claims, evidence, reference=reference, question=question, answer=answer)
            # one meaning of score across methods: above 0.5 exactly when flagged (base.decision_score)
            verdicts = [on_decision_scale(v) for v in verdicts]
            hallucinated, score = self.verifier.aggregate(verdicts)
        if score is not None and hallucinated is not None:
            score = decision_score(score, hallucinated)
        if joined is not None:
            verdicts = [joined.verdict(v) for v in verdicts]
        meta: dict[str, Any] = {"seconds": time.perf_counter() - t0, "language": languages}
        warnings = language_warnings(self.stages(), languages["answer"], languages["reference"])
        # what a stage says about how far its verdicts can be trusted here (once per detection)
        warnings += list(dict.fromkeys(v.meta["warning"] for v in verdicts if v.meta.get("warning")))
        if warnings:
            meta["warnings"] = warnings
        if not claims:
            # nothing was checked, so nothing can be called grounded: "0 of 0 claims" is no verdict
            meta["note"] = "The answer has no checkable claims: nothing was verified."
            meta["no_claims"] = True
            hallucinated, score = None, None
        det = Detection(
            answer=answer,
            reference=reference,
            question=question,
            method=self.name,
            hallucinated=hallucinated,
            score=score,
            verdicts=tuple(verdicts),
            usage=tally.usage,
            id=id,
            meta=meta,
            passages=joined.passages if joined is not None else None,
        )
        record_detection(det)  # the otel extra: a gen_ai.evaluation.result event (hallucheck.telemetry)
        return det

    def run_batch(
        self,
        items: Iterable[Any],
        *,
        on_error: str = "record",
        workers: int = 1,
        progress: Callable[[Detection], None] | None = None,
    ) -> list[Detection]:
        """Run over items (mappings or objects with ``answer``, ``reference`` — a text or a list
        of passages, or a ``contexts`` / ``passages`` list instead — and optional ``question``,
        ``id``). With ``on_error="record"`` a failing item becomes a Detection
        with ``status="error"`` and the error message; the others complete. Results keep the
        input order; ``progress`` is called as each finishes."""
        if on_error not in ON_ERROR:
            raise ConfigError(f"on_error must be one of {', '.join(ON_ERROR)}; got {on_error!r}.")
        items = list(items)

        def one(item: Any) -> Detection:
            try:
                return self.run(**item_arguments(item))
            except Exception as exc:
                if on_error == "raise":
                    raise
                return self.error_detection(item, exc)

        results: list[Detection | None] = [None] * len(items)
        if workers <= 1:
            for i, item in enumerate(items):
                results[i] = one(item)
                if progress:
                    progress(results[i])
        else:
            with cf.ThreadPoolExecutor(max_workers=workers) as pool:
                futures = {pool.submit(contextvars.copy_context().run, one, item): i for i, item in enumerate(items)}
                for fut in cf.as_completed(futures):
                    results[futures[fut]] = fut.result()
                    if progress:
                        progress(results[futures[fut]])
        return results  # type: ignore[return-value]

    async def arun(
        self, answer: str, reference: str | Sequence[str], *, question: str | None = None, id: str | None = None
    ) -> Detection:
        """:meth:`run` for async code, without a thread per detection: the stages run on the event
        loop's thread (in a greenlet, :mod:`hallucheck._aio`), and where they wait they await: a
        request to an OpenAI-compatible endpoint goes out through ``httpx`` on the loop, a local
        model's forward pass or another backend's request runs in the loop's default executor.
        Several ``arun`` calls awaited together therefore have their requests in flight together.
        Same result, errors and usage as :meth:`run`. Without the ``async`` extra (``greenlet``,
        ``httpx``) the detection runs in a worker thread instead."""
        return await _aio.run(self.run, answer, reference, question=question, id=id)

    async def arun_batch(
        self, items: Iterable[Any], *, on_error: str = "record", concurrency: int = 4
    ) -> list[Detection]:
        """:meth:`run_batch` for async code: at most ``concurrency`` items run at once (each an
        :meth:`arun`); results keep the input order; ``on_error`` as in :meth:`run_batch`."""
        if on_error not in ON_ERROR:
            raise ConfigError(f"on_error must be one of {', '.join(ON_ERROR)}; got {on_error!r}.")
        if not isinstance(concurrency, int) or concurrency < 1:
            raise ConfigError(f"concurrency must be a whole number >= 1; got {concurrency!r}.")
        gate = asyncio.Semaphore(concurrency)

        async def one(item: Any) -> Detection:
            async with gate:
                try:
                    return await self.arun(**item_arguments(item))
                except Exception as exc:
                    if on_error == "raise":
                        raise
                    return self.error_detection(item, exc)

        return list(await asyncio.gather(*(one(item) for item in items)))

    def error_detection(self, item: Any, exc: BaseException) -> Detection:
        def text(name: str) -> str:
            v = item_reference(item) if name == "reference" else _field(item, name, "")
            if name == "reference" and isinstance(v, (list, tuple)) and all(isinstance(p, str) for p in v):
                return PASSAGE_SEP.join(v)
            return v if isinstance(v, str) else repr(v)

        kind = "" if isinstance(exc, HallucheckError) else f"{type(exc).__name__}: "
        det = Detection(
            answer=text("answer"),
            reference=text("reference"),
            question=_field(item, "question"),
            method=self.name,
            hallucinated=None,
            score=None,
            status="error",
            error=f"{kind}{exc}",
            id=_field(item, "id"),
        )
        record_detection(det)
        return det

    def stages(self) -> list[Component]:
        """The pipeline's stages and the components inside them (each once)."""
        seen: set[int] = {id(self)}
        return [
            c for stage in (self.extractor, self.retriever, self.verifier, self.mitigator) for c in _stages(stage, seen)
        ]

    # -- mitigation -------------------------------------------------------------------------
    def mitigate(self, answer: str, reference: str | Sequence[str], *, question: str | None = None) -> Mitigation:
        """Detect, revise the flagged claims, and re-check the revision with the same detector.

        Contradicted figures are repaired from the reference first (no LLM), then the mitigator
        revises what is still flagged; a revision is kept only under the repair contract
        (:func:`hallucheck.stages.repair_contract.repair_answer`), else ``notes`` say why not."""
        from dataclasses import replace

        from .stages.repair_contract import repair_answer

        if self.mitigator is None:
            raise ConfigError(no_mitigator_message(self.name))
        with usage_scope() as tally:
            before = self.run(answer, reference, question=question)
            if not before.flagged:
                return Mitigation(answer, answer, (), before, before, before.usage)
            result = repair_answer(
                before,
                self.mitigator,
                lambda text: self.run(text, reference, question=question) if any(ch.isalnum() for ch in text) else None,
            )
        return replace(result, usage=tally.usage)

    async def amitigate(
        self, answer: str, reference: str | Sequence[str], *, question: str | None = None
    ) -> Mitigation:
        """:meth:`mitigate` for async code, run as :meth:`arun` runs a detection."""
        return await _aio.run(self.mitigate, answer, reference, question=question)

    # -- configuration ----------------------------------------------------------------------
    def get_params(self) -> dict[str, Any]:
        return {
            "extractor": self.extractor,
            "retriever": self.retriever,
            "verifier": self.verifier,
            "mitigator": self.mitigator,
            "name": self.name,
        }

    @classmethod
    def from_dict(cls, config: Mapping[str, Any], *, llm: LLMClient | None = None) -> "Pipeline":
        """Rebuild a pipeline saved with ``to_dict()``; LLM-backed stages get ``llm``.

        Each stage goes through the same checks as a constructed one: an unknown stage type or a
        misspelt parameter name gets a did-you-mean :class:`~hallucheck.errors.ConfigError`, a
        value outside its declared range or choices a message saying what is allowed."""
        if not isinstance(config, Mapping) or config.get("type") != "pipeline":
            got = config.get("type") if isinstance(config, Mapping) else type(config).__name__
            raise ConfigError(f"Not a pipeline configuration (type={got!r}).")
        params = config.get("params") or {}
        if not isinstance(params, Mapping):
            raise ConfigError(f"A pipeline configuration's 'params' is a mapping; got {type(params).__name__}.")
        allowed = ["extractor", "retriever", "verifier", "mitigator", "name"]
        for key in params:
            if key not in allowed:
                raise ConfigError(registry.unknown_param_message("pipeline", key, allowed))
        stages: dict[str, Any] = {}
        for key in ("extractor", "retriever", "verifier", "mitigator"):
            spec = params.get(key)
            stages[key] = None if spec is None else build_component(key, spec, llm=llm)
        return cls(name=params.get("name", "custom"), llm=llm, **stages)
