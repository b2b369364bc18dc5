"""The parameters of a method or component, as data: what ``hallucheck methods --params NAME``
prints (:mod:`hallucheck.cli.methods` renders it).

A method's table lists its own parameters (their defaults, and what is allowed, from the stage that
declares a parameter of the same name), then each stage of the pipeline it builds, with the values it
builds it with. The method is built with a scripted LLM (stages load their models on first use, so
this loads nothing and calls no LLM). Whether a method parameter reaches a stage built without an
LLM is found by building the method again with another legal value of it
(:func:`hallucheck.constraints.other_than`), never by reading the constraint's words.
"""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass
from typing import Any, Mapping

from . import registry
from .constraints import InstanceOf, NoOtherValue, Spec, describe_constraint, other_than
from .errors import ConfigError

STAGE_KINDS = ("extractor", "retriever", "verifier", "mitigator")


@dataclass(frozen=True)
class Parameter:
    """One row of a parameter table: ``value`` is the default (of a method or component) or the value a
    method builds a stage with; ``constraint`` what is declared for it (None: nothing)."""

    name: str
    value: Any = None
    constraint: Spec | None = None
    required: bool = False

    @property
    def allowed(self) -> str:
        """The declared constraint in words (``""`` when none is declared)."""
        return describe_constraint(self.constraint) if self.constraint is not None else ""


@dataclass(frozen=True)
class StageParameters:
    """A stage of a method's pipeline: its ``kind``, registered ``name`` (or class name), class and rows."""

    kind: str
    name: str
    cls: str
    parameters: tuple[Parameter, ...]


@dataclass(frozen=True)
class ParameterTable:
    """What ``hallucheck methods --params NAME`` shows: the entry (``kind``, ``qualified`` name,
    ``summary``), its own ``parameters`` (a method's: only those that reach a stage when
    ``without_llm``), a method's ``stages`` as it builds them, and, for a method that also runs without
    an LLM and is shown with one, the stages it builds differently without one (``stages_without_llm``)."""

    kind: str
    name: str
    qualified: str
    summary: str
    parameters: tuple[Parameter, ...]
    stages: tuple[StageParameters, ...] = ()
    without_llm: bool = False
    stages_without_llm: tuple[StageParameters, ...] = ()


def _signature_rows(factory: Any, values: Mapping[str, Any] | None = None) -> tuple[Parameter, ...]:
    """A class's or factory's keyword parameters (not ``llm``), with its declared constraints."""
    init = getattr(factory, "__init__") if isinstance(factory, type) else factory  # noqa: B009
    declared: Mapping[str, Spec] = getattr(factory, "parameter_constraints", {})
    rows = []
    for key, p in inspect.signature(init).parameters.items():
        if key in ("self", "llm") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        required = p.default is p.empty and (values is None or key not in values)
        value = values[key] if values is not None and key in values else (None if required else p.default)
        rows.append(Parameter(key, value, declared.get(key), required))
    return tuple(rows)


def _stages(pipe: Any) -> list[tuple[str, Any]]:
    return [(k, s) for k in STAGE_KINDS if (s := getattr(pipe, k, None)) is not None]


def _stage_table(kind: str, stage: Any, *, without_llm: bool) -> StageParameters:
    rows = _signature_rows(type(stage), stage.get_params())
    if without_llm:
        skip = getattr(type(stage), "llm_parameters", ())
        rows = tuple(r for r in rows if r.name not in skip)
    return StageParameters(kind, registry.name_of(stage) or type(stage).__name__, type(stage).__name__, rows)


def _what_runs(pipe: Any) -> dict[str, Any]:
    """Each stage's configuration without the parameters it declares as its LLM's."""
    out = {}
    for kind, stage in _stages(pipe):
        config = stage.to_dict()
        skip = getattr(type(stage), "llm_parameters", ())
        out[kind] = {**config, "params": {k: v for k, v in (config.get("params") or {}).items() if k not in skip}}
    return out


def _reaches_a_stage(factory: Any, row: Parameter, base: dict[str, Any]) -> bool:
    """Whether changing method parameter ``row`` changes the pipeline built without an LLM: a
    parameter the stages built without one never see does not run (e.g. ce_cascade's judge band
    with --llm none). When no other value can be named or building with it fails, it counts."""
    try:
        other = other_than(row.constraint or InstanceOf(type(row.value)), row.value)
    except NoOtherValue:
        return True
    try:
        return _what_runs(factory(llm=None, **{row.name: other})) != base
    except Exception:
        return True


def parameter_table(name: str, *, llm: str | None = None) -> ParameterTable:
    """The parameters of a method or component (``name`` or ``kind:name``), as data.

    For a method: its own parameters (default, and what is allowed, from the stage that declares a
    parameter of the same name), then each stage of the pipeline it builds (with the values it builds
    them with; built with a scripted LLM, so nothing loads). ``llm="none"`` describes what runs
    without an LLM: the pipeline the method builds without one, only the method parameters that
    reach it, and no stage parameter a component declares as its LLM's (``llm_parameters``)."""
    found = registry.find(name)
    factory = found.load()
    head = (found.kind, found.name, found.qualified, found.summary)
    if found.kind != "method":
        return ParameterTable(*head, parameters=_signature_rows(factory))
    from .llm.fake import FakeLLM

    without_llm = llm == "none"
    if without_llm and not found.runs_without_llm:
        raise ConfigError(
            f"Method {found.name!r} needs an LLM, so nothing of it runs with --llm none; drop --llm to see its parameters."
        )
    pipe = factory(llm=None if without_llm else FakeLLM())
    stages = _stages(pipe)
    declared: dict[str, Spec] = {}
    for _, stage in stages:
        for key, spec in getattr(type(stage), "parameter_constraints", {}).items():
            declared.setdefault(key, spec)
    own = tuple(dataclasses.replace(r, constraint=declared.get(r.name)) for r in _signature_rows(factory))
    if without_llm:
        base = _what_runs(pipe)
        own = tuple(r for r in own if r.required or _reaches_a_stage(factory, r, base))
    differ: tuple[StageParameters, ...] = ()
    if not without_llm and found.needs_llm and found.llm_optional:
        with_llm = {k: registry.name_of(s) for k, s in stages}
        differ = tuple(
            _stage_table(k, s, without_llm=True)
            for k, s in _stages(factory(llm=None))
            if with_llm.get(k) != registry.name_of(s)
        )
    return ParameterTable(
        *head,
        parameters=own,
        stages=tuple(_stage_table(k, s, without_llm=without_llm) for k, s in stages),
        without_llm=without_llm,
        stages_without_llm=differ,
    )


__all__ = ["STAGE_KINDS", "Parameter", "ParameterTable", "StageParameters", "parameter_table"]
