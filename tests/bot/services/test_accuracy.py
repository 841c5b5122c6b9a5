"""A person's accuracy in the stats: its mean and trend over their newest judged games, and the
background job that judges finished games in the workers and writes each person's seat once."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest

from ai.judge import SeatSummary, judge_game
from bot.services.accuracy import REST_PER_JUDGING, AccuracyRecorder
from bot.services.play import PlayService
from bot.services.stats import StatsService, accuracy_of
from bot.services.views import Accuracy
from bot.storage import Database, StatsStore
from bot.storage.stats import SeatAccuracy
from bot.workers import jobs
from bot.workers.pool import Lane, WorkerPool
from engine import record_from_json
from tests.bot.storage.test_stats import GUILD, finished_game, row
from tests.polling import until

GOLDEN = Path(__file__).resolve().parents[2] / "engine" / "golden" / "2p-standard.json"


def test_no_judged_game_has_no_accuracy() -> None:
    assert accuracy_of([]) is None


def test_the_trend_is_the_newer_half_against_the_older_half() -> None:
    assert accuracy_of([80.0, 70.0, 60.0]) == Accuracy(3, 70.0, None), "too few for a trend"
    assert accuracy_of([90.0, 80.0, 60.0, 50.0]) == Accuracy(4, 70.0, 30.0)
    odd = accuracy_of([90.0, 80.0, 60.0, 50.0, 0.0])
    assert odd == Accuracy(5, 56.0, 30.0), "the oldest of an odd count is left out of the trend"
    twenty = accuracy_of([80.0] * 10 + [70.0] * 10)
    assert twenty == Accuracy(20, 75.0, 10.0)
    falling = accuracy_of([60.0] * 10 + [70.0] * 10)
    assert falling == Accuracy(20, 65.0, -10.0)


async def test_the_stats_give_the_newest_twenty(database: Database) -> None:
    store = StatsStore(database)
    for value in range(25):  # opened oldest first, with accuracy 0, 1, ..., 24
        await finished_game(database, value, [row(0, 100, 30, 1)])
    for value, game in enumerate(reversed(await store.without_accuracy(30, 1000))):
        await store.add_accuracy(game.game_id, [SeatAccuracy(0, 100, float(value))])
    summary = await StatsService(store).player(GUILD, 100)
    # the newest 20 are 24 down to 5: mean 14.5; newest 10 (mean 19.5) against 10 before (9.5)
    assert summary.accuracy == Accuracy(20, 14.5, 10.0)
    assert (await StatsService(store).player(GUILD, 200)).accuracy is None


class _Play:
    def __init__(self, record: dict[str, Any]) -> None:
        self._record = record

    async def record(self, game_id: int) -> dict[str, Any]:
        return self._record


class _Pool:
    """Runs each job as the pool would, recording its lane."""

    def __init__(self) -> None:
        self.lanes: list[Lane] = []

    async def run(self, lane: Lane, function: Callable[..., Any], *args: Any, **_: Any) -> Any:
        self.lanes.append(lane)
        return function(*args)


def judged_at_once(record: object, seats: tuple[int, ...]) -> tuple[SeatSummary, ...]:
    """A judge that takes no time: seat N is 90 + N % accurate over 10 decisions."""
    return tuple(SeatSummary(seat, 10, 90.0 + seat, 0, 0, 0) for seat in seats)


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_the_job_judges_in_the_workers_and_writes_once(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs, "seat_accuracies", judged_at_once)
    data = json.loads(GOLDEN.read_text())
    await finished_game(database, 10, [row(0, 100, 30, 1), row(1, 200, 20, 2)])
    store = StatsStore(database)
    pool = _Pool()
    play = cast(PlayService, _Play(data))
    first = AccuracyRecorder(store, play, cast(WorkerPool, pool))
    second = AccuracyRecorder(store, play, cast(WorkerPool, pool))
    written = await asyncio.gather(first.catch_up(), second.catch_up())
    assert sum(written) == 2, "two judging the same game at once write its seats once"
    assert set(pool.lanes) == {Lane.SLOW}, "judged in the workers' slow lane, never on the loop"
    assert await first.catch_up() == 0, "nothing left to judge"
    assert await store.recent_accuracy(GUILD, 100, 20) == [90.0 + 0]
    assert await store.recent_accuracy(GUILD, 200, 20) == [90.0 + 1]


def test_the_job_judges_only_the_seats_asked() -> None:
    record = record_from_json(json.loads(GOLDEN.read_text()))
    (only,) = jobs.seat_accuracies(record, (1,))
    assert only == judge_game(record).summary(1)


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_the_rest_after_a_game_holds_into_the_next_pass(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = [1000.0]
    rests: list[float] = []

    def judged_in_two_seconds(record: object, seats: tuple[int, ...]) -> tuple[SeatSummary, ...]:
        clock[0] += 2.0
        return judged_at_once(record, seats)

    async def rest(seconds: float) -> None:
        rests.append(seconds)
        clock[0] += seconds

    monkeypatch.setattr(jobs, "seat_accuracies", judged_in_two_seconds)
    store = StatsStore(database)
    play = cast(PlayService, _Play(json.loads(GOLDEN.read_text())))
    recorder = AccuracyRecorder(
        store, play, cast(WorkerPool, _Pool()), now=lambda: clock[0], rest=rest
    )
    await finished_game(database, 10, [row(0, 100, 30, 1)])
    assert await recorder.catch_up() == 1
    assert rests == [], "the first game is judged at once"
    await finished_game(database, 11, [row(0, 100, 30, 1)])
    assert await recorder.catch_up() == 1, "a game closed: a new pass"
    assert rests == [2.0 * REST_PER_JUDGING], "the new pass rests as long as the last game asked"


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_the_job_catches_up_at_start_then_after_each_game_that_closes(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs, "seat_accuracies", judged_at_once)
    data = json.loads(GOLDEN.read_text())
    store = StatsStore(database)
    await finished_game(database, 10, [row(0, 100, 30, 1), row(1, 200, 20, 2)])
    recorder = AccuracyRecorder(store, cast(PlayService, _Play(data)), cast(WorkerPool, _Pool()))
    task = asyncio.create_task(recorder.run_forever())
    try:

        async def written(count: int) -> bool:
            return len(await store.recent_accuracy(GUILD, 100, 20)) == count

        await until(lambda: written(1), "the game that ended before the start judged")
        await finished_game(database, 11, [row(0, 100, 30, 1)])
        recorder.game_closed(0)
        await until(lambda: written(2), "the game that just closed judged")
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_a_seat_without_a_choice_is_judged_once_and_counts_in_no_average(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[int, ...]] = []

    def nothing_to_judge(record: object, seats: tuple[int, ...]) -> tuple[SeatSummary, ...]:
        calls.append(seats)
        return tuple(SeatSummary(seat, 0, 100.0, 0, 0, 0) for seat in seats)

    monkeypatch.setattr(jobs, "seat_accuracies", nothing_to_judge)
    data = json.loads(GOLDEN.read_text())
    await finished_game(database, 10, [row(0, 100, 30, 1)])
    store = StatsStore(database)
    recorder = AccuracyRecorder(store, cast(PlayService, _Play(data)), cast(WorkerPool, _Pool()))
    assert await recorder.catch_up() == 1
    restarted = AccuracyRecorder(store, cast(PlayService, _Play(data)), cast(WorkerPool, _Pool()))
    assert await restarted.catch_up() == 0
    assert calls == [(0,)], "judged once, even after a restart"
    assert (await StatsService(store).player(GUILD, 100)).accuracy is None
