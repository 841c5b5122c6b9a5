"""Per-server settings chosen by moderators: default turn limit and variant, allowed channels."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.storage.database import Connection, Database
from bot.storage.values import time_to_column


@dataclass(frozen=True, slots=True)
class GuildSettings:
    """A server's defaults for `/marrakech new` and where games may be opened (empty: anywhere)."""

    guild_id: int
    turn_limit_seconds: int | None = None
    variant: str | None = None
    channel_ids: tuple[int, ...] = ()


class GuildStore:
    """Reads and writes guild settings. Each change is one transaction that also reads the
    settings back, so a moderator's change and what they are shown can never be split by
    another process's change."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def get(self, guild_id: int) -> GuildSettings:
        async with self._db.reading() as conn:
            return await _settings(conn, guild_id)

    async def set_turn_limit(
        self, guild_id: int, turn_limit_seconds: int | None, now: datetime
    ) -> GuildSettings:
        """Set the server's default turn limit (None: no limit), keeping its variant."""
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO guild_settings (guild_id, turn_limit_seconds, updated_at) "
                "VALUES ($1, $2, $3) ON CONFLICT (guild_id) DO UPDATE SET "
                "turn_limit_seconds = excluded.turn_limit_seconds, "
                "updated_at = excluded.updated_at",
                guild_id,
                turn_limit_seconds,
                time_to_column(now),
            )
            return await _settings(conn, guild_id)

    async def set_variant(self, guild_id: int, variant: str, now: datetime) -> GuildSettings:
        """Set the server's default variant, keeping its turn limit."""
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO guild_settings (guild_id, variant, updated_at) "
                "VALUES ($1, $2, $3) ON CONFLICT (guild_id) DO UPDATE SET "
                "variant = excluded.variant, updated_at = excluded.updated_at",
                guild_id,
                variant,
                time_to_column(now),
            )
            return await _settings(conn, guild_id)

    async def allow_channel(self, guild_id: int, channel_id: int) -> GuildSettings:
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO guild_channels (guild_id, channel_id) VALUES ($1, $2) "
                "ON CONFLICT DO NOTHING",
                guild_id,
                channel_id,
            )
            return await _settings(conn, guild_id)

    async def remove_channel(self, guild_id: int, channel_id: int) -> GuildSettings | None:
        """Take the channel off the list; None if it was not on it."""
        async with self._db.transaction() as conn:
            removed = await conn.execute(
                "DELETE FROM guild_channels WHERE guild_id = $1 AND channel_id = $2",
                guild_id,
                channel_id,
            )
            return await _settings(conn, guild_id) if removed == 1 else None


async def _settings(conn: Connection, guild_id: int) -> GuildSettings:
    row = await conn.fetchrow(
        "SELECT turn_limit_seconds, variant FROM guild_settings WHERE guild_id = $1", guild_id
    )
    channel_rows = await conn.fetch(
        "SELECT channel_id FROM guild_channels WHERE guild_id = $1 ORDER BY channel_id",
        guild_id,
    )
    channels = tuple(int(r[0]) for r in channel_rows)
    if row is None:
        return GuildSettings(guild_id, channel_ids=channels)
    return GuildSettings(guild_id, row[0], row[1], channels)
