"""The last nudge of each game (migration 0020): taking the next is one guarded upsert, so of
two players (or two processes) nudging at once, one pings."""

from __future__ import annotations

from datetime import datetime

from bot.storage.database import Database
from bot.storage.values import time_from_column, time_to_column


class NudgeStore:
    """When each game was last nudged, and by whom."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def take(
        self, game_id: int, user_id: int, now: datetime, not_after: datetime
    ) -> datetime | None:
        """Record a nudge of the game by the user at `now`, if its last one was at
        `not_after` or before (or there was none): None when recorded, else when the last one
        was (nothing changed)."""
        async with self._db.transaction() as conn:
            taken = await conn.fetchval(
                "INSERT INTO nudges (game_id, user_id, nudged_at) VALUES ($1, $2, $3) "
                "ON CONFLICT (game_id) DO UPDATE SET user_id = excluded.user_id, "
                "nudged_at = excluded.nudged_at WHERE nudges.nudged_at <= $4 RETURNING game_id",
                game_id,
                user_id,
                time_to_column(now),
                time_to_column(not_after),
            )
            if taken is not None:
                return None
            last = await conn.fetchval("SELECT nudged_at FROM nudges WHERE game_id = $1", game_id)
        return time_from_column(str(last))
