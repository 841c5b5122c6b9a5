"""Per-player settings that hold in every server: whether a player wants a direct message when
it becomes their turn, and one when the player before them starts theirs ("when I am next"),
and the language they asked for them in."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from bot.storage.database import Database
from bot.storage.values import time_to_column


class DirectChoices(NamedTuple):
    """A person's choice of direct messages: at their turn, when they are next, and in which
    language (None: the game's)."""

    turn: bool = False
    next_up: bool = False
    locale: str | None = None


class PlayerStore:
    """The `player_settings` table."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def turn_dms(self, user_id: int) -> bool:
        """True if the user asked for a direct message when it becomes their turn."""
        async with self._db.single_read() as conn:
            value = await conn.fetchval(
                "SELECT turn_dms FROM player_settings WHERE user_id = $1", user_id
            )
        return bool(value)

    async def set_turn_dms(self, user_id: int, on: bool, now: datetime) -> bool:
        """Set the user's choice; True if it changed (a user with no settings has it off).

        The change is a conditional update, so of two writers at once (two refusals of the
        user's direct messages, in two processes) exactly one is told it changed it."""
        async with self._db.transaction() as conn:
            changed = await conn.execute(
                "UPDATE player_settings SET turn_dms = $2, updated_at = $3 "
                "WHERE user_id = $1 AND turn_dms <> $2",
                user_id,
                int(on),
                time_to_column(now),
            )
            if changed:
                return True
            added = await conn.execute(
                "INSERT INTO player_settings (user_id, turn_dms, updated_at) VALUES ($1, $2, $3) "
                "ON CONFLICT (user_id) DO NOTHING",
                user_id,
                int(on),
                time_to_column(now),
            )
        return bool(added) and on

    async def set_choices(
        self, user_id: int, turn: bool, next_up: bool, now: datetime, locale: str | None = None
    ) -> None:
        """Set both of the user's choices: a direct message at their turn (`turn`), and one
        when the player before them starts theirs (`next_up`), in `locale` (None: the game's)."""
        async with self._db.single_write() as conn:
            await conn.execute(
                "INSERT INTO player_settings (user_id, turn_dms, next_dms, updated_at, locale) "
                "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (user_id) DO UPDATE SET "
                "turn_dms = excluded.turn_dms, next_dms = excluded.next_dms, "
                "updated_at = excluded.updated_at, locale = excluded.locale",
                user_id,
                int(turn),
                int(next_up),
                time_to_column(now),
                locale,
            )

    async def choices(self, first: int, second: int) -> dict[int, DirectChoices]:
        """Both users' choices of direct messages, in one round trip (a user with no settings
        is left out)."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                "SELECT user_id, turn_dms, next_dms, locale FROM player_settings "
                "WHERE user_id IN ($1, $2)",
                first,
                second,
            )
        return {int(row[0]): DirectChoices(bool(row[1]), bool(row[2]), row[3]) for row in rows}
