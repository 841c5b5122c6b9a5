"""GameState: an immutable snapshot of a game, with read-only helpers."""

from __future__ import annotations

from typing import NamedTuple

from engine.model import (
    COLOR_ORDER,
    Color,
    Facing,
    GameConfig,
    Outcome,
    Phase,
    Variant,
    seat_color_indices,
)


class GameState(NamedTuple):
    """A whole game at one moment. Build it with `new_game`; change it only with `apply`.

    `cells[square]` is the number of the visible rug (1-based, in laying order; 0 = empty) and
    `colors[square]` its colour index (-1 = empty). `stock[color_index]` counts the unplaced rugs
    of each colour; `piles[seat]` (2 players) lists colour indices from top to bottom.
    `history` holds every action notation applied, chance included; `resignations` holds
    `(number of actions before it, seat)` for each resignation.
    """

    config: GameConfig
    turn: int
    phase: Phase
    to_move: int | None
    assam: int
    facing: Facing
    cells: tuple[int, ...]
    colors: tuple[int, ...]
    dirhams: tuple[int, ...]
    stock: tuple[int, ...]
    piles: tuple[tuple[int, ...], ...] | None
    eliminated: tuple[int, ...]
    rugs_laid: int
    last_roll: int | None
    outcome: Outcome | None
    history: tuple[str, ...]
    resignations: tuple[tuple[int, int], ...] = ()

    @property
    def players(self) -> int:
        """How many seats the game has (2, 3 or 4)."""
        return self.config.players

    @property
    def variant(self) -> Variant:
        """Standard rules or rotate-after (R12)."""
        return self.config.variant

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (R9, R11)."""
        return self.phase is Phase.OVER

    def is_eliminated(self, seat: int) -> bool:
        """Whether `seat` is out (R9, or resigned)."""
        return seat in self.eliminated

    def seats_in(self) -> tuple[int, ...]:
        """Seats still in the game, in seat order."""
        return tuple(s for s in range(self.config.players) if s not in self.eliminated)

    def color_at(self, square: int) -> Color | None:
        """Colour of the rug visible on `square`, or None if it is empty."""
        index = self.colors[square]
        return None if index < 0 else COLOR_ORDER[index]

    def rugs_left(self, seat: int) -> dict[Color, int]:
        """Unplaced rugs of each of `seat`'s colours."""
        return {
            COLOR_ORDER[i]: self.stock[i] for i in seat_color_indices(self.config.players, seat)
        }

    def rugs_in_hand(self, seat: int) -> int:
        """How many rugs `seat` has still to lay, all colours together."""
        return sum(self.stock[i] for i in seat_color_indices(self.config.players, seat))

    def pile(self, seat: int) -> tuple[Color, ...] | None:
        """`seat`'s remaining pile, top first (2 players, R2); None in 3 or 4 players."""
        if self.piles is None:
            return None
        return tuple(COLOR_ORDER[i] for i in self.piles[seat])

    def next_color_index(self, seat: int) -> int | None:
        """Colour index of the rug `seat` must lay next, or None when it has none left."""
        if self.piles is not None:
            pile = self.piles[seat]
            return pile[0] if pile else None
        (index,) = seat_color_indices(self.config.players, seat)
        return index if self.stock[index] else None

    def next_rug_color(self, seat: int) -> Color | None:
        """The colour `seat` must lay next (the top of its pile in 2 players)."""
        index = self.next_color_index(seat)
        return None if index is None else COLOR_ORDER[index]

    def visible_squares(self, seat: int) -> int:
        """Squares showing one of `seat`'s colours (R11: one point each)."""
        own = seat_color_indices(self.config.players, seat)
        return sum(1 for c in self.colors if c in own)
