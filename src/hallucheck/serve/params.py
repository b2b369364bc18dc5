"""Which method parameters a request may set: the operator decides, the client chooses among what is allowed.

A request's ``params`` may hold only values that cannot name anything outside the process:
numbers (thresholds, counts), booleans, ``null``, short lists of numbers (a band), and strings
that are one of a parameter's declared choices (``"flag_on": "ungrounded"``, ``"gate":
"numbers"``). A string any other parameter takes -- a model directory or hub id
(``model``, ``embedder``, ``entity_model``, ``combine``), a prompt name -- is refused with the
one 422 shape, whatever its value: a client must not make the server read a path it chose,
contact a model hub, or load another copy of a model. Those parameters are fixed by the operator
at ``serve`` start (``--set METHOD.PARAM=VALUE``), and so are the methods a request may name
(``--methods``).

The declared choices are read from the stages a method builds (as ``hallucheck methods
--params`` does: built with a scripted LLM, so nothing loads).
"""

from __future__ import annotations

import inspect
import math
import threading
from typing import Any

from ..constraints import InstanceOf, OneOf, alternatives_of
from ..errors import InputError

MAX_LIST = 16  # longest list of numbers a request parameter may be

_choices: dict[str, dict[str, tuple[Any, ...]]] = {}
_free: dict[str, frozenset[str]] = {}
_lock = threading.Lock()


def declared_choices(method: str) -> dict[str, tuple[Any, ...]]:
    """``{param: choices}`` for each parameter a stage of ``method`` declares as an enumeration."""
    with _lock:
        if method in _choices:
            return _choices[method]
    from ..llm.fake import FakeLLM
    from ..registry import entry

    found: dict[str, tuple[Any, ...]] = {}
    free: set[str] = set()
    try:
        pipe = entry("method", method).load()(llm=FakeLLM())
    except Exception:  # a method that cannot be built here: no string parameter is allowed
        pipe = None
    stages = [getattr(pipe, k, None) for k in ("extractor", "retriever", "verifier", "mitigator")]
    for stage in stages:
        for name, spec in (getattr(type(stage), "parameter_constraints", None) or {}).items():
            alts = alternatives_of(spec)
            named = tuple(v for c in alts if isinstance(c, OneOf) for v in c.choices() if isinstance(v, str))
            free_text = any(isinstance(c, InstanceOf) and str in c.types for c in alts)
            if named and not free_text:  # an enumeration (numbers and None are checked by type)
                found.setdefault(name, named)
            elif free_text:
                free.add(name)
    with _lock:
        _choices[method] = found
        _free[method] = frozenset(free)
    return found


def free_text(method: str, factory: Any) -> frozenset[str]:
    """The parameters of ``method`` that take free text (a path, a model id, a prompt name): a stage
    declares them as strings, or the method's default is a string that is not a declared choice."""
    choices = declared_choices(method)
    names = set(_free.get(method, ()))
    try:
        defaults = {n: p.default for n, p in inspect.signature(factory).parameters.items()}
    except (TypeError, ValueError):  # pragma: no cover - builtins
        defaults = {}
    names.update(n for n, d in defaults.items() if isinstance(d, str) and d and n not in choices)
    return frozenset(names)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def refusal(name: str, why: str) -> InputError:
    return InputError(f"params.{name}: {why}", field=f"params.{name}")


def check_request_params(method: str, params: dict[str, Any], fixed: dict[str, Any]) -> None:
    """Raise :class:`InputError` (``field="params.NAME"``) unless every request parameter is one a
    client may set. ``fixed``: the operator's values for this method (never overridden)."""
    from ..registry import entry

    factory = entry("method", method).load()
    try:
        known = [n for n in inspect.signature(factory).parameters if n not in ("self", "llm")]
    except (TypeError, ValueError):  # pragma: no cover - builtins
        known = []
    for name, value in params.items():
        if name == "llm":
            raise InputError(
                "The LLM is the server's (hallucheck serve --llm ...); it is not a method parameter.",
                field="params.llm",
            )
        if name in fixed:
            raise refusal(name, f"is set by the server's operator for {method!r}; a request cannot change it.")
        if known and name not in known:
            continue  # the method's own check names it with a did-you-mean
        if name in free_text(method, factory):
            raise fixed_by_operator(method, name)
        if value is None or isinstance(value, bool) or _number(value):
            continue
        if isinstance(value, float):  # NaN, inf
            raise refusal(name, f"must be a finite number; got {value!r}.")
        if isinstance(value, list) and len(value) <= MAX_LIST and all(_number(v) for v in value):
            continue
        choices = declared_choices(method).get(name)
        if isinstance(value, str) and choices is not None:
            if value in choices:
                continue
            raise refusal(name, f"must be one of {', '.join(map(str, choices))}; got {value!r}.")
        raise fixed_by_operator(method, name)


def fixed_by_operator(method: str, name: str) -> InputError:
    """The refusal of a parameter a request may not set: the same answer whatever the value."""
    return refusal(
        name,
        "only numbers, true/false, null and the declared choices of a parameter may be set by a request. "
        "A parameter that names a path, a URL or a model id is fixed by the server's operator "
        f"(hallucheck serve --set {method}.{name}=VALUE).",
    )


def parse_setting(text: str) -> tuple[str, str, Any]:
    """``METHOD.PARAM=VALUE`` -> ``(method, param, value)``; VALUE is JSON when it parses, else the string."""
    import json

    key, sep, raw = text.partition("=")
    method, dot, param = key.strip().partition(".")
    if not sep or not dot or not method or not param:
        raise InputError(
            f"--set {text!r}: expected METHOD.PARAM=VALUE, e.g. ce_cascade.model=/srv/verifier", field="set"
        )
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return method, param.strip(), value
