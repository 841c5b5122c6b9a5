"""Read-only queries over finished games: a member's stats and a server's history.

Only games that ended normally have results (aborted games never do), and only human seats
(user_id set) are counted, so AI seats never count as anybody's win or loss. A seat that was
out of the game when it ended counts as a game and a loss, but its score (which the final
message does not show) counts in no average or best score.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.storage.database import Database
from bot.storage.values import time_from_column


@dataclass(frozen=True, slots=True)
class PlayerStats:
    user_id: int
    games: int
    wins: int
    average_score: float
    best_score: int
    favourite_color: str | None


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """A game of the server, newest first, with its winners when it finished."""

    game_id: int
    channel_id: int
    status: str
    end_reason: str | None
    seats: int
    created_at: datetime
    updated_at: datetime
    winner_ids: tuple[int | None, ...]
    winner_levels: tuple[str | None, ...]


_HISTORY = (
    "SELECT g.id, g.channel_id, g.status, g.end_reason, g.created_at, g.updated_at, "
    "(SELECT count(*) FROM seats s WHERE s.game_id = g.id) "
    "FROM games g WHERE g.guild_id = $1 AND g.status != 'lobby' "
)


class StatsStore:
    """The stats queries; each method reads one consistent snapshot."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def player(self, guild_id: int, user_id: int) -> PlayerStats:
        """The member's stats over the server's finished games (zeros if none)."""
        async with self._db.reading() as conn:
            row = await conn.fetchrow(
                "SELECT count(*), coalesce(sum(r.won), 0), "
                "avg(CASE WHEN r.eliminated = 0 THEN r.score END), "
                "max(CASE WHEN r.eliminated = 0 THEN r.score END) "
                "FROM results r JOIN games g ON g.id = r.game_id "
                "WHERE g.guild_id = $1 AND g.status = 'over' AND r.user_id = $2",
                guild_id,
                user_id,
            )
            color = await conn.fetchval(
                "SELECT r.color FROM results r JOIN games g ON g.id = r.game_id "
                "WHERE g.guild_id = $1 AND g.status = 'over' AND r.user_id = $2 "
                "GROUP BY r.color ORDER BY count(*) DESC, max(r.game_id) DESC LIMIT 1",
                guild_id,
                user_id,
            )
        assert row is not None
        return PlayerStats(
            user_id=user_id,
            games=int(row[0]),
            wins=int(row[1]),
            average_score=float(row[2] or 0.0),
            best_score=int(row[3] or 0),
            favourite_color=None if color is None else str(color),
        )

    async def history(
        self, guild_id: int, channel_id: int | None = None, limit: int = 10
    ) -> list[HistoryRow]:
        """The server's (or one channel's) most recent games, lobbies left out."""
        query = _HISTORY + "ORDER BY g.id DESC LIMIT $2"
        args: tuple[object, ...] = (guild_id, limit)
        if channel_id is not None:
            query = _HISTORY + "AND g.channel_id = $3 ORDER BY g.id DESC LIMIT $2"
            args = (guild_id, limit, channel_id)
        async with self._db.reading() as conn:
            games = await conn.fetch(query, *args)
            found: list[HistoryRow] = []
            for game in games:
                winners = await conn.fetch(
                    "SELECT user_id, ai_level FROM results WHERE game_id = $1 AND won = 1 "
                    "ORDER BY seat",
                    game[0],
                )
                found.append(
                    HistoryRow(
                        game_id=int(game[0]),
                        channel_id=int(game[1]),
                        status=str(game[2]),
                        end_reason=game[3],
                        created_at=time_from_column(str(game[4])),
                        updated_at=time_from_column(str(game[5])),
                        seats=int(game[6]),
                        winner_ids=tuple(w[0] for w in winners),
                        winner_levels=tuple(w[1] for w in winners),
                    )
                )
        return found
