"""One error tree. Every error says what went wrong and what to do about it."""

from __future__ import annotations


class HallucheckError(Exception):
    """Root of every error hallucheck raises on purpose."""


class InputError(HallucheckError, ValueError):
    """The caller's input is unusable (empty answer, wrong type, unreadable file...)."""

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.field = field


class ConfigError(HallucheckError, ValueError):
    """A component or method was configured with an invalid parameter or name."""


class BackendError(HallucheckError):
    """An LLM or model backend failed (unreachable, refused, crashed)."""

    def __init__(self, message: str, *, url: str | None = None, status: int | None = None):
        super().__init__(message)
        self.url = url
        self.status = status


class BackendTimeout(BackendError):
    """The backend did not answer within the timeout, after all retries."""


class RateLimited(BackendError):
    """The backend kept answering 429 after all retries."""


class ParseError(HallucheckError):
    """An LLM reply could not be parsed. The raw reply is kept in ``raw``."""

    def __init__(self, message: str, *, raw: str):
        super().__init__(message)
        self.raw = raw


class UnreadableReply(BackendError, ParseError):
    """The backend answered, but its reply cannot be read as an answer (no expected label
    among the scored alternatives, a non-finite or non-numeric log-probability). A
    :class:`BackendError` (every handler of backend failures handles it: the verdict is an
    error, never a guess) and a :class:`ParseError` (the raw reply is kept in ``raw``)."""

    def __init__(self, message: str, *, raw: str = "", url: str | None = None):
        HallucheckError.__init__(self, message)
        self.url, self.status, self.raw = url, None, raw


def install_hint(extra: str, *, pinned: bool = False) -> str:
    """How to install an extra where hallucheck comes from (it is not on the package index): from the
    repository, or from the wheel built from it. ``pinned``: with the repository's constraints (the
    extras that bring PyTorch or llama.cpp, whose unpinned installs pull other builds)."""
    pin = "-c requirements/constraints.txt " if pinned else ""
    return (
        f'pip install {pin}".[{extra}]" in the hallucheck repository, or '
        f'pip install {pin}"hallucheck-<version>-py3-none-any.whl[{extra}]"'
    )


class MissingDependencyError(HallucheckError, ImportError):
    """An optional dependency (extra) or weight package is not installed."""

    def __init__(self, what: str, install: str):
        super().__init__(f"{what} is not installed. Install it with:  {install}")
        self.install = install


__all__ = [
    "HallucheckError",
    "InputError",
    "ConfigError",
    "BackendError",
    "BackendTimeout",
    "RateLimited",
    "ParseError",
    "UnreadableReply",
    "MissingDependencyError",
    "install_hint",
]
