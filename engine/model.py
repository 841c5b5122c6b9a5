"""Basic vocabulary of the game: colours, facings, phases, variants, config, scores, outcomes."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum

PLAYER_COUNTS = (2, 3, 4)
STARTING_DIRHAMS = 30


class Color(StrEnum):
    """A rug colour, in seat order (RULES.md R1)."""

    RED = "red"
    YELLOW = "yellow"
    BLUE = "blue"
    BROWN = "brown"

    @property
    def order(self) -> int:
        """Position in seat order: red 0, yellow 1, blue 2, brown 3."""
        return _COLOR_INDEX[self]


COLOR_ORDER: tuple[Color, ...] = (Color.RED, Color.YELLOW, Color.BLUE, Color.BROWN)
_COLOR_INDEX: dict[Color, int] = {color: index for index, color in enumerate(COLOR_ORDER)}


class Facing(IntEnum):
    """The way Assam looks, clockwise from north (up)."""

    N = 0
    E = 1
    S = 2
    W = 3


class Phase(StrEnum):
    """What kind of decision comes next (FORMATS.md position `phase`)."""

    ORIENT = "orient"
    ROLL = "roll"
    PLACE = "place"
    ROTATE = "rotate"
    OVER = "over"


class Variant(StrEnum):
    """Standard rules, or Assam turning at the end of the turn (RULES.md R12)."""

    STANDARD = "standard"
    ROTATE_AFTER = "rotate-after"


def seat_color_indices(players: int, seat: int) -> tuple[int, ...]:
    """Colour indices of a seat (R1): one colour each, two each in a 2-player game."""
    if players == 2:
        return (seat, seat + 2)
    return (seat,)


def seat_colors(players: int, seat: int) -> tuple[Color, ...]:
    """Colours of a seat (R1): 2 players: seat 0 red+blue, seat 1 yellow+brown."""
    return tuple(COLOR_ORDER[i] for i in seat_color_indices(players, seat))


def owner_of(players: int, color_index: int) -> int:
    """The seat that owns a colour index."""
    return color_index % 2 if players == 2 else color_index


def rugs_per_color(players: int) -> int:
    """How many rugs of each colour in play a game starts with (R1)."""
    return {2: 12, 3: 15, 4: 12}[players]


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything fixed at the start of a game (FORMATS.md record header)."""

    players: int
    variant: Variant = Variant.STANDARD
    first_player: int = 0
    piles: tuple[tuple[Color, ...], ...] | None = None


@dataclass(frozen=True, slots=True)
class Score:
    """One seat's score (R11): dirhams plus visible squares of its colours."""

    seat: int
    dirhams: int
    visible: int
    total: int


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended.

    `ranking` lists groups of tied seats, best first (R9, R11). `tie_break` says what decided
    first place: "score" (a higher total, or being the last player standing), "dirhams" (equal
    totals, more dirhams) or "shared" (equal on both: a shared win).
    """

    ranking: tuple[tuple[int, ...], ...]
    reason: str
    tie_break: str

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats in first place (more than one for a shared win)."""
        return self.ranking[0]
