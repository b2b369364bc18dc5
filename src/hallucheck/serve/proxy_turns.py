"""Turns on the proxy's check pool, given round the requests.

A request that has many sentences to check does not queue them all ahead of another request's:
each request waits in its own line, and a turn that frees goes to the head of the next request's
line in turn (round robin). A request alone may use every turn, unless it asks for fewer (a
``cap``): the proxy caps a request whose checks are heavy (a long reference) one turn short of
all, so that another client's check never waits for one of its long checks to end.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Hashable

_NONE = object()


class FairTurns:
    """``slots`` turns at once, handed out round the keys (one key per request) of one event loop."""

    def __init__(self, slots: int) -> None:
        self.slots = max(1, slots)
        self.free = self.slots
        self.held: dict[Hashable, int] = {}
        self.caps: dict[Hashable, int] = {}
        self.lines: collections.OrderedDict[Hashable, collections.deque[asyncio.Future[None]]] = (
            collections.OrderedDict()
        )

    @property
    def waiting(self) -> int:
        return sum(len(q) for q in self.lines.values())

    def _may(self, key: Hashable) -> bool:
        return self.held.get(key, 0) < self.caps.get(key, self.slots)

    def _take(self, key: Hashable) -> None:
        self.free -= 1
        self.held[key] = self.held.get(key, 0) + 1

    async def acquire(self, key: Hashable, cap: int | None = None) -> None:
        """Wait for a turn for ``key``, which holds at most ``cap`` turns at once (default: all)."""
        if cap is not None:
            self.caps[key] = max(1, cap)
        if self.free > 0 and self._may(key):  # (a free turn means no one who may take it waits)
            self._take(key)
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.lines.setdefault(key, collections.deque()).append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release(key)  # the turn came as the waiter was cancelled: pass it on
            else:
                line = self.lines.get(key)
                if line is not None and turn in line:
                    line.remove(turn)
                    if not line:
                        del self.lines[key]
            raise

    def release(self, key: Hashable) -> None:
        self.free += 1
        held = self.held.get(key, 0) - 1
        if held > 0:
            self.held[key] = held
        else:
            self.held.pop(key, None)
            if key not in self.lines:
                self.caps.pop(key, None)
        self._hand_on()

    def _hand_on(self) -> None:
        """Free turns to the waiting keys in turn, each within its cap."""
        while self.free > 0:
            key = next((k for k in self.lines if self._may(k)), _NONE)
            if key is _NONE:  # (None is a key: the checks of no request)
                return
            line = self.lines[key]
            turn = line.popleft()
            if line:
                self.lines.move_to_end(key)  # this request's next check waits for the others' turns
            else:
                del self.lines[key]
            if not turn.done():
                self._take(key)
                turn.set_result(None)
