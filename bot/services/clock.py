"""The service's notion of now, injected so that tests (and turn time limits) control time.

`OffsetClock` is for testing only: the system clock shifted by a number of seconds read from a
file (MARRAKECH_TEST_CLOCK_FILE), so an end-to-end test can make turn deadlines pass without
waiting. It is read at start-up and again whenever the bot is told to (SIGUSR1).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(UTC)


class OffsetClock:
    """The system clock plus an offset in seconds taken from a file (testing only)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._offset = timedelta()
        self.reload()

    def reload(self) -> float:
        """Read the offset again (a missing or empty file means 0); return it in seconds."""
        try:
            raw = self._path.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            raw = ""
        self._offset = timedelta(seconds=float(raw or 0))
        return self._offset.total_seconds()

    def __call__(self) -> datetime:
        return system_clock() + self._offset
