"""The bounded work pool of ``hallucheck serve``: where a request's detection runs.

No detection runs on the server's event loop, whatever the backend: the loop only admits
requests, answers 503 at once when the pool is full and 504 when a request outlives the timeout,
and serves ``/healthz`` and the rest meanwhile. A detection runs either

- on one of ``workers`` threads (a local LLM or model, no LLM at all), or
- when the LLM's requests can be awaited (the OpenAI-compatible client), as ``Pipeline.arun``
  runs it, on the pool's own I/O thread and its event loop: at most ``workers`` at once, no thread
  held while a detection waits for the LLM. The pure-Python parts of a detection (splitting,
  lexical scores) run on that thread too, never on the server's loop.

A request that times out is stopped, and its place frees at the deadline: not started if it still
waits for its turn; cancelled at the point where it awaits the LLM on the I/O loop; on a thread,
told to make no further LLM call (the caller's ``on_timeout``), interrupted at its next Python
instruction (an exception raised in that thread), and abandoned: its worker's place goes to the
next request at once, while the thread finishes on a spare one. At most ``workers`` threads are
abandoned at a time; past that, timed-out work keeps its place until it has really stopped, so
what admission counts is what really runs (``abandoned`` is shown beside ``running``). An I/O
loop held past a deadline by work that awaits nothing is left to it the same way: later work
runs on a new loop.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures as cf
import ctypes
import math
import threading
import time
from typing import Any, Callable

from .. import _aio


class QueueFull(Exception):
    pass


class WorkAbandoned(BaseException):
    """Raised inside a worker thread whose request timed out (not an ``Exception``, so that a
    stage's ``except Exception`` does not swallow it and carry on)."""


def interrupt(thread_id: int, clear: bool = False) -> bool:
    """Raise :class:`WorkAbandoned` in the thread at its next Python instruction (work inside one C
    call, such as one regex, stops when that call returns); ``clear``: take back one not raised yet."""
    exc = ctypes.py_object(WorkAbandoned) if not clear else None
    done = ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), exc)
    return bool(done == 1)


IO_GRACE = 0.5  # seconds a timed-out request's I/O loop has to answer before it is left to that work


class _Place:
    """A request's place in the pool's count, freed once: when its work ends, or when it is
    abandoned (then counted in ``abandoned`` until it ends)."""

    def __init__(self, pool: "WorkPool") -> None:
        self.pool = pool
        self.state = "held"

    def free(self) -> None:
        with self.pool._lock:
            if self.state == "held":
                self.pool.admitted -= 1
            elif self.state == "abandoned":
                self.pool.abandoned -= 1
            self.state = "freed"

    def abandon(self) -> None:
        with self.pool._lock:
            if self.state == "held":
                self.state = "abandoned"
                self.pool.admitted -= 1
                self.pool.abandoned += 1


class _Job:
    __slots__ = ("fn", "future", "state", "thread", "t0", "lock", "stop")

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn
        self.lock = threading.Lock()
        self.future: cf.Future = cf.Future()
        self.state = "waiting"  # -> running -> (abandoned ->) done
        self.thread: int | None = None
        self.t0 = 0.0
        self.stop = False  # timed out before its thread began: it does not begin


class WorkPool:
    """At most ``workers`` requests worked on at once and ``queue_size`` more waiting for their
    turn; beyond that :class:`QueueFull` (503)."""

    def __init__(self, workers: int, queue_size: int) -> None:
        self.workers = workers
        self.capacity = workers + queue_size
        self.spare = workers  # threads that may run abandoned work
        self._executor = cf.ThreadPoolExecutor(max_workers=workers + self.spare, thread_name_prefix="hallucheck-serve")
        self._lock = threading.Lock()
        self._queue: collections.deque[_Job] = collections.deque()
        self.admitted = 0  # waiting + running
        self.running = 0
        self.abandoned = 0  # timed out, still running on a spare thread, not counted above
        self._live = 0  # jobs running on threads (``running`` also counts the I/O loop's)
        self._closed = False
        self._ewma = 0.05  # seconds per task, for Retry-After
        self._io_loop: asyncio.AbstractEventLoop | None = None
        self._io_turns: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}

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
        job = _Job(fn)
        with self._lock:
            if self._closed:
                self.admitted -= 1
                raise QueueFull
            self._queue.append(job)
            self._dispatch()
        return job.future, lambda: self._abandon(job)

    def _dispatch(self) -> None:
        """Start waiting jobs while a worker's place is free (the lock is held)."""
        while self._queue and self._live < self.workers and not self._closed:
            job = self._queue.popleft()
            job.state, job.t0 = "running", time.perf_counter()
            self.running += 1
            self._live += 1
            self._executor.submit(self._work, job)

    def _work(self, job: _Job) -> None:
        tid = threading.get_ident()
        result: Any = None
        error: BaseException | None = None
        try:
            with job.lock:
                job.thread = tid  # from here until it is cleared below, the job may be interrupted
            if job.stop:
                raise WorkAbandoned
            result = job.fn()
        except BaseException as exc:  # noqa: BLE001 -- WorkAbandoned too: the thread goes back to the pool
            error = exc if isinstance(exc, Exception) else RuntimeError("the work was stopped at its deadline")
        finally:
            while True:  # no interruption past this point, and none left pending
                try:
                    with job.lock:
                        job.thread = None
                    interrupt(tid, clear=True)
                    break
                except WorkAbandoned:
                    continue
        self._ended(job)  # counted out before anyone waiting hears the outcome
        if not job.future.done():
            if error is not None:
                job.future.set_exception(error)
            else:
                job.future.set_result(result)

    def _ended(self, job: _Job) -> None:
        with self._lock:
            if job.state == "abandoned":
                self.abandoned -= 1
            elif job.state == "running":
                self.running -= 1
                self._live -= 1
                self.admitted -= 1
                self._ewma = 0.8 * self._ewma + 0.2 * (time.perf_counter() - job.t0)
            job.state = "done"
            self._dispatch()

    def _abandon(self, job: _Job) -> None:
        """The caller stopped waiting (timeout): the job is told to stop, and its place frees now
        (see the module)."""
        with self._lock:
            if job.state == "waiting":
                self._queue.remove(job)
                job.state = "done"
                self.admitted -= 1
                job.future.cancel()
                return
            if job.state != "running":
                return  # finished already
            job.stop = True
            if self.abandoned < self.spare:
                job.state = "abandoned"
                self.running -= 1
                self._live -= 1
                self.admitted -= 1
                self.abandoned += 1
                self._ewma = 0.8 * self._ewma + 0.2 * (time.perf_counter() - job.t0)
                self._dispatch()
            # else: too many abandoned: it keeps its place until it stops, which it is told to now
        with job.lock:
            if job.thread is not None:
                interrupt(job.thread)

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
        place = _Place(self)

        def start() -> None:
            task = loop.create_task(self._turn(fn))
            box.append(task)
            task.add_done_callback(lambda t: (place.free(), _copy(t, future)))

        def cancel() -> None:  # runs after start(): the loop runs its callbacks in order
            loop.call_soon_threadsafe(lambda: box[0].cancel())
            answered = threading.Event()  # a loop held by work that awaits nothing runs no callback
            loop.call_soon_threadsafe(answered.set)
            timer = threading.Timer(IO_GRACE, self._left_behind, args=(loop, answered, place))
            timer.daemon = True
            timer.start()

        try:
            loop.call_soon_threadsafe(start)
        except RuntimeError:  # the loop is closed: shut down
            self._left()
            raise QueueFull from None
        return future, cancel

    def _left_behind(self, loop: asyncio.AbstractEventLoop, answered: threading.Event, place: "_Place") -> None:
        """A timed-out request's loop did not answer within the grace: unless too many are already
        left behind, later work goes to a new loop and the request's place frees now."""
        if answered.is_set():
            return
        with self._lock:
            if self.abandoned >= self.spare:
                return
            if self._io_loop is loop:
                self._io_loop = None
        place.abandon()

    async def _turn(self, fn: Callable[[], Any]) -> Any:
        loop = asyncio.get_running_loop()
        turns = self._io_turns.get(loop)
        if turns is None:
            turns = self._io_turns[loop] = asyncio.Semaphore(self.workers)
        async with turns:
            t0 = self._started()
            try:
                return await _aio.run(fn)
            finally:
                self._ran(t0)

    def shutdown(self) -> None:
        """Admit nothing more; cancel the work not started and the work on the I/O loop."""
        with self._lock:
            self._closed = True
            waiting, self._queue = list(self._queue), collections.deque()
            self.admitted -= len(waiting)
        for job in waiting:
            job.state = "done"
            job.future.cancel()
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
