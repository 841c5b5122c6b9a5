"""A coached game's Hint and verdict, computed in a worker process: the options best first, the
verdict on the options a Hint already computed the same as after a search of its own, and both
the same as in this process."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

import engine
from ai.judge import judge_options, judgement_from
from bot.workers import jobs as worker_jobs
from bot.workers.pool import Lane, WorkerPool


def opening() -> engine.Record:
    """A 3-player game at its first decision (which way Assam faces)."""
    config = engine.deal(3, engine.Variant.STANDARD, first_player=0)
    return engine.Record(3, config.variant, 0, config.piles, ())


@pytest.fixture
async def pool() -> AsyncIterator[WorkerPool]:
    workers = WorkerPool(workers=1)
    yield workers
    await workers.close()


async def test_the_hint_and_the_verdict_in_a_worker_are_this_process_s_own(
    pool: WorkerPool,
) -> None:
    record = opening()
    state = engine.replay_record(record)
    options = await pool.run(Lane.QUICK, worker_jobs.coach_options, record)
    assert options == judge_options(state)
    assert [option.chance for option in options] == sorted(
        (option.chance for option in options), reverse=True
    )
    assert {option.action for option in options} == {"L", "S", "R"}
    best = options[0].action
    worst = options[-1].action
    for taken in (best, worst):
        after, _ = engine.apply(state, taken)
        after, _ = engine.apply(after, engine.legal_actions(after)[0])  # the die
        played = engine.record_of(after)
        assert played.actions[0] == taken
        reused, facings = await pool.run(
            Lane.QUICK, worker_jobs.coach_verdict_at, played, 0, options
        )
        searched, _ = await pool.run(Lane.QUICK, worker_jobs.coach_verdict_at, played, 0)
        assert reused == searched == judgement_from(state, taken, options)
        assert facings == tuple(engine.orientations(state))
