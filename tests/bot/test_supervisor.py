"""The supervisor of the long-running tasks: a task that dies or ends is logged and started
again after a pause, the heartbeat file names it while it is down (so the health check says
so), and stopping never raises."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path

import pytest

from bot import supervisor as supervision
from bot.runtime.health import Heartbeat, check_health
from bot.supervisor import Supervisor

WAIT_SECONDS = 30.0
"""How long a test waits at most for what happens within a second (this is no timing)."""


def note_pauses(monkeypatch: pytest.MonkeyPatch, count: int) -> tuple[list[float], asyncio.Event]:
    """Make the supervisor's pauses before a restart return at once, each noted in the list
    returned, until the `count`-th: that one sets the event returned and holds its task."""
    pauses: list[float] = []
    stop = asyncio.Event()

    async def noted(seconds: float) -> None:
        pauses.append(seconds)
        if len(pauses) == count:
            stop.set()
            await asyncio.Event().wait()

    monkeypatch.setattr(asyncio, "sleep", noted)  # the asyncio bot.supervisor uses
    return pauses, stop


async def test_a_task_that_dies_is_started_again_and_reported_down_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(supervision, "RESTART_SECONDS", 0.0)
    path = tmp_path / "heartbeat"
    heartbeat = Heartbeat(path)
    heartbeat.beat()
    dead = asyncio.Event()
    restart = asyncio.Event()
    again = asyncio.Event()
    runs = 0

    async def flaky() -> None:
        nonlocal runs
        runs += 1
        if runs == 1:
            raise RuntimeError("the disk said no")
        again.set()
        await asyncio.Event().wait()

    def reported(name: str) -> None:
        Heartbeat.task_down(heartbeat, name)
        dead.set()

    monkeypatch.setattr(heartbeat, "task_down", reported)
    sleep = asyncio.sleep

    async def held(seconds: float) -> None:  # the pause before the restart, held by the test
        await restart.wait()
        await sleep(seconds)

    monkeypatch.setattr(asyncio, "sleep", held)  # the asyncio bot.supervisor uses
    tasks = Supervisor(heartbeat)
    with caplog.at_level(logging.ERROR, logger="bot.supervisor"):
        tasks.start("flaky", flaky)
        await asyncio.wait_for(dead.wait(), WAIT_SECONDS)
        assert check_health(path) == (False, "unhealthy: the flaky task has been down for 0 s")
        restart.set()
        await asyncio.wait_for(again.wait(), WAIT_SECONDS)
    assert check_health(path)[0]
    (record,) = caplog.records
    assert record.getMessage() == "the flaky task died; starting it again in 0 s"
    assert record.exc_info is not None
    await tasks.stop()
    await tasks.stop()  # once is enough; again does no harm


async def test_a_task_that_ends_is_started_again_with_longer_pauses(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    pauses, stop = note_pauses(monkeypatch, 3)

    async def ends() -> None:
        return

    tasks = Supervisor()
    with caplog.at_level(logging.ERROR, logger="bot.supervisor"):
        tasks.start("brief", ends)
        await asyncio.wait_for(stop.wait(), WAIT_SECONDS)
    await tasks.stop()
    assert pauses == [1.0, 2.0, 4.0]
    assert caplog.records[0].getMessage() == "the brief task ended; starting it again in 1 s"
    assert caplog.records[0].exc_info is None


async def test_a_task_that_ran_a_long_while_before_it_died_is_paused_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Deaths in a row lengthen the pause; a run of STABLE_SECONDS or more starts the count
    again, so a task that dies once a day is never kept down for RESTART_MAX_SECONDS."""
    now = [0.0]
    runs = [0.0, 0.0, supervision.STABLE_SECONDS, 0.0]
    pauses, stop = note_pauses(monkeypatch, 4)

    async def dies() -> None:
        now[0] += runs.pop(0)
        raise RuntimeError("died")

    tasks = Supervisor(clock=lambda: now[0])
    tasks.start("daily", dies)
    await asyncio.wait_for(stop.wait(), WAIT_SECONDS)
    await tasks.stop()
    assert pauses == [1.0, 2.0, 1.0, 2.0]


async def test_the_pause_before_a_restart_doubles_up_to_a_minute_and_no_further(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A task that dies at once, again and again, waits at most RESTART_MAX_SECONDS between
    two runs: without the cap its twelfth pause would be half an hour, during which the
    heartbeat names it down and its work stands still."""
    pauses, stop = note_pauses(monkeypatch, 9)

    async def dies() -> None:
        raise RuntimeError("died")

    tasks = Supervisor(clock=lambda: 0.0)  # every run dies at once: nine deaths in a row
    tasks.start("flaky", dies)
    await asyncio.wait_for(stop.wait(), WAIT_SECONDS)
    await tasks.stop()
    assert supervision.RESTART_MAX_SECONDS == 60.0
    assert pauses == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0, 60.0]


async def test_stopping_cancels_again_and_gives_up_on_a_task_that_will_not_end(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(supervision, "CANCEL_AGAIN_SECONDS", 0.01)
    monkeypatch.setattr(supervision, "STOP_SECONDS", 0.05)
    released = asyncio.Event()

    async def loses_one_cancellation() -> None:
        # as asyncio.wait_for can, when what it waits for ends as the cancellation comes
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.Event().wait()
        await asyncio.Event().wait()

    async def will_not_end() -> None:
        while not released.is_set():
            with contextlib.suppress(asyncio.CancelledError):
                await released.wait()
        raise asyncio.CancelledError  # let go by the test at last

    tasks = Supervisor()
    lost = tasks.start("loses-one", loses_one_cancellation)
    stubborn = tasks.start("stubborn", will_not_end)
    await asyncio.sleep(0)
    with caplog.at_level(logging.WARNING, logger="bot.supervisor"):
        await asyncio.wait_for(tasks.stop(), WAIT_SECONDS)
    assert lost.cancelled()
    assert not stubborn.done()
    (record,) = caplog.records
    assert record.getMessage() == "tasks still running after 0 s of stopping: stubborn"
    released.set()
    await asyncio.wait({stubborn}, timeout=WAIT_SECONDS)
    assert stubborn.cancelled()


class FullDisk:
    """A heartbeat on a disk that is full: every write fails."""

    def __init__(self) -> None:
        self.writes = 0

    def task_down(self, name: str) -> None:
        self.writes += 1
        raise OSError(28, "No space left on device")

    def task_up(self, name: str) -> None:
        self.writes += 1
        raise OSError(28, "No space left on device")


async def test_a_heartbeat_that_cannot_be_written_does_not_stop_the_restarts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pauses, stop = note_pauses(monkeypatch, 2)
    heartbeat = FullDisk()

    async def dies() -> None:
        raise RuntimeError("died")

    tasks = Supervisor(heartbeat)
    kept = tasks.start("turn-clock", dies)
    stopped = asyncio.ensure_future(stop.wait())
    await asyncio.wait({kept, stopped}, timeout=WAIT_SECONDS, return_when=asyncio.FIRST_COMPLETED)
    stopped.cancel()
    assert not kept.done(), "the supervisor itself died"
    await tasks.stop()
    assert pauses == [1.0, 2.0]
    assert heartbeat.writes == 3  # down, up, down again
