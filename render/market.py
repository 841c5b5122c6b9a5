"""The static picture under every board: market squares, frame, border mosaic arcs (R7),
coordinates and the panel's background. Drawn once per size and orientation (supersampled for
smooth curves) and cached; every board starts from a copy of it.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from engine import COLS, ROWS, square_name
from render import palette
from render.layout import Layout, border_arcs, layout
from render.text import draw_text

SUPERSAMPLE = 3


def _scaled_box(box: tuple[float, float, float, float], factor: int) -> tuple[int, ...]:
    return tuple(round(v * factor) for v in box)


def _draw_frame(draw: ImageDraw.ImageDraw, geometry: Layout, s: int) -> None:
    cell = geometry.cell
    outer = geometry.origin - round(cell * 0.68)
    end = geometry.board_end + round(cell * 0.68)
    radius = round(cell * 0.22)
    draw.rounded_rectangle(
        _scaled_box((outer, outer, end, end), s),
        radius=radius * s,
        fill=palette.FRAME,
        outline=palette.FRAME_EDGE,
        width=max(1, round(cell * 0.04)) * s,
    )
    # A thin light line round the market, like the edge of the tiled square.
    o, e, gap = geometry.origin, geometry.board_end, cell * 0.05
    draw.rectangle(
        _scaled_box((o - gap, o - gap, e + gap, e + gap), s),
        outline=palette.ARC,
        width=max(1, round(cell * 0.02 * s)),
    )


def _draw_market(draw: ImageDraw.ImageDraw, geometry: Layout, s: int) -> None:
    cell = geometry.cell
    o, e = geometry.origin, geometry.board_end
    draw.rectangle(_scaled_box((o, o, e, e), s), fill=palette.SQUARE)
    line = max(1, round(cell * 0.02)) * s
    for i in range(COLS + 1):
        p = (o + i * cell) * s
        draw.line([(p, o * s), (p, e * s)], fill=palette.SQUARE_LINE, width=line)
        draw.line([(o * s, p), (e * s, p)], fill=palette.SQUARE_LINE, width=line)
    # A small tile star at every inner crossing of the grid.
    size = cell * 0.09
    for r in range(1, ROWS):
        for c in range(1, COLS):
            cx, cy = o + c * cell, o + r * cell
            star = [(cx, cy - size), (cx + size / 3, cy), (cx, cy + size), (cx - size / 3, cy)]
            draw.polygon([(x * s, y * s) for x, y in star], fill=palette.SQUARE_LINE)
            star = [(cx - size, cy), (cx, cy - size / 3), (cx + size, cy), (cx, cy + size / 3)]
            draw.polygon([(x * s, y * s) for x, y in star], fill=palette.SQUARE_LINE)


def _ring(
    draw: ImageDraw.ImageDraw,
    center: tuple[float, float],
    radius: float,
    width: float,
    angles: tuple[float, float],
    color: tuple[int, int, int],
    s: int,
) -> None:
    """A band of `width` centred on a circle of `radius`, between two angles."""
    cx, cy = center
    outer = radius + width / 2
    box = _scaled_box((cx - outer, cy - outer, cx + outer, cy + outer), s)
    draw.arc(box, angles[0], angles[1], fill=color, width=max(1, round(width * s)))


def _draw_arcs(draw: ImageDraw.ImageDraw, geometry: Layout, s: int) -> None:
    """The border mosaic arcs of R7: a light band edged in teal, with a thin joint down its
    middle, on the circle Assam follows round each arc."""
    cell = geometry.cell
    band = cell * 0.15
    edge = cell * 0.035
    for arc in border_arcs(geometry):
        angles = (min(arc.start, arc.start + arc.sweep), max(arc.start, arc.start + arc.sweep))
        _ring(draw, arc.center, arc.radius, band + 2 * edge, angles, palette.ARC_EDGE, s)
        _ring(draw, arc.center, arc.radius, band, angles, palette.ARC, s)
        _ring(draw, arc.center, arc.radius, edge * 0.6, angles, palette.ARC_EDGE, s)


def _draw_coordinates(image: Image.Image, geometry: Layout) -> None:
    """Column letters a-g above and below the market, row numbers 1-7 (top to bottom) on both
    sides, as RULES.md names squares."""
    cell = geometry.cell
    size = max(10, round(cell * 0.24))
    away = geometry.origin - round(cell * 0.83)
    far = geometry.board_end + round(cell * 0.83)
    for i in range(COLS):
        mid = geometry.origin + i * cell + cell / 2
        name = square_name(i * COLS + i)  # the names of column i and row i, e.g. "b2"
        letter, number = name[0], name[1:]
        for x, y, text in (
            (mid, away, letter),
            (mid, far, letter),
            (away, mid, number),
            (far, mid, number),
        ):
            draw_text(image, (x, y), text, size=size, fill=palette.LABEL, bold=True, anchor="mm")


@lru_cache(maxsize=8)
def _market(width: int, portrait: bool) -> Image.Image:
    """The board's square (the market, its frame, arcs and coordinates) of a picture `width`
    pixels wide: the same whatever the number of seats, so drawn once for all of them."""
    geometry = layout(width, 2, portrait)  # the seats change only the panel
    s = SUPERSAMPLE
    side = geometry.board_side
    big = Image.new("RGB", (side * s, side * s), palette.BACKGROUND)
    draw = ImageDraw.Draw(big)
    _draw_frame(draw, geometry, s)
    _draw_arcs(draw, geometry, s)
    _draw_market(draw, geometry, s)
    board = big.resize((side, side), Image.Resampling.LANCZOS)
    _draw_coordinates(board, geometry)
    return board


@lru_cache(maxsize=16)
def base_image(width: int, players: int, portrait: bool = False) -> Image.Image:
    """The static picture for a board of `players` seats, `width` pixels wide, the panel beside
    or (`portrait`) below the board (cached: copy it before drawing on it)."""
    geometry = layout(width, players, portrait)
    image = Image.new("RGB", (geometry.width, geometry.height), palette.BACKGROUND)
    image.paste(_market(width, portrait), (0, 0))
    x0, y0, x1, y1 = geometry.panel_box
    ImageDraw.Draw(image).rectangle((x0, y0, x1 - 1, y1 - 1), fill=palette.PANEL)
    return image
