"""Reading dataset files: encodings, JSON lines and arrays with line numbers, required fields."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from ..._files import read_capped
from ...errors import ConfigError, InputError
from .example import Example


def _guess_encoding(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    try:
        data.decode("cp1252")
        return "cp1252"
    except UnicodeDecodeError:
        return "latin-1"


def read_text(path: Path, encoding: str = "utf-8") -> str:
    if not path.exists():
        raise InputError(f"{path}: file not found")
    if path.is_dir():
        raise InputError(f"{path}: is a directory, expected a file")
    data = read_capped(path)
    codec = "utf-8-sig" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding
    try:
        return data.decode(codec)
    except LookupError:
        raise ConfigError(f"unknown encoding {encoding!r}") from None
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        guess = _guess_encoding(data)
        raise InputError(
            f"{path}: not valid {encoding} text (byte 0x{data[e.start]:02x} on line {line}). The file looks "
            f"{guess}-encoded: convert it (iconv -f {guess} -t utf-8) or pass encoding={guess!r} to the loader."
        ) from None


def split_lines(text: str) -> list[str]:
    # split on "\n" only: str.splitlines() would also split on U+2028 etc. inside JSON strings
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def iter_json_lines(path: Path, text: str) -> Iterator[tuple[int, Any]]:
    """(line number, decoded value) for every non-blank line."""
    for n, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            continue
        try:
            yield n, json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{path} line {n}: not valid JSON ({e.msg} at column {e.colno})") from None


_WS = re.compile(r"[ \t\r\n]*")


def _skip_ws(text: str, pos: int) -> int:
    match = _WS.match(text, pos)
    return match.end() if match else pos


def iter_json_array(path: Path, text: str) -> Iterator[tuple[int, Any]]:
    """(line on which the item starts, item) for every element of a top-level JSON array."""
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    if text.startswith("\ufeff", pos):
        pos = _skip_ws(text, pos + 1)
    if not text.startswith("[", pos):
        raise InputError(f"{path}: expected a JSON list of records (the file should start with '[')")
    pos = _skip_ws(text, pos + 1)
    line = 1 + text.count("\n", 0, pos)
    last = pos
    if text.startswith("]", pos):
        return
    while True:
        line += text.count("\n", last, pos)
        last = pos
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            raise InputError(f"{path} line {e.lineno}: not valid JSON ({e.msg} at column {e.colno})") from None
        yield line, value
        pos = _skip_ws(text, end)
        if text.startswith(",", pos):
            pos = _skip_ws(text, pos + 1)
            continue
        if text.startswith("]", pos):
            return
        bad_line = 1 + text.count("\n", 0, pos)
        raise InputError(f"{path} line {bad_line}: expected ',' or ']' after a list item")


def iter_json_records(path: Path, text: str) -> Iterator[tuple[int, Any]]:
    """JSON lines, or a JSON list if the file starts with '['."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("["):
        return iter_json_array(path, text)
    return iter_json_lines(path, text)


def require_str(record: Mapping[str, Any], key: str, where: str) -> str:
    if key not in record:
        raise InputError(f"{where}: field {key!r} is missing", field=key)
    value = record[key]
    if not isinstance(value, str):
        raise InputError(f"{where}: field {key!r} must be a string, got {type(value).__name__}", field=key)
    return value


def require_object(value: Any, where: str, required: Sequence[str] = ()) -> Mapping[str, Any]:
    """``value`` as a JSON object holding every field of ``required``; else an :class:`InputError`
    naming ``where`` and the first field missing."""
    if not isinstance(value, Mapping):
        raise InputError(f"{where}: expected a JSON object, got {type(value).__name__}")
    for key in required:
        if key not in value:
            raise InputError(f"{where}: field {key!r} is missing", field=key)
    return value


def check_unique(examples: list[Example], where: str) -> None:
    seen: dict[str, int] = {}
    for i, ex in enumerate(examples):
        if ex.id in seen:
            raise InputError(f"{where}: id {ex.id!r} occurs more than once (rows {seen[ex.id]} and {i})")
        seen[ex.id] = i


def not_empty(examples: list[Example], path: Any) -> list[Example]:
    if not examples:
        raise InputError(f"{path}: contains no examples")
    return examples
