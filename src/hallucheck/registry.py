"""Named, versioned components and methods.

Entries are registered as lazy ``"module:attr"`` strings so that listing methods imports
nothing heavy. Names are ``snake_case``; a version is addressed as ``name.vN``; the bare name
means the newest version.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import re
from dataclasses import dataclass
from typing import Any, Callable

from .errors import ConfigError

KINDS = ("method", "extractor", "retriever", "verifier", "mitigator", "generator")


@dataclass(frozen=True)
class Entry:
    kind: str
    name: str
    version: int
    target: str | Callable[..., Any]
    summary: str = ""

    @property
    def qualified(self) -> str:
        return f"{self.name}.v{self.version}"

    def load(self) -> Any:
        if callable(self.target):
            return self.target
        module, _, attr = self.target.partition(":")
        obj: Any = importlib.import_module(module)
        for part in attr.split("."):
            obj = getattr(obj, part)
        return obj


_ENTRIES: dict[str, dict[str, dict[int, Entry]]] = {k: {} for k in KINDS}
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def register(kind: str, name: str, target: str | Callable[..., Any], *, version: int = 1, summary: str = "") -> Entry:
    if kind not in _ENTRIES:
        raise ConfigError(f"Unknown registry kind {kind!r}; use one of {', '.join(KINDS)}.")
    if not _NAME.match(name):
        raise ConfigError(f"Registry names are snake_case (got {name!r}).")
    entry = Entry(kind, name, version, target, summary)
    _ENTRIES[kind].setdefault(name, {})[version] = entry
    return entry


def _split(name: str) -> tuple[str, int | None]:
    m = re.match(r"^(.*)\.v(\d+)$", name)
    return (m.group(1), int(m.group(2))) if m else (name, None)


def entry(kind: str, name: str) -> Entry:
    """Look up an entry; unknown names get a did-you-mean error listing what exists."""
    _ensure_builtins()
    base, version = _split(name)
    versions = _ENTRIES[kind].get(base)
    if not versions:
        known = sorted(_ENTRIES[kind])
        close = difflib.get_close_matches(base, known, n=1, cutoff=0.5)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ConfigError(f"Unknown {kind} {name!r}.{hint} Available: {', '.join(known) or '(none)'}.")
    if version is None:
        return versions[max(versions)]
    if version not in versions:
        have = ", ".join(f"{base}.v{v}" for v in sorted(versions))
        raise ConfigError(f"{kind} {base!r} has no version {version}. Available: {have}.")
    return versions[version]


def get(kind: str, name: str) -> Any:
    return entry(kind, name).load()


def available(kind: str) -> list[Entry]:
    _ensure_builtins()
    return [versions[max(versions)] for _, versions in sorted(_ENTRIES[kind].items())]


def create(kind: str, name: str, /, **params: Any) -> Any:
    """Instantiate a registered component or method, checking parameter names first."""
    factory = get(kind, name)
    _check_params(factory, name, params)
    return factory(**params)


def _check_params(factory: Callable[..., Any], name: str, params: dict[str, Any]) -> None:
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return
    allowed = [p for p in sig.parameters if p != "self"]
    for key in params:
        if key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.5)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"{name!r} has no parameter {key!r}.{hint} Parameters: {', '.join(allowed)}.")
        _check_bool(name, key, sig.parameters[key].annotation, params[key])


_BOOL = {"bool", "bool | None", "None | bool", "Optional[bool]", bool}


def _check_bool(name: str, key: str, annotation: Any, value: Any) -> None:
    """A parameter annotated ``bool`` takes True or False only (``bool | None``: or None): the
    string "False" is truthy, and was once read as True."""
    if annotation not in _BOOL or isinstance(value, bool):
        return
    if value is None and annotation != "bool" and annotation is not bool:
        return
    raise ConfigError(f"The {key!r} parameter of {name!r} must be true or false; got {value!r}.")


_loaded = False


def _ensure_builtins() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        importlib.import_module("hallucheck._builtins")
