"""A worker pool that notes the lane of every job it runs, for tests that check where a service
sends its work (the slow lane may hold every worker but one; pictures go in the quick lane)."""

from __future__ import annotations

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
