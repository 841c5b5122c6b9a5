"""The game repository: games, seats and the append-only action log, one transaction per call.

Every value that comes from a user reaches SQL only as a bound parameter. The SQL is the same
on every back end (bot.storage.database): numbered parameters, explicit ids, RETURNING.

Several bot processes may share one database, so the store also holds what keeps them apart:
- claims: a piece of due work (an automatic turn, a reminder, a display to repair) is claimed
  by one process (`claim_due`, `claim`) for a lease of time before it is done, and released
  after (`release_claim`); a lease that runs out (the process died) lets another take it;
- `rev`, bumped by every change to a game's seats, so a process can check its copy of a game
  against the row (`get`) before trusting it, and reload it (`snapshot`) when it is behind;
- on PostgreSQL, a NOTIFY on SCHEDULE_CHANNEL in every write that changes a turn clock or what
  a game's message shows (sent on commit only), which wakes the other processes' schedulers
  (`listen`); SQLite serves one process, whose scheduler is woken in memory.

Round trips are kept few (bot.storage.database): a write of one statement runs alone
(`single_write`), a write returns the game's row as it leaves it (`RETURNING`, with the NOTIFY
in the same statement) rather than reading it again, and rows go in with `executemany`, one
round trip for all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.storage.database import Connection, Database, Row, UniqueViolation
from bot.storage.kinds import EndReason, GameStatus, TurnClock
from bot.storage.ratings import queue_rated_game
from bot.storage.values import (
    UnreadableJson,
    json_from_column,
    json_to_column,
    time_from_column,
    time_to_column,
)


class StaleSeqError(Exception):
    """The game's sequence number moved on since it was read (optimistic concurrency)."""

    def __init__(self, game_id: int, expected_seq: int) -> None:
        super().__init__(f"game {game_id} is no longer at seq {expected_seq}")
        self.game_id = game_id
        self.expected_seq = expected_seq


class ChannelBusyError(Exception):
    """The channel already has an open game."""

    def __init__(self, channel_id: int) -> None:
        super().__init__(f"channel {channel_id} already has an open game")
        self.channel_id = channel_id


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    guild_id: int | None
    channel_id: int
    host_id: int
    status: GameStatus
    seats_wanted: int
    variant: str
    turn_limit_seconds: int | None
    config: dict[str, Any] | UnreadableJson | None
    """The game's config (bot.services.records), set at its start."""
    seed: str
    seed_sha256: str
    seq: int
    position: Any
    """The position snapshot (a JSON value) after `seq` actions; None before the start, and
    UnreadableJson if its stored text does not parse."""
    board_message_id: int | None
    board_message_seq: int | None
    end_reason: str | None
    ended_by: int | None
    created_at: datetime
    updated_at: datetime
    turn_started_at: datetime | None = None
    remind_at: datetime | None = None
    due_at: datetime | None = None
    locale: str = "en"
    """The language of the game's public messages (bot.presentation.messages.LANGUAGES)."""
    lobby_message_id: int | None = None
    """The lobby's message, which goes on pointing at the game once it started."""
    reminder_message_id: int | None = None
    """The reminder sent for the turn being played, if one is out."""
    rev: int = 0
    """Counts the changes to the game's seats (the row alone would not show them)."""
    casual: bool = False
    """Opened as casual: no rating counts it."""


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A seat: a Discord user, or an AI (`ai_level`); `key` identifies the row itself.

    `display_name` is the name the user was shown by when they took the seat (None for an AI,
    and for seats taken before names were kept).
    """

    user_id: int | None
    ai_level: str | None
    seat: int | None
    joined_at: datetime
    resigned: bool
    key: int = 0
    timeouts: int = 0
    autoplay: bool = False
    display_name: str | None = None


@dataclass(frozen=True, slots=True)
class SeatControl:
    """A seat's timeouts in a row and whether the AI plays it for the rest of the game."""

    seat: int
    timeouts: int
    autoplay: bool


@dataclass(frozen=True, slots=True)
class ResultRow:
    """How one seat of a finished game ended (what stats count)."""

    seat: int
    user_id: int | None
    ai_level: str | None
    color: str
    score: int
    dirhams: int
    place: int
    won: bool
    eliminated: bool = False  # out of the game: stats leave its score out


@dataclass(frozen=True, slots=True)
class ActionRow:
    """One log entry: an action notation, or the resignation of `resigned_seat`."""

    seq: int
    notation: str | None
    resigned_seat: int | None
    actor_id: int | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class NextMoments:
    """When a process's scheduler next has something to look at (None: nothing of the kind)."""

    due: datetime | None
    """The earliest reminder or automatic move of a running game shown up to date."""
    oldest_unshown: datetime | None
    """When the oldest change not yet shown of a started game was made."""
    lease_end: datetime | None
    """When the first claim another process holds runs out."""
    due_elsewhere: datetime | None = None
    """The earliest reminder or automatic move of a game in a shard the process does not hold
    (its own process has it first: bot.services.turn_clock)."""


@dataclass(frozen=True, slots=True)
class ShardSet:
    """The bot's shard count and the shard ids a process holds (sorted, each below count). A
    game belongs to the shard of its server, `(guild_id >> 22) % count`, as on Discord."""

    count: int = 1
    ids: tuple[int, ...] = (0,)

    def pattern(self) -> str:
        """The ids as the SQL below matches them: ",0,3,"."""
        return "," + ",".join(str(shard) for shard in self.ids) + ","


ALL_SHARDS = ShardSet()
"""Every shard: the set of a process that holds them all."""


@dataclass(frozen=True, slots=True)
class NewGame:
    guild_id: int | None
    channel_id: int
    host_id: int
    seats_wanted: int
    variant: str
    turn_limit_seconds: int | None
    seed: str
    seed_sha256: str
    locale: str = "en"
    host_name: str | None = None
    """The host's display name, stored with their seat."""
    casual: bool = False
    """Not rated."""


@dataclass(frozen=True, slots=True)
class NewAction:
    """A log entry to append: an action notation, or (notation None) a resignation."""

    notation: str | None
    actor_id: int | None
    resigned_seat: int | None = None

    @property
    def kind(self) -> str:
        return "action" if self.notation is not None else "resign"


_GAME_COLUMNS = (
    "id, guild_id, channel_id, host_id, status, seats_wanted, variant, turn_limit_seconds, "
    "config, seed, seed_sha256, seq, position, board_message_id, board_message_seq, "
    "end_reason, ended_by, created_at, updated_at, turn_started_at, remind_at, due_at, locale, "
    "lobby_message_id, reminder_message_id, rev, casual"
)
_GAME_FIELDS = tuple(column.strip() for column in _GAME_COLUMNS.split(","))
_SHOWN = "board_message_seq IS NOT DISTINCT FROM seq"
"""The game's message shows its current seq."""
_NOT_SHOWN = "board_message_seq IS DISTINCT FROM seq"
_FIRST_DUE = "CASE WHEN due_at IS NULL OR remind_at < due_at THEN remind_at ELSE due_at END"
"""The earlier of the reminder and the automatic move (either may be NULL)."""
_UNCLAIMED = "(claimed_until IS NULL OR claimed_until <= $1 OR claimed_by = $2)"
"""Free for the process `$2` at `$1`: not claimed, its lease ran out, or claimed by it."""


def _in_shards(pattern: str, count: str) -> str:
    """SQL: the game's server is in one of the shards `pattern` lists (ShardSet.pattern) of
    `count` (both placeholders), in terms both back ends read alike."""
    return (
        f"({pattern} LIKE '%,' || CAST(((COALESCE(guild_id, 0) >> 22) % {count}) AS TEXT) || ',%')"
    )


_MINE_TO_CLAIM = _in_shards("$7", "$8")
_MINE_TO_PLAN = _in_shards("$3", "$4")
_FIRST_DUE_SHOWN = (
    f"SELECT min({_FIRST_DUE}) FROM games WHERE status = 'running' "
    f"AND {_SHOWN} AND (due_at IS NOT NULL OR remind_at IS NOT NULL) AND {_UNCLAIMED}"
)
"""The earliest reminder or automatic move of the running games shown up to date that the
process `$2` may claim at `$1` (a condition on the games may follow)."""
SCHEDULE_CHANNEL = "marrakech_schedule"
"""The PostgreSQL channel notified when a turn clock or what a game's message shows changes."""
_NOTIFY = f", pg_notify('{SCHEDULE_CHANNEL}', '') AS notified"
"""Added to a write's RETURNING on PostgreSQL: NOTIFY SCHEDULE_CHANNEL (once per row written),
in the write's own statement."""


def _game(row: Row) -> GameRow:
    values = {column: row[column] for column in _GAME_FIELDS}
    values["status"] = GameStatus(values["status"])
    values["casual"] = bool(values["casual"])
    for column in ("config", "position"):
        if values[column] is not None:
            values[column] = json_from_column(values[column])
    for column in ("created_at", "updated_at", "turn_started_at", "remind_at", "due_at"):
        values[column] = time_from_column(values[column])
    return GameRow(**values)


def _seat(row: Row) -> SeatRow:
    return SeatRow(
        user_id=row["user_id"],
        ai_level=row["ai_level"],
        seat=row["seat"],
        joined_at=time_from_column(row["joined_at"]),
        resigned=bool(row["resigned"]),
        key=row["id"],
        timeouts=row["timeouts"],
        autoplay=bool(row["autoplay"]),
        display_name=row["display_name"],
    )


def _action(row: Row) -> ActionRow:
    return ActionRow(
        row["seq"],
        row["notation"],
        row["seat"],
        row["actor_id"],
        time_from_column(row["created_at"]),
    )


class GameStore:
    """Reads and writes games; each method is one transaction."""

    def __init__(self, database: Database) -> None:
        self._db = database

    @property
    def database(self) -> Database:
        return self._db

    async def create(self, new: NewGame, now: datetime) -> GameRow:
        """Insert a lobby with its host seated; ChannelBusyError if the channel has an open game."""
        async with self._db.transaction() as conn:
            try:
                row = await conn.fetchrow(
                    "INSERT INTO games (guild_id, channel_id, host_id, status, seats_wanted, "
                    "variant, turn_limit_seconds, seed, seed_sha256, created_at, updated_at, "
                    "locale, casual) "
                    "VALUES ($1, $2, $3, 'lobby', $4, $5, $6, $7, $8, $9, $9, $10, $11) "
                    f"RETURNING {_GAME_COLUMNS}",
                    new.guild_id,
                    new.channel_id,
                    new.host_id,
                    new.seats_wanted,
                    new.variant,
                    new.turn_limit_seconds,
                    new.seed,
                    new.seed_sha256,
                    time_to_column(now),
                    new.locale,
                    int(new.casual),
                )
            except UniqueViolation as error:
                if error.table == "games" and "channel_id" in error.columns:
                    raise ChannelBusyError(new.channel_id) from error
                raise
            assert row is not None
            game = _game(row)
            await conn.execute(
                "INSERT INTO seats (game_id, user_id, joined_at, display_name) "
                "VALUES ($1, $2, $3, $4)",
                game.id,
                new.host_id,
                time_to_column(now),
                new.host_name,
            )
            return game

    async def get(self, game_id: int) -> GameRow | None:
        async with self._db.single_read() as conn:
            return await _maybe_game(conn, "WHERE id = $1", game_id)

    async def open_in_channel(self, channel_id: int) -> GameRow | None:
        """The channel's lobby or running game, if any."""
        async with self._db.single_read() as conn:
            return await _maybe_game(
                conn, "WHERE channel_id = $1 AND status IN ('lobby', 'running')", channel_id
            )

    async def last_over_in_channel(self, channel_id: int) -> GameRow | None:
        """The channel's most recent game played to its end, if any."""
        async with self._db.single_read() as conn:
            return await _maybe_game(
                conn,
                "WHERE channel_id = $1 AND status = 'over' ORDER BY id DESC LIMIT 1",
                channel_id,
            )

    async def open_games_of(self, guild_id: int, user_id: int) -> list[GameRow]:
        """The server's lobbies and running games in which the user holds a seat (not
        resigned), oldest first."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE guild_id = $1 "
                "AND status IN ('lobby', 'running') AND id IN (SELECT game_id FROM seats "
                "WHERE user_id = $2 AND resigned = 0) ORDER BY id",
                guild_id,
                user_id,
            )
        return [_game(row) for row in rows]

    async def behind_on_display(self) -> list[GameRow]:
        """Started games (running, or over) whose message does not show their current seq,
        and lobbies whose message was never recorded or not updated since a join or leave."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE (status IN ('running', 'over') "
                f"AND {_NOT_SHOWN}) "
                "OR (status = 'lobby' AND board_message_seq IS NULL) ORDER BY id"
            )
        return [_game(row) for row in rows]

    async def seats(self, game_id: int) -> list[SeatRow]:
        """The game's seats: in joining order in the lobby, in seat order once started."""
        async with self._db.single_read() as conn:
            return await _fetch_seats(conn, game_id)

    async def add_seat(
        self, game_id: int, user_id: int, now: datetime, display_name: str | None = None
    ) -> list[SeatRow]:
        """Seat the user, with the name they are shown by (None: none known)."""
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO seats (game_id, user_id, joined_at, display_name) "
                "VALUES ($1, $2, $3, $4)",
                game_id,
                user_id,
                time_to_column(now),
                display_name,
            )
            await _seats_changed(conn, game_id, now)
            return await _fetch_seats(conn, game_id)

    async def add_ai_seat(self, game_id: int, level: str, now: datetime) -> list[SeatRow]:
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO seats (game_id, ai_level, joined_at) VALUES ($1, $2, $3)",
                game_id,
                level,
                time_to_column(now),
            )
            await _seats_changed(conn, game_id, now)
            return await _fetch_seats(conn, game_id)

    async def remove_seat_row(self, game_id: int, key: int, now: datetime) -> list[SeatRow]:
        """Remove one seat by its row key (an AI seat, which has no user id)."""
        async with self._db.transaction() as conn:
            await conn.execute("DELETE FROM seats WHERE game_id = $1 AND id = $2", game_id, key)
            await _seats_changed(conn, game_id, now)
            return await _fetch_seats(conn, game_id)

    async def remove_seat(self, game_id: int, user_id: int, now: datetime) -> list[SeatRow]:
        async with self._db.transaction() as conn:
            await conn.execute(
                "DELETE FROM seats WHERE game_id = $1 AND user_id = $2", game_id, user_id
            )
            await _seats_changed(conn, game_id, now)
            return await _fetch_seats(conn, game_id)

    async def start(
        self,
        game_id: int,
        seat_keys: Sequence[int],
        config: dict[str, Any],
        position: Any,
        now: datetime,
        clock: TurnClock | None = None,
    ) -> GameRow:
        """Lobby -> running: give each seat row (by key) its seat (list index), store the config
        and the first turn's clock.

        The lobby message no longer shows the game's current seq: until the first turn is
        posted, a crash leaves a display to catch up (whose first step strips the lobby's
        buttons).
        """
        async with self._db.transaction() as conn:
            clock = clock or TurnClock()
            game = await self._changed(
                conn,
                "UPDATE games SET status = 'running', config = $1, position = $2, "
                "updated_at = $3, board_message_seq = NULL, rev = rev + 1, "
                "turn_started_at = $5, remind_at = $6, due_at = $7 "
                "WHERE id = $4 AND status = 'lobby' AND seq = 0",
                json_to_column(config),
                json_to_column(position),
                time_to_column(now),
                game_id,
                time_to_column(clock.turn_started_at),
                time_to_column(clock.remind_at),
                time_to_column(clock.due_at),
            )
            if game is None:
                raise StaleSeqError(game_id, 0)
            await conn.executemany(
                "UPDATE seats SET seat = $1 WHERE game_id = $2 AND id = $3",
                [(seat, game_id, key) for seat, key in enumerate(seat_keys)],
            )
            return game

    async def append_actions(
        self,
        game_id: int,
        expected_seq: int,
        actions: Sequence[NewAction],
        position: Any,
        now: datetime,
        *,
        status: GameStatus = GameStatus.RUNNING,
        clock: TurnClock | None = None,
        controls: Sequence[SeatControl] = (),
        results: Sequence[ResultRow] = (),
        rated_in: int | None = None,
    ) -> GameRow:
        """Append actions after `expected_seq` and store the new snapshot, atomically, with the
        turn's new clock (None: unchanged), seat control changes and, at the end, the results
        and, for a game the ratings of server `rated_in` count, its place in the order of that
        server's rated games (bot.storage.ratings).

        Raises StaleSeqError (and changes nothing) if another writer got there first.
        """
        over = status is GameStatus.OVER
        if over:
            clock = TurnClock()
        new_clock = clock or TurnClock()
        async with self._db.transaction() as conn:
            # One guarded UPDATE moves the game on: seq, snapshot, status, clock, the end's
            # reason and the seats' revision together.
            game = await self._changed(
                conn,
                "UPDATE games SET seq = seq + $1, position = $2, status = $3, updated_at = $4, "
                "turn_started_at = CASE WHEN $7 THEN $8 ELSE turn_started_at END, "
                "remind_at = CASE WHEN $7 THEN $9 ELSE remind_at END, "
                "due_at = CASE WHEN $7 THEN $10 ELSE due_at END, "
                "end_reason = CASE WHEN $11 THEN $12 ELSE end_reason END, rev = rev + $13 "
                "WHERE id = $5 AND seq = $6 AND status = 'running'",
                len(actions),
                json_to_column(position),
                status.value,
                time_to_column(now),
                game_id,
                expected_seq,
                clock is not None,
                time_to_column(new_clock.turn_started_at),
                time_to_column(new_clock.remind_at),
                time_to_column(new_clock.due_at),
                over,
                EndReason.FINISHED.value,
                1 if controls else 0,
            )
            if game is None:
                raise StaleSeqError(game_id, expected_seq)
            await conn.executemany(
                "INSERT INTO actions (game_id, seq, kind, notation, seat, actor_id, created_at) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7)",
                [
                    (
                        game_id,
                        expected_seq + offset,
                        action.kind,
                        action.notation,
                        action.resigned_seat,
                        action.actor_id,
                        time_to_column(now),
                    )
                    for offset, action in enumerate(actions, start=1)
                ],
            )
            for action in actions:
                if action.resigned_seat is not None:
                    await conn.execute(
                        "UPDATE seats SET resigned = 1 WHERE game_id = $1 AND seat = $2",
                        game_id,
                        action.resigned_seat,
                    )
            await _set_controls(conn, game_id, controls)
            await _insert_results(conn, game_id, results)
            if over and rated_in is not None:
                await queue_rated_game(conn, rated_in, game_id)
            return game

    async def end(
        self,
        game_id: int,
        status: GameStatus,
        reason: EndReason,
        ended_by: int | None,
        now: datetime,
    ) -> GameRow:
        """Close an open game (aborted or cancelled lobby); the row and its log are kept."""
        async with self._db.single_write() as conn:
            game = await self._changed(
                conn,
                "UPDATE games SET status = $1, end_reason = $2, ended_by = $3, updated_at = $4, "
                "remind_at = NULL, due_at = NULL "
                "WHERE id = $5 AND status IN ('lobby', 'running')",
                status.value,
                str(reason),
                ended_by,
                time_to_column(now),
                game_id,
            )
        if game is None:
            raise StaleSeqError(game_id, -1)
        return game

    async def actions(self, game_id: int) -> list[ActionRow]:
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                "SELECT seq, notation, seat, actor_id, created_at FROM actions "
                "WHERE game_id = $1 ORDER BY seq",
                game_id,
            )
        return [_action(row) for row in rows]

    async def set_board_message(self, game_id: int, message_id: int, seq: int) -> GameRow | None:
        """Remember which message shows the game now, and at which seq; never a message older
        than the one recorded (a slow post finishing after a newer one). A message recorded
        while the game is a lobby is also kept as its lobby message. The game as stored, or
        None if it was not (an older message)."""
        async with self._db.single_write() as conn:
            return await self._changed(
                conn,
                "UPDATE games SET board_message_id = $1, board_message_seq = $2, "
                "lobby_message_id = CASE WHEN status = 'lobby' THEN $1 ELSE lobby_message_id END "
                "WHERE id = $3 AND (board_message_seq IS NULL OR board_message_seq <= $2)",
                message_id,
                seq,
                game_id,
            )

    async def set_reminder_message(self, game_id: int, message_id: int | None) -> None:
        """Remember the reminder sent for the turn being played (None: none is out)."""
        async with self._db.single_write() as conn:
            await conn.execute(
                "UPDATE games SET reminder_message_id = $1 WHERE id = $2", message_id, game_id
            )

    async def set_clock(
        self,
        game_id: int,
        expected_seq: int,
        clock: TurnClock,
        controls: Sequence[SeatControl] = (),
    ) -> GameRow:
        """Change the running game's clock (and seat controls) while it is still at
        `expected_seq`; StaleSeqError otherwise."""
        # Seat controls are a second statement, to run in the same transaction.
        writing = self._db.transaction() if controls else self._db.single_write()
        async with writing as conn:
            # One guarded UPDATE, so a writer that moved the game on meanwhile is seen.
            game = await self._changed(
                conn,
                "UPDATE games SET turn_started_at = $1, remind_at = $2, due_at = $3, "
                "rev = rev + $6 WHERE id = $4 AND seq = $5 AND status = 'running'",
                time_to_column(clock.turn_started_at),
                time_to_column(clock.remind_at),
                time_to_column(clock.due_at),
                game_id,
                expected_seq,
                1 if controls else 0,
            )
            if game is None:
                raise StaleSeqError(game_id, expected_seq)
            await _set_controls(conn, game_id, controls)
            return game

    async def finished_without_results(self) -> list[int]:
        """Finished games that have no results (they ended before results were kept)."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                "SELECT id FROM games WHERE status = 'over' AND NOT EXISTS "
                "(SELECT 1 FROM results WHERE results.game_id = games.id) ORDER BY id"
            )
        return [int(row[0]) for row in rows]

    async def add_results(self, game_id: int, results: Sequence[ResultRow]) -> None:
        async with self._db.transaction() as conn:  # executemany: several statements
            await _insert_results(conn, game_id, results)

    async def due(self, now: datetime) -> list[GameRow]:
        """Running games shown up to date whose reminder or automatic move is due by `now`."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE status = 'running' "
                f"AND {_SHOWN} AND (due_at <= $1 OR remind_at <= $1) "
                f"ORDER BY {_FIRST_DUE}, id",
                time_to_column(now),
            )
        return [_game(row) for row in rows]

    async def next_due(
        self, now: datetime | None = None, owner: str | None = None
    ) -> datetime | None:
        """The earliest reminder or automatic move of a running game shown up to date (given
        `now` and `owner`: leaving out the games another process holds a claim on)."""
        query = (
            f"SELECT min({_FIRST_DUE}) FROM games WHERE status = 'running' AND {_SHOWN} "
            "AND (due_at IS NOT NULL OR remind_at IS NOT NULL)"
        )
        async with self._db.single_read() as conn:
            if now is None:
                first = await conn.fetchval(query)
            else:
                first = await conn.fetchval(f"{query} AND {_UNCLAIMED}", time_to_column(now), owner)
        return time_from_column(None if first is None else str(first))

    async def next_lease_end(self, now: datetime, owner: str) -> datetime | None:
        """When the first claim another process holds at `now` runs out (the work it claimed is
        either done by then or free for others to take)."""
        async with self._db.single_read() as conn:
            first = await conn.fetchval(
                "SELECT min(claimed_until) FROM games WHERE claimed_until > $1 "
                "AND claimed_by IS DISTINCT FROM $2",
                time_to_column(now),
                owner,
            )
        return time_from_column(None if first is None else str(first))

    async def next_moments(
        self, now: datetime, owner: str, shards: ShardSet = ALL_SHARDS
    ) -> NextMoments:
        """`next_due` (of the games in `shards`, and apart of the others), `oldest_unshown`
        and `next_lease_end` for `owner` at `now`, read in one statement."""
        async with self._db.single_read() as conn:
            row = await conn.fetchrow(
                f"SELECT ({_FIRST_DUE_SHOWN} AND {_MINE_TO_PLAN}) AS due, "
                f"({_FIRST_DUE_SHOWN} AND NOT {_MINE_TO_PLAN}) AS due_elsewhere, "
                "(SELECT min(updated_at) FROM games WHERE status IN ('running', 'over') "
                f"AND {_NOT_SHOWN} AND {_UNCLAIMED}) AS oldest_unshown, "
                "(SELECT min(claimed_until) FROM games WHERE claimed_until > $1 "
                "AND claimed_by IS DISTINCT FROM $2) AS lease_end",
                time_to_column(now),
                owner,
                shards.pattern(),
                shards.count,
            )
        assert row is not None
        due_at, unshown, lease_end, elsewhere = (
            time_from_column(None if row[column] is None else str(row[column]))
            for column in ("due", "oldest_unshown", "lease_end", "due_elsewhere")
        )
        return NextMoments(due_at, unshown, lease_end, elsewhere)

    async def claim_due(
        self,
        now: datetime,
        changed_by: datetime,
        owner: str,
        until: datetime,
        limit: int,
        shards: ShardSet = ALL_SHARDS,
        others_by: datetime | None = None,
    ) -> list[GameRow]:
        """Claim for `owner` until `until`, in one statement, at most `limit` games with due
        work that no other process holds: running games shown up to date whose reminder or
        automatic move is due by `now` (by `others_by` for a game outside `shards`: its own
        process has it first), and started games whose last change, made by `changed_by`, is
        still not shown. The games claimed, oldest first.

        On PostgreSQL the candidate rows are locked as they are picked and rows another
        process is claiming are skipped; SQLite serialises its write transactions."""
        lock = " FOR UPDATE SKIP LOCKED" if self._db.backend == "postgres" else ""
        async with self._db.single_write() as conn:
            rows = await conn.fetch(
                "UPDATE games SET claimed_by = $2, claimed_until = $3 WHERE id IN ("
                "SELECT id FROM games WHERE (("
                f"status = 'running' AND {_SHOWN} AND (due_at <= $1 OR remind_at <= $1) "
                f"AND ({_MINE_TO_CLAIM} OR due_at <= $6 OR remind_at <= $6)) "
                f"OR (status IN ('running', 'over') AND {_NOT_SHOWN} AND updated_at <= $4)) "
                f"AND {_UNCLAIMED} ORDER BY id LIMIT $5{lock}) "
                f"RETURNING {_GAME_COLUMNS}",
                time_to_column(now),
                owner,
                time_to_column(until),
                time_to_column(changed_by),
                limit,
                time_to_column(now if others_by is None else others_by),
                shards.pattern(),
                shards.count,
            )
        return sorted((_game(row) for row in rows), key=lambda game: game.id)

    async def claim(self, game_id: int, now: datetime, owner: str, until: datetime) -> bool:
        """Claim the game for `owner` until `until` unless another process holds it at `now`;
        True if claimed."""
        async with self._db.single_write() as conn:
            claimed = await conn.execute(
                "UPDATE games SET claimed_by = $2, claimed_until = $3 "
                f"WHERE id = $4 AND {_UNCLAIMED}",
                time_to_column(now),
                owner,
                time_to_column(until),
                game_id,
            )
            return claimed == 1

    async def release_claim(self, game_id: int, owner: str) -> None:
        """Give up `owner`'s claim on the game (nothing if another holds it now); the other
        processes look at the game's due work again."""
        async with self._db.single_write() as conn:
            await self._changed(
                conn,
                "UPDATE games SET claimed_by = NULL, claimed_until = NULL "
                "WHERE id = $1 AND claimed_by = $2",
                game_id,
                owner,
            )

    async def drop_claims(self) -> int:
        """Give up every claim, whoever holds it: for a database only one process uses (SQLite),
        at its start, when the claims left are those of a run that stopped. How many."""
        async with self._db.single_write() as conn:
            return await conn.execute(
                "UPDATE games SET claimed_by = NULL, claimed_until = NULL "
                "WHERE claimed_by IS NOT NULL"
            )

    async def mark_reminded(self, game_id: int, expected_seq: int) -> GameRow | None:
        """Mark the reminder of the running game's turn at `expected_seq` as sent; the game,
        or None if it moved on or its reminder was marked sent already (by another process):
        of two racing callers, one only gets the game."""
        async with self._db.single_write() as conn:
            return await self._changed(
                conn,
                "UPDATE games SET remind_at = NULL WHERE id = $1 AND seq = $2 "
                "AND status = 'running' AND remind_at IS NOT NULL",
                game_id,
                expected_seq,
            )

    async def snapshot(self, game_id: int) -> tuple[GameRow, list[SeatRow], list[ActionRow]] | None:
        """The game's row, seats and action log read together, as of one moment (None: no such
        game)."""
        async with self._db.reading() as conn:
            game = await _maybe_game(conn, "WHERE id = $1", game_id)
            if game is None:
                return None
            seats = await _fetch_seats(conn, game_id)
            rows = await conn.fetch(
                "SELECT seq, notation, seat, actor_id, created_at FROM actions "
                "WHERE game_id = $1 ORDER BY seq",
                game_id,
            )
        actions = [_action(row) for row in rows]
        return game, seats, actions

    async def listen(self, callback: Callable[[], None]) -> None:
        """Call `callback` whenever another process commits a change to a turn clock or to what
        a game's message shows (this process knows its own changes), and whenever the listening
        connection was (re)opened, since it may have missed some; run until cancelled.
        PostgreSQL only: SQLite serves one process, which is told in memory, so there it
        returns at once."""
        from bot.storage.postgres import PostgresDatabase  # only PostgreSQL needs asyncpg

        if isinstance(self._db, PostgresDatabase):
            await self._db.listen(SCHEDULE_CHANNEL, callback)

    async def _changed(self, conn: Connection, update: str, *args: object) -> GameRow | None:
        """Run `update`, an UPDATE of one game by its id, and return the game's row as the
        update left it (None: no row matched); on PostgreSQL the same statement tells the
        listening processes, on commit, that the schedule changed."""
        notify = _NOTIFY if self._db.backend == "postgres" else ""
        row = await conn.fetchrow(f"{update} RETURNING {_GAME_COLUMNS}{notify}", *args)
        return None if row is None else _game(row)

    async def unshown(self, changed_by: datetime) -> list[GameRow]:
        """Started games (running or over) whose last change, made by `changed_by`, is still not
        shown: the message that should show it failed to post (or the bot stopped first)."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE status IN ('running', 'over') "
                f"AND {_NOT_SHOWN} AND updated_at <= $1 ORDER BY updated_at, id",
                time_to_column(changed_by),
            )
        return [_game(row) for row in rows]

    async def oldest_unshown(
        self, now: datetime | None = None, owner: str | None = None
    ) -> datetime | None:
        """When the oldest change not yet shown of a started game was made (given `now` and
        `owner`: leaving out the games another process holds a claim on)."""
        query = (
            "SELECT min(updated_at) FROM games WHERE status IN ('running', 'over') "
            f"AND {_NOT_SHOWN}"
        )
        async with self._db.single_read() as conn:
            if now is None:
                oldest = await conn.fetchval(query)
            else:
                oldest = await conn.fetchval(
                    f"{query} AND {_UNCLAIMED}", time_to_column(now), owner
                )
        return time_from_column(None if oldest is None else str(oldest))

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


async def _maybe_game(conn: Connection, where: str, *args: object) -> GameRow | None:
    row = await conn.fetchrow(f"SELECT {_GAME_COLUMNS} FROM games {where}", *args)
    return None if row is None else _game(row)


async def _fetch_seats(conn: Connection, game_id: int) -> list[SeatRow]:
    rows = await conn.fetch(
        "SELECT id, user_id, ai_level, seat, joined_at, resigned, timeouts, autoplay, "
        "display_name FROM seats WHERE game_id = $1 "
        "ORDER BY seat IS NULL, seat, joined_at, id",
        game_id,
    )
    return [_seat(row) for row in rows]


async def _seats_changed(conn: Connection, game_id: int, now: datetime) -> None:
    """The lobby's seats changed: its message no longer shows it (until the edit is stored)."""
    await conn.execute(
        "UPDATE games SET updated_at = $1, board_message_seq = NULL, rev = rev + 1 WHERE id = $2",
        time_to_column(now),
        game_id,
    )


async def _set_controls(conn: Connection, game_id: int, controls: Sequence[SeatControl]) -> None:
    """Change seats' controls (the caller bumps the game's `rev` in its own UPDATE)."""
    if not controls:
        return
    await conn.executemany(
        "UPDATE seats SET timeouts = $1, autoplay = $2 WHERE game_id = $3 AND seat = $4",
        [(control.timeouts, int(control.autoplay), game_id, control.seat) for control in controls],
    )


async def _insert_results(conn: Connection, game_id: int, results: Sequence[ResultRow]) -> None:
    if not results:
        return
    await conn.executemany(
        "INSERT INTO results (game_id, seat, user_id, ai_level, color, score, dirhams, place, "
        "won, eliminated) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        [
            (
                game_id,
                r.seat,
                r.user_id,
                r.ai_level,
                r.color,
                r.score,
                r.dirhams,
                r.place,
                int(r.won),
                int(r.eliminated),
            )
            for r in results
        ],
    )
