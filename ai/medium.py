"""Medium: a greedy player over the exact die distribution (one turn plus the next reply).

At ORIENT it values each way of turning Assam (L, S, R) as the expectation over the die faces
1, 2, 2, 3, 3, 4 of the toll it would pay where Assam lands plus the value of the best rug it
could then lay there, so each orientation is judged by the placement that best follows it.
At PLACE it values every legal rug: squares gained and covered, region growth, the next
mover's likely tolls to us and the risk of our squares being covered (see `ai.greedy`).
At ROTATE (variant R12) it turns Assam towards the facing whose landings pay it most. Exact
ties are broken by the seeded generator. Fixed work (a few hundred placement appraisals at
most), well under 20 ms per decision; a budget does not change its play.
"""

from __future__ import annotations

from ai.budget import Budget
from ai.greedy import DEFAULT_WEIGHTS, Greedy, GreedyWeights
from ai.player import Decision, best_index, check_decision_node
from ai.prng import SplitMix64
from ai.tactics import ORIENT_TURNS, ROTATE_TURNS, legal_placements
from engine.model import Phase
from engine.playout import from_state
from engine.rules import ORIENT_ACTIONS, ROTATE_ACTIONS, placement_notation
from engine.state import GameState


def appraise(
    state: GameState, tuning: GreedyWeights = DEFAULT_WEIGHTS
) -> tuple[list[str], list[float], int]:
    """Every legal action of the seat to move with its greedy value, and the work done."""
    seat = check_decision_node(state)
    s = from_state(state)
    greedy = Greedy(s, seat, tuning)
    square, facing = s.assam, s.facing
    if state.phase is Phase.ORIENT:
        actions = list(ORIENT_ACTIONS)
        values = [
            greedy.orientation_value(square * 4 + ((facing + turn) & 3)) for turn in ORIENT_TURNS
        ]
    elif state.phase is Phase.PLACE:
        options = legal_placements(s, square)
        actions = [placement_notation(a, b) for a, b in options]
        values = [greedy.placement_value(square, facing, a, b) for a, b in options]
    else:
        actions = list(ROTATE_ACTIONS)
        values = [
            greedy.reply_value(square * 4 + ((facing + turn) & 3))[1] for turn in ROTATE_TURNS
        ]
    return actions, values, greedy.evaluations


class MediumPlayer:
    """The `medium` level: greedy over the exact die distribution."""

    level = "medium"

    def __init__(self, tuning: GreedyWeights = DEFAULT_WEIGHTS) -> None:
        self.tuning = tuning

    def decide(self, state: GameState, seed: int, budget: Budget | None = None) -> Decision:
        actions, values, evaluations = appraise(state, self.tuning)
        choice = best_index(values, SplitMix64(seed))
        return Decision(
            actions[choice],
            self.level,
            evaluations=evaluations,
            values=tuple(zip(actions, values, strict=True)),
        )
