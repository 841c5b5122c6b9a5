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
from typing import TYPE_CHECKING, Any

from bot.supervisor import cancel_and_wait

if TYPE_CHECKING:
    from bot.services.availability import Availability


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


class OutageWaits:
    """A controller's tasks waiting for the database to come back after an outage, which a
    stop ends before the database closes (`stop`). A message on its way that waits here is
    not counted as in flight meanwhile (`HANDLERS.aside`): the stop cancels its wait rather
    than spend its grace on it."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def __bool__(self) -> bool:
        """Whether any task waits (for tests)."""
        return bool(self._tasks)

    async def back(self, availability: Availability) -> None:
        """Wait, in a task HANDLERS follows, until `availability` is up (at once if it is)."""
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            with HANDLERS.aside():
                await availability.back()
        finally:
            self._tasks.discard(task)

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Let `stop` end `task` too (work that starts only once the database is back)."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def stop(self) -> None:
        """End every task waiting here; never raises."""
        await cancel_and_wait(list(self._tasks))
