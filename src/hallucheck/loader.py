"""Methods by name: the one front door that turns "this method, with this LLM" into a pipeline.

A :class:`MethodSpec` says it: a registered method's name and parameters (or a saved pipeline's
configuration) and a description of its LLM. :meth:`MethodSpec.of` makes one from what a front
end was given (the CLI's ``--method``/``--param``/``--llm`` options, the arguments of
:func:`hallucheck.eval.evaluate`, a service request); :meth:`MethodSpec.build` makes the LLM client
(only when the method uses one) and the method, and returns both with the spec as a
:class:`BuiltMethod`. The spec pickles when its LLM is a description rather than a client object,
so a Ray actor builds exactly what the driver built (:meth:`BuiltMethod.for_workers`).

:func:`load_method` is the one-line form for Python users (``MethodSpec.of(...).build().method``).
:func:`mitigates` answers a question about a method by building it with a scripted LLM (stages load
their models on first use, so this loads nothing and calls no LLM), as
:func:`hallucheck.parameters.parameter_table` does for its parameters. The package's ``__init__``
re-exports :class:`MethodSpec`, :class:`BuiltMethod`, :func:`load_method`, :func:`list_methods`
and :data:`DEFAULT_METHOD`.
"""

from __future__ import annotations

import dataclasses
import json
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Union

from . import registry
from .errors import ConfigError, InputError

if TYPE_CHECKING:
    from .llm.base import LLMClient
    from .pipeline import Pipeline

DEFAULT_METHOD = "ce_cascade"
DEFAULT_MITIGATION_METHOD = "ce_cascade"

# What a front end may give as the LLM: None (the embedded model, when the method uses an LLM),
# "none" (no LLM, for a method that can run without one), a spec string for
# hallucheck.llm.make_llm ("embedded", "openai:MODEL", ...), keyword arguments of make_llm (with
# "spec"), a picklable function that makes a client (tests: a scripted FakeLLM), or a client.
LLMInput = Union[str, "LLMClient", Callable[[], "LLMClient"], Mapping[str, Any], None]
# What a MethodSpec keeps: None (no LLM), "none", make_llm's keyword arguments, a factory, or a
# client object (this process only: it does not pickle).
LLMDescription = Union[Mapping[str, Any], Callable[[], "LLMClient"], str, "LLMClient", None]
# A method as a front end names it: a registered name, or a pipeline the caller built.
MethodInput = Union[str, "Pipeline", None]


def _is_client(llm: object) -> bool:
    return hasattr(llm, "complete") and hasattr(llm, "model_id")


@dataclass(frozen=True)
class MethodSpec:
    """How to build a method: ``method`` (a registry name, e.g. ``"sim_overlap"``) with ``params``,
    or ``config`` (a pipeline's ``to_dict()``); ``llm`` as in :data:`LLMDescription`.

    ``expect`` (optional): the ``to_dict()`` of the method the driver built. :meth:`build`
    refuses to run a method whose configuration differs (a different hallucheck version on a
    cluster node, a parameter that did not travel), since its records would not be the run's.
    ``given``: a pipeline the caller built, which :meth:`build` returns as it is (this process
    only; :meth:`for_workers` leaves it behind and the workers rebuild it from ``config``)."""

    method: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    config: Mapping[str, Any] | None = None
    llm: LLMDescription = None
    expect: Mapping[str, Any] | None = None
    given: Pipeline | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if (self.method is None) == (self.config is None):
            raise ConfigError("MethodSpec needs a method name or a pipeline configuration (one of them).")

    @classmethod
    def of(
        cls,
        method: MethodInput = None,
        *,
        params: Mapping[str, Any] | None = None,
        llm: LLMInput = None,
        llm_options: Mapping[str, Any] | None = None,
    ) -> MethodSpec:
        """The spec of what a front end names. ``method``: a registered name (default
        :data:`DEFAULT_METHOD`; an unknown one fails here with the registry's did-you-mean) or a
        built pipeline (used as it is here; its configuration for workers). ``llm``: ``None`` (the
        embedded model, when the method uses an LLM), ``"none"`` (no LLM, for a method that can run
        without one), a spec string for :func:`hallucheck.llm.make_llm` with ``llm_options``
        (``base_url``, ``timeout``, ...), or a client. A method that uses no LLM gets none,
        whatever ``llm`` says. This is the one place the ``llm`` a front end was given is read."""
        given: Pipeline | None = None
        if method is None or isinstance(method, str):
            found = registry.entry("method", DEFAULT_METHOD if method is None else method)
            name, config, needs = found.qualified, None, found.needs_llm
        else:
            given = method
            name, config, needs = None, method.to_dict(), llm is not None
        description: LLMDescription
        if not needs:
            description = None
        elif llm == "none":
            description = "none"
        elif llm is None or isinstance(llm, str):
            description = {"spec": "embedded" if llm is None else llm, **dict(llm_options or {})}
        else:
            description = llm
        return cls(method=name, params=dict(params or {}), config=config, llm=description, given=given)

    def for_workers(self, built: Pipeline) -> MethodSpec:
        """This spec, to be rebuilt elsewhere: it must pickle (its LLM a description, not a client
        object), and carries ``built.to_dict()`` so that every worker checks it builds the same."""
        if _is_client(self.llm):
            raise InputError(
                "The Ray engine builds the LLM on every actor: give llm as a spec string (with llm_options), not a "
                f"client object ({type(self.llm).__name__}); or pass engine=RayEngine(MethodSpec(..., llm=FACTORY)) "
                "with a picklable function that makes the client.",
                field="llm",
            )
        return dataclasses.replace(self, expect=built.to_dict(), given=None)

    def build_llm(self) -> LLMClient | None:
        """The LLM client the description makes (None for ``None`` and ``"none"``)."""
        llm = self.llm
        if llm is None or isinstance(llm, str):
            if llm not in (None, "none"):
                raise ConfigError(f"MethodSpec.llm must not be a spec string ({llm!r}): use MethodSpec.of(llm=...).")
            return None
        if isinstance(llm, Mapping):
            from .llm import make_llm

            return make_llm(**dict(llm))
        if _is_client(llm):
            return llm  # type: ignore[return-value]
        if callable(llm):
            return llm()
        raise ConfigError(
            f"MethodSpec.llm must be make_llm keyword arguments, a factory, a client, 'none' or None; got {llm!r}."
        )

    def build(self) -> BuiltMethod:
        """The method built here, with its LLM client (None without one) and this spec."""
        if self.given is not None:  # a pipeline the caller built: used as it is
            return BuiltMethod(self.given, self.llm if _is_client(self.llm) else None, self)  # type: ignore[arg-type]
        if self.config is not None:
            from .pipeline import Pipeline

            llm = self.build_llm()
            method = Pipeline.from_dict(self.config, llm=llm)
        else:
            found = registry.entry("method", str(self.method))
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
        return BuiltMethod(method, llm, self)


@dataclass(frozen=True)
class BuiltMethod:
    """What :meth:`MethodSpec.build` makes: ``method`` (the pipeline), ``llm`` (its LLM client, None
    when it runs without one) and ``spec`` (what it was built from)."""

    method: Pipeline
    llm: LLMClient | None
    spec: MethodSpec

    def for_workers(self) -> MethodSpec:
        """The spec to rebuild this method elsewhere (see :meth:`MethodSpec.for_workers`)."""
        return self.spec.for_workers(self.method)


def _embedded() -> LLMClient:
    from .llm import make_llm

    return make_llm("embedded")


def _short(d: Mapping[str, Any]) -> str:
    text = json.dumps(d, sort_keys=True, default=str)
    return text if len(text) <= 300 else text[:299] + "…"


def list_methods() -> list[tuple[str, str]]:
    """(name, one-line summary) of every registered method."""
    return [(e.name, e.summary) for e in registry.available("method")]


def load_method(name: str = DEFAULT_METHOD, *, llm: LLMInput = None, **params: Any) -> Pipeline:
    """A configured method (a :class:`~hallucheck.pipeline.Pipeline`): the one-line form of
    ``MethodSpec.of(name, params=params, llm=llm).build().method``. ``llm`` is a client from
    :func:`hallucheck.llm.make_llm` or a spec string (``"embedded"``, ``"openai:MODEL"``, or ``"none"``
    for no LLM with a method that can run without one, such as the default ``ce_cascade``)."""
    return MethodSpec.of(name, params=params, llm=llm).build().method


# -- aliases of the front door, kept for one release ----------------------------------------------
def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"hallucheck.loader.{old} is deprecated; use {new}.", DeprecationWarning, stacklevel=3)


def resolve(
    method: MethodInput = None,
    *,
    params: Mapping[str, Any] | None = None,
    llm: LLMInput = None,
    llm_options: Mapping[str, Any] | None = None,
) -> tuple[MethodSpec, Pipeline, LLMClient | None]:
    """Deprecated alias (removed in the next release): ``MethodSpec.of(...).build()`` gives the
    method, its LLM and its spec as one :class:`BuiltMethod`."""
    _deprecated("resolve", "MethodSpec.of(...).build()")
    built = MethodSpec.of(method, params=params, llm=llm, llm_options=llm_options).build()
    return built.spec, built.method, built.llm


def method_and_llm(
    method: MethodInput = None,
    *,
    params: Mapping[str, Any] | None = None,
    llm: LLMInput = None,
    llm_options: Mapping[str, Any] | None = None,
) -> tuple[Pipeline, LLMClient | None]:
    """Deprecated alias (removed in the next release) of ``MethodSpec.of(...).build()``."""
    _deprecated("method_and_llm", "MethodSpec.of(...).build()")
    built = MethodSpec.of(method, params=params, llm=llm, llm_options=llm_options).build()
    return built.method, built.llm


def method_spec(
    method: MethodInput,
    pipeline: Pipeline,
    *,
    params: Mapping[str, Any] | None = None,
    llm: LLMInput = None,
    llm_options: Mapping[str, Any] | None = None,
) -> MethodSpec:
    """Deprecated alias (removed in the next release) of ``MethodSpec.of(...).for_workers(pipeline)``."""
    _deprecated("method_spec", "MethodSpec.of(...).build().for_workers()")
    return MethodSpec.of(method, params=params, llm=llm, llm_options=llm_options).for_workers(pipeline)


def spec_from_method(method: Pipeline, llm: LLMDescription = None) -> MethodSpec:
    """Deprecated alias (removed in the next release): the spec of an already built pipeline,
    ``MethodSpec(config=method.to_dict(), llm=llm, expect=method.to_dict())``."""
    _deprecated("spec_from_method", "MethodSpec(config=method.to_dict(), ...)")
    config = method.to_dict()
    return MethodSpec(config=config, llm=llm, expect=config)


# -- questions about a method -------------------------------------------------------------------
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


__all__ = [
    "DEFAULT_METHOD",
    "DEFAULT_MITIGATION_METHOD",
    "BuiltMethod",
    "LLMDescription",
    "LLMInput",
    "MethodInput",
    "MethodSpec",
    "list_methods",
    "load_method",
    "method_and_llm",
    "method_spec",
    "mitigates",
    "resolve",
    "spec_from_method",
]
