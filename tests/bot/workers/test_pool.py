"""The worker pool: jobs run in other processes, give the same results as in this one, a
worker that dies or hangs is replaced without losing the pool, and closing waits a second and
a half at most in all."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest

import ai
import engine
from bot.workers import jobs as worker_jobs
from bot.workers import pool as pool_module
from bot.workers.pool import (
    Lane,
    WorkerError,
    WorkerPool,
    WorkerTimeoutError,
    default_workers,
)
from render import render_board
from tests.polling import until

REPO_ROOT = Path(__file__).resolve().parents[3]
WORK_ONLY = ai.Budget(work=60)
"""A budget bound by work alone, so a decision does not depend on the machine's speed."""


def played(players: int, actions: int, seed: int) -> engine.GameState:
    rng = random.Random(seed)
    state = engine.new_game(engine.deal(players, engine.Variant.STANDARD, rng))
    for _ in range(actions):
        if engine.current_player(state) == engine.CHANCE:
            action = rng.choice([outcome for outcome, _ in engine.chance_outcomes(state)])
        else:
            action = rng.choice(list(engine.legal_actions(state)))
        state, _ = engine.apply(state, action)
    while engine.current_player(state) == engine.CHANCE:  # stop at a decision
        state, _ = engine.apply(state, engine.chance_outcomes(state)[0][0])
    return state


# --- jobs for the tests (module level, so they pickle into a worker) --------------------------


def pid_and_niceness() -> tuple[int, int]:
    return os.getpid(), os.nice(0)


def die_once(marker: str) -> str:
    """Kill this worker the first time (leaving `marker`), answer the second time."""
    if not os.path.exists(marker):
        Path(marker).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return "answered"


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def drawn_before_any_job() -> bool:
    """Whether this worker had drawn its warm-up board before its first job (forked from a
    fork server that drew it)."""
    return worker_jobs.ready.cache_info().currsize == 1


HANG_BOUND_SECONDS = 60.0
"""How long a test waits for a job that should end at once before it fails (not an hour)."""


def hang(marker: str | None = None) -> None:
    """Never end (an hour); first leave `marker`, if given, to say the job runs."""
    if marker is not None:
        Path(marker).touch()
    time.sleep(3600)


def fail() -> None:
    raise ValueError("the job's own error")


def wait_for(event: threading.Event, started: list[int]) -> str:
    """Note in `started` that the job runs, then wait for `event` (in threads only)."""
    started.append(threading.get_ident())
    assert event.wait(30)
    return "slow"


def broken_at_first(release: threading.Event, calls: list[int]) -> str:
    """The first two calls wait for `release`, then fail as if their worker had died; later
    calls answer (in threads only)."""
    calls.append(threading.get_ident())
    if len(calls) <= 2:
        assert release.wait(30)
        raise BrokenProcessPool("a worker died")
    return "answered"


# --- processes ---------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def no_worker_outlives_its_test() -> Iterator[None]:
    """Kill any worker process a test leaves alive (a pool that failed to kill a hung job's
    worker): the test fails on it by itself, and the worker must not keep the test run from
    ending when it exits."""
    before = {child.pid for child in multiprocessing.active_children()}
    yield
    for child in multiprocessing.active_children():
        if child.pid not in before:
            child.kill()
            child.join(5)


@pytest.fixture
async def pool() -> object:
    workers = WorkerPool(workers=2)
    await workers.start()
    yield workers
    await workers.close()


async def test_starting_the_pool_starts_every_worker_before_any_job(pool: WorkerPool) -> None:
    """The first click should not wait for a process to start: the executor starts its
    processes only as jobs come, so the start gives each worker one of its own."""
    executor = pool._executor
    assert executor is not None
    alive = [process for process in pool_module._processes(executor) if process.is_alive()]
    assert len(alive) == pool.workers == 2


async def test_a_worker_and_its_replacement_start_with_the_board_drawn_once_before_them(
    tmp_path: Path,
) -> None:
    """The fork server draws the warm-up board (bot/workers/warm.py): a worker forked from it,
    first or replacement, does not draw it again."""
    workers = WorkerPool(workers=1)
    try:
        assert await workers.run(Lane.QUICK, drawn_before_any_job)
        assert await workers.run(Lane.SLOW, die_once, str(tmp_path / "died")) == "answered"
        assert workers.replacements == 1
        assert await workers.run(Lane.QUICK, drawn_before_any_job)
    finally:
        await workers.close()


async def test_a_worker_and_its_replacement_start_with_the_collector_running(
    tmp_path: Path,
) -> None:
    """The fork server pauses the collector only while it loads (bot/workers/warm.py): a worker
    forked from it, first or replacement, collects its reference cycles, or its memory would
    grow for as long as the bot runs."""
    workers = WorkerPool(workers=1)
    try:
        assert await workers.run(Lane.QUICK, gc.isenabled), "the first worker collects"
        assert await workers.run(Lane.SLOW, die_once, str(tmp_path / "died")) == "answered"
        assert workers.replacements == 1
        assert await workers.run(Lane.QUICK, gc.isenabled), "its replacement collects"
    finally:
        await workers.close()


async def test_ai_decisions_in_a_worker_are_the_engine_s_own(pool: WorkerPool) -> None:
    for players, actions, seed in ((2, 0, 1), (3, 30, 2), (4, 61, 3)):
        state = played(players, actions, seed)
        for level in ("easy", "medium", "hard"):
            here = ai.choose_action(state, level, seed, WORK_ONLY)
            there = await pool.run(
                Lane.SLOW,
                worker_jobs.choose_action,
                engine.record_of(state),
                level,
                seed,
                WORK_ONLY,
            )
            assert there == here, (players, actions, level)


async def test_pictures_in_a_worker_are_the_same_bytes(pool: WorkerPool) -> None:
    state = played(3, 40, 4)
    picture = worker_jobs.BoardPicture(engine.record_of(state), numbered=True)
    there = await pool.run(Lane.QUICK, worker_jobs.board_png, picture)
    assert there == render_board(state, show_candidates=True)


async def test_workers_run_elsewhere_and_give_way_to_the_bot(pool: WorkerPool) -> None:
    pid, niceness = await pool.run(Lane.QUICK, pid_and_niceness)
    assert pid != os.getpid()
    assert niceness >= os.nice(0) + 1


async def test_a_job_s_own_error_reaches_the_caller_and_the_pool_goes_on(
    pool: WorkerPool,
) -> None:
    with pytest.raises(ValueError, match="the job's own error"):
        await pool.run(Lane.QUICK, fail)
    assert pool.replacements == 0
    assert (await pool.run(Lane.QUICK, pid_and_niceness))[0] != os.getpid()


async def test_a_worker_that_dies_is_replaced_and_its_job_tried_again(
    pool: WorkerPool, tmp_path: Path
) -> None:
    answer = await pool.run(Lane.SLOW, die_once, str(tmp_path / "died"))
    assert answer == "answered"
    assert pool.replacements == 1


async def test_a_job_that_kills_every_worker_fails_cleanly(pool: WorkerPool) -> None:
    with pytest.raises(WorkerError, match="died twice"):
        await pool.run(Lane.SLOW, die)
    assert pool.replacements == 2
    assert (await pool.run(Lane.QUICK, pid_and_niceness))[0] != os.getpid()


async def test_a_hung_job_times_out_and_its_worker_is_killed(pool: WorkerPool) -> None:
    pids = {(await pool.run(Lane.QUICK, pid_and_niceness))[0] for _ in range(4)}
    with pytest.raises(WorkerTimeoutError):
        await pool.run(Lane.SLOW, hang, limit=0.5)
    for pid in pids:  # the old workers were killed, the hung one with them
        await asyncio.to_thread(wait_gone, pid)
    assert (await pool.run(Lane.QUICK, pid_and_niceness))[0] not in pids


async def test_closing_waits_seconds_not_for_a_hung_job(tmp_path: Path) -> None:
    workers = WorkerPool(workers=1)
    pid, _ = await workers.run(Lane.QUICK, pid_and_niceness)
    running = tmp_path / "running"
    hung = asyncio.create_task(workers.run(Lane.SLOW, hang, str(running), limit=3600))
    await until(running.exists, "the hung job running")
    await workers.close(grace=0.2)
    await asyncio.to_thread(wait_gone, pid)
    with pytest.raises((WorkerError, asyncio.CancelledError, RuntimeError)):
        await asyncio.wait_for(hung, HANG_BOUND_SECONDS)  # a closed pool takes no new job
    with pytest.raises(WorkerError, match="closed"):
        await workers.run(Lane.QUICK, pid_and_niceness)


class PoolClock:
    """The pool module's `time`, whose monotonic clock moves only as a worker's wait ends."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


class BusyWorker:
    """A worker process whose job ends `ends_after` seconds into the close (None: never):
    `join` takes that long on the pool's clock, or its whole timeout."""

    def __init__(self, clock: PoolClock, ends_after: float | None) -> None:
        self.clock = clock
        self.ends_at = None if ends_after is None else clock.now + ends_after
        self.offered: list[float] = []
        self.killed = False

    def join(self, timeout: float | None = None) -> None:
        assert timeout is not None, "a wait without end"
        self.offered.append(timeout)
        waited_to = self.clock.now + timeout
        self.clock.now = waited_to if self.ends_at is None else min(waited_to, self.ends_at)

    def is_alive(self) -> bool:
        ended = self.ends_at is not None and self.clock.now >= self.ends_at
        return not ended and not self.killed

    def kill(self) -> None:
        self.killed = True


async def test_closing_waits_a_second_and_a_half_in_all_however_many_workers_are_busy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One deadline for every worker: with a grace for each, a stop with every worker busy
    would wait 1.5 s per worker, past what a container's stop allows. On the pool's own clock,
    so nothing real is waited for."""
    clock = PoolClock()
    monkeypatch.setattr(pool_module, "time", clock)
    ending = BusyWorker(clock, 0.5)
    hung = [BusyWorker(clock, None) for _ in range(2)]
    busy = [ending, *hung]
    monkeypatch.setattr(pool_module, "_processes", lambda executor: list(busy))
    three = WorkerPool(workers=3)
    three._in_process = True  # the executor's processes are the ones above
    assert (await three.run(Lane.QUICK, pid_and_niceness))[0] == os.getpid()
    await three.close()
    assert clock.now == 1.5, f"the close waited {clock.now:g} s for {len(busy)} busy workers"
    assert [worker.offered for worker in busy] == [[1.5], [1.0], [0.0]]
    assert not ending.killed, "its job ended within the grace"
    assert all(worker.killed for worker in hung), "what is left is killed"


def test_starting_the_workers_leaves_the_event_loop_free(tmp_path: Path) -> None:
    """Starting a worker waits for the fork server, the first one until it has loaded the jobs'
    code and drawn its board: the event loop goes on meanwhile, as the bot's must, to connect
    the gateway and answer clicks. Here the fork server's loading goes on only once the loop,
    still running, has seen it begin. A loop held by the start would wait for it for ever: a
    thread watching the loop's thread finds it in the fork server's code before the release,
    releases the fork server itself and has the script say so."""
    script = tmp_path / "starting.py"
    script.write_text(
        textwrap.dedent(
            """
            import asyncio, multiprocessing, sys, threading, time
            from pathlib import Path
            from bot.workers import pool
            from tests.polling import until

            MULTIPROCESSING = str(Path(multiprocessing.__file__).parent)
            held = []

            def watch(loop_thread, release):
                while True:
                    frame = sys._current_frames().get(loop_thread)
                    while frame is not None and not (
                        frame.f_code.co_filename.startswith(MULTIPROCESSING)
                        and frame.f_code.co_filename.endswith("forkserver.py")
                    ):
                        frame = frame.f_back
                    if release.exists():  # read after the frames: it came before them
                        return
                    if frame is not None:  # the loop's thread waits for the fork server
                        held.append(True)
                        release.touch()
                        return
                    time.sleep(0.01)

            async def main():
                waiting, release = Path(sys.argv[1]), Path(sys.argv[2])
                watching = (threading.get_ident(), release)
                threading.Thread(target=watch, args=watching, daemon=True).start()
                workers = pool.WorkerPool(workers=1)
                starting = asyncio.create_task(workers.start())
                await until(waiting.exists, "the fork server loading")
                release.touch()
                await starting
                await workers.close()
                print("held-by-the-start" if held else "started", flush=True)

            if __name__ == "__main__":
                pool.PRELOAD = (*pool.PRELOAD, "tests.bot.workers.held_preload")
                asyncio.run(main())
            """
        )
    )
    waiting, release = tmp_path / "waiting", tmp_path / "release"
    environment = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT),
        "HELD_PRELOAD_WAITING": str(waiting),
        "HELD_PRELOAD_RELEASE": str(release),
    }
    done = subprocess.run(
        [sys.executable, str(script), str(waiting), str(release)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["started"]


def test_workers_end_with_a_bot_killed_outright(tmp_path: Path) -> None:
    script = tmp_path / "bot_like.py"
    script.write_text(
        textwrap.dedent(
            """
            import asyncio, os, signal, sys
            from pathlib import Path
            from bot.workers.pool import Lane, WorkerPool
            from tests.bot.workers.test_pool import hang, pid_and_niceness
            from tests.polling import until

            async def main():
                pool = WorkerPool(workers=2)
                pids = {(await pool.run(Lane.QUICK, pid_and_niceness))[0] for _ in range(6)}
                running = Path(sys.argv[1])
                asyncio.create_task(pool.run(Lane.SLOW, hang, str(running)))
                await until(running.exists, "the hung job running")
                print(" ".join(map(str, sorted(pids))), flush=True)
                os.kill(os.getpid(), signal.SIGKILL)

            if __name__ == "__main__":
                asyncio.run(main())
            """
        )
    )
    environment = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "running")],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    pids = [int(pid) for pid in done.stdout.split()]
    assert pids
    for pid in pids:
        wait_gone(pid)


def wait_gone(pid: int, limit: float = 20.0) -> None:
    """Wait until process `pid` has exited (zombies of this process are reaped)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        try:
            if " Z " in Path(f"/proc/{pid}/stat").read_text():
                return  # a zombie: it has exited
        except OSError:
            return  # gone between the two looks
        time.sleep(0.05)
    raise AssertionError(f"process {pid} still runs after {limit:g} s")


# --- lanes, in threads -------------------------------------------------------------------------


async def test_slow_jobs_leave_a_worker_for_pictures() -> None:
    workers = WorkerPool(workers=0)  # threads: one slot, like a one-core machine
    assert workers.workers == 0
    three = WorkerPool(workers=3)
    three._in_process = True  # the same lanes, in threads, to hold jobs with events
    release = threading.Event()
    started: list[int] = []
    slow = [asyncio.create_task(three.run(Lane.SLOW, wait_for, release, started)) for _ in range(3)]
    await until(lambda: len(started) >= 2, "two slow jobs running")
    assert not three.busy, "two slow jobs run, the third waits, one worker is free"
    # The three asked for their workers before any ran: a third slow job that took the last
    # worker would hold it until the release below, and this picture would wait for it.
    quick = await asyncio.wait_for(three.run(Lane.QUICK, pid_and_niceness), 20)
    assert quick[0] == os.getpid()
    assert len(started) == 2, "the third slow job still waits"
    release.set()
    assert await asyncio.gather(*slow) == ["slow"] * 3
    await three.close()
    await workers.close()


async def test_slow_jobs_hold_workers_too_so_no_more_jobs_run_than_workers() -> None:
    """Two slow jobs and a picture running take all three workers, so the pool is busy (a
    further job waits) until one of them ends."""
    three = WorkerPool(workers=3)
    three._in_process = True  # the same lanes, in threads, to hold jobs with events
    release_slow, release_quick = threading.Event(), threading.Event()
    started: list[int] = []
    slow = [
        asyncio.create_task(three.run(Lane.SLOW, wait_for, release_slow, started)) for _ in range(2)
    ]
    quick = asyncio.create_task(three.run(Lane.QUICK, wait_for, release_quick, started))
    await until(lambda: len(started) >= 3, "two slow jobs and a picture running")
    assert three.busy, "every worker holds a job"
    release_quick.set()
    assert await quick == "slow"
    assert not three.busy, "the picture's worker is free again"
    release_slow.set()
    assert await asyncio.gather(*slow) == ["slow"] * 2
    await three.close()


async def test_two_jobs_lost_with_one_set_of_workers_replace_it_once() -> None:
    """Two jobs that fail on the same dead executor replace it once: the second failure finds
    it replaced already, and both jobs are answered on the new one."""
    two = WorkerPool(workers=2)
    two._in_process = True  # jobs held with events, failing as a dead worker's would
    release = threading.Event()
    calls: list[int] = []
    jobs = [
        asyncio.create_task(two.run(Lane.QUICK, broken_at_first, release, calls)) for _ in range(2)
    ]
    await until(lambda: len(calls) >= 2, "both jobs running")
    release.set()
    assert await asyncio.gather(*jobs) == ["answered"] * 2
    assert two.replacements == 1
    await two.close()


async def test_workers_that_refuse_a_job_are_replaced_and_the_job_runs() -> None:
    """An executor that takes no more jobs (shut down under the pool) is replaced, and the
    job runs on the new one."""
    one = WorkerPool(workers=1)
    one._in_process = True
    assert (await one.run(Lane.QUICK, pid_and_niceness))[0] == os.getpid()
    executor, _ = one._current()
    executor.shutdown()
    assert (await one.run(Lane.QUICK, pid_and_niceness))[0] == os.getpid()
    assert one.replacements == 1
    await one.close()


@pytest.mark.parametrize("cores", [set(), None])
def test_there_is_always_a_worker(cores: set[int] | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the cores cannot be told (no affinity, or a system that does not count them:
    os.cpu_count() answers None), the pool still has one worker, not none to run every job."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: cores, raising=False)
    if cores is None:
        monkeypatch.delattr(os, "sched_getaffinity")
        monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert default_workers() == 1
    assert WorkerPool().workers == 1


@pytest.mark.parametrize("cores", [1, 2, 4, 16])
def test_the_pool_has_one_worker_per_core_this_process_may_run_on(
    cores: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/performance.md: one worker per core, at least one. On two cores that is two, so an
    AI decision leaves a worker for the pictures."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(cores)), raising=False)
    assert default_workers() == cores
    assert WorkerPool().workers == cores
