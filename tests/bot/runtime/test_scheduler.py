"""The turn clock's scheduler: a piece of work whose worker died or hung is put off and tried
again, with a warning and no traceback (the worker pool has replaced the worker already)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from bot.runtime.scheduler import RETRY_SECONDS, Scheduler
from bot.services import DueKind, DueWork
from bot.services.errors import StaleBoardError
from bot.workers.pool import WorkerTimeoutError

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
