"""AI seats choose the same actions whether they think in this process or in a worker: a whole
game of easy, medium and hard seats, played through the service with its AI in worker
processes, is pinned to the actions the same seeds gave when the AI thought in a thread."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator

import pytest

from bot.runtime.scheduler import Scheduler
from bot.services import GameService, GameStatus
from bot.storage import Database, GameStore
from bot.workers.pool import WorkerPool
from tests.bot.services.test_async_play import (
    FAST_AI,
    HOST,
    ManualClock,
    Table,
    human_vs_ai,
    run_until_quiet,
    seeds,
)
from tests.bot.services.test_service import choose

PINNED_ACTIONS = 144
PINNED_SHA256 = "660f500d9b1b69f928fce1cb86213836badb3b77cbf5182e564f740a00d3d2b8"
"""The game's actions, space-separated, as the AI in a thread played them with these seeds."""


@pytest.fixture
async def workers() -> AsyncIterator[WorkerPool]:
    pool = WorkerPool(workers=1)
    yield pool
    await pool.close()


async def test_a_whole_ai_game_in_workers_replays_the_pinned_actions(
    database: Database, workers: WorkerPool
) -> None:
    clock = ManualClock()
    service = GameService(
        GameStore(database), clock=clock, seeds=seeds, ai_budget=FAST_AI, workers=workers
    )
    table = Table(database, clock, service, None)  # type: ignore[arg-type]
    table.scheduler = Scheduler(service.turns, table.handle, clock)
    view = await human_vs_ai(table, "easy", "medium", "hard")
    for _ in range(200):
        await run_until_quiet(table)
        view = await service.play.look(view.id)
        if view.status is not GameStatus.RUNNING:
            break
        view = await service.play.act(view.id, HOST, view.seq, choose(view))
        await table.show(view)
    assert view.status is GameStatus.OVER
    actions = (await service.play.record(view.id))["actions"]
    assert len(actions) == PINNED_ACTIONS
    assert hashlib.sha256(" ".join(actions).encode()).hexdigest() == PINNED_SHA256
