"""Stats, leaderboard and history of a server's games, as use cases over the stats queries."""

from __future__ import annotations

from bot.storage import HistoryRow, PlayerStats, StatsStore

LEADERBOARD_SIZE = 10
HISTORY_SIZE = 10


class StatsService:
    """Per-server results of finished games for the stats, leaderboard and history commands."""

    def __init__(self, store: StatsStore) -> None:
        self._store = store

    async def player(self, guild_id: int, user_id: int) -> PlayerStats:
        """A member's games, wins, average and best score and favourite colour (finished,
        non-aborted games of this server, human seats only)."""
        return await self._store.player(guild_id, user_id)

    async def leaderboard(self, guild_id: int) -> list[PlayerStats]:
        return await self._store.leaderboard(guild_id, LEADERBOARD_SIZE)

    async def history(self, guild_id: int, channel_id: int | None) -> list[HistoryRow]:
        """The most recent games of the channel (or, with None, of the whole server)."""
        return await self._store.history(guild_id, channel_id, HISTORY_SIZE)
