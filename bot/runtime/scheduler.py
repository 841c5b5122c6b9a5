"""The turn-clock scheduler: one task that sleeps until the nearest reminder or automatic move.

It never polls: it asks the turn clock service when the next piece of work falls due, sleeps
until then on the injected clock, and is woken early whenever a turn clock or a game's display
changes (TurnClockService.on_schedule_change), in this process or, through the database, in
another one sharing it (bot.runtime.composition wires `wake` to the store's `listen`). The work
it gets is claimed for this process (TurnClockService.due_work), so of several processes one
does each piece. At start-up its first pass handles what fell due while the bot was down.
Tests drive `run_due` directly after moving their clock.

It survives any failure: a pass that fails as a whole (the database is unavailable, or
anything else) is tried again after a pause that doubles with each failure in a row
(BACKOFF_SECONDS up to BACKOFF_MAX_SECONDS), or as soon as it is woken: the database coming
back wakes it (bot.runtime.outage), so the games go on at once. Work that failed because the
database went away is not put off: it is done in the first pass after.
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
from bot.services.views import DueKind, DueWork
from bot.storage.database import DatabaseUnavailableError
from bot.supervisor import Supervisor, cancel_and_wait
from bot.workers.pool import WorkerError

log = logging.getLogger(__name__)

RETRY_SECONDS = 30.0
"""How long a piece of work that failed waits before it is tried again; each further failure
doubles the wait, up to MAX_RETRY_SECONDS (a channel that is gone is not hammered)."""
MAX_RETRY_SECONDS = 3600.0
BACKOFF_SECONDS = 1.0
"""The first pause after a pass of the turn clock failed as a whole."""
BACKOFF_MAX_SECONDS = 30.0
CONCURRENT_GAMES = 8
"""How many games' due work runs at once (an AI thinking in one game never holds up another)."""

Handler = Callable[[DueWork], Awaitable[None]]
Explain = Callable[[Exception], tuple[int, str] | None]
"""Why a piece of work failed, in one line, and the level to log it at, when the failure is an
expected one (Discord's fault, a DEBUG line while its outage is logged once): logged without a
traceback; None for a failure nobody expected, logged with it."""


def named(work: DueWork) -> str:
    """The work in words for the log: a game's, or what quiet hours held for a person (whose
    work has no game: its `seq` is the person's id)."""
    if work.kind is DueKind.RELEASE:
        return f"what quiet hours held for user {work.seq}"
    return f"{work.kind} of game {work.game_id}"


class Scheduler:
    """Runs the turn clock's due work (reminders, AI turns, overdue displays) through `handle`,
    sleeping on the injected clock until the next piece falls due."""

    def __init__(
        self,
        turns: TurnClockService,
        handle: Handler,
        clock: Clock,
        explain: Explain | None = None,
    ) -> None:
        """`explain` says why a piece of work failed when that was expected (None: no
        failure is)."""
        self._turns = turns
        self._handle = handle
        self._explain = explain
        self._clock = clock
        self._wake = asyncio.Event()
        self._retry_at: dict[DueWork, datetime] = {}
        self._failures: dict[DueWork, int] = {}
        self._handled: set[DueWork] = set()
        self._slots = asyncio.Semaphore(CONCURRENT_GAMES)
        self._task: asyncio.Task[None] | None = None
        self._unavailable: DatabaseUnavailableError | None = None
        """The database went away during the pass being run."""
        turns.on_schedule_change(self.wake)

    def wake(self) -> None:
        """Look at the schedule again now (something changed)."""
        self._wake.set()

    async def run_due(self) -> int:
        """Handle every reminder and automatic move due by now (games side by side, at most
        CONCURRENT_GAMES at once); return how many were handled. A piece of work that fails,
        or that changes nothing, is logged and retried later (RETRY_SECONDS, doubling with
        each further failure up to MAX_RETRY_SECONDS); DatabaseUnavailableError once every
        piece of work was tried if the database went away meanwhile (the work it stopped is
        not put off)."""
        now = self._clock()
        self._unavailable = None
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
                log.warning("%s changed nothing; retrying later", named(work))
                self._postpone(work, now)
                continue
            runnable.append(work)
        outcomes = await asyncio.gather(*(self._attempt(work, now) for work in runnable))
        self._handled = {work for work, done in zip(runnable, outcomes, strict=True) if done}
        if self._unavailable is not None:
            raise self._unavailable
        return len(self._handled)

    async def _attempt(self, work: DueWork, now: datetime) -> bool:
        async with self._slots:
            try:
                await self._handle(work)
            except StaleBoardError:
                # Another process did it first (its claim's lease ran out while it worked, or
                # a shifted clock): the game moved on, nothing is left to do.
                log.info("%s: done meanwhile by another", named(work))
                return True
            except DatabaseUnavailableError as error:  # logged once by the outage watch
                self._unavailable = error
                return False
            except WorkerError as error:  # a worker died or hung: it was replaced
                log.warning("%s failed (%s); retrying later", named(work), error)
                self._postpone(work, now)
                return False
            except Exception as error:
                explained = self._explain(error) if self._explain is not None else None
                if explained is None:
                    log.exception("%s failed; retrying later", named(work))
                else:
                    level, reason = explained
                    log.log(level, "%s failed (%s); retrying later", named(work), reason)
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
        """Do the due work as it falls due, until cancelled, whatever fails (see the module)."""
        failures = 0
        while True:
            self._wake.clear()
            delay: float | None
            try:
                handled = await self.run_due()
                delay = await self.seconds_to_sleep()
                log.debug(
                    "turn clock: %d done; next look %s",
                    handled,
                    "when woken" if delay is None else f"in {delay:.1f} s or when woken",
                )
            except Exception as error:
                failures += 1
                delay = min(BACKOFF_SECONDS * 2 ** (failures - 1), BACKOFF_MAX_SECONDS)
                if not isinstance(error, DatabaseUnavailableError):
                    log.exception("the turn clock failed; trying again in %.0f s", delay)
            else:
                failures = 0
                if delay == 0.0:
                    continue
            await self._sleep(delay)

    async def _sleep(self, delay: float | None) -> None:
        """Wait `delay` seconds (None: until woken), or less if woken. asyncio.timeout rather
        than wait_for: wait_for can lose a cancellation that comes as the wake does, and the
        turn clock would then outlive a stop."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(delay):
                await self._wake.wait()

    def start(self, supervisor: Supervisor | None = None) -> None:
        """Run the turn clock in the background (kept running by `supervisor`, if given)."""
        if self._task is None:
            if supervisor is None:
                self._task = asyncio.create_task(self.run_forever(), name="turn-clock")
            else:
                self._task = supervisor.start("turn-clock", self.run_forever)

    async def stop(self) -> None:
        """Stop the turn clock; whatever ended it, if anything did, is logged, never raised."""
        task, self._task = self._task, None
        if task is None:
            return
        await cancel_and_wait([task])
        if task.done() and not task.cancelled() and task.exception() is not None:
            log.error("the turn clock had stopped on an error", exc_info=task.exception())
