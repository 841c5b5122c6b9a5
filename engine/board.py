"""The 7x7 market: square names, neighbours, Assam's movement (R6, R7) and rug candidates (R10).

Everything here is a table computed once at import time; the rules and the fast playouts share
these tables.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.errors import FormatError
from engine.model import Facing

SIZE = 7
SQUARES = SIZE * SIZE
CENTER = 24
COLUMNS = "abcdefg"

# Row and column deltas per facing (N, E, S, W).
_DELTAS = ((-1, 0), (0, 1), (1, 0), (0, -1))


def square_of(row: int, col: int) -> int:
    """The square number of (row, col): row * 7 + col."""
    return row * SIZE + col


def square_name(square: int) -> str:
    """`0` -> `a1`, `24` -> `d4`: column letter then row number, row 1 at the top."""
    if type(square) is not int or not 0 <= square < SQUARES:
        raise FormatError(f"no square number {square!r} on a 7x7 board")
    return SQUARE_NAMES[square]


def parse_square(name: str) -> int:
    """`d4` -> 24. Raises FormatError for anything that is not a square of the board."""
    if (
        not isinstance(name, str)
        or len(name) != 2
        or name[0] not in COLUMNS
        or name[1] not in "1234567"
    ):
        raise FormatError(f"{name!r} is not a square (columns a-g, rows 1-7, e.g. 'd4')")
    return square_of(int(name[1]) - 1, COLUMNS.index(name[0]))


def turn_left(facing: int) -> Facing:
    """The facing a quarter turn to the left (anticlockwise) of `facing`."""
    return Facing((facing + 3) % 4)


def turn_right(facing: int) -> Facing:
    """The facing a quarter turn to the right (clockwise) of `facing`."""
    return Facing((facing + 1) % 4)


def _neighbours(square: int) -> tuple[int, ...]:
    row, col = divmod(square, SIZE)
    found = []
    for dr, dc in _DELTAS:
        r, c = row + dr, col + dc
        if 0 <= r < SIZE and 0 <= c < SIZE:
            found.append(square_of(r, c))
    return tuple(sorted(found))


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(sq) for sq in range(SQUARES))


class Step(NamedTuple):
    """One step of Assam: the square reached, his facing there, and whether he went round an arc."""

    square: int
    facing: Facing
    via_border: bool


def _border_exit(row: int, col: int, facing: int) -> tuple[int, int, Facing]:
    """Where a step off the board leads (R7): corner arcs at g1 and a7, U-turns elsewhere."""
    if facing == Facing.N:
        if col == 6:
            return 0, 6, Facing.W
        return 0, col ^ 1, Facing.S
    if facing == Facing.W:
        if row == 6:
            return 6, 0, Facing.N
        return row ^ 1, 0, Facing.E
    if facing == Facing.S:
        if col == 0:
            return 6, 0, Facing.E
        return 6, col + 1 if col % 2 else col - 1, Facing.N
    if row == 0:
        return 0, 6, Facing.S
    return row + 1 if row % 2 else row - 1, 6, Facing.W


def _one_step(square: int, facing: int) -> Step:
    row, col = divmod(square, SIZE)
    dr, dc = _DELTAS[facing]
    r, c = row + dr, col + dc
    if 0 <= r < SIZE and 0 <= c < SIZE:
        return Step(square_of(r, c), Facing(facing), False)
    r, c, new_facing = _border_exit(row, col, facing)
    return Step(square_of(r, c), new_facing, True)


STEP: tuple[Step, ...] = tuple(_one_step(sq, f) for sq in range(SQUARES) for f in range(4))
"""STEP[square * 4 + facing]: the result of one step."""


def _walk(square: int, facing: int, steps: int) -> tuple[Step, ...]:
    path = []
    for _ in range(steps):
        step = STEP[square * 4 + facing]
        path.append(step)
        square, facing = step.square, step.facing
    return tuple(path)


WALKS: tuple[tuple[Step, ...], ...] = tuple(
    _walk(sq, f, n) for sq in range(SQUARES) for f in range(4) for n in range(5)
)
"""WALKS[(square * 4 + facing) * 5 + steps]: the path of a walk of 0..4 steps."""


def walk(square: int, facing: int, steps: int) -> tuple[Step, ...]:
    """The squares Assam steps on when he walks `steps` squares from `square` (R6, R7)."""
    return WALKS[(square * 4 + facing) * 5 + steps]


def _candidates(assam: int) -> tuple[tuple[int, int], ...]:
    pairs = set()
    for near in NEIGHBOURS[assam]:
        for far in NEIGHBOURS[near]:
            if far != assam:
                pairs.add((min(near, far), max(near, far)))
    return tuple(sorted(pairs))


CANDIDATES: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    _candidates(sq) for sq in range(SQUARES)
)
"""CANDIDATES[assam]: every rug position touching Assam's square and not covering it (R10)."""


# Integer tables for hot loops (the fast playouts in engine.playout, and the checked rules).
# A "pose" packs Assam's square and facing into one int: square * 4 + facing.

WALK_END: tuple[int, ...] = tuple(
    (path[-1].square * 4 + path[-1].facing) if path else (i // 5) for i, path in enumerate(WALKS)
)
"""WALK_END[pose * 5 + steps]: the pose (square * 4 + facing) where a walk of 0..4 steps ends."""

BIT: tuple[int, ...] = tuple(1 << sq for sq in range(SQUARES))
"""BIT[square]: that square's bit in a 49-bit board mask (bit `square` = row * 7 + col)."""

FULL_MASK = (1 << SQUARES) - 1
_COL0 = sum(BIT[r * SIZE] for r in range(SIZE))
_COL6 = sum(BIT[r * SIZE + SIZE - 1] for r in range(SIZE))
NOT_COL0 = FULL_MASK & ~_COL0
NOT_COL6 = FULL_MASK & ~_COL6


def region_mask(mask: int, square: int) -> int:
    """Squares of `mask` orthogonally connected to `square` through `mask` (a flood fill, R8).

    `mask` is a 49-bit board mask (e.g. the squares showing one colour); `square` must be in it.
    """
    found = 1 << square
    while True:
        grown = (
            found
            | (found << 7)
            | (found >> 7)
            | ((found & NOT_COL6) << 1)
            | ((found & NOT_COL0) >> 1)
        ) & mask
        if grown == found:
            return found
        found = grown


def squares_of(mask: int) -> frozenset[int]:
    """The squares whose bits are set in a board mask."""
    return frozenset(sq for sq in range(SQUARES) if mask >> sq & 1)


PAIRS: tuple[tuple[int, int], ...] = tuple(sorted({pair for pairs in CANDIDATES for pair in pairs}))
"""Every rug position on the board (84 pairs of side-by-side squares), in reading order."""

PAIR_INDEX: dict[tuple[int, int], int] = {pair: index for index, pair in enumerate(PAIRS)}
"""PAIR_INDEX[(low, high)]: the pair's index in PAIRS (its bit in a pair mask)."""

SQUARE_NAMES: tuple[str, ...] = tuple(
    f"{COLUMNS[sq % SIZE]}{sq // SIZE + 1}" for sq in range(SQUARES)
)
"""SQUARE_NAMES[square]: "a1" ... "g7"."""

PAIR_NOTATION: dict[tuple[int, int], str] = {
    (a, b): SQUARE_NAMES[a] + SQUARE_NAMES[b] for a, b in PAIRS
}
"""PAIR_NOTATION[(low, high)]: the written rug placement, lower square first ("c4c5")."""

PAIR_OF_NOTATION: dict[str, tuple[int, int]] = {
    **{note: pair for pair, note in PAIR_NOTATION.items()},
    **{note[2:] + note[:2]: pair for pair, note in PAIR_NOTATION.items()},
}
"""Every rug placement notation, in either square order -> (low, high)."""
