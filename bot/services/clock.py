"""The service's notion of now, injected so that tests (and turn time limits) control time."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(UTC)


def timestamp(clock: Clock) -> str:
    """ISO 8601 UTC, the form stored in the database."""
    return clock().astimezone(UTC).isoformat(timespec="milliseconds")
