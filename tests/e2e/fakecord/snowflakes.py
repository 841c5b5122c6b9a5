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
        self.offset = 0.0
        """Seconds the fake's clock is ahead of real time: ids carry its time."""

    def next(self) -> int:
        millis = int((time.time() + self.offset) * 1000) - DISCORD_EPOCH_MS
        candidate = (millis << 22) | (1 << 17) | (next(self._counter) & 0xFFF)
        self._last = max(candidate, self._last + 1)
        return self._last

    def next_on_shard(self, shard_id: int, shard_count: int) -> int:
        """The next snowflake whose shard, ``(id >> 22) % shard_count``, is ``shard_id``: its
        time part moves up to ``shard_count - 1`` ms ahead."""
        if not 0 <= shard_id < shard_count:
            raise ValueError(f"shard {shard_id} is not within 0..{shard_count - 1}")
        candidate = self.next()
        millis = candidate >> 22
        millis += (shard_id - millis) % shard_count
        if millis != candidate >> 22:
            candidate = (millis << 22) | (candidate & ((1 << 22) - 1))
        self._last = max(candidate, self._last)
        return candidate


def unix_time(snowflake: int) -> float:
    """When a snowflake was made (seconds since 1970)."""
    return ((snowflake >> 22) + DISCORD_EPOCH_MS) / 1000


def iso_now(offset: float = 0.0) -> str:
    """The current UTC time, `offset` seconds ahead (the fake's clock shift), in the ISO 8601
    form Discord uses in payloads."""
    now = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=offset)
    return now.isoformat()
