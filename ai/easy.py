"""Easy and random: the two light levels.

`random` plays a uniformly random legal action (a baseline for the arena).

`easy` plays like a casual beginner: it looks at the board but not ahead. Half the time it turns
Assam the way with the smallest expected toll (over the exact die), otherwise any way; seven
times in ten it lays the rug that shows the most new squares of its colours (covering rivals
counts double), otherwise any legal rug; in the variant it rotates at random. It never
considers regions, the next player or being covered, so a beginner who builds regions and
steers Assam beats it.
"""

from __future__ import annotations

from ai.budget import Budget
from ai.player import Decision, best_index, check_decision_node
from ai.prng import SplitMix64
from ai.tactics import ORIENT_TURNS, expected_toll, legal_placements, payees
from engine.model import Phase, owner_of
from engine.playout import from_state
from engine.rules import legal_actions, placement_notation
from engine.state import GameState

CAREFUL_ORIENT = 0.5
"""How often easy avoids tolls when turning Assam."""
CAREFUL_PLACE = 0.7
"""How often easy lays its most showy rug."""


class RandomPlayer:
    """The `random` level: a uniformly random legal action."""

    level = "random"

    def decide(self, state: GameState, seed: int, budget: Budget | None = None) -> Decision:
        check_decision_node(state)
        actions = legal_actions(state)
        return Decision(actions[SplitMix64(seed).randrange(len(actions))], self.level)


class EasyPlayer:
    """The `easy` level: a light preference for cheap landings and showy rugs."""

    level = "easy"

    def decide(self, state: GameState, seed: int, budget: Budget | None = None) -> Decision:
        seat = check_decision_node(state)
        rng = SplitMix64(seed)
        actions = legal_actions(state)
        if state.phase is Phase.ROTATE:
            return Decision(actions[rng.randrange(len(actions))], self.level)
        s = from_state(state)
        if state.phase is Phase.ORIENT:
            careful = rng.random() < CAREFUL_ORIENT
            payee_of = payees(s)
            values = [
                -expected_toll(s, payee_of, seat, s.assam * 4 + ((s.facing + turn) & 3))
                for turn in ORIENT_TURNS
            ]
        else:
            careful = rng.random() < CAREFUL_PLACE
            options = legal_placements(s, s.assam)
            actions = [placement_notation(a, b) for a, b in options]
            values = [
                float(_shown(s.colors, s.players, seat, a) + _shown(s.colors, s.players, seat, b))
                for a, b in options
            ]
        choice = best_index(values, rng) if careful else rng.randrange(len(actions))
        return Decision(
            actions[choice],
            self.level,
            evaluations=len(values),
            values=tuple(zip(actions, values, strict=True)),
        )


def _shown(colors: list[int], players: int, seat: int, square: int) -> int:
    """Squares easy counts for covering `square`: 1 if empty, 2 over a rival, 0 over its own."""
    old = colors[square]
    if old < 0:
        return 1
    return 0 if owner_of(players, old) == seat else 2
