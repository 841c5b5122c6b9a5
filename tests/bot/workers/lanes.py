"""A worker pool that notes the lane and the time limit of every job it runs, for tests that
check where a service sends its work (the slow lane may hold every worker but one; pictures go
in the quick lane) and how long it lets a job run before the worker is taken to be hung."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

from bot.workers.pool import Lane, WorkerPool


def lanes_noted(workers: WorkerPool, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Lane]]:
    """The (job's function name, lane) of every job `workers` runs from now on, in order."""
    lanes: list[tuple[str, Lane]] = []
    run = workers.run

    async def noted(lane: Lane, function: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        lanes.append((function.__name__, lane))
        return await run(lane, function, *args, **kw)

    monkeypatch.setattr(workers, "run", noted)
    return lanes


def limits_noted(workers: WorkerPool, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, float]]:
    """The (job's function name, time limit in seconds) of every job `workers` runs from now on,
    in order: the limit the caller gave, or the pool's default when it gave none."""
    default = inspect.signature(WorkerPool.run).parameters["limit"].default
    limits: list[tuple[str, float]] = []
    run = workers.run

    async def noted(lane: Lane, function: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        limits.append((function.__name__, kw.get("limit", default)))
        return await run(lane, function, *args, **kw)

    monkeypatch.setattr(workers, "run", noted)
    return limits
