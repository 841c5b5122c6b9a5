"""Geometry: image sizes in both layouts, the border arcs drawn exactly where the engine walks
(R7), and the squares named round the market as RULES.md names them."""

from __future__ import annotations

import math

import pytest
from PIL import Image, ImageChops, ImageStat

from engine import COLS, ROWS, Facing, square_name, walk
from render import image_size, palette
from render.layout import (
    DEFAULT_SIZE,
    MAX_SIZE,
    MIN_SIZE,
    Arc,
    Layout,
    border_arcs,
    border_exits,
    layout,
    step_arc,
)
from render.market import base_image
from render.panel import panel_model
from render.samples import at_turn, finished
from render.text import draw_text

PHONE_WIDTH = 390


def _semicircle(geometry: Layout, first: int, second: int, side: Facing) -> tuple[float, ...]:
    """The key of a U-turn arc joining two edge squares on their `side`, built from RULES.md
    alone: centred between the two sides' midpoints, half a square in radius, outside."""
    (ax, ay), (bx, by) = geometry.foot(first, side), geometry.foot(second, side)
    start = {Facing.N: 180.0, Facing.E: 270.0, Facing.S: 0.0, Facing.W: 90.0}[side]
    center = ((ax + bx) / 2, (ay + by) / 2)
    return Arc(center, geometry.cell / 2, start, 180.0).key()


def _loop(geometry: Layout, corner: tuple[float, float], start: float) -> tuple[float, ...]:
    """The key of a corner loop: three quarters of a circle round the market's corner."""
    return Arc(corner, geometry.cell / 2, start, 270.0).key()


def test_arcs_are_exactly_where_rules_r7_puts_them() -> None:
    geometry = layout(DEFAULT_SIZE, 4)
    o, e, last = geometry.origin, geometry.board_end, ROWS - 1
    expected = set()
    # R7: north pairs columns {0,1} {2,3} {4,5}; west pairs rows {0,1} {2,3} {4,5};
    # south pairs columns {1,2} {3,4} {5,6}; east pairs rows {1,2} {3,4} {5,6}.
    for low in (0, 2, 4):
        expected.add(_semicircle(geometry, low, low + 1, Facing.N))
        expected.add(_semicircle(geometry, low * COLS, (low + 1) * COLS, Facing.W))
    for low in (1, 3, 5):
        expected.add(_semicircle(geometry, last * COLS + low, last * COLS + low + 1, Facing.S))
        expected.add(_semicircle(geometry, low * COLS + last, (low + 1) * COLS + last, Facing.E))
    # Corner loops round the outer corners of g1 (top-right) and a7 (bottom-left).
    expected.add(_loop(geometry, (e, o), 180.0))
    expected.add(_loop(geometry, (o, e), 0.0))
    drawn = {arc.key() for arc in border_arcs(geometry)}
    assert drawn == expected
    assert len(drawn) == 14


def test_every_border_step_of_the_engine_follows_a_drawn_arc() -> None:
    geometry = layout(DEFAULT_SIZE, 4)
    drawn = {arc.key() for arc in border_arcs(geometry)}
    exits = border_exits()
    edges = {Facing.N: range(COLS), Facing.S: range((ROWS - 1) * COLS, ROWS * COLS)}
    edges |= {Facing.W: range(0, ROWS * COLS, COLS), Facing.E: range(COLS - 1, ROWS * COLS, COLS)}
    assert set(exits) == {(square, side) for side, squares in edges.items() for square in squares}
    for square, facing in exits:
        (step,) = walk(square, facing, 1)
        assert step.via_border
        assert step_arc(geometry, square, facing, step.square, step.facing).key() in drawn


def test_corner_loops_are_at_top_right_and_bottom_left() -> None:
    geometry = layout(DEFAULT_SIZE, 4)
    loops = [arc for arc in border_arcs(geometry) if abs(arc.sweep) == 270]
    corners = {(round(arc.center[0]), round(arc.center[1])) for arc in loops}
    o, e = geometry.origin, geometry.board_end
    assert corners == {(e, o), (o, e)}


def test_arcs_lie_outside_the_market() -> None:
    geometry = layout(DEFAULT_SIZE, 4)
    for arc in border_arcs(geometry):
        inner = arc.points()[1:-1]
        assert inner
        assert not any(geometry.inside(point) for point in inner)


def _is_arc(pixel: object) -> bool:
    """Whether a pixel shows the arc band's colour (the static picture is smoothed, so +-8)."""
    assert isinstance(pixel, tuple)
    distance: int = max(abs(a - b) for a, b in zip(pixel, palette.ARC, strict=True))
    return distance <= 8


def test_static_picture_shows_arcs_only_where_r7_puts_them() -> None:
    geometry = layout(DEFAULT_SIZE, 4)
    image = base_image(DEFAULT_SIZE, 4)
    # Probe inside the arc band, just off its middle line (a thin tile joint).
    half = geometry.cell / 2 + geometry.cell * 0.045
    o = geometry.origin
    # North edge: arcs over columns {0,1} {2,3} {4,5}, none between 1 and 2 nor 3 and 4.
    for boundary, expect_arc in ((1, True), (2, False), (3, True), (4, False), (5, True)):
        x = o + boundary * geometry.cell
        top = image.getpixel((round(x), round(o - half)))
        assert _is_arc(top) is expect_arc, boundary
    # West edge: rows {0,1} {2,3} {4,5}; east edge: rows {1,2} {3,4} {5,6}.
    for boundary in (1, 3, 5):
        y = o + boundary * geometry.cell
        assert _is_arc(image.getpixel((round(o - half), round(y))))
        assert not _is_arc(image.getpixel((round(geometry.board_end + half), round(y))))
    for boundary in (2, 4, 6):
        y = o + boundary * geometry.cell
        assert _is_arc(image.getpixel((round(geometry.board_end + half), round(y))))
    # The top-right loop passes diagonally outside the corner of g1.
    diagonal = half / math.sqrt(2)
    corner = (round(geometry.board_end + diagonal), round(o - diagonal))
    assert _is_arc(image.getpixel(corner))


def _read_label(image: Image.Image, at: tuple[float, float], size: int) -> str:
    """The column letter or row number drawn centred at `at` on the picture around the board:
    the one whose glyph, drawn there alone, looks most like what is there."""
    reach = round(size * 0.5)  # the glyph, short of the frame
    x, y = round(at[0]), round(at[1])
    box = (x - reach, y - reach, x + reach, y + reach)
    seen = image.crop(box)

    def distance(glyph: str) -> float:
        alone = Image.new("RGB", seen.size, palette.BACKGROUND)
        where = (at[0] - box[0], at[1] - box[1])
        draw_text(alone, where, glyph, size=size, fill=palette.LABEL, bold=True, anchor="mm")
        return sum(ImageStat.Stat(ImageChops.difference(alone, seen)).sum)

    return min("abcdefg1234567", key=distance)


@pytest.mark.parametrize("portrait", [False, True], ids=["beside", "below"])
def test_squares_are_named_round_the_market_as_the_rules_name_them(portrait: bool) -> None:
    """RULES.md: columns a to g from left to right, above and below the market; rows 1 to 7
    from top to bottom, on both sides (a1 is the top-left square)."""
    geometry = layout(DEFAULT_SIZE, 4, portrait)
    image = base_image(DEFAULT_SIZE, 4, portrait)
    cell = geometry.cell
    size = max(10, round(cell * 0.24))
    near, far = geometry.origin - round(cell * 0.83), geometry.board_end + round(cell * 0.83)
    middles = [geometry.origin + i * cell + cell / 2 for i in range(COLS)]
    read = {
        "above": "".join(_read_label(image, (mid, near), size) for mid in middles),
        "below": "".join(_read_label(image, (mid, far), size) for mid in middles),
        "left": "".join(_read_label(image, (near, mid), size) for mid in middles),
        "right": "".join(_read_label(image, (far, mid), size) for mid in middles),
    }
    assert read == {"above": "abcdefg", "below": "abcdefg", "left": "1234567", "right": "1234567"}
    assert (square_name(0), square_name(COLS - 1), square_name(COLS)) == ("a1", "g1", "a2")


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("size", [320, 560, DEFAULT_SIZE, 1200])
def test_landscape_is_wider_than_tall_and_the_same_for_every_player_count(
    players: int, size: int
) -> None:
    width, height = image_size(players, size=size)
    assert width == size
    assert 1.45 < width / height < 1.7
    assert (width, height) == image_size(4, size=size)
    geometry = layout(size, players)
    assert geometry.board_side == height
    assert geometry.panel_box == (height, 0, width, height)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("size", [320, 560, DEFAULT_SIZE, 1200])
def test_portrait_grows_with_players_and_keeps_the_width(players: int, size: int) -> None:
    width, height = image_size(players, size=size, portrait=True)
    assert width == size
    assert height > size
    if players > 2:
        assert height > image_size(players - 1, size=size, portrait=True)[1]


def test_default_turn_picture_fits_a_phone_screen_with_its_message() -> None:
    # A 390x844 phone shows the turn message: a line of text, the picture at the screen's
    # width and up to three rows of buttons, under the app's own bars.
    width, height = image_size(4)
    assert (width, height) == (1000, 627)
    assert round(height * PHONE_WIDTH / width) <= 250
    portrait = image_size(4, portrait=True)
    # The panel below the board (portrait) would take twice that height of the screen.
    assert round(portrait[1] * PHONE_WIDTH / portrait[0]) > 500


def test_the_market_keeps_its_proportions_in_both_layouts() -> None:
    for portrait in (False, True):
        geometry = layout(DEFAULT_SIZE, 4, portrait)
        margin = geometry.origin
        assert geometry.board_end + margin <= geometry.board_side
        assert 0.9 * geometry.cell <= margin <= 1.1 * geometry.cell


@pytest.mark.parametrize("bad", [0, 100, 5000])
def test_unreasonable_sizes_are_refused(bad: int) -> None:
    with pytest.raises(ValueError, match="size"):
        image_size(4, size=bad)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("portrait", [False, True])
def test_every_panel_text_and_seat_entry_stays_inside_the_panel(
    players: int, portrait: bool
) -> None:
    names = ("Zoë Ñúñez-Ångström", "Дмитро Їжак", "Γιώργος 🎲", "李小龙")[:players]
    live = at_turn(players, seed=3, turn=10).state
    end = finished(players, seed=3).state
    for size in (MIN_SIZE, 560, DEFAULT_SIZE, MAX_SIZE):
        px0, py0, px1, py1 = layout(size, players, portrait).panel_box
        for state, final in ((live, False), (end, True)):
            model = panel_model(state, size=size, portrait=portrait, names=names, final=final)
            boxes = [text.box for text in model.texts] + [seat.box for seat in model.seats]
            for x0, y0, x1, y1 in boxes:
                assert px0 <= x0 < x1 <= px1, (size, final)
                assert py0 <= y0 < y1 <= py1, (size, final)
