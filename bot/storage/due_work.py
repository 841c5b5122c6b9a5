"""The due work of the games and the claims on it: what the turn clock reads.

Several bot processes may share one database, so this part holds what keeps them apart:
- claims: a piece of due work (an automatic turn, a reminder, a display to repair) is claimed
  by one process (`claim_due`, `claim`) for a lease of time before it is done, and released
  after (`release_claim`); a lease that runs out (the process died) lets another take it;
- the turn clock of a running game (`set_clock`), and the reminder marked sent at most once
  (`mark_reminded`);
- on PostgreSQL, a NOTIFY on SCHEDULE_CHANNEL in every write that changes a turn clock or what
  a game's message shows (sent on commit only), which wakes the other processes' schedulers
  (`listen`); SQLite serves one process, whose scheduler is woken in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from bot.storage.game_rows import (
    ALL_SHARDS,
    FIRST_DUE,
    FIRST_DUE_SHOWN,
    FIRST_UNSHOWN,
    GAME_COLUMNS,
    MINE_TO_CLAIM,
    MINE_TO_PLAN,
    NOT_SHOWN,
    SCHEDULE_CHANNEL,
    SHOWN,
    UNCLAIMED,
    GameRow,
    GameTable,
    NextMoments,
    SeatControl,
    ShardSet,
    StaleSeqError,
    game_of,
    set_controls,
)
from bot.storage.kinds import TurnClock
from bot.storage.values import time_from_column, time_to_column


class DueWorkStore(GameTable):
    """When the games' work falls due, and which process holds it; each method is one
    transaction."""

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
            await set_controls(conn, game_id, controls)
            return game

    async def due(self, now: datetime) -> list[GameRow]:
        """Running games shown up to date whose reminder or automatic move is due by `now`."""
        async with self._db.single_read() as conn:
            rows = await conn.fetch(
                f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'running' "
                f"AND {SHOWN} AND (due_at <= $1 OR remind_at <= $1) "
                f"ORDER BY {FIRST_DUE}, id",
                time_to_column(now),
            )
        return [game_of(row) for row in rows]

    async def next_due(
        self, now: datetime | None = None, owner: str | None = None
    ) -> datetime | None:
        """The earliest reminder or automatic move of a running game shown up to date (given
        `now` and `owner`: leaving out the games another process holds a claim on)."""
        query = (
            f"SELECT min({FIRST_DUE}) FROM games WHERE status = 'running' AND {SHOWN} "
            "AND (due_at IS NOT NULL OR remind_at IS NOT NULL)"
        )
        async with self._db.single_read() as conn:
            if now is None:
                first = await conn.fetchval(query)
            else:
                first = await conn.fetchval(f"{query} AND {UNCLAIMED}", time_to_column(now), owner)
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
        """`next_due` and `oldest_unshown` (of the games in `shards`, and apart of the
        others), `next_lease_end` for `owner` at `now`, and the next release of a held notice
        (bot.storage.away), read in one statement."""
        async with self._db.single_read() as conn:
            row = await conn.fetchrow(
                f"SELECT ({FIRST_DUE_SHOWN} AND {MINE_TO_PLAN}) AS due, "
                f"({FIRST_DUE_SHOWN} AND NOT {MINE_TO_PLAN}) AS due_elsewhere, "
                f"({FIRST_UNSHOWN} AND {MINE_TO_PLAN}) AS oldest_unshown, "
                f"({FIRST_UNSHOWN} AND NOT {MINE_TO_PLAN}) AS unshown_elsewhere, "
                "(SELECT min(claimed_until) FROM games WHERE claimed_until > $1 "
                "AND claimed_by IS DISTINCT FROM $2) AS lease_end, "
                "(SELECT min(CASE WHEN claimed_until > $1 THEN claimed_until ELSE release_at "
                "END) FROM held_notices WHERE sent_at IS NULL) AS held",
                time_to_column(now),
                owner,
                shards.pattern(),
                shards.count,
            )
        assert row is not None
        columns = ("due", "oldest_unshown", "lease_end", "due_elsewhere", "held")
        due_at, unshown, lease_end, elsewhere, held, unshown_elsewhere = (
            time_from_column(None if row[column] is None else str(row[column]))
            for column in (*columns, "unshown_elsewhere")
        )
        return NextMoments(due_at, unshown, lease_end, elsewhere, held, unshown_elsewhere)

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
        automatic move is due by `now`, and started games whose last change, made by
        `changed_by`, is still not shown; for a game outside `shards`, by `others_by` (its own
        process has it first), and a change made that much earlier than `changed_by`. The
        games claimed, oldest first.

        On PostgreSQL the candidate rows are locked as they are picked and rows another
        process is claiming are skipped; SQLite serialises its write transactions."""
        lock = " FOR UPDATE SKIP LOCKED" if self._db.backend == "postgres" else ""
        others_changed_by = changed_by if others_by is None else changed_by - (now - others_by)
        async with self._db.single_write() as conn:
            rows = await conn.fetch(
                "UPDATE games SET claimed_by = $2, claimed_until = $3 WHERE id IN ("
                "SELECT id FROM games WHERE (("
                f"status = 'running' AND {SHOWN} AND (due_at <= $1 OR remind_at <= $1) "
                f"AND ({MINE_TO_CLAIM} OR due_at <= $6 OR remind_at <= $6)) "
                f"OR (status IN ('running', 'over') AND {NOT_SHOWN} AND updated_at <= $4 "
                f"AND ({MINE_TO_CLAIM} OR updated_at <= $9))) "
                f"AND {UNCLAIMED} ORDER BY id LIMIT $5{lock}) "
                f"RETURNING {GAME_COLUMNS}",
                time_to_column(now),
                owner,
                time_to_column(until),
                time_to_column(changed_by),
                limit,
                time_to_column(now if others_by is None else others_by),
                shards.pattern(),
                shards.count,
                time_to_column(others_changed_by),
            )
        return sorted((game_of(row) for row in rows), key=lambda game: game.id)

    async def claim(self, game_id: int, now: datetime, owner: str, until: datetime) -> bool:
        """Claim the game for `owner` until `until` unless another process holds it at `now`;
        True if claimed."""
        async with self._db.single_write() as conn:
            claimed = await conn.execute(
                "UPDATE games SET claimed_by = $2, claimed_until = $3 "
                f"WHERE id = $4 AND {UNCLAIMED}",
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

    async def listen(self, callback: Callable[[], None]) -> None:
        """Call `callback` whenever another process commits a change to a turn clock or to what
        a game's message shows (this process knows its own changes), and whenever the listening
        connection was (re)opened, since it may have missed some; run until cancelled.
        PostgreSQL only: SQLite serves one process, which is told in memory, so there it
        returns at once."""
        from bot.storage.postgres import PostgresDatabase  # only PostgreSQL needs asyncpg

        if isinstance(self._db, PostgresDatabase):
            await self._db.listen(SCHEDULE_CHANNEL, callback)
