"""The bounded work pool of ``hallucheck serve``: where a request's detection runs.

No detection runs on the server's event loop, whatever the backend: the loop only admits
requests, answers 503 at once when the pool is full and 504 when a request outlives the timeout,
and serves ``/healthz`` and the rest meanwhile. A detection runs either

- on one of ``workers`` threads (a local LLM or model, no LLM at all), or
- when the LLM's requests can be awaited (the OpenAI-compatible client), as ``Pipeline.arun``
  runs it, on the pool's own I/O thread and its event loop: at most ``workers`` at once, no thread
  held while a detection waits for the LLM. The pure-Python parts of a detection (splitting,
  lexical scores) run on that thread too, never on the server's loop.

A request that times out is stopped: not started if it still waits for its turn, cancelled at
the point where it awaits the LLM on the I/O loop, and told to make no further LLM call on a
thread (the caller's ``on_timeout``). Work keeps its place until it has really stopped, so the
bound on work in flight stays true.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import math
import threading
import time
from typing import Any, Callable

from .. import _aio


class QueueFull(Exception):
    pass


class WorkPool:
    """At most ``workers`` requests worked on at once and ``queue_size`` more waiting for their
    turn; beyond that :class:`QueueFull` (503)."""

    def __init__(self, workers: int, queue_size: int) -> None:
        self.workers = workers
        self.capacity = workers + queue_size
        self._executor = cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hallucheck-serve")
        self._lock = threading.Lock()
        self.admitted = 0  # waiting + running
        self.running = 0
        self._ewma = 0.05  # seconds per task, for Retry-After
        self._io_loop: asyncio.AbstractEventLoop | None = None
        self._io_turns: asyncio.Semaphore | None = None

    @property
    def waiting(self) -> int:
        return self.admitted - self.running

    def retry_after(self) -> int:
        return max(1, math.ceil(self._ewma * (self.waiting + 1) / self.workers))

    async def run(
        self,
        fn: Callable[[], Any],
        *,
        timeout: float,
        on_loop: bool,
        on_timeout: Callable[[], None] | None = None,
    ) -> Any:
        """``fn()``'s result; raises :class:`QueueFull`, or ``asyncio.TimeoutError`` after the work
        was told to stop (``on_timeout``, then cancelled)."""
        future, cancel = self._on_io_loop(fn) if on_loop else self._in_thread(fn)
        waiter = asyncio.wrap_future(future)
        waiter.add_done_callback(_settled)
        try:
            return await asyncio.wait_for(asyncio.shield(waiter), timeout=timeout)
        except asyncio.TimeoutError:
            if on_timeout is not None:
                on_timeout()
            cancel()
            raise

    # -- accounting ---------------------------------------------------------------------------
    def _admit(self) -> None:
        with self._lock:
            if self.admitted >= self.capacity:
                raise QueueFull
            self.admitted += 1

    def _left(self, *_: Any) -> None:
        with self._lock:
            self.admitted -= 1

    def _started(self) -> float:
        with self._lock:
            self.running += 1
        return time.perf_counter()

    def _ran(self, t0: float) -> None:
        with self._lock:
            self.running -= 1
            self._ewma = 0.8 * self._ewma + 0.2 * (time.perf_counter() - t0)

    # -- threads ------------------------------------------------------------------------------
    def _in_thread(self, fn: Callable[[], Any]) -> tuple[cf.Future, Callable[[], Any]]:
        self._admit()

        def run() -> Any:
            t0 = self._started()
            try:
                return fn()
            finally:
                self._ran(t0)

        try:
            future = self._executor.submit(run)
        except RuntimeError:  # shut down
            self._left()
            raise QueueFull from None
        future.add_done_callback(self._left)  # also when cancelled before it started
        return future, future.cancel

    # -- the I/O thread's loop ----------------------------------------------------------------
    def _io(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._io_loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="hallucheck-serve-io", daemon=True).start()
                self._io_loop = loop
            return self._io_loop

    def _on_io_loop(self, fn: Callable[[], Any]) -> tuple[cf.Future, Callable[[], Any]]:
        self._admit()
        try:
            loop = self._io()
        except Exception:
            self._left()
            raise
        future: cf.Future = cf.Future()
        box: list[asyncio.Task[Any]] = []

        def start() -> None:
            task = loop.create_task(self._turn(fn))
            box.append(task)
            task.add_done_callback(lambda t: (self._left(), _copy(t, future)))

        def cancel() -> None:  # runs after start(): the loop runs its callbacks in order
            loop.call_soon_threadsafe(lambda: box[0].cancel())

        try:
            loop.call_soon_threadsafe(start)
        except RuntimeError:  # the loop is closed: shut down
            self._left()
            raise QueueFull from None
        return future, cancel

    async def _turn(self, fn: Callable[[], Any]) -> Any:
        if self._io_turns is None:
            self._io_turns = asyncio.Semaphore(self.workers)
        async with self._io_turns:
            t0 = self._started()
            try:
                return await _aio.run(fn)
            finally:
                self._ran(t0)

    def shutdown(self) -> None:
        """Admit nothing more; cancel the work not started and the work on the I/O loop."""
        self._executor.shutdown(wait=False, cancel_futures=True)
        self.capacity = 0
        loop = self._io_loop
        if loop is None or loop.is_closed():
            return

        def stop() -> None:
            for task in asyncio.all_tasks(loop):
                task.cancel()
            loop.call_later(0.2, loop.stop)

        try:
            loop.call_soon_threadsafe(stop)
        except RuntimeError:  # already closed
            pass


def _copy(task: asyncio.Task[Any], future: cf.Future) -> None:
    """The task's outcome into the future the server's loop waits on."""
    if future.done():
        return
    if task.cancelled():
        future.cancel()
    elif task.exception() is not None:
        future.set_exception(task.exception())  # type: ignore[arg-type]
    else:
        future.set_result(task.result())


def _settled(waiter: asyncio.Future[Any]) -> None:
    """Read the outcome of work nobody awaits any more (timed out), so asyncio does not log it as lost."""
    if not waiter.cancelled():
        waiter.exception()
