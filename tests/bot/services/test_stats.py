"""The server's history as the stats service reads it for a member: the newest games of the
channels they can see, as many as the history lists, however many newer games of channels
they cannot see come first."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.services.stats import HISTORY_READ_MOST, HISTORY_SIZE, StatsService
from bot.storage.stats import HistoryRow

WHEN = datetime(2026, 12, 1, 12, tzinfo=UTC)
HIDDEN, OPEN = 10, 11


class ServerGames:
    """A server's games, newest first: `hidden` games of a channel the member cannot see,
    then `open` older ones of a channel they can."""

    def __init__(self, hidden: int, open_games: int) -> None:
        channels = [HIDDEN] * hidden + [OPEN] * open_games
        total = len(channels)
        self.rows = [
            HistoryRow(total - n, channel, "over", "finished", 2, WHEN, WHEN, (1,), (None,))
            for n, channel in enumerate(channels)
        ]
        self.reads: list[int] = []

    async def history(self, guild_id: int, channel_id: int | None, limit: int) -> list[HistoryRow]:
        self.reads.append(limit)
        return self.rows[:limit]


def sees_open(channel_id: int) -> bool:
    return channel_id == OPEN


async def test_newer_games_of_unseen_channels_do_not_shorten_the_history() -> None:
    """Thirty newer games in a channel the member cannot see: the history still lists the
    newest ten of the channel they can see, newest first."""
    store = ServerGames(hidden=30, open_games=12)
    history = await StatsService(store).history(1, None, sees=sees_open)  # type: ignore[arg-type]
    assert [game.game_id for game in history] == list(range(12, 12 - HISTORY_SIZE, -1))
    assert {game.channel_id for game in history} == {OPEN}


async def test_a_server_with_fewer_seen_games_lists_them_all() -> None:
    """Three games the member can see after fifty they cannot: all three are listed, and the
    reading stops once the server has no more games."""
    store = ServerGames(hidden=50, open_games=3)
    history = await StatsService(store).history(1, None, sees=sees_open)  # type: ignore[arg-type]
    assert [game.game_id for game in history] == [3, 2, 1]
    assert store.reads[-1] > len(store.rows), "read until the server had no more"
    assert store.reads == [HISTORY_SIZE, 4 * HISTORY_SIZE, 16 * HISTORY_SIZE], (
        "no read after the one that found fewer games than it asked for"
    )


async def test_the_reading_stops_at_its_most_however_few_games_were_seen() -> None:
    """A server of many more games than the history reads at most, all but the oldest few in
    a channel the member cannot see: the reading stops at HISTORY_READ_MOST games, and lists
    what it found (none here)."""
    store = ServerGames(hidden=4 * HISTORY_READ_MOST, open_games=3)
    history = await StatsService(store).history(1, None, sees=sees_open)  # type: ignore[arg-type]
    assert history == []
    assert max(store.reads) == HISTORY_READ_MOST


async def test_when_every_game_is_seen_one_read_is_enough() -> None:
    store = ServerGames(hidden=0, open_games=40)
    history = await StatsService(store).history(1, None, sees=sees_open)  # type: ignore[arg-type]
    assert len(history) == HISTORY_SIZE
    assert store.reads == [HISTORY_SIZE]
