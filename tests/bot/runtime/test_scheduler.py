"""The turn clock's scheduler: a piece of work whose worker died or hung is put off and tried
again, with a warning and no traceback (the worker pool has replaced the worker already); work
that changed nothing is put off too, and the turn clock sleeps until the earliest retry; work
a database outage stopped is not put off; the turn clock survives any failure, pausing longer
after each in a row, and stopping it never raises."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from bot import supervisor as supervision
from bot.runtime.scheduler import (
    BACKOFF_MAX_SECONDS,
    CONCURRENT_GAMES,
    MAX_RETRY_SECONDS,
    RETRY_SECONDS,
    Scheduler,
)
from bot.services import DueKind, DueWork
from bot.services.errors import StaleBoardError
from bot.storage.database import DatabaseUnavailableError
from bot.workers.pool import WorkerTimeoutError
from tests.polling import until

NOW = datetime(2026, 1, 1, tzinfo=UTC)
WORK = DueWork(game_id=7, seq=12, kind=DueKind.PLAY)


class OneGameDue:
    """The slice of GameService the scheduler reads: one AI turn is due."""

    def on_schedule_change(self, listener: Callable[[], None]) -> None:
        pass

    async def due_work(self) -> list[DueWork]:
        return [WORK]

    async def next_due(self) -> datetime:
        return NOW


async def test_a_worker_failure_is_retried_later_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [NOW]
    attempts: list[DueWork] = []

    async def handle(work: DueWork) -> None:
        attempts.append(work)
        if len(attempts) == 1:
            raise WorkerTimeoutError("choose_action ran over 30 s")

    scheduler = Scheduler(OneGameDue(), handle, lambda: now[0])  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING, logger="bot.runtime.scheduler"):
        assert await scheduler.run_due() == 0
    (warning,) = caplog.records
    assert warning.levelno == logging.WARNING
    assert warning.exc_info is None
    assert "play of game 7 failed (choose_action ran over 30 s)" in warning.getMessage()
    assert await scheduler.run_due() == 0, "not again before the retry is due"
    assert len(attempts) == 1
    now[0] = NOW + timedelta(seconds=RETRY_SECONDS)
    assert await scheduler.run_due() == 1
    assert attempts == [WORK, WORK]


async def test_work_that_changed_nothing_waits_for_its_retry_instead_of_spinning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Done, yet still due at the same seq: the next pass does not run it again but puts it
    off, and the turn clock sleeps until then rather than looking again at once."""
    attempts: list[DueWork] = []

    async def handle(work: DueWork) -> None:
        attempts.append(work)

    scheduler = Scheduler(OneGameDue(), handle, lambda: NOW)  # type: ignore[arg-type]
    assert await scheduler.run_due() == 1
    with caplog.at_level(logging.WARNING, logger="bot.runtime.scheduler"):
        assert await scheduler.run_due() == 0
    (warning,) = caplog.records
    assert "play of game 7 changed nothing; retrying later" in warning.getMessage()
    assert await scheduler.seconds_to_sleep() == RETRY_SECONDS
    assert await scheduler.run_due() == 0
    assert attempts == [WORK]


async def test_a_success_starts_the_count_of_failures_afresh() -> None:
    """Work that failed twice, then went through and is still due (it changed nothing) waits
    the first retry's pause again, not the third's."""
    now = [NOW]
    attempts: list[DueWork] = []

    async def handle(work: DueWork) -> None:
        attempts.append(work)
        if len(attempts) <= 2:
            raise WorkerTimeoutError("choose_action ran over 30 s")

    scheduler = Scheduler(OneGameDue(), handle, lambda: now[0])  # type: ignore[arg-type]
    assert await scheduler.run_due() == 0
    now[0] += timedelta(seconds=RETRY_SECONDS)
    assert await scheduler.run_due() == 0
    assert await scheduler.seconds_to_sleep() == 2 * RETRY_SECONDS
    now[0] += timedelta(seconds=2 * RETRY_SECONDS)
    assert await scheduler.run_due() == 1
    assert await scheduler.run_due() == 0  # still due: it changed nothing
    assert len(attempts) == 3
    assert await scheduler.seconds_to_sleep() == RETRY_SECONDS


class GrowingDue(OneGameDue):
    """Due work that grows: the games listed in `due`."""

    def __init__(self) -> None:
        self.due: list[DueWork] = [WORK]

    async def due_work(self) -> list[DueWork]:
        return list(self.due)


async def test_games_due_together_are_handled_side_by_side_at_most_concurrent_games_at_once() -> (
    None
):
    """Each game's work thinks until the test lets it end, as an AI does: as many games as
    CONCURRENT_GAMES think together, and the games beyond wait for one of them to end."""
    turns = GrowingDue()
    turns.due = [DueWork(game_id=n, seq=1, kind=DueKind.PLAY) for n in range(CONCURRENT_GAMES + 2)]
    thinking: set[int] = set()
    most = 0
    done: list[int] = []
    think = asyncio.Event()

    async def handle(work: DueWork) -> None:
        nonlocal most
        thinking.add(work.game_id)
        most = max(most, len(thinking))
        await think.wait()
        thinking.discard(work.game_id)
        done.append(work.game_id)

    scheduler = Scheduler(turns, handle, lambda: NOW)  # type: ignore[arg-type]
    passing = asyncio.create_task(scheduler.run_due())
    await until(lambda: bool(thinking), "a game thinking")
    assert len(thinking) == CONCURRENT_GAMES, f"games thinking at once: {len(thinking)}"
    think.set()
    assert await asyncio.wait_for(passing, 30) == CONCURRENT_GAMES + 2
    assert sorted(done) == list(range(CONCURRENT_GAMES + 2))
    assert most == CONCURRENT_GAMES, "never more at once"


async def test_the_turn_clock_sleeps_until_the_earliest_retry() -> None:
    now = [NOW]
    later = DueWork(game_id=8, seq=3, kind=DueKind.PLAY)

    async def handle(work: DueWork) -> None:
        raise WorkerTimeoutError(f"game {work.game_id} ran over")

    turns = GrowingDue()
    scheduler = Scheduler(turns, handle, lambda: now[0])  # type: ignore[arg-type]
    assert await scheduler.run_due() == 0  # game 7 retried at NOW + RETRY_SECONDS
    now[0] = NOW + timedelta(seconds=10)
    turns.due.append(later)
    assert await scheduler.run_due() == 0  # game 8 retried 10 s after game 7
    assert await scheduler.seconds_to_sleep() == RETRY_SECONDS - 10


async def test_a_retry_of_work_no_longer_due_does_not_wake_the_turn_clock() -> None:
    """Game 7's work failed and waits for its retry, then another process did it: it is no
    longer due. Game 8's work, due now, fails too: the turn clock sleeps until game 8's retry,
    not until game 7's, which has passed (it would look again at once, and again, spinning and
    holding the event loop until game 8's retry)."""
    now = [NOW]
    other = DueWork(game_id=8, seq=3, kind=DueKind.PLAY)

    async def handle(work: DueWork) -> None:
        raise WorkerTimeoutError(f"game {work.game_id} ran over")

    turns = GrowingDue()
    scheduler = Scheduler(turns, handle, lambda: now[0])  # type: ignore[arg-type]
    assert await scheduler.run_due() == 0  # game 7 retried at NOW + RETRY_SECONDS
    now[0] = NOW + timedelta(seconds=2 * RETRY_SECONDS)
    turns.due = [other]  # game 7's work done elsewhere; game 8's due now
    assert await scheduler.run_due() == 0  # game 8 retried RETRY_SECONDS from now
    assert await scheduler.seconds_to_sleep() == RETRY_SECONDS


async def test_work_that_keeps_failing_waits_twice_as_long_each_time_up_to_an_hour() -> None:
    """A channel gone for a day: once the cause is gone, its work waits out an hour at most."""
    now = [NOW]
    attempts: list[DueWork] = []

    async def handle(work: DueWork) -> None:
        attempts.append(work)
        raise WorkerTimeoutError("choose_action ran over 30 s")

    scheduler = Scheduler(OneGameDue(), handle, lambda: now[0])  # type: ignore[arg-type]
    waits: list[float] = []
    for _ in range(10):
        assert await scheduler.run_due() == 0
        wait = await scheduler.seconds_to_sleep()
        assert wait is not None
        waits.append(wait)
        now[0] += timedelta(seconds=wait)
    assert len(attempts) == 10, "tried once at each retry"
    assert MAX_RETRY_SECONDS == 3600.0
    assert waits == [30.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 3600.0, 3600.0, 3600.0]


def discord_failed(error: Exception) -> tuple[int, str] | None:
    """The scheduler's `explain` as the bot gives it: Discord's failures are expected (a
    DEBUG line, why in words), anything else is not."""
    if isinstance(error, ConnectionResetError):
        return logging.DEBUG, "Discord cut the connection"
    return None


async def test_an_expected_failure_is_one_line_at_its_level_and_is_retried_later(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Discord failing a reminder: one line at the level `explain` gives, saying why, with no
    traceback; the work is put off like any that failed."""
    attempts: list[DueWork] = []

    async def handle(work: DueWork) -> None:
        attempts.append(work)
        raise ConnectionResetError(104, "Connection reset by peer")

    scheduler = Scheduler(OneGameDue(), handle, lambda: NOW, discord_failed)  # type: ignore[arg-type]
    with caplog.at_level(logging.DEBUG, logger="bot.runtime.scheduler"):
        assert await scheduler.run_due() == 0
    (line,) = caplog.records
    assert (line.levelno, line.getMessage(), line.exc_info) == (
        logging.DEBUG,
        "play of game 7 failed (Discord cut the connection); retrying later",
        None,
    )
    assert await scheduler.seconds_to_sleep() == RETRY_SECONDS
    assert await scheduler.run_due() == 0
    assert attempts == [WORK], "not again before the retry is due"


async def test_a_failure_of_what_quiet_hours_held_names_the_person(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """What quiet hours held belongs to no game: its line names the person it goes to (the
    work's `seq`), not game 0."""
    release = DueWork(game_id=0, seq=42, kind=DueKind.RELEASE)

    class HeldDue(OneGameDue):
        async def due_work(self) -> list[DueWork]:
            return [release]

    async def handle(work: DueWork) -> None:
        raise WorkerTimeoutError("ran over")

    scheduler = Scheduler(HeldDue(), handle, lambda: NOW)  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING, logger="bot.runtime.scheduler"):
        assert await scheduler.run_due() == 0
    (line,) = caplog.records
    assert (
        line.getMessage() == "what quiet hours held for user 42 failed (ran over); retrying later"
    )


@pytest.mark.parametrize("explain", [discord_failed, None], ids=["unexplained", "no-explain"])
async def test_an_unexpected_failure_is_logged_with_its_traceback_and_retried_later(
    caplog: pytest.LogCaptureFixture,
    explain: Callable[[Exception], tuple[int, str] | None] | None,
) -> None:
    """A bug in the work's handling: an ERROR with the traceback, for whoever fixes it; the
    work is put off, not tried again at each pass."""
    now = [NOW]
    attempts: list[DueWork] = []

    async def handle(work: DueWork) -> None:
        attempts.append(work)
        raise KeyError("a bug")

    scheduler = Scheduler(OneGameDue(), handle, lambda: now[0], explain)  # type: ignore[arg-type]
    with caplog.at_level(logging.DEBUG, logger="bot.runtime.scheduler"):
        assert await scheduler.run_due() == 0
    (line,) = caplog.records
    assert (line.levelno, line.getMessage()) == (
        logging.ERROR,
        "play of game 7 failed; retrying later",
    )
    assert line.exc_info is not None
    assert line.exc_info[0] is KeyError
    assert await scheduler.seconds_to_sleep() == RETRY_SECONDS
    assert await scheduler.run_due() == 0
    assert attempts == [WORK], "not again before the retry is due"
    now[0] += timedelta(seconds=RETRY_SECONDS)
    assert await scheduler.run_due() == 0
    assert attempts == [WORK, WORK]


async def test_work_another_process_did_first_is_done_quietly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def handle(work: DueWork) -> None:
        raise StaleBoardError(work.game_id, 1, 2, None)

    scheduler = Scheduler(OneGameDue(), handle, lambda: NOW)  # type: ignore[arg-type]
    with caplog.at_level(logging.INFO, logger="bot.runtime.scheduler"):
        assert await scheduler.run_due() == 1
    (line,) = caplog.records
    assert line.levelno == logging.INFO
    assert "play of game 7: done meanwhile by another" in line.getMessage()


async def test_work_stopped_by_a_database_outage_is_not_put_off() -> None:
    attempts: list[DueWork] = []

    async def handle(work: DueWork) -> None:
        attempts.append(work)
        if len(attempts) == 1:
            raise DatabaseUnavailableError("the database is unavailable")

    scheduler = Scheduler(OneGameDue(), handle, lambda: NOW)  # type: ignore[arg-type]
    with pytest.raises(DatabaseUnavailableError):
        await scheduler.run_due()
    assert await scheduler.run_due() == 1, "tried again at once, not RETRY_SECONDS later"
    assert attempts == [WORK, WORK]


async def test_work_a_database_outage_stops_logs_nothing_per_game(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Every game's due work fails as the database goes away: the turn clock logs nothing for
    any of them (the outage is the watch's to log, once)."""
    works = [DueWork(game_id=game_id, seq=3, kind=DueKind.PLAY) for game_id in (1, 2, 3)]

    class ManyGamesDue(OneGameDue):
        async def due_work(self) -> list[DueWork]:
            return works

    async def handle(work: DueWork) -> None:
        raise DatabaseUnavailableError("the database is unavailable")

    scheduler = Scheduler(ManyGamesDue(), handle, lambda: NOW)  # type: ignore[arg-type]
    with (
        caplog.at_level(logging.DEBUG, logger="bot.runtime.scheduler"),
        pytest.raises(DatabaseUnavailableError),
    ):
        await scheduler.run_due()
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]
    assert said == [], "nothing per game"


class FailingTurns(OneGameDue):
    """The turn clock's reads fail: twice as if the database were away, then on a bug."""

    def __init__(self) -> None:
        self.failures: list[Exception] = [
            DatabaseUnavailableError("the database is unavailable"),
            DatabaseUnavailableError("the database is unavailable"),
            KeyError("a bug"),
        ]
        self.passed = asyncio.Event()

    async def due_work(self) -> list[DueWork]:
        if self.failures:
            raise self.failures.pop(0)
        self.passed.set()
        return []

    async def next_due(self) -> None:  # type: ignore[override]
        return None  # nothing scheduled: the turn clock waits to be woken


async def pauses_until_a_pass_succeeds(
    turns: FailingTurns, monkeypatch: pytest.MonkeyPatch
) -> list[float | None]:
    """The pauses a turn clock over `turns` asks for until a pass of it succeeds, each cut
    short as by a wake."""
    pauses: list[float | None] = []

    async def paused(delay: float | None) -> None:
        pauses.append(delay)
        if delay is None:  # nothing scheduled: wait to be woken
            await asyncio.Event().wait()

    async def handle(_work: DueWork) -> None:
        pass

    scheduler = Scheduler(turns, handle, lambda: NOW)  # type: ignore[arg-type]
    monkeypatch.setattr(scheduler, "_sleep", paused)
    scheduler.start()
    await asyncio.wait_for(turns.passed.wait(), 30)
    await scheduler.stop()
    return pauses


async def test_the_turn_clock_survives_any_failure_with_growing_pauses(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="bot.runtime.scheduler"):
        pauses = await pauses_until_a_pass_succeeds(FailingTurns(), monkeypatch)
    assert pauses[:3] == [1.0, 2.0, 4.0]
    (record,) = caplog.records  # the outage is the watch's to log, not the turn clock's
    assert record.getMessage() == "the turn clock failed; trying again in 4 s"
    assert record.exc_info is not None


class LongOutage(FailingTurns):
    """The database is away for eight passes of the turn clock in a row, then back."""

    def __init__(self) -> None:
        super().__init__()
        self.failures = [DatabaseUnavailableError("the database is unavailable")] * 8


async def test_the_turn_clock_s_pause_after_failures_in_a_row_stops_growing_at_30_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without the cap the pause would reach minutes, then hours, and a quiet server's
    timeouts, reminders and AI turns would wait it out once the database is back."""
    pauses = await pauses_until_a_pass_succeeds(LongOutage(), monkeypatch)
    assert BACKOFF_MAX_SECONDS == 30.0
    assert pauses[:8] == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]


class LookLater(OneGameDue):
    """Nothing due now, the next look an hour away; it keeps the scheduler's listener and
    counts its passes."""

    def __init__(self) -> None:
        self.listeners: list[Callable[[], None]] = []
        self.passes = 0

    def on_schedule_change(self, listener: Callable[[], None]) -> None:
        self.listeners.append(listener)

    async def due_work(self) -> list[DueWork]:
        self.passes += 1
        await asyncio.sleep(0)  # a read of the database
        return []

    async def next_due(self) -> datetime:
        return NOW + timedelta(hours=1)


async def test_a_change_of_the_schedule_cuts_the_turn_clock_s_sleep_short_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Asleep until its next look an hour away, the turn clock is woken by a change of the
    schedule: it looks at once, then sleeps again until the next change or look."""
    turns = LookLater()

    async def handle(_work: DueWork) -> None:
        pass

    scheduler = Scheduler(turns, handle, lambda: NOW)  # type: ignore[arg-type]
    sleeps: list[float | None] = []
    ended = 0
    sleep = scheduler._sleep

    async def counted(delay: float | None) -> None:
        nonlocal ended
        sleeps.append(delay)
        await sleep(delay)
        ended += 1

    monkeypatch.setattr(scheduler, "_sleep", counted)
    scheduler.start()
    try:
        await until(lambda: len(sleeps) == 1, "the turn clock asleep")
        assert (turns.passes, sleeps, ended) == (1, [3600.0], 0)
        (changed,) = turns.listeners  # the scheduler listens to the turn clock's changes
        changed()
        await until(lambda: len(sleeps) >= 2, "the turn clock asleep again")
        assert (turns.passes, sleeps, ended) == (2, [3600.0, 3600.0], 1), "one look per wake"
    finally:
        await scheduler.stop()


async def test_stopping_a_turn_clock_that_died_does_not_raise(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def handle(_work: DueWork) -> None:
        pass

    scheduler = Scheduler(OneGameDue(), handle, lambda: NOW)  # type: ignore[arg-type]

    async def dies() -> None:
        raise RuntimeError("out of the blue")

    scheduler.run_forever = dies  # type: ignore[method-assign]
    scheduler.start()
    await asyncio.sleep(0)
    with caplog.at_level(logging.ERROR, logger="bot.runtime.scheduler"):
        await scheduler.stop()
    (record,) = caplog.records
    assert record.getMessage() == "the turn clock had stopped on an error"


async def test_stopping_a_turn_clock_that_will_not_end_does_not_raise(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The stop gives up on a turn clock still running after STOP_SECONDS (it lost every
    cancellation): it says so and returns, so that the bot's other tasks are stopped too."""
    monkeypatch.setattr(supervision, "CANCEL_AGAIN_SECONDS", 0.01)
    monkeypatch.setattr(supervision, "STOP_SECONDS", 0.05)
    released = asyncio.Event()

    async def handle(_work: DueWork) -> None:
        pass

    async def will_not_end() -> None:
        while not released.is_set():
            with contextlib.suppress(asyncio.CancelledError):
                await released.wait()

    scheduler = Scheduler(OneGameDue(), handle, lambda: NOW)  # type: ignore[arg-type]
    scheduler.run_forever = will_not_end  # type: ignore[method-assign]
    scheduler.start()
    task = scheduler._task
    assert task is not None
    await asyncio.sleep(0)
    try:
        with caplog.at_level(logging.WARNING):
            await asyncio.wait_for(scheduler.stop(), 30)
        assert not task.done()
        (record,) = caplog.records
        assert record.getMessage() == "tasks still running after 0 s of stopping: turn-clock"
    finally:
        released.set()
        await asyncio.wait({task}, timeout=30)


class OutagesApart(OneGameDue):
    """Two outages of the database, each of two failed reads, with a good pass between."""

    def __init__(self) -> None:
        unavailable = DatabaseUnavailableError("the database is unavailable")
        self.script: list[Exception | None] = [unavailable, unavailable, None, unavailable]
        self.passed = asyncio.Event()

    async def due_work(self) -> list[DueWork]:
        if self.script:
            failure = self.script.pop(0)
            if failure is not None:
                raise failure
        else:
            self.passed.set()
        return []

    async def next_due(self) -> None:  # type: ignore[override]
        return None


async def test_a_good_pass_starts_the_turn_clocks_pauses_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pauses: list[float | None] = []
    turns = OutagesApart()

    async def paused(delay: float | None) -> None:
        pauses.append(delay)
        if turns.passed.is_set():
            await asyncio.Event().wait()

    async def handle(_work: DueWork) -> None:
        pass

    scheduler = Scheduler(turns, handle, lambda: NOW)  # type: ignore[arg-type]
    monkeypatch.setattr(scheduler, "_sleep", paused)  # each pause cut short, as by a wake
    scheduler.start()
    await asyncio.wait_for(turns.passed.wait(), 30)
    await scheduler.stop()
    assert pauses[:4] == [1.0, 2.0, None, 1.0]
