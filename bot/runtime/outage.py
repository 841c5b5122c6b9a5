"""The outages of the database, and of Discord, as the operator sees them: one WARNING when
it goes, one INFO once it is back for good, and nothing per click or per game in between.

Discord's (`DiscordWatch`) are kept as the database's are, in an `Availability` of their own
(bot.edge.incidents): the first request Discord fails of its own fault (a 5xx, a cut
connection, no answer in time) marks it gone, and is one WARNING naming what failed; the bot's
own requests find it back (Discord is never probed), and the INFO says how long it failed and
how many requests it failed meanwhile. A refusal (4xx) is about one request: its own line.

Any use of the database that finds it unavailable marks it gone (bot.storage.availability);
the clicks meanwhile are answered that the game is paused for a moment, and counted
(bot.edge.answers). `DatabaseWatch` runs for the whole run: once the database is gone it logs
one WARNING with the first failure's reason, then probes it with a small write
(`Database.probe`) after pauses that double up to PROBE_MAX_SECONDS, until one commits. Then it
calls its `on_back` listeners at once (the turn clock looks at its due work), and whatever else
waits on the availability (a display to show again) goes on by itself.

A fault can flap: a disk at the brink of full frees a few pages and takes them back, and the
database is back for a moment, then gone again, many times over. That is one outage to the
operator, so the watch says it is over only once the database has stayed back for
STEADY_SECONDS: one INFO saying how long it was away (from the first failure to the return that
lasted), how many clicks and commands were turned away, and how many times it failed again in
between. A failure within that quiet period is probed as before, with no new WARNING. The
watch's own pause ends the quiet period, so the line comes whether or not anything uses the
database meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from bot.services.availability import Availability
from bot.storage.database import Database, DatabaseUnavailableError

log = logging.getLogger(__name__)

PROBE_SECONDS = 0.5
"""The first pause between two probes of a database that is away; each doubles it."""
PROBE_MAX_SECONDS = 2.0
"""The longest pause between two probes: a database back is noticed this soon."""
PROBE_TIMEOUT_SECONDS = 10.0
"""The longest wait for one probe (a server that takes connections but answers nothing)."""
STEADY_SECONDS = 5.0
"""How long the database, or Discord, must stay back before its outage is said to be over: a
failure sooner is the same outage flapping."""


class OutageWatch:
    """Logs a service's outages from its `Availability` (see the module): one WARNING as it
    goes, one INFO once it has stayed back for STEADY_SECONDS. Each service says how it is
    found back (`_until_back`) and words its two lines."""

    def __init__(
        self,
        availability: Availability,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """`clock` and `sleep` are the time the watch measures and waits in (a test's fake
        time)."""
        self._availability = availability
        self._clock = clock
        self._sleep = sleep
        self._listeners: list[Callable[[], None]] = []

    def on_back(self, listener: Callable[[], None]) -> None:
        """Call `listener` each time the service is found back, at once (on each return of
        a fault that flaps, not only once it has stayed back)."""
        self._listeners.append(listener)

    async def run(self) -> None:
        """Watch until cancelled."""
        availability = self._availability
        while True:
            await availability.gone()
            went = self._clock()
            log.warning("%s", self._gone_line(availability.reason))
            relapses = 0
            while True:
                await self._until_back()
                returned = self._clock()
                for listener in self._listeners:
                    listener()
                if not await self._within(STEADY_SECONDS, availability.gone()):
                    break
                relapses += 1
            again = f"; it failed again {_times(relapses)} meanwhile" if relapses else ""
            log.info("%s%s", self._back_line(returned - went), again)

    def _gone_line(self, reason: str) -> str:
        raise NotImplementedError

    def _back_line(self, seconds: float) -> str:
        raise NotImplementedError

    async def _until_back(self) -> None:
        """Return once the service is back."""
        await self._availability.back()

    async def _within(self, seconds: float, event: Awaitable[None]) -> bool:
        """Wait for `event` at most `seconds` of the watch's time; whether it came."""
        waiting = asyncio.ensure_future(event)
        pausing = asyncio.ensure_future(self._sleep(seconds))
        try:
            done, _ = await asyncio.wait((waiting, pausing), return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiting.cancel()
            pausing.cancel()
        return waiting in done


class DatabaseWatch(OutageWatch):
    """Logs the database's outages and probes it until it is back (see the module)."""

    def __init__(
        self,
        database: Database,
        turned_away: Callable[[], int],
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """`turned_away` says (and starts counting afresh) how many clicks and commands were
        answered that the game is paused since it was last asked."""
        super().__init__(database.availability, clock=clock, sleep=sleep)
        self._database = database
        self._turned_away = turned_away

    def _gone_line(self, reason: str) -> str:
        return f"the database is unavailable ({reason}); games are paused until it is back"

    def _back_line(self, seconds: float) -> str:
        return (
            f"the database is back after {seconds:.1f} s; "
            f"{self._turned_away()} clicks and commands were turned away"
        )

    async def _until_back(self) -> None:
        """Probe the database until a probe commits (or something else finds it back)."""
        availability = self._database.availability
        pause = PROBE_SECONDS
        while not availability.up:
            now = datetime.now(UTC).isoformat(timespec="milliseconds")
            # asyncio.timeout rather than wait_for: wait_for can lose a cancellation that comes
            # as the probe ends, and the watch would then outlive a stop.
            with contextlib.suppress(DatabaseUnavailableError, TimeoutError):
                async with asyncio.timeout(PROBE_TIMEOUT_SECONDS):
                    await self._database.probe(now)
            if availability.up:
                return
            await self._within(pause, availability.back())
            pause = min(pause * 2, PROBE_MAX_SECONDS)


class DiscordWatch(OutageWatch):
    """Logs Discord's outages: found back by the bot's own requests (a display tried again, a
    click, the turn clock), whose first answer marks it back (bot.edge.incidents)."""

    def __init__(
        self,
        availability: Availability,
        failed: Callable[[], int],
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """`failed` says (and starts counting afresh) how many requests Discord failed since
        it was last asked."""
        super().__init__(availability, clock=clock, sleep=sleep)
        self._failed = failed

    def _gone_line(self, reason: str) -> str:
        return f"Discord is failing ({reason}); what games show is posted once it answers again"

    def _back_line(self, seconds: float) -> str:
        return (
            f"Discord answers again after {seconds:.1f} s; "
            f"{self._failed()} requests failed meanwhile"
        )


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"
