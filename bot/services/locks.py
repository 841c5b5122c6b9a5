"""One asyncio lock per key (a game id), made when first wanted and dropped once nobody holds
or awaits it, so months of games never leave locks behind. The loader serialises each game's
changes with it; the display serialises the edits of each game's messages."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncIterator


class KeyedLocks:
    """A lock per key, alive only while in use."""

    def __init__(self) -> None:
        self._locks: dict[int, asyncio.Lock] = {}
        self._users: Counter[int] = Counter()

    @contextlib.asynccontextmanager
    async def holding(self, key: int) -> AsyncIterator[None]:
        """Hold the key's lock for the block."""
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        self._users[key] += 1
        try:
            async with lock:
                yield
        finally:
            self._users[key] -= 1
            if not self._users[key]:
                del self._users[key]
                del self._locks[key]

    def __len__(self) -> int:
        """How many keys have a lock now (held or awaited)."""
        return len(self._locks)
