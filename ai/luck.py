"""How lucky a die roll was, for measuring AI strength with fewer games.

`roll_luck(state, face)` is, for the seat about to roll, medium's appraisal of the face rolled
(the toll it pays where Assam lands, then the best rug it can lay there, see
`ai.greedy`) minus the same appraisal averaged over the die's faces (R5: 1, 2, 2, 3, 3,
4). Its average over the die is exactly zero from every position, whatever anyone plays, so a
game's summed luck has mean zero for any pair of players. It moves with the result, though: a
player who rolls onto a rival's large region loses the game more often. The arena subtracts
the part of each result that the luck explains (a control variate, as backgammon programs
measure their strength), which leaves the same expected win rate with a narrower confidence
interval (docs/ai.md says how much narrower).
"""

from __future__ import annotations

from ai.greedy import Greedy
from ai.tactics import DIE_ODDS, LANDINGS
from engine.model import Phase
from engine.playout import from_state
from engine.state import GameState


def face_values(state: GameState) -> list[tuple[int, float, float]]:
    """(face, probability, value for the mover) of every die face at a ROLL state: medium's
    `Greedy.landing_value` of where that face takes Assam."""
    if state.phase is not Phase.ROLL or state.to_move is None:
        raise ValueError("luck is measured at a die roll")
    s = from_state(state)
    greedy = Greedy(s, state.to_move)
    landings = LANDINGS[s.assam * 4 + s.facing]
    return [
        (face, odds, greedy.landing_value(landing))
        for (face, odds), (landing, _) in zip(DIE_ODDS, landings, strict=True)
    ]


def roll_luck(state: GameState, face: int) -> float:
    """How much better rolling `face` is for the seat to roll than the die's average (on
    medium's scale: a point for the mover +1, for each rival -1/(n-1)). Zero on average."""
    values = face_values(state)
    mean = sum(odds * value for _, odds, value in values)
    return next(value for rolled, _, value in values if rolled == face) - mean
