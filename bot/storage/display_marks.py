"""What a game's messages show: the display's bookkeeping. Which message shows the game and
at which seq, the reminder out for the turn being played, the games whose last change no
message shows yet (a post that failed, or a bot that stopped first), the games stopped early
(aborted, abandoned) whose end is not shown yet, the finished games whose result was posted
without the rating changes applied since, the seats taken back from the AI whose return is
not told yet, and the started games whose lobby does not lead to their first turn, or their
result, yet.
"""

from __future__ import annotations

from datetime import datetime

from bot.storage.game_rows import GAME_COLUMNS, NOT_SHOWN, UNCLAIMED, GameRow, GameTable, game_of
from bot.storage.values import time_from_column, time_to_column

END_NOT_SHOWN = (
    "(end_shown = 0 AND ((status = 'aborted' AND end_reason IS DISTINCT FROM 'cancelled') "
    "OR (status = 'over' AND board_message_seq = seq "
    "AND EXISTS (SELECT 1 FROM rating_changes WHERE rating_changes.game_id = games.id))))"
)
"""A game whose end the display has not shown yet: one stopped early (a lobby or a game
aborted, a game abandoned; a lobby its host cancelled tells that in its own message), or a
finished game whose result was posted without the rating changes the game has now (applying
them failed at its end: the server's next game or a start applied them since)."""

REJOIN_NOT_SHOWN = (
    "(status = 'running' AND EXISTS (SELECT 1 FROM seats WHERE seats.game_id = games.id "
    "AND seats.rejoin_shown = 0))"
)
"""A running game with a seat taken back from the AI whose return the display has not told."""


class DisplayMarks(GameTable):
    """The display's marks on the games; each method is one transaction."""

    async def behind_on_display(self) -> list[GameRow]:
        """Started games (running, or over) whose message does not show their current seq,
        games whose end is not shown (stopped early, or a result posted without the rating
        changes applied since), running games with a seat taken back whose return is not
        told, and lobbies whose message was never recorded or not updated since a join or
        leave."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                f"SELECT {GAME_COLUMNS} FROM games WHERE (status IN ('running', 'over') "
                f"AND {NOT_SHOWN}) OR {END_NOT_SHOWN} OR {REJOIN_NOT_SHOWN} "
                "OR (status = 'lobby' AND board_message_seq IS NULL) ORDER BY id"
            )
        return [game_of(row) for row in rows]

    async def set_board_message(
        self,
        game_id: int,
        message_id: int,
        seq: int,
        *,
        end_shown: bool = False,
        lobby_linked: bool | None = None,
        lobby: bool = False,
    ) -> GameRow | None:
        """Remember which message shows the game now, and at which seq; never a message older
        than the one recorded (a slow post finishing after a newer one). A message recorded
        while the game is a lobby is also kept as its lobby message; `lobby`: the message is
        the lobby's, recorded only while the game is still one (a join's record landing after
        the game started, at the same seq, would take the first turn's place). `end_shown`:
        the message is a finished game's result with its rating changes, so the end is shown
        too (in the same write). `lobby_linked`, for a message the started game's lobby leads
        to (its first turn, its result): whether the lobby's edit to lead there went through;
        if not, the message is kept as the one the lobby is due to lead to (`lobbies_behind`),
        in the same write. The game as stored, or None if it was not (an older message)."""
        async with self._db.single_write() as conn:
            return await self._changed(
                conn,
                "UPDATE games SET board_message_id = $1, board_message_seq = $2, "
                "lobby_message_id = CASE WHEN status = 'lobby' THEN $1 ELSE lobby_message_id END, "
                "end_shown = CASE WHEN $4 THEN 1 ELSE end_shown END, "
                "lobby_link_due = CASE WHEN $5 THEN NULL WHEN $6 THEN $1 "
                "ELSE lobby_link_due END "
                "WHERE id = $3 AND (board_message_seq IS NULL OR board_message_seq <= $2) "
                "AND (NOT $7 OR status = 'lobby')",
                message_id,
                seq,
                game_id,
                end_shown,
                lobby_linked is True,
                lobby_linked is False,
                lobby,
            )

    async def lobbies_behind(self) -> list[tuple[int, int]]:
        """The started games (running, or over) whose lobby's edit to lead to their first turn,
        or their result, did not go through (Discord failed it), each with the message it is
        due to lead to, by game. A process killed before that edit has not recorded the
        message yet: its game is behind on display, and the catch-up that adopts the message
        leads the lobby to it first."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                "SELECT id, lobby_link_due FROM games WHERE lobby_link_due IS NOT NULL "
                "AND lobby_message_id IS NOT NULL AND status IN ('running', 'over') ORDER BY id"
            )
        return [(int(row["id"]), int(row["lobby_link_due"])) for row in rows]

    async def lobby_linked(self, game_id: int, message_id: int) -> bool:
        """Record that the game's lobby leads to `message_id`, the message it was due to lead
        to; False if it was due to lead to another by now (or to none)."""
        async with self._db.single_write() as conn:
            done = await conn.execute(
                "UPDATE games SET lobby_link_due = NULL WHERE id = $1 AND lobby_link_due = $2",
                game_id,
                message_id,
            )
        return done > 0

    async def end_not_shown(self, game_id: int) -> bool:
        """Whether the game's end is not shown yet (END_NOT_SHOWN): it stopped early, or its
        result was posted without the rating changes it has now."""
        async with self._db.single_read() as conn:
            found = await conn.fetchval(
                f"SELECT count(*) FROM games WHERE id = $1 AND {END_NOT_SHOWN}", game_id
            )
        return bool(found)

    async def mark_end_shown(self, game_id: int) -> bool:
        """Record that the game's end is shown; False if it already was (of two callers, one
        only gets True)."""
        async with self._db.single_write() as conn:
            done = await conn.execute(
                "UPDATE games SET end_shown = 1 WHERE id = $1 AND end_shown = 0", game_id
            )
        return done > 0

    async def rejoins_not_shown(self, game_id: int) -> list[int]:
        """The users whose seat of the running game was taken back from the AI and whose
        return is not told yet."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                "SELECT seats.user_id FROM seats JOIN games ON games.id = seats.game_id "
                "WHERE games.id = $1 AND games.status = 'running' AND seats.rejoin_shown = 0 "
                "AND seats.user_id IS NOT NULL ORDER BY seats.seat",
                game_id,
            )
        return [int(row["user_id"]) for row in rows]

    async def mark_rejoin_shown(self, game_id: int, user_id: int) -> bool:
        """Record that the user's return to their seat is told; False if it already was (of
        two callers, one only gets True)."""
        async with self._db.single_write() as conn:
            done = await conn.execute(
                "UPDATE seats SET rejoin_shown = 1 WHERE game_id = $1 AND user_id = $2 "
                "AND rejoin_shown = 0",
                game_id,
                user_id,
            )
        return done > 0

    async def set_reminder_message(self, game_id: int, message_id: int | None) -> None:
        """Remember the reminder sent for the turn being played (None: none is out)."""
        async with self._db.single_write() as conn:
            await conn.execute(
                "UPDATE games SET reminder_message_id = $1 WHERE id = $2", message_id, game_id
            )

    async def set_nudge_message(self, game_id: int, message_id: int | None) -> None:
        """Remember the ping of a nudge for the turn being played (None: none is out)."""
        async with self._db.single_write() as conn:
            await conn.execute(
                "UPDATE games SET nudge_message_id = $1 WHERE id = $2", message_id, game_id
            )

    async def unshown(self, changed_by: datetime) -> list[GameRow]:
        """Started games (running or over) whose last change, made by `changed_by`, is still not
        shown: the message that should show it failed to post (or the bot stopped first)."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                f"SELECT {GAME_COLUMNS} FROM games WHERE status IN ('running', 'over') "
                f"AND {NOT_SHOWN} AND updated_at <= $1 ORDER BY updated_at, id",
                time_to_column(changed_by),
            )
        return [game_of(row) for row in rows]

    async def oldest_unshown(
        self, now: datetime | None = None, owner: str | None = None
    ) -> datetime | None:
        """When the oldest change not yet shown of a started game was made (given `now` and
        `owner`: leaving out the games another process holds a claim on)."""
        query = (
            f"SELECT min(updated_at) FROM games WHERE status IN ('running', 'over') AND {NOT_SHOWN}"
        )
        async with self._db.single_read() as conn:
            if now is None:
                oldest = await conn.fetchval(query)
            else:
                oldest = await conn.fetchval(f"{query} AND {UNCLAIMED}", time_to_column(now), owner)
        return time_from_column(None if oldest is None else str(oldest))
