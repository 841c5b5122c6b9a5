"""Seats handed to substitutes, and the hosts' requests that wait for the other players'
agreement (migration 0020, docs/async.md#substitutes).

`hand_over` changes a seat's person in one transaction guarded by the game's seq and the seat's
person: a move, a second hand-over or another process that got there first makes it change
nothing (StaleSeqError). The seat keeps the person the game rates for it: the first who left.

A request's agreements are rows of their own, so two players pressing Agree at once both count;
closing a request is one guarded update, so of two presses that complete (or refuse) it, one
acts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.storage.database import Row
from bot.storage.game_rows import GameRow, GameTable, StaleSeqError
from bot.storage.kinds import TurnClock
from bot.storage.values import json_from_column, json_to_column, time_from_column, time_to_column

OPEN = "open"
"""A request still waiting for agreements."""


@dataclass(frozen=True, slots=True)
class SeatRequest:
    """A host's request to hand `out_user_id`'s seat to `in_user_id`, waiting for the people in
    `waiting_for` to agree (those in `agreed` have)."""

    id: int
    game_id: int
    out_user_id: int
    in_user_id: int
    in_name: str | None
    asked_by: int
    waiting_for: tuple[int, ...]
    agreed: frozenset[int]
    status: str
    asked_at: datetime
    expires_at: datetime
    message_id: int | None = None
    """The message in the game's channel that asks for the agreements (None: not known)."""


REQUEST_COLUMNS = (
    "id, game_id, out_user_id, in_user_id, in_name, asked_by, waiting_for, status, asked_at, "
    "expires_at, message_id"
)


_ANY_ENDED = (
    "SELECT count(*) FROM seat_requests WHERE status = $1 AND game_id IN "
    "(SELECT id FROM games WHERE status <> 'running')"
)
_ANY_ENDED_OF_GAME = (
    "SELECT count(*) FROM seat_requests WHERE status = $1 AND game_id = $2 AND "
    "game_id IN (SELECT id FROM games WHERE status <> 'running')"
)
_OPEN_OF_GAME = (
    f"SELECT {REQUEST_COLUMNS} FROM seat_requests WHERE game_id = $1 AND status = $2 ORDER BY id"
)
_AGREEMENTS_OF_OPEN = (
    "SELECT a.request_id, a.user_id FROM seat_agreements a JOIN seat_requests r "
    "ON r.id = a.request_id WHERE r.game_id = $1 AND r.status = $2"
)
_CLOSE_ENDED = (
    "UPDATE seat_requests SET status = 'failed' WHERE status = $1 AND game_id IN "
    f"(SELECT id FROM games WHERE status <> 'running') RETURNING {REQUEST_COLUMNS}"
)
_CLOSE_ENDED_OF_GAME = (
    "UPDATE seat_requests SET status = 'failed' WHERE status = $1 AND game_id = $2 AND "
    f"game_id IN (SELECT id FROM games WHERE status <> 'running') RETURNING {REQUEST_COLUMNS}"
)


class SubstituteStore(GameTable):
    """Hand-overs of seats and the requests for them."""

    async def hand_over(
        self,
        game_id: int,
        expected_seq: int,
        seat: int,
        out_user_id: int,
        in_user_id: int,
        in_name: str | None,
        out_count: int,
        clock: TurnClock | None,
        now: datetime,
    ) -> GameRow:
        """Give `in_user_id` the seat `out_user_id` holds in the running game at
        `expected_seq` (with a fresh turn `clock` when it is that seat's turn; None keeps the
        clock), and the host's part with it when they host the game (one who left cannot end
        it); StaleSeqError, and nothing changed, if the game or the seat moved on. The game's
        message is marked as not showing the game (a hand-over moves no seq, but changes whom
        it calls), so that it is drawn again for the new player: by the display at once, else
        by its retry or the next start."""
        async with self._db.transaction() as conn:
            keep = clock is None
            clock = clock or TurnClock()
            game = await self._changed(
                conn,
                "UPDATE games SET rev = rev + 1, updated_at = $1, board_message_seq = NULL, "
                "host_id = CASE WHEN host_id = $8 THEN $9 ELSE host_id END, "
                "turn_started_at = CASE WHEN $2 THEN turn_started_at ELSE $3 END, "
                "remind_at = CASE WHEN $2 THEN remind_at ELSE $4 END, "
                "due_at = CASE WHEN $2 THEN due_at ELSE $5 END "
                "WHERE id = $6 AND seq = $7 AND status = 'running'",
                time_to_column(now),
                keep,
                time_to_column(clock.turn_started_at),
                time_to_column(clock.remind_at),
                time_to_column(clock.due_at),
                game_id,
                expected_seq,
                out_user_id,
                in_user_id,
            )
            changed = await conn.execute(
                "UPDATE seats SET user_id = $1, display_name = $2, timeouts = 0, autoplay = 0, "
                "hints_used = 0, stands_in_for = coalesce(stands_in_for, $3), "
                "left_with_out = coalesce(left_with_out, $4) "
                "WHERE game_id = $5 AND seat = $6 AND user_id = $3 AND resigned = 0",
                in_user_id,
                in_name,
                out_user_id,
                out_count,
                game_id,
                seat,
            )
            if game is None or changed != 1:
                raise StaleSeqError(game_id, expected_seq)  # rolls the transaction back
            await conn.execute(
                "INSERT INTO seat_leavers (game_id, user_id) VALUES ($1, $2) "
                "ON CONFLICT DO NOTHING",
                game_id,
                out_user_id,
            )
            return game

    async def ever_seated(self, game_id: int, user_id: int) -> bool:
        """Whether the person holds, or held and handed on, a seat of the game."""
        async with self._db.single_read() as conn:
            found = await conn.fetchval(
                "SELECT EXISTS (SELECT 1 FROM seats WHERE game_id = $1 AND user_id = $2) "
                "OR EXISTS (SELECT 1 FROM seat_leavers WHERE game_id = $1 AND user_id = $2)",
                game_id,
                user_id,
            )
        return bool(found)

    # --- requests ----------------------------------------------------------------------------

    async def open_request(
        self,
        game_id: int,
        out_user_id: int,
        in_user_id: int,
        in_name: str | None,
        asked_by: int,
        waiting_for: tuple[int, ...],
        now: datetime,
        expires_at: datetime,
    ) -> SeatRequest:
        async with self._db.single_write() as conn:
            request_id = await conn.fetchval(
                "INSERT INTO seat_requests (game_id, out_user_id, in_user_id, in_name, asked_by, "
                "waiting_for, asked_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
                "RETURNING id",
                game_id,
                out_user_id,
                in_user_id,
                in_name,
                asked_by,
                json_to_column(list(waiting_for)),
                time_to_column(now),
                time_to_column(expires_at),
            )
        return SeatRequest(
            int(request_id),
            game_id,
            out_user_id,
            in_user_id,
            in_name,
            asked_by,
            waiting_for,
            frozenset(),
            OPEN,
            now,
            expires_at,
        )

    async def request(self, request_id: int) -> SeatRequest | None:
        async with self._db.reading() as conn:
            row = await conn.fetchrow(
                f"SELECT {REQUEST_COLUMNS} FROM seat_requests WHERE id = $1", request_id
            )
            if row is None:
                return None
            agreed = await conn.fetch(
                "SELECT user_id FROM seat_agreements WHERE request_id = $1", request_id
            )
        return _request(row, frozenset(int(agreement[0]) for agreement in agreed))

    async def open_requests_of(self, game_id: int) -> list[SeatRequest]:
        """The game's requests still open, oldest first, each with its agreements."""
        async with self._db.reading() as conn:
            rows = await conn.fetch(_OPEN_OF_GAME, game_id, OPEN)
            agreements = await conn.fetch(_AGREEMENTS_OF_OPEN, game_id, OPEN) if rows else []
        agreed: dict[int, set[int]] = {}
        for agreement in agreements:
            agreed.setdefault(int(agreement[0]), set()).add(int(agreement[1]))
        return [_request(row, frozenset(agreed.get(int(row[0]), ()))) for row in rows]

    async def replace_request_message(
        self,
        request_id: int,
        message_id: int,
        waiting_for: tuple[int, ...],
        replacing: int | None,
    ) -> bool:
        """Remember the message that asks for the request's agreements and whom it calls
        (`waiting_for`: a request posted again calls whom it waits for then), only while the
        request's message is still `replacing` (None: none is known yet); False, and nothing
        changed, if another was remembered meanwhile. (A message id is never 0.)"""
        async with self._db.single_write() as conn:
            changed = await conn.execute(
                "UPDATE seat_requests SET message_id = $1, waiting_for = $2 "
                "WHERE id = $3 AND COALESCE(message_id, 0) = $4",
                message_id,
                json_to_column(list(waiting_for)),
                request_id,
                replacing or 0,
            )
        return changed == 1

    async def close_requests_of_ended_games(self, game_id: int | None = None) -> list[SeatRequest]:
        """Close (as failed: they can no longer be carried out) the requests still open whose
        game no longer runs, of `game_id` only if given; the ones closed (of two processes at
        once, each request is closed by one), oldest first. Looked for first, so that the
        usual case (none) writes nothing: a start, or a game's end, commits no write for it."""
        async with self._db.single_read() as conn:
            if game_id is None:
                found = await conn.fetchval(_ANY_ENDED, OPEN)
            else:
                found = await conn.fetchval(_ANY_ENDED_OF_GAME, OPEN, game_id)
        if not found:
            return []
        async with self._db.single_write() as conn:
            if game_id is None:
                rows = await conn.fetch(_CLOSE_ENDED, OPEN)
            else:
                rows = await conn.fetch(_CLOSE_ENDED_OF_GAME, OPEN, game_id)
        return sorted((_request(row, frozenset()) for row in rows), key=lambda r: r.id)

    async def agree(self, request_id: int, user_id: int) -> None:
        """Record the person's agreement (a second press changes nothing)."""
        async with self._db.single_write() as conn:
            await conn.execute(
                "INSERT INTO seat_agreements (request_id, user_id) VALUES ($1, $2) "
                "ON CONFLICT (request_id, user_id) DO NOTHING",
                request_id,
                user_id,
            )

    async def close_request(self, request_id: int, status: str, was: str = OPEN) -> bool:
        """Move the request from `was` (open) to `status`; False if it was not `was` any more."""
        async with self._db.single_write() as conn:
            changed = await conn.execute(
                "UPDATE seat_requests SET status = $1 WHERE id = $2 AND status = $3",
                status,
                request_id,
                was,
            )
        return changed == 1


def _request(row: Row, agreed: frozenset[int]) -> SeatRequest:
    """A request from its row (REQUEST_COLUMNS) and the people who agreed."""
    message_id = row["message_id"]
    return SeatRequest(
        id=int(row["id"]),
        game_id=int(row["game_id"]),
        out_user_id=int(row["out_user_id"]),
        in_user_id=int(row["in_user_id"]),
        in_name=row["in_name"],
        asked_by=int(row["asked_by"]),
        waiting_for=tuple(int(user) for user in json_from_column(row["waiting_for"])),
        agreed=agreed,
        status=str(row["status"]),
        asked_at=time_from_column(str(row["asked_at"])),
        expires_at=time_from_column(str(row["expires_at"])),
        message_id=None if message_id is None else int(message_id),
    )
