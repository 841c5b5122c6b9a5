"""HintStore on both back ends: the hints a person takes and gives back count in that game
only, giving one back never takes the count below none used, and each change of a count moves
the game's `rev` (one refused moves nothing)."""

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


async def test_a_hint_counted_moves_the_game_s_rev_and_one_refused_does_not(
    db: Database,
) -> None:
    """The count lives with the seat, not in the game's row: each change of it moves the
    game's `rev` (another process holding the game in memory reads it again), and a take or a
    give-back that changes nothing leaves the row as it was."""
    games = GameStore(db)
    game_id = await started(games, 10)

    async def rev() -> int:
        game = await games.get(game_id)
        assert game is not None
        return game.rev

    before = await rev()
    assert await games.give_back_hint(game_id, BIG) is None
    assert await rev() == before, "none given back: unchanged"
    assert await games.take_hint(game_id, BIG, 1) == 1
    assert await rev() == before + 1
    assert await games.take_hint(game_id, BIG, 1) is None
    assert await rev() == before + 1, "none left: unchanged"
    assert await games.give_back_hint(game_id, BIG) == 0
    assert await rev() == before + 2
