"""Read-only queries over finished games: a member's stats and a server's history.

Only games that ended normally have results (aborted games never do), and only human seats
(user_id set) are counted, so AI seats never count as anybody's win or loss. A seat that was
out of the game when it ended counts as a game and a loss, but its score (which the final
message does not show) counts in no average or best score. A seat handed to a substitute
counts for the person who left it, as a resignation then (docs/async.md#substitutes); the
substitute's games finished for someone are listed apart (`finished_for`), and the history
names them when their seat won.

A person's reliability (docs/watching.md#reliability-at-a-glance) is read from the action log of
their newest games on the server, several people at once, in one statement (`log_of_people`):
who acted when, which moves the AI made for a person out of time, who resigned, and whose seat
the AI held at the end. Die rolls (D1 to D4) are left out: they are no one's decision.

A person's accuracy in a game (`seat_accuracy`, docs/coach.md) is written once, after the game,
by the background job of bot.services.accuracy, over the decisions they made themselves (a seat
handed over has a row for each person who played it): the finished games that still lack it
are found here, newest first, and a second write of the same row is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.storage.database import Connection, Database
from bot.storage.values import time_from_column


@dataclass(frozen=True, slots=True)
class PlayerStats:
    user_id: int
    games: int
    wins: int
    average_score: float | None
    """Over the games they ended in play (None: out or resigned in every one)."""
    best_score: int | None
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


@dataclass(frozen=True, slots=True)
class PendingGame:
    """A finished game with people in it whose accuracy is not written yet."""

    game_id: int
    people: tuple[tuple[int, int], ...]
    """(seat, user_id) of each person who held a seat: at the end, or until they handed it to
    a substitute, in seat order (the person who left first, then the one who finished)."""


@dataclass(frozen=True, slots=True)
class SeatAccuracy:
    """A person's accuracy (0-100) over the decisions they made in a seat of a finished game;
    None when they made none with a choice (judged, with nothing to count)."""

    seat: int
    user_id: int
    accuracy: float | None


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One entry of a person's game, as their reliability reads it: the person's seat in it
    and how it ended for them, then the entry (all None for a game with no entry yet). Die
    rolls are left out."""

    user_id: int
    game_id: int
    seat: int
    players: int
    resigned: bool
    left_to_ai: bool
    """The game is over and the AI held the person's seat at its end."""
    substituted_away: bool
    """The person's seat went to a substitute (SUBSTITUTED_AWAY)."""
    kind: str | None
    actor_id: int | None
    ai_for: str | None
    created_at: datetime | None


SUBSTITUTED_AWAY = "CASE WHEN s.stands_in_for IS NULL THEN 0 ELSE 1 END"
"""The SQL, over the person's seat row `s`, of whether that seat was handed to a substitute:
the seat then names the person who left it in `stands_in_for` (bot.storage.substitutes)."""
LOG_PEOPLE = 4
"""How many people one `log_of_people` reads at most (a game's seats)."""

_LOG_OF_PEOPLE = (
    "WITH mine AS (SELECT coalesce(s.stands_in_for, s.user_id) AS user_id, s.game_id, "
    "s.seat, s.resigned, "
    "CASE WHEN g.status = 'over' THEN s.autoplay ELSE 0 END AS left_to_ai, "
    f"{SUBSTITUTED_AWAY} AS substituted, "
    "(SELECT count(*) FROM seats x WHERE x.game_id = s.game_id AND x.seat IS NOT NULL) AS n, "
    "row_number() OVER (PARTITION BY coalesce(s.stands_in_for, s.user_id) "
    "ORDER BY s.game_id DESC) AS newest "
    "FROM seats s JOIN games g ON g.id = s.game_id "
    "WHERE g.guild_id = $1 AND coalesce(s.stands_in_for, s.user_id) IN ($2, $3, $4, $5) "
    "AND s.seat IS NOT NULL "
    "AND g.status IN ('running', 'over')) "
    "SELECT m.user_id, m.game_id, m.seat, m.n, m.resigned, m.left_to_ai, m.substituted, "
    "a.kind, a.actor_id, a.ai_for, a.created_at FROM mine m "
    "LEFT JOIN actions a ON a.game_id = m.game_id "
    "AND (a.kind = 'resign' OR a.notation NOT IN ('D1', 'D2', 'D3', 'D4')) "
    "WHERE m.newest <= $6 ORDER BY m.user_id, m.game_id, a.seq"
)


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
            average_score=None if row[2] is None else float(row[2]),
            best_score=None if row[3] is None else int(row[3]),
            favourite_color=None if color is None else str(color),
        )

    async def finished_for(
        self, guild_id: int, user_id: int, limit: int
    ) -> list[tuple[int, int, int]]:
        """(game id, the seat's place, the person who left it) of the member's newest `limit`
        finished games of the server played to their end in a seat someone else left."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                "SELECT r.game_id, r.finished_place, r.user_id FROM results r "
                "JOIN games g ON g.id = r.game_id "
                "WHERE g.guild_id = $1 AND g.status = 'over' AND r.finished_by = $2 "
                "ORDER BY r.game_id DESC LIMIT $3",
                guild_id,
                user_id,
                limit,
            )
        return [(int(row[0]), int(row[1]), int(row[2])) for row in rows]

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
                    "SELECT coalesce(finished_by, user_id), ai_level FROM results "
                    "WHERE game_id = $1 AND (won = 1 OR finished_place = 1) ORDER BY seat",
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

    async def log_of_people(
        self, guild_id: int, user_ids: Sequence[int], games: int
    ) -> list[LogEntry]:
        """The log entries (die rolls left out) of each person's newest `games` running or
        finished games of the server, by person, game and seq: one statement for up to
        LOG_PEOPLE people."""
        people = list(dict.fromkeys(user_ids))
        if not people:
            return []
        if len(people) > LOG_PEOPLE:
            raise ValueError(f"at most {LOG_PEOPLE} people at once")
        padded = people + [people[0]] * (LOG_PEOPLE - len(people))
        async with self._db.single_read() as conn:
            rows = await conn.fetch(_LOG_OF_PEOPLE, guild_id, *padded, games)
        return [
            LogEntry(
                user_id=int(row[0]),
                game_id=int(row[1]),
                seat=int(row[2]),
                players=int(row[3]),
                resigned=bool(row[4]),
                left_to_ai=bool(row[5]),
                substituted_away=bool(row[6]),
                kind=row[7],
                actor_id=None if row[8] is None else int(row[8]),
                ai_for=row[9],
                created_at=time_from_column(row[10]),
            )
            for row in rows
        ]

    async def recent_accuracy(self, guild_id: int, user_id: int, limit: int) -> list[float]:
        """The member's accuracy in their newest `limit` finished games of the server that have
        one (a seat with nothing to count has none), newest first (games in the order they
        were opened)."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                "SELECT a.accuracy FROM seat_accuracy a JOIN games g ON g.id = a.game_id "
                "WHERE g.guild_id = $1 AND g.status = 'over' AND a.user_id = $2 "
                "AND a.accuracy IS NOT NULL ORDER BY a.game_id DESC, a.seat LIMIT $3",
                guild_id,
                user_id,
                limit,
            )
        return [float(row[0]) for row in rows]

    async def without_accuracy(self, limit: int, window: int) -> list[PendingGame]:
        """Up to `limit` of the newest `window` finished games (all servers), newest first,
        with a person in a seat and no accuracy written for them yet (the window bounds what
        one look reads, however many games the database holds)."""
        async with self._db.reading() as conn:
            games = await conn.fetch(
                "SELECT g.id FROM (SELECT id FROM games WHERE status = 'over' "
                "ORDER BY id DESC LIMIT $2) g WHERE EXISTS (SELECT 1 FROM results r "
                "WHERE r.game_id = g.id AND r.user_id IS NOT NULL) "
                "AND NOT EXISTS (SELECT 1 FROM seat_accuracy a WHERE a.game_id = g.id) "
                "ORDER BY g.id DESC LIMIT $1",
                limit,
                window,
            )
            return [await _pending(conn, int(game[0])) for game in games]

    async def shown_without_accuracy(self, limit: int, per_person: int) -> list[PendingGame]:
        """Up to `limit` finished games, newest first, that are among some person's newest
        `per_person` finished games of their server (the games their stats would show, however
        old) and have no accuracy written yet. A game judged without a value for the person
        (no choice of their own) is not one of theirs here: their stats reach back past it. It
        reads every finished game's seats: a look for a start, not for each game that
        closes."""
        async with self._db.reading() as conn:
            games = await conn.fetch(
                "SELECT DISTINCT shown.game_id FROM (SELECT p.game_id, ROW_NUMBER() OVER "
                "(PARTITION BY g.guild_id, p.user_id ORDER BY p.game_id DESC) AS place "
                "FROM (SELECT game_id, user_id FROM results WHERE user_id IS NOT NULL "
                "UNION SELECT game_id, finished_by FROM results WHERE finished_by IS NOT NULL) p "
                "JOIN games g ON g.id = p.game_id WHERE g.status = 'over' "
                "AND (NOT EXISTS (SELECT 1 FROM seat_accuracy j WHERE j.game_id = p.game_id) "
                "OR EXISTS (SELECT 1 FROM seat_accuracy v WHERE v.game_id = p.game_id "
                "AND v.user_id = p.user_id AND v.accuracy IS NOT NULL))) shown "
                "WHERE shown.place <= $2 AND NOT EXISTS "
                "(SELECT 1 FROM seat_accuracy a WHERE a.game_id = shown.game_id) "
                "ORDER BY shown.game_id DESC LIMIT $1",
                limit,
                per_person,
            )
            return [await _pending(conn, int(game[0])) for game in games]

    async def add_accuracy(self, game_id: int, seats: list[SeatAccuracy]) -> int:
        """Write the accuracy of the people's `seats` in game `game_id`; a person's seat written
        already keeps its value (a second writer, another process, changes nothing). Returns
        how many rows were new."""
        added = 0
        async with self._db.transaction() as conn:
            for seat in seats:
                added += await conn.execute(
                    "INSERT INTO seat_accuracy (game_id, seat, user_id, accuracy) "
                    "VALUES ($1, $2, $3, $4) ON CONFLICT (game_id, seat, user_id) DO NOTHING",
                    game_id,
                    seat.seat,
                    seat.user_id,
                    seat.accuracy,
                )
        return added


async def _pending(conn: Connection, game_id: int) -> PendingGame:
    """Finished game `game_id` with its people's seats, to be judged."""
    seats = await conn.fetch(
        "SELECT seat, user_id, finished_by FROM results "
        "WHERE game_id = $1 AND user_id IS NOT NULL ORDER BY seat",
        game_id,
    )
    people = []
    for row in seats:
        people.append((int(row[0]), int(row[1])))
        if row[2] is not None:
            people.append((int(row[0]), int(row[2])))
    return PendingGame(game_id, tuple(people))
