"""AI players for Marrakech: four levels that can take any seat, on `engine` and the standard
library only (never `render` or `bot`; `engine` never imports this package).

Levels (each a module with its own docstring):

- `random` (`ai.easy.RandomPlayer`): a uniformly random legal action; a baseline.
- `easy` (`ai.easy.EasyPlayer`): looks at the board, not ahead: usually turns Assam away
  from tolls and lays its showiest rug, otherwise plays at random. Beatable by a beginner.
- `medium` (`ai.medium.MediumPlayer`): greedy over the exact die distribution: tolls
  paid and received, squares gained and covered, region growth, the next mover's reply and the
  risk of being covered; each orientation is judged by the best rug that can follow it.
- `hard` (`ai.hard.HardPlayer`): expectimax over the exact die, two turns deep: all of
  its own options (orientation, every die face, its rugs best first, rotation), then the next
  mover's turn as medium would play it (in 2 players over each colour it may draw), then a
  leaf evaluation (scores, region potential, the toll it faces next, in 2 players the chance
  of winning, a bonus for a game won). It widens its rug options until the budget is spent.

Entry point: `choose_action(state, level, seed, budget=None) -> str` at any decision node
(ORIENT, PLACE, ROTATE; never at a die roll). The same state, level, seed and work budget give
the same action, so a game with AI players replays exactly. The AI never reads hidden
information: the 2-player piles are seen only as far as they are revealed (R2).
`decide(...)` returns the full `Decision` (action, work done, values).
"""

from __future__ import annotations

from ai.budget import Budget
from ai.easy import EasyPlayer, RandomPlayer
from ai.hard import DEFAULT_BUDGET, HardPlayer
from ai.medium import MediumPlayer
from ai.player import Decision, NotADecisionError, Player
from ai.prng import SplitMix64, mix_seed
from engine.state import GameState

LEVELS = ("random", "easy", "medium", "hard")


def make_player(level: str) -> Player:
    """A player of the named level ("random", "easy", "medium" or "hard")."""
    if level == "random":
        return RandomPlayer()
    if level == "easy":
        return EasyPlayer()
    if level == "medium":
        return MediumPlayer()
    if level == "hard":
        return HardPlayer()
    raise ValueError(f"unknown AI level {level!r}: choose one of {', '.join(LEVELS)}")


def decide(state: GameState, level: str, seed: int, budget: Budget | None = None) -> Decision:
    """The decision of a `level` player for the seat to move (see `choose_action`)."""
    return make_player(level).decide(state, seed, budget)


def choose_action(state: GameState, level: str, seed: int, budget: Budget | None = None) -> str:
    """The action (notation) a `level` player picks for the seat to move.

    `seed` makes the choice reproducible (derive it from the game seed and the action index,
    e.g. with `mix_seed`). `budget` limits hard's search (default `DEFAULT_BUDGET`: 160 nodes,
    at most 0.9 s); the other levels do a small fixed amount of work. Raises
    NotADecisionError at a die roll or when the game is over.
    """
    return decide(state, level, seed, budget).action


__all__ = [
    "DEFAULT_BUDGET",
    "LEVELS",
    "Budget",
    "Decision",
    "EasyPlayer",
    "HardPlayer",
    "MediumPlayer",
    "NotADecisionError",
    "Player",
    "RandomPlayer",
    "SplitMix64",
    "choose_action",
    "decide",
    "make_player",
    "mix_seed",
]
