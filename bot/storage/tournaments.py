"""The tournament repository: tournaments, their players, rounds and tables, one transaction
per call, the same SQL on every back end (bot.storage.database).

What keeps several processes apart:
- a round is paired once: `pair_round` inserts the round's row and its tables in one
  transaction, and the round's primary key lets only the first writer in (the others get
  False and change nothing);
- setting a table up (its thread, then its game) is claimed for a lease (`claim_tables`) by
  one process, and each step is a guarded update: a thread is recorded only where none is
  (`set_thread`), a table's game is created in the same transaction that records it, only
  where none is (`create_table_game`);
- the tournament's status moves by guarded updates (`start`, `end`), so of two processes
  finishing a tournament one only is told it did.
- a withdrawal from a running tournament (`withdraw`) and a round's pairing (`pair_round`)
  each take the tournament's row first, so they come one after the other: the player is in
  the round paired first, or out of the round paired after.

What a step of the service decides from is read once, in one consistent read: `snapshot` (the
tournament, its players and every table, in one read-only transaction) and `table_snapshot`
(one table and what setting it up needs, in one statement). A round-robin's schedule is stored
when the tournament starts (`start`, or `set_schedule` for one started without it), so a round
never works it out again.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.storage.database import Connection, Database, Row, UniqueViolation
from bot.storage.kinds import TurnClock
from bot.storage.values import json_from_column, json_to_column, time_from_column, time_to_column

SIGNUP = "signup"
RUNNING = "running"
OVER = "over"
CANCELLED = "cancelled"
ABORTED = "aborted"


class ChannelHasTournamentError(Exception):
    """The channel already has a tournament signing up or running."""

    def __init__(self, channel_id: int) -> None:
        super().__init__(f"channel {channel_id} already has an open tournament")
        self.channel_id = channel_id


class TournamentFullError(Exception):
    """The tournament has as many players as it takes."""


class EntrantsChangedError(Exception):
    """The players signed up are not those the start drew its seeding from: one joined or left
    meanwhile, in another process."""


class AlreadyEnteredError(Exception):
    """The user is already signed up for the tournament."""


class WithdrawalsChangedError(Exception):
    """The players withdrawn are not those the pairing of a round left out: one withdrew
    meanwhile, in another process."""


@dataclass(frozen=True, slots=True)
class TournamentRow:
    id: int
    guild_id: int
    channel_id: int
    name: str
    format: str
    seats: int
    rounds: int | None
    variant: str
    turn_limit_seconds: int | None
    locale: str
    status: str
    created_by: int
    ended_by: int | None
    seed: str
    message_id: int | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class NewTournament:
    guild_id: int
    channel_id: int
    name: str
    format: str
    seats: int
    rounds: int | None
    variant: str
    turn_limit_seconds: int | None
    locale: str
    created_by: int
    seed: str


@dataclass(frozen=True, slots=True)
class EntrantRow:
    """A player signed up: their name when they joined, their place in the seeding, and the
    round after which they withdrew (None: still in)."""

    user_id: int
    display_name: str | None
    joined_at: datetime
    seed: int | None
    withdrew_after: int | None = None


@dataclass(frozen=True, slots=True)
class TableResultRow:
    """One seat's result in a table's finished game (user None: an AI seat), its place as the
    ratings count it: a seat handed to a substitute (`handed_over`) is its first person's, out
    when they left, and every seat's place counts them so. Score and dirhams are the seat's at
    the end."""

    user_id: int | None
    place: int
    score: int
    dirhams: int
    handed_over: bool = False


@dataclass(frozen=True, slots=True)
class TableRow:
    """A table of a round, with its game's status and results once it has them."""

    round: int
    table_no: int
    seats: tuple[int | None, ...]
    thread_id: int | None
    game_id: int | None
    game_status: str | None
    results: tuple[TableResultRow, ...] = ()


Schedule = tuple[tuple[tuple[int | None, ...], ...], ...]
"""A round-robin's schedule: its rounds, each a list of tables, each a list of seats."""


@dataclass(frozen=True, slots=True)
class TournamentSnapshot:
    """A tournament as one consistent read saw it: its row, its players (in seeding order once
    drawn), every table of every round paired with its game's status and results, and the
    round-robin's schedule (None: not asked for, a Swiss tournament, or not stored)."""

    row: TournamentRow
    entrants: tuple[EntrantRow, ...]
    tables: tuple[TableRow, ...]
    schedule: Schedule | None = None


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """One table as one statement saw it, with what setting it up needs: the tournament's row
    and its players' names (no results: a table being set up has none)."""

    row: TournamentRow
    table: TableRow
    names: dict[int, str | None]


@dataclass(frozen=True, slots=True)
class TableSeat:
    """A seat of a table's game, in seat order: a user (with their name) or an AI level."""

    user_id: int | None
    ai_level: str | None
    display_name: str | None


@dataclass(frozen=True, slots=True)
class NewTableGame:
    """A table's game, started: everything the games and seats rows need."""

    guild_id: int
    channel_id: int
    host_id: int
    variant: str
    turn_limit_seconds: int | None
    seed: str
    seed_sha256: str
    locale: str
    seats: tuple[TableSeat, ...]
    config: dict[str, Any]
    position: Any
    clock: TurnClock


_COLUMN_NAMES = (
    "id",
    "guild_id",
    "channel_id",
    "name",
    "format",
    "seats",
    "rounds",
    "variant",
    "turn_limit_seconds",
    "locale",
    "status",
    "created_by",
    "ended_by",
    "seed",
    "message_id",
    "created_at",
    "updated_at",
)
_COLUMNS = ", ".join(_COLUMN_NAMES)
_ROW = f"SELECT {_COLUMNS} FROM tournaments WHERE id = $1"
_ROW_AND_SCHEDULE = f"SELECT {_COLUMNS}, schedule FROM tournaments WHERE id = $1"
_TABLE_SNAPSHOT = (
    "SELECT "
    + ", ".join(f"t.{column}" for column in _COLUMN_NAMES)
    + ", tt.seats AS table_seats, tt.thread_id, tt.game_id, g.status AS game_status, "
    "p.user_id AS entrant, p.display_name AS entrant_name "
    "FROM tournaments t "
    "JOIN tournament_tables tt ON tt.tournament_id = t.id AND tt.round = $2 AND tt.table_no = $3 "
    "LEFT JOIN games g ON g.id = tt.game_id "
    "LEFT JOIN tournament_players p ON p.tournament_id = t.id "
    "WHERE t.id = $1"
)
"""A table, its tournament and its players' names: one row per player, the rest repeated."""
_UNCLAIMED = "(claimed_until IS NULL OR claimed_until <= $2 OR claimed_by = $3)"
"""A table free for the process `$3` at `$2`: not claimed, its lease ran out, or its own."""
_CLAIM_SQLITE = (
    "UPDATE tournament_tables SET claimed_by = $3, claimed_until = $4 "
    "WHERE tournament_id = $1 AND game_id IS NULL AND " + _UNCLAIMED + " "
    "AND EXISTS (SELECT 1 FROM tournaments WHERE id = $1 AND status = 'running') "
    "RETURNING round, table_no"
)
"""Claim a running tournament's tables still to set up (SQLite serialises its writers)."""
_CLAIM_POSTGRES = (
    "UPDATE tournament_tables SET claimed_by = $3, claimed_until = $4 "
    "WHERE tournament_id = $1 AND (round, table_no) IN (SELECT round, table_no "
    "FROM tournament_tables WHERE tournament_id = $1 AND game_id IS NULL AND " + _UNCLAIMED + " "
    "AND EXISTS (SELECT 1 FROM tournaments WHERE id = $1 AND status = 'running') "
    "FOR UPDATE SKIP LOCKED) RETURNING round, table_no"
)
"""The same on PostgreSQL: rows another process is claiming are skipped, not waited for."""


def _tournament(row: Row) -> TournamentRow:
    values = {column: row[column] for column in _COLUMN_NAMES}
    for column in ("created_at", "updated_at"):
        values[column] = time_from_column(values[column])
    return TournamentRow(**values)


class TournamentStore:
    """Reads and writes tournaments; each method is one transaction."""

    def __init__(self, database: Database) -> None:
        self._db = database

    @property
    def database(self) -> Database:
        return self._db

    async def create(self, new: NewTournament, now: datetime) -> TournamentRow:
        """Open a tournament for sign-up; ChannelHasTournamentError if the channel has one open."""
        try:
            async with self._db.transaction() as conn:
                tournament_id = await conn.fetchval(
                    "INSERT INTO tournaments (guild_id, channel_id, name, format, seats, rounds, "
                    "variant, turn_limit_seconds, locale, created_by, seed, created_at, "
                    "updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12) "
                    "RETURNING id",
                    new.guild_id,
                    new.channel_id,
                    new.name,
                    new.format,
                    new.seats,
                    new.rounds,
                    new.variant,
                    new.turn_limit_seconds,
                    new.locale,
                    new.created_by,
                    new.seed,
                    time_to_column(now),
                )
                return await _fetch(conn, int(tournament_id))
        except UniqueViolation as error:
            raise ChannelHasTournamentError(new.channel_id) from error

    async def get(self, tournament_id: int) -> TournamentRow | None:
        async with self._db.single_read() as conn:
            row = await conn.fetchrow(_ROW, tournament_id)
        return None if row is None else _tournament(row)

    async def open_at(self, channel_id: int) -> TournamentRow | None:
        """The tournament signing up or running in this channel, or played in this thread."""
        async with self._db.single_read() as conn:
            row = await conn.fetchrow(
                f"SELECT {_COLUMNS} FROM tournaments WHERE status IN ('signup', 'running') "
                "AND (channel_id = $1 OR id IN (SELECT tournament_id FROM tournament_tables "
                "WHERE thread_id = $1)) ORDER BY id LIMIT 1",
                channel_id,
            )
        return None if row is None else _tournament(row)

    async def running(self) -> list[TournamentRow]:
        """Every running tournament, oldest first."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                f"SELECT {_COLUMNS} FROM tournaments WHERE status = 'running' ORDER BY id"
            )
        return [_tournament(row) for row in rows]

    async def ended_since(self, since: datetime) -> list[TournamentRow]:
        """Every tournament played to its end (over) at `since` or later, oldest first."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                f"SELECT {_COLUMNS} FROM tournaments "
                "WHERE status = 'over' AND updated_at >= $1 ORDER BY id",
                time_to_column(since),
            )
        return [_tournament(row) for row in rows]

    async def snapshot(
        self, tournament_id: int, *, schedule: bool = False
    ) -> TournamentSnapshot | None:
        """The tournament, its players and every table with its game's status and results, in
        one read-only transaction (with `schedule`, the round-robin's stored schedule too);
        None if there is no such tournament."""
        async with self._db.reading() as conn:
            if schedule:
                row = await conn.fetchrow(_ROW_AND_SCHEDULE, tournament_id)
            else:
                row = await conn.fetchrow(_ROW, tournament_id)
            if row is None:
                return None
            entrants = await _entrants(conn, tournament_id)
            tables = await _tables(conn, tournament_id)
        stored = row["schedule"] if schedule else None
        return TournamentSnapshot(
            _tournament(row),
            tuple(entrants),
            tuple(tables),
            None if stored is None else _schedule(json_from_column(stored)),
        )

    async def table_snapshot(
        self, tournament_id: int, round_no: int, table_no: int
    ) -> TableSnapshot | None:
        """The table with its game's status, its tournament and the players' names, in one
        statement; None if there is no such table."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(_TABLE_SNAPSHOT, tournament_id, round_no, table_no)
        if not rows:
            return None
        first = rows[0]
        table = TableRow(
            round=round_no,
            table_no=table_no,
            seats=tuple(json_from_column(first["table_seats"])),
            thread_id=first["thread_id"],
            game_id=first["game_id"],
            game_status=first["game_status"],
        )
        names = {
            int(row["entrant"]): row["entrant_name"] for row in rows if row["entrant"] is not None
        }
        return TableSnapshot(_tournament(first), table, names)

    async def of_game(self, game_id: int) -> int | None:
        """The tournament whose table the game is, if any (asked at every game's end: one
        statement, one round trip)."""
        async with self._db.single_read() as conn:
            value = await conn.fetchval(
                "SELECT tournament_id FROM tournament_tables WHERE game_id = $1", game_id
            )
        return None if value is None else int(value)

    async def entrants(self, tournament_id: int) -> list[EntrantRow]:
        """The players: in seeding order once drawn, in sign-up order before."""
        async with self._db.single_read() as conn:
            return await _entrants(conn, tournament_id)

    async def join(
        self,
        tournament_id: int,
        user_id: int,
        display_name: str | None,
        now: datetime,
        *,
        most: int | None = None,
    ) -> bool:
        """Sign the user up while the tournament signs up (False: it no longer does);
        TournamentFullError if it has `most` players already, AlreadyEnteredError if they are
        signed up already. The transaction begins by taking the tournament's row (`_signing
        _up`), so sign-ups, withdrawals and the start, in any process, come one after the
        other: the count is of the players signed up when this one is, and none joins a
        tournament once its start has drawn the seeding."""
        try:
            async with self._db.transaction() as conn:
                if not await _signing_up(conn, tournament_id, now):
                    return False
                if most is not None:
                    count = await conn.fetchval(
                        "SELECT count(*) FROM tournament_players WHERE tournament_id = $1",
                        tournament_id,
                    )
                    if int(count) >= most:
                        raise TournamentFullError()
                added = await conn.execute(
                    "INSERT INTO tournament_players (tournament_id, user_id, display_name, "
                    "joined_at) VALUES ($1, $2, $3, $4)",
                    tournament_id,
                    user_id,
                    display_name,
                    time_to_column(now),
                )
                return added == 1
        except UniqueViolation as error:
            raise AlreadyEnteredError() from error

    async def leave(self, tournament_id: int, user_id: int, now: datetime) -> bool:
        """Take the user off the list while it signs up; False if they were not on it (or it no
        longer signs up). Taken in turn with sign-ups and the start, as `join` is."""
        async with self._db.transaction() as conn:
            if not await _signing_up(conn, tournament_id, now):
                return False
            removed = await conn.execute(
                "DELETE FROM tournament_players WHERE tournament_id = $1 AND user_id = $2",
                tournament_id,
                user_id,
            )
            return removed == 1

    async def set_message(self, tournament_id: int, message_id: int) -> None:
        """Remember the tournament's message (the sign-up, later the standings)."""
        async with self._db.transaction() as conn:
            await conn.execute(
                "UPDATE tournaments SET message_id = $1 WHERE id = $2", message_id, tournament_id
            )

    async def start(
        self,
        tournament_id: int,
        seeding: Sequence[int],
        rounds: int,
        now: datetime,
        schedule: Sequence[Sequence[Sequence[int | None]]] | None = None,
    ) -> bool:
        """Sign-up -> running, with the players' seeding, the number of rounds and the
        round-robin's schedule (None for a Swiss tournament); False (and nothing changed) if it
        was not signing up any more. EntrantsChangedError (and nothing changed) if the players
        signed up are not those of `seeding`: one joined or left after they were read. The
        update takes the tournament's row first, so a sign-up or withdrawal at the same moment
        either came before it (and is seen here) or finds the tournament started."""
        async with self._db.transaction() as conn:
            started = await conn.execute(
                "UPDATE tournaments SET status = 'running', rounds = $1, updated_at = $2, "
                "schedule = $4 WHERE id = $3 AND status = 'signup'",
                rounds,
                time_to_column(now),
                tournament_id,
                None if schedule is None else _schedule_column(schedule),
            )
            if started != 1:
                return False
            signed_up = await conn.fetch(
                "SELECT user_id FROM tournament_players WHERE tournament_id = $1", tournament_id
            )
            if {int(row["user_id"]) for row in signed_up} != set(seeding):
                raise EntrantsChangedError()  # rolls the start back
            await conn.executemany(
                "UPDATE tournament_players SET seed = $1 WHERE tournament_id = $2 AND user_id = $3",
                [(index, tournament_id, user) for index, user in enumerate(seeding, start=1)],
            )
            return True

    async def set_schedule(
        self, tournament_id: int, schedule: Sequence[Sequence[Sequence[int | None]]]
    ) -> None:
        """Store the round-robin's schedule unless it has one (of two processes working it out,
        the first one's stays; both worked out the same)."""
        async with self._db.single_write() as conn:
            await conn.execute(
                "UPDATE tournaments SET schedule = $1 WHERE id = $2 AND schedule IS NULL",
                _schedule_column(schedule),
                tournament_id,
            )

    async def end(
        self,
        tournament_id: int,
        status: str,
        ended_by: int | None,
        now: datetime,
        *,
        was: str | None = None,
    ) -> bool:
        """Close the tournament (over, cancelled or aborted) if its status is `was` (None:
        signing up or running); False (and nothing changed) otherwise: of two callers, one only
        gets True."""
        async with self._db.single_write() as conn:
            if was is None:
                ended = await conn.execute(
                    "UPDATE tournaments SET status = $1, ended_by = $2, updated_at = $3 "
                    "WHERE id = $4 AND status IN ('signup', 'running')",
                    status,
                    ended_by,
                    time_to_column(now),
                    tournament_id,
                )
            else:
                ended = await conn.execute(
                    "UPDATE tournaments SET status = $1, ended_by = $2, updated_at = $3 "
                    "WHERE id = $4 AND status = $5",
                    status,
                    ended_by,
                    time_to_column(now),
                    tournament_id,
                    was,
                )
            return ended == 1

    async def pair_round(
        self,
        tournament_id: int,
        round_no: int,
        tables: Sequence[Sequence[int | None]],
        now: datetime,
        withdrawn: Collection[int] = (),
    ) -> bool:
        """Store round `round_no` with its tables, if the tournament runs and the round is not
        paired yet (its previous round is); False, and nothing written, otherwise.
        WithdrawalsChangedError (and nothing written) if the players withdrawn are not
        `withdrawn`, those the pairing left out: the transaction takes the tournament's row
        first, as `withdraw` does, so a withdrawal at the same moment in another process either
        came before (and is seen here) or comes after, and finds this round paired."""
        async with self._db.transaction() as conn:
            if not await _taken(conn, tournament_id, now, RUNNING):
                return False
            out = await conn.fetch(
                "SELECT user_id FROM tournament_players WHERE tournament_id = $1 "
                "AND withdrew_after IS NOT NULL",
                tournament_id,
            )
            if {int(row["user_id"]) for row in out} != set(withdrawn):
                raise WithdrawalsChangedError()
            added = await conn.execute(
                "INSERT INTO tournament_rounds (tournament_id, round, paired_at) "
                "SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM tournaments WHERE id = $1 "
                "AND status = 'running') AND ($2 = 1 OR EXISTS (SELECT 1 FROM tournament_rounds "
                "WHERE tournament_id = $1 AND round = $2 - 1)) "
                "ON CONFLICT (tournament_id, round) DO NOTHING",
                tournament_id,
                round_no,
                time_to_column(now),
            )
            if added != 1:
                return False
            await conn.executemany(
                "INSERT INTO tournament_tables (tournament_id, round, table_no, seats) "
                "VALUES ($1, $2, $3, $4)",
                [
                    (tournament_id, round_no, number, json_to_column(list(table)))
                    for number, table in enumerate(tables, start=1)
                ],
            )
            return True

    async def withdraw(self, tournament_id: int, user_id: int, now: datetime) -> int | None:
        """Withdraw the player from the running tournament: they are paired in no round after
        the last one paired now, the round returned (0 before the first); None (and nothing
        changed) if the tournament does not run, or the user is not a player still in it. The
        transaction takes the tournament's row first, as `pair_round` does, so a round paired
        at the same moment in another process either came before (the player is in it, and
        that round is the one returned) or comes after, and leaves them out."""
        async with self._db.transaction() as conn:
            if not await _taken(conn, tournament_id, now, RUNNING):
                return None
            last = int(
                await conn.fetchval(
                    "SELECT coalesce(max(round), 0) FROM tournament_rounds "
                    "WHERE tournament_id = $1",
                    tournament_id,
                )
            )
            changed = await conn.execute(
                "UPDATE tournament_players SET withdrew_after = $1 WHERE tournament_id = $2 "
                "AND user_id = $3 AND withdrew_after IS NULL",
                last,
                tournament_id,
                user_id,
            )
            return last if changed == 1 else None

    async def rounds_paired(self, tournament_id: int) -> int:
        async with self._db.single_read() as conn:
            value = await conn.fetchval(
                "SELECT max(round) FROM tournament_rounds WHERE tournament_id = $1", tournament_id
            )
        return 0 if value is None else int(value)

    async def tables(self, tournament_id: int) -> list[TableRow]:
        """Every table of every round paired, with its game's status and results."""
        async with self._db.single_read() as conn:
            return await _tables(conn, tournament_id)

    async def claim_tables(
        self, tournament_id: int, now: datetime, owner: str, until: datetime
    ) -> list[tuple[int, int]]:
        """Claim for `owner` until `until` every table of the running tournament still to set
        up (no thread or no game yet) that no other process holds: (round, table) pairs."""
        stamps = (time_to_column(now), owner, time_to_column(until))
        async with self._db.transaction() as conn:
            if self._db.backend == "postgres":
                rows = await conn.fetch(_CLAIM_POSTGRES, tournament_id, *stamps)
            else:
                rows = await conn.fetch(_CLAIM_SQLITE, tournament_id, *stamps)
        return sorted((int(row["round"]), int(row["table_no"])) for row in rows)

    async def release_table(
        self, tournament_id: int, round_no: int, table_no: int, owner: str
    ) -> None:
        async with self._db.transaction() as conn:
            await conn.execute(
                "UPDATE tournament_tables SET claimed_by = NULL, claimed_until = NULL "
                "WHERE tournament_id = $1 AND round = $2 AND table_no = $3 AND claimed_by = $4",
                tournament_id,
                round_no,
                table_no,
                owner,
            )

    async def set_thread(
        self, tournament_id: int, round_no: int, table_no: int, thread_id: int
    ) -> int:
        """Record the table's thread unless it has one; the thread it has now."""
        async with self._db.transaction() as conn:
            await conn.execute(
                "UPDATE tournament_tables SET thread_id = $1 WHERE tournament_id = $2 "
                "AND round = $3 AND table_no = $4 AND thread_id IS NULL",
                thread_id,
                tournament_id,
                round_no,
                table_no,
            )
            value = await conn.fetchval(
                "SELECT thread_id FROM tournament_tables WHERE tournament_id = $1 "
                "AND round = $2 AND table_no = $3",
                tournament_id,
                round_no,
                table_no,
            )
        return int(value)

    async def thread_recorded(self, thread_id: int) -> bool:
        """Whether the thread is recorded as a table's, of any tournament."""
        async with self._db.single_read() as conn:
            found = await conn.fetchval(
                "SELECT 1 FROM tournament_tables WHERE thread_id = $1 LIMIT 1", thread_id
            )
        return found is not None

    async def create_table_game(
        self, tournament_id: int, round_no: int, table_no: int, new: NewTableGame, now: datetime
    ) -> int | None:
        """Create the table's game, started, and record it, in one transaction; None (and
        nothing written) if the table has its game already, or another writer is making it
        at this moment: the table's row is locked first, by an update that changes nothing
        unless the table has no game, so of two writers at once the second waits for the
        first and then finds its game. None too (and nothing written) if the tournament no
        longer runs: its row is taken before, by an update that changes nothing, so an abort
        at the same moment either comes after this game is stored (and ends it with the
        others) or leaves the table without one."""
        stamp = time_to_column(now)
        async with self._db.transaction() as conn:
            running = await conn.execute(
                "UPDATE tournaments SET status = status WHERE id = $1 AND status = 'running'",
                tournament_id,
            )
            if not running:
                return None
            free = await conn.execute(
                "UPDATE tournament_tables SET game_id = NULL WHERE tournament_id = $1 "
                "AND round = $2 AND table_no = $3 AND game_id IS NULL",
                tournament_id,
                round_no,
                table_no,
            )
            if not free:
                return None
            game_id = int(
                await conn.fetchval(
                    "INSERT INTO games (guild_id, channel_id, host_id, status, seats_wanted, "
                    "variant, turn_limit_seconds, config, seed, seed_sha256, seq, position, "
                    "created_at, updated_at, turn_started_at, remind_at, due_at, locale, "
                    "tournament_id) "
                    "VALUES ($1, $2, $3, 'running', $4, $5, $6, $7, $8, $9, 0, $10, $11, $11, "
                    "$12, $13, $14, $15, $16) RETURNING id",
                    new.guild_id,
                    new.channel_id,
                    new.host_id,
                    len(new.seats),
                    new.variant,
                    new.turn_limit_seconds,
                    json_to_column(new.config),
                    new.seed,
                    new.seed_sha256,
                    json_to_column(new.position),
                    stamp,
                    time_to_column(new.clock.turn_started_at),
                    time_to_column(new.clock.remind_at),
                    time_to_column(new.clock.due_at),
                    new.locale,
                    tournament_id,
                )
            )
            await conn.executemany(
                "INSERT INTO seats (game_id, user_id, ai_level, seat, joined_at, display_name) "
                "VALUES ($1, $2, $3, $4, $5, $6)",
                [
                    (game_id, seat.user_id, seat.ai_level, index, stamp, seat.display_name)
                    for index, seat in enumerate(new.seats)
                ],
            )
            await conn.execute(
                "UPDATE tournament_tables SET game_id = $1 WHERE tournament_id = $2 "
                "AND round = $3 AND table_no = $4",
                game_id,
                tournament_id,
                round_no,
                table_no,
            )
            return game_id


async def _fetch(conn: Connection, tournament_id: int) -> TournamentRow:
    row = await conn.fetchrow(_ROW, tournament_id)
    assert row is not None
    return _tournament(row)


async def _signing_up(conn: Connection, tournament_id: int, now: datetime) -> bool:
    """Take the row of the tournament, if it signs up, until the transaction ends (see
    `_taken`): a start, sign-up or withdrawal from the list at the same moment waits for this
    transaction, and a start that came first leaves it nothing to take. False if it does not
    sign up."""
    return await _taken(conn, tournament_id, now, SIGNUP)


async def _taken(conn: Connection, tournament_id: int, now: datetime, status: str) -> bool:
    """Take the row of the tournament, if its status is `status`, until the transaction ends:
    an update that only marks it changed, so that on PostgreSQL another transaction taking it
    waits for this one (SQLite's write transactions are one at a time already). False if the
    tournament's status is another."""
    taken = await conn.execute(
        "UPDATE tournaments SET updated_at = $1 WHERE id = $2 AND status = $3",
        time_to_column(now),
        tournament_id,
        status,
    )
    return taken == 1


async def _entrants(conn: Connection, tournament_id: int) -> list[EntrantRow]:
    rows = await conn.fetch(
        "SELECT user_id, display_name, joined_at, seed, withdrew_after FROM tournament_players "
        "WHERE tournament_id = $1 ORDER BY seed, joined_at, user_id",
        tournament_id,
    )
    return [
        EntrantRow(
            row["user_id"],
            row["display_name"],
            time_from_column(row["joined_at"]),
            row["seed"],
            row["withdrew_after"],
        )
        for row in rows
    ]


async def _tables(conn: Connection, tournament_id: int) -> list[TableRow]:
    """Every table of every round paired, with its game's status and its seats' results (one
    row per result: a table without them comes once, with NULLs)."""
    rows = await conn.fetch(
        "SELECT t.round, t.table_no, t.seats, t.thread_id, t.game_id, g.status, "
        "r.user_id, coalesce(r.rated_place, r.place) AS place, r.score, r.dirhams, "
        "r.finished_by IS NOT NULL AS handed_over "
        "FROM tournament_tables t LEFT JOIN games g ON g.id = t.game_id "
        "LEFT JOIN results r ON r.game_id = t.game_id "
        "WHERE t.tournament_id = $1 ORDER BY t.round, t.table_no, r.seat",
        tournament_id,
    )
    tables: list[TableRow] = []
    results: list[TableResultRow] = []
    for index, row in enumerate(rows):
        if row["place"] is not None:
            results.append(
                TableResultRow(
                    row["user_id"],
                    row["place"],
                    row["score"],
                    row["dirhams"],
                    bool(row["handed_over"]),
                )
            )
        following = rows[index + 1] if index + 1 < len(rows) else None
        if following is not None and (following["round"], following["table_no"]) == (
            row["round"],
            row["table_no"],
        ):
            continue
        tables.append(
            TableRow(
                round=row["round"],
                table_no=row["table_no"],
                seats=tuple(json_from_column(row["seats"])),
                thread_id=row["thread_id"],
                game_id=row["game_id"],
                game_status=row["status"],
                results=tuple(results),
            )
        )
        results = []
    return tables


def _schedule_column(schedule: Sequence[Sequence[Sequence[int | None]]]) -> str:
    return json_to_column([[list(table) for table in round_tables] for round_tables in schedule])


def _schedule(value: Any) -> Schedule | None:
    """The stored schedule, or None where the column does not hold one (it is worked out
    again and stored)."""
    if not isinstance(value, list):
        return None
    return tuple(tuple(tuple(table) for table in round_tables) for round_tables in value)
