"""Resumable evaluation runs.

A run writes one JSON line per finished example to ``OUT/results.jsonl`` as it goes (append
only, flushed per line). Rerunning with the same ``--out`` skips the ids already there, so a
crash or Ctrl-C loses nothing. A failing example is recorded with its error and the run goes
on; ``max_errors`` stops it early. The run's configuration is fixed in ``OUT/manifest.json``:
resuming with a different method configuration or data file is refused.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import platform
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from .._files import file_sha256  # noqa: F401 (re-exported: eval.runner.file_sha256)
from ..engines.task import RecordTask
from ..errors import ConfigError, InputError
from ..telemetry import run_span

RESULTS = "results.jsonl"
MANIFEST = "manifest.json"


def git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent, capture_output=True, text=True, timeout=5
        )
        return out.stdout.strip() or None if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }
    try:
        with open("/proc/meminfo") as f:
            info["mem_gb"] = round(int(f.readline().split()[1]) / 1e6, 1)
    except OSError:
        pass
    return info


def build_manifest(
    method: Any,
    *,
    data: str,
    data_path: str | None,
    split: str | None,
    limit: int | None,
    offset: int = 0,
    llm: Any = None,
) -> dict[str, Any]:
    from .._version import __version__

    return {
        "method": json_ready(method.to_dict()),
        "llm": llm.describe() if llm is not None else None,
        "data": data,
        "data_file": str(data_path) if data_path else None,
        "data_sha256": file_sha256(data_path) if data_path and os.path.isfile(data_path) else None,
        "split": split,
        "limit": limit,
        **({"offset": offset} if offset else {}),  # absent when 0, as in manifests written before offsets existed
        "hallucheck_version": __version__,
        "git_commit": git_commit(),
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine_info(),
    }


def json_ready(value: Any) -> Any:
    """``value`` as JSON gives it back: a set (a stage's switched-off rules) a sorted list, so that the
    manifest is written and a resumed run compares equal to what was written."""

    def plain(o: Any) -> Any:
        if isinstance(o, (set, frozenset)):
            return sorted(o, key=str)
        raise TypeError(f"{type(o).__name__} is not JSON serialisable")

    return json.loads(json.dumps(value, default=plain))


# manifest fields that must match to resume a run (the others describe the occasion)
_IDENTITY = ("method", "llm", "data", "data_sha256", "split", "offset")


@dataclass
class Progress:
    """Progress on stderr: done/total, items/s, ETA, errors.

    On a terminal, a one-line bar redrawn in place (``\\r``). Elsewhere (CI logs, files,
    pipes) whole lines instead, each a complete record: every ``every`` examples (default:
    every 10 % of the run), at least every ``interval`` seconds, and at the end."""

    total: int
    done: int = 0
    errors: int = 0
    enabled: bool = True
    interactive: bool | None = None  # None: whether stderr is a terminal
    every: int | None = None
    interval: float = 30.0
    detail: str = ""  # set by the engine, e.g. "actors 2/2"; shown after the rate
    started: float = field(default_factory=lambda: time.perf_counter())
    _last: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.interactive is None:
            isatty = getattr(sys.stderr, "isatty", None)
            try:
                self.interactive = bool(isatty()) if callable(isatty) else False
            except (ValueError, OSError):  # a closed or odd stream
                self.interactive = False
        if self.every is None:
            self.every = max(1, -(-self.total // 10))
        if not self.interactive:
            self._last = self.started

    def update(self, error: bool) -> None:
        with self._lock:
            self.done += 1
            self.errors += int(error)
            if not self.enabled:
                return
            now = time.perf_counter()
            last = self.done == self.total
            rate = self.done / max(now - self.started, 1e-9)
            eta = (self.total - self.done) / rate if rate > 0 else float("inf")
            if self.interactive:
                if now - self._last > 0.5 or last:
                    self._last = now
                    width = 24
                    filled = int(width * self.done / max(self.total, 1))
                    sys.stderr.write(
                        f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}  {rate:.2f} it/s  "
                        f"ETA {_fmt_eta(eta)}  errors {self.errors}{self._detail()}   "
                    )
                    if last:
                        sys.stderr.write("\n")
                    sys.stderr.flush()
            elif last or self.done % (self.every or 1) == 0 or now - self._last >= self.interval:
                self._last = now
                pct = 100 * self.done // max(self.total, 1)
                sys.stderr.write(
                    f"[hallucheck] {self.done}/{self.total} ({pct}%)  {rate:.2f} it/s  ETA {_fmt_eta(eta)}  "
                    f"errors {self.errors}{self._detail()}\n"
                )
                sys.stderr.flush()

    def _detail(self) -> str:
        return f"  {self.detail}" if self.detail else ""


def _fmt_eta(seconds: float) -> str:
    if seconds == float("inf"):
        return "?"
    m, s = divmod(int(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def read_results(out_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Records of a run; a torn last line (from a crash mid-write) is ignored."""
    path = Path(out_dir) / RESULTS
    if not path.exists():
        return []
    records = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and "id" in record:
                records.append(record)
    return records


class StopRun(Exception):
    """Raised when ``max_errors`` is exceeded."""


def verified(record: dict[str, Any]) -> bool:
    """True when the record holds a verdict: not an error, and not "could not verify"."""
    return record.get("status") != "error" and record.get("hallucinated") is not None


def run_eval(
    method: Any,
    examples: Sequence[Any],
    *,
    out_dir: str | os.PathLike[str] | None = None,
    manifest: dict[str, Any] | None = None,
    workers: int = 1,
    max_errors: int | None = None,
    progress: bool = True,
    count_tokens: Callable[[str], int] | None = None,
    mitigate: bool = False,
    retry_failed: bool = True,
    engine: Any = None,
) -> list[dict[str, Any]]:
    """Run ``method`` over ``examples``; return all records (including ones from earlier runs in ``out_dir``).

    With ``mitigate=True`` each example is also revised (``method.mitigate``) and the record
    gets a ``mitigation`` entry: the revised answer, its edits, the re-check and the usage.
    On a resumed run, examples recorded as failed or unverified (e.g. the endpoint was down) are
    run again unless ``retry_failed=False``; the newer record replaces the older one.

    ``engine`` runs the examples: default the local one (``workers`` threads in this process);
    :class:`hallucheck.engines.ray.RayEngine` spreads them over Ray actors. Either way the
    records are written here, one line per example, so resuming and reports do not change."""
    ids = [ex.id for ex in examples]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise InputError(f"Example ids must be unique; {dup!r} appears more than once.", field="id")
    out = Path(out_dir) if out_dir is not None else None
    if out is not None:
        if out.exists() and not out.is_dir():
            raise InputError(
                f"The run directory {out} is an existing file, not a directory: choose another --out.", field="out"
            )
        out.mkdir(parents=True, exist_ok=True)
    info = manifest or {}
    attributes = {
        "hallucheck.method": getattr(method, "name", type(method).__name__),
        "hallucheck.data": info.get("data"),
        "hallucheck.examples": len(examples),
    }
    # the otel extra: one span per run, the detections' gen_ai.evaluation.result events under it
    with run_span(f"hallucheck {info.get('command', 'eval')}", attributes) as span:
        with run_lock(out) if out is not None else contextlib.nullcontext():
            records = _run(
                method,
                examples,
                ids,
                out,
                manifest,
                workers,
                max_errors,
                progress,
                count_tokens,
                mitigate,
                retry_failed,
                engine,
            )
        if span is not None:
            span.set_attribute("hallucheck.records", len(records))
            span.set_attribute("hallucheck.flagged", sum(1 for r in records if r.get("hallucinated") is True))
            span.set_attribute("hallucheck.failed", sum(1 for r in records if r.get("status") == "error"))
    return records


LOCK = ".lock"


@contextlib.contextmanager
def run_lock(out: Path) -> Iterator[None]:
    """Hold ``OUT/.lock`` for the run: a second eval into the same directory is refused instead
    of running every example again beside the first. The lock goes with the process (a crash
    leaves nothing to clean up); where file locks are unavailable, nothing is locked."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    f = open(out / LOCK, "a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.seek(0)
            holder = f.read().strip()
            raise InputError(
                f"Another hallucheck eval is writing to {out}"
                + (f" (pid {holder})" if holder else "")
                + ". Wait for it to finish, or choose another --out.",
                field="out",
            ) from None
        f.seek(0)
        f.truncate()
        f.write(str(os.getpid()))
        f.flush()
        yield
    finally:
        f.close()  # releases the lock


def repair_tail(path: Path) -> int:
    """Cut a torn last line (a write cut short by a crash or power cut) so that the next record
    starts on a line of its own; return the number of bytes cut."""
    if not path.exists():
        return 0
    with open(path, "rb+") as f:
        size = f.seek(0, os.SEEK_END)
        if size == 0:
            return 0
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return 0
        # find the last newline, reading backwards in blocks
        pos, keep = size, 0
        while pos > 0:
            step = min(1 << 16, pos)
            pos -= step
            f.seek(pos)
            block = f.read(step)
            i = block.rfind(b"\n")
            if i >= 0:
                keep = pos + i + 1
                break
        f.truncate(keep)
        f.flush()
        os.fsync(f.fileno())
        return size - keep


def _run(
    method: Any,
    examples: Sequence[Any],
    ids: list[str],
    out: Path | None,
    manifest: dict[str, Any] | None,
    workers: int,
    max_errors: int | None,
    progress: bool,
    count_tokens: Callable[[str], int] | None,
    mitigate: bool,
    retry_failed: bool,
    engine: Any = None,
) -> list[dict[str, Any]]:
    done: dict[str, dict[str, Any]] = {}
    if out is not None:
        _check_manifest(out, manifest)
        cut = repair_tail(out / RESULTS)
        if cut and progress:
            sys.stderr.write(
                f"[hallucheck] {out / RESULTS}: cut a torn last line ({cut} bytes); that example runs again\n"
            )
        done = {r["id"]: r for r in read_results(out)}
        if retry_failed:
            done = {i: r for i, r in done.items() if verified(r)}
    todo = [ex for ex in examples if ex.id not in done]
    bar = Progress(total=len(todo), enabled=progress and bool(todo))
    lock = threading.Lock()
    new: list[dict[str, Any]] = []
    errors = 0
    sink = open(out / RESULTS, "a", encoding="utf-8") if out is not None else None
    synced = [time.monotonic()]

    def finish(rec: dict[str, Any]) -> None:
        nonlocal errors
        with lock:
            new.append(rec)
            if sink is not None:
                sink.write(json.dumps(rec, ensure_ascii=False) + "\n")
                sink.flush()
                if time.monotonic() - synced[0] > 1.0:  # on disk at least every second, not per line
                    os.fsync(sink.fileno())
                    synced[0] = time.monotonic()
            failed = rec["status"] == "error" or any(v.get("status") == "error" for v in rec["detection"]["verdicts"])
            errors += int(failed)
            bar.update(failed)
            if max_errors is not None and errors > max_errors:
                raise StopRun(
                    f"Stopped after {errors} errors (--max-errors {max_errors}). Finished examples are saved; "
                    "fix the cause and rerun with the same --out to resume."
                )

    try:
        if engine is None:
            from ..engines.local import LocalEngine

            engine = LocalEngine(workers=workers)
        engine.execute(todo, RecordTask(method, mitigate=mitigate, count_tokens=count_tokens), finish, bar)
    finally:
        if sink is not None:
            sink.flush()
            os.fsync(sink.fileno())
            sink.close()
    by_id = {**done, **{r["id"]: r for r in new}}
    return [by_id[i] for i in ids if i in by_id]


def _check_manifest(out: Path, manifest: dict[str, Any] | None) -> None:
    path = out / MANIFEST
    if manifest is None:
        return
    if path.exists() and (out / RESULTS).exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(old, dict):
                raise ValueError("not a JSON object")
        except (ValueError, UnicodeDecodeError) as exc:
            raise InputError(
                f"{path} is corrupt ({exc}), so it cannot be checked that resuming this run keeps its settings. "
                "Choose another --out directory, or move the run away and start again.",
                field="out",
            ) from None
        changed = [k for k in _IDENTITY if old.get(k) != manifest.get(k)]
        if changed:
            raise ConfigError(
                f"{out} holds a run with a different {', '.join(changed)}. Resume it with the same settings, "
                "or choose another --out directory."
            )
        manifest = {**manifest, "first_started": old.get("first_started", old.get("date"))}
    path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")
