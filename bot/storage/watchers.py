"""Who watches which running game (the `watchers` table, docs/watching.md): a spectator's
choice of a direct message at each finished turn, and the seq up to which they were told.

A watcher's messages are claimed before they go out: one conditional update moves `sent_seq`
from what the sender read to the seq it tells, so of two processes, or a run and its restart,
one sends each turn, once. A game's watchers go when it ends."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.storage.database import Database, Row
from bot.storage.values import time_to_column


@dataclass(frozen=True, slots=True)
class Watcher:
    """A spectator of a game: whether they get a direct message at each finished turn, and
    the seq up to which those were sent."""

    game_id: int
    user_id: int
    dms: bool
    sent_seq: int
    locale: str | None = None
    """The language of their messages: the one they watched in (None: the game's)."""


class WatchStore:
    """The `watchers` table; each method is one statement."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def watch(
        self, game_id: int, user_id: int, seq: int, now: datetime, locale: str | None = None
    ) -> bool:
        """Add the user as a watcher of the game, told up to `seq` (what they see now), in
        `locale`; True if they were not watching it yet (a second Watch changes nothing)."""
        async with self._db.single_write() as conn:
            added = await conn.execute(
                "INSERT INTO watchers (game_id, user_id, dms, sent_seq, created_at, locale) "
                "VALUES ($1, $2, 0, $3, $4, $5) ON CONFLICT (game_id, user_id) DO NOTHING",
                game_id,
                user_id,
                seq,
                time_to_column(now),
                locale,
            )
        return added == 1

    async def set_dms(
        self, game_id: int, user_id: int, on: bool, seq: int, locale: str | None = None
    ) -> bool:
        """Turn the watcher's direct messages on (told from `seq` on: nothing before it, in
        `locale` when given) or off; False if they do not watch the game."""
        async with self._db.single_write() as conn:
            changed = await conn.execute(
                "UPDATE watchers SET dms = $3, sent_seq = CASE WHEN $3 = 1 AND dms = 0 "
                "THEN $4 ELSE sent_seq END, locale = coalesce($5, locale) "
                "WHERE game_id = $1 AND user_id = $2",
                game_id,
                user_id,
                int(on),
                seq,
                locale,
            )
        return changed == 1

    async def unwatch(self, game_id: int, user_id: int) -> bool:
        """Stop the user watching the game; False if they were not."""
        async with self._db.single_write() as conn:
            removed = await conn.execute(
                "DELETE FROM watchers WHERE game_id = $1 AND user_id = $2", game_id, user_id
            )
        return removed == 1

    async def get(self, game_id: int, user_id: int) -> Watcher | None:
        """The user as a watcher of the game, or None."""
        async with self._db.single_read() as conn:
            row = await conn.fetchrow(
                "SELECT game_id, user_id, dms, sent_seq, locale FROM watchers "
                "WHERE game_id = $1 AND user_id = $2",
                game_id,
                user_id,
            )
        return None if row is None else _watcher(row)

    async def behind(self, game_id: int, seq: int) -> list[Watcher]:
        """The game's watchers who asked for direct messages and were told less than `seq`."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                "SELECT game_id, user_id, dms, sent_seq, locale FROM watchers "
                "WHERE game_id = $1 AND dms = 1 AND sent_seq < $2 ORDER BY user_id",
                game_id,
                seq,
            )
        return [_watcher(row) for row in rows]

    async def watched_games(self) -> list[tuple[int, bool]]:
        """Every game with a watcher, in order, and whether one of them asked for direct
        messages."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                "SELECT game_id, max(dms) FROM watchers GROUP BY game_id ORDER BY game_id"
            )
        return [(int(row[0]), bool(row[1])) for row in rows]

    async def games_behind(self) -> list[int]:
        """The games with a watcher asking for direct messages not yet told what the game's
        message shows, or that the game was stopped before its end (a stop moves no seq: it
        is news whatever the watcher was told); a restart catches them up."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                "SELECT DISTINCT w.game_id FROM watchers w JOIN games g ON g.id = w.game_id "
                "WHERE w.dms = 1 AND (g.status = 'aborted' OR (g.board_message_seq IS NOT NULL "
                "AND w.sent_seq < g.board_message_seq)) ORDER BY w.game_id"
            )
        return [int(row[0]) for row in rows]

    async def claim(self, watcher: Watcher, seq: int) -> bool:
        """Take the sending of the watcher's turns up to `seq`: True for the one caller that
        moved `sent_seq` from what it read (another process, or a run before a restart, that
        took it first makes this False)."""
        async with self._db.single_write() as conn:
            moved = await conn.execute(
                "UPDATE watchers SET sent_seq = $4 WHERE game_id = $1 AND user_id = $2 "
                "AND sent_seq = $3 AND dms = 1",
                watcher.game_id,
                watcher.user_id,
                watcher.sent_seq,
                seq,
            )
        return moved == 1

    async def end(self, game_id: int) -> list[Watcher]:
        """The game ended: its watchers go (no message after its last), taken in one
        statement, so one caller gets them; it puts back (`put_back`) one it may not tell
        yet."""
        async with self._db.single_write() as conn:
            rows = await conn.fetch(
                "DELETE FROM watchers WHERE game_id = $1 "
                "RETURNING game_id, user_id, dms, sent_seq, locale",
                game_id,
            )
        return sorted((_watcher(row) for row in rows), key=lambda watcher: watcher.user_id)

    async def put_back(self, watcher: Watcher, now: datetime) -> None:
        """Keep a finished game's watcher whose last message is held for now."""
        async with self._db.single_write() as conn:
            await conn.execute(
                "INSERT INTO watchers (game_id, user_id, dms, sent_seq, created_at, locale) "
                "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (game_id, user_id) DO NOTHING",
                watcher.game_id,
                watcher.user_id,
                int(watcher.dms),
                watcher.sent_seq,
                time_to_column(now),
                watcher.locale,
            )


def _watcher(row: Row) -> Watcher:
    return Watcher(int(row[0]), int(row[1]), bool(row[2]), int(row[3]), row[4])
