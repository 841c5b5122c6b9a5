"""One judgement per finished game: the analysis, the drill and the stats' background job judge
a game once between them, in the workers' slow lane, and read what the database keeps; two
processes judging a game at once keep it once."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any, cast

import pytest

from ai.judge import GameJudgement
from ai.judge_json import VERSION, judgement_to_json
from bot.presentation.analysis import AnalysisPictures
from bot.presentation.drill import DrillPictures
from bot.services.accuracy import AccuracyRecorder
from bot.services.analysis import FinishedGame
from bot.services.judgements import GameJudgements
from bot.services.play import PlayService
from bot.services.views import Player
from bot.storage import Database, StatsStore
from bot.storage.database import DatabaseUnavailableError
from bot.storage.judgements import JudgementStore
from bot.workers.pool import Lane, WorkerError, WorkerPool
from tests.bot.storage.test_stats import GUILD, finished_game, row
from tests.bot.workers.lanes import limits_noted
from tests.judged import actors_of, golden_data, golden_record, judged_golden
from tests.loop_reports import loop_reports
from tests.polling import until

GOLDEN = "2p-standard"
DATA = golden_data(GOLDEN)
RECORD = golden_record(GOLDEN)


def golden_judgement() -> GameJudgement:
    """The golden game's judgement, judged once for the whole run."""
    return judged_golden(GOLDEN)


class _Play:
    async def record(self, game_id: int) -> dict[str, Any]:
        return DATA

    async def actors(self, game_id: int) -> tuple[int | None, ...]:
        return actors_of(DATA, {0: 100, 1: 200})


class _Pool:
    """Runs each job as the pool would, recording its lane; a job may be held at a gate."""

    def __init__(self, gate: asyncio.Event | None = None) -> None:
        self.lanes: list[Lane] = []
        self._gate = gate

    async def run(self, lane: Lane, function: Callable[..., Any], *args: Any, **_: Any) -> Any:
        self.lanes.append(lane)
        if self._gate is not None:
            await self._gate.wait()
        return function(*args)


async def a_finished_game(database: Database) -> int:
    await finished_game(database, 10, [row(0, 100, 30, 1), row(1, 200, 20, 2)])
    (pending,) = await StatsStore(database).without_accuracy(10, 1000)
    return pending.game_id


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_analysis_drill_and_stats_judge_a_game_once(
    database: Database, judged: list[int]
) -> None:
    game_id = await a_finished_game(database)
    players = (Player(100, 0), Player(200, 1))
    game = FinishedGame(game_id, DATA, players, actors_of(DATA, {0: 100, 1: 200}))
    pool = WorkerPool(workers=0)
    judgements = GameJudgements(JudgementStore(database), pool)
    expected = golden_judgement()

    review = await AnalysisPictures(pool, judgements).analysis(game)
    costliest = await DrillPictures(pool, judgements).costliest(game, 0, 100)
    play = cast(PlayService, _Play())
    assert await AccuracyRecorder(StatsStore(database), play, judgements).catch_up() == 2

    assert len(judged) == 1, f"judged {len(judged)} times"
    assert review.seats == expected.seats
    assert costliest == expected.costliest(0)
    accuracy = await StatsStore(database).recent_accuracy(GUILD, 200, 20)
    assert accuracy == [expected.summary(1).accuracy]
    restarted = GameJudgements(JudgementStore(database), pool)
    assert await restarted.of(game_id, RECORD) == expected, "read back as it was judged"
    assert len(judged) == 1, "a restart reads the judgement kept"


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_callers_at_once_wait_for_one_judging_in_the_slow_lane(
    database: Database, judged: list[int]
) -> None:
    """Callers asking at once all wait for the one judging, in the workers' slow lane; one of
    them that leaves while it is judged takes it from none of the others."""
    game_id = await a_finished_game(database)
    gate = asyncio.Event()
    pool = _Pool(gate)
    judgements = GameJudgements(JudgementStore(database), cast(WorkerPool, pool))
    waiting = [asyncio.ensure_future(judgements.of(game_id, RECORD)) for _ in range(4)]
    await until(lambda: bool(pool.lanes), "the judging at the workers")
    left = waiting.pop()
    left.cancel()  # a caller that leaves (its click's handler stopped) leaves the others theirs
    with contextlib.suppress(asyncio.CancelledError):
        await left
    gate.set()
    first, second, third = await asyncio.gather(*waiting)
    assert first == second == third == golden_judgement()
    assert len(judged) == 1, "the process judges a game once however many ask at once"
    assert pool.lanes == [Lane.SLOW], "judged in the workers' slow lane, never on the loop"


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_the_workers_give_up_on_a_judgement_only_after_120_s(
    database: Database, judged: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 4-player game takes up to about 25 s to judge on a loaded host: the limit leaves it
    room, so such a game is never taken for a hung worker, killed and left unjudged."""
    game_id = await a_finished_game(database)
    workers = WorkerPool(workers=0)
    limits = limits_noted(workers, monkeypatch)
    await GameJudgements(JudgementStore(database), workers).of(game_id, RECORD)
    assert len(judged) == 1
    assert [limit for _, limit in limits] == [120.0], "seconds a worker may judge one game"


async def test_two_processes_judging_at_once_keep_it_once(
    database: Database, judged: list[int]
) -> None:
    game_id = await a_finished_game(database)
    gate = asyncio.Event()
    store = JudgementStore(database)
    pools = [_Pool(gate), _Pool(gate)]
    processes = [GameJudgements(store, cast(WorkerPool, pool)) for pool in pools]
    both = [asyncio.ensure_future(process.of(game_id, RECORD)) for process in processes]
    await until(lambda: all(pool.lanes for pool in pools), "both judging at the workers")
    gate.set()
    one, other = await asyncio.gather(*both)
    assert one == other == golden_judgement()
    assert len(judged) == 2, "each process judged, neither waiting on the other"
    assert await store.add_judgement(game_id, "{}") is False, "one row, kept"


async def test_a_judging_its_callers_left_fails_without_a_traceback(
    database: Database, judged: list[int]
) -> None:
    # At a stop the stats' job is cancelled while a worker judges, then the pool closes.
    game_id = await a_finished_game(database)
    gate = asyncio.Event()

    class ClosingPool(_Pool):
        async def run(self, lane: Lane, function: Callable[..., Any], *_: Any, **__: Any) -> Any:
            self.lanes.append(lane)
            await gate.wait()
            raise WorkerError("the worker pool is closed")

    pool = ClosingPool()
    judgements = GameJudgements(JudgementStore(database), cast(WorkerPool, pool))
    caller = asyncio.ensure_future(judgements.of(game_id, RECORD))
    await until(lambda: bool(pool.lanes), "the judging at the workers")
    (judging,) = (task for task in asyncio.all_tasks() if "_judgement" in repr(task.get_coro()))
    caller.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await caller
    with loop_reports() as reported:
        gate.set()
        await until(judging.done, "the judging ended")
        del judging
    assert reported == []
    assert judged == [], "nothing was judged"


async def test_a_judging_that_failed_is_judged_again_by_the_next_caller(
    database: Database, judged: list[int]
) -> None:
    """A worker that timed out, or a pool closing under a judging, fails the callers of that
    judging alone: the game's next analysis, drill or stats pass judges it again."""
    game_id = await a_finished_game(database)

    class FailingOnce(_Pool):
        async def run(self, lane: Lane, function: Callable[..., Any], *args: Any, **_: Any) -> Any:
            self.lanes.append(lane)
            if len(self.lanes) == 1:
                raise WorkerError("the worker timed out")
            return function(*args)

    pool = FailingOnce()
    judgements = GameJudgements(JudgementStore(database), cast(WorkerPool, pool))
    with pytest.raises(WorkerError):
        await judgements.of(game_id, RECORD)
    assert await judgements.of(game_id, RECORD) == golden_judgement()
    assert len(pool.lanes) == 2, "the next caller judged again"
    assert len(judged) == 1


@pytest.mark.parametrize(
    "kept",
    [
        '{"v":0}',
        "not JSON",
        '{"players": 2}',
        f'{{"v":{VERSION},"players":2}}',
        f'{{"v":{VERSION},"seats":[]}}',
    ],
)
async def test_an_older_or_damaged_judgement_is_judged_again_once_and_replaced(
    database: Database, judged: list[int], kept: str
) -> None:
    """Damaged, a text of this bot's own layout is replaced as an older one is: only a newer
    layout's stays."""
    game_id = await a_finished_game(database)
    store = JudgementStore(database)
    await store.add_judgement(game_id, kept)
    judgements = GameJudgements(store, cast(WorkerPool, _Pool()))
    assert await judgements.of(game_id, RECORD) == golden_judgement()
    assert len(judged) == 1
    assert await store.judgement(game_id) == judgement_to_json(golden_judgement())
    restarted = GameJudgements(store, cast(WorkerPool, _Pool()))
    assert await restarted.of(game_id, RECORD) == golden_judgement()
    assert len(judged) == 1, "the judgement kept in its place is read, not judged again"


async def test_a_newer_version_s_judgement_is_kept_for_the_processes_that_read_it(
    database: Database, judged: list[int]
) -> None:
    game_id = await a_finished_game(database)
    store = JudgementStore(database)
    newer = json.dumps({"v": VERSION + 1, "players": 2})
    await store.add_judgement(game_id, newer)
    judgements = GameJudgements(store, cast(WorkerPool, _Pool()))
    assert await judgements.of(game_id, RECORD) == golden_judgement()
    assert len(judged) == 1
    assert await store.judgement(game_id) == newer, "a newer process's judgement stays"


async def test_a_judgement_the_database_could_not_keep_is_still_given_and_kept_at_the_next_ask(
    database: Database, judged: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database goes away as a judgement is written: the person who asked for the analysis
    still gets it (their picture is drawn from it), and the next ask, the database back, judges
    it again and keeps it."""
    game_id = await a_finished_game(database)
    store = JudgementStore(database)
    plain = store.add_judgement

    async def away(*args: Any) -> bool:
        raise DatabaseUnavailableError("the database is unavailable (disk I/O error)")

    monkeypatch.setattr(store, "add_judgement", away)
    judgements = GameJudgements(store, cast(WorkerPool, _Pool()))
    assert await judgements.of(game_id, RECORD) == golden_judgement()
    assert await store.judgement(game_id) is None, "not kept while the database was away"
    monkeypatch.setattr(store, "add_judgement", plain)
    assert await judgements.of(game_id, RECORD) == golden_judgement()
    assert await store.judgement(game_id) == judgement_to_json(golden_judgement())
    assert len(judged) == 2, "judged again, once the database was back, and kept"


@pytest.mark.parametrize("kept", [False, True], ids=["none kept", "one kept"])
@pytest.mark.parametrize("writing", ["works", "fails too"])
async def test_a_judgement_the_database_could_not_read_is_judged_afresh_and_given(
    kept: bool,
    writing: str,
    database: Database,
    judged: list[int],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The database fails as the game's kept judgement is read for someone's analysis: the
    game is judged afresh in the workers and they get it all the same, with one line in the log
    and no traceback (the outage's own watch says the database is away); kept if the database
    takes the write, else at a later ask."""
    game_id = await a_finished_game(database)
    golden = judgement_to_json(golden_judgement())
    if kept:
        await JudgementStore(database).add_judgement(game_id, golden)
    store = JudgementStore(database)

    async def away(*args: Any) -> Any:
        raise DatabaseUnavailableError("the database is unavailable (disk I/O error)")

    monkeypatch.setattr(store, "judgement", away)
    if writing == "fails too":
        monkeypatch.setattr(store, "add_judgement", away)
    judgements = GameJudgements(store, cast(WorkerPool, _Pool()))
    with caplog.at_level(logging.DEBUG, logger="bot.services.judgements"):
        assert await judgements.of(game_id, RECORD) == golden_judgement()
    assert len(judged) == 1, "judged afresh"
    said = [r for r in caplog.records if r.name == "bot.services.judgements"]
    assert [(r.levelno, r.exc_info) for r in said] == [(logging.INFO, None)], said
    assert str(game_id) in said[0].getMessage()
    expected = golden if kept or writing == "works" else None
    assert await JudgementStore(database).judgement(game_id) == expected
