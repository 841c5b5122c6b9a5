"""The hints each person has used in a coached game (docs/coach.md), kept with their seat
(`seats.hints_used`). Taking one is a single guarded update that never passes the game's
allowance, so two clicks, or two processes, at a person's last hint give it once; a hint that
could not be shown is given back the same way."""

from __future__ import annotations

from bot.storage.game_rows import GameTable


class HintStore(GameTable):
    """Takes and gives back a seat's hints; each method is one statement."""

    async def take_hint(self, game_id: int, user_id: int, allowance: int) -> int | None:
        """Count one more hint used by the user in the game; how many they have used with it,
        or None (nothing counted) when they had used `allowance` already or hold no seat."""
        async with self._db.single_write() as conn:
            used = await conn.fetchval(
                "UPDATE seats SET hints_used = hints_used + 1 "
                "WHERE game_id = $1 AND user_id = $2 AND hints_used < $3 RETURNING hints_used",
                game_id,
                user_id,
                allowance,
            )
        return None if used is None else int(used)

    async def give_back_hint(self, game_id: int, user_id: int) -> int | None:
        """Count one hint fewer used by the user in the game (one that was not shown); how many
        they have used now, or None (nothing changed) when they had used none or hold no seat."""
        async with self._db.single_write() as conn:
            used = await conn.fetchval(
                "UPDATE seats SET hints_used = hints_used - 1 "
                "WHERE game_id = $1 AND user_id = $2 AND hints_used > 0 RETURNING hints_used",
                game_id,
                user_id,
            )
        return None if used is None else int(used)
