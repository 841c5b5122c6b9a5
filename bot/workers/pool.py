"""WorkerPool: CPU-heavy jobs (AI decisions, board pictures, replay GIFs) in worker processes.

The event loop's interpreter must stay free to answer clicks: a hard AI thinking for a second in
a thread of the bot's own process holds the interpreter just as long. So that work runs in a
`ProcessPoolExecutor`, one process per core (at least one), each at a lower scheduling priority
than the bot itself so the event loop wins the CPU whenever it has something to do.

Jobs go in one of two lanes. QUICK jobs (a board picture, a few milliseconds) may use every
worker; SLOW jobs (an AI decision, a replay GIF: up to a second or more) may hold at most all
workers but one, so a picture never waits behind a queue of AI turns. The pool never hands the
executor more jobs than it has workers, so a job's time limit counts its running time only.

A worker that dies (the executor turns "broken") is replaced with a whole new executor and the
jobs it took down are tried once more there. A job that overruns its time limit is taken to be
hung: its workers are killed, the executor is replaced, and the job fails with
`WorkerTimeoutError` (its caller, such as the turn clock, tries again later). `close()` waits a
second and a half at most, then kills what is left.

`WorkerPool(workers=0)` runs the same jobs in threads of this process instead: for tests and
tools that want the pool's interface without starting processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import multiprocessing
import os
import select
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from bot.workers.processes import process_alive

log = logging.getLogger(__name__)

T = TypeVar("T")

WORKER_NICENESS = 10
"""How much lower than the bot's own the workers' scheduling priority is (Unix `nice`)."""
CLOSE_GRACE_SECONDS = 1.5
"""How long `close()` lets running jobs finish before it kills their workers (a stop must stay
well within the few seconds a supervisor gives it)."""
PRELOAD = ("bot.workers.warm",)
"""What the fork server imports once, so a new or replacement worker starts warm: this module
(each worker's first call, `_start_worker`, is here) and the jobs' code, with one board drawn,
its fonts and cached layers then in every worker forked from it (bot/workers/warm.py)."""


class Lane(enum.Enum):
    """How long a job runs: QUICK jobs may use every worker, SLOW ones all but one."""

    QUICK = "quick"
    SLOW = "slow"


class WorkerError(RuntimeError):
    """A job could not be done by the workers (they died twice, or the pool is closed)."""


class WorkerTimeoutError(WorkerError):
    """A job overran its time limit: its worker was taken to be hung and replaced."""


def default_workers() -> int:
    """One worker per core this process may run on, at least one."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, cores)


def _start_worker(bot_pid: int) -> None:
    """Runs first in every worker process: give way to the bot's event loop, and end with the
    bot (a bot killed outright leaves no worker behind)."""
    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(WORKER_NICENESS)
    threading.Thread(target=_exit_with, args=(bot_pid,), name="exit-with-bot", daemon=True).start()


def _exit_with(pid: int) -> None:
    """End this worker as soon as process `pid` is gone."""
    try:
        handle = os.pidfd_open(pid)  # Linux: readable once the process has exited
    except (AttributeError, OSError):
        handle = None
    if handle is not None:
        select.select([handle], [], [])
    else:
        while process_alive(pid):
            time.sleep(1.0)
    os._exit(0)


def _nothing() -> None:
    """The work of the process `_fork_server_loaded` starts."""


def _fork_server_loaded() -> None:
    """Start the fork server the workers come from, where there is one, and wait until it has
    loaded `PRELOAD`: a process forked from it, which ends at once, waits for that."""
    context = _context()
    if isinstance(context, multiprocessing.context.ForkServerContext):
        process = context.Process(target=_nothing, name="fork-server-loaded", daemon=True)
        process.start()
        process.join()


def _context() -> multiprocessing.context.BaseContext:
    """A fork server where there is one (workers fork from a clean, preloaded process, never
    from the bot with its threads and sockets), else spawn."""
    if sys.platform != "win32" and "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(list(PRELOAD))
        return context
    return multiprocessing.get_context("spawn")


class WorkerPool:
    """Runs picklable functions in worker processes, off the event loop (see the module)."""

    def __init__(self, workers: int | None = None) -> None:
        """`workers`: processes to run (default: one per core); 0 runs jobs in threads."""
        self.workers = default_workers() if workers is None else workers
        self._in_process = self.workers == 0
        size = max(1, self.workers)
        self._slots = asyncio.Semaphore(size)
        self._slow = asyncio.Semaphore(max(1, size - 1))
        self._executor: Executor | None = None
        self._generation = 0
        self._closed = False
        self.replacements = 0
        """How many times the executor was replaced after a death or a hang."""

    @property
    def busy(self) -> bool:
        """Whether a QUICK job submitted now would wait for a worker."""
        return self._slots.locked()

    def _current(self) -> tuple[Executor, int]:
        if self._closed:
            raise WorkerError("the worker pool is closed")
        if self._executor is None:
            size = max(1, self.workers)
            if self._in_process:
                self._executor = ThreadPoolExecutor(size, thread_name_prefix="worker")
            else:
                self._executor = ProcessPoolExecutor(
                    size,
                    mp_context=_context(),
                    initializer=_start_worker,
                    initargs=(os.getpid(),),
                )
        return self._executor, self._generation

    async def start(self) -> None:
        """Start every worker now (the first click should not wait for a process to start).
        The fork server starts first, off the event loop: it loads the jobs' code and draws a
        board before it forks anything (bot/workers/warm.py), a few tenths of a second in which
        the loop must go on connecting the gateway and answering clicks; forking each worker
        from it then takes milliseconds."""
        from bot.workers import jobs  # the pool itself imports no job code

        if not self._in_process:
            try:
                await asyncio.to_thread(_fork_server_loaded)
            except Exception as error:  # the workers' own start below says what is wrong
                log.debug("worker pool: the fork server did not start at once (%r)", error)
        started = await asyncio.gather(
            *(self.run(Lane.QUICK, jobs.ready, limit=60.0) for _ in range(self.workers)),
            return_exceptions=True,
        )
        for failure in (result for result in started if isinstance(result, BaseException)):
            log.warning("worker pool: a worker did not start (%r); jobs will try again", failure)

    async def run(
        self, lane: Lane, function: Callable[..., T], *args: Any, limit: float = 60.0
    ) -> T:
        """`function(*args)` in a worker, waiting for a free one in `lane`; `function` and
        `args` must pickle (a module-level function and plain data).

        `limit` bounds the job's running time in seconds. Raises WorkerTimeoutError when the
        job overran it, WorkerError when the workers died under it twice, and whatever the
        function itself raised.
        """
        if lane is Lane.SLOW:
            async with self._slow, self._slots:
                return await self._run_twice(function, args, limit)
        async with self._slots:
            return await self._run_twice(function, args, limit)

    async def _run_twice(
        self, function: Callable[..., T], args: tuple[Any, ...], limit: float
    ) -> T:
        for attempt in (1, 2):
            executor, generation = self._current()
            try:
                future = executor.submit(function, *args)
            except (BrokenProcessPool, RuntimeError) as error:  # shut down under our feet
                self._replace(generation, f"it could not take a job ({error!r})")
                continue
            try:
                return await asyncio.wait_for(asyncio.wrap_future(future), limit)
            except TimeoutError:
                self._replace(generation, f"a job ran over {limit:g} s", kill=True)
                raise WorkerTimeoutError(f"{_name(function)} ran over {limit:g} s") from None
            except BrokenProcessPool:
                self._replace(generation, "a worker died")
                if attempt == 2:
                    raise WorkerError(f"the workers died twice under {_name(function)}") from None
        raise WorkerError(f"no worker could take {_name(function)}")

    def _replace(self, generation: int, why: str, *, kill: bool = False) -> None:
        """Drop the executor of `generation` (if still current) for a new one on next use."""
        if generation != self._generation or self._executor is None:
            return  # another job's failure replaced it already
        old, self._executor = self._executor, None
        self._generation += 1
        self.replacements += 1
        log.warning("worker pool: %s; starting new workers", why)
        if kill:
            _kill_workers(old)
        old.shutdown(wait=False, cancel_futures=True)

    async def close(self, grace: float = CLOSE_GRACE_SECONDS) -> None:
        """Stop the workers: let running jobs finish for `grace` seconds, then kill them."""
        self._closed = True
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = _processes(executor)  # shutdown() forgets them
        executor.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + grace
        for process in processes:
            await asyncio.to_thread(process.join, max(0.0, deadline - time.monotonic()))
        left = [process for process in processes if process.is_alive()]
        if left:
            log.warning("worker pool: %d workers still busy at close; killed", len(left))
        for process in left:
            process.kill()


def _processes(executor: Executor) -> list[Any]:
    """The executor's worker processes (none for threads: a hung thread is left to finish).
    The standard library has no public way to reach them before Python 3.14."""
    if not isinstance(executor, ProcessPoolExecutor):
        return []
    return list((getattr(executor, "_processes", None) or {}).values())


def _kill_workers(executor: Executor) -> None:
    for process in _processes(executor):
        if process.is_alive():
            process.kill()


def _name(function: Callable[..., Any]) -> str:
    return getattr(function, "__qualname__", repr(function))
