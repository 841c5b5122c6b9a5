"""Tests of bot.runtime.composition: the bot as `build_bot` wires it and its start runs it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot import supervisor as supervision
from bot.runtime.scheduler import Scheduler
from tests.bot.edge.test_edge import running_edge
from tests.polling import until


async def test_the_turn_clock_runs_under_the_supervisor_which_starts_it_again_when_it_dies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run as a task of its own, a turn clock that died would stay dead, unseen by the
    heartbeat: timeouts, reminders and AI turns would stop for the rest of the run."""
    monkeypatch.setattr(supervision, "RESTART_SECONDS", 0.0)
    runs: list[asyncio.Task[Any]] = []
    """The task each run of the turn clock runs in."""

    async def dies_once(self: Scheduler) -> None:
        task = asyncio.current_task()
        assert task is not None
        runs.append(task)
        if len(runs) == 1:
            raise RuntimeError("the turn clock died")
        await asyncio.Event().wait()

    monkeypatch.setattr(Scheduler, "run_forever", dies_once)
    async with running_edge(tmp_path, monkeypatch):  # its login runs the bot's start
        # The task the first run died in goes on only if something keeps it running.
        await until(
            lambda: len(runs) > 1 or (len(runs) == 1 and runs[0].done()),
            "the turn clock started again, or its task ended",
        )
        assert len(runs) == 2, "the turn clock that died was not started again"
