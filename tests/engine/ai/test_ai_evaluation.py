"""Hard's leaf evaluation: its tuning per player count, what the region potential adds, and
the value of winning in a duel."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.ai.evaluation import BONUS_RUGS, DUEL_WEIGHTS, leaf_weights, position_value
from engine.ai.greedy import DEFAULT_WEIGHTS, GreedyWeights
from engine.ai.win_chance import win_chance
from engine.rules import scores
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
    heavier = GreedyWeights(region=DUEL_WEIGHTS.region)
    duels = [p for p in positions if p.players == 2 and p.outcome is None and p.rugs_laid > 4]
    assert duels
    moved = 0
    for state in duels:
        gain = [
            position_value(state, seat, heavier) - position_value(state, seat, DEFAULT_WEIGHTS)
            for seat in (0, 1)
        ]
        assert abs(gain[0] + gain[1]) < 1e-9
        moved += gain[0] != 0
    assert moved
    opening = next(p for p in positions if p.players == 2 and p.rugs_laid == 0)
    assert position_value(opening, 0, heavier) == position_value(opening, 0, DEFAULT_WEIGHTS)


def test_in_a_duel_the_rivals_regions_weigh_less_than_ours(positions: list[GameState]) -> None:
    """With the rival's potential weighed at `rival_region` instead of `region`, the value of
    a running duel rises by the difference times the rival's potential, never falls."""
    assert DUEL_WEIGHTS.rival_region is not None
    assert DUEL_WEIGHTS.rival_region < DUEL_WEIGHTS.region
    margin_only = replace(DUEL_WEIGHTS, win_stake=0.0)
    same = replace(margin_only, rival_region=None)
    duels = [p for p in positions if p.players == 2 and p.outcome is None and p.rugs_laid > 4]
    raised = 0
    for state in duels:
        for seat in (0, 1):
            change = position_value(state, seat, margin_only) - position_value(state, seat, same)
            assert change >= -1e-9
            raised += change > 1e-9
    assert raised > len(duels) // 2


def test_a_duels_running_leaf_adds_the_stake_times_the_chance_of_winning(
    positions: list[GameState],
) -> None:
    """In 2 players the leaf of a running game is its margin estimate plus `win_stake` times
    `win_chance` of that estimate; finished games and 3-4 player games are valued on the
    margin alone, whatever the stake."""
    assert DUEL_WEIGHTS.win_stake > 0
    margin_only = replace(DUEL_WEIGHTS, win_stake=0.0)
    checked = 0
    for state in positions:
        seat = state.to_move if state.to_move is not None else 0
        plain = position_value(state, seat, margin_only)
        staked = position_value(state, seat, DUEL_WEIGHTS)
        if state.players != 2 or state.outcome is not None or state.is_eliminated(seat):
            assert staked == plain
            continue
        chance = win_chance(plain, state.rugs_in_hand(seat), state.rugs_in_hand(1 - seat))
        assert staked == pytest.approx(plain + DUEL_WEIGHTS.win_stake * chance)
        checked += 1
    assert checked > 10
    assert leaf_weights(3).win_stake == leaf_weights(4).win_stake == 0.0


def _visible(state: GameState, seat: int) -> int:
    return next(part.visible for part in scores(state) if part.seat == seat)


def test_a_duels_visible_squares_are_worth_more_while_many_rugs_are_left(
    positions: list[GameState],
) -> None:
    """The square bonus adds bonus x min(1, rugs left / BONUS_RUGS) per visible square of
    ours and takes as much per square of the rival's: full early, nothing at the end."""
    plain = replace(DUEL_WEIGHTS, win_stake=0.0, square_bonus=0.0)
    bonus = replace(plain, square_bonus=DUEL_WEIGHTS.square_bonus)
    assert DUEL_WEIGHTS.square_bonus > 0
    duels = [p for p in positions if p.players == 2 and p.outcome is None and p.rugs_laid]
    assert duels
    for state in duels:
        seat = state.to_move if state.to_move is not None else 0
        share = min(1.0, sum(state.stock) / BONUS_RUGS)
        lead = _visible(state, seat) - _visible(state, 1 - seat)
        expected = DUEL_WEIGHTS.square_bonus * share * lead
        change = position_value(state, seat, bonus) - position_value(state, seat, plain)
        assert change == pytest.approx(expected)


def test_the_coming_toll_counts_at_its_weight(positions: list[GameState]) -> None:
    """A duel's leaf is linear in the weight of the toll the mover faces next: half weight
    lies halfway between none and full; medium's tuning keeps it whole."""
    assert DEFAULT_WEIGHTS.coming_toll == 1.0
    assert 0 < DUEL_WEIGHTS.coming_toll < 1
    full = replace(DUEL_WEIGHTS, win_stake=0.0, coming_toll=1.0)
    weighed = 0
    for state in positions:
        if state.players != 2 or state.outcome is not None or state.to_move is None:
            continue
        seat = state.to_move
        values = [
            position_value(state, seat, replace(full, coming_toll=weight))
            for weight in (0.0, DUEL_WEIGHTS.coming_toll, 1.0)
        ]
        share = DUEL_WEIGHTS.coming_toll
        assert values[1] == pytest.approx(values[0] + share * (values[2] - values[0]))
        weighed += values[2] != values[0]
    assert weighed
