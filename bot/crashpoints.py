"""Crash points for the crash-safety tests only: SIGKILL the bot at an exact place in its work.

Never set this in production. With `MARRAKECH_CRASH_AT=<point>:<n>` in the environment, the
process kills itself with SIGKILL the n-th time its execution passes `<point>` (names such as
`db.committed` or `click.responded`, listed in `POINTS`). `db.write` is passed on SQLite's
progress callback, every few virtual-machine steps of a write transaction, so it lands in the
middle of a statement that is changing the database.

When the variable is unset, `reach` is a function that does nothing and no SQLite callback is
installed: the hook costs one no-op call per point.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Mapping

CRASH_VAR = "MARRAKECH_CRASH_AT"

POINTS = (
    "db.begun",  # a write transaction has begun, nothing written yet
    "db.write",  # inside a write statement (SQLite progress callback)
    "db.committing",  # every statement done, COMMIT not yet sent
    "db.committed",  # COMMIT done, nothing told to Discord yet
    "lobby.created",  # a lobby is stored, its message not yet sent
    "lobby.started",  # the game is started in the database, its first turn not yet posted
    "click.committed",  # a move is stored, the click not yet answered
    "click.responded",  # the click is answered, the next turn not yet posted
    "turn.posted",  # the next turn's message is sent, its id not yet stored
    "auto.committed",  # a turn the AI played by itself (a timeout, a handover) is stored,
    # nothing of it shown yet
    "resign.committed",  # a resignation is stored, nothing of it told yet
    "end.committed",  # an abort or an abandoned end is stored, nothing of it told yet
    "end.told",  # the end is told in the channel, not yet recorded as shown
    "rejoin.committed",  # a seat taken back from the AI is stored, nothing of it told yet
    "rejoin.told",  # a seat taken back is told in the channel, not yet recorded as told
    "resume.posting",  # catching up after a restart, before one game's message is posted
    "tournament.round_over",  # a tournament's round is over (its last game stored) or it just
    # started: the next round not paired yet, nor the end stored
)
WRITE_STEPS = 20
"""SQLite virtual-machine instructions between two passes of `db.write`."""


class CrashSettingError(ValueError):
    """`MARRAKECH_CRASH_AT` is not `<point>:<n>` with a known point and n >= 1."""


def _nothing(point: str) -> None:
    """The hook when no crash is asked for."""


reach: Callable[[str], None] = _nothing
"""Pass a crash point (the process dies here if this is the n-th pass asked for)."""

write_hook: Callable[[], int] | None = None
"""The SQLite progress callback that passes `db.write`, or None when no crash is asked for."""


def active(environ: Mapping[str, str]) -> tuple[str, ...]:
    """(CRASH_VAR,) when a crash is asked for, else ()."""
    return (CRASH_VAR,) if environ.get(CRASH_VAR, "").strip() else ()


def configure(environ: Mapping[str, str]) -> None:
    """Arm the crash point named by `MARRAKECH_CRASH_AT`, if set (testing only)."""
    global reach, write_hook
    value = environ.get(CRASH_VAR, "").strip()
    if not value:
        reach, write_hook = _nothing, None
        return
    point, _, count = value.partition(":")
    if point not in POINTS or not count.isdigit() or int(count) < 1:
        raise CrashSettingError(
            f"{CRASH_VAR} (testing only) must be <point>:<n> with n >= 1 and a point among "
            f"{', '.join(POINTS)}; got {value!r}"
        )
    reach = _Countdown(point, int(count))
    write_hook = _write_hook if point == "db.write" else None


class _Countdown:
    """Counts the passes of one point and kills the process on the n-th."""

    def __init__(self, point: str, times: int) -> None:
        self.point = point
        self.left = times
        self.times = times

    def __call__(self, point: str) -> None:
        if point != self.point:
            return
        self.left -= 1
        if self.left == 0:
            # One line for the test to wait on, then no clean-up of any kind.
            sys.stderr.write(f"crash point {point}:{self.times} reached: SIGKILL (testing)\n")
            sys.stderr.flush()
            os.kill(os.getpid(), signal.SIGKILL)


def _write_hook() -> int:
    reach("db.write")
    return 0
