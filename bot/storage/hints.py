"""The hints each person has used in a coached game (docs/coach.md), kept with their seat
(`seats.hints_used`). Taking one is a guarded update that never passes the game's allowance,
so two clicks, or two processes, at a person's last hint give it once; a hint that could not
be shown is given back the same way. Each moves the game's revision of its seats (`rev`) in
the same transaction, so another process holding the game in memory reads it again."""

from __future__ import annotations

from typing import Any

from bot.storage.game_rows import GameTable

SEATS_CHANGED = "UPDATE games SET rev = rev + 1 WHERE id = $1"
"""The game's seats change: run first, as every write of a game takes its row before its
seats, so that two writers never wait for each other."""


class _Unchanged(Exception):
    """The seat's count did not change: the transaction is rolled back, `rev` with it."""


class HintStore(GameTable):
    """Takes and gives back a seat's hints; each method is one transaction."""

    async def take_hint(self, game_id: int, user_id: int, allowance: int) -> int | None:
        """Count one more hint used by the user in the game; how many they have used with it,
        or None (nothing counted) when they had used `allowance` already or hold no seat."""
        try:
            async with self._db.transaction() as conn:
                await conn.execute(SEATS_CHANGED, game_id)
                return _changed_to(
                    await conn.fetchval(
                        "UPDATE seats SET hints_used = hints_used + 1 WHERE game_id = $1 "
                        "AND user_id = $2 AND hints_used < $3 RETURNING hints_used",
                        game_id,
                        user_id,
                        allowance,
                    )
                )
        except _Unchanged:
            return None

    async def give_back_hint(self, game_id: int, user_id: int) -> int | None:
        """Count one hint fewer used by the user in the game (one that was not shown); how many
        they have used now, or None (nothing changed) when they had used none or hold no seat."""
        try:
            async with self._db.transaction() as conn:
                await conn.execute(SEATS_CHANGED, game_id)
                return _changed_to(
                    await conn.fetchval(
                        "UPDATE seats SET hints_used = hints_used - 1 WHERE game_id = $1 "
                        "AND user_id = $2 AND hints_used > 0 RETURNING hints_used",
                        game_id,
                        user_id,
                    )
                )
        except _Unchanged:
            return None


def _changed_to(used: Any) -> int:
    """The seat's new count; _Unchanged (rolling the transaction back) if it did not change."""
    if used is None:
        raise _Unchanged
    return int(used)
