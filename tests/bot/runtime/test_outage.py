"""The watch on the database: an outage is logged once when it starts (with its reason) and
once when it ends (how long, how many clicks were turned away), never in between, however many
probes fail; a fault that flaps (back for a moment, then gone again, many times) is one outage,
said to be over only once the database has stayed back for `STEADY_SECONDS`, and that line
comes by itself, with no further use of the database. The listeners hear each return at once.

The watch runs on a fake clock (`FakeTime`): its pauses end only when the test moves the time
on, so nothing here depends on how fast the machine is.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.runtime import outage
from bot.runtime.outage import DatabaseWatch
from bot.storage import GameStore, open_database
from bot.storage.database import PROBE_KEY, Database
from tests.polling import until

FULL = OSError(28, "No space left on device")
WENT = (
    logging.WARNING,
    (
        "the database is unavailable (OSError: [Errno 28] No space left on device); "
        "games are paused until it is back"
    ),
)


@dataclass
class FakeTime:
    """The watch's clock and its `sleep`: time moves only by `advance`."""

    now: float = 0.0
    pauses: list[tuple[float, asyncio.Future[None]]] = field(default_factory=list)
    """The pauses under way: when each ends, and what it waits on."""
    started: int = 0
    """How many pauses have begun."""

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        pause = (self.now + seconds, asyncio.get_running_loop().create_future())
        self.pauses.append(pause)
        self.started += 1
        try:
            await pause[1]
        finally:
            self.pauses.remove(pause)

    def advance(self, seconds: float) -> None:
        """Move the time on, ending every pause whose time has come."""
        self.now += seconds
        for ends, waiting in self.pauses:
            if ends <= self.now and not waiting.done():
                waiting.set_result(None)


@dataclass
class Watched:
    """A database on a disk the test fills and frees, and its watch on fake time."""

    database: Database
    time: FakeTime
    caplog: pytest.LogCaptureFixture
    full: bool = False
    hangs: bool = False
    """A server that takes the connection and answers nothing: each probe waits for ever."""
    returns: int = 0
    """How many times the listeners heard that the database is back."""
    turned_away: int = 0
    """The clicks and commands answered that the game is paused since the watch last asked."""
    watching: asyncio.Task[None] | None = None
    """The watch's task, once it runs."""

    def lines(self) -> list[tuple[int, str]]:
        return [(r.levelno, r.getMessage()) for r in self.caplog.records]

    def ended(self) -> bool:
        """Whether the watch has ended (it should run until the test stops it)."""
        return self.watching is not None and self.watching.done()

    async def paused(self, since: int) -> None:
        """Return once the watch has begun a pause after the first `since` ones."""
        await until(lambda: self.time.started > since or self.ended(), "the watch's next pause")
        if self.watching is not None and self.ended():
            raise AssertionError(f"the watch ended: {self.watching.exception()!r}")

    async def goes(self) -> None:
        """A use of the database finds the disk full; return once the watch has probed it
        and pauses."""
        self.full = True
        since = self.time.started
        self.database.availability.failed(FULL)
        await self.paused(since)

    async def returns_after(self, seconds: float) -> None:
        """The disk has room; return once the probe that ends the pause in `seconds` has
        committed and the listeners heard it."""
        self.full = False
        heard = self.returns
        self.time.advance(seconds)
        await until(lambda: self.returns > heard, "the database back")

    async def stays_back(self) -> None:
        """Return once the watch waits out the quiet period that follows a return."""
        await until(lambda: bool(self.time.pauses), "the watch's quiet period")
        ((ends, _),) = self.time.pauses
        assert ends == self.time.now + outage.STEADY_SECONDS


@pytest.fixture
async def watched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> AsyncIterator[Watched]:
    database = await open_database(tmp_path / "watched.sqlite3")
    time = FakeTime(now=100.0)
    state = Watched(database, time, caplog)
    probe = database.probe

    async def probed(now: str) -> None:
        if state.hangs:
            await asyncio.Event().wait()
        if state.full:
            raise database.availability.failed(FULL)
        await probe(now)

    def heard() -> None:
        state.returns += 1

    def turned_away() -> int:
        count, state.turned_away = state.turned_away, 0
        return count

    monkeypatch.setattr(database, "probe", probed)
    watch = DatabaseWatch(database, turned_away, clock=time, sleep=time.sleep)
    watch.on_back(heard)
    watching = state.watching = asyncio.create_task(watch.run())
    try:
        with caplog.at_level(logging.INFO, logger="bot.runtime.outage"):
            yield state
    finally:
        watching.cancel()
        await asyncio.wait({watching})
        await database.close()


async def test_an_outage_is_logged_once_as_it_starts_and_once_it_has_stayed_back(
    watched: Watched,
) -> None:
    watched.turned_away += 1  # the click that found the database gone is turned away
    await watched.goes()
    watched.turned_away += 2  # and two more, while it is away
    for pause in (0.5, 1.0, 2.0, 2.0, 2.0):  # five more probes fail, each pause twice the last
        ((ends, _),) = watched.time.pauses
        assert ends - watched.time.now == pytest.approx(pause), "up to the longest pause"
        since = watched.time.started
        watched.time.advance(pause)
        await watched.paused(since)
    assert watched.lines() == [WENT]
    await watched.returns_after(2.0)
    assert watched.database.availability.up
    assert await GameStore(watched.database).get_meta(PROBE_KEY) is not None
    assert watched.lines() == [WENT], "not said to be back before it has stayed back"
    await watched.stays_back()

    watched.time.advance(outage.STEADY_SECONDS)
    await until(lambda: len(watched.lines()) == 2, "the line saying it is back")
    assert watched.lines() == [
        WENT,
        (logging.INFO, "the database is back after 9.5 s; 3 clicks and commands were turned away"),
    ]
    assert watched.returns == 1


async def test_a_probe_that_answers_nothing_is_one_more_failed_probe(
    watched: Watched, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A probe given up after PROBE_TIMEOUT_SECONDS leaves the watch probing. Ended by it, the
    watch would be started again by the supervisor, and each hung probe would log the outage
    anew."""
    patience = outage.PROBE_TIMEOUT_SECONDS
    monkeypatch.setattr(outage, "PROBE_TIMEOUT_SECONDS", 0.01)
    watched.hangs = True
    await watched.goes()
    watched.turned_away += 3
    assert watched.lines() == [WENT]
    monkeypatch.setattr(outage, "PROBE_TIMEOUT_SECONDS", patience)  # the next probe commits
    watched.hangs = False
    await watched.returns_after(0.5)
    await watched.stays_back()

    watched.time.advance(outage.STEADY_SECONDS)
    await until(lambda: len(watched.lines()) == 2, "the line saying it is back")
    assert watched.lines() == [
        WENT,
        (logging.INFO, "the database is back after 0.5 s; 3 clicks and commands were turned away"),
    ]


async def test_a_fault_that_flaps_is_one_outage_logged_once_it_has_stayed_back(
    watched: Watched,
) -> None:
    """A disk at the brink of full: a few pages freed and taken back again and again, a click
    turned away at each failure."""
    watched.turned_away += 1
    await watched.goes()
    await watched.returns_after(0.5)
    for _ in range(18):
        watched.time.advance(0.3)
        watched.turned_away += 1
        await watched.goes()
        await watched.returns_after(0.5)
    assert watched.lines() == [WENT], "one line while it flaps"
    assert watched.returns == 19, "each return heard at once"

    await watched.stays_back()
    watched.time.advance(outage.STEADY_SECONDS)
    await until(lambda: len(watched.lines()) == 2, "the line saying it is back")
    assert watched.lines() == [
        WENT,
        (
            logging.INFO,
            (
                "the database is back after 14.9 s; 19 clicks and commands were turned away; "
                "it failed again 18 times meanwhile"
            ),
        ),
    ]

    await watched.goes()  # a new outage later is logged again
    assert watched.lines()[2:] == [WENT]


async def test_a_single_relapse_is_told_as_once(watched: Watched) -> None:
    await watched.goes()
    watched.turned_away += 3
    await watched.returns_after(0.5)
    watched.time.advance(0.3)
    await watched.goes()
    await watched.returns_after(0.5)

    await watched.stays_back()
    watched.time.advance(outage.STEADY_SECONDS)
    await until(lambda: len(watched.lines()) == 2, "the line saying it is back")
    assert watched.lines()[1] == (
        logging.INFO,
        (
            "the database is back after 1.3 s; 3 clicks and commands were turned away; "
            "it failed again once meanwhile"
        ),
    )
