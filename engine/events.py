"""Past-tense events that `apply` reports, rich enough to narrate and draw a turn."""

from __future__ import annotations

from dataclasses import dataclass

from engine.board import Step
from engine.model import Color, Facing, Score


@dataclass(frozen=True, slots=True)
class AssamTurned:
    """The mover turned Assam before the roll (standard rules, R4). rotation: L, S or R."""

    seat: int
    rotation: str
    facing: Facing


@dataclass(frozen=True, slots=True)
class DieRolled:
    """The die showed `face` (R5)."""

    seat: int
    face: int


@dataclass(frozen=True, slots=True)
class AssamMoved:
    """Assam walked `path` (one Step per square, border arcs flagged) from `start`, where he
    faced `start_facing`, to `end`, now facing `facing` (R6, R7)."""

    seat: int
    start: int
    start_facing: Facing
    path: tuple[Step, ...]

    @property
    def end(self) -> int:
        """The square he stopped on."""
        return self.path[-1].square

    @property
    def facing(self) -> Facing:
        """His facing where he stopped (changed by a border arc on the way)."""
        return self.path[-1].facing


@dataclass(frozen=True, slots=True)
class TaxPaid:
    """`payer` owed `owed` dirhams for the `color` region under Assam and paid `paid` (R8)."""

    payer: int
    payee: int
    owed: int
    paid: int
    color: Color
    region: frozenset[int]


@dataclass(frozen=True, slots=True)
class PlayerEliminated:
    """A seat left the game (R9, or by resigning); `rugs_lost` unplaced rugs left with it."""

    seat: int
    rugs_lost: int
    resigned: bool = False


@dataclass(frozen=True, slots=True)
class RugPlaced:
    """A rug of `color` now covers `squares`; it is the `rug_number`-th rug laid (R10)."""

    seat: int
    color: Color
    squares: tuple[int, int]
    rug_number: int


@dataclass(frozen=True, slots=True)
class AssamRotated:
    """The mover turned Assam after laying (variant rotate-after, R12). rotation: L or R."""

    seat: int
    rotation: str
    facing: Facing


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """`seat` begins turn number `turn`."""

    seat: int
    turn: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over (R9, R11)."""

    reason: str
    ranking: tuple[tuple[int, ...], ...]
    scores: tuple[Score, ...]
    tie_break: str


Event = (
    AssamTurned
    | DieRolled
    | AssamMoved
    | TaxPaid
    | PlayerEliminated
    | RugPlaced
    | AssamRotated
    | TurnStarted
    | GameEnded
)
