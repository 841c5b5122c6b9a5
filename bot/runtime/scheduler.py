"""The turn-clock scheduler: one task that sleeps until the nearest reminder or automatic move.

It never polls: it asks the turn clock service when the next piece of work falls due, sleeps
until then on the injected clock, and is woken early whenever a turn clock or a game's display
changes (TurnClockService.on_schedule_change), in this process or, through the database, in
another one sharing it (bot.runtime.composition wires `wake` to the store's `listen`). The work
it gets is claimed for this process (TurnClockService.due_work), so of several processes one
does each piece. At start-up its first pass handles what fell due while the bot was down.
Tests drive `run_due` directly after moving their clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from bot.services.clock import Clock
from bot.services.errors import StaleBoardError
from bot.services.turn_clock import TurnClockService
from bot.services.views import DueWork
from bot.workers.pool import WorkerError

log = logging.getLogger(__name__)

RETRY_SECONDS = 30.0
"""How long a piece of work that failed waits before it is tried again; each further failure
doubles the wait, up to MAX_RETRY_SECONDS (a channel that is gone is not hammered)."""
MAX_RETRY_SECONDS = 3600.0
CONCURRENT_GAMES = 8
"""How many games' due work runs at once (an AI thinking in one game never holds up another)."""

Handler = Callable[[DueWork], Awaitable[None]]


class Scheduler:
    """Runs the turn clock's due work (reminders, AI turns, overdue displays) through `handle`,
    sleeping on the injected clock until the next piece falls due."""

    def __init__(self, turns: TurnClockService, handle: Handler, clock: Clock) -> None:
        self._turns = turns
        self._handle = handle
        self._clock = clock
        self._wake = asyncio.Event()
        self._retry_at: dict[DueWork, datetime] = {}
        self._failures: dict[DueWork, int] = {}
        self._handled: set[DueWork] = set()
        self._slots = asyncio.Semaphore(CONCURRENT_GAMES)
        self._task: asyncio.Task[None] | None = None
        turns.on_schedule_change(self.wake)

    def wake(self) -> None:
        """Look at the schedule again now (something changed)."""
        self._wake.set()

    async def run_due(self) -> int:
        """Handle every reminder and automatic move due by now (games side by side, at most
        CONCURRENT_GAMES at once); return how many were handled. A piece of work that fails,
        or that changes nothing, is logged and retried later (RETRY_SECONDS, doubling with
        each further failure up to MAX_RETRY_SECONDS)."""
        now = self._clock()
        due = await self._turns.due_work()
        self._retry_at = {work: at for work, at in self._retry_at.items() if work in due}
        self._failures = {work: n for work, n in self._failures.items() if work in due}
        runnable = []
        for work in due:
            retry_at = self._retry_at.get(work)
            if retry_at is not None and retry_at > now:
                continue
            if work in self._handled:
                # handled already and still due at the same seq: it changed nothing
                log.warning(
                    "%s of game %s changed nothing; retrying later", work.kind, work.game_id
                )
                self._postpone(work, now)
                continue
            runnable.append(work)
        outcomes = await asyncio.gather(*(self._attempt(work, now) for work in runnable))
        self._handled = {work for work, done in zip(runnable, outcomes, strict=True) if done}
        return len(self._handled)

    async def _attempt(self, work: DueWork, now: datetime) -> bool:
        async with self._slots:
            try:
                await self._handle(work)
            except StaleBoardError:
                # Another process did it first (its claim's lease ran out while it worked, or
                # a shifted clock): the game moved on, nothing is left to do.
                log.info("%s of game %s: done meanwhile by another", work.kind, work.game_id)
                return True
            except WorkerError as error:  # a worker died or hung: it was replaced
                log.warning(
                    "%s of game %s failed (%s); retrying later", work.kind, work.game_id, error
                )
                self._postpone(work, now)
                return False
            except Exception:
                log.exception("%s of game %s failed; retrying later", work.kind, work.game_id)
                self._postpone(work, now)
                return False
        self._retry_at.pop(work, None)
        self._failures.pop(work, None)
        return True

    def _postpone(self, work: DueWork, now: datetime) -> None:
        failures = self._failures[work] = self._failures.get(work, 0) + 1
        delay = min(RETRY_SECONDS * 2 ** (failures - 1), MAX_RETRY_SECONDS)
        self._retry_at[work] = now + timedelta(seconds=delay)

    async def seconds_to_sleep(self) -> float | None:
        """How long nothing is due (None: nothing scheduled at all)."""
        now = self._clock()
        wake_at = await self._turns.next_due()
        if wake_at is not None and wake_at <= now and self._retry_at:
            # what is due now is waiting for a retry: sleep until the earliest one
            wake_at = min(self._retry_at.values())
        if wake_at is None:
            return None
        return max(0.0, (wake_at - now).total_seconds())

    async def run_forever(self) -> None:
        while True:
            self._wake.clear()
            await self.run_due()
            delay = await self.seconds_to_sleep()
            if delay == 0.0:
                continue
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for swallows a cancellation
            # that arrives just as the wake-up does, and `stop` would then wait for ever.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._wake.wait()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self.run_forever(), name="turn-clock")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
