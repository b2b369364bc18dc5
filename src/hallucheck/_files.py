"""Small file helpers shared across the package: hashing, and reading with a size cap.

Every user file (a reference or answer, a file of rows to check, a dataset) is read in blocks
and the read stops one block past its cap: a device such as ``/dev/zero``, a FIFO that never
ends or a file larger than the cap costs at most the cap in memory, never the whole input.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import BinaryIO

from .errors import ConfigError, InputError

BLOCK = 1 << 20
# the cap on a file of rows or a dataset (``hallucheck check``, ``eval``, the loaders), in MB;
# the environment variable below raises or lowers it
MAX_DATA_FILE_MB = 256
MAX_DATA_FILE_MB_ENV = "HALLUCHECK_MAX_FILE_MB"


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file's bytes, as hex (read in 1 MiB blocks)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(BLOCK):
            h.update(chunk)
    return h.hexdigest()


def read_at_most(fh: BinaryIO, limit: int) -> bytes:
    """The bytes of ``fh`` up to ``limit + 1``: a result longer than ``limit`` means the input holds
    more than the cap (and the rest is left unread). Works on files, pipes, FIFOs and devices."""
    parts: list[bytes] = []
    left = limit + 1
    while left > 0:
        chunk = fh.read(min(BLOCK, left))
        if not chunk:
            break
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def max_data_file_bytes() -> int:
    """The cap on a data file in bytes: ``HALLUCHECK_MAX_FILE_MB`` when set, else
    :data:`MAX_DATA_FILE_MB`."""
    raw = os.environ.get(MAX_DATA_FILE_MB_ENV, "").strip()
    if not raw:
        return MAX_DATA_FILE_MB * 1_000_000
    try:
        mb = float(raw)
    except ValueError:
        mb = -1.0
    if not 0 < mb < float("inf"):
        raise ConfigError(f"{MAX_DATA_FILE_MB_ENV}={raw!r} is not a positive number of megabytes (e.g. 512).")
    return int(mb * 1_000_000)


def read_capped(path: Path) -> bytes:
    """The bytes of a data file, read in blocks up to the cap (:func:`max_data_file_bytes`): a
    larger file, a device or a FIFO that does not end is refused once past the cap."""
    cap = max_data_file_bytes()
    try:
        with path.open("rb") as fh:
            data = read_at_most(fh, cap)
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > cap:
        raise too_large(path, cap)
    return data


def too_large(path: Path, cap: int) -> InputError:
    """The error for a data file past the cap, saying how to split it or raise the cap."""
    return InputError(
        f"{path}: larger than the limit of {cap / 1e6:g} MB for a data file. Split it into smaller files "
        f"(e.g. split -l 10000 FILE part-) and run each, or raise the limit with {MAX_DATA_FILE_MB_ENV}=<MB>."
    )


__all__ = [
    "MAX_DATA_FILE_MB",
    "MAX_DATA_FILE_MB_ENV",
    "file_sha256",
    "max_data_file_bytes",
    "read_at_most",
    "read_capped",
    "too_large",
]
