"""HintStore on both back ends: the hints a person takes and gives back count in that game
only, and giving one back never takes the count below none used."""

from __future__ import annotations

from bot.storage import Database, GameStore
from tests.bot.storage.test_store_methods import BIG, started

ALLOWANCE = 2


async def test_a_hint_given_back_with_none_used_changes_nothing(db: Database) -> None:
    """Giving a hint back when none is used leaves the count at none: the allowance still
    gives exactly its number of hints."""
    games = GameStore(db)
    game_id = await started(games, 10)
    assert await games.give_back_hint(game_id, BIG) is None, "none used: none given back"
    assert await games.take_hint(game_id, BIG, ALLOWANCE) == 1
    assert await games.take_hint(game_id, BIG, ALLOWANCE) == 2
    assert await games.take_hint(game_id, BIG, ALLOWANCE) is None


async def test_hints_taken_and_given_back_count_in_that_game_only(db: Database) -> None:
    """A person seated in two games uses each game's allowance apart: taking all of one
    game's hints, or giving one back there, leaves the other game's count as it was."""
    games = GameStore(db)
    game_a = await started(games, 10)
    game_b = await started(games, 11)
    assert await games.take_hint(game_b, BIG, ALLOWANCE) == 1
    assert await games.take_hint(game_a, BIG, ALLOWANCE) == 1
    assert await games.take_hint(game_a, BIG, ALLOWANCE) == 2
    assert await games.give_back_hint(game_a, BIG) == 1, "the count left in that game"
    assert await games.take_hint(game_b, BIG, ALLOWANCE) == 2
    assert await games.take_hint(game_b, BIG, ALLOWANCE) is None
