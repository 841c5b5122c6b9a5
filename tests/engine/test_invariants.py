"""Seeded random playouts over every player count and variant, checking invariants each action.

After every action: dirhams are conserved (R8, R9 move money, never make or lose it); rugs in
hand + rugs laid + rugs lost by eliminations stay constant (R1, R9, R10); a decision node has a
legal action and a finished game none (R10, R11); `turn` counts the turns begun and `to_move`
names the roller at a roll and the layer at the variant's turn (FORMATS.md 3); the position
JSON round-trips; and the record replays to the state.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

from engine import (
    CHANCE,
    DieRolled,
    GameState,
    Phase,
    PlayerEliminated,
    RugPlaced,
    TaxPaid,
    TurnStarted,
    Variant,
    apply,
    chance_outcomes,
    current_player,
    deal,
    from_position,
    legal_actions,
    new_game,
    record_of,
    replay_record,
    rugs_per_color,
    to_position,
)

GAMES_PER_COMBO = 3


def total_rugs(players: int) -> int:
    return rugs_per_color(players) * (4 if players == 2 else players)


def check_position_round_trip(state: GameState) -> None:
    position = json.loads(json.dumps(to_position(state)))
    assert to_position(from_position(position)) == position


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variant", list(Variant))
def test_invariants_hold_after_every_action(players: int, variant: Variant) -> None:
    for game in range(GAMES_PER_COMBO):
        rng = random.Random(f"{players}-{variant}-{game}")
        state = new_game(deal(players, variant, rng))
        laid = lost = 0
        started = 1
        step = 0
        while True:
            assert sum(state.dirhams) == 30 * players
            in_hand = sum(state.stock)
            assert in_hand + laid + lost == total_rugs(players)
            assert state.rugs_laid == laid
            assert state.turn == started
            assert sum(1 for c in state.cells if c) <= 2 * laid
            check_position_round_trip(state)
            actions = legal_actions(state)
            if state.is_over:
                assert actions == []
                assert current_player(state) is None
                break
            assert actions, "a decision node always has a legal action"
            assert actions == sorted(set(actions), key=actions.index)  # no duplicates
            if current_player(state) == CHANCE:
                outcomes = chance_outcomes(state)
                assert sum(p for _, p in outcomes) == Fraction(1)
                assert [a for a, _ in outcomes] == actions
            before = state
            state, events = apply(state, actions[int(rng.random() * len(actions))])
            for event in events:
                if isinstance(event, TurnStarted):
                    started += 1
                    assert event.turn == started
                elif isinstance(event, DieRolled):
                    assert before.phase is Phase.ROLL
                    assert event.seat == before.to_move
                elif isinstance(event, RugPlaced):
                    laid += 1
                    assert event.rug_number == laid
                    if state.phase is Phase.ROTATE:
                        assert state.to_move == event.seat
                elif isinstance(event, PlayerEliminated):
                    lost += event.rugs_lost
                elif isinstance(event, TaxPaid):
                    assert 0 <= event.paid <= event.owed == len(event.region)
                    assert state.assam in event.region
            step += 1
            if step % 37 == 0:
                assert replay_record(record_of(state)) == state
        assert replay_record(record_of(state)) == state
        assert state.outcome is not None
        assert sorted(s for group in state.outcome.ranking for s in group) == list(range(players))
