"""The ratings' tables (migration 0010): the order of each server's rated games, and the
ratings derived from applying them in that order.

- `queue_rated_game` runs inside the transaction that writes a game's last action and its
  results: it gives the game the next number of its server's rated games. On PostgreSQL the
  upsert of the server's `rating_guilds` row locks it until that transaction ends, so two
  games ending at once in two processes get two numbers, in the order they commit; SQLite
  serialises its write transactions.
- `RatingStore.pending` reads, in one snapshot, a server's rated games that the ratings do not
  include yet, with their seats' places, and the ratings of the players in them; the services
  compute the new ratings (bot.services.ratings) and `apply` writes them, guarded by how many
  games the ratings included when they were read: a writer that got there first (another
  process) makes the write change nothing and return False, and the caller reads again. So no
  game is ever applied twice, or skipped, or out of its order.
- `everything` and `replace` do the same for a rebuild from the first rated game.

Nothing here knows how a rating is computed; the skills cross as plain floats, stored as
8-byte floats on both back ends, so they come back bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.storage.database import Connection, Database, Row

PlayerKey = tuple[int | None, str | None]
"""A rated player: (user_id, None) for a person, (None, ai_level) for an AI level."""


@dataclass(frozen=True, slots=True)
class RatedSeat:
    """A seat of a rated game: who sat there and the place it finished at (ties share one;
    in a game with a substitute, its place among the rated players: docs/async.md)."""

    seat: int
    user_id: int | None
    ai_level: str | None
    place: int

    @property
    def player(self) -> PlayerKey:
        return (self.user_id, self.ai_level)


@dataclass(frozen=True, slots=True)
class RatedGame:
    """A rated game of a server, its `number` in the order the server's rated games ended."""

    number: int
    game_id: int
    seats: tuple[RatedSeat, ...]


@dataclass(frozen=True, slots=True)
class RatingRow:
    """A player's skill now, and how many rated games it comes from."""

    user_id: int | None
    ai_level: str | None
    mu: float
    sigma: float
    games: int

    @property
    def player(self) -> PlayerKey:
        return (self.user_id, self.ai_level)


@dataclass(frozen=True, slots=True)
class ChangeRow:
    """What one rated game did to one seat's player: their skill before and after it, and
    their rated games with it."""

    game_id: int
    seat: int
    number: int
    user_id: int | None
    ai_level: str | None
    place: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    games: int


@dataclass(frozen=True, slots=True)
class Pending:
    """A server's rated games that its ratings do not include (in order), read together with
    how many they do include (`applied`) and the ratings now of the players in those games."""

    guild_id: int
    applied: int
    games: tuple[RatedGame, ...]
    ratings: tuple[RatingRow, ...]


@dataclass(frozen=True, slots=True)
class AiRecord:
    """A person's finished games against one AI level in a server, counted per AI seat met:
    how often they finished ahead of it, on the same place, or behind it."""

    ai_level: str
    ahead: int
    level: int
    behind: int


_CHANGE_COLUMNS = (
    "game_id, seat, number, user_id, ai_level, place, mu_before, sigma_before, mu_after, "
    "sigma_after, games"
)
_RATED_SEATS = (
    "SELECT g.number, g.game_id, r.seat, r.user_id, r.ai_level, "
    "coalesce(r.rated_place, r.place) AS place "
    "FROM rated_games g JOIN results r ON r.game_id = g.game_id "
    "WHERE g.guild_id = $1 AND g.number > $2 ORDER BY g.number, r.seat"
)
_PENDING_SEATS = (
    "SELECT g.number, g.game_id, r.seat, r.user_id, r.ai_level, "
    "coalesce(r.rated_place, r.place) AS place, s.applied "
    "FROM rating_guilds s LEFT JOIN rated_games g "
    "ON g.guild_id = s.guild_id AND g.number > s.applied "
    "LEFT JOIN results r ON r.game_id = g.game_id "
    "WHERE s.guild_id = $1 ORDER BY g.number, r.seat"
)
"""The seats of the server's rated games not applied yet, each row with how many are (one row
of NULL seats when none is pending)."""
_PENDING_RATINGS = (
    "SELECT user_id, ai_level, mu, sigma, games FROM ratings WHERE guild_id = $1 AND ("
    "user_id IN (SELECT r.user_id FROM rated_games g JOIN results r ON r.game_id = g.game_id "
    "WHERE g.guild_id = $1 AND g.number > $2) "
    "OR ai_level IN (SELECT r.ai_level FROM rated_games g JOIN results r "
    "ON r.game_id = g.game_id WHERE g.guild_id = $1 AND g.number > $2))"
)


async def queue_rated_game(conn: Connection, guild_id: int, game_id: int) -> int:
    """Give the game the next number of the server's rated games, in the caller's transaction
    (the one that writes the game's results); the number."""
    number = await conn.fetchval(
        "INSERT INTO rating_guilds (guild_id, games, applied) VALUES ($1, 1, 0) "
        "ON CONFLICT (guild_id) DO UPDATE SET games = rating_guilds.games + 1 RETURNING games",
        guild_id,
    )
    await conn.execute(
        "INSERT INTO rated_games (guild_id, number, game_id) VALUES ($1, $2, $3)",
        guild_id,
        number,
        game_id,
    )
    return int(number)


def _rating(row: Row) -> RatingRow:
    return RatingRow(row[0], row[1], float(row[2]), float(row[3]), int(row[4]))


def _change(row: Row) -> ChangeRow:
    return ChangeRow(
        game_id=int(row["game_id"]),
        seat=int(row["seat"]),
        number=int(row["number"]),
        user_id=row["user_id"],
        ai_level=row["ai_level"],
        place=int(row["place"]),
        mu_before=float(row["mu_before"]),
        sigma_before=float(row["sigma_before"]),
        mu_after=float(row["mu_after"]),
        sigma_after=float(row["sigma_after"]),
        games=int(row["games"]),
    )


def _games(rows: Sequence[Row]) -> tuple[RatedGame, ...]:
    """Rows of _RATED_SEATS grouped into games."""
    games: list[RatedGame] = []
    seats: list[RatedSeat] = []
    current: tuple[int, int] | None = None
    for row in rows:
        key = (int(row[0]), int(row[1]))
        if key != current:
            if current is not None:
                games.append(RatedGame(current[0], current[1], tuple(seats)))
            current, seats = key, []
        seats.append(RatedSeat(int(row[2]), row[3], row[4], int(row[5])))
    if current is not None:
        games.append(RatedGame(current[0], current[1], tuple(seats)))
    return tuple(games)


class RatingStore:
    """Reads and writes the ratings; each method is one transaction (or one snapshot)."""

    def __init__(self, database: Database) -> None:
        self._db = database

    # --- applying rated games ----------------------------------------------------------------

    async def behind(self) -> list[int]:
        """The servers whose ratings do not include all their rated games yet."""
        async with self._db.reading() as conn:
            rows = await conn.fetch(
                "SELECT guild_id FROM rating_guilds WHERE applied < games ORDER BY guild_id"
            )
        return [int(row[0]) for row in rows]

    async def guilds(self) -> list[int]:
        """Every server that has had a rated game."""
        async with self._db.reading() as conn:
            rows = await conn.fetch("SELECT guild_id FROM rating_guilds ORDER BY guild_id")
        return [int(row[0]) for row in rows]

    async def pending(self, guild_id: int) -> Pending:
        """The server's rated games its ratings do not include yet, with the ratings of their
        players.

        Two statements, each its own snapshot: if another writer applies games between them,
        the ratings read are newer than `applied`, and `apply`'s guard on `applied` refuses
        the write, so what is written always comes from one state."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(_PENDING_SEATS, guild_id)
        applied = int(rows[0]["applied"]) if rows else 0
        games = _games([row for row in rows if row["number"] is not None])
        if not games:
            return Pending(guild_id, applied, games, ())
        async with self._db.single_read() as conn:
            ratings = await conn.fetch(_PENDING_RATINGS, guild_id, applied)
        return Pending(guild_id, applied, games, tuple(_rating(row) for row in ratings))

    async def everything(self, guild_id: int) -> Pending:
        """Every rated game of the server, from the first, as if none were applied (one
        snapshot; `applied` is how many the ratings include now, for `replace`'s guard)."""
        async with self._db.reading() as conn:
            applied = await _applied(conn, guild_id)
            games = _games(await conn.fetch(_RATED_SEATS, guild_id, 0))
        return Pending(guild_id, applied, games, ())

    async def apply(
        self,
        guild_id: int,
        expected_applied: int,
        changes: Sequence[ChangeRow],
        ratings: Sequence[RatingRow],
    ) -> bool:
        """Add `changes` (of the rated games after `expected_applied`, in order) and set the
        `ratings` of their players, if the server's ratings still include exactly
        `expected_applied` games; False (and nothing written) if another writer got there
        first."""
        if not changes:
            return True
        async with self._db.transaction() as conn:
            if not await _advance(conn, guild_id, expected_applied, changes[-1].number):
                return False
            await _insert_changes(conn, guild_id, changes)
            await _set_ratings(conn, guild_id, ratings)
            return True

    async def replace(
        self,
        guild_id: int,
        expected_applied: int,
        changes: Sequence[ChangeRow],
        ratings: Sequence[RatingRow],
    ) -> bool:
        """Replace all the server's ratings and rating changes by `changes` (of its rated games
        from the first) and `ratings`, if its ratings still include exactly `expected_applied`
        games; False (and nothing written) otherwise."""
        applied = changes[-1].number if changes else 0
        async with self._db.transaction() as conn:
            if not await _advance(conn, guild_id, expected_applied, applied):
                return False
            await conn.execute("DELETE FROM rating_changes WHERE guild_id = $1", guild_id)
            await conn.execute("DELETE FROM ratings WHERE guild_id = $1", guild_id)
            await _insert_changes(conn, guild_id, changes)
            await conn.executemany(
                "INSERT INTO ratings (guild_id, user_id, ai_level, mu, sigma, games) "
                "VALUES ($1, $2, $3, $4, $5, $6)",
                [
                    (guild_id, r.user_id, r.ai_level, r.mu, r.sigma, r.games)
                    for r in sorted(ratings, key=_player_order)
                ],
            )
            return True

    # --- reading -----------------------------------------------------------------------------

    async def of_game(self, game_id: int) -> list[ChangeRow]:
        """What the game did to its seats' ratings, by seat (none: not rated, or not yet)."""
        async with self._db.reading() as conn:
            rows = await conn.fetch(
                f"SELECT {_CHANGE_COLUMNS} FROM rating_changes WHERE game_id = $1 ORDER BY seat",
                game_id,
            )
        return [_change(row) for row in rows]

    async def history(self, guild_id: int, user_id: int) -> list[tuple[ChangeRow, int]]:
        """The person's rated games in the server, in order, each with its number of seats."""
        async with self._db.reading() as conn:
            rows = await conn.fetch(
                f"SELECT {_CHANGE_COLUMNS}, (SELECT count(*) FROM rating_changes s "
                "WHERE s.game_id = c.game_id) AS seats FROM rating_changes c "
                "WHERE guild_id = $1 AND user_id = $2 ORDER BY number",
                guild_id,
                user_id,
            )
        return [(_change(row), int(row["seats"])) for row in rows]

    async def rating(self, guild_id: int, user_id: int) -> RatingRow | None:
        async with self._db.reading() as conn:
            row = await conn.fetchrow(
                "SELECT user_id, ai_level, mu, sigma, games FROM ratings "
                "WHERE guild_id = $1 AND user_id = $2",
                guild_id,
                user_id,
            )
        return None if row is None else _rating(row)

    async def leaderboard(self, guild_id: int, settled: int, limit: int) -> list[RatingRow]:
        """The server's rated people, those with `settled` rated games or more first, each part
        by conservative estimate (mu - 3 sigma), best first; at most `limit`."""
        async with self._db.reading() as conn:
            rows = await conn.fetch(
                "SELECT user_id, ai_level, mu, sigma, games FROM ratings "
                "WHERE guild_id = $1 AND user_id IS NOT NULL "
                "ORDER BY CASE WHEN games >= $2 THEN 0 ELSE 1 END, mu - 3 * sigma DESC, user_id "
                "LIMIT $3",
                guild_id,
                settled,
                limit,
            )
        return [_rating(row) for row in rows]

    async def references(self, guild_id: int) -> list[RatingRow]:
        """The server's AI levels that have played rated games, by level name."""
        async with self._db.reading() as conn:
            rows = await conn.fetch(
                "SELECT user_id, ai_level, mu, sigma, games FROM ratings "
                "WHERE guild_id = $1 AND ai_level IS NOT NULL ORDER BY ai_level",
                guild_id,
            )
        return [_rating(row) for row in rows]

    async def ai_records(self, guild_id: int, user_id: int) -> list[AiRecord]:
        """The person's record against each AI level in the server's finished games (rated
        or casual), by level name."""
        async with self._db.reading() as conn:
            rows = await conn.fetch(
                "SELECT a.ai_level, "
                "sum(CASE WHEN coalesce(r.rated_place, r.place) < coalesce(a.rated_place, a.place) "
                "THEN 1 ELSE 0 END), "
                "sum(CASE WHEN coalesce(r.rated_place, r.place) = coalesce(a.rated_place, a.place) "
                "THEN 1 ELSE 0 END), "
                "sum(CASE WHEN coalesce(r.rated_place, r.place) > coalesce(a.rated_place, a.place) "
                "THEN 1 ELSE 0 END) "
                "FROM results r JOIN results a ON a.game_id = r.game_id "
                "JOIN games g ON g.id = r.game_id "
                "WHERE g.guild_id = $1 AND g.status = 'over' AND r.user_id = $2 "
                "AND a.ai_level IS NOT NULL GROUP BY a.ai_level ORDER BY a.ai_level",
                guild_id,
                user_id,
            )
        return [AiRecord(str(row[0]), int(row[1]), int(row[2]), int(row[3])) for row in rows]

    async def applied_count(self, guild_id: int) -> tuple[int, int]:
        """(the server's rated games, how many of them its ratings include)."""
        async with self._db.reading() as conn:
            row = await conn.fetchrow(
                "SELECT games, applied FROM rating_guilds WHERE guild_id = $1", guild_id
            )
        return (0, 0) if row is None else (int(row[0]), int(row[1]))


def _player_order(rating: RatingRow) -> tuple[int, int, str]:
    """People by id, then AI levels by name: a fixed order to write a server's ratings in."""
    if rating.user_id is not None:
        return (0, rating.user_id, "")
    return (1, 0, rating.ai_level or "")


async def _applied(conn: Connection, guild_id: int) -> int:
    applied = await conn.fetchval("SELECT applied FROM rating_guilds WHERE guild_id = $1", guild_id)
    return 0 if applied is None else int(applied)


async def _advance(conn: Connection, guild_id: int, expected: int, applied: int) -> bool:
    """Set how many rated games the server's ratings include to `applied` if it is
    `expected` now (on PostgreSQL the row stays locked until the transaction ends)."""
    moved = await conn.execute(
        "UPDATE rating_guilds SET applied = $3 WHERE guild_id = $1 AND applied = $2",
        guild_id,
        expected,
        applied,
    )
    return moved == 1


async def _insert_changes(conn: Connection, guild_id: int, changes: Sequence[ChangeRow]) -> None:
    await conn.executemany(
        "INSERT INTO rating_changes (game_id, seat, guild_id, number, user_id, ai_level, place, "
        "mu_before, sigma_before, mu_after, sigma_after, games) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
        [
            (
                c.game_id,
                c.seat,
                guild_id,
                c.number,
                c.user_id,
                c.ai_level,
                c.place,
                c.mu_before,
                c.sigma_before,
                c.mu_after,
                c.sigma_after,
                c.games,
            )
            for c in changes
        ],
    )


def _upsert_rating(key: str) -> str:
    return (
        f"INSERT INTO ratings (guild_id, {key}, mu, sigma, games) VALUES ($1, $2, $3, $4, $5) "
        f"ON CONFLICT (guild_id, {key}) WHERE {key} IS NOT NULL "
        "DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, games = excluded.games"
    )


_UPSERT_PERSON = _upsert_rating("user_id")
_UPSERT_AI_LEVEL = _upsert_rating("ai_level")


async def _set_ratings(conn: Connection, guild_id: int, ratings: Sequence[RatingRow]) -> None:
    """Store the players' ratings now, people and AI levels each in one statement (the caller
    holds the server's rating_guilds row, so no other writer adds the same player meanwhile)."""
    ordered = sorted(ratings, key=_player_order)
    people = [(guild_id, r.user_id, r.mu, r.sigma, r.games) for r in ordered if r.user_id]
    levels = [(guild_id, r.ai_level, r.mu, r.sigma, r.games) for r in ordered if r.ai_level]
    if people:
        await conn.executemany(_UPSERT_PERSON, people)
    if levels:
        await conn.executemany(_UPSERT_AI_LEVEL, levels)
