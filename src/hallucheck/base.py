"""Component base class and the four stage interfaces."""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from typing import Any, Iterable, Sequence

from .errors import ConfigError, InputError
from .types import Claim, Detection, Evidence, Mitigation, Verdict

# Texts longer than this are refused with an InputError (split them, or raise the limit).
MAX_TEXT_CHARS = 2_000_000


class Component:
    """Plain class with keyword-only parameters stored as given; heavy work is lazy.

    ``to_dict()`` gives ``{"type": registry_name, "params": {...}}``; parameters that are
    components serialise recursively; the LLM client is not a parameter (it is passed as
    ``llm=`` when a configuration is loaded).
    """

    @property
    def registry_name(self) -> str:
        """The registered ``name.vN`` of this component's class (see
        :func:`hallucheck.registry.name_of`), or ``""`` when the class is not registered."""
        from . import registry

        return registry.name_of(type(self)) or ""

    def get_params(self) -> dict[str, Any]:
        params = {}
        for name, p in inspect.signature(type(self).__init__).parameters.items():
            if name in ("self", "llm") or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                continue
            params[name] = getattr(self, name)
        return params

    def to_dict(self) -> dict[str, Any]:
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


def check_unit(owner: str, name: str, value: float) -> float:
    """Validate a [0, 1] parameter with a message that says what is allowed."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise ConfigError(f"The {name!r} parameter of {owner} must be a number in [0, 1]; got {value!r}.")
    return float(value)


def check_choice(owner: str, name: str, value: Any, allowed: Iterable[str], hint: str = "") -> Any:
    """Validate a parameter that takes one of a few named values, with a message that lists them."""
    allowed = tuple(allowed)
    if value not in allowed:
        raise ConfigError(
            f"The {name!r} parameter of {owner} must be one of {', '.join(allowed)}; got {value!r}."
            + (f" {hint}" if hint else "")
        )
    return value


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
    @abstractmethod
    def extract(self, answer: str, *, question: str | None = None) -> list[Claim]:
        """Return the claims of ``answer`` with offsets into it."""


class EvidenceRetriever(Component, ABC):
    @abstractmethod
    def retrieve(self, claims: Sequence[Claim], reference: str, *, question: str | None = None) -> list[list[Evidence]]:
        """Return, for each claim, candidate evidence with offsets into ``reference``."""


class Verifier(Component, ABC):
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


def aggregate_any(verdicts: Sequence[Verdict]) -> tuple[bool | None, float | None]:
    ok = [v for v in verdicts if v.status == "ok"]
    scores = [v.score for v in ok if v.score is not None]
    score = max(scores) if scores else (None if verdicts else 0.0)
    if any(v.hallucinated for v in ok):
        return True, score
    if len(ok) < len(verdicts):
        return None, score
    return False, score


class Mitigator(Component, ABC):
    @abstractmethod
    def mitigate(self, detection: Detection) -> Mitigation:
        """Revise ``detection.answer`` so that flagged claims are fixed or removed.

        The returned Mitigation's ``after`` is filled in by the pipeline (re-check)."""
