"""Liveness for the container: a heartbeat file the bot refreshes, and the check that reads it.

While its gateway connection is up, the bot calls `Heartbeat.beat()` every 30 s. The image's
HEALTHCHECK runs `python -m bot healthcheck`, which passes while the last beat is fresher than
`MAX_HEARTBEAT_AGE` seconds, so a bot that hangs or loses Discord for good turns unhealthy.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

MAX_HEARTBEAT_AGE = 90.0
"""Seconds: three missed beats (one every 30 s) make the bot unhealthy."""


class Heartbeat:
    """Writes the current time (Unix seconds) to a file, replacing it atomically."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self._clock = clock

    def beat(self) -> None:
        """Record that the bot is alive now."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(
            dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp"
        )
        try:
            with os.fdopen(descriptor, "w", encoding="ascii") as file:
                file.write(f"{self._clock():.3f}\n")
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def heartbeat_age(path: Path, *, now: float | None = None) -> float | None:
    """Seconds since the last beat, or None when there is no readable heartbeat at `path`."""
    try:
        beaten_at = float(path.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(0.0, current - beaten_at)


def check_health(path: Path, *, max_age: float = MAX_HEARTBEAT_AGE) -> tuple[bool, str]:
    """Whether the bot is healthy, and one line saying why."""
    age = heartbeat_age(path)
    if age is None:
        return False, f"unhealthy: no heartbeat at {path} (the bot is not connected to Discord)"
    if age > max_age:
        return False, f"unhealthy: last heartbeat {age:.0f} s ago (limit {max_age:.0f} s)"
    return True, f"healthy: last heartbeat {age:.0f} s ago"
