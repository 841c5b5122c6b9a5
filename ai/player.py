"""The interface every AI level implements, and the checks shared by all of them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ai.budget import Budget
from ai.prng import SplitMix64
from engine.model import Phase
from engine.state import GameState

DECISION_PHASES = (Phase.ORIENT, Phase.PLACE, Phase.ROTATE)


class NotADecisionError(ValueError):
    """Raised when an AI is asked to act where no seat decides (a die roll, or the game is over)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """An AI's chosen action and what it cost: `work` search nodes (hard) and `evaluations`
    of candidate actions or placements. `values` pairs each considered action with its value
    (higher is better, on the level's own scale), for explanations and tests."""

    action: str
    level: str
    work: int = 0
    evaluations: int = 0
    values: tuple[tuple[str, float], ...] = ()


class Player(Protocol):
    """An AI level: picks an action for the seat to move at a decision node."""

    level: str

    def decide(self, state: GameState, seed: int, budget: Budget | None = None) -> Decision: ...


def check_decision_node(state: GameState) -> int:
    """The seat to act; raises NotADecisionError at a die roll or once the game is over."""
    if state.phase not in DECISION_PHASES or state.to_move is None:
        raise NotADecisionError(
            f"no seat decides now (phase {state.phase.value}): the AI acts at orient, place "
            "and rotate only"
        )
    return state.to_move


TIE_TOLERANCE = 1e-9
"""Values this close to the best count as equal best (broken by the seeded generator)."""


def best_indices(values: Sequence[float], tolerance: float = TIE_TOLERANCE) -> list[int]:
    """Indices of the values equal to the highest (within `tolerance`), in order."""
    top = max(values)
    return [i for i, value in enumerate(values) if value >= top - tolerance]


def best_index(values: Sequence[float], rng: SplitMix64, tolerance: float = TIE_TOLERANCE) -> int:
    """Index of the highest value; equal best values are broken by `rng`, uniformly."""
    best = best_indices(values, tolerance)
    return best[0] if len(best) == 1 else best[rng.randrange(len(best))]
