"""The game repository: games, seats and the append-only action log, one transaction per call.

Every value that comes from a user reaches SQL only as a bound parameter.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

import aiosqlite

from bot.storage.database import Database
from bot.storage.kinds import EndReason, GameStatus, TurnClock


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
    config: str | None
    seed: str
    seed_sha256: str
    seq: int
    position: str | None
    board_message_id: int | None
    board_message_seq: int | None
    end_reason: str | None
    ended_by: int | None
    created_at: str
    updated_at: str
    turn_started_at: str | None = None
    remind_at: str | None = None
    due_at: str | None = None
    locale: str = "en"
    """The language of the game's public messages (bot.presentation.messages.LANGUAGES)."""
    lobby_message_id: int | None = None
    """The lobby's message, which goes on pointing at the game once it started."""
    reminder_message_id: int | None = None
    """The reminder sent for the turn being played, if one is out."""


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A seat: a Discord user, or an AI (`ai_level`); `key` identifies the row itself.

    `display_name` is the name the user was shown by when they took the seat (None for an AI,
    and for seats taken before names were kept).
    """

    user_id: int | None
    ai_level: str | None
    seat: int | None
    joined_at: str
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
    created_at: str


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
    "lobby_message_id, reminder_message_id"
)


def _game(row: sqlite3.Row) -> GameRow:
    values = dict(row)
    values["status"] = GameStatus(values["status"])
    return GameRow(**values)


def _seat(row: sqlite3.Row) -> SeatRow:
    return SeatRow(
        user_id=row["user_id"],
        ai_level=row["ai_level"],
        seat=row["seat"],
        joined_at=row["joined_at"],
        resigned=bool(row["resigned"]),
        key=row["rowid"],
        timeouts=row["timeouts"],
        autoplay=bool(row["autoplay"]),
        display_name=row["display_name"],
    )


class GameStore:
    """Reads and writes games; each method is one transaction."""

    def __init__(self, database: Database) -> None:
        self._db = database

    @property
    def database(self) -> Database:
        return self._db

    async def create(self, new: NewGame, now: str) -> GameRow:
        """Insert a lobby with its host seated; ChannelBusyError if the channel has an open game."""
        async with self._db.transaction() as conn:
            try:
                cursor = await conn.execute(
                    "INSERT INTO games (guild_id, channel_id, host_id, status, seats_wanted, "
                    "variant, turn_limit_seconds, seed, seed_sha256, created_at, updated_at, "
                    "locale) "
                    "VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        new.guild_id,
                        new.channel_id,
                        new.host_id,
                        new.seats_wanted,
                        new.variant,
                        new.turn_limit_seconds,
                        new.seed,
                        new.seed_sha256,
                        now,
                        now,
                        new.locale,
                    ),
                )
            except sqlite3.IntegrityError as error:
                if "games.channel_id" in str(error):
                    raise ChannelBusyError(new.channel_id) from error
                raise
            game_id = cursor.lastrowid
            assert game_id is not None
            await conn.execute(
                "INSERT INTO seats (game_id, user_id, joined_at, display_name) VALUES (?, ?, ?, ?)",
                (game_id, new.host_id, now, new.host_name),
            )
            return await _fetch_game(conn, game_id)

    async def get(self, game_id: int) -> GameRow | None:
        async with self._db.reading() as conn:
            return await _maybe_game(conn, "WHERE id = ?", (game_id,))

    async def open_in_channel(self, channel_id: int) -> GameRow | None:
        """The channel's lobby or running game, if any."""
        async with self._db.reading() as conn:
            return await _maybe_game(
                conn, "WHERE channel_id = ? AND status IN ('lobby', 'running')", (channel_id,)
            )

    async def last_over_in_channel(self, channel_id: int) -> GameRow | None:
        """The channel's most recent game played to its end, if any."""
        async with self._db.reading() as conn:
            return await _maybe_game(
                conn,
                "WHERE channel_id = ? AND status = 'over' ORDER BY id DESC LIMIT 1",
                (channel_id,),
            )

    async def open_games_of(self, guild_id: int, user_id: int) -> list[GameRow]:
        """The server's lobbies and running games in which the user holds a seat (not
        resigned), oldest first."""
        async with (
            self._db.reading() as conn,
            conn.execute(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE guild_id = ? "
                "AND status IN ('lobby', 'running') AND id IN (SELECT game_id FROM seats "
                "WHERE user_id = ? AND resigned = 0) ORDER BY id",
                (guild_id, user_id),
            ) as cursor,
        ):
            return [_game(row) for row in await cursor.fetchall()]

    async def behind_on_display(self) -> list[GameRow]:
        """Started games (running, or over) whose message does not show their current seq,
        and lobbies whose message was never recorded or not updated since a join or leave."""
        async with (
            self._db.reading() as conn,
            conn.execute(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE (status IN ('running', 'over') "
                "AND board_message_seq IS NOT seq) "
                "OR (status = 'lobby' AND board_message_seq IS NULL) ORDER BY id"
            ) as cursor,
        ):
            return [_game(row) for row in await cursor.fetchall()]

    async def seats(self, game_id: int) -> list[SeatRow]:
        """The game's seats: in joining order in the lobby, in seat order once started."""
        async with self._db.reading() as conn:
            return await _fetch_seats(conn, game_id)

    async def add_seat(
        self, game_id: int, user_id: int, now: str, display_name: str | None = None
    ) -> list[SeatRow]:
        """Seat the user, with the name they are shown by (None: none known)."""
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO seats (game_id, user_id, joined_at, display_name) VALUES (?, ?, ?, ?)",
                (game_id, user_id, now, display_name),
            )
            await _seats_changed(conn, game_id, now)
            return await _fetch_seats(conn, game_id)

    async def add_ai_seat(self, game_id: int, level: str, now: str) -> list[SeatRow]:
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO seats (game_id, ai_level, joined_at) VALUES (?, ?, ?)",
                (game_id, level, now),
            )
            await _seats_changed(conn, game_id, now)
            return await _fetch_seats(conn, game_id)

    async def remove_seat_row(self, game_id: int, key: int, now: str) -> list[SeatRow]:
        """Remove one seat by its row key (an AI seat, which has no user id)."""
        async with self._db.transaction() as conn:
            await conn.execute("DELETE FROM seats WHERE game_id = ? AND rowid = ?", (game_id, key))
            await _seats_changed(conn, game_id, now)
            return await _fetch_seats(conn, game_id)

    async def remove_seat(self, game_id: int, user_id: int, now: str) -> list[SeatRow]:
        async with self._db.transaction() as conn:
            await conn.execute(
                "DELETE FROM seats WHERE game_id = ? AND user_id = ?", (game_id, user_id)
            )
            await _seats_changed(conn, game_id, now)
            return await _fetch_seats(conn, game_id)

    async def start(
        self,
        game_id: int,
        seat_keys: Sequence[int],
        config: str,
        position: str,
        now: str,
        clock: TurnClock | None = None,
    ) -> GameRow:
        """Lobby -> running: give each seat row (by key) its seat (list index), store the config
        and the first turn's clock.

        The lobby message no longer shows the game's current seq: until the first turn is
        posted, a crash leaves a display to catch up (whose first step strips the lobby's
        buttons).
        """
        async with self._db.transaction() as conn:
            cursor = await conn.execute(
                "UPDATE games SET status = 'running', config = ?, position = ?, updated_at = ?, "
                "board_message_seq = NULL "
                "WHERE id = ? AND status = 'lobby' AND seq = 0",
                (config, position, now, game_id),
            )
            if cursor.rowcount != 1:
                raise StaleSeqError(game_id, 0)
            for seat, key in enumerate(seat_keys):
                await conn.execute(
                    "UPDATE seats SET seat = ? WHERE game_id = ? AND rowid = ?",
                    (seat, game_id, key),
                )
            await _set_clock(conn, game_id, clock or TurnClock())
            return await _fetch_game(conn, game_id)

    async def append_actions(
        self,
        game_id: int,
        expected_seq: int,
        actions: Sequence[NewAction],
        position: str,
        now: str,
        *,
        status: GameStatus = GameStatus.RUNNING,
        clock: TurnClock | None = None,
        controls: Sequence[SeatControl] = (),
        results: Sequence[ResultRow] = (),
    ) -> GameRow:
        """Append actions after `expected_seq` and store the new snapshot, atomically, with the
        turn's new clock (None: unchanged), seat control changes and, at the end, the results.

        Raises StaleSeqError (and changes nothing) if another writer got there first.
        """
        async with self._db.transaction() as conn:
            cursor = await conn.execute(
                "UPDATE games SET seq = seq + ?, position = ?, status = ?, updated_at = ? "
                "WHERE id = ? AND seq = ? AND status = 'running'",
                (len(actions), position, status.value, now, game_id, expected_seq),
            )
            if cursor.rowcount != 1:
                raise StaleSeqError(game_id, expected_seq)
            await conn.executemany(
                "INSERT INTO actions (game_id, seq, kind, notation, seat, actor_id, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        game_id,
                        expected_seq + offset,
                        action.kind,
                        action.notation,
                        action.resigned_seat,
                        action.actor_id,
                        now,
                    )
                    for offset, action in enumerate(actions, start=1)
                ],
            )
            for action in actions:
                if action.resigned_seat is not None:
                    await conn.execute(
                        "UPDATE seats SET resigned = 1 WHERE game_id = ? AND seat = ?",
                        (game_id, action.resigned_seat),
                    )
            if status is GameStatus.OVER:
                await conn.execute(
                    "UPDATE games SET end_reason = ? WHERE id = ?", (EndReason.FINISHED, game_id)
                )
                clock = TurnClock()
            if clock is not None:
                await _set_clock(conn, game_id, clock)
            await _set_controls(conn, game_id, controls)
            await _insert_results(conn, game_id, results)
            return await _fetch_game(conn, game_id)

    async def end(
        self, game_id: int, status: GameStatus, reason: EndReason, ended_by: int | None, now: str
    ) -> GameRow:
        """Close an open game (aborted or cancelled lobby); the row and its log are kept."""
        async with self._db.transaction() as conn:
            cursor = await conn.execute(
                "UPDATE games SET status = ?, end_reason = ?, ended_by = ?, updated_at = ?, "
                "remind_at = NULL, due_at = NULL "
                "WHERE id = ? AND status IN ('lobby', 'running')",
                (status.value, reason, ended_by, now, game_id),
            )
            if cursor.rowcount != 1:
                raise StaleSeqError(game_id, -1)
            return await _fetch_game(conn, game_id)

    async def actions(self, game_id: int) -> list[ActionRow]:
        async with (
            self._db.reading() as conn,
            conn.execute(
                "SELECT seq, notation, seat, actor_id, created_at FROM actions "
                "WHERE game_id = ? ORDER BY seq",
                (game_id,),
            ) as cursor,
        ):
            return [
                ActionRow(
                    row["seq"], row["notation"], row["seat"], row["actor_id"], row["created_at"]
                )
                for row in await cursor.fetchall()
            ]

    async def set_board_message(self, game_id: int, message_id: int, seq: int) -> bool:
        """Remember which message shows the game now, and at which seq; never a message older
        than the one recorded (a slow post finishing after a newer one). A message recorded
        while the game is a lobby is also kept as its lobby message. True if stored."""
        async with self._db.transaction() as conn:
            cursor = await conn.execute(
                "UPDATE games SET board_message_id = ?, board_message_seq = ?, "
                "lobby_message_id = CASE WHEN status = 'lobby' THEN ? ELSE lobby_message_id END "
                "WHERE id = ? AND (board_message_seq IS NULL OR board_message_seq <= ?)",
                (message_id, seq, message_id, game_id, seq),
            )
            return cursor.rowcount == 1

    async def set_reminder_message(self, game_id: int, message_id: int | None) -> None:
        """Remember the reminder sent for the turn being played (None: none is out)."""
        async with self._db.transaction() as conn:
            await conn.execute(
                "UPDATE games SET reminder_message_id = ? WHERE id = ?", (message_id, game_id)
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
        async with self._db.transaction() as conn:
            cursor = await conn.execute(
                "SELECT 1 FROM games WHERE id = ? AND seq = ? AND status = 'running'",
                (game_id, expected_seq),
            )
            if await cursor.fetchone() is None:
                raise StaleSeqError(game_id, expected_seq)
            await _set_clock(conn, game_id, clock)
            await _set_controls(conn, game_id, controls)
            return await _fetch_game(conn, game_id)

    async def finished_without_results(self) -> list[int]:
        """Finished games that have no results (they ended before results were kept)."""
        async with (
            self._db.reading() as conn,
            conn.execute(
                "SELECT id FROM games WHERE status = 'over' AND NOT EXISTS "
                "(SELECT 1 FROM results WHERE results.game_id = games.id) ORDER BY id"
            ) as cursor,
        ):
            return [int(row[0]) for row in await cursor.fetchall()]

    async def add_results(self, game_id: int, results: Sequence[ResultRow]) -> None:
        async with self._db.transaction() as conn:
            await _insert_results(conn, game_id, results)

    async def due(self, now: str) -> list[GameRow]:
        """Running games shown up to date whose reminder or automatic move is due by `now`."""
        async with (
            self._db.reading() as conn,
            conn.execute(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE status = 'running' "
                "AND board_message_seq IS seq AND (due_at <= ? OR remind_at <= ?) "
                "ORDER BY min(coalesce(due_at, remind_at), coalesce(remind_at, due_at)), id",
                (now, now),
            ) as cursor,
        ):
            return [_game(row) for row in await cursor.fetchall()]

    async def next_due(self) -> str | None:
        """The earliest reminder or automatic move of a running game shown up to date."""
        query = (
            "SELECT min(min(coalesce(due_at, remind_at), coalesce(remind_at, due_at))) "
            "FROM games WHERE status = 'running' AND board_message_seq IS seq "
            "AND (due_at IS NOT NULL OR remind_at IS NOT NULL)"
        )
        async with self._db.reading() as conn, conn.execute(query) as cursor:
            row = await cursor.fetchone()
        return None if row is None or row[0] is None else str(row[0])

    async def unshown(self, changed_by: str) -> list[GameRow]:
        """Started games (running or over) whose last change, made by `changed_by`, is still not
        shown: the message that should show it failed to post (or the bot stopped first)."""
        async with (
            self._db.reading() as conn,
            conn.execute(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE status IN ('running', 'over') "
                "AND board_message_seq IS NOT seq AND updated_at <= ? ORDER BY updated_at, id",
                (changed_by,),
            ) as cursor,
        ):
            return [_game(row) for row in await cursor.fetchall()]

    async def oldest_unshown(self) -> str | None:
        """When the oldest change not yet shown of a started game was made."""
        query = (
            "SELECT min(updated_at) FROM games WHERE status IN ('running', 'over') "
            "AND board_message_seq IS NOT seq"
        )
        async with self._db.reading() as conn, conn.execute(query) as cursor:
            row = await cursor.fetchone()
        return None if row is None or row[0] is None else str(row[0])

    async def get_meta(self, key: str) -> str | None:
        query = "SELECT value FROM bot_meta WHERE key = ?"
        async with self._db.reading() as conn, conn.execute(query, (key,)) as cursor:
            row = await cursor.fetchone()
        return None if row is None else str(row[0])

    async def set_meta(self, key: str, value: str) -> None:
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO bot_meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )


async def _maybe_game(
    conn: aiosqlite.Connection, where: str, params: tuple[object, ...]
) -> GameRow | None:
    async with conn.execute(f"SELECT {_GAME_COLUMNS} FROM games {where}", params) as cursor:
        row = await cursor.fetchone()
    return None if row is None else _game(row)


async def _fetch_game(conn: aiosqlite.Connection, game_id: int) -> GameRow:
    game = await _maybe_game(conn, "WHERE id = ?", (game_id,))
    assert game is not None
    return game


async def _fetch_seats(conn: aiosqlite.Connection, game_id: int) -> list[SeatRow]:
    async with conn.execute(
        "SELECT rowid, user_id, ai_level, seat, joined_at, resigned, timeouts, autoplay, "
        "display_name FROM seats WHERE game_id = ? "
        "ORDER BY seat IS NULL, seat, joined_at, rowid",
        (game_id,),
    ) as cursor:
        return [_seat(row) for row in await cursor.fetchall()]


async def _seats_changed(conn: aiosqlite.Connection, game_id: int, now: str) -> None:
    """The lobby's seats changed: its message no longer shows it (until the edit is stored)."""
    await conn.execute(
        "UPDATE games SET updated_at = ?, board_message_seq = NULL WHERE id = ?", (now, game_id)
    )


async def _set_clock(conn: aiosqlite.Connection, game_id: int, clock: TurnClock) -> None:
    await conn.execute(
        "UPDATE games SET turn_started_at = ?, remind_at = ?, due_at = ? WHERE id = ?",
        (clock.turn_started_at, clock.remind_at, clock.due_at, game_id),
    )


async def _set_controls(
    conn: aiosqlite.Connection, game_id: int, controls: Sequence[SeatControl]
) -> None:
    for control in controls:
        await conn.execute(
            "UPDATE seats SET timeouts = ?, autoplay = ? WHERE game_id = ? AND seat = ?",
            (control.timeouts, int(control.autoplay), game_id, control.seat),
        )


async def _insert_results(
    conn: aiosqlite.Connection, game_id: int, results: Sequence[ResultRow]
) -> None:
    await conn.executemany(
        "INSERT INTO results (game_id, seat, user_id, ai_level, color, score, dirhams, place, "
        "won, eliminated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
