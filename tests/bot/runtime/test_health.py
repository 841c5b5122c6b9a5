"""Tests of bot.runtime.health: the heartbeat file and the container's HEALTHCHECK."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.edge.client import HEARTBEAT_INTERVAL_SECONDS
from bot.runtime.health import (
    MAX_HEARTBEAT_AGE,
    MAX_LOOP_STALL,
    Heartbeat,
    HeartbeatRecord,
    check_health,
    heartbeat_age,
    pid_namespace,
    read_heartbeat,
)
from bot.runtime.loop_lag import LoopLagProbe
from bot.workers.processes import process_alive
from tests.bot.runtime.test_loop_lag import ScriptedTime, on_time


def test_beat_records_the_clock_and_age_counts_from_it(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"

    Heartbeat(path, clock=lambda: 1_000.0).beat()

    assert heartbeat_age(path, now=1_042.5) == pytest.approx(42.5)


def test_beat_creates_missing_folders_and_replaces_the_previous_beat(tmp_path: Path) -> None:
    path = tmp_path / "run" / "bot" / "heartbeat"
    clock_values = iter([100.0, 200.0])
    heartbeat = Heartbeat(path, clock=lambda: next(clock_values))

    heartbeat.beat()
    heartbeat.beat()

    assert heartbeat_age(path, now=230.0) == pytest.approx(30.0)
    assert [entry.name for entry in path.parent.iterdir()] == ["heartbeat"]


def test_a_write_that_fails_leaves_no_file_behind_and_the_next_one_makes_it_good(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a full disk every write fails, one every few seconds: none may leave its temporary
    file beside the heartbeat (they would pile up for as long as the disk is full), and the
    first write that succeeds holds every time recorded meanwhile."""
    path = tmp_path / "heartbeat"
    clock_values = iter([100.0, 130.0])
    heartbeat = Heartbeat(path, clock=lambda: next(clock_values))
    replace = os.replace

    def disk_full(source: object, target: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(OSError, match="No space left"):
        heartbeat.beat()
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(os, "replace", replace)
    heartbeat.tick()
    record = read_heartbeat(path)
    assert record is not None
    assert (record.beaten_at, record.ticked_at) == (100.0, 130.0)
    assert [entry.name for entry in tmp_path.iterdir()] == ["heartbeat"]


def test_no_heartbeat_has_no_age(tmp_path: Path) -> None:
    assert heartbeat_age(tmp_path / "missing") is None


def test_garbled_heartbeat_has_no_age(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    path.write_text("not a time\n", encoding="ascii")

    assert heartbeat_age(path) is None


def test_a_beat_from_the_future_counts_as_fresh(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    Heartbeat(path, clock=lambda: 500.0).beat()

    assert heartbeat_age(path, now=400.0) == 0.0


def test_check_health_fails_without_a_beat(tmp_path: Path) -> None:
    healthy, reason = check_health(tmp_path / "heartbeat")

    assert not healthy
    assert str(tmp_path / "heartbeat") in reason


def test_healthcheck_command_follows_the_heartbeat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.delenv("MARRAKECH_HEARTBEAT", raising=False)
    monkeypatch.setenv("MARRAKECH_DB", str(tmp_path / "marrakech.sqlite3"))

    assert main(["healthcheck"]) == 1
    assert "unhealthy" in capsys.readouterr().out

    Heartbeat(tmp_path / "heartbeat").beat()

    assert main(["healthcheck"]) == 0
    assert capsys.readouterr().out.startswith("healthy")


# The event loop's tick, written beside the gateway beat.


def beat_and_tick(path: Path, *, beaten_at: float, ticked_at: float) -> None:
    times = iter([beaten_at, ticked_at])
    heartbeat = Heartbeat(path, clock=lambda: next(times))
    heartbeat.beat()
    heartbeat.tick()


def test_beat_and_tick_each_keep_the_others_time(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    clock_values = iter([100.0, 130.0, 160.0])
    heartbeat = Heartbeat(path, clock=lambda: next(clock_values))

    heartbeat.beat()
    heartbeat.tick()
    assert read_heartbeat(path) == HeartbeatRecord(
        100.0, 130.0, pid=os.getpid(), pidns=pid_namespace(), started_at=100.0
    )
    heartbeat.beat()
    assert read_heartbeat(path) == HeartbeatRecord(
        160.0, 130.0, pid=os.getpid(), pidns=pid_namespace(), started_at=100.0
    )
    assert path.read_text(encoding="ascii") == (
        f"gateway 160.000\nloop 130.000\nstarted 100.000\npid {os.getpid()}\n"
        f"pidns {pid_namespace()}\n"
    )


def test_a_tick_alone_is_no_gateway_beat(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    Heartbeat(path, clock=lambda: 100.0).tick()

    assert read_heartbeat(path) == HeartbeatRecord(
        None, 100.0, pid=os.getpid(), pidns=pid_namespace(), started_at=100.0
    )
    assert heartbeat_age(path, now=110.0) is None
    assert not check_health(path, now=110.0)[0]


def test_a_bot_not_yet_connected_is_said_to_be_starting_until_it_is_late(
    tmp_path: Path,
) -> None:
    """Between the start and the first connection to Discord the event loop ticks but no
    gateway beat is written: the check says the bot is starting (not healthy yet: it cannot
    answer anyone), not that something is wrong, until the start has taken as long as a lost
    connection may."""
    path = tmp_path / "heartbeat"
    now = [100.0]
    heartbeat = Heartbeat(path, clock=lambda: now[0])
    heartbeat.tick()
    now[0] = 110.0
    heartbeat.tick()

    assert check_health(path, now=112.0) == (
        False,
        "starting: not connected to Discord yet (started 12 s ago)",
    )
    late = now[0] = 100.0 + MAX_HEARTBEAT_AGE + 1
    heartbeat.tick()
    assert check_health(path, now=late) == (
        False,
        (
            f"unhealthy: not connected to Discord in the {late - 100:.0f} s since the bot "
            f"started (limit {MAX_HEARTBEAT_AGE:.0f} s)"
        ),
    )


def test_the_heartbeat_file_is_readable_by_every_user(tmp_path: Path) -> None:
    """A check run as another user (a monitoring user, `docker exec -u`) reads the file: it
    holds times, the bot's process number and the names of its tasks, nothing secret. The
    folder it lies in still decides who may reach it."""
    path = tmp_path / "heartbeat"
    heartbeat = Heartbeat(path, clock=lambda: 100.0)
    heartbeat.tick()
    assert path.stat().st_mode & 0o777 == 0o644
    heartbeat.beat()
    assert path.stat().st_mode & 0o777 == 0o644, "every write replaces the file"


def test_a_file_that_names_only_its_writer_is_no_heartbeat(tmp_path: Path) -> None:
    """A task down and up again before the gateway's first beat and the loop's first tick:
    the file holds no time, only the process that wrote it."""
    path = tmp_path / "heartbeat"
    heartbeat = Heartbeat(path, clock=lambda: 100.0)
    heartbeat.task_down("turn-clock")
    heartbeat.task_up("turn-clock")

    assert "pid " in path.read_text(encoding="ascii")
    assert read_heartbeat(path) is None
    healthy, reason = check_health(path, now=110.0)
    assert not healthy
    assert reason.startswith("unhealthy: no heartbeat at")


def test_a_bare_time_is_read_as_a_gateway_beat(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    path.write_text("1000.250\n", encoding="ascii")

    assert read_heartbeat(path) == HeartbeatRecord(beaten_at=1000.25, ticked_at=None)


def test_unknown_keys_are_skipped_and_odd_lines_garble_the_file(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    path.write_text("gateway 10\nshard 3\nloop 12\n\n", encoding="ascii")
    assert read_heartbeat(path) == HeartbeatRecord(beaten_at=10.0, ticked_at=12.0)

    for garbled in ("gateway 10\nloop 12 13\n", "gateway 10\nloop soon\n", "", "\xe9\n"):
        path.write_text(garbled, encoding="latin-1")
        assert read_heartbeat(path) is None, garbled


def test_check_health_fails_when_the_loop_is_blocked(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    beat_and_tick(path, beaten_at=1_000.0, ticked_at=1_000.0)

    healthy, reason = check_health(path, now=1_042.0)

    assert not healthy
    assert reason == "unhealthy: the event loop has been blocked for 42 s (limit 30 s)"


def test_a_stale_heartbeat_on_a_full_disk_says_the_disk_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot cannot write the file on a full disk: its loop may be running, so the check
    names the disk, not a blocked loop."""
    path = tmp_path / "heartbeat"
    beat_and_tick(path, beaten_at=1_000.0, ticked_at=1_000.0)
    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(shutil, "disk_usage", lambda _: usage._replace(free=4096))

    healthy, reason = check_health(path, now=1_042.0)

    assert not healthy
    assert reason == (
        f"unhealthy: the disk holding {path} is full, so the bot cannot write its heartbeat "
        "(last written 42 s ago)"
    )
    assert check_health(path, now=1_010.0)[0], "a fresh heartbeat is healthy, full disk or not"


def test_check_health_passes_while_the_loop_ticks(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    beat_and_tick(path, beaten_at=1_000.0, ticked_at=1_020.0)

    healthy, reason = check_health(path, now=1_020.0 + MAX_LOOP_STALL)

    assert healthy
    assert reason == "healthy: last heartbeat 50 s ago, event loop ran 30 s ago"


def test_a_ticking_loop_does_not_hide_a_lost_gateway(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    beat_and_tick(path, beaten_at=1_000.0, ticked_at=1_100.0)

    healthy, reason = check_health(path, now=1_101.0)

    assert not healthy
    assert reason == "unhealthy: last heartbeat 101 s ago (limit 90 s)"


def test_without_a_tick_only_the_gateway_rule_applies(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    Heartbeat(path, clock=lambda: 1_000.0).beat()

    assert check_health(path, now=1_060.0) == (True, "healthy: last heartbeat 60 s ago")


def test_writes_from_several_threads_leave_one_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "heartbeat"
    moments = itertools.count(1)
    taken: dict[str, list[float]] = {"beat": [], "tick": []}
    writing: list[str] = []
    """The writers between taking their time and finishing their file."""
    overlaps: list[str] = []

    def clock() -> float:
        """A clock that always moves on, noting which writer took each time; it lets the other
        threads run before the time is kept, as a thread may be paused anywhere."""
        writer = threading.current_thread().name
        if writing:
            overlaps.append(f"{writer} while {writing[0]} wrote")
        writing.append(writer)
        moment = float(next(moments))
        taken.setdefault(writer, []).append(moment)
        time.sleep(0)
        return moment

    heartbeat = Heartbeat(path, clock=clock)
    write_file = heartbeat._write

    def write_whole(now: float) -> None:
        write_file(now)
        writing.remove(threading.current_thread().name)

    monkeypatch.setattr(heartbeat, "_write", write_whole)
    heartbeat.beat()
    heartbeat.tick()
    written = threading.Event()
    reads: list[HeartbeatRecord | None] = []

    def read() -> None:
        while True:
            last = written.is_set()
            reads.append(read_heartbeat(path))
            if last:
                return

    def write(times: int, action: str) -> None:
        for _ in range(times):
            getattr(heartbeat, action)()

    threads = [
        threading.Thread(target=write, args=(100, action), name=action)
        for action in ("beat", "tick") * 2
    ]
    reader = threading.Thread(target=read)
    reader.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    written.set()
    reader.join()

    assert overlaps == [], "one write at a time: " + ", ".join(overlaps[:3])
    torn = sum(1 for record in reads if record is None)
    assert torn == 0, f"{torn} of {len(reads)} reads during the writes found no whole file"
    record = read_heartbeat(path)
    assert record is not None
    assert (record.beaten_at, record.ticked_at) == (max(taken["beat"]), max(taken["tick"])), (
        "the file holds the latest beat and tick"
    )
    assert [entry.name for entry in path.parent.iterdir()] == ["heartbeat"]


def test_healthcheck_command_fails_on_a_blocked_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MARRAKECH_HEARTBEAT", str(tmp_path / "beat"))
    now = time.time()
    beat_and_tick(tmp_path / "beat", beaten_at=now, ticked_at=now - MAX_LOOP_STALL - 60)

    assert main(["healthcheck"]) == 1
    assert capsys.readouterr().out.startswith("unhealthy: the event loop has been blocked for")


def turn_clock_down(path: Path, *later: float) -> Heartbeat:
    """A heartbeat whose clock reads 100 at the gateway's beat, 101 at the event loop's tick and
    102 as the turn clock's task goes down, then `later` for what the test records next."""
    clock_values = iter([100.0, 101.0, 102.0, *later])
    heartbeat = Heartbeat(path, clock=lambda: next(clock_values))
    heartbeat.beat()
    heartbeat.tick()
    heartbeat.task_down("turn-clock")
    return heartbeat


def test_a_task_that_is_down_makes_the_bot_unhealthy_until_it_runs_again(
    tmp_path: Path,
) -> None:
    path = tmp_path / "heartbeat"
    heartbeat = turn_clock_down(path, 103.0)
    assert read_heartbeat(path) == HeartbeatRecord(
        100.0, 101.0, {"turn-clock": 102.0}, os.getpid(), pid_namespace(), 100.0
    )
    assert check_health(path, now=110.0) == (
        False,
        "unhealthy: the turn-clock task has been down for 8 s",
    )
    heartbeat.task_up("turn-clock")
    assert "down:" not in path.read_text(encoding="ascii")
    written = path.stat().st_ino
    heartbeat.task_up("turn-clock")
    assert path.stat().st_ino == written, "nothing to record: the file is not written again"
    assert check_health(path, now=110.0)[0]


def test_a_gateway_beat_exactly_max_age_old_is_still_healthy(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    Heartbeat(path, clock=lambda: 1_000.0).beat()

    assert check_health(path, now=1_000.0 + MAX_HEARTBEAT_AGE) == (
        True,
        f"healthy: last heartbeat {MAX_HEARTBEAT_AGE:.0f} s ago",
    )
    assert check_health(path, now=1_000.0 + MAX_HEARTBEAT_AGE + 1) == (
        False,
        f"unhealthy: last heartbeat {MAX_HEARTBEAT_AGE + 1:.0f} s ago (limit 90 s)",
    )


def test_of_several_tasks_down_the_check_names_the_one_down_longest(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    turn_clock_down(path, 105.0).task_down("outage-watch")

    assert check_health(path, now=110.0) == (
        False,
        "unhealthy: the turn-clock task has been down for 8 s",
    )


def test_a_bot_whose_process_is_gone_is_said_not_to_be_running(tmp_path: Path) -> None:
    """After a stop (clean or not) the file's times go stale: the check names the process
    that wrote it as gone, instead of calling its event loop blocked."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    path = tmp_path / "heartbeat"
    moments = iter([1_000.0, 1_050.0])
    heartbeat = Heartbeat(path, clock=lambda: next(moments), pid=gone.pid)
    heartbeat.beat()
    heartbeat.tick()
    assert read_heartbeat(path) == HeartbeatRecord(
        1_000.0, 1_050.0, pid=gone.pid, pidns=pid_namespace(), started_at=1_000.0
    )
    healthy, reason = check_health(path, now=1_101.0)
    assert not healthy
    assert reason == (
        f"unhealthy: the bot is not running (its process {gone.pid} is gone; "
        "last heartbeat 51 s ago)"
    ), "the last heartbeat is the later of the gateway's beat and the loop's tick"
    alive = Heartbeat(path, clock=lambda: 1_000.0)  # this process: running, its loop blocked
    alive.beat()
    alive.tick()
    assert "event loop has been blocked" in check_health(path, now=1_101.0)[1]
    other_container = path.read_text(encoding="ascii").replace(
        f"pidns {pid_namespace()}", "pidns 1"
    )
    path.write_text(other_container.replace(f"pid {os.getpid()}", f"pid {gone.pid}"), "ascii")
    assert "event loop has been blocked" in check_health(path, now=1_101.0)[1], (
        "a process of another namespace cannot be told gone from here"
    )


def test_a_bot_this_check_may_not_signal_is_running_not_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A check run as another user than the bot's, in its process namespace (a monitoring
    user, `docker exec -u`), may not signal the bot: the bot still runs. Taken for gone, a
    healthy bot would be reported not running, and restarted for ever."""

    def not_permitted(pid: int, signal: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    path = tmp_path / "heartbeat"
    heartbeat = Heartbeat(path, clock=lambda: 1_000.0, pid=4242)
    heartbeat.beat()
    heartbeat.tick()
    monkeypatch.setattr(os, "kill", not_permitted)
    assert check_health(path, now=1_010.0) == (
        True,
        "healthy: last heartbeat 10 s ago, event loop ran 10 s ago",
    )
    assert check_health(path, now=1_101.0) == (
        False,
        "unhealthy: the event loop has been blocked for 101 s (limit 30 s)",
    )
    assert process_alive(4242)


def test_a_heartbeat_path_that_is_a_folder_is_named_as_such(tmp_path: Path) -> None:
    healthy, reason = check_health(tmp_path)
    assert not healthy
    assert reason == (
        f"unhealthy: the heartbeat path {tmp_path} is a folder: set MARRAKECH_HEARTBEAT to a "
        "file's path"
    )


class CheckedBetweenWrites(ScriptedTime):
    """The probe's time, with the bot's heartbeat file at `path` in it: the gateway beats every
    HEARTBEAT_INTERVAL_SECONDS as the client does while connected, and the health check runs
    before each of the probe's wake-ups (as late as it can between two writes)."""

    def __init__(self, lags: list[float], path: Path) -> None:
        super().__init__(lags)
        self.heartbeat = Heartbeat(path, clock=self.clock)
        self.heartbeat.beat()
        self.beaten_at = self.now
        self.unhealthy: list[str] = []

    async def sleep(self, seconds: float) -> None:
        healthy, reason = check_health(self.heartbeat.path, now=self.now + seconds)
        if not healthy:
            self.unhealthy.append(reason)
        await super().sleep(seconds)
        if self.now - self.beaten_at >= HEARTBEAT_INTERVAL_SECONDS:
            self.beaten_at = self.now
            self.heartbeat.beat()


async def test_a_running_connected_bot_is_healthy_at_any_moment_between_two_writes(
    tmp_path: Path,
) -> None:
    """The writers keep well within the check's limits (docs/deployment.md): the gateway beats
    every 30 s and the check allows 90 s, three missed beats; the loop records that it runs
    every few seconds and the check allows 30 s. A writer slower than its limit would have
    a healthy bot reported unhealthy, and restarted, between two writes."""
    scripted = CheckedBetweenWrites(on_time(2 * MAX_HEARTBEAT_AGE), tmp_path / "heartbeat")
    probe = LoopLagProbe(
        liveness=scripted.heartbeat.tick, clock=scripted.clock, sleep=scripted.sleep
    )

    probe.start()
    await scripted.done.wait()
    await probe.stop()

    assert scripted.unhealthy == []
