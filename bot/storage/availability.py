"""Whether the database takes work now: gone at its first failure, back once a probe commits.

Each back end reports to its database's `Availability`: a statement or a transaction that fails
because the database cannot be reached or cannot write (its server is down or restarting, the
connection to it was lost, its disk is full) marks it gone, with the reason, and raises
`DatabaseUnavailableError`. Only a probe that commits a write marks it back (`restored`): a
full disk still serves reads, and a transaction that changed no row commits without writing,
so neither says that the database takes writes again.

The runtime watches it (bot.runtime.outage): it logs the outage once, probes until a write
commits, then logs the return and tells whatever waited (`back()`) to go on.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path

from bot.storage.errors import DatabaseUnavailableError

DISK_FULL_BYTES = 64 * 1024
"""Free space under which a disk counts as full (a write of a file on it, the database or the
heartbeat, fails well before the last byte)."""


def disk_full(folder: Path) -> bool:
    """Whether the disk holding `folder` has (next to) no room left; False if it cannot tell."""
    try:
        return shutil.disk_usage(folder).free < DISK_FULL_BYTES
    except OSError:
        return False


class Availability:
    """The database's state as its last uses found it: up, or gone since a moment, for a
    reason. The edge keeps one for Discord too (bot.edge.incidents), marked gone by the
    requests Discord fails and back by its next answer."""

    def __init__(self) -> None:
        self._up = asyncio.Event()
        self._up.set()
        self._gone = asyncio.Event()
        self.gone_since: float | None = None
        """When it went (time.monotonic); None while it is up."""
        self.reason = ""
        """What the first failure of the outage said."""

    @property
    def up(self) -> bool:
        return self._up.is_set()

    def failed(self, error: BaseException) -> DatabaseUnavailableError:
        """Note a failure that says the database is unavailable; the error to raise for it."""
        # one line: a server's error has its DETAIL and HINT on lines of their own
        self.went(" ".join(f"{type(error).__name__}: {error}".split()).rstrip(": "))
        return DatabaseUnavailableError(f"the database is unavailable ({error!r})")

    def went(self, reason: str) -> None:
        """Note a failure that says the service is unavailable, for `reason` (kept if it is
        the outage's first)."""
        if self.up:
            self.gone_since = time.monotonic()
            self.reason = reason
            self._up.clear()
            self._gone.set()

    def restored(self) -> None:
        """The service takes work again (for the database: a probe committed a write)."""
        if not self.up:
            self.gone_since = None
            self._gone.clear()
            self._up.set()

    async def back(self) -> None:
        """Return once the database is up (at once if it is)."""
        await self._up.wait()

    async def gone(self) -> None:
        """Return once the database is unavailable (at once if it is)."""
        await self._gone.wait()
