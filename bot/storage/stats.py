"""Read-only queries over finished games: a member's stats, a server's leaderboard, history.

Only games that ended normally have results (aborted games never do), and only human seats
(user_id set) are counted, so AI seats never count as anybody's win or loss. A seat that was
out of the game when it ended counts as a game and a loss, but its score (which the final
message does not show) counts in no average or best score.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.database import Database


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
    created_at: str
    updated_at: str
    winner_ids: tuple[int | None, ...]
    winner_levels: tuple[str | None, ...]


class StatsStore:
    """The stats queries; each method reads one consistent snapshot."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def player(self, guild_id: int, user_id: int) -> PlayerStats:
        """The member's stats over the server's finished games (zeros if none)."""
        async with self._db.reading() as conn:
            async with conn.execute(
                "SELECT count(*), coalesce(sum(r.won), 0), "
                "avg(CASE WHEN r.eliminated = 0 THEN r.score END), "
                "max(CASE WHEN r.eliminated = 0 THEN r.score END) "
                "FROM results r JOIN games g ON g.id = r.game_id "
                "WHERE g.guild_id = ? AND g.status = 'over' AND r.user_id = ?",
                (guild_id, user_id),
            ) as cursor:
                row = await cursor.fetchone()
            async with conn.execute(
                "SELECT r.color FROM results r JOIN games g ON g.id = r.game_id "
                "WHERE g.guild_id = ? AND g.status = 'over' AND r.user_id = ? "
                "GROUP BY r.color ORDER BY count(*) DESC, max(r.game_id) DESC LIMIT 1",
                (guild_id, user_id),
            ) as cursor:
                color = await cursor.fetchone()
        assert row is not None
        return PlayerStats(
            user_id=user_id,
            games=int(row[0]),
            wins=int(row[1]),
            average_score=float(row[2] or 0.0),
            best_score=int(row[3] or 0),
            favourite_color=None if color is None else str(color[0]),
        )

    async def leaderboard(self, guild_id: int, limit: int = 10) -> list[PlayerStats]:
        """The server's best humans: most wins, then best average score, then fewest games."""
        async with (
            self._db.reading() as conn,
            conn.execute(
                "SELECT r.user_id, count(*) AS games, sum(r.won) AS wins, "
                "coalesce(avg(CASE WHEN r.eliminated = 0 THEN r.score END), 0) AS avg, "
                "coalesce(max(CASE WHEN r.eliminated = 0 THEN r.score END), 0) "
                "FROM results r JOIN games g ON g.id = r.game_id "
                "WHERE g.guild_id = ? AND g.status = 'over' AND r.user_id IS NOT NULL "
                "GROUP BY r.user_id ORDER BY wins DESC, avg DESC, games ASC, r.user_id "
                "LIMIT ?",
                (guild_id, limit),
            ) as cursor,
        ):
            rows = await cursor.fetchall()
        return [
            PlayerStats(int(r[0]), int(r[1]), int(r[2]), float(r[3]), int(r[4]), None) for r in rows
        ]

    async def history(
        self, guild_id: int, channel_id: int | None = None, limit: int = 10
    ) -> list[HistoryRow]:
        """The server's (or one channel's) most recent games, lobbies left out."""
        where = "g.guild_id = ? AND g.status != 'lobby'"
        params: list[object] = [guild_id]
        if channel_id is not None:
            where += " AND g.channel_id = ?"
            params.append(channel_id)
        async with self._db.reading() as conn:
            async with conn.execute(
                "SELECT g.id, g.channel_id, g.status, g.end_reason, g.created_at, g.updated_at, "
                "(SELECT count(*) FROM seats s WHERE s.game_id = g.id) "
                f"FROM games g WHERE {where} ORDER BY g.id DESC LIMIT ?",
                (*params, limit),
            ) as cursor:
                games = await cursor.fetchall()
            found: list[HistoryRow] = []
            for game in games:
                async with conn.execute(
                    "SELECT user_id, ai_level FROM results WHERE game_id = ? AND won = 1 "
                    "ORDER BY seat",
                    (game[0],),
                ) as cursor:
                    winners = await cursor.fetchall()
                found.append(
                    HistoryRow(
                        game_id=int(game[0]),
                        channel_id=int(game[1]),
                        status=str(game[2]),
                        end_reason=game[3],
                        created_at=str(game[4]),
                        updated_at=str(game[5]),
                        seats=int(game[6]),
                        winner_ids=tuple(w[0] for w in winners),
                        winner_levels=tuple(w[1] for w in winners),
                    )
                )
        return found
