"""The luck of a roll: zero on average from every position, and telling of the result."""

from __future__ import annotations

import random
import statistics

import pytest

from ai import choose_action, mix_seed
from ai.luck import face_values, roll_luck
from ai.tactics import DIE_ODDS
from engine import CHANCE, apply, current_player, scores
from engine.model import Phase, Variant
from engine.state import GameState
from tests.ai.conftest import random_game


def _rolls() -> list[GameState]:
    """Die rolls of random games: every player count, both variants, late turns too."""
    found = []
    for players in (2, 3, 4):
        for variant in Variant:
            game = random_game(players, variant, 40 + players)
            for state in game[::7]:
                if state.phase in (Phase.ORIENT, Phase.ROTATE):  # the next roll comes
                    state = apply(state, "S" if state.phase is Phase.ORIENT else "L")[0]
                if state.phase is Phase.ROLL:
                    found.append(state)
    return found


ROLLS = _rolls()


def test_the_sample_covers_every_kind_of_game() -> None:
    assert {(s.players, s.variant) for s in ROLLS} == {
        (players, variant) for players in (2, 3, 4) for variant in Variant
    }


@pytest.mark.parametrize("state", ROLLS[::3])
def test_luck_averages_zero_over_the_die(state: GameState) -> None:
    mean = sum(odds * roll_luck(state, face) for face, odds in DIE_ODDS)
    assert mean == pytest.approx(0.0, abs=1e-9)


def test_faces_differ_and_luck_is_their_value_less_the_average() -> None:
    uneven = 0
    for state in ROLLS:
        values = face_values(state)
        assert [(face, odds) for face, odds, _ in values] == list(DIE_ODDS)
        mean = sum(odds * value for _, odds, value in values)
        for face, _, value in values:
            assert roll_luck(state, face) == pytest.approx(value - mean)
        uneven += max(v for _, _, v in values) - min(v for _, _, v in values) > 1.0
    assert uneven >= len(ROLLS) // 2, "the faces' values must usually differ"


def test_landing_on_a_rival_region_is_bad_luck() -> None:
    found = 0
    for state in ROLLS:
        if state.players != 2:
            continue
        payer = state.to_move
        assert payer is not None
        for face, _, _ in face_values(state):
            after = apply(state, f"D{face}")[0]
            paid = state.dirhams[payer] - after.dirhams[payer]
            if paid >= 3 and after.phase is Phase.PLACE:
                assert roll_luck(state, face) < 0, (face, paid)
                found += 1
    assert found >= 3


def test_luck_is_asked_at_a_roll_only() -> None:
    orient = next(s for s in random_game(2, Variant.STANDARD, 3) if s.phase is Phase.ORIENT)
    with pytest.raises(ValueError, match="die roll"):
        face_values(orient)


def test_the_luck_of_a_game_goes_with_its_result() -> None:
    """Over games between two equal players (medium), the seat with more luck does better."""
    lucks, margins = [], []
    for game in range(16):
        rng = random.Random(mix_seed(5, game))
        state = random_game(2, Variant.STANDARD, game)[0]
        luck = [0.0, 0.0]
        while (seat := current_player(state)) is not None:
            if seat == CHANCE:
                face = rng.choice((1, 2, 2, 3, 3, 4))
                assert state.to_move is not None
                luck[state.to_move] += roll_luck(state, face)
                action = f"D{face}"
            else:
                action = choose_action(state, "medium", mix_seed(game, len(state.history)))
            state = apply(state, action)[0]
        totals = [score.total for score in scores(state)]
        lucks.append(luck[0] - luck[1])
        margins.append(totals[0] - totals[1])
    correlation = statistics.correlation(lucks, margins)
    assert correlation > 0.7
