"""Methods by name: the one place that turns "this method, with this LLM" into a pipeline.

A :class:`MethodSpec` says it: a registered method's name and parameters (or a saved pipeline's
configuration) and a description of its LLM. :meth:`MethodSpec.of` makes one from what a front
end was given (the CLI's ``--method``/``--param``/``--llm`` options, the arguments of
:func:`load_method` or :func:`hallucheck.eval.evaluate`, a service request); :meth:`MethodSpec.build`
makes the LLM client (only when the method uses one) and the method. The spec pickles when its
LLM is a description rather than a client object, so a Ray actor builds exactly what the driver
built (:meth:`MethodSpec.for_workers`). :func:`mitigates` and :func:`describe_parameters` answer
questions about a method by building it with a scripted LLM (stages load their models on first
use, so this loads nothing and calls no LLM). The package's ``__init__`` re-exports
:func:`load_method`, :func:`list_methods` and :data:`DEFAULT_METHOD`.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from . import registry
from .errors import ConfigError, InputError

DEFAULT_METHOD = "ce_cascade"
DEFAULT_MITIGATION_METHOD = "ce_cascade"

# An LLM description: keyword arguments of hallucheck.llm.make_llm (with "spec"), a picklable
# function that makes a client (tests: a scripted FakeLLM), "none" (a method run without its
# optional LLM), None (no LLM; for a registered method that uses one: the embedded model), or a
# client object (this process only: it does not pickle).
LLMDescription = Mapping[str, Any] | Callable[[], Any] | str | None


def _is_client(llm: Any) -> bool:
    return hasattr(llm, "complete") and hasattr(llm, "model_id")


@dataclass(frozen=True)
class MethodSpec:
    """How to build a method: ``method`` (a registry name, e.g. ``"sim_overlap"``) with ``params``,
    or ``config`` (a pipeline's ``to_dict()``); ``llm`` as in :data:`LLMDescription`.

    ``expect`` (optional): the ``to_dict()`` of the method the driver built. :meth:`build`
    refuses to run a method whose configuration differs (a different hallucheck version on a
    cluster node, a parameter that did not travel), since its records would not be the run's."""

    method: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    config: Mapping[str, Any] | None = None
    llm: Any = None
    expect: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if (self.method is None) == (self.config is None):
            raise ConfigError("MethodSpec needs a method name or a pipeline configuration (one of them).")

    @classmethod
    def of(
        cls,
        method: Any = None,
        *,
        params: Mapping[str, Any] | None = None,
        llm: Any = None,
        llm_options: Mapping[str, Any] | None = None,
    ) -> "MethodSpec":
        """The spec of what a front end names. ``method``: a registered name (default
        :data:`DEFAULT_METHOD`; an unknown one fails here with the registry's did-you-mean) or a
        built pipeline (its configuration). ``llm``: ``None`` (the embedded model, when the method
        uses an LLM), ``"none"`` (no LLM, for a method that can run without one), a spec string for
        :func:`hallucheck.llm.make_llm` with ``llm_options`` (``base_url``, ``timeout``, ...), or a
        client. A method that uses no LLM gets none, whatever ``llm`` says."""
        if method is None:
            method = DEFAULT_METHOD
        if isinstance(method, str):
            found = registry.entry("method", method)
            name, config, needs = found.qualified, None, found.needs_llm
        else:
            name, config, needs = None, method.to_dict(), llm is not None
        if not needs:
            description: Any = None
        elif llm == "none":
            description = "none"
        elif llm is None or isinstance(llm, str):
            description = {"spec": "embedded" if llm is None else llm, **dict(llm_options or {})}
        else:
            description = llm
        return cls(method=name, params=dict(params or {}), config=config, llm=description)

    def for_workers(self, built: Any) -> "MethodSpec":
        """This spec, to be rebuilt elsewhere: it must pickle (its LLM a description, not a client
        object), and carries ``built.to_dict()`` so that every worker checks it builds the same."""
        if _is_client(self.llm):
            raise InputError(
                "The Ray engine builds the LLM on every actor: give llm as a spec string (with llm_options), not a "
                f"client object ({type(self.llm).__name__}); or pass engine=RayEngine(MethodSpec(..., llm=FACTORY)) "
                "with a picklable function that makes the client.",
                field="llm",
            )
        return dataclasses.replace(self, expect=built.to_dict())

    def build_llm(self) -> Any:
        """The LLM client the description makes (None for ``None`` and ``"none"``)."""
        if self.llm is None or self.llm == "none":
            return None
        if _is_client(self.llm):
            return self.llm
        if callable(self.llm):
            return self.llm()
        if isinstance(self.llm, Mapping):
            from .llm import make_llm

            return make_llm(**dict(self.llm))
        raise ConfigError(
            f"MethodSpec.llm must be make_llm keyword arguments, a factory, a client, 'none' or None; got {self.llm!r}."
        )

    def build(self) -> tuple[Any, Any]:
        """(method, llm): the method built here, and its LLM client (None without one)."""
        if self.config is not None:
            from .pipeline import Pipeline

            llm = self.build_llm()
            method = Pipeline.from_dict(self.config, llm=llm)
        else:
            found = registry.entry("method", self.method)  # type: ignore[arg-type]
            if self.llm == "none" and not found.runs_without_llm:
                optional = sorted(e.name for e in registry.available("method") if e.needs_llm and e.llm_optional)
                raise ConfigError(
                    f"Method {found.name!r} needs an LLM; llm='none' works only with methods that can run "
                    f"without one ({', '.join(optional)}) or need none (see `hallucheck methods`)."
                )
            llm = None
            if found.needs_llm and self.llm != "none":
                llm = self.build_llm() if self.llm is not None else _embedded()
            method = registry.create("method", found.qualified, llm=llm, **dict(self.params))
        if self.expect is not None:
            got = method.to_dict()
            if got != self.expect:
                raise ConfigError(
                    "The method built on this worker differs from the driver's (is the same hallucheck version "
                    f"installed everywhere?): driver {_short(self.expect)}, worker {_short(got)}."
                )
        return method, llm


def _embedded() -> Any:
    from .llm import make_llm

    return make_llm("embedded")


def _short(d: Mapping[str, Any]) -> str:
    text = json.dumps(d, sort_keys=True, default=str)
    return text if len(text) <= 300 else text[:299] + "…"


def spec_from_method(method: Any, llm: LLMDescription = None) -> MethodSpec:
    """The spec of an already built pipeline, from its saved configuration."""
    config = method.to_dict()
    return MethodSpec(config=config, llm=llm, expect=config)


def list_methods() -> list[tuple[str, str]]:
    """(name, one-line summary) of every registered method."""
    return [(e.name, e.summary) for e in registry.available("method")]


def load_method(name: str = DEFAULT_METHOD, *, llm: Any = None, **params: Any) -> Any:
    """A configured method (a :class:`~hallucheck.pipeline.Pipeline`). ``llm`` is a client from
    :func:`hallucheck.llm.make_llm` or a spec string (``"embedded"``, ``"openai:MODEL"``, or ``"none"``
    for no LLM with a method that can run without one, such as the default ``ce_cascade``)."""
    return MethodSpec.of(name, params=params, llm=llm).build()[0]


def resolve(
    method: Any = None,
    *,
    params: Mapping[str, Any] | None = None,
    llm: Any = None,
    llm_options: Mapping[str, Any] | None = None,
) -> tuple[MethodSpec, Any, Any]:
    """(spec, pipeline, LLM client or None) for ``method`` (a registered name, or a pipeline the
    caller built, used as it is), with ``params``, ``llm`` and ``llm_options`` as in
    :meth:`MethodSpec.of`: what the CLI, :func:`hallucheck.eval.evaluate` and the service build."""
    spec = MethodSpec.of(method, params=params, llm=llm, llm_options=llm_options)
    if method is not None and not isinstance(method, str):  # a pipeline built by the caller
        return spec, method, (llm if _is_client(llm) else None)
    return (spec, *spec.build())


def method_and_llm(
    method: Any = None,
    *,
    params: Mapping[str, Any] | None = None,
    llm: Any = None,
    llm_options: Mapping[str, Any] | None = None,
) -> tuple[Any, Any]:
    """(pipeline, LLM client or None): :func:`resolve` without the spec."""
    _, pipeline, client = resolve(method, params=params, llm=llm, llm_options=llm_options)
    return pipeline, client


def method_spec(
    method: Any,
    pipeline: Any,
    *,
    params: Mapping[str, Any] | None = None,
    llm: Any = None,
    llm_options: Mapping[str, Any] | None = None,
) -> MethodSpec:
    """The picklable spec of what :func:`method_and_llm` built from the same arguments: a Ray actor
    rebuilds ``pipeline`` from it (and checks that it gets the same configuration)."""
    return MethodSpec.of(method, params=params, llm=llm, llm_options=llm_options).for_workers(pipeline)


def mitigates(name: str) -> bool:
    """True when method ``name``'s pipeline has a mitigator (``hallucheck mitigate`` works with it).

    Read from the entry when its registration says; otherwise from the method itself, built with a
    scripted LLM (stages load models lazily, so this loads nothing and calls no LLM). A method that
    cannot be built so counts as not mitigating."""
    found = registry.entry("method", name)
    if found.mitigates is not None:
        return found.mitigates
    from .llm.fake import FakeLLM

    try:
        return getattr(registry.create("method", found.qualified, llm=FakeLLM()), "mitigator", None) is not None
    except Exception:
        return False


def _rows(rows: list[tuple[str, str, str]], indent: str) -> list[str]:
    if not rows:
        return [f"{indent}(no parameters)"]
    w1 = max(len(r[0]) for r in rows)
    w2 = max(len(r[1]) for r in rows)
    return [f"{indent}{a:<{w1}}  {b:<{w2}}  {c}".rstrip() for a, b, c in rows]


def _signature_table(factory: Any) -> list[dict[str, Any]]:
    """A factory function's parameters (no declared constraints: its components check them)."""
    rows = []
    for key, p in inspect.signature(factory).parameters.items():
        if key in ("self", "llm") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        rows.append({"name": key, "default": "required" if p.default is p.empty else p.default, "allowed": ""})
    return rows


def _component_rows(obj: Any, values: dict[str, Any] | None = None) -> list[tuple[str, str, str]]:
    table = obj.parameter_table() if hasattr(obj, "parameter_table") else _signature_table(obj)
    out = []
    for row in table:
        value = values.get(row["name"], row["default"]) if values is not None else row["default"]
        if hasattr(value, "to_dict"):
            shown = f"<{registry.name_of(value) or type(value).__name__}>"
        else:
            shown = "required" if isinstance(value, str) and value == "required" else repr(value)
        out.append((row["name"], shown, row["allowed"]))
    return out


def _other_value(default: Any, allowed: str) -> Any:
    """A legal value different from ``default`` (to see whether a method parameter reaches any
    stage), or a sentinel when none can be told from the default and the allowed text."""
    if isinstance(default, bool):
        return not default
    if isinstance(default, int):
        return default + 1
    if isinstance(default, float):
        return round(default * 0.5 + 0.01, 4)
    choices = re.match(r"one of (.+)", allowed)
    if choices:
        others = [c.strip() for c in choices.group(1).split(",") if c.strip() != str(default)]
        if others:
            return others[0]
    if allowed.startswith("a number") or "of numbers" in allowed:
        return 0.37 if "pair" not in allowed else [0.3, 0.4]
    if allowed.startswith("a positive integer") or allowed.startswith("a non-negative integer"):
        return 7
    if isinstance(default, str):
        return default + "-other"
    return _UNKNOWN


_UNKNOWN = object()


def _reaches_a_stage(factory: Any, llm: Any, key: str, default: Any, allowed: str, base: dict) -> bool:
    """Whether changing method parameter ``key`` changes the pipeline built with ``llm``: a
    parameter the stages built without an LLM never see does not run (e.g. ce_cascade's judge
    band with --llm none). When no other value can be tried or building with it fails, it counts."""
    other = _other_value(default, allowed)
    if other is _UNKNOWN:
        return True
    try:
        return _what_runs(factory(llm=llm, **{key: other})) != base
    except Exception:
        return True


def _what_runs(pipe: Any) -> dict[str, Any]:
    """Each stage's configuration without the parameters it declares as its LLM's."""
    out = {}
    for kind in ("extractor", "retriever", "verifier", "mitigator"):
        stage = getattr(pipe, kind, None)
        if stage is None:
            continue
        config = stage.to_dict()
        skip = getattr(type(stage), "llm_parameters", ())
        out[kind] = {**config, "params": {k: v for k, v in (config.get("params") or {}).items() if k not in skip}}
    return out


def describe_parameters(name: str, *, llm: str | None = None) -> str:
    """The parameter table of a method or component, as ``hallucheck methods --params NAME`` prints it.

    For a method: its own parameters (default, and what is allowed, read from the stage that
    declares a parameter of the same name), then each stage of the pipeline it builds (with
    the values it builds them with; built with a scripted LLM, so nothing loads). For a
    component (``name`` or ``kind:name``): its declared table.

    ``llm="none"`` shows what runs without an LLM: the pipeline the method builds without one
    (ce_cascade: no judge's retriever, no mitigator), only the method parameters that reach
    it, and no stage parameter a component declares as its LLM's (``llm_parameters``)."""
    found = registry.find(name)
    factory = found.load()
    lines = [f"{found.kind} {found.qualified}: {found.summary}".rstrip()]
    if found.kind != "method":
        lines += _rows(_component_rows(factory), "  ")
        return "\n".join(lines)
    from .llm.fake import FakeLLM

    no_llm = llm == "none"
    if no_llm and not found.runs_without_llm:
        raise ConfigError(
            f"Method {found.name!r} needs an LLM, so nothing of it runs with --llm none; drop --llm to see its parameters."
        )
    client = None if no_llm else FakeLLM()
    pipe = factory(llm=client)
    stages = [(k, getattr(pipe, k, None)) for k in ("extractor", "retriever", "verifier", "mitigator")]
    stages = [(k, s) for k, s in stages if s is not None]
    declared: dict[str, str] = {}
    for _, stage in stages:
        for row in type(stage).parameter_table() if hasattr(stage, "parameter_table") else ():
            if row["allowed"]:
                declared.setdefault(row["name"], row["allowed"])
    own = []
    base = _what_runs(pipe) if no_llm else None
    for key, p in inspect.signature(factory).parameters.items():
        if key == "llm" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        allowed = declared.get(key, "")
        if no_llm and p.default is not p.empty and not _reaches_a_stage(factory, None, key, p.default, allowed, base):
            continue
        default = "required" if p.default is p.empty else repr(p.default)
        own.append((key, default, allowed))
    where = " with --llm none" if no_llm else ""
    lines.append(f"  method parameters{where} (--param NAME=VALUE; load_method({found.name!r}, NAME=VALUE)):")
    lines += _rows(own, "    ")
    for kind, stage in stages:
        label = registry.name_of(stage) or type(stage).__name__
        lines.append(f"  {kind} {label} ({type(stage).__name__}), as this method builds it{where}:")
        rows = _component_rows(type(stage), stage.get_params())
        if no_llm:
            rows = [r for r in rows if r[0] not in getattr(type(stage), "llm_parameters", ())]
        lines += _rows(rows, "    ")
    if no_llm:
        lines.append(
            "  (without an LLM the only repair is of contradicted figures, from the reference; run with --llm "
            "to see the LLM's parameters and its repair)"
        )
    return "\n".join(lines)


__all__ = [
    "DEFAULT_METHOD",
    "DEFAULT_MITIGATION_METHOD",
    "LLMDescription",
    "MethodSpec",
    "describe_parameters",
    "list_methods",
    "load_method",
    "method_and_llm",
    "method_spec",
    "mitigates",
    "resolve",
    "spec_from_method",
]
