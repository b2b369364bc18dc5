"""Turns on the proxy's check pool, given round the requests.

A request that has many sentences to check does not queue them all ahead of another request's:
each request waits in its own line, and a turn that frees goes to the head of the next request's
line in turn (round robin). A request alone may use every turn: nothing is held back while no
one else waits.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Hashable


class FairTurns:
    """``slots`` turns at once, handed out round the keys (one key per request) of one event loop."""

    def __init__(self, slots: int) -> None:
        self.free = max(1, slots)
        self.lines: collections.OrderedDict[Hashable, collections.deque[asyncio.Future[None]]] = (
            collections.OrderedDict()
        )

    @property
    def waiting(self) -> int:
        return sum(len(q) for q in self.lines.values())

    async def acquire(self, key: Hashable) -> None:
        if self.free > 0 and not self.lines:
            self.free -= 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.lines.setdefault(key, collections.deque()).append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release()  # the turn came as the waiter was cancelled: pass it on
            else:
                line = self.lines.get(key)
                if line is not None and turn in line:
                    line.remove(turn)
                    if not line:
                        del self.lines[key]
            raise

    def release(self) -> None:
        while self.lines:
            key, line = next(iter(self.lines.items()))
            turn = line.popleft()
            if line:
                self.lines.move_to_end(key)  # this request's next check waits for the others' turns
            else:
                del self.lines[key]
            if not turn.done():
                turn.set_result(None)
                return
        self.free += 1
