"""Hard's search: the greedy turn it simulates for the next mover, over its hidden colour."""

from __future__ import annotations

import itertools
import random

import pytest

from ai import Budget, HardPlayer
from ai.evaluation import position_value
from ai.hard import greedy_turn, pile_tops, public_view
from ai.medium import appraise
from ai.player import best_indices
from ai.tactics import DIE_ODDS
from engine import apply, deal, legal_actions, new_game
from engine.model import Phase, Variant
from engine.rules import ROTATE_ACTIONS
from engine.state import GameState
from tests.ai.conftest import random_game

UNLIMITED = Budget(work=100_000)
"""A work budget that never binds (and no time cap), so every option is searched."""


def _medium_turn(state: GameState) -> list[tuple[float, GameState]]:
    """The mover's turn as `medium` may play it: (chance, state after) per way it may go."""
    mover = state.to_move
    assert mover is not None
    outcomes = []
    for actions, chance in _medium_distribution(state, mover).items():
        after = state
        for action in actions:
            after = apply(after, action)[0]
        outcomes.append((chance, after))
    return outcomes


def _with_top(state: GameState, seat: int, color: int) -> GameState:
    """`state` with one rug of `color` moved to the top of `seat`'s pile."""
    assert state.piles is not None
    pile = list(state.piles[seat])
    pile.remove(color)
    piles = list(state.piles)
    piles[seat] = (color, *pile)
    return state._replace(piles=tuple(piles))


def _value_after(state: GameState, seat: int) -> float:
    """Our rug is down in `state`: our best rotation (variant), then the rival's medium turn
    with each colour it may draw (by its share of the pile) and each die face."""
    if state.phase is Phase.ROTATE and state.to_move == seat:
        return max(_value_after(apply(state, a)[0], seat) for a in ROTATE_ACTIONS)
    if state.outcome is not None or state.to_move == seat:
        return position_value(state, seat)
    rival = state.to_move
    assert rival is not None
    assert state.piles is not None
    pile = state.piles[rival]
    total = 0.0
    for color in sorted(set(pile)):
        chance = pile.count(color) / len(pile)
        for odds, after in _medium_turn(_with_top(state, rival, color)):
            total += chance * odds * position_value(after, seat)
    return total


def _uneven(state: GameState) -> bool:
    """A 2-player state whose next mover's rival holds both colours in unequal numbers."""
    if state.players != 2 or state.piles is None or state.to_move is None:
        return False
    pile = state.piles[1 - state.to_move]
    counts = sorted(pile.count(color) for color in set(pile))
    return len(counts) == 2 and counts[0] != counts[1]


def _duel_positions(phase: Phase) -> list[GameState]:
    """2-player decision states of `phase`, both variants, where the rival's two colours are
    left in unequal numbers (so their chances differ)."""
    found = [
        state
        for variant in Variant
        for seed in (5, 6)
        for state in random_game(2, variant, seed)[20:-6:9]
        if state.phase is phase and _uneven(state)
    ]
    assert {p.variant for p in found} == (
        {Variant.ROTATE_AFTER} if phase is Phase.ROTATE else set(Variant)
    )
    return found


def _medium_distribution(state: GameState, mover: int) -> dict[tuple[str, ...], float]:
    """How `medium` may play out `mover`'s turn from `state`: the chance of each sequence of
    actions (die faces by their odds, each of medium's equally valued best actions, by
    `appraise`, with an equal share, as its seeded tie-break picks them)."""
    if state.to_move != mover or state.outcome is not None:
        return {(): 1.0}
    if state.phase is Phase.ROLL:
        branches = [(f"D{face}", odds) for face, odds in DIE_ODDS]
    else:
        actions, values, _ = appraise(state)
        best = [a for a, v in zip(actions, values, strict=True) if v >= max(values) - 1e-9]
        branches = [(action, 1.0 / len(best)) for action in best]
    found: dict[tuple[str, ...], float] = {}
    for action, chance in branches:
        for rest, odds in _medium_distribution(apply(state, action)[0], mover).items():
            found[(action, *rest)] = found.get((action, *rest), 0.0) + chance * odds
    return found


def test_greedy_turn_is_the_distribution_of_medium_s_turn(positions: list[GameState]) -> None:
    """From a turn's start, in the standard rules (turning Assam) and in the variant (the die,
    then the rug and the turn of Assam after it, R12), `greedy_turn` gives each way medium may
    play its turn with medium's chance of it: equal best options share, the two ways of
    turning Assam after the rug included."""
    starts = [p for p in positions if p.phase is Phase.ORIENT and p.outcome is None][::2]
    variant_starts = [apply(p, "L")[0] for p in positions if p.phase is Phase.ROTATE]
    variant_starts = [p for p in variant_starts if p.phase is Phase.ROLL and p.outcome is None]
    assert len(variant_starts) >= 20
    starts += variant_starts
    tied = 0
    tied_rotations = 0
    for state in starts:
        mover = state.to_move
        assert mover is not None
        outcomes = greedy_turn(state)
        assert sum(chance for chance, _ in outcomes) == pytest.approx(1.0)
        played: dict[tuple[str, ...], float] = {}
        for chance, after in outcomes:
            actions = after.history[len(state.history) :]
            replay = state
            for action in actions:
                replay = apply(replay, action)[0]
            assert replay == after
            assert after.to_move != mover or after.outcome is not None
            played[actions] = played.get(actions, 0.0) + chance
        expected = _medium_distribution(state, mover)
        assert played.keys() == expected.keys()
        for actions, chance in expected.items():
            assert played[actions] == pytest.approx(chance)
        tied += len(outcomes) > len(DIE_ODDS)
        rugs = {actions[:-1] for actions in expected if actions[-1] in ROTATE_ACTIONS}
        tied_rotations += any((*rug, "L") in expected and (*rug, "R") in expected for rug in rugs)
    assert tied >= 3, "the sample must hold turns where medium's best options tie"
    assert tied_rotations >= 1, "and a turn where medium's two ways of turning Assam tie"


def test_greedy_turn_splits_the_opening_s_equal_choices() -> None:
    opening = new_game(deal(2, Variant.STANDARD, random.Random(3)))
    _, values, _ = appraise(opening)
    assert values[0] == values[1] == values[2]  # an empty board: every way is as good
    outcomes = greedy_turn(opening)
    turns = {after.history[0] for _, after in outcomes}
    assert turns == {"L", "S", "R"}
    for turn in turns:
        share = sum(chance for chance, after in outcomes if after.history[0] == turn)
        assert share == pytest.approx(1 / 3)


def test_hard_breaks_exact_ties_with_its_seeded_generator() -> None:
    """Searched in full, every way of turning Assam at a 2-player opening is worth the same to
    hard; which it takes follows the seed, so each of them is played."""
    opening = new_game(deal(2, Variant.STANDARD, random.Random(3)))
    decisions = [HardPlayer().decide(opening, seed, UNLIMITED) for seed in range(4)]
    assert best_indices([value for _, value in decisions[0].values]) == [0, 1, 2]
    assert {decision.action for decision in decisions} == {"L", "S", "R"}


def test_pile_tops_weigh_each_colour_by_its_share() -> None:
    state = _duel_positions(Phase.PLACE)[0]
    rival = 1 - (state.to_move or 0)
    before_rival = state._replace(to_move=rival)
    tops = pile_tops(before_rival)
    assert before_rival.piles is not None
    pile = before_rival.piles[rival]
    assert sum(chance for chance, _ in tops) == pytest.approx(1.0)
    assert len(tops) == 2
    assert tops[0][0] != tops[1][0]
    for chance, top in tops:
        assert top.piles is not None
        assert sorted(top.piles[rival]) == sorted(pile)
        assert top.piles[1 - rival] == before_rival.piles[1 - rival]
        assert chance == pile.count(top.piles[rival][0]) / len(pile)
    assert {top.piles[rival][0] for _, top in tops if top.piles} == set(pile)


def test_no_chance_without_a_choice_of_colour(positions: list[GameState]) -> None:
    four = next(p for p in positions if p.players == 4)
    assert pile_tops(four) == [(1.0, four)]
    duel = _duel_positions(Phase.PLACE)[0]
    assert duel.piles is not None
    seat = duel.to_move
    assert seat is not None
    one_colour = tuple(duel.piles[seat][0] for _ in duel.piles[seat])
    piles = tuple(one_colour if s == seat else pile for s, pile in enumerate(duel.piles))
    single = duel._replace(piles=piles)
    assert pile_tops(single) == [(1.0, single)]


@pytest.mark.parametrize("variant", list(Variant))
def test_rug_values_are_the_expectimax_over_the_rival_s_colour_and_the_die(
    variant: Variant,
) -> None:
    state = next(p for p in _duel_positions(Phase.PLACE) if p.variant is variant)
    seat = state.to_move
    assert seat is not None
    decision = HardPlayer().decide(state, seed=1, budget=UNLIMITED)
    assert len(decision.values) == len(legal_actions(state))
    view = public_view(state, seat)
    for action, value in decision.values:
        assert value == pytest.approx(_value_after(apply(view, action)[0], seat), abs=1e-9)
    assert dict(decision.values)[decision.action] == max(v for _, v in decision.values)


def test_rotation_values_in_the_variant() -> None:
    state = _duel_positions(Phase.ROTATE)[0]
    seat = state.to_move
    assert seat is not None
    decision = HardPlayer().decide(state, seed=5, budget=UNLIMITED)
    view = public_view(state, seat)
    for action, value in decision.values:
        assert value == pytest.approx(_value_after(apply(view, action)[0], seat), abs=1e-9)


def test_a_rival_turn_is_one_unit_of_work_over_both_colours() -> None:
    state = _duel_positions(Phase.PLACE)[0]
    rugs = len(legal_actions(state)) * (2 if state.variant is Variant.ROTATE_AFTER else 1)
    decision = HardPlayer().decide(state, seed=3, budget=UNLIMITED)
    assert decision.work == rugs


def _a_rival_plays_next(state: GameState, seat: int) -> bool:
    """Whether a rival still holds rugs: only then does a line of ours cost work (a rival turn
    simulated)."""
    return any(state.rugs_in_hand(other) for other in state.seats_in() if other != seat)


def _medium_best_rug(state: GameState) -> str:
    """The rug medium's appraisal values most at a PLACE state (the first of equals)."""
    actions, values, _ = appraise(state)
    return actions[values.index(max(values))]


def test_rugs_are_searched_best_first_by_medium_s_appraisal(positions: list[GameState]) -> None:
    """Hard lists and searches our rugs best first by medium's appraisal, so a budget that
    runs out after one rug has searched medium's best (the others are worth -inf), and that
    is the rug hard lays. Searching the worst first would leave hard the worst rugs."""
    checked = 0
    for state in positions:
        if state.phase is not Phase.PLACE or len(legal_actions(state)) < 4:
            continue
        seat = state.to_move
        assert seat is not None
        actions, values, _ = appraise(public_view(state, seat))
        medium = dict(zip(actions, values, strict=True))
        if len(set(values)) < 2 or not _a_rival_plays_next(state, seat):
            continue
        one_rug = 2 if state.variant is Variant.ROTATE_AFTER else 1
        decision = HardPlayer().decide(state, seed=0, budget=Budget(work=one_rug))
        ranked = [action for action, _ in decision.values]
        assert sorted(ranked) == sorted(actions)
        assert all(medium[a] >= medium[b] for a, b in itertools.pairwise(ranked)), ranked
        searched = [action for action, value in decision.values if value > float("-inf")]
        assert searched == [ranked[0]]
        assert medium[ranked[0]] == max(values)
        assert decision.action == ranked[0]
        checked += 1
    assert checked >= 5


def test_a_budget_for_one_rug_per_landing_values_each_facing_by_medium_s_best_rugs(
    positions: list[GameState],
) -> None:
    """Our rug options are widened step by step, the best rug at every landing first: with
    work for that first step alone, each way of turning Assam is worth, over the die, the
    search's value of medium's best rug where Assam lands."""
    starts = [
        p
        for p in positions
        if p.players == 2
        and p.phase is Phase.ORIENT
        and p.to_move is not None
        and p.rugs_laid > 4
        and _a_rival_plays_next(p, p.to_move)
    ][:3]
    assert len(starts) == 3
    for state in starts:
        seat = state.to_move
        assert seat is not None
        view = public_view(state, seat)
        expected: dict[str, float] = {}
        first_step = 0
        for action in ("L", "S", "R"):
            turned = apply(view, action)[0]
            value = 0.0
            for face, odds in DIE_ODDS:
                rolled = apply(turned, f"D{face}")[0]
                first_step += 1  # one rival turn per landing (no rotation in the standard rules)
                if rolled.phase is Phase.PLACE:
                    rolled = apply(rolled, _medium_best_rug(rolled))[0]
                value += odds * _value_after(rolled, seat)
            expected[action] = value
        decision = HardPlayer().decide(state, seed=0, budget=Budget(work=first_step))
        assert dict(decision.values) == pytest.approx(expected, abs=1e-9)
