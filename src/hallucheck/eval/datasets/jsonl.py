"""The shared JSON-lines schema (``/work/shared/data/README.md``): one :class:`Example` record a line."""

from __future__ import annotations

import os
from pathlib import Path

from ...errors import InputError
from ._files import iter_json_lines, not_empty, read_text, require_object
from .example import Example, FirstLines


def load_jsonl(path: str | os.PathLike[str], *, encoding: str = "utf-8") -> list[Example]:
    """Load a file in the shared JSON-lines schema (one :meth:`Example.from_dict` record a line,
    blank lines ignored). Ids must be unique within the file. A record without ``dataset`` gets
    the file's stem, one without ``task`` the task its question implies (see
    :meth:`Example.from_dict`)."""
    p = Path(path)
    text = read_text(p, encoding)
    examples: list[Example] = []
    first_line = FirstLines()
    for n, record in iter_json_lines(p, text):
        try:
            ex = Example.from_dict(require_object(record, "record"), default_dataset=p.stem)
        except InputError as e:
            raise InputError(f"{p} line {n}: {_strip_where(e)}", field=e.field) from None
        first_line.add(ex.id, n, f"{p} line {n}: id {ex.id!r}")
        examples.append(ex)
    return not_empty(examples, p)


def _strip_where(e: InputError) -> str:
    msg = str(e)
    return msg[len("record: ") :] if msg.startswith("record: ") else msg
