"""A person's accuracy in the stats: its mean and trend over their newest judged games, and the
background job that judges finished games in the workers and writes each person's seat once."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Callable
from typing import Any, cast

import pytest

import engine
from ai.judge import GameJudgement, SeatSummary, summarise
from ai.judge_json import judgement_to_json
from bot.presentation.drill import DrillPictures, seat_of
from bot.services import accuracy
from bot.services.accuracy import REST_PER_JUDGING, AccuracyRecorder, own_accuracy
from bot.services.analysis import finished_game as finished_game_of
from bot.services.errors import GameNotFoundError
from bot.services.judgements import GameJudgements
from bot.services.play import PlayService
from bot.services.stats import StatsService, accuracy_of
from bot.services.views import Accuracy, GameStatus
from bot.storage import Database, StatsStore
from bot.storage.database import DatabaseUnavailableError
from bot.storage.judgements import JudgementStore
from bot.storage.stats import PendingGame, SeatAccuracy
from bot.workers import jobs
from bot.workers.pool import Lane, WorkerPool
from engine import Record
from tests.bot.services.test_async_play import (
    BOB,
    HOST,
    LIMIT,
    ManualClock,
    make_table,
    two_humans,
)
from tests.bot.services.test_async_play import GUILD as SERVICE_GUILD
from tests.bot.services.test_judgements import golden_judgement
from tests.bot.services.test_ratings import DAVE, opened
from tests.bot.services.test_service import play_out, service_on, step
from tests.bot.storage.test_stats import GUILD, finished_game, row
from tests.judged import actors_of, count_judgings, golden_data
from tests.polling import until

GOLDEN = "2p-standard"


def test_no_judged_game_has_no_accuracy() -> None:
    assert accuracy_of([]) is None


def test_the_trend_is_the_newer_half_against_the_older_half() -> None:
    few = [80.0, 70.0, 60.0]
    assert accuracy_of(few) == Accuracy(3, 70.0, None, tuple(few)), "too few for a trend"
    four = [90.0, 80.0, 60.0, 50.0]
    assert accuracy_of(four) == Accuracy(4, 70.0, 30.0, tuple(four))
    odd = accuracy_of([*four, 0.0])
    assert odd is not None
    assert (odd.average, odd.trend) == (56.0, 30.0), "the oldest of an odd count is left out"
    twenty = accuracy_of([80.0] * 10 + [70.0] * 10)
    assert twenty is not None
    assert (twenty.games, twenty.average, twenty.trend) == (20, 75.0, 10.0)
    falling = accuracy_of([60.0] * 10 + [70.0] * 10)
    assert falling is not None
    assert (falling.average, falling.trend) == (65.0, -10.0)


async def test_the_stats_give_the_newest_twenty(database: Database) -> None:
    """A player who gets worse game after game: the newest 20 are their worst, and the trend
    falls."""
    store = StatsStore(database)
    for channel in range(25):
        await finished_game(database, channel, [row(0, 100, 30, 1)])
    newest_first = await store.without_accuracy(30, 1000)
    for value, game in enumerate(newest_first):  # the newest 0, the one before 1, ..., 24
        await store.add_accuracy(game.game_id, [SeatAccuracy(0, 100, float(value))])
    summary = await StatsService(store).player(GUILD, 100)
    # the newest 20 are 0 up to 19: mean 9.5; newest 10 (mean 4.5) against 10 before (14.5)
    assert summary.accuracy == Accuracy(20, 9.5, -10.0, tuple(float(v) for v in range(20)))
    assert (await StatsService(store).player(GUILD, 200)).accuracy is None


async def test_a_substitute_without_a_game_of_their_own_has_the_accuracy_of_the_seat_they_finished(
    database: Database,
) -> None:
    """Dave finished a seat for 300 and has no game of his own: the decisions he made in it
    are judged, and his stats give their accuracy."""
    store = StatsStore(database)
    left = dataclasses.replace(
        row(0, 300, 30, 2), won=False, eliminated=True, finished_by=DAVE, finished_place=1
    )
    game = await finished_game(database, 1, [left, row(1, 100, 40, 1)])
    await store.add_accuracy(game, [SeatAccuracy(0, 300, 70.0), SeatAccuracy(0, DAVE, 84.0)])
    summary = await StatsService(store).player(GUILD, DAVE)
    assert summary.games == 0
    assert summary.accuracy == Accuracy(1, 84.0, None, (84.0,))


class _Play:
    """Every finished game is `record`, each seat's decisions made by the person its results
    name (the one who held it at the end, or who left it to a substitute)."""

    def __init__(self, record: dict[str, Any], database: Database) -> None:
        self._record = record
        self._database = database

    async def record(self, game_id: int) -> dict[str, Any]:
        return self._record

    async def actors(self, game_id: int) -> tuple[int | None, ...]:
        async with self._database.single_read() as conn:
            seats = await conn.fetch(
                "SELECT seat, user_id FROM results WHERE game_id = $1 AND user_id IS NOT NULL",
                game_id,
            )
        return actors_of(self._record, {int(seat[0]): int(seat[1]) for seat in seats})

    @classmethod
    def of(cls, record: dict[str, Any], database: Database) -> PlayService:
        return cast(PlayService, cls(record, database))


def judgements(database: Database, pool: object) -> GameJudgements:
    """A process's judgements of finished games, over `database`, judging in `pool`."""
    return GameJudgements(JudgementStore(database), cast(WorkerPool, pool))


def golden_recorder(database: Database, store: StatsStore) -> AccuracyRecorder:
    """A process's accuracy recorder whose every finished game is the golden 2-player record,
    judged by `_Pool`."""
    play = _Play.of(golden_data(GOLDEN), database)
    return AccuracyRecorder(store, play, judgements(database, _Pool()))


class _Pool:
    """Runs each job as the pool would, recording its lane."""

    def __init__(self) -> None:
        self.lanes: list[Lane] = []

    async def run(self, lane: Lane, function: Callable[..., Any], *args: Any, **_: Any) -> Any:
        self.lanes.append(lane)
        return function(*args)


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_the_job_judges_in_the_workers_and_writes_once(
    database: Database, judged: list[int]
) -> None:
    data = golden_data(GOLDEN)
    await finished_game(database, 10, [row(0, 100, 30, 1), row(1, 200, 20, 2)])
    store = StatsStore(database)
    pool = _Pool()
    play = _Play.of(data, database)
    first = AccuracyRecorder(store, play, judgements(database, pool))
    second = AccuracyRecorder(store, play, judgements(database, pool))
    written = await asyncio.gather(first.catch_up(), second.catch_up())
    assert sum(written) == 2, "two processes judging the same game at once write its seats once"
    assert set(pool.lanes) == {Lane.SLOW}, "judged in the workers' slow lane, never on the loop"
    assert await first.catch_up() == 0, "nothing left to judge"
    assert len(judged) == 2, "two processes judging at once: each judged, one kept"
    judged_game = golden_judgement()
    assert await store.recent_accuracy(GUILD, 100, 20) == [judged_game.summary(0).accuracy]
    assert await store.recent_accuracy(GUILD, 200, 20) == [judged_game.summary(1).accuracy]


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_a_person_gets_the_accuracy_of_their_own_seat_with_an_ai_seated_before_them(
    database: Database, judged: list[int]
) -> None:
    """The stats show the figure the analysis picture shows beside the person's name: their own
    seat's, not that of the seat at their rank among the people."""
    golden = golden_judgement()
    assert golden.summary(0).accuracy != golden.summary(1).accuracy, "the two seats differ"
    await finished_game(database, 10, [row(1, 200, 20, 1)])  # seat 0: an AI
    store = StatsStore(database)
    assert await golden_recorder(database, store).catch_up() == 1
    assert await store.recent_accuracy(GUILD, 200, 20) == [golden.summary(1).accuracy]


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_the_job_catches_up_at_start_then_after_each_game_that_closes(
    database: Database, judged: list[int]
) -> None:
    store = StatsStore(database)
    await finished_game(database, 10, [row(0, 100, 30, 1), row(1, 200, 20, 2)])
    recorder = golden_recorder(database, store)
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
async def test_the_rest_after_a_game_holds_into_the_next_pass(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = [1000.0]
    rests: list[float] = []
    judgement = judgement_to_json(golden_judgement())

    def judged_in_two_seconds(record: Record) -> str:
        clock[0] += 2.0
        return judgement

    async def rest(seconds: float) -> None:
        rests.append(seconds)
        clock[0] += seconds

    monkeypatch.setattr(jobs, "judged_game", judged_in_two_seconds)
    store = StatsStore(database)
    recorder = AccuracyRecorder(
        store,
        _Play.of(golden_data(GOLDEN), database),
        judgements(database, _Pool()),
        now=lambda: clock[0],
        rest=rest,
    )
    await finished_game(database, 10, [row(0, 100, 30, 1)])
    assert await recorder.catch_up() == 1
    assert rests == [], "the first game is judged at once"
    await finished_game(database, 11, [row(0, 100, 30, 1)])
    assert await recorder.catch_up() == 1, "a game closed: a new pass"
    assert rests == [2.0 * REST_PER_JUDGING], "the new pass rests as long as the last game asked"


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_a_seat_without_a_choice_is_judged_once_and_counts_in_no_average(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []

    def nothing_to_judge(record: Record) -> str:
        calls.append(len(record.actions))
        seats = tuple(SeatSummary(seat, 0, 100.0, 0, 0, 0) for seat in range(record.players))
        return judgement_to_json(GameJudgement(record.players, (), seats))

    monkeypatch.setattr(jobs, "judged_game", nothing_to_judge)
    await finished_game(database, 10, [row(0, 100, 30, 1)])
    store = StatsStore(database)
    recorder = golden_recorder(database, store)
    assert await recorder.catch_up() == 1
    restarted = golden_recorder(database, store)
    assert await restarted.catch_up() == 0
    assert len(calls) == 1, "judged once, even after a restart"
    assert (await StatsService(store).player(GUILD, 100)).accuracy is None


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_a_game_whose_judging_fails_is_left_until_the_next_start(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []

    def failing(record: Record) -> str:
        calls.append(len(record.actions))
        raise RuntimeError("the worker failed")

    monkeypatch.setattr(jobs, "judged_game", failing)
    await finished_game(database, 10, [row(0, 100, 30, 1)])
    store = StatsStore(database)
    recorder = golden_recorder(database, store)
    assert await recorder.catch_up() == 0
    assert await recorder.catch_up() == 0, "a game closed: a new pass"
    assert len(calls) == 1, "not judged again in this process"
    restarted = golden_recorder(database, store)
    assert await restarted.catch_up() == 0
    assert len(calls) == 2, "tried again at the next start"


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_a_game_whose_log_and_record_disagree_is_left_unjudged(
    database: Database, judged: list[int], caplog: pytest.LogCaptureFixture
) -> None:
    """A log with one move more than the record (damaged) would credit each decision to the
    wrong person: the game is logged and left unjudged, with no accuracy written."""

    class _OneMoveMore(_Play):
        async def actors(self, game_id: int) -> tuple[int | None, ...]:
            return (*await super().actors(game_id), None)

    await finished_game(database, 10, [row(0, 100, 30, 1), row(1, 200, 20, 2)])
    store = StatsStore(database)
    play = cast(PlayService, _OneMoveMore(golden_data(GOLDEN), database))
    recorder = AccuracyRecorder(store, play, judgements(database, _Pool()))
    assert await recorder.catch_up() == 0
    assert judged == [], "never judged"
    assert await store.recent_accuracy(GUILD, 100, 20) == []
    assert "accuracy of game" in caplog.text, caplog.text


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
@pytest.mark.parametrize("gone", ["before its record is read", "while it is judged"])
async def test_a_game_gone_after_the_look_for_games_is_skipped_quietly(
    gone: str, database: Database, judged: list[int], caplog: pytest.LogCaptureFixture
) -> None:
    """A game listed for judging is deleted before its record is read, or while it is judged:
    the job leaves it without a traceback or an error in the log, and judges the other game of
    the pass."""
    await finished_game(database, 10, [row(0, 100, 30, 1)])
    deleted = await finished_game(database, 11, [row(0, 200, 30, 1)])

    class _Deleted(_Play):
        async def record(self, game_id: int) -> dict[str, Any]:
            if game_id == deleted:
                if gone == "before its record is read":
                    raise GameNotFoundError(game_id)
                async with database.transaction() as conn:
                    await conn.execute("DELETE FROM games WHERE id = $1", game_id)
            return await super().record(game_id)

    store = StatsStore(database)
    play = cast(PlayService, _Deleted(golden_data(GOLDEN), database))
    recorder = AccuracyRecorder(store, play, judgements(database, _Pool()))
    assert await recorder.catch_up() == 1, "the other game judged"
    assert len(await store.recent_accuracy(GUILD, 100, 20)) == 1
    assert await store.recent_accuracy(GUILD, 200, 20) == []
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_a_game_gone_before_its_moves_are_read_is_skipped_quietly(
    database: Database, judged: list[int], caplog: pytest.LogCaptureFixture
) -> None:
    """A finished game is deleted after the job read its record but before it read who made its
    moves (a deleted game's log reads empty): the job leaves it without a traceback or an error
    in the log, and judges it in no later pass."""
    service = service_on(database)
    view = await play_out(service, await opened(service, (HOST, BOB), channel=700))
    assert view.status is GameStatus.OVER
    play = service.play

    class _DeletedAfterItsRecord:
        async def record(self, game_id: int) -> dict[str, Any]:
            data = await play.record(game_id)
            async with database.transaction() as conn:
                await conn.execute("DELETE FROM games WHERE id = $1", game_id)
            return data

        async def actors(self, game_id: int) -> tuple[int | None, ...]:
            return await play.actors(game_id)

    store = StatsStore(database)
    deleting = cast(PlayService, _DeletedAfterItsRecord())
    recorder = AccuracyRecorder(store, deleting, judgements(database, _Pool()))
    assert await recorder.catch_up() == 0
    assert judged == [], "never judged"
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert await recorder.catch_up() == 0, "nothing left to judge"


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_a_game_whose_judging_failed_takes_no_place_of_another_in_a_pass(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One game a pass, the newest failing: the next pass judges the game before it, as a
    pass of its own, rather than taking the failed one again in its place."""
    monkeypatch.setattr(accuracy, "PASS_GAMES", 1)
    judgement = judgement_to_json(golden_judgement())
    calls: list[int] = []

    def failing_once(record: Record) -> str:
        calls.append(len(record.actions))
        if len(calls) == 1:
            raise RuntimeError("the worker failed")
        return judgement

    monkeypatch.setattr(jobs, "judged_game", failing_once)
    store = StatsStore(database)
    await finished_game(database, 10, [row(0, 100, 30, 1)])
    await finished_game(database, 11, [row(0, 200, 30, 1)])
    recorder = golden_recorder(database, store)
    assert await recorder.catch_up() == 0, "the newest game failed"
    assert await recorder.catch_up() == 1, "the game before it, in the next pass"
    assert len(calls) == 2
    assert len(await store.recent_accuracy(GUILD, 100, 20)) == 1
    assert await store.recent_accuracy(GUILD, 200, 20) == []


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
@pytest.mark.parametrize("outage", ["looking for games", "writing the accuracy"])
async def test_a_game_an_outage_kept_from_being_judged_is_judged_once_the_database_is_back(
    outage: str,
    database: Database,
    judged: list[int],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The database goes away as the job looks for games to judge, or as it writes a game's
    accuracy: the job pauses and goes on by itself, the game is judged in this very run (not
    left for the next start), and the log has no traceback (the watch logs the outage)."""
    monkeypatch.setattr(accuracy, "BACKOFF_SECONDS", 0.0)
    store = StatsStore(database)
    await finished_game(database, 10, [row(0, 100, 30, 1)])
    method = "shown_without_accuracy" if outage == "looking for games" else "add_accuracy"
    plain = getattr(store, method)
    failures: list[str] = []

    async def away_once(*args: Any) -> Any:
        if not failures:
            failures.append(method)
            raise DatabaseUnavailableError("the database is unavailable (disk I/O error)")
        return await plain(*args)

    monkeypatch.setattr(store, method, away_once)
    recorder = golden_recorder(database, store)
    task = asyncio.create_task(recorder.run_forever())
    try:

        async def written() -> bool:
            return len(await store.recent_accuracy(GUILD, 100, 20)) == 1

        await until(lambda: written() if not task.done() else True, "the game judged")
        assert not task.done(), "the job lives through the outage"
        assert await written()
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert failures == [method]
    assert [r.getMessage() for r in caplog.records if r.exc_info] == []


async def two_games_noting_looks(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> tuple[StatsStore, list[str]]:
    """Two finished games of two people each (100 and 200, then 300 and 400), and their store,
    whose two looks for games to judge (without_accuracy, shown_without_accuracy) note their
    names, in the order they are called, in the list returned with it."""
    store = StatsStore(database)
    await finished_game(database, 10, [row(0, 100, 30, 1), row(1, 200, 20, 2)])
    await finished_game(database, 11, [row(0, 300, 30, 1), row(1, 400, 20, 2)])
    looked: list[str] = []
    for name in ("without_accuracy", "shown_without_accuracy"):
        monkeypatch.setattr(store, name, _noting(looked, name, getattr(store, name)))
    return store, looked


def _noting(looked: list[str], name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    async def noted(*args: Any) -> Any:
        looked.append(name)
        return await method(*args)

    return noted


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_the_start_judges_each_person_s_newest_games_older_than_the_window(
    database: Database, judged: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(accuracy, "WINDOW_GAMES", 1)
    store, looked = await two_games_noting_looks(database, monkeypatch)
    recorder = golden_recorder(database, store)
    assert await recorder.catch_up() == 4, "both games, the older beyond the window"
    assert len(await store.recent_accuracy(GUILD, 100, 20)) == 1
    await finished_game(database, 12, [row(0, 100, 30, 1), row(1, 200, 20, 2)])
    assert await recorder.catch_up() == 2, "a game that closes"
    assert looked == ["shown_without_accuracy", "without_accuracy"], (
        "the start looks for each person's newest games; later passes among the newest only"
    )


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_the_start_looks_back_until_a_pass_finds_fewer_games_than_it_asked_for(
    database: Database, judged: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pass that judged all the games it asked for may have left older ones: the passes go on
    looking through every finished game until one comes back short, then look among the newest
    only."""
    monkeypatch.setattr(accuracy, "PASS_GAMES", 1)
    monkeypatch.setattr(accuracy, "WINDOW_GAMES", 1)
    store, looked = await two_games_noting_looks(database, monkeypatch)
    recorder = golden_recorder(database, store)
    assert await recorder.catch_up() == 2, "the newest game: the pass is full"
    # Were a full pass taken for one that found them all, the older game, beyond the window,
    # would wait for the next start.
    assert await recorder.catch_up() == 2, "still looking back: the older game"
    assert await recorder.catch_up() == 0, "nothing left: the pass comes back short"
    assert len(await store.recent_accuracy(GUILD, 100, 20)) == 1
    await finished_game(database, 12, [row(0, 100, 30, 1), row(1, 200, 20, 2)])
    assert await recorder.catch_up() == 2, "a game that closes"
    assert looked == ["shown_without_accuracy"] * 3 + ["without_accuracy"]


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_at_start_the_job_goes_on_pass_after_pass_without_a_game_closing(
    database: Database, judged: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """More games to judge at start than one pass takes, and no game closing after: the job
    goes on, pass after pass, until it has judged them all, before it waits for a game."""
    monkeypatch.setattr(accuracy, "PASS_GAMES", 1)
    store, looked = await two_games_noting_looks(database, monkeypatch)
    recorder = golden_recorder(database, store)
    task = asyncio.create_task(recorder.run_forever())
    try:
        await recorder.idle()
        assert len(await store.recent_accuracy(GUILD, 100, 20)) == 1
        assert len(await store.recent_accuracy(GUILD, 300, 20)) == 1, "the older game too"
        assert len(judged) == 2
        assert looked == ["shown_without_accuracy"] * 3, "until a pass comes back short"
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_at_start_a_game_without_a_value_sends_the_job_further_back(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each person's stats over their newest game (per person: 1): 100's newest gives them no
    value (every decision of theirs played by the AI), so their stats reach back to the game
    before it, older than the window: the start goes on looking back and judges it too,
    before the job waits for a game to close."""
    monkeypatch.setattr(accuracy, "ACCURACY_GAMES", 1)
    monkeypatch.setattr(accuracy, "WINDOW_GAMES", 1)
    count_judgings(monkeypatch)
    store = StatsStore(database)
    await finished_game(database, 10, [row(0, 100, 30, 1), row(1, 200, 20, 2)])
    newest = await finished_game(database, 11, [row(0, 100, 30, 1), row(1, 200, 20, 2)])
    data = golden_data(GOLDEN)
    play = _Play.of(data, database)

    async def ai_for_100(game_id: int) -> tuple[int | None, ...]:
        actors = await _Play(data, database).actors(game_id)
        return tuple(None if game_id == newest and a == 100 else a for a in actors)

    monkeypatch.setattr(play, "actors", ai_for_100)
    recorder = AccuracyRecorder(store, play, judgements(database, _Pool()))
    task = asyncio.create_task(recorder.run_forever())
    try:
        await recorder.idle()
        assert await store.recent_accuracy(GUILD, 200, 20) != [], "the newest game judged"
        assert len(await store.recent_accuracy(GUILD, 100, 20)) == 1, "the one before it too"
        assert await store.without_accuracy(10, 1000) == [], "every game judged"
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_after_the_start_a_pass_judges_its_share_of_games_among_the_newest_finished(
    database: Database, judged: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the start's look back is done, a pass judges at most PASS_GAMES games, newest
    first, among the newest WINDOW_GAMES finished games: of games that closed together while
    the job rested, those a pass left are judged by the next, newer games judged or not."""
    monkeypatch.setattr(accuracy, "PASS_GAMES", 1)
    monkeypatch.setattr(accuracy, "WINDOW_GAMES", 3)
    store = StatsStore(database)
    recorder = golden_recorder(database, store)
    assert await recorder.catch_up() == 0, "nothing finished: the look back is done"
    await finished_game(database, 10, [row(0, 100, 30, 1), row(1, 200, 20, 2)])
    await finished_game(database, 11, [row(0, 300, 30, 1), row(1, 400, 20, 2)])
    assert await recorder.catch_up() == 2, "one game a pass: the newest"
    assert await recorder.catch_up() == 2, "the next pass: the game before it"
    assert len(await store.recent_accuracy(GUILD, 100, 20)) == 1
    assert len(judged) == 2


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_a_seat_handed_over_counts_each_person_s_own_decisions_in_stats_and_drill(
    database: Database,
) -> None:
    """Bob plays his seat for a while, then Dave finishes it: each has the accuracy of the
    decisions they made, in the stats, and each person's drill teaches their own."""
    service = service_on(database)
    view = await opened(service, (HOST, BOB), channel=700)
    for _ in range(12):
        view = await step(service, view)
    handed_over_at = len((await service.play.record(view.id))["actions"])
    handed = await service.substitutes.substitute(view.id, BOB, DAVE, "Dave", in_bot=False)
    view = await play_out(service, await service.play.look(view.id))
    assert view.status is GameStatus.OVER
    store = StatsStore(database)
    judgements = GameJudgements(JudgementStore(database), cast(WorkerPool, _Pool()))
    assert await AccuracyRecorder(store, service.play, judgements).catch_up() == 3
    game = await finished_game_of(service.play, view.id, SERVICE_GUILD)
    judged = await judgements.of(view.id, engine.record_from_json(game.record))
    seat = handed.seat
    bobs = [j for j in judged.of_seat(seat) if j.index < handed_over_at]
    daves = [j for j in judged.of_seat(seat) if j.index >= handed_over_at]
    assert bobs, "Bob made decisions before he left"
    assert daves, "Dave made decisions after"
    assert await store.recent_accuracy(SERVICE_GUILD, BOB, 20) == [summarise(seat, bobs).accuracy]
    assert await store.recent_accuracy(SERVICE_GUILD, DAVE, 20) == [summarise(seat, daves).accuracy]

    pictures = DrillPictures(cast(WorkerPool, _Pool()), judgements)
    assert (seat_of(game, BOB), seat_of(game, DAVE)) == (seat, seat)
    bob_drills = await pictures.costliest(game, seat, BOB)
    dave_drills = await pictures.costliest(game, seat, DAVE)
    assert bob_drills == judged.costliest(seat, among=range(handed_over_at))
    assert dave_drills == judged.costliest(seat, among=range(handed_over_at, len(game.actors)))
    assert bob_drills, "Bob's own costliest decisions"
    assert dave_drills, "Dave's own"
    assert bob_drills != dave_drills


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_the_ai_s_moves_for_a_person_out_of_time_count_in_neither_their_accuracy_nor_drill(
    database: Database,
) -> None:
    """The first player lets their first turn run out and the AI plays it for them, as the
    turn clock logs it: their accuracy and their drill judge only the decisions they made."""
    table = make_table(database, ManualClock())
    view = await two_humans(table)
    sleeper = view.user_to_move
    assert sleeper is not None
    table.clock.advance(LIMIT)
    await table.scheduler.run_due()
    assert [turn.user_id for turn in table.turns] == [sleeper], "the AI played it for them"
    by_the_ai = range(len((await table.service.play.record(view.id))["actions"]))
    view = await play_out(table.service, await table.service.play.look(view.id))
    assert view.status is GameStatus.OVER
    store = StatsStore(database)
    judgements = GameJudgements(JudgementStore(database), cast(WorkerPool, _Pool()))
    assert await AccuracyRecorder(store, table.service.play, judgements).catch_up() == 2
    game = await finished_game_of(table.service.play, view.id, SERVICE_GUILD)
    judged = await judgements.of(view.id, engine.record_from_json(game.record))
    seat = seat_of(game, sleeper)
    assert seat is not None
    theirs = [j for j in judged.of_seat(seat) if j.index not in by_the_ai]
    assert len(theirs) < len(judged.of_seat(seat)), "the AI decided in their seat"
    assert await store.recent_accuracy(SERVICE_GUILD, sleeper, 20) == [
        summarise(seat, theirs).accuracy
    ]
    drills = await DrillPictures(cast(WorkerPool, _Pool()), judgements).costliest(
        game, seat, sleeper
    )
    assert drills == judged.costliest(seat, among={j.index for j in theirs})


def test_turns_the_ai_played_for_someone_count_for_nobody() -> None:
    """In the golden game: seat 0's person plays up to the 40th action, the AI plays for
    them to the 80th, then another person (not in the results: a substitute who handed the
    seat on) plays it out; seat 1's person had every turn played by the AI."""
    judged = golden_judgement()
    data = golden_data(GOLDEN)
    actors = list(actors_of(data, {0: 100}))
    for index in range(40, len(actors)):
        if actors[index] is not None:
            actors[index] = None if index < 80 else 300
    game = PendingGame(1, ((0, 100), (1, 200)))
    rows = own_accuracy(judged, game, actors)
    seat_0 = judged.of_seat(0)
    first = summarise(0, [j for j in seat_0 if j.index < 40]).accuracy
    last = summarise(0, [j for j in seat_0 if j.index >= 80]).accuracy
    assert rows == [
        SeatAccuracy(0, 100, first),
        SeatAccuracy(0, 300, last),
        SeatAccuracy(1, 200, None),
    ]
    assert first != judged.summary(0).accuracy, "the AI's turns would have changed it"
