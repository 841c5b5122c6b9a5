"""GlobalPace: keeps the bot token's requests under Discord's global limit.

Discord lets a bot token make 50 requests a second, for every process and shard of the bot
together; a request over it is refused (429) and counts as an invalid one, and discord.py
does not wait ahead for it (it waits on each route's own bucket, from the headers). The
interaction endpoints (a click's answer, its follow-ups and their edits) are not bound to it.
So each process paces the requests it makes with the bot token to its share of the limit (the
part of the shards it holds), a little under it for requests that reach Discord unevenly: at
most that many start in any second. The pace sits where aiohttp starts a request (a trace
hook), so discord.py's own retries are paced too.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from types import SimpleNamespace

import aiohttp

GLOBAL_REQUESTS_PER_SECOND = 50
"""Discord's global limit per bot token."""
HEADROOM = 0.9
"""The part of its share a process uses."""
WINDOW_SECONDS = 1.0
EXEMPT_PATHS = ("/interactions/", "/webhooks/")
"""Interaction endpoints: not bound to the global limit."""


def share_of(shard_count: int | None, shard_ids: tuple[int, ...] | None) -> float:
    """The part of the bot's shards one process holds (all of them by default)."""
    if shard_count is None or shard_ids is None:
        return 1.0
    return len(shard_ids) / shard_count


class GlobalPace:
    """At most `per_second` bot-token requests start in any second (see the module)."""

    def __init__(self, share: float = 1.0) -> None:
        self.per_second = max(1, math.floor(GLOBAL_REQUESTS_PER_SECOND * share * HEADROOM + 1e-9))
        self._started: deque[float] = deque()
        self._turn = asyncio.Lock()

    def trace(self) -> aiohttp.TraceConfig:
        """The hook to give the client's HTTP session (discord.py's `http_trace`)."""
        config = aiohttp.TraceConfig()
        config.on_request_start.append(self._on_request_start)
        return config

    async def _on_request_start(
        self,
        session: aiohttp.ClientSession,
        context: SimpleNamespace,
        params: aiohttp.TraceRequestStartParams,
    ) -> None:
        if "Authorization" in params.headers and not any(
            part in params.url.path for part in EXEMPT_PATHS
        ):
            await self.wait()

    async def wait(self) -> None:
        """Return once one more request may start."""
        async with self._turn:
            now = time.monotonic()
            while self._started and now - self._started[0] >= WINDOW_SECONDS:
                self._started.popleft()
            if len(self._started) >= self.per_second:
                await asyncio.sleep(self._started[0] + WINDOW_SECONDS - now)
                self._started.popleft()
            self._started.append(time.monotonic())
