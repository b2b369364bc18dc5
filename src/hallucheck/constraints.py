"""Declared parameters: the allowed forms of a component's parameter values.

A component lists, per parameter, a :class:`Constraint` or a tuple of alternatives in its
``parameter_constraints`` (:class:`hallucheck.base.Component`); the values are checked once, at
construction, and ``hallucheck methods --params NAME`` prints the table. Besides checking a value
and saying what it accepts, a constraint answers :meth:`Constraint.choices` (its legal values, when
they are few) and :meth:`Constraint.other_than` (a legal value different from a given one), so a
caller never reads the description's words. :mod:`hallucheck.base` re-exports every name here.
"""

from __future__ import annotations

import numbers
from typing import Any, Mapping

from .errors import ConfigError


class NoOtherValue(LookupError):
    """Raised by :meth:`Constraint.other_than` when no legal value other than the given one can be named."""


class Constraint:
    """One allowed form of a parameter value. A component declares, per parameter, a constraint
    or a tuple of alternatives (any one accepting the value is enough); see
    :attr:`Component.parameter_constraints`."""

    def accepts(self, value: Any) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def choices(self) -> tuple[Any, ...] | None:
        """Every legal value, when there are few (a choice, true or false); ``None`` otherwise."""
        return None

    def candidates(self, value: Any) -> list[Any]:
        """Values to try, in order, for :meth:`other_than` (some may be illegal or equal ``value``)."""
        return list(self.choices() or ())

    def other_than(self, value: Any) -> Any:
        """A legal value different from ``value`` (e.g. to see whether a parameter changes
        anything); :class:`NoOtherValue` when none can be named."""
        for candidate in self.candidates(value):
            if self.accepts(candidate) and not _same(candidate, value):
                return candidate
        raise NoOtherValue(f"no value other than {value!r} is {self.describe()}")

    def __repr__(self) -> str:
        return f"<{self.describe()}>"


class Interval(Constraint):
    """A number (``kind=float``: int or float; ``kind=int``: int only) in ``[low, high]``
    (``None``: unbounded on that side). Booleans are never numbers here."""

    def __init__(self, kind: type, low: float | None = None, high: float | None = None) -> None:
        if kind not in (int, float):
            raise TypeError("Interval kind is int or float")
        self.kind, self.low, self.high = kind, low, high

    def accepts(self, value: Any) -> bool:
        if isinstance(value, bool):
            return False
        if not isinstance(value, numbers.Integral if self.kind is int else numbers.Real):
            return False
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)

    def describe(self) -> str:
        if self.kind is int:
            if self.low == 1 and self.high is None:
                return "a positive integer"
            if self.low == 0 and self.high is None:
                return "a non-negative integer"
            if self.high is None:
                return "an integer" if self.low is None else f"an integer >= {self.low:g}"
            return (
                f"an integer in [{self.low:g}, {self.high:g}]"
                if self.low is not None
                else f"an integer <= {self.high:g}"
            )
        if self.low is not None and self.high is not None:
            return f"a number in [{self.low:g}, {self.high:g}]"
        if self.low is not None:
            return f"a number >= {self.low:g}"
        return "a number" if self.high is None else f"a number <= {self.high:g}"

    def candidates(self, value: Any) -> list[Any]:
        number = isinstance(value, numbers.Real) and not isinstance(value, bool)
        bounds = [b for b in (self.low, self.high) if b is not None]
        if self.kind is int:
            near = [int(value) + 1, int(value) - 1] if number else []
            return near + [int(b) for b in bounds] + [1, 0]
        near = [round(float(value) * 0.5 + 0.01, 4)] if number else []
        middle = [(self.low + self.high) / 2] if self.low is not None and self.high is not None else []
        return near + middle + [0.5, 1.0, 0.0] + [float(b) for b in bounds]


class OneOf(Constraint):
    """One of a few named values (``None`` may be one of them); ``hint`` is added to the error
    message (e.g. what each choice means)."""

    def __init__(self, *values: Any, hint: str = "") -> None:
        self.values = values
        self.hint = hint

    def accepts(self, value: Any) -> bool:
        try:
            return any(value == c and type(value) is type(c) for c in self.values)
        except Exception:  # pragma: no cover - exotic __eq__
            return False

    def describe(self) -> str:
        shown = [str(c) for c in self.values]
        return shown[0] if len(shown) == 1 else f"one of {', '.join(shown)}"

    def choices(self) -> tuple[Any, ...]:
        return self.values


class InstanceOf(Constraint):
    """An instance of one of ``types`` (``bool``: described as true or false)."""

    def __init__(self, *types: type, description: str = "") -> None:
        self.types = types
        self.description = description

    def accepts(self, value: Any) -> bool:
        if bool not in self.types and isinstance(value, bool) and not any(t is object for t in self.types):
            return False
        return isinstance(value, self.types)

    def describe(self) -> str:
        if self.description:
            return self.description
        if self.types == (bool,):
            return "true or false"
        names = {str: "a string", int: "an integer", float: "a number", dict: "a mapping", Mapping: "a mapping"}
        return " or ".join(names.get(t, f"a {t.__name__}") for t in self.types)

    def choices(self) -> tuple[Any, ...] | None:
        return (False, True) if self.types == (bool,) else None

    def candidates(self, value: Any) -> list[Any]:
        out: list[Any] = []
        for t in self.types:
            if t is bool:
                out += [not value] if isinstance(value, bool) else [False, True]
            elif t is str:
                out += [value + "-other"] if isinstance(value, str) else ["other"]
            elif t in (int, float):
                out += Interval(t).candidates(value)
            elif t in (dict, Mapping):
                out += [{"other": 1}]
        return out


class ListOf(Constraint):
    """A list or tuple whose items each satisfy ``item`` (``length``: exactly that many)."""

    def __init__(self, item: Constraint, *, length: int | None = None) -> None:
        self.item, self.length = item, length

    def accepts(self, value: Any) -> bool:
        if not isinstance(value, (list, tuple)):
            return False
        if self.length is not None and len(value) != self.length:
            return False
        return all(self.item.accepts(v) for v in value)

    def describe(self) -> str:
        inner = self.item.describe()
        for one, many in (
            ("a number", "numbers"),
            ("an integer", "integers"),
            ("a positive integer", "positive integers"),
        ):
            if inner.startswith(one + " ") or inner == one:
                inner = many + inner[len(one) :]
        if self.length == 2:
            return f"a pair [low, high] of {inner}"
        return f"a list of {inner}" if self.length is None else f"a list of {self.length} {inner}"

    def candidates(self, value: Any) -> list[Any]:
        items: list[Any] = []
        for _ in range(self.length or 1):
            try:
                items.append(self.item.other_than(items[-1] if items else None))
            except NoOtherValue:
                return []
        if all(isinstance(v, numbers.Real) for v in items):
            items.sort()  # a pair is [low, high]
        return [items]


NONE = OneOf(None)
UNIT = Interval(float, 0.0, 1.0)
BOOL = InstanceOf(bool)
POSITIVE_INT = Interval(int, 1)
TEXT = InstanceOf(str)

Spec = Constraint | tuple[Constraint, ...]


def alternatives_of(spec: Spec) -> tuple[Constraint, ...]:
    """The constraints a parameter's spec allows, one or several (a tuple means any of them)."""
    return spec if isinstance(spec, tuple) else (spec,)


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:  # pragma: no cover - exotic __eq__
        return False


def choices(spec: Spec) -> tuple[Any, ...] | None:
    """Every legal value of a declared parameter when each alternative has few (``None`` when any
    alternative accepts many), e.g. ``("score", "reference")`` for ``OneOf("score", "reference")``."""
    out: list[Any] = []
    for c in alternatives_of(spec):
        values = c.choices()
        if values is None:
            return None
        out += [v for v in values if not any(_same(v, o) for o in out)]
    return tuple(out)


def other_than(spec: Spec, value: Any) -> Any:
    """A value some alternative of ``spec`` accepts that differs from ``value`` (the first
    alternative that can name one); :class:`NoOtherValue` when none can."""
    for c in alternatives_of(spec):
        try:
            return c.other_than(value)
        except NoOtherValue:
            continue
    raise NoOtherValue(f"no value other than {value!r} is {describe_constraint(spec)}")


def describe_constraint(spec: Spec) -> str:
    """Say what a declared parameter accepts, e.g. ``a number in [0, 1] or None``."""
    return " or ".join(c.describe() for c in alternatives_of(spec))


def check_param(owner: str, name: str, value: Any, spec: Spec) -> Any:
    """Raise :class:`~hallucheck.errors.ConfigError` unless one of ``spec``'s alternatives
    accepts ``value``; the message names the parameter, its owner and what is allowed."""
    alternatives = alternatives_of(spec)
    if not any(c.accepts(value) for c in alternatives):
        hints = "".join(f" {c.hint}" for c in alternatives if getattr(c, "hint", ""))
        raise ConfigError(
            f"The {name!r} parameter of {owner} must be {describe_constraint(spec)}; got {value!r}.{hints}"
        )
    return value
