"""Component base class, declared parameters, and the four stage interfaces.

A method is a :class:`~hallucheck.pipeline.Pipeline` of four stages: a :class:`ClaimExtractor`
splits the answer into claims, an :class:`EvidenceRetriever` finds evidence for each in the
reference, a :class:`Verifier` judges each claim against its evidence, and an optional
:class:`Mitigator` revises the flagged claims. Each stage is a :class:`Component`: keyword-only
parameters declared in ``parameter_constraints`` and checked at construction, serialised by
``to_dict()`` under the name its registry entry gives it.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Mapping, Sequence

from . import _aio
from .constraints import (
    BOOL,
    NONE,
    POSITIVE_INT,
    TEXT,
    UNIT,
    Constraint,
    InstanceOf,
    Interval,
    ListOf,
    NoOtherValue,
    OneOf,
    Spec,
    check_param,
    choices,
    describe_constraint,
    other_than,
)
from .errors import ConfigError, InputError
from .types import Claim, Detection, Evidence, Mitigation, Verdict

# Texts longer than this are refused with an InputError (split them, or raise the limit).
MAX_TEXT_CHARS = 2_000_000


_INIT_PARAMETERS: dict[type, tuple[list[str], bool]] = {}


def _init_parameters(cls: type) -> tuple[list[str], bool]:
    """``__init__``'s keyword names (not ``self``) and whether it takes ``**kwargs`` (per class, cached)."""
    if cls not in _INIT_PARAMETERS:
        sig = inspect.signature(getattr(cls, "__init__"))  # noqa: B009 (the class's, not an instance's)
        names = [
            n for n, p in sig.parameters.items() if n != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        _INIT_PARAMETERS[cls] = (names, any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()))
    return _INIT_PARAMETERS[cls]


class Component:
    """Plain class with keyword-only parameters stored as given; heavy work is lazy.

    ``to_dict()`` gives ``{"type": registry_name, "params": {...}}``; parameters that are
    components serialise recursively; the LLM client is not a parameter (it is passed as
    ``llm=`` when a configuration is loaded).

    Parameters are declared in :attr:`parameter_constraints` and checked once, when the
    component is constructed (directly, by a method, or from a saved configuration), before the
    class's own ``__init__`` runs: an unknown or misspelt keyword gets a did-you-mean
    :class:`~hallucheck.errors.ConfigError` (not a ``TypeError``), a value outside its declared
    choice, range or type a message that says what is allowed. Checks that relate several
    parameters stay in ``__init__``.
    """

    #: ``{parameter: constraint or tuple of alternatives}``, e.g.
    #: ``{"k": POSITIVE_INT, "threshold": (UNIT, NONE), "measure": OneOf("cosine", "overlap")}``.
    #: Subclasses extend their parent's table (``{**Parent.parameter_constraints, ...}``).
    parameter_constraints: ClassVar[Mapping[str, Spec]] = {}

    #: The languages (ISO 639-1 codes) this component's models know, e.g. ``("en",)`` for a
    #: verifier trained on English; ``None``: any language (rules, LLMs, or it handles languages
    #: itself). ``Pipeline.run`` warns when the answer or the reference is in another language.
    languages: ClassVar[tuple[str, ...] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names, open_ended = _init_parameters(cls)
        stray = sorted(set(cls.parameter_constraints) - set(names))
        if stray and not open_ended:
            raise TypeError(f"{cls.__name__}.parameter_constraints names no parameter of __init__: {', '.join(stray)}")
        init = cls.__dict__.get("__init__")
        if init is None or getattr(init, "_checks_parameters", False):
            return

        @functools.wraps(init)
        def checked_init(self: Any, *args: Any, **params: Any) -> None:
            if type(self).__init__ is checked_init:  # the outermost constructor checks, once
                type(self).check_parameters(params)
            init(self, *args, **params)

        checked_init._checks_parameters = True  # type: ignore[attr-defined]
        cls.__init__ = checked_init  # type: ignore[method-assign]

    @classmethod
    def check_parameters(cls, params: Mapping[str, Any]) -> None:
        """Check keyword parameters against ``__init__``'s names and :attr:`parameter_constraints`."""
        names, open_ended = _init_parameters(cls)
        if not open_ended:
            for key in params:
                if key not in names:
                    from .registry import unknown_param_message

                    raise ConfigError(unknown_param_message(cls.__name__, key, names))
        for key, spec in cls.parameter_constraints.items():
            if key in params:
                check_param(cls.__name__, key, params[key], spec)

    @classmethod
    def parameter_table(cls) -> list[dict[str, Any]]:
        """One row per ``__init__`` parameter (the LLM client excepted): ``name``, ``default``
        (or the string ``"required"``) and ``allowed`` (the declared constraint in words, ``""`` if
        none is declared)."""
        rows = []
        for name, p in inspect.signature(cls.__init__).parameters.items():
            if name in ("self", "llm") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            spec = cls.parameter_constraints.get(name)
            rows.append(
                {
                    "name": name,
                    "default": "required" if p.default is p.empty else p.default,
                    "allowed": describe_constraint(spec) if spec is not None else "",
                }
            )
        return rows

    @property
    def registry_name(self) -> str:
        """The registered ``name.vN`` of this component's class (see
        :func:`hallucheck.registry.name_of`), or ``""`` when the class is not registered."""
        from . import registry

        return registry.name_of(type(self)) or ""

    def get_params(self) -> dict[str, Any]:
        """The constructor's parameters (not ``llm``) with their current values."""
        params = {}
        for name, p in inspect.signature(type(self).__init__).parameters.items():
            if name in ("self", "llm") or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                continue
            params[name] = getattr(self, name)
        return params

    def to_dict(self) -> dict[str, Any]:
        """``{"type": registry_name, "params": {...}}``, rebuilt by :meth:`hallucheck.pipeline.Pipeline.from_dict`."""

        def plain(v: Any) -> Any:
            if isinstance(v, Component):
                return v.to_dict()
            if isinstance(v, (list, tuple)):
                return [plain(x) for x in v]
            return v

        return {
            "type": self.registry_name or type(self).__name__,
            "params": {k: plain(v) for k, v in self.get_params().items()},
        }

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({inner})"


def check_text(value: Any, field: str, *, allow_empty: bool = False, need_words: bool = False) -> str:
    """Validate a user text: a non-empty ``str`` within the size limit (``need_words``: with
    at least one letter or digit, i.e. something a claim could be made of)."""
    if isinstance(value, bytes):
        raise InputError(
            f"The {field} must be text (str), not bytes: decode it first (e.g. value.decode('utf-8')).", field=field
        )
    if not isinstance(value, str):
        raise InputError(f"The {field} must be a string; got {type(value).__name__}.", field=field)
    if not allow_empty and not value.strip():
        raise InputError(
            f"The {field} is empty: give the text to check (it has no non-whitespace characters).", field=field
        )
    if len(value) > MAX_TEXT_CHARS:
        raise InputError(
            f"The {field} has {len(value):,} characters, more than the limit of {MAX_TEXT_CHARS:,}. "
            "Split it into parts and check each, or raise hallucheck.base.MAX_TEXT_CHARS.",
            field=field,
        )
    if need_words and not allow_empty and not any(ch.isalnum() for ch in value):
        shown = value if len(value) <= 40 else value[:40] + "…"
        raise InputError(
            f"The {field} has no letters or digits ({shown!r}): there is nothing to check. "
            f"Give the {field} text itself.",
            field=field,
        )
    return value


class ClaimExtractor(Component, ABC):
    """Stage 1: the checkable claims of an answer (sentences, semantic pieces, triplets...).

    Each :class:`~hallucheck.types.Claim` has offsets into the answer: ``answer[start:end]`` is
    the claim's text, or the sentence a rewritten claim came from. When an LLM reply about a
    sentence does not parse, the extractor should still emit a claim for it with ``meta["error"]``
    (as ``hsp_pieces`` does) so that the verifier reports an error verdict rather than the claim
    vanishing or the whole detection failing."""

    @abstractmethod
    def extract(self, answer: str, *, question: str | None = None) -> list[Claim]:
        """Return the claims of ``answer`` with offsets into it."""


class EvidenceRetriever(Component, ABC):
    """Stage 2: for each claim, the parts of the reference to judge it against.

    Returns one list per claim, in claim order (possibly empty); each
    :class:`~hallucheck.types.Evidence` has offsets into the reference and, when ranked, a
    similarity ``score`` (higher = more similar)."""

    @abstractmethod
    def retrieve(self, claims: Sequence[Claim], reference: str, *, question: str | None = None) -> list[list[Evidence]]:
        """Return, for each claim, candidate evidence with offsets into ``reference``."""


def require_llm(llm: Any, who: str, hint: str = "") -> Any:
    """``llm``, or the one "needs an LLM" error of every stage that asks one (``who`` names the
    stage; ``hint`` is added to what to do)."""
    if llm is None:
        raise ConfigError(f"{who} needs an LLM: pass llm= (e.g. hallucheck.llm.make_llm('embedded')){hint}.")
    return llm


_LLM_REQUIRED: dict[tuple[str, type], bool] = {}


def llm_required(kind: str, cls: type) -> bool:
    """True when the registry entry of ``kind`` class ``cls`` says it needs an LLM and cannot run
    without one (``needs_llm`` and not ``llm_optional``); False for a class with no entry."""
    if (kind, cls) not in _LLM_REQUIRED:
        from . import registry

        name = registry.name_of(cls)
        if name is None:  # not registered (yet): not cached, it may be registered later
            return False
        found = registry.entry(kind, name)
        _LLM_REQUIRED[(kind, cls)] = found.needs_llm and not found.llm_optional
    return _LLM_REQUIRED[(kind, cls)]


class Verifier(Component, ABC):
    """Stage 3: one :class:`~hallucheck.types.Verdict` per claim, in claim order.

    A verdict's ``score`` is in [0, 1] (higher = more likely hallucinated) or ``None``;
    :meth:`Pipeline.run <hallucheck.pipeline.Pipeline.run>` puts it on the decision scale (above
    0.5 exactly when flagged, :func:`decision_score`), so a verifier with its own threshold should
    rescale with :func:`decision_score` itself to keep its ranking exact. When the
    verifier cannot judge a claim (a reply that does not parse after repair and retry, a failed
    backend) the verdict has ``status="error"``, no label and no score: nothing is guessed, and
    :meth:`aggregate` never calls such an answer grounded.

    **Preconditions, checked once here:** every subclass's ``verify`` is wrapped (when the class
    is defined) so that :meth:`check_inputs` runs before it: evidence for as many claims as there
    are, and an LLM when the verifier's registry entry needs one and cannot run without it; no
    claims get no verdicts without the subclass's ``verify`` being called. A subclass writes only
    the judging; it never assigns to its own sub-components in ``verify``
    (one verifier serves many threads)."""

    # its judging is a local model's forward pass: in async code (Pipeline.arun) it runs in the
    # event loop's executor, not on the loop (models/ wraps the shared models the same way)
    local_model: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("verify")
        if own is None or getattr(own, "__isabstractmethod__", False) or getattr(own, "_checked", False):
            return

        @functools.wraps(own)
        def verify(
            self: Verifier, claims: Sequence[Claim], evidence: Sequence[Sequence[Evidence]], **kw: Any
        ) -> list[Verdict]:
            self.check_inputs(claims, evidence)
            if not claims:
                return []  # no claims, no verdicts: the judging is not asked
            verdicts: list[Verdict] = (
                _aio.blocking(own, self, claims, evidence, **kw)
                if self.local_model
                else own(self, claims, evidence, **kw)
            )
            return verdicts

        verify._checked = True  # type: ignore[attr-defined]
        cls.verify = verify  # type: ignore[method-assign]

    def check_inputs(self, claims: Sequence[Claim], evidence: Sequence[Sequence[Evidence]]) -> None:
        """Raise :class:`~hallucheck.errors.ConfigError` when ``evidence`` is not one list per
        claim, or when the verifier needs an LLM (:func:`llm_required`) and has none."""
        if len(evidence) != len(claims):
            raise ConfigError(
                f"The retriever returned evidence for {len(evidence)} claims but {len(claims)} were extracted: "
                "a retriever must return one evidence list per claim, in claim order."
            )
        if getattr(self, "llm", None) is None and llm_required("verifier", type(self)):
            from . import registry

            require_llm(None, f"The {registry.name_of(type(self))} verifier")

    @abstractmethod
    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str = "",
    ) -> list[Verdict]:
        """Return one verdict per claim."""

    def aggregate(self, verdicts: Sequence[Verdict]) -> tuple[bool | None, float | None]:
        """Response-level label and score. Default: any flagged claim; score = max claim score."""
        return aggregate_any(verdicts)


def scored_verdict(
    claim: Claim,
    score: float,
    flagged: bool,
    reason: str,
    evidence: Sequence[Evidence],
    meta: Mapping[str, Any] | None = None,
    *,
    raw: str | None = None,
) -> Verdict:
    """The verdict of a verifier that scores a claim against a threshold: ``unverifiable`` when
    ``flagged``, else ``supported``, the score also as ``meta["verifier_score"]`` (what the
    combination and the reports read) beside the verifier's own ``meta``."""
    return Verdict(
        claim,
        "unverifiable" if flagged else "supported",
        flagged,
        score,
        reason,
        tuple(evidence),
        raw=raw,
        meta={"stage": "verifier", "verifier_score": score, **(meta or {})},
    )


def decision_score(score: float, hallucinated: bool | None, threshold: float | None = None) -> float:
    """hallucheck's one meaning of ``score`` (of a claim or an answer): how likely it is
    hallucinated, in [0, 1], **above 0.5 exactly when the verdict flags it** (0.5 itself is
    grounded). Every method's scores go through this rule: :meth:`Pipeline.run
    <hallucheck.pipeline.Pipeline.run>` applies it to each verdict and to the answer.

    ``threshold`` is the verifier's own decision point on its raw ``score`` (a claim is flagged
    from there up), when it has one: the raw score is then rescaled piecewise linearly so that
    ``threshold`` lands on 0.5 -- a monotone map, so rankings (AUROC, AUPRC) are unchanged. A
    score still on the wrong side of 0.5 for its verdict (a verifier with no single threshold, or
    exactly at it) is moved just past 0.5 on its verdict's side, keeping its order among such
    scores: a flagged one into [0.505, 0.51], a grounded one into (0.495, 0.5]. ``hallucinated``
    ``None`` (not verified) leaves the score as it is."""
    s = min(1.0, max(0.0, float(score)))
    if threshold is not None and threshold != 0.5:
        t = min(1.0, max(0.0, float(threshold)))
        if s < t:
            s = 0.5 * s / t
        else:
            s = 0.5 + 0.5 * (s - t) / (1.0 - t) if t < 1.0 else 0.5
    if hallucinated is True and s <= 0.5:
        return 0.505 + 0.01 * s
    if hallucinated is False and s > 0.5:
        return 0.49 + 0.01 * s
    return s


def on_decision_scale(verdict: Verdict) -> Verdict:
    """``verdict`` with its score put on the decision scale (:func:`decision_score`); when that
    changes it, the verifier's own score is kept in ``meta["raw_score"]``."""
    if verdict.status != "ok" or verdict.score is None or verdict.hallucinated is None:
        return verdict
    score = decision_score(verdict.score, verdict.hallucinated)
    if score == verdict.score:
        return verdict
    return dataclasses.replace(verdict, score=score, meta={**verdict.meta, "raw_score": verdict.score})


def aggregate_any(verdicts: Sequence[Verdict]) -> tuple[bool | None, float | None]:
    """Any flagged claim flags the answer; with none flagged but some errors the answer is
    unverified (``None``); the score is the highest claim score."""
    ok = [v for v in verdicts if v.status == "ok"]
    scores = [v.score for v in ok if v.score is not None]
    score = max(scores) if scores else (None if verdicts else 0.0)
    if any(v.hallucinated for v in ok):
        return True, score
    if len(ok) < len(verdicts):
        return None, score
    return False, score


class Mitigator(Component, ABC):
    """Stage 4 (optional): revise an answer's flagged claims.

    Returns a :class:`~hallucheck.types.Mitigation` whose ``edits`` are offsets into the
    original answer; :meth:`hallucheck.pipeline.Pipeline.mitigate` re-checks the revision with the
    same detector. What the mitigator tried and could not do goes in ``notes``."""

    @abstractmethod
    def mitigate(self, detection: Detection) -> Mitigation:
        """Revise ``detection.answer`` so that flagged claims are fixed or removed.

        The returned Mitigation's ``after`` is filled in by the pipeline (re-check)."""


__all__ = [
    "BOOL",
    "NONE",
    "POSITIVE_INT",
    "TEXT",
    "UNIT",
    "MAX_TEXT_CHARS",
    "ClaimExtractor",
    "Component",
    "Constraint",
    "EvidenceRetriever",
    "InstanceOf",
    "Interval",
    "ListOf",
    "Mitigator",
    "NoOtherValue",
    "OneOf",
    "Spec",
    "Verifier",
    "aggregate_any",
    "check_param",
    "check_text",
    "choices",
    "decision_score",
    "describe_constraint",
    "llm_required",
    "on_decision_scale",
    "other_than",
    "require_llm",
]
