"""Hard's look one turn further (engine.ai.lookahead): the same values as playing that turn out
with the checked engine, and where it applies; hard's second search at a choice of facing."""

from __future__ import annotations

import pytest

from engine import apply, legal_actions
from engine.ai import Budget, HardPlayer
from engine.ai import hard as hard_module
from engine.ai.evaluation import DECIDED, DUEL_WEIGHTS, position_value
from engine.ai.greedy import GreedyWeights
from engine.ai.lookahead import next_turn_value, searchable
from engine.ai.tactics import DIE_ODDS
from engine.model import Phase, Variant
from engine.rules import ORIENT_ACTIONS, ROTATE_ACTIONS
from engine.state import GameState

RIVAL_MOVES = GreedyWeights(
    region=DUEL_WEIGHTS.rival_region or 0.0, rival_region=DUEL_WEIGHTS.region
)
"""The leaf tuning seen from us once the rival moves next: its regions at `region`, ours at
`rival_region` (position_value gives `region` to the seat it values)."""


def _played_out(state: GameState, seat: int) -> float:
    """next_turn_value computed the slow way: every action through `engine.apply`."""
    if state.phase is Phase.ROLL:
        rolls = [state]
    else:
        rolls = [apply(state, action)[0] for action in ORIENT_ACTIONS]
    return max(
        sum(odds * _landed(apply(roll, f"D{face}")[0], seat) for face, odds in DIE_ODDS)
        for roll in rolls
    )


def _landed(state: GameState, seat: int) -> float:
    if state.phase is not Phase.PLACE:  # our toll ended the game for us (R9)
        return position_value(state, seat)
    return max(_after_rug(apply(state, rug)[0], seat) for rug in legal_actions(state))


def _after_rug(state: GameState, seat: int) -> float:
    if state.phase is Phase.ROTATE and state.to_move == seat:  # R12: we rotate Assam
        return max(_after_rug(apply(state, turn)[0], seat) for turn in ROTATE_ACTIONS)
    return position_value(state, seat, RIVAL_MOVES)


def _rolling_duels(positions: list[GameState]) -> list[GameState]:
    """2-player positions where the mover rolls next: standard ones at their choice of facing,
    and in the variant the moment after the previous mover rotated Assam (R12)."""
    found = []
    for state in positions:
        if state.players != 2 or state.outcome is not None:
            continue
        if state.variant is Variant.STANDARD and state.phase is Phase.ORIENT:
            found.append(state)
        elif state.phase is Phase.ROTATE:
            found.append(apply(state, ROTATE_ACTIONS[0])[0])
    return [state for state in found if searchable(state, state.to_move or 0)]


def test_the_searched_turn_equals_playing_it_out_with_the_engine(
    positions: list[GameState],
) -> None:
    duels = _rolling_duels(positions)
    assert any(s.variant is Variant.ROTATE_AFTER for s in duels)
    assert any(s.variant is Variant.STANDARD and s.rugs_laid > 20 for s in duels)
    for state in duels:
        seat = state.to_move
        assert seat is not None
        assert next_turn_value(state, seat) == pytest.approx(_played_out(state, seat), abs=1e-9)


def test_the_last_rug_and_a_ruinous_toll_count_as_decided(positions: list[GameState]) -> None:
    """At the last turn of a duel the game ends with our rug; a mover without dirhams is out
    wherever it owes a toll (R9): both are valued as decided games, as the engine plays them."""
    duels = _rolling_duels(positions)
    last = [s for s in duels if sum(s.stock) == 1]
    assert last
    for state in last:
        seat = state.to_move
        assert seat is not None
        value = next_turn_value(state, seat)
        assert abs(value) > DECIDED / 2
        assert value == pytest.approx(_played_out(state, seat), abs=1e-9)
    ruined = 0
    for state in duels:
        seat = state.to_move
        assert seat is not None
        broke = state._replace(
            dirhams=tuple(0 if s == seat else d for s, d in enumerate(state.dirhams))
        )
        value = next_turn_value(broke, seat)
        assert value == pytest.approx(_played_out(broke, seat), abs=1e-9)
        if value < next_turn_value(state, seat) - DECIDED / 6:  # a toll on a face of the die
            ruined += 1
    assert ruined


def test_elsewhere_it_is_the_position_value(positions: list[GameState]) -> None:
    """More than 2 players, a rug to lay, a rotation to choose or a finished game: nothing to
    search, the position is valued as it stands."""
    others = [s for s in positions if not searchable(s, s.to_move or 0)]
    assert {s.players for s in others} == {2, 3, 4}
    for state in others:
        seat = state.to_move if state.to_move is not None else 0
        assert next_turn_value(state, seat) == position_value(state, seat)


def _busy_duel(positions: list[GameState]) -> GameState:
    return max(
        (
            p
            for p in positions
            if p.players == 2 and p.variant is Variant.STANDARD and p.phase is Phase.ORIENT
        ),
        key=lambda p: (len(legal_actions(p)), p.rugs_laid > 6, -abs(p.rugs_laid - 20)),
    )


def test_hard_searches_its_best_rugs_again_one_turn_deeper(
    positions: list[GameState], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At a 2-player choice of facing, the two-turn search is followed by rounds that search
    the best rugs of every die face again with `next_turn_value` at the leaves; a round that
    does not fit the budget is not used, so every facing is valued at the same depth."""
    state = _busy_duel(positions)
    ample = Budget(work=10_000)
    monkeypatch.setattr(hard_module, "REFINED_OPTIONS", 0)
    two_turns = HardPlayer().decide(state, seed=1, budget=ample)
    monkeypatch.setattr(hard_module, "REFINED_OPTIONS", 2)
    cut = HardPlayer().decide(state, seed=1, budget=Budget(work=two_turns.work + 5))
    assert cut.work == two_turns.work + 5
    assert cut.values == two_turns.values
    one_round = HardPlayer().decide(state, seed=1, budget=Budget(work=two_turns.work + 12))
    deeper = HardPlayer().decide(state, seed=1, budget=ample)
    assert two_turns.work < one_round.work < deeper.work <= two_turns.work + 24
    assert one_round.values != two_turns.values
    assert deeper.values != one_round.values
    assert all(value < 1e9 for _, value in deeper.values)
