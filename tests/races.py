"""Two changes of one thing at the same moment, in one process, played so that a missing lock
shows whatever the timing: `Race` holds each write until the other change has come as far as
it can. Nothing sleeps.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar

T = TypeVar("T")
Locking = Callable[[int], AbstractAsyncContextManager[None]]


class Race:
    """Two changes of one thing made at the same moment (`run` each), each of which reads it
    under a lock, then writes it. Whichever reaches its write (the function `write` wraps)
    waits there until the other has come as far as it can: to the lock the first holds (the
    lock `lock` wraps) or, had it no lock to wait for, to its own write. So with the lock the
    second reads what the first wrote; without it both read before either writes."""

    def __init__(self) -> None:
        self._come: set[asyncio.Task[Any] | None] = set()
        self._both = asyncio.Event()
        self._holding = 0

    def _came(self) -> None:
        self._come.add(asyncio.current_task())
        if len(self._come) == 2:
            self._both.set()

    def lock(self, locking: Locking) -> Locking:
        @contextlib.asynccontextmanager
        async def taking(key: int) -> AsyncIterator[None]:
            if self._holding:
                self._came()  # it waits for the other change, which holds the lock
            async with locking(key):
                self._holding += 1
                try:
                    yield
                finally:
                    self._holding -= 1

        return taking

    def write(self, write: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
        async def once_both_came(*args: Any, **kwargs: Any) -> T:
            self._came()
            await self._both.wait()
            return await write(*args, **kwargs)

        return once_both_came

    async def run(self, change: Awaitable[T]) -> T:
        try:
            return await change
        finally:
            self._came()  # done: nothing more to wait for
