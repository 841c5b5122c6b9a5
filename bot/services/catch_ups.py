"""When a start's catch-up of games ran, kept from one run of the process to the next.

A start catches up every game whose message fell behind (bot.edge.display), reading each one's
channel history: Discord counts those reads in a window of its own on the channel (5 in 5 s),
which no message's time tells. The next start of the same process reads when the last one's
catch-up began and ended, and so whether that window may still be open. The record is kept in
the bot's key-value notes (`bot_meta`), one per shard range: processes sharing one database
each hold their own shards, and a process restarted for the same shards reads its own record,
whatever host it runs on now.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from bot.storage.game_rows import ShardSet
from bot.storage.meta import MetaStore


@dataclass(frozen=True, slots=True)
class CatchUp:
    """A start's catch-up of games: when it began, when it ended (None: it never ended, the
    process was killed first, or it is still going), and when its last read of a channel's
    history began (None: it read none). A read's one request goes out as it begins, so a
    catch-up killed during it has used nothing of a channel's window after the window that
    follows its last read."""

    began: datetime
    ended: datetime | None = None
    read: datetime | None = None

    def encoded(self) -> str:
        return json.dumps(
            {
                "began": self.began.isoformat(),
                "ended": _moment(self.ended),
                "read": _moment(self.read),
            }
        )

    @classmethod
    def decoded(cls, stored: str) -> CatchUp:
        """What `encoded` wrote; ValueError for a value it cannot read (one without any of its
        three moments included)."""
        try:
            value = json.loads(stored)
            return cls(
                datetime.fromisoformat(value["began"]),
                _from_moment(value["ended"]),
                _from_moment(value["read"]),
            )
        except (TypeError, KeyError) as error:
            raise ValueError(f"not a catch-up: {stored!r}") from error


def _moment(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _from_moment(stored: str | None) -> datetime | None:
    return None if stored is None else datetime.fromisoformat(stored)


def catch_up_key(shards: ShardSet) -> str:
    """The key of the record of the process holding `shards`: `catch_up:<count>:<ids>`."""
    return f"catch_up:{shards.count}:{','.join(str(shard) for shard in shards.ids)}"


class CatchUps:
    """The record of this process's catch-ups of games, under its shards' key."""

    def __init__(self, store: MetaStore, shards: ShardSet) -> None:
        self._store = store
        self.key = catch_up_key(shards)

    async def last(self) -> CatchUp | None:
        """The last catch-up recorded for these shards; None if none was (a first start, or
        one of a version that kept no record). Raises what the database raises, and
        ValueError for a record it cannot read."""
        stored = await self._store.get_meta(self.key)
        return None if stored is None else CatchUp.decoded(stored)

    async def record(self, catch_up: CatchUp) -> None:
        """Keep `catch_up` as the last one for these shards (one write)."""
        await self._store.set_meta(self.key, catch_up.encoded())
