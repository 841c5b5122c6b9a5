"""Hard's leaf evaluation: its tuning per player count, what the region potential adds, and
the chance of winning a duel it stands for."""

from __future__ import annotations

from engine import resign
from engine.ai.evaluation import (
    DUEL_WEIGHTS,
    MARGIN_SPREAD,
    MOVER_EDGE,
    WIN_TILT,
    Z_CAP,
    duel_value,
    leaf_value,
    leaf_weights,
    margin_spread,
    position_value,
)
from engine.ai.greedy import DEFAULT_WEIGHTS
from engine.state import GameState


def test_two_players_weigh_regions_more_than_medium_and_more_players_keep_its_weights() -> None:
    assert leaf_weights(2) == DUEL_WEIGHTS
    assert DUEL_WEIGHTS.region > DEFAULT_WEIGHTS.region
    assert DUEL_WEIGHTS.horizon == DEFAULT_WEIGHTS.horizon
    assert leaf_weights(3) == leaf_weights(4) == DEFAULT_WEIGHTS


def test_the_default_tuning_follows_the_player_count(positions: list[GameState]) -> None:
    running = [p for p in positions if p.outcome is None and p.rugs_laid]
    for players in (2, 3, 4):
        sample = [p for p in running if p.players == players]
        assert sample
        for state in sample:
            seat = state.to_move
            assert seat is not None
            assert position_value(state, seat) == position_value(state, seat, leaf_weights(players))


def test_a_heavier_region_weight_favours_the_owner_of_a_big_region(
    positions: list[GameState],
) -> None:
    """Two-player positions mid-game: the seat whose regions are worth more to it (by squared
    size) gains from the heavier weight, its rival loses the same; a position without rugs
    is valued the same under both."""
    duels = [p for p in positions if p.players == 2 and p.outcome is None and p.rugs_laid > 4]
    assert duels
    moved = 0
    for state in duels:
        gain = [
            position_value(state, seat, DUEL_WEIGHTS) - position_value(state, seat, DEFAULT_WEIGHTS)
            for seat in (0, 1)
        ]
        assert abs(gain[0] + gain[1]) < 1e-9
        moved += gain[0] != 0
    assert moved
    opening = next(p for p in positions if p.players == 2 and p.rugs_laid == 0)
    assert position_value(opening, 0, DUEL_WEIGHTS) == position_value(opening, 0, DEFAULT_WEIGHTS)


def test_a_duel_is_valued_as_a_chance_of_winning(positions: list[GameState]) -> None:
    """Between the certain loss and the certain win, the two seats' chances add up to one."""
    duels = [p for p in positions if p.players == 2 and p.outcome is None]
    assert len(duels) > 10
    for state in duels:
        chances = [duel_value(state, seat) for seat in (0, 1)]
        assert abs(sum(chances) - 1.0) < 1e-9
        for chance in chances:
            assert -WIN_TILT * Z_CAP <= chance <= 1.0 + WIN_TILT * Z_CAP
    state = duels[len(duels) // 2]
    seat = state.to_move
    assert seat is not None
    resigned, _ = resign(state, seat)
    assert duel_value(resigned, 1 - seat) == 1.0 + WIN_TILT * Z_CAP
    assert duel_value(resigned, seat) == -WIN_TILT * Z_CAP
    assert duel_value(resigned, seat) <= min(duel_value(p, s) for p in duels for s in (0, 1))


def test_the_chance_follows_the_value_and_sharpens_as_the_rugs_run_out(
    positions: list[GameState],
) -> None:
    duels = [p for p in positions if p.players == 2 and p.outcome is None]
    ranked = sorted(duels, key=lambda p: position_value(p, 0))
    early = [p for p in ranked if p.rugs_laid < 12]
    late = [p for p in ranked if p.rugs_laid > 36]
    assert early and late
    spreads = [margin_spread(laid) for laid in range(49)]
    assert spreads == sorted(spreads, reverse=True)
    assert spreads[0] == MARGIN_SPREAD[0][1] and spreads[48] == MARGIN_SPREAD[-1][1]
    for state in duels:
        edge = MOVER_EDGE if state.to_move == 0 else -MOVER_EDGE
        ahead = position_value(state, 0) + edge > 0
        assert (duel_value(state, 0) > 0.5) == ahead


def test_hard_values_duels_by_chance_and_bigger_games_by_points(
    positions: list[GameState],
) -> None:
    for state in positions:
        if state.outcome is not None:
            continue
        seat = state.to_move
        assert seat is not None
        expected = duel_value if state.players == 2 else position_value
        assert leaf_value(state, seat) == expected(state, seat)
