"""A game's rows as the game store reads and writes them (games, seats, the action log,
results), the SQL the store's parts share, and their base (`GameTable`).

The store is split by what its readers need (bot/storage/games.py); they all read the same
`games` row, so its columns, its conditions (shown, claimed, in a process's shards) and its
conversion live here once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.storage.database import Connection, Database, Row
from bot.storage.kinds import AiFor, GameStatus
from bot.storage.values import (
    UnreadableJson,
    json_from_column,
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
    nudge_message_id: int | None = None
    """The ping of a player's nudge for the turn being played, if one is out."""
    tournament_id: int | None = None
    """The tournament whose table the game is (None: an ordinary game)."""
    rev: int = 0
    """Counts the changes to the game's seats (the row alone would not show them)."""
    casual: bool = False
    """Opened as casual: no rating counts it."""
    coach: bool = False
    """Opened with the coach (hints and verdicts); always casual."""


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
    stands_in_for: int | None = None
    """Once the seat was handed to a substitute: the person who left it first, whom the game
    rates for it (docs/async.md#substitutes); None while its first person holds it."""
    left_with_out: int | None = None
    """With `stands_in_for`: how many seats were out of the game when that person left."""
    hints_used: int = 0
    """In a coached game: the hints its person has asked for (bot.storage.hints)."""


@dataclass(frozen=True, slots=True)
class SeatControl:
    """A seat's timeouts in a row and whether the AI plays it for the rest of the game."""

    seat: int
    timeouts: int
    autoplay: bool


@dataclass(frozen=True, slots=True)
class SeatHolder:
    """A person's seat as a write read it: who holds it, their timeouts in a row and whether
    the AI plays it. A rejoin and a hand-over change it without moving the game's seq."""

    seat: int
    user_id: int
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
    rated_place: int | None = None
    """In a game with a substitute: the seat's place among the rated players (None: `place`)."""
    finished_by: int | None = None
    """The substitute who played the seat to its end (`user_id` is then the person who left)."""
    finished_place: int | None = None
    """With `finished_by`: the place the seat itself finished at."""


@dataclass(frozen=True, slots=True)
class ActionRow:
    """One log entry: an action notation, or the resignation of `resigned_seat`."""

    seq: int
    notation: str | None
    resigned_seat: int | None
    actor_id: int | None
    created_at: datetime
    ai_for: AiFor | None = None
    """For a move the AI made for a person: why, as recorded with it (None: not such a move,
    or logged before the reason was kept)."""


@dataclass(frozen=True, slots=True)
class NextMoments:
    """When a process's scheduler next has something to look at (None: nothing of the kind)."""

    due: datetime | None
    """The earliest reminder or automatic move of a running game shown up to date."""
    oldest_unshown: datetime | None
    """When the oldest change not yet shown of a started game was made (of a game in a
    shard the process holds)."""
    lease_end: datetime | None
    """When the first claim another process holds runs out."""
    due_elsewhere: datetime | None = None
    """The earliest reminder or automatic move of a game in a shard the process does not hold
    (its own process has it first: bot.services.turn_clock)."""
    held: datetime | None = None
    """When the next notice held during quiet hours is to go, or a claim on one runs out
    (bot.storage.away)."""
    unshown_elsewhere: datetime | None = None
    """When the oldest change not yet shown of a game in a shard the process does not hold was
    made (its own process has it first, as `due_elsewhere`)."""


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
    coach: bool = False
    """With the coach's hints and verdicts (the caller makes it casual too)."""
    ai_levels: tuple[str, ...] = ()
    """The AI seats it opens with, after the host's, in this order (a rematch's)."""


@dataclass(frozen=True, slots=True)
class NewAction:
    """A log entry to append: an action notation, or (notation None) a resignation."""

    notation: str | None
    actor_id: int | None
    resigned_seat: int | None = None
    ai_for: AiFor | None = None
    """For a move the AI makes for a person: why (kept with the move)."""

    @property
    def kind(self) -> str:
        return "action" if self.notation is not None else "resign"


GAME_COLUMNS = (
    "id, guild_id, channel_id, host_id, status, seats_wanted, variant, turn_limit_seconds, "
    "config, seed, seed_sha256, seq, position, board_message_id, board_message_seq, "
    "end_reason, ended_by, created_at, updated_at, turn_started_at, remind_at, due_at, locale, "
    "lobby_message_id, reminder_message_id, nudge_message_id, rev, casual, coach, tournament_id"
)
ACTION_COLUMNS = "seq, notation, seat, actor_id, created_at, ai_for, ai_in_a_row"
"""The columns of a log entry that `action_of` reads."""
GAME_FIELDS = tuple(column.strip() for column in GAME_COLUMNS.split(","))
SHOWN = "board_message_seq IS NOT DISTINCT FROM seq"
"""The game's message shows its current seq."""
NOT_SHOWN = "board_message_seq IS DISTINCT FROM seq"
FIRST_DUE = "CASE WHEN due_at IS NULL OR remind_at < due_at THEN remind_at ELSE due_at END"
"""The earlier of the reminder and the automatic move (either may be NULL)."""
UNCLAIMED = "(claimed_until IS NULL OR claimed_until <= $1 OR claimed_by = $2)"
"""Free for the process `$2` at `$1`: not claimed, its lease ran out, or claimed by it."""


def in_shards(pattern: str, count: str) -> str:
    """SQL: the game's server is in one of the shards `pattern` lists (ShardSet.pattern) of
    `count` (both placeholders), in terms both back ends read alike."""
    return (
        f"({pattern} LIKE '%,' || CAST(((COALESCE(guild_id, 0) >> 22) % {count}) AS TEXT) || ',%')"
    )


MINE_TO_CLAIM = in_shards("$7", "$8")
MINE_TO_PLAN = in_shards("$3", "$4")
FIRST_DUE_SHOWN = (
    f"SELECT min({FIRST_DUE}) FROM games WHERE status = 'running' "
    f"AND {SHOWN} AND (due_at IS NOT NULL OR remind_at IS NOT NULL) AND {UNCLAIMED}"
)
"""The earliest reminder or automatic move of the running games shown up to date that the
process `$2` may claim at `$1` (a condition on the games may follow)."""
FIRST_UNSHOWN = (
    "SELECT min(updated_at) FROM games WHERE status IN ('running', 'over') "
    f"AND {NOT_SHOWN} AND {UNCLAIMED}"
)
"""When the oldest change not yet shown was made, of the started games the process `$2` may
claim at `$1` (a condition on the games may follow)."""
SCHEDULE_CHANNEL = "marrakech_schedule"
"""The PostgreSQL channel notified when a turn clock or what a game's message shows changes."""
NOTIFY = f", pg_notify('{SCHEDULE_CHANNEL}', '') AS notified"
"""Added to a write's RETURNING on PostgreSQL: NOTIFY SCHEDULE_CHANNEL (once per row written),
in the write's own statement."""


def game_of(row: Row) -> GameRow:
    values = {column: row[column] for column in GAME_FIELDS}
    values["status"] = GameStatus(values["status"])
    values["casual"] = bool(values["casual"])
    values["coach"] = bool(values["coach"])
    for column in ("config", "position"):
        if values[column] is not None:
            values[column] = json_from_column(values[column])
    for column in ("created_at", "updated_at", "turn_started_at", "remind_at", "due_at"):
        values[column] = time_from_column(values[column])
    return GameRow(**values)


def seat_of(row: Row) -> SeatRow:
    """A seat from its row (read with every column: a database still at a schema older than
    the substitutes' columns reads none there)."""
    columns = set(row.keys())
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
        stands_in_for=row["stands_in_for"] if "stands_in_for" in columns else None,
        left_with_out=row["left_with_out"] if "left_with_out" in columns else None,
        hints_used=row["hints_used"] if "hints_used" in columns else 0,
    )


def action_of(row: Row) -> ActionRow:
    return ActionRow(
        row["seq"],
        row["notation"],
        row["seat"],
        row["actor_id"],
        time_from_column(row["created_at"]),
        AiFor(row["ai_for"], row["ai_in_a_row"]) if row["ai_for"] is not None else None,
    )


class GameTable:
    """What every part of the game store stands on: its database, and the UPDATE of one game
    that returns the game's row."""

    def __init__(self, database: Database) -> None:
        self._db = database

    @property
    def database(self) -> Database:
        return self._db

    async def _changed(self, conn: Connection, update: str, *args: object) -> GameRow | None:
        """Run `update`, an UPDATE of one game by its id, and return the game's row as the
        update left it (None: no row matched); on PostgreSQL the same statement tells the
        listening processes, on commit, that the schedule changed."""
        notify = NOTIFY if self._db.backend == "postgres" else ""
        row = await conn.fetchrow(f"{update} RETURNING {GAME_COLUMNS}{notify}", *args)
        return None if row is None else game_of(row)


async def maybe_game(conn: Connection, where: str, *args: object) -> GameRow | None:
    row = await conn.fetchrow(f"SELECT {GAME_COLUMNS} FROM games {where}", *args)
    return None if row is None else game_of(row)


async def fetch_seats(conn: Connection, game_id: int) -> list[SeatRow]:
    rows = await conn.fetch(
        "SELECT * FROM seats WHERE game_id = $1 ORDER BY seat IS NULL, seat, joined_at, id",
        game_id,
    )
    return [seat_of(row) for row in rows]


async def seats_changed(conn: Connection, game_id: int, now: datetime) -> None:
    """The lobby's seats changed: its message no longer shows it (until the edit is stored)."""
    await conn.execute(
        "UPDATE games SET updated_at = $1, board_message_seq = NULL, rev = rev + 1 WHERE id = $2",
        time_to_column(now),
        game_id,
    )


async def set_controls(conn: Connection, game_id: int, controls: Sequence[SeatControl]) -> None:
    """Change seats' controls (the caller bumps the game's `rev` in its own UPDATE). A seat
    the AI played and no longer does is marked as taken back and not yet told."""
    if not controls:
        return
    await conn.executemany(
        "UPDATE seats SET timeouts = $1, autoplay = $2, rejoin_shown = CASE WHEN autoplay = 1 "
        "AND $2 = 0 THEN 0 ELSE rejoin_shown END WHERE game_id = $3 AND seat = $4",
        [(control.timeouts, int(control.autoplay), game_id, control.seat) for control in controls],
    )


async def insert_results(conn: Connection, game_id: int, results: Sequence[ResultRow]) -> None:
    if not results:
        return
    await conn.executemany(
        "INSERT INTO results (game_id, seat, user_id, ai_level, color, score, dirhams, place, "
        "won, eliminated, rated_place, finished_by, finished_place) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
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
                r.rated_place,
                r.finished_by,
                r.finished_place,
            )
            for r in results
        ],
    )
