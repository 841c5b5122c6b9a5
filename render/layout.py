"""Where things go: pixel geometry of the board, its border arcs and the panel beside it.

The image is `size` pixels wide (DEFAULT_SIZE unless the caller asks otherwise). It holds a
square with the 7x7 market, the frame with the border mosaic arcs (RULES.md R7) and the
coordinates, and a panel with the turn (or the final ranking) and one entry per seat.

- Landscape (the default): the panel stands to the right of the board and the image is as tall
  as the board, whatever the number of seats, so a turn picture stays short on a phone.
- Portrait: the panel lies below the board, one row per seat, so the image grows with the
  number of seats (the replay GIF uses it).

`image_size` gives the exact width and height for a number of players.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from engine import COLS, ROWS, Facing, walk

DEFAULT_SIZE = 1000
MIN_SIZE = 320
MAX_SIZE = 2000

# The board's square is this many market squares wide: the market, then the frame, the arcs
# and the coordinates on each side.
BOARD_CELLS = 8.9
# In landscape, the panel beside the board is this many market squares wide.
PANEL_CELLS = 5.3

# Portrait panel: heights in market squares, each with a floor in pixels for small images.
ROW_CELLS, ROW_MIN = 0.48, 22
TITLE_CELLS, TITLE_MIN = 0.44, 20
REASON_CELLS, REASON_MIN = 0.38, 14  # the line under the title saying why the game ended
COLUMNS_CELLS, COLUMNS_MIN = 0.28, 14
PAD_CELLS = 0.12

Point = tuple[float, float]
Box = tuple[int, int, int, int]

# Unit vectors (dx, dy) of each facing, y growing downwards.
DIRECTIONS: dict[Facing, tuple[int, int]] = {
    Facing.N: (0, -1),
    Facing.E: (1, 0),
    Facing.S: (0, 1),
    Facing.W: (-1, 0),
}


@dataclass(frozen=True)
class Layout:
    """Pixel geometry for one image width, number of players and orientation."""

    width: int
    players: int
    portrait: bool = False

    @property
    def board_side(self) -> int:
        """Side of the square holding the market, its frame and the coordinates."""
        if self.portrait:
            return self.width
        return round(self.width * BOARD_CELLS / (BOARD_CELLS + PANEL_CELLS))

    @property
    def cell(self) -> int:
        """Side of one market square in pixels."""
        return int(self.board_side / BOARD_CELLS)

    @property
    def origin(self) -> int:
        """x and y of the market's top-left corner (left and top margin)."""
        return (self.board_side - COLS * self.cell) // 2

    @property
    def board_end(self) -> int:
        """x and y just past the market's bottom-right corner."""
        return self.origin + COLS * self.cell

    @property
    def panel_height(self) -> int:
        """Height of the panel: the board's in landscape; in portrait its title line and the
        line under it (why the game ended, on the final panel), a line of column names and a
        row per seat, with a margin above and below."""
        if not self.portrait:
            return self.board_side
        cell = self.cell
        rows = self.players * max(ROW_MIN, round(cell * ROW_CELLS))
        title = max(TITLE_MIN, round(cell * TITLE_CELLS)) + self.reason_height
        columns = max(COLUMNS_MIN, round(cell * COLUMNS_CELLS))
        return title + columns + rows + 2 * round(cell * PAD_CELLS)

    @property
    def reason_height(self) -> int:
        """In portrait, the height of the line under the title (why the game ended): every
        picture keeps it, so that a replay's frames are all the same size."""
        return max(REASON_MIN, round(self.cell * REASON_CELLS)) if self.portrait else 0

    @property
    def panel_box(self) -> Box:
        """Pixel box (x0, y0, x1, y1) of the panel, x1/y1 exclusive."""
        if self.portrait:
            return (0, self.board_side, self.width, self.board_side + self.panel_height)
        return (self.board_side, 0, self.width, self.board_side)

    @property
    def height(self) -> int:
        """Height of the whole image."""
        return self.panel_box[3]

    def square_box(self, square: int) -> Box:
        """Pixel box (x0, y0, x1, y1) of a square, x1/y1 exclusive."""
        row, col = divmod(square, COLS)
        x0 = self.origin + col * self.cell
        y0 = self.origin + row * self.cell
        return (x0, y0, x0 + self.cell, y0 + self.cell)

    def center(self, square: int) -> Point:
        """Pixel centre of a square."""
        row, col = divmod(square, COLS)
        half = self.cell / 2
        return (self.origin + col * self.cell + half, self.origin + row * self.cell + half)

    def center_pixel(self, square: int) -> tuple[int, int]:
        """An integer pixel at the centre of a square."""
        x, y = self.center(square)
        return (int(x), int(y))

    def foot(self, square: int, facing: Facing) -> Point:
        """Midpoint of the side of `square` that faces `facing`."""
        x, y = self.center(square)
        dx, dy = DIRECTIONS[facing]
        return (x + dx * self.cell / 2, y + dy * self.cell / 2)

    def shared_edge_midpoint(self, first: int, second: int) -> Point:
        """Midpoint of the edge between two orthogonally adjacent squares."""
        ax, ay = self.center(first)
        bx, by = self.center(second)
        return ((ax + bx) / 2, (ay + by) / 2)

    def inside(self, point: Point) -> bool:
        """Whether a pixel point lies on the market (not on the frame)."""
        x, y = point
        return self.origin < x < self.board_end and self.origin < y < self.board_end


@lru_cache(maxsize=32)
def layout(width: int, players: int, portrait: bool = False) -> Layout:
    """The (cached) layout of an image `width` pixels wide for `players` seats, the panel
    beside the board (landscape) or below it (`portrait`)."""
    if not MIN_SIZE <= width <= MAX_SIZE:
        raise ValueError(f"size must be between {MIN_SIZE} and {MAX_SIZE} pixels, not {width}")
    if players not in (2, 3, 4):
        raise ValueError(f"players must be 2, 3 or 4, not {players}")
    return Layout(width, players, portrait)


def image_size(
    players: int, *, size: int = DEFAULT_SIZE, portrait: bool = False
) -> tuple[int, int]:
    """(width, height) of a board image for a game of `players` at width `size`: as tall as
    the board in landscape (the same for 2, 3 or 4 seats), taller with each seat in portrait."""
    geometry = layout(size, players, portrait)
    return (geometry.width, geometry.height)


@dataclass(frozen=True)
class Arc:
    """One border mosaic arc of R7: a circle arc outside the market, in PIL's angle convention
    (degrees clockwise from the +x axis), from `start` sweeping `sweep` degrees clockwise."""

    center: Point
    radius: float
    start: float
    sweep: float

    def key(self) -> tuple[float, ...]:
        """The arc as a direction-free tuple (centre, radius, first angle, span), rounded."""
        low = min(self.start, self.start + self.sweep) % 360
        return tuple(round(v, 3) for v in (*self.center, self.radius, low, abs(self.sweep)))

    def points(self, steps_per_quarter: int = 6) -> list[Point]:
        """Points along the arc, both ends included."""
        count = max(2, math.ceil(abs(self.sweep) / 90 * steps_per_quarter))
        cx, cy = self.center
        result = []
        for i in range(count + 1):
            angle = math.radians(self.start + self.sweep * i / count)
            result.append((cx + self.radius * math.cos(angle), cy + self.radius * math.sin(angle)))
        return result


def _arc_between(geometry: Layout, start_foot: Point, end_foot: Point, center: Point) -> Arc:
    """The arc round `center` from one foot to the other that runs outside the market."""
    cx, cy = center
    radius = geometry.cell / 2
    a0 = math.degrees(math.atan2(start_foot[1] - cy, start_foot[0] - cx))
    a1 = math.degrees(math.atan2(end_foot[1] - cy, end_foot[0] - cx))
    clockwise = (a1 - a0) % 360 or 360.0
    for sweep in (clockwise, clockwise - 360):
        mid = math.radians(a0 + sweep / 2)
        probe = (cx + radius * math.cos(mid), cy + radius * math.sin(mid))
        if not geometry.inside(probe):
            return Arc(center, radius, a0, sweep)
    raise ValueError("no arc outside the market joins these feet")  # pragma: no cover


def border_exits() -> list[tuple[int, Facing]]:
    """Every (square, facing) whose next step leaves the market over a border arc (R7), as the
    engine's walk reports it, in square order."""
    return [
        (square, facing)
        for square in range(ROWS * COLS)
        for facing in Facing
        if walk(square, facing, 1)[0].via_border
    ]


def border_arcs(geometry: Layout) -> list[Arc]:
    """The border mosaic arcs (RULES.md R7), found by asking the engine where each step off
    the market leads: U-turns joining pairs of edge squares, and the corner loops at the
    top-right (g1) and bottom-left (a7) squares. Each arc is listed once."""
    arcs: dict[tuple[float, ...], Arc] = {}
    for square, facing in border_exits():
        (step,) = walk(square, facing, 1)
        arc = step_arc(geometry, square, facing, step.square, step.facing)
        arcs.setdefault(arc.key(), arc)
    return list(arcs.values())


def _outer_corner(geometry: Layout, square: int, start: Point, end: Point) -> Point:
    """The market corner where the two sides of a corner square (given by their feet) meet."""
    cx, cy = geometry.center(square)
    return (start[0] + end[0] - cx, start[1] + end[1] - cy)


def step_arc(
    geometry: Layout, square: int, facing_out: Facing, landed: int, facing_in: Facing
) -> Arc:
    """The arc walked by a step that leaves `square` facing `facing_out` over the border and
    lands on `landed` now facing `facing_in` (a Step with via_border)."""
    start = geometry.foot(square, facing_out)
    dx, dy = DIRECTIONS[facing_in]
    lx, ly = geometry.center(landed)
    end = (lx - dx * geometry.cell / 2, ly - dy * geometry.cell / 2)
    if square == landed:
        center = _outer_corner(geometry, square, start, end)
    else:
        center = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
    return _arc_between(geometry, start, end, center)
