"""Async running of the synchronous pipeline, without an async copy of every stage.

:func:`run` starts a synchronous function (``Pipeline.run``, ``Pipeline.mitigate``,
``LLMClient.complete``) in a greenlet on the event loop's thread. Where that code would wait —
a request to an OpenAI-compatible endpoint, a retry's pause, a local model's forward pass — it
calls :func:`wait` with an awaitable: the greenlet hands it to :func:`run`'s coroutine, which
awaits it on the loop and switches back with its result (or throws its exception in). Many
detections awaited together are then many greenlets on one thread, their requests in flight
together, and no thread is started per detection.

- :func:`wait` is for code that has an awaitable version (the OpenAI-compatible transport).
- :func:`blocking` runs a blocking call in the loop's default executor when inside :func:`run`
  (a local model, a backend without an async transport), directly otherwise.
- :func:`sleep` pauses a greenlet by ``asyncio.sleep``, a thread by ``time.sleep``.

Outside :func:`run` each of these is the plain synchronous call, so the synchronous path does
what it always did. Without the ``greenlet`` package (the ``async`` extra), :func:`run` falls
back to running the function in a worker thread (``asyncio.to_thread``).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import time
from typing import Any, Awaitable, Callable, TypeVar

try:
    import greenlet as _greenlet
except ImportError:  # the async extra is not installed: run() uses a worker thread
    _greenlet = None  # type: ignore[assignment]

T = TypeVar("T")


def available() -> bool:
    """True when :func:`run` runs on the event loop's thread (``greenlet`` is installed)."""
    return _greenlet is not None


if _greenlet is not None:

    class _Task(_greenlet.greenlet):
        """A greenlet started by :func:`run` (what :func:`inside` looks for)."""


def inside() -> bool:
    """True in code that :func:`run` is running (there, :func:`wait` may be called)."""
    return _greenlet is not None and isinstance(_greenlet.getcurrent(), _Task)


async def run(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` for async code: on this thread, in a greenlet that awaits on the
    event loop what it calls :func:`wait` with. Context variables are copied in (a caller's
    ``usage_scope`` sees the calls). Cancelling the awaiting task raises ``CancelledError``
    inside ``fn`` at the point where it waits."""
    if _greenlet is None:
        return await asyncio.to_thread(fn, *args, **kwargs)
    task = _Task(fn)
    task.gr_context = contextvars.copy_context()
    value = task.switch(*args, **kwargs)
    while not task.dead:
        try:
            result = await value
        except BaseException as exc:  # the awaitable's error (or a cancellation) goes in where it waited
            value = task.throw(exc)
        else:
            value = task.switch(result)
    return value


def wait(awaitable: Awaitable[T]) -> T:
    """Inside :func:`run`: suspend until ``awaitable`` has finished on the event loop; its result."""
    current = _greenlet.getcurrent() if _greenlet is not None else None
    if not isinstance(current, _Task):
        if hasattr(awaitable, "close"):
            awaitable.close()  # type: ignore[attr-defined]
        raise RuntimeError("hallucheck._aio.wait() is only for code started by hallucheck._aio.run().")
    return current.parent.switch(awaitable)


def blocking(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)``: in the event loop's default executor when inside :func:`run` (the
    loop keeps serving the other detections meanwhile; context variables go along), else here."""
    if not inside():
        return fn(*args, **kwargs)
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    return wait(_in_executor(call))


async def _in_executor(call: Callable[[], T]) -> T:
    return await asyncio.get_running_loop().run_in_executor(None, call)


def sleep(seconds: float) -> None:
    """Pause: ``asyncio.sleep`` inside :func:`run`, ``time.sleep`` elsewhere."""
    if inside():
        wait(asyncio.sleep(seconds))
    else:
        time.sleep(seconds)
