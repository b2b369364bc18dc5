"""A response cache in SQLite, safe to share between processes and threads.

The key is a hash of (model id, prompt name/version, messages, generation params): it never
contains API keys or other secrets. WAL mode lets several processes read while one writes.

``HALLUCHECK_CACHE_MAX_MB`` (megabytes, 10^6 bytes) caps the data the cache holds: when a write
takes it over the cap, the oldest entries (by time written) are deleted until it holds about
90 % of the cap. ``hallucheck cache info`` shows the path, entries and size; ``hallucheck cache
clear`` deletes every entry.
"""

from __future__ import annotations

import math
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from ..errors import ConfigError

MAX_MB_ENV = "HALLUCHECK_CACHE_MAX_MB"
# after an eviction the cache holds this share of the cap, so that the next writes do not evict again at once
_EVICT_TO = 0.9


def default_cache_dir() -> Path:
    env = os.environ.get("HALLUCHECK_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hallucheck"


def _enable_wal(conn: sqlite3.Connection, wait: float = 30.0) -> None:
    """Switch to WAL mode. On a new file this needs an exclusive lock and SQLite answers
    "database is locked" at once (the busy timeout does not apply) when another process opens
    the same new cache at the same moment, so retry for a while before giving up."""
    deadline = time.monotonic() + wait
    delay = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL").fetchone()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


def max_bytes_from_env() -> int | None:
    """The size cap in bytes from ``HALLUCHECK_CACHE_MAX_MB`` (unset or empty: no cap)."""
    raw = os.environ.get(MAX_MB_ENV, "").strip()
    if not raw:
        return None
    return _to_bytes(raw, f"{MAX_MB_ENV}={raw!r}")


def _to_bytes(mb: Any, what: str) -> int:
    try:
        value = float(mb)
    except (TypeError, ValueError):
        value = float("nan")
    if isinstance(mb, bool) or not value > 0 or math.isinf(value):
        raise ConfigError(
            f"The response cache size cap must be a number of megabytes > 0 ({MAX_MB_ENV}); got {what}. "
            f"Unset {MAX_MB_ENV} for no cap."
        )
    return max(1, int(value * 1_000_000))


class ResponseCache:
    """``get(key) -> str | None`` and ``put(key, value)`` over one SQLite file.

    ``max_mb``: cap on the data held, in megabytes (default: ``HALLUCHECK_CACHE_MAX_MB``, else
    none); the oldest entries are evicted when a write goes over it."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, max_mb: float | None = None) -> None:
        self.max_bytes = _to_bytes(max_mb, repr(max_mb)) if max_mb is not None else max_bytes_from_env()
        self.path = Path(path) if path is not None else default_cache_dir() / "responses.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        with self._conn() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL, created REAL NOT NULL)"
            )

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            conn.execute("PRAGMA busy_timeout=30000")
            _enable_wal(conn)
            self._local.conn = conn
        return conn

    def get(self, key: str) -> str | None:
        row = self._conn().execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def put(self, key: str, value: str) -> None:
        self._conn().execute(
            "INSERT OR REPLACE INTO responses (key, value, created) VALUES (?, ?, ?)", (key, value, time.time())
        )
        if self.max_bytes is not None:
            self.evict()

    def __len__(self) -> int:
        return self._conn().execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def used_bytes(self) -> int:
        """Bytes of the database pages in use (free pages left by deletions not counted)."""
        conn = self._conn()
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
        return (pages - free) * page_size

    def evict(self, max_bytes: int | None = None) -> int:
        """Delete the oldest entries while the cache holds more than ``max_bytes`` (default: its
        cap) until it holds about 90 % of it; return the number deleted."""
        cap = self.max_bytes if max_bytes is None else max_bytes
        if cap is None:
            return 0
        conn = self._conn()
        removed = 0
        for _ in range(16):  # page accounting is coarse: re-measure after each round
            used = self.used_bytes()
            if used <= cap:
                break
            target = used - int(cap * _EVICT_TO)
            cur = conn.execute(
                "SELECT rowid, length(key) + length(CAST(value AS BLOB)) + 32 FROM responses ORDER BY created, rowid"
            )
            rowids, freed = [], 0
            try:
                for rowid, size in cur:
                    rowids.append((rowid,))
                    freed += size
                    if freed >= target:
                        break
            finally:
                cur.close()
            if not rowids:
                break
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany("DELETE FROM responses WHERE rowid = ?", rowids)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            removed += len(rowids)
        return removed

    def info(self) -> dict[str, Any]:
        """path, entries, data_bytes (pages in use), file_bytes (on disk, with the WAL),
        oldest/newest (write times, epoch seconds; None when empty) and max_bytes (the cap)."""
        conn = self._conn()
        entries, oldest, newest = conn.execute("SELECT COUNT(*), MIN(created), MAX(created) FROM responses").fetchone()
        files = [self.path, self.path.with_name(self.path.name + "-wal")]
        return {
            "path": str(self.path),
            "entries": entries,
            "data_bytes": self.used_bytes(),
            "file_bytes": sum(f.stat().st_size for f in files if f.exists()),
            "oldest": oldest,
            "newest": newest,
            "max_bytes": self.max_bytes,
        }

    def clear(self) -> int:
        """Delete every entry and give the space back to the file system; return how many were deleted."""
        conn = self._conn()
        n = conn.execute("DELETE FROM responses").rowcount
        try:
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.OperationalError:  # another process is using the cache: the space is reused later instead
            pass
        return n
