"""A coached game's hint allowance (docs/coach.md): each person may ask for `allowance` hints a
game. The count is stored with their seat (bot.storage.hints), so a restart or another process
running the game knows the hints used (each count moves the game's `rev`: another process holding
the game in memory reads it again), and two clicks at the last hint give it once. The game in
memory here learns each count as stored, so a turn of a person with none left offers no Hint."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a type only: the layout reads the allowance without loading the loader
    from bot.services.loader import GameLoader

HINTS_PER_GAME = 3
"""How many hints each person may ask for in one coached game (docs/coach.md)."""


class HintAllowance:
    """Takes a person's hints in a game, and gives back one that could not be shown."""

    def __init__(self, loader: GameLoader, allowance: int = HINTS_PER_GAME) -> None:
        self._loader = loader
        self.allowance = allowance
        """How many hints each person may ask for in one game."""

    async def take(self, game_id: int, user_id: int) -> int | None:
        """Use one of the user's hints in the game: how many they have left after it, or None
        (nothing used) when none was left."""
        used = await self._loader.take_hint(game_id, user_id, self.allowance)
        if used is None:
            return None
        return self.allowance - used

    async def give_back(self, game_id: int, user_id: int) -> None:
        """Return a hint taken but not shown (its search or picture failed)."""
        await self._loader.give_back_hint(game_id, user_id)
