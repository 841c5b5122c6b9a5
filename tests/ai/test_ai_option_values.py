"""Hard's search as a judge reads it: each legal option's expected value (`option_values`)."""

from __future__ import annotations

import pytest

from ai import Budget, HardPlayer, NotADecisionError
from ai.hard import option_values, public_view
from engine import apply, legal_actions
from engine.model import Phase, Variant
from engine.state import GameState
from tests.ai.conftest import random_game
from tests.tracing import untraced

UNLIMITED = Budget(work=100_000)


def _sample(positions: list[GameState]) -> list[GameState]:
    """A few positions of every decision phase, both 2 and 4 players."""
    chosen = []
    for phase in (Phase.ORIENT, Phase.PLACE, Phase.ROTATE):
        for players in (2, 4):
            found = [p for p in positions if p.phase is phase and p.players == players]
            chosen.extend(found[1:3])
    assert {p.phase for p in chosen} == {Phase.ORIENT, Phase.PLACE, Phase.ROTATE}
    return chosen


def test_every_legal_option_is_valued_as_hard_values_it(positions: list[GameState]) -> None:
    """Hard's own decision is the reference, searched with the coverage tracer paused
    (tests/tracing.py): its lines are measured by hard's tests (tests/ai/test_ai_hard.py), and
    here the tracer would only double the time of a search `option_values` runs traced."""
    for state in _sample(positions):
        values = option_values(state)
        assert sorted(action for action, _ in values) == sorted(legal_actions(state))
        with untraced():
            decision = HardPlayer().decide(state, seed=1, budget=UNLIMITED)
        assert values == decision.values


def test_a_constant_leaf_is_worth_itself_whatever_the_option(positions: list[GameState]) -> None:
    for state in _sample(positions):
        values = option_values(state, leaf=lambda _state, _seat: 1.0)
        assert [value for _, value in values] == pytest.approx([1.0] * len(values))


def test_a_leaf_reads_the_seat_to_move_at_the_lines_ends(positions: list[GameState]) -> None:
    state = next(p for p in _sample(positions) if p.phase is Phase.PLACE)
    seats: set[int] = set()
    depths: set[int] = set()

    def leaf(end: GameState, seat: int) -> float:
        seats.add(seat)
        depths.add(len(end.history) - len(state.history))
        return 0.0

    option_values(state, leaf=leaf)
    assert seats == {state.to_move}
    assert min(depths) >= 2  # our rug, then at least the next mover's turn


def test_the_values_do_not_depend_on_the_hidden_pile_order() -> None:
    """Reversing the rival's hidden 2-player pile changes no option's value (R2).

    The rival's pile holds both colours, a different one at each end, so the reversal puts
    another colour on its top: a search that read the real piles, or the rival's real next rug,
    would value the options differently.
    """
    state = next(
        p for p in random_game(2, Variant.STANDARD, 12) if p.phase is Phase.PLACE and p.turn == 11
    )
    seat = state.to_move
    assert seat is not None
    assert state.piles is not None
    rival = 1 - seat
    shuffled = list(state.piles)
    shuffled[rival] = tuple(reversed(state.piles[rival]))
    other = state._replace(piles=tuple(shuffled))
    assert other != state
    assert other.piles is not None
    assert other.piles[rival][0] != state.piles[rival][0]  # the rival's next rug changed
    assert option_values(other) == option_values(state)
    assert public_view(other, seat) == public_view(state, seat)


def test_a_budget_skips_the_last_rugs_and_a_tiny_one_is_refused(
    positions: list[GameState],
) -> None:
    state = next(
        p
        for p in positions
        if p.phase is Phase.PLACE and p.variant is Variant.STANDARD and len(legal_actions(p)) > 3
    )
    values = [value for _, value in option_values(state, budget=Budget(work=2))]
    assert values[2:] == [float("-inf")] * (len(values) - 2)
    assert all(value > float("-inf") for value in values[:2])
    orient = next(p for p in positions if p.phase is Phase.ORIENT)
    with pytest.raises(ValueError, match="every option once"):
        option_values(orient, budget=Budget(work=1))


def test_no_options_at_a_die_roll(positions: list[GameState]) -> None:
    state = next(p for p in positions if p.phase is Phase.ORIENT)
    rolling = apply(state, legal_actions(state)[0])[0]
    assert rolling.phase is Phase.ROLL
    with pytest.raises(NotADecisionError):
        option_values(rolling)
