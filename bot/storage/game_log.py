"""Games, their seats and their append-only action log: what the lobby, play and the loader
read and write. A game's moves are appended guarded by its seq (`StaleSeqError` when another
writer moved it on first, and for the AI's moves for a person, when their seat was taken back
or handed over meanwhile), each move the AI made for a person with why it did (`AiFor`), and
its end writes its results and, when it counts, queues it for the ratings in the same
transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from bot.storage.database import Connection, UniqueViolation
from bot.storage.game_rows import (
    ACTION_COLUMNS,
    GAME_COLUMNS,
    ActionRow,
    ChannelBusyError,
    GameRow,
    GameTable,
    NewAction,
    NewGame,
    ResultRow,
    SeatControl,
    SeatHolder,
    SeatRow,
    StaleSeqError,
    action_of,
    fetch_seats,
    game_of,
    insert_results,
    maybe_game,
    seats_changed,
    set_controls,
)
from bot.storage.kinds import EndReason, GameStatus, TurnClock
from bot.storage.ratings import queue_rated_game
from bot.storage.values import json_to_column, time_to_column


class GameLog(GameTable):
    """Games, seats and the log; each method is one transaction."""

    async def create(self, new: NewGame, now: datetime) -> GameRow:
        """Insert a lobby with its host seated, then its AI seats (`new.ai_levels`), in one
        transaction; ChannelBusyError if the channel has an open game."""
        async with self._db.transaction() as conn:
            try:
                row = await conn.fetchrow(
                    "INSERT INTO games (guild_id, channel_id, host_id, status, seats_wanted, "
                    "variant, turn_limit_seconds, seed, seed_sha256, created_at, updated_at, "
                    "locale, casual, coach) "
                    "VALUES ($1, $2, $3, 'lobby', $4, $5, $6, $7, $8, $9, $9, $10, $11, $12) "
                    f"RETURNING {GAME_COLUMNS}",
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
                    int(new.coach),
                )
            except UniqueViolation as error:
                if error.table == "games" and "channel_id" in error.columns:
                    raise ChannelBusyError(new.channel_id) from error
                raise
            assert row is not None
            game = game_of(row)
            await conn.execute(
                "INSERT INTO seats (game_id, user_id, joined_at, display_name) "
                "VALUES ($1, $2, $3, $4)",
                game.id,
                new.host_id,
                time_to_column(now),
                new.host_name,
            )
            if new.ai_levels:
                await conn.executemany(
                    "INSERT INTO seats (game_id, ai_level, joined_at) VALUES ($1, $2, $3)",
                    [(game.id, level, time_to_column(now)) for level in new.ai_levels],
                )
            return game

    async def get(self, game_id: int) -> GameRow | None:
        async with self._db.single_read() as conn:
            return await maybe_game(conn, "WHERE id = $1", game_id)

    async def open_in_channel(self, channel_id: int) -> GameRow | None:
        """The channel's lobby or running game, if any."""
        async with self._db.single_read() as conn:
            return await maybe_game(
                conn, "WHERE channel_id = $1 AND status IN ('lobby', 'running')", channel_id
            )

    async def last_over_in_channel(self, channel_id: int) -> GameRow | None:
        """The channel's most recent game played to its end, if any."""
        async with self._db.single_read() as conn:
            return await maybe_game(
                conn,
                "WHERE channel_id = $1 AND status = 'over' ORDER BY id DESC LIMIT 1",
                channel_id,
            )

    async def open_games_of(self, guild_id: int, user_id: int) -> list[GameRow]:
        """The server's lobbies and running games in which the user holds a seat (not
        resigned), oldest first."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                f"SELECT {GAME_COLUMNS} FROM games WHERE guild_id = $1 "
                "AND status IN ('lobby', 'running') AND id IN (SELECT game_id FROM seats "
                "WHERE user_id = $2 AND resigned = 0) ORDER BY id",
                guild_id,
                user_id,
            )
        return [game_of(row) for row in rows]

    async def timed_games(self, guild_id: int | None, user_id: int | None) -> list[int]:
        """The running games whose turn has a clock: of the server `guild_id`, or (None) in
        which `user_id` holds a seat on any server."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                "SELECT id FROM games WHERE status = 'running' AND due_at IS NOT NULL "
                "AND (guild_id = $1 OR id IN (SELECT game_id FROM seats WHERE user_id = $2 "
                "AND resigned = 0)) ORDER BY id",
                guild_id,
                user_id,
            )
        return [int(row[0]) for row in rows]

    async def seats(self, game_id: int) -> list[SeatRow]:
        """The game's seats: in joining order in the lobby, in seat order once started."""
        async with self._db.single_read() as conn:
            return await fetch_seats(conn, game_id)

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
            await seats_changed(conn, game_id, now)
            return await fetch_seats(conn, game_id)

    async def add_ai_seat(self, game_id: int, level: str, now: datetime) -> list[SeatRow]:
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO seats (game_id, ai_level, joined_at) VALUES ($1, $2, $3)",
                game_id,
                level,
                time_to_column(now),
            )
            await seats_changed(conn, game_id, now)
            return await fetch_seats(conn, game_id)

    async def remove_seat_row(self, game_id: int, key: int, now: datetime) -> list[SeatRow]:
        """Remove one seat by its row key (an AI seat, which has no user id)."""
        async with self._db.transaction() as conn:
            await conn.execute("DELETE FROM seats WHERE game_id = $1 AND id = $2", game_id, key)
            await seats_changed(conn, game_id, now)
            return await fetch_seats(conn, game_id)

    async def remove_seat(self, game_id: int, user_id: int, now: datetime) -> list[SeatRow]:
        async with self._db.transaction() as conn:
            await conn.execute(
                "DELETE FROM seats WHERE game_id = $1 AND user_id = $2", game_id, user_id
            )
            await seats_changed(conn, game_id, now)
            return await fetch_seats(conn, game_id)

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
        holder: SeatHolder | None = None,
    ) -> GameRow:
        """Append actions after `expected_seq` and store the new snapshot, atomically, with the
        turn's new clock (None: unchanged), seat control changes and, at the end, the results
        and, for a game the ratings of server `rated_in` count, its place in the order of that
        server's rated games (bot.storage.ratings).

        Raises StaleSeqError (and changes nothing) if another writer got there first, or if
        the person's seat the actions were played for is no longer as `holder` read it (taken
        back or handed over meanwhile).
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
            if holder is not None and not await _held_as_read(conn, game_id, holder):
                raise StaleSeqError(game_id, expected_seq)  # rolls the transaction back
            await conn.executemany(
                "INSERT INTO actions (game_id, seq, kind, notation, seat, actor_id, created_at, "
                "ai_for, ai_in_a_row) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                [
                    (
                        game_id,
                        expected_seq + offset,
                        action.kind,
                        action.notation,
                        action.resigned_seat,
                        action.actor_id,
                        time_to_column(now),
                        action.ai_for.reason if action.ai_for is not None else None,
                        action.ai_for.in_a_row if action.ai_for is not None else None,
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
            await set_controls(conn, game_id, controls)
            await insert_results(conn, game_id, results)
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
        *,
        expected_rev: int | None = None,
    ) -> GameRow:
        """Close an open game (aborted or cancelled lobby); the row and its log are kept. Given
        `expected_rev`, only while its seats are as they were at that `rev` (a game abandoned
        for want of a person is not, once one took a seat back or was handed one meanwhile)."""
        async with self._db.single_write() as conn:
            game = await self._changed(
                conn,
                "UPDATE games SET status = $1, end_reason = $2, ended_by = $3, updated_at = $4, "
                "remind_at = NULL, due_at = NULL "
                "WHERE id = $5 AND status IN ('lobby', 'running') AND rev = coalesce($6, rev)",
                status.value,
                str(reason),
                ended_by,
                time_to_column(now),
                game_id,
                expected_rev,
            )
        if game is None:
            raise StaleSeqError(game_id, -1)
        return game

    async def actions(self, game_id: int) -> list[ActionRow]:
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                f"SELECT {ACTION_COLUMNS} FROM actions WHERE game_id = $1 ORDER BY seq",
                game_id,
            )
        return [action_of(row) for row in rows]

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
            await insert_results(conn, game_id, results)

    async def snapshot(self, game_id: int) -> tuple[GameRow, list[SeatRow], list[ActionRow]] | None:
        """The game's row, seats and action log read together, as of one moment (None: no such
        game)."""
        async with self._db.reading() as conn:
            game = await maybe_game(conn, "WHERE id = $1", game_id)
            if game is None:
                return None
            seats = await fetch_seats(conn, game_id)
            rows = await conn.fetch(
                f"SELECT {ACTION_COLUMNS} FROM actions WHERE game_id = $1 ORDER BY seq",
                game_id,
            )
        actions = [action_of(row) for row in rows]
        return game, seats, actions


async def _held_as_read(conn: Connection, game_id: int, holder: SeatHolder) -> bool:
    """Whether the seat is still as `holder` read it. Read after the game's guarded UPDATE:
    every write of a seat's holder or control (a move, a rejoin, a hand-over) updates the
    game's row first, in its transaction, so that the lock on the row (PostgreSQL; SQLite runs
    one write transaction at a time) orders them, and this reads the seat as the last left it."""
    held = await conn.fetchval(
        "SELECT count(*) FROM seats WHERE game_id = $1 AND seat = $2 AND user_id = $3 "
        "AND timeouts = $4 AND autoplay = $5",
        game_id,
        holder.seat,
        holder.user_id,
        holder.timeouts,
        int(holder.autoplay),
    )
    return bool(held)
