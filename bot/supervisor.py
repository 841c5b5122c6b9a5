"""Keeps the bot's long-running tasks running: one that dies (or ends) is started again.

Each task (the turn clock, the database's listener and watch, the heartbeat) survives the
failures it expects by itself: the database or the disk gone for a while is logged, waited
out and got over. Whatever still ends one is caught here: logged with its traceback, and the
task is started again after a pause that doubles with each death in a row (RESTART_SECONDS up
to RESTART_MAX_SECONDS; a task that ran STABLE_SECONDS counts afresh). While a task is down the
heartbeat file names it, so the health check reports it (bot.runtime.health).

It sits at the bottom of `bot` and knows nothing of the project (docs/architecture.md): the
runtime runs the turn clock and the database's watch under it, and the edge its heartbeat and
its own background work. `stop` ends them
all, within STOP_SECONDS, and never raises: a clean stop exits cleanly whatever the tasks went
through.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Collection
from typing import Any, Protocol

log = logging.getLogger(__name__)

RESTART_SECONDS = 1.0
RESTART_MAX_SECONDS = 60.0
STABLE_SECONDS = 60.0
"""A task that ran this long before it died is started again after RESTART_SECONDS."""
STOP_SECONDS = 5.0
"""The longest a stop waits for the tasks to end."""
CANCEL_AGAIN_SECONDS = 0.5


class DownTasks(Protocol):
    """Where the tasks that are down are recorded (bot.runtime.health.Heartbeat)."""

    def task_down(self, name: str) -> None: ...

    def task_up(self, name: str) -> None: ...


class Supervisor:
    """The long-running tasks of one run (see the module)."""

    def __init__(
        self,
        heartbeat: DownTasks | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`heartbeat` records the tasks that are down (None: nowhere)."""
        self._heartbeat = heartbeat
        self._clock = clock
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def start(self, name: str, run: Callable[[], Awaitable[None]]) -> asyncio.Task[None]:
        """Run `run()` as the task `name` (no spaces), started again whenever it ends; the task
        that keeps it (cancel it to stop this one only)."""
        task = asyncio.create_task(self._keep(name, run), name=name)
        self._tasks[name] = task
        return task

    async def _keep(self, name: str, run: Callable[[], Awaitable[None]]) -> None:
        deaths = 0
        while True:
            started = self._clock()
            error: Exception | None = None
            try:
                await run()
            except Exception as died:
                error = died
            if self._clock() - started >= STABLE_SECONDS:
                deaths = 0
            deaths += 1
            delay = min(RESTART_SECONDS * 2 ** (deaths - 1), RESTART_MAX_SECONDS)
            how = "died" if error is not None else "ended"
            log.error(
                "the %s task %s; starting it again in %.0f s", name, how, delay, exc_info=error
            )
            self._report(name, down=True)
            await asyncio.sleep(delay)
            self._report(name, down=False)

    def _report(self, name: str, *, down: bool) -> None:
        if self._heartbeat is None:
            return
        try:
            if down:
                self._heartbeat.task_down(name)
            else:
                self._heartbeat.task_up(name)
        except OSError as error:  # the disk: the heartbeat's own writers report it
            log.debug("task %s not recorded in the heartbeat file: %s", name, error)

    async def stop(self) -> None:
        """Stop every task and wait until they have (STOP_SECONDS at most); never raises."""
        tasks = list(self._tasks.values())
        self._tasks.clear()
        await cancel_and_wait(tasks)


async def cancel_and_wait(tasks: Collection[asyncio.Task[Any]]) -> None:
    """Cancel the tasks and wait until they have ended, cancelling again any that goes on (a
    cancellation can be lost where a wait ends at the same moment); after STOP_SECONDS, stop
    waiting for those still running, and say so."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + STOP_SECONDS
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=CANCEL_AGAIN_SECONDS)
        if pending and loop.time() >= deadline:
            names = ", ".join(sorted(task.get_name() for task in pending))
            log.warning("tasks still running after %.0f s of stopping: %s", STOP_SECONDS, names)
            return
