"""Where things go: pixel geometry of the board, its border arcs and the panel below it.

The image is `size` pixels wide (DEFAULT_SIZE unless the caller asks otherwise). The top part is
a square holding the 7x7 market, the frame with the border mosaic arcs (RULES.md R7) and the
coordinates; the panel below has a title line, a line of column names and one row per seat.
`image_size` gives the exact width and height for a number of players.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from engine import COLS, ROWS, Facing, walk

DEFAULT_SIZE = 800
MIN_SIZE = 320
MAX_SIZE = 2000

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
    """Pixel geometry for one image width and number of players."""

    width: int
    players: int

    @property
    def cell(self) -> int:
        """Side of one market square in pixels."""
        return int(self.width / 8.9)

    @property
    def origin(self) -> int:
        """x and y of the market's top-left corner (left and top margin)."""
        return (self.width - COLS * self.cell) // 2

    @property
    def board_end(self) -> int:
        """x and y just past the market's bottom-right corner."""
        return self.origin + COLS * self.cell

    @property
    def board_height(self) -> int:
        """Height of the square top part (market, frame, coordinates)."""
        return self.width

    @property
    def row_height(self) -> int:
        """Height of one seat row in the panel."""
        return max(22, round(self.cell * 0.48))

    @property
    def title_height(self) -> int:
        """Height of the panel's title line (turn and die, or why the game ended)."""
        return max(20, round(self.cell * 0.44))

    @property
    def columns_height(self) -> int:
        """Height of the line naming the panel's number columns."""
        return max(14, round(self.cell * 0.28))

    @property
    def panel_pad(self) -> int:
        """Space above and below the panel's content."""
        return round(self.cell * 0.12)

    @property
    def panel_height(self) -> int:
        """Height of the panel below the board."""
        rows = self.players * self.row_height
        return self.title_height + self.columns_height + rows + 2 * self.panel_pad

    @property
    def height(self) -> int:
        """Height of the whole image."""
        return self.board_height + self.panel_height

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
def layout(width: int, players: int) -> Layout:
    """The (cached) layout of an image `width` pixels wide for `players` seats."""
    if not MIN_SIZE <= width <= MAX_SIZE:
        raise ValueError(f"size must be between {MIN_SIZE} and {MAX_SIZE} pixels, not {width}")
    if players not in (2, 3, 4):
        raise ValueError(f"players must be 2, 3 or 4, not {players}")
    return Layout(width, players)


def image_size(players: int, *, size: int = DEFAULT_SIZE) -> tuple[int, int]:
    """(width, height) of a board image for a game of `players` at width `size`."""
    geometry = layout(size, players)
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
