"""Stats and history of a server's games, as use cases over the stats queries (the
leaderboard ranks by rating: bot.services.ratings)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from statistics import fmean

from bot.services import reliability
from bot.services.reliability import Reliability
from bot.services.views import Accuracy, FinishedFor, PastGame, PlayerSummary
from bot.storage.stats import LOG_PEOPLE, HistoryRow, PlayerStats, StatsStore

HISTORY_SIZE = 10
HISTORY_READ_MOST = 640
"""The most games read to find HISTORY_SIZE of channels a member can see."""
ACCURACY_GAMES = 20
"""How many of a member's newest judged games their accuracy in the stats is over."""
FINISHED_FOR_GAMES = 5
"""How many of a member's newest games finished for someone their stats list."""
TREND_GAMES = 4
"""The fewest judged games a trend is given for (two against two)."""


class StatsService:
    """Per-server results of finished games for the stats and history commands."""

    def __init__(self, store: StatsStore) -> None:
        self._store = store

    async def player(self, guild_id: int, user_id: int) -> PlayerSummary:
        """A member's games, wins, average and best score and favourite colour (finished,
        non-aborted games of this server, human seats only), the games they finished for
        someone, and their accuracy over their newest judged games (those too)."""
        summary = _summary(await self._store.player(guild_id, user_id))
        stood_in = await self._store.finished_for(guild_id, user_id, FINISHED_FOR_GAMES)
        if stood_in:
            finished = tuple(FinishedFor(*row) for row in stood_in)
            summary = dataclasses.replace(summary, finished_for=finished)
        if summary.games == 0 and not stood_in:
            return summary
        values = await self._store.recent_accuracy(guild_id, user_id, ACCURACY_GAMES)
        return dataclasses.replace(summary, accuracy=accuracy_of(values))

    async def reliability(self, guild_id: int, user_ids: Sequence[int]) -> list[Reliability]:
        """Each person's reliability on the server (bot.services.reliability), from their
        newest games there: one round trip for up to four people (a lobby's), in their order."""
        people = list(dict.fromkeys(user_ids))[:LOG_PEOPLE]
        if not people:
            return []
        entries = await self._store.log_of_people(guild_id, people, reliability.GAMES)
        return reliability.reliability_of(people, entries)

    async def history(
        self,
        guild_id: int,
        channel_id: int | None,
        sees: Callable[[int], bool] | None = None,
    ) -> list[PastGame]:
        """The most recent games of the channel (or, with None, of the whole server), at most
        HISTORY_SIZE; with `sees`, only those of the channels it says the member can see,
        reading further back (up to HISTORY_READ_MOST games) past newer ones they cannot."""
        limit = HISTORY_SIZE
        while True:
            rows = await self._store.history(guild_id, channel_id, limit)
            shown = [row for row in rows if sees is None or sees(row.channel_id)]
            if len(shown) >= HISTORY_SIZE or len(rows) < limit or limit >= HISTORY_READ_MOST:
                return [_past(row) for row in shown[:HISTORY_SIZE]]
            limit *= 4


def accuracy_of(values: Sequence[float]) -> Accuracy | None:
    """The mean and trend of accuracies given newest first (None: none). The trend compares
    the newer half with the older half of them, as many games each (the newest 10 against the
    10 before with 20; with an odd count the oldest is left out of the trend), so one game
    never swings it alone; it is None with fewer than TREND_GAMES games."""
    if not values:
        return None
    half = len(values) // 2
    trend = None
    if len(values) >= TREND_GAMES:
        trend = fmean(values[:half]) - fmean(values[half : 2 * half])
    return Accuracy(len(values), fmean(values), trend, tuple(values))


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
