"""Discord snowflake ids and ISO timestamps, generated the way Discord shapes them."""

from __future__ import annotations

import datetime
import itertools
import time

DISCORD_EPOCH_MS = 1420070400000


class SnowflakeGenerator:
    """Hands out strictly increasing snowflakes whose time part is the current time."""

    def __init__(self) -> None:
        self._last = 0
        self._counter = itertools.count()

    def next(self) -> int:
        millis = int(time.time() * 1000) - DISCORD_EPOCH_MS
        candidate = (millis << 22) | (1 << 17) | (next(self._counter) & 0xFFF)
        self._last = max(candidate, self._last + 1)
        return self._last


def iso_now() -> str:
    """The current UTC time in the ISO 8601 form Discord uses in payloads."""
    return datetime.datetime.now(datetime.UTC).isoformat()
