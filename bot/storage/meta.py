"""The bot's own key-value notes (the `bot_meta` table): the synced commands' hash, when a
probe last wrote after an outage, when each shard range's last start caught its games up
(bot.services.catch_ups). One statement each."""

from __future__ import annotations

from bot.storage.database import Database


class MetaStore:
    """Reads and writes the bot's key-value notes."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def get_meta(self, key: str) -> str | None:
        async with self._db.single_read() as conn:
            value = await conn.fetchval("SELECT value FROM bot_meta WHERE key = $1", key)
        return None if value is None else str(value)

    async def set_meta(self, key: str, value: str) -> None:
        async with self._db.single_write() as conn:
            await conn.execute(
                "INSERT INTO bot_meta (key, value) VALUES ($1, $2) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                key,
                value,
            )
