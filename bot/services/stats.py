"""Stats and history of a server's games, as use cases over the stats queries (the
leaderboard ranks by rating: bot.services.ratings)."""

from __future__ import annotations

from bot.services.views import PastGame, PlayerSummary
from bot.storage.stats import HistoryRow, PlayerStats, StatsStore

HISTORY_SIZE = 10


class StatsService:
    """Per-server results of finished games for the stats and history commands."""

    def __init__(self, store: StatsStore) -> None:
        self._store = store

    async def player(self, guild_id: int, user_id: int) -> PlayerSummary:
        """A member's games, wins, average and best score and favourite colour (finished,
        non-aborted games of this server, human seats only)."""
        return _summary(await self._store.player(guild_id, user_id))

    async def history(self, guild_id: int, channel_id: int | None) -> list[PastGame]:
        """The most recent games of the channel (or, with None, of the whole server)."""
        rows = await self._store.history(guild_id, channel_id, HISTORY_SIZE)
        return [_past(row) for row in rows]


def _summary(row: PlayerStats) -> PlayerSummary:
    return PlayerSummary(
        row.user_id, row.games, row.wins, row.average_score, row.best_score, row.favourite_color
    )


def _past(row: HistoryRow) -> PastGame:
    return PastGame(
        row.game_id,
        row.channel_id,
        row.status,
        row.end_reason,
        row.seats,
        row.created_at,
        row.updated_at,
        row.winner_ids,
        row.winner_levels,
    )
