"""The body of a request to ``hallucheck proxy``, read strictly before anything is forwarded.

The upstream may read a body more leniently than the proxy does (``"stream": "false"`` read as
false by a lax parser, while the proxy took the string for true and let the answer through
unchecked), so the fields whose meaning decides what the proxy checks must have their JSON type:
``stream`` and ``logprobs`` booleans, ``n`` an integer. A key that looks like the extension but is
not spelt ``hallucheck`` (``Hallucheck``, ``hallu_check``, ``halucheck``) is refused rather than
forwarded with its reference while the answer goes unchecked. A body that is not JSON, holds
``NaN`` or ``Infinity``, or is nested deeper than :data:`MAX_DEPTH` is refused.

Each refusal is a :class:`RequestError`: 400 in the OpenAI error shape.
"""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

from ..errors import InputError

MAX_DEPTH = 64  # JSON nesting; a chat request needs a handful
EXTENSION = "hallucheck"
TYPED = {"stream": (bool,), "logprobs": (bool,), "n": (int,)}


class RequestError(InputError):
    """A request body the proxy refuses before reading its extension: 400."""


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def _depth_ok(raw: bytes, limit: int) -> bool:
    """Whether the JSON text ``raw`` nests at most about ``limit`` deep (at most twice that): its
    brackets outside strings, with the innermost pairs taken away once per level, in C-speed
    passes (no recursion, no Python loop over the body)."""
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    for _ in range(limit):
        if not brackets:
            return True
        brackets = brackets.replace(b"[]", b"").replace(b"{}", b"")
    return not brackets


def parse_json(raw: bytes | str, what: str = "the body") -> Any:
    """JSON without ``NaN``/``Infinity`` and nested at most about :data:`MAX_DEPTH` deep; ValueError else."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if not _depth_ok(data, MAX_DEPTH):
        raise ValueError(f"{what} is nested more than {MAX_DEPTH} deep")
    try:
        return json.loads(data, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError(f"{what} is nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"{what} is not JSON ({str(exc)[:120]})") from None


def _squeezed(key: str) -> str:
    return re.sub(r"[^a-z0-9]", "", key.lower())


def looks_like_extension(key: str) -> bool:
    """A key that is not ``hallucheck`` but was meant to be (case, separators, one or two typos)."""
    if key == EXTENSION:
        return False
    low = _squeezed(key)
    return EXTENSION in low or difflib.SequenceMatcher(None, low, EXTENSION).ratio() >= 0.8


def read_body(raw: bytes) -> dict[str, Any]:
    """The request body, checked as the module says; raises :class:`RequestError`."""
    try:
        body = parse_json(raw)
    except ValueError as exc:
        raise RequestError(str(exc), field="body") from None
    if not isinstance(body, dict):
        raise RequestError("the body must be a JSON object", field="body")
    for key in body:
        if looks_like_extension(key):
            raise RequestError(
                f"{key}: not a field of this proxy; the extension is spelt {EXTENSION!r} (lower case)", field=key
            )
    for key, kinds in TYPED.items():
        value = body.get(key)
        if value is not None and (not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool))):
            kind = "a boolean (true or false)" if bool in kinds else "an integer"
            raise RequestError(f"{key}: must be {kind}; got {json.dumps(value)[:40]}", field=key)
    return body
