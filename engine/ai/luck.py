"""How lucky a die roll was, for measuring AI strength with fewer games.

`roll_luck(state, face)` is, for the seat about to roll, medium's appraisal of the face rolled
(the toll it pays where Assam lands, then the best rug it can lay there, see
`engine.ai.greedy`) minus the same appraisal averaged over the die's faces (R5: 1, 2, 2, 3, 3,
4). Its average over the die is exactly zero from every position, whatever anyone plays, so a
game's summed luck has mean zero for any pair of players. It moves with the result, though: a
player who rolls onto a rival's large region loses the game more often. The arena subtracts
the part of each result that the luck explains (a control variate, as backgammon programs
measure their strength), which leaves the same expected win rate with a narrower confidence
interval: over 400 medium-against-medium duels, luck explains 84% of the variance of the
score difference and 48% of that of winning.
"""

from __future__ import annotations

from engine.ai.greedy import Greedy
from engine.ai.tactics import DIE_ODDS, LANDINGS, toll
from engine.model import Phase
from engine.playout import from_state
from engine.state import GameState


def face_values(state: GameState) -> list[tuple[int, float, float]]:
    """(face, probability, value for the mover) of every die face at a ROLL state."""
    if state.phase is not Phase.ROLL or state.to_move is None:
        raise ValueError("luck is measured at a die roll")
    mover = state.to_move
    s = from_state(state)
    greedy = Greedy(s, mover)
    pose = s.assam * 4 + s.facing
    values = []
    for (face, odds), (landing, _) in zip(DIE_ODDS, LANDINGS[pose], strict=True):
        square = landing >> 2
        payee, amount = toll(s, greedy.payee_of, mover, square)
        value = greedy.toll_value(mover, payee, amount)
        if amount <= s.dirhams[mover] and greedy.color >= 0:
            value += greedy.best_placements(square, landing & 3)[0]
        values.append((face, odds, value))
    return values


def roll_luck(state: GameState, face: int) -> float:
    """How much better rolling `face` is for the seat to roll than the die's average (on
    medium's scale: a point for the mover +1, for each rival -1/(n-1)). Zero on average."""
    values = face_values(state)
    mean = sum(odds * value for _, odds, value in values)
    return next(value for rolled, _, value in values if rolled == face) - mean
