"""Hard's leaf evaluation: its tuning per player count, what the region potential adds, and
the value of winning in a duel."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from ai.evaluation import (
    DECIDED,
    DUEL_LEAF,
    DUEL_RUGS,
    Staged,
    leaf_weights,
    position_value,
)
from ai.greedy import DEFAULT_WEIGHTS, GreedyWeights
from ai.win_chance import win_chance
from engine import Outcome, Variant
from engine.board import SQUARES
from engine.model import Phase
from engine.rules import scores
from engine.state import GameState
from tests.engine.builders import board

MIDGAME = leaf_weights(2, DUEL_RUGS // 2)
"""Hard's 2-player leaf weights halfway through a game."""


def _rugs_left(state: GameState) -> int:
    return sum(state.rugs_in_hand(seat) for seat in range(state.players))


def test_a_staged_weight_runs_straight_from_the_start_of_a_duel_to_its_end() -> None:
    weight = Staged(1.0, -0.5)
    assert weight.at(0) == 1.0
    assert weight.at(DUEL_RUGS) == 0.5
    assert weight.at(DUEL_RUGS // 2) == pytest.approx(0.75)
    assert leaf_weights(2, 0) == DUEL_LEAF.at(0)
    assert leaf_weights(2, DUEL_RUGS) == DUEL_LEAF.at(DUEL_RUGS)
    assert leaf_weights(2, DUEL_RUGS + 5) == leaf_weights(2, DUEL_RUGS)
    assert leaf_weights(2, -1) == leaf_weights(2, 0)


def test_a_duels_leaf_follows_the_stage_of_the_game() -> None:
    """The fitted lines, as the module docstring describes them: a square worth more than a
    point early and about one at the end; regions worth more as the game runs out, ours
    always above the rival's; the coming toll always below its size; medium's other weights."""
    stages = [leaf_weights(2, left) for left in range(DUEL_RUGS + 1)]
    assert stages[DUEL_RUGS].square > 1.5
    assert stages[0].square == pytest.approx(1.0, abs=0.05)
    for later, earlier in itertools.pairwise(stages):
        assert later.square < earlier.square
        assert later.region > earlier.region
        assert later.coming_toll > earlier.coming_toll
    for weights in stages:
        assert weights.rival_region is not None
        assert 0 < weights.rival_region < weights.region
        assert 0 < weights.coming_toll < 1
        assert weights.win_stake == DUEL_LEAF.win_stake > 0
        assert weights.horizon == DEFAULT_WEIGHTS.horizon
        assert weights.cover_risk == DEFAULT_WEIGHTS.cover_risk
        assert weights.elimination == DEFAULT_WEIGHTS.elimination
    assert stages[DUEL_RUGS // 2].region > DEFAULT_WEIGHTS.region


def test_more_players_keep_mediums_weights() -> None:
    for left in (0, 20, 48, 96):
        assert leaf_weights(3, left) == leaf_weights(4, left) == DEFAULT_WEIGHTS
    assert DEFAULT_WEIGHTS.square == 1.0
    assert DEFAULT_WEIGHTS.coming_toll == 1.0


def test_the_default_tuning_follows_the_player_count_and_the_stage(
    positions: list[GameState],
) -> None:
    running = [p for p in positions if p.outcome is None and p.rugs_laid]
    for players in (2, 3, 4):
        sample = [p for p in running if p.players == players]
        assert sample
        for state in sample:
            seat = state.to_move
            assert seat is not None
            tuning = leaf_weights(players, _rugs_left(state))
            assert position_value(state, seat) == position_value(state, seat, tuning)


def test_a_heavier_region_weight_favours_the_owner_of_a_big_region(
    positions: list[GameState],
) -> None:
    """Two-player positions mid-game: the seat whose regions are worth more to it (by squared
    size) gains from the heavier weight, its rival loses the same; a position without rugs
    is valued the same under both."""
    heavier = GreedyWeights(region=MIDGAME.region)
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


def test_a_region_s_potential_counts_the_turns_left_to_its_owner_s_rivals() -> None:
    """Its squared size times the rugs its owner's rivals hold (at most `horizon`), not every
    rug left: in 4 players red (seat 0) shows one 4-square region and holds 5 rugs, its three
    rivals 4 in all, so with region weight 1 the region adds 4 / 49 x 4^2 to seat 0's value."""
    state = board(4, [("a1a2", "red"), ("b1b2", "red")])._replace(stock=(5, 2, 1, 1))
    assert [state.rugs_in_hand(seat) for seat in range(4)] == [5, 2, 1, 1]
    with_potential = position_value(state, 0, GreedyWeights(region=1.0))
    without = position_value(state, 0, GreedyWeights(region=0.0))
    assert with_potential - without == pytest.approx(4 / SQUARES * 4**2)


def test_in_a_duel_the_rivals_regions_weigh_less_than_ours(positions: list[GameState]) -> None:
    """With the rival's potential weighed at `rival_region` instead of `region`, the value of
    a running duel rises by the difference times the rival's potential, never falls."""
    assert MIDGAME.rival_region is not None
    assert MIDGAME.rival_region < MIDGAME.region
    margin_only = replace(MIDGAME, win_stake=0.0)
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
    assert DUEL_LEAF.win_stake > 0
    checked = 0
    for state in positions:
        seat = state.to_move if state.to_move is not None else 0
        staked_tuning = leaf_weights(state.players, _rugs_left(state))
        plain = position_value(state, seat, replace(staked_tuning, win_stake=0.0))
        staked = position_value(state, seat, staked_tuning)
        if state.players != 2 or state.outcome is not None or state.is_eliminated(seat):
            assert staked == plain
            continue
        chance = win_chance(plain, state.rugs_in_hand(seat), state.rugs_in_hand(1 - seat))
        assert staked == pytest.approx(plain + DUEL_LEAF.win_stake * chance)
        checked += 1
    assert checked > 10
    assert leaf_weights(3, 30).win_stake == leaf_weights(4, 30).win_stake == 0.0


def _margin(state: GameState, seat: int) -> float:
    """The seat's total less the mean total of its rivals (R11)."""
    totals = [part.total for part in scores(state)]
    rivals = [total for other, total in enumerate(totals) if other != seat]
    return totals[seat] - sum(rivals) / len(rivals)


def test_a_decided_game_is_the_final_margin_plus_decided_split_among_shared_winners(
    positions: list[GameState],
) -> None:
    """A won game is worth the margin plus `DECIDED`, shared among the seats that share first
    place, a lost one the margin minus `DECIDED`: a search that counted a shared win as a
    whole one would settle for a tie where a sole win was there."""
    for players in (2, 3, 4):
        state = next(p for p in positions if p.players == players and p.rugs_laid > 6)
        for winners in ((0,), (0, 1)):
            losers = tuple((seat,) for seat in range(players) if seat not in winners)
            over = state._replace(
                phase=Phase.OVER,
                to_move=None,
                outcome=Outcome((winners, *losers), "rugs-exhausted", "shared"),
            )
            for seat in range(players):
                stake = DECIDED / len(winners) if seat in winners else -DECIDED
                expected = _margin(over, seat) + stake
                assert position_value(over, seat) == pytest.approx(expected), (winners, seat)


def _visible(state: GameState, seat: int) -> int:
    return next(part.visible for part in scores(state) if part.seat == seat)


def test_a_visible_square_counts_at_its_weight(positions: list[GameState]) -> None:
    """Each visible square of ours adds `square` points, each of the rival's takes as much
    away: the value moves by the weight's change times our lead in visible squares."""
    plain = replace(MIDGAME, win_stake=0.0, square=1.0)
    heavier = replace(plain, square=1.5)
    duels = [p for p in positions if p.players == 2 and p.outcome is None and p.rugs_laid]
    assert duels
    moved = 0
    for state in duels:
        seat = state.to_move if state.to_move is not None else 0
        lead = _visible(state, seat) - _visible(state, 1 - seat)
        change = position_value(state, seat, heavier) - position_value(state, seat, plain)
        assert change == pytest.approx(0.5 * lead)
        moved += lead != 0
    assert moved


def test_the_coming_toll_counts_at_its_weight(positions: list[GameState]) -> None:
    """A duel's leaf is linear in the weight of the toll the mover faces next: a weight w
    lies w of the way from none to full; medium's tuning keeps it whole."""
    assert DEFAULT_WEIGHTS.coming_toll == 1.0
    assert 0 < MIDGAME.coming_toll < 1
    full = replace(MIDGAME, win_stake=0.0, coming_toll=1.0)
    weighed = 0
    for state in positions:
        if state.players != 2 or state.outcome is not None or state.to_move is None:
            continue
        seat = state.to_move
        values = [
            position_value(state, seat, replace(full, coming_toll=weight))
            for weight in (0.0, MIDGAME.coming_toll, 1.0)
        ]
        share = MIDGAME.coming_toll
        assert values[1] == pytest.approx(values[0] + share * (values[2] - values[0]))
        weighed += values[2] != values[0]
    assert weighed


def test_the_coming_toll_is_that_of_the_way_to_turn_that_costs_the_mover_least() -> None:
    """With the standard rules the seat to move turns the way that costs it least: straight on
    from d4 every face lands in yellow's 9-square region (c1-e3), left or right none does, so
    at ORIENT no toll is coming. Once it must roll in Assam's facing (ROLL, or the variant) the
    whole toll counts. Taking the costliest way instead would make every leaf fear a toll the
    mover can turn away from."""
    region = [("c1c2", "yellow"), ("d1d2", "yellow"), ("e1e2", "yellow")]
    region += [("c3d3", "yellow"), ("d3e3", "yellow")]
    with_toll = replace(DEFAULT_WEIGHTS, coming_toll=1.0)
    without = replace(DEFAULT_WEIGHTS, coming_toll=0.0)
    orienting = board(2, region, assam="d4", facing="N", phase=Phase.ORIENT)
    assert position_value(orienting, 0, with_toll) == pytest.approx(
        position_value(orienting, 0, without)
    )
    for variant in Variant:
        rolling = board(2, region, assam="d4", facing="N", phase=Phase.ROLL, variant=variant)
        # 9 dirhams paid on every face: -9 for the mover and +9 for its rival, 2 x -9 for us.
        assert position_value(rolling, 0, with_toll) == pytest.approx(
            position_value(rolling, 0, without) - 18.0
        )


def test_the_coming_toll_moves_only_the_dirhams_the_mover_has_and_adds_its_going_out() -> None:
    """A mover about to roll into yellow's 9-square region on every face (R8, R9): with 9
    dirhams it pays its last one and stays in (2 x -9 for us); with 5 it hands over those 5
    and goes out (2 x -5, then `elimination`); with none it hands over nothing and goes out.
    Counting the whole toll as paid would move dirhams the mover does not have."""
    region = [("c1c2", "yellow"), ("d1d2", "yellow"), ("e1e2", "yellow")]
    region += [("c3d3", "yellow"), ("d3e3", "yellow")]
    with_toll = replace(DEFAULT_WEIGHTS, coming_toll=1.0)
    without = replace(DEFAULT_WEIGHTS, coming_toll=0.0)
    out = DEFAULT_WEIGHTS.elimination
    for dirhams, expected in ((9, -18.0), (5, -10.0 - out), (0, -out)):
        rolling = board(2, region, assam="d4", facing="N", phase=Phase.ROLL, dirhams=(dirhams, 30))
        change = position_value(rolling, 0, with_toll) - position_value(rolling, 0, without)
        assert change == pytest.approx(expected), dirhams
