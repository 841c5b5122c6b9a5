"""Interaction handlers still running, so a clean stop can let them finish first.

A stop (SIGTERM) must not close the database under a click still being handled: its move
would be committed while its message went unrecorded, and the handler would fail on a closed
database. So the stop waits, for a bounded time, until every handler has returned, and until
the messages a change left on their way are sent: a coached decision's verdict (its click's
follow-up), the direct messages of a turn just posted (its player's, its watchers'), which
nothing sends again once cut off.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any


class InFlight:
    """Counts running handlers; `drained` waits until there are none."""

    def __init__(self) -> None:
        self.count = 0
        self._waiters: list[asyncio.Future[None]] = []

    @contextlib.contextmanager
    def track(self) -> Iterator[None]:
        self.count += 1
        try:
            yield
        finally:
            self._leave()

    @contextlib.contextmanager
    def aside(self) -> Iterator[None]:
        """Within a counted task (a handler, or a task `follow`s): not counted while it waits
        for what a stop must not wait for, the database back after an outage (the stop
        cancels such a wait instead)."""
        self._leave()
        try:
            yield
        finally:
            self.count += 1

    def _leave(self) -> None:
        self.count -= 1
        if self.count == 0:
            waiters, self._waiters = self._waiters, []
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)

    def follow(self, task: asyncio.Future[Any]) -> None:
        """Count `task`, a message on its way that nothing would send again once cut off, as
        a running handler until it ends."""
        tracking = self.track()
        tracking.__enter__()
        task.add_done_callback(lambda _: tracking.__exit__(None, None, None))

    async def drained(self, within: float) -> bool:
        """Wait until no handler runs (True), or `within` seconds (False)."""
        if self.count == 0:
            return True
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await asyncio.wait_for(waiter, within)
        except TimeoutError:
            return False
        return True


HANDLERS = InFlight()
"""Every interaction handler of this process (the bot runs one event loop)."""
