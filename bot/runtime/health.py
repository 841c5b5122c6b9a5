"""Liveness for the container: a heartbeat file the bot refreshes, and the check that reads it.

The file holds times (Unix seconds), one per line, each under its own key:

    gateway 1718000000.000   the last `Heartbeat.beat()`: every 30 s while the gateway is up
    loop 1718000004.000      the last `Heartbeat.tick()`: every few seconds from the event loop
    started 1717999990.000   the bot's first write, soon after it started
    down:turn-clock 1718000002.000   a long-running task that is down, since when (only while
                             it is: bot.supervisor starts it again)
    pid 4242                 the bot process that writes the file, and the process
    pidns 4026531836         namespace its number means something in (Linux)

The image's HEALTHCHECK runs `python -m bot healthcheck` in a separate process, which reads the
file and fails when the gateway beat is older than `MAX_HEARTBEAT_AGE` (the bot lost Discord
for good), the loop tick is older than `MAX_LOOP_STALL` (the event loop is blocked: the bot
hangs while its socket may still look open) or a task is down. A file without a `loop` line
(nothing ticks it, or the older format: one bare number, the gateway time) is judged by the
gateway rule alone. A loop that ticks before any gateway beat is a bot starting (not connected
to Discord yet), said as such until it has been starting for `MAX_HEARTBEAT_AGE`. A heartbeat
too old on a disk that is full says so: the bot cannot write the file there, whatever its event
loop does; one whose writer process is gone (the bot stopped, cleanly or not) says the bot is
not running, not that its loop is blocked.

Every write renders the times held in memory, so a write that failed (a full disk) is made
good by the next one: the loop's tick rewrites the file every few seconds.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bot.storage.availability import disk_full
from bot.workers.processes import process_alive

MAX_HEARTBEAT_AGE = 90.0
"""Seconds: three missed beats (one every 30 s) make the bot unhealthy."""
MAX_LOOP_STALL = 30.0
"""Seconds: a loop tick older than this means the event loop has been blocked that long."""

HEARTBEAT_MODE = 0o644
"""The file's permissions: readable by every user, so a check run as another user than the
bot's (a monitoring user, `docker exec -u`) can read it. It holds times, the bot's process
number and the names of its tasks, nothing secret; the folder it lies in still decides who may
reach it."""

GATEWAY_KEY = "gateway"
LOOP_KEY = "loop"
STARTED_KEY = "started"
PID_KEY = "pid"
PIDNS_KEY = "pidns"
DOWN_PREFIX = "down:"
"""The key of a task that is down is its name after this prefix."""


@dataclass(frozen=True, slots=True)
class HeartbeatRecord:
    """What a heartbeat file says: when the gateway last beat and the loop last ticked."""

    beaten_at: float | None
    """Unix seconds of the last gateway beat; None when the bot has not connected yet."""
    ticked_at: float | None
    """Unix seconds of the last loop tick; None when nothing ticks the file."""
    down: dict[str, float] = field(default_factory=dict)
    """The long-running tasks that are down, by name, with the Unix seconds they went down."""
    pid: int | None = None
    """The process that wrote the file (None: a file that does not say)."""
    pidns: int | None = None
    """The process namespace that `pid` belongs to (a check run in another container sees
    other processes: it cannot tell whether that one runs)."""
    started_at: float | None = None
    """Unix seconds of the bot's first write, soon after it started (None: a file that does
    not say)."""


class Heartbeat:
    """Keeps the last gateway beat and loop tick, and writes both to a file atomically.

    Both are held in memory and every write renders both, so either writer keeps the other's
    time; a lock makes each render-and-replace whole, so the last replace always carries the
    latest of both times, whichever threads the writes come from.
    """

    def __init__(
        self,
        path: Path,
        *,
        clock: Callable[[], float] = time.time,
        pid: int | None = None,
    ) -> None:
        self.path = path
        self._clock = clock
        self._pid = os.getpid() if pid is None else pid
        self._lock = threading.Lock()
        self._beaten_at: float | None = None
        self._ticked_at: float | None = None
        self._down: dict[str, float] = {}
        self._started_at: float | None = None

    def beat(self) -> None:
        """Record that the gateway connection is up now."""
        with self._lock:
            self._beaten_at = self._clock()
            self._write(self._beaten_at)

    def tick(self) -> None:
        """Record that the event loop is running now."""
        with self._lock:
            self._ticked_at = self._clock()
            self._write(self._ticked_at)

    def task_down(self, name: str) -> None:
        """Record that the long-running task `name` is down (it is started again soon)."""
        with self._lock:
            self._down[name] = now = self._clock()
            self._write(now)

    def task_up(self, name: str) -> None:
        """Record that the task `name` runs again."""
        with self._lock:
            if (since := self._down.pop(name, None)) is not None:
                self._write(since)

    def _write(self, now: float) -> None:
        """Write every time held; `now` is the moment of this write (the first one's is the
        start's)."""
        if self._started_at is None:
            self._started_at = now
        lines = []
        if self._beaten_at is not None:
            lines.append(f"{GATEWAY_KEY} {self._beaten_at:.3f}\n")
        if self._ticked_at is not None:
            lines.append(f"{LOOP_KEY} {self._ticked_at:.3f}\n")
        lines.append(f"{STARTED_KEY} {self._started_at:.3f}\n")
        lines.extend(f"{DOWN_PREFIX}{name} {since:.3f}\n" for name, since in self._down.items())
        namespace = pid_namespace()
        if namespace is not None:
            lines.append(f"{PID_KEY} {self._pid}\n{PIDNS_KEY} {namespace}\n")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(
            dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp"
        )
        try:
            os.fchmod(descriptor, HEARTBEAT_MODE)
            with os.fdopen(descriptor, "w", encoding="ascii") as file:
                file.write("".join(lines))
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def read_heartbeat(path: Path) -> HeartbeatRecord | None:
    """The times in the heartbeat file at `path`, or None when there is no readable one.

    Unknown keys are skipped; a line that is one bare number is a gateway beat.
    """
    try:
        text = path.read_text(encoding="ascii")
    except (OSError, ValueError):
        return None
    times: dict[str, float] = {}
    try:
        for line in text.splitlines():
            words = line.split()
            if len(words) == 1:
                times[GATEWAY_KEY] = float(words[0])
            elif len(words) == 2:
                times[words[0]] = float(words[1])
            elif words:
                return None
    except ValueError:
        return None
    if not times:
        return None
    down = {
        key.removeprefix(DOWN_PREFIX): moment
        for key, moment in times.items()
        if key.startswith(DOWN_PREFIX)
    }
    pid, pidns = times.get(PID_KEY), times.get(PIDNS_KEY)
    if set(times) <= {PID_KEY, PIDNS_KEY, STARTED_KEY}:
        return None
    return HeartbeatRecord(
        times.get(GATEWAY_KEY),
        times.get(LOOP_KEY),
        down,
        None if pid is None else int(pid),
        None if pidns is None else int(pidns),
        times.get(STARTED_KEY),
    )


def heartbeat_age(path: Path, *, now: float | None = None) -> float | None:
    """Seconds since the last gateway beat, or None when there is none readable at `path`."""
    record = read_heartbeat(path)
    if record is None or record.beaten_at is None:
        return None
    return _age(record.beaten_at, now)


def check_health(
    path: Path,
    *,
    max_age: float = MAX_HEARTBEAT_AGE,
    max_loop_stall: float = MAX_LOOP_STALL,
    now: float | None = None,
) -> tuple[bool, str]:
    """Whether the bot is healthy, and one line saying why."""
    if path.is_dir():
        return False, (
            f"unhealthy: the heartbeat path {path} is a folder: set MARRAKECH_HEARTBEAT to a "
            "file's path"
        )
    record = read_heartbeat(path)
    if record is not None and _gone(record):
        last = max(t for t in (record.beaten_at, record.ticked_at, 0.0) if t is not None)
        return False, (
            f"unhealthy: the bot is not running (its process {record.pid} is gone; "
            f"last heartbeat {_age(last, now):.0f} s ago)"
        )
    if record is not None and record.ticked_at is not None:
        stalled = _age(record.ticked_at, now)
        if stalled > max_loop_stall:
            if disk_full(path.parent):
                return False, (
                    f"unhealthy: the disk holding {path} is full, so the bot cannot write its "
                    f"heartbeat (last written {stalled:.0f} s ago)"
                )
            return False, (
                f"unhealthy: the event loop has been blocked for {stalled:.0f} s "
                f"(limit {max_loop_stall:.0f} s)"
            )
    if record is not None and record.down:
        name, since = min(record.down.items(), key=lambda item: item[1])
        return False, f"unhealthy: the {name} task has been down for {_age(since, now):.0f} s"
    if record is not None and record.beaten_at is None and record.ticked_at is not None:
        return False, _starting(record, max_age, now)
    if record is None or record.beaten_at is None:
        return False, (
            f"unhealthy: no heartbeat at {path} (the bot is not running, or has only just started)"
        )
    age = _age(record.beaten_at, now)
    if age > max_age:
        return False, f"unhealthy: last heartbeat {age:.0f} s ago (limit {max_age:.0f} s)"
    if record.ticked_at is None:
        return True, f"healthy: last heartbeat {age:.0f} s ago"
    return True, (
        f"healthy: last heartbeat {age:.0f} s ago, "
        f"event loop ran {_age(record.ticked_at, now):.0f} s ago"
    )


def _starting(record: HeartbeatRecord, max_age: float, now: float | None) -> str:
    """Why a bot whose loop ticks but that has not connected to Discord yet is not healthy:
    it is starting, or, once that has taken `max_age`, it cannot connect."""
    if record.started_at is None:
        return "starting: not connected to Discord yet"
    waited = _age(record.started_at, now)
    if waited > max_age:
        return (
            f"unhealthy: not connected to Discord in the {waited:.0f} s since the bot started "
            f"(limit {max_age:.0f} s)"
        )
    return f"starting: not connected to Discord yet (started {waited:.0f} s ago)"


def pid_namespace() -> int | None:
    """This process's PID namespace (Linux), or None where it cannot be told."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return None


def _gone(record: HeartbeatRecord) -> bool:
    """Whether the process that wrote `record` is known to have ended: it wrote its number,
    in this process's namespace, and no such process runs."""
    if record.pid is None or record.pidns is None or record.pidns != pid_namespace():
        return False
    return not process_alive(record.pid)


def _age(moment: float, now: float | None) -> float:
    """Seconds from `moment` to `now` (default: the current time); never negative."""
    current = time.time() if now is None else now
    return max(0.0, current - moment)
