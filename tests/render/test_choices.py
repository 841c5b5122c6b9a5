"""The ways to turn Assam drawn as arrows (`show_choices`): one into each square he may face,
the straight-on one told apart from the turns without relying on hue."""

from __future__ import annotations

import pytest
from PIL import ImageChops

from engine import COLS, ROWS, Facing, GameState, Phase, Variant, orientations
from render import palette, render_board
from render.board import TurnMarks, board_image
from render.layout import DEFAULT_SIZE, DIRECTIONS, Layout, layout
from render.overlays import turn_badge_center
from render.samples import Moment, at_turn, first_moment
from render.sprites import (
    ARROW_HEAD,
    ARROW_HEAD_LENGTH,
    ARROW_SHAFT,
    ARROW_TIP,
    ARROW_TIP_OFF,
    assam_body_offset,
    badge_radius,
    choice_arrow,
)
from render.vision import DEFICIENCIES, delta_e, simulate

from .conftest import decode

MIN_DIFFERENCE = 15.0  # as for the rug colours (test_palette)
PHONE_WIDTH = 390


def _probe(geometry: Layout, square: int, facing: Facing, reach: float) -> tuple[int, int]:
    """The pixel `reach` squares from the centre of `square` towards `facing`."""
    x, y = geometry.center(square)
    dx, dy = DIRECTIONS[facing]
    return (round(x + dx * reach * geometry.cell), round(y + dy * reach * geometry.cell))


def _in_head(off_market: bool) -> float:
    """A distance from Assam's centre, in squares, that lies well inside an arrow's head."""
    tip = ARROW_TIP_OFF if off_market else ARROW_TIP
    return tip - ARROW_HEAD_LENGTH * 0.7


def _off_market(square: int, facing: Facing) -> bool:
    row, col = divmod(square, COLS)
    dx, dy = DIRECTIONS[facing]
    return not (0 <= row + dy < ROWS and 0 <= col + dx < COLS)


@pytest.fixture(scope="module")
def orient() -> Moment:
    moment = at_turn(3, seed=4, turn=9, phase=Phase.ORIENT)
    assert moment.state.phase is Phase.ORIENT
    return moment


def test_three_arrows_point_left_straight_and_right_on_screen(orient: Moment) -> None:
    state = orient.state
    image = decode(render_board(state, show_choices=True))
    plain = decode(render_board(state))
    geometry = layout(DEFAULT_SIZE, 3)
    facings = [facing for _, facing in orientations(state)]
    left, straight, right = facings
    assert straight is state.facing
    assert {left, right} == {Facing((state.facing + 1) % 4), Facing((state.facing + 3) % 4)}
    for facing in Facing:
        at = _probe(geometry, state.assam, facing, _in_head(_off_market(state.assam, facing)))
        if facing is straight:
            assert image.getpixel(at) == palette.HALO  # solid light
        elif facing in facings:
            assert image.getpixel(at) == palette.ASSAM  # dark body in a light rim
        else:  # never turned round (R4): no arrow behind him
            assert image.getpixel(at) == plain.getpixel(at)


@pytest.mark.parametrize("facing", list(Facing))
def test_each_arrow_reaches_the_next_square_along_its_way(facing: Facing) -> None:
    moment = first_moment(
        3,
        range(1, 60),
        lambda m: (
            m.state.phase is Phase.ORIENT
            and m.state.facing is facing
            and all(not _off_market(m.state.assam, f) for f in Facing)
        ),
    )
    state = moment.state
    image = decode(render_board(state, show_choices=True))
    geometry = layout(DEFAULT_SIZE, 3)
    x, y = geometry.center(state.assam)
    dx, dy = DIRECTIONS[facing]
    # The straight-on arrow lies along his facing, centred, from his disc into the next square.
    for reach in (0.6, 0.9, 1.1):
        assert image.getpixel(_probe(geometry, state.assam, facing, reach)) == palette.HALO
    across = (-dy, dx)
    beside = ARROW_SHAFT * geometry.cell + 4  # just past the side of the shaft
    ox = round(x + dx * 0.7 * geometry.cell + across[0] * beside)
    oy = round(y + dy * 0.7 * geometry.cell + across[1] * beside)
    assert image.getpixel((ox, oy)) != palette.HALO


def test_arrows_are_drawn_only_when_asked_and_only_when_assam_is_to_be_turned(
    orient: Moment, midgame: Moment
) -> None:
    assert render_board(orient.state, show_choices=True) != render_board(orient.state)
    assert render_board(midgame.state, show_choices=True) == render_board(midgame.state)
    rolled = at_turn(3, seed=4, turn=9, phase=Phase.PLACE)
    assert render_board(rolled.state, show_choices=True) == render_board(rolled.state)


def test_in_the_variant_both_turns_after_laying_are_arrows() -> None:
    moment = at_turn(3, seed=4, turn=9, phase=Phase.ROTATE, variant=Variant.ROTATE_AFTER)
    state = moment.state
    image = decode(render_board(state, show_choices=True))
    geometry = layout(DEFAULT_SIZE, 3)
    for _, facing in orientations(state):
        at = _probe(geometry, state.assam, facing, _in_head(_off_market(state.assam, facing)))
        assert image.getpixel(at) == palette.ASSAM  # both are turns: none is straight on


def test_assam_and_the_letter_badges_stay_on_top_of_the_arrows(orient: Moment) -> None:
    state = orient.state
    image = decode(render_board(state, show_choices=True, show_candidates=True))
    geometry = layout(DEFAULT_SIZE, 3)
    x, y = geometry.center_pixel(state.assam)
    dx, dy = assam_body_offset(geometry.cell, state.facing)
    assert image.getpixel((x + dx, y + dy)) == palette.ASSAM
    reach = badge_radius(geometry.cell) // 2
    for _, facing in orientations(state):
        bx, by = turn_badge_center(geometry, state.assam, facing)
        box = image.crop(
            (round(bx) - reach, round(by) - reach, round(bx) + reach, round(by) + reach)
        )
        data = box.tobytes()
        badge = bytes(palette.BADGE)
        assert sum(1 for i in range(0, len(data), 3) if data[i : i + 3] == badge) > reach


def test_arrows_off_the_market_stop_on_the_frame_short_of_the_coordinates() -> None:
    cell = layout(DEFAULT_SIZE, 4).cell
    for straight in (True, False):
        long = choice_arrow(cell, Facing.N, straight).getchannel("A").getbbox()
        short = choice_arrow(cell, Facing.N, straight, True).getchannel("A").getbbox()
        assert long is not None
        assert short is not None
        assert short[1] > long[1]  # its tip (top) is lower
        side = choice_arrow(cell, Facing.N, straight).height
        tip = side / 2 - short[1]  # from Assam's centre
        assert tip < (0.5 + 0.83 - 0.15) * cell  # the coordinates sit 0.83 squares out


def _arrow_reach(state: GameState, geometry: Layout, facing: Facing) -> float:
    """How far, in squares from Assam's centre, the arrow of the way `facing` reaches on the
    board drawn with that arrow alone: its furthest pixel that differs from the bare board."""
    arrow = board_image(state, TurnMarks(choices=(facing,)))
    bare = board_image(state)
    box = ImageChops.difference(arrow, bare).getbbox()
    assert box is not None, facing
    x, y = geometry.center(state.assam)
    far = {Facing.N: y - box[1], Facing.S: box[3] - y, Facing.E: box[2] - x, Facing.W: x - box[0]}
    return far[facing] / geometry.cell


def test_on_the_board_an_arrow_off_the_market_stops_on_the_frame() -> None:
    """Assam on an edge: the way that leaves the market gets the short arrow, stopping on the
    frame short of the coordinates; a way into the market gets the full one."""
    state = first_moment(
        3,
        range(1, 60),
        lambda m: (
            m.state.phase is Phase.ORIENT
            and len({_off_market(m.state.assam, way) for _, way in orientations(m.state)}) == 2
        ),
    ).state
    geometry = layout(DEFAULT_SIZE, 3)
    for _, way in orientations(state):
        reach = _arrow_reach(state, geometry, way)
        if _off_market(state.assam, way):
            assert reach < 0.5 + 0.83 - 0.15, (way, reach)
        else:
            assert reach > ARROW_TIP, (way, reach)


@pytest.mark.parametrize("deficiency", [None, *DEFICIENCIES])
def test_arrows_read_on_every_background_and_apart_for_every_vision(
    deficiency: str | None,
) -> None:
    def seen(color: tuple[int, int, int]) -> tuple[int, int, int]:
        return color if deficiency is None else simulate(color, deficiency)

    # Every arrow is light edged in dark: one of the two stands out on any rug or square.
    for background in palette.DISTINGUISHED.values():
        edge = delta_e(seen(palette.INK), seen(background))
        light = delta_e(seen(palette.HALO), seen(background))
        assert max(edge, light) >= MIN_DIFFERENCE
    # Straight on (light body) and a turn (dark body) differ in lightness, not only in hue.
    assert delta_e(seen(palette.HALO), seen(palette.ASSAM)) >= 4 * MIN_DIFFERENCE


def test_arrows_stay_visible_on_a_phone() -> None:
    geometry = layout(DEFAULT_SIZE, 4)
    scale = PHONE_WIDTH / geometry.width
    assert 2 * ARROW_SHAFT * geometry.cell * scale >= 4  # shaft at least 4 px wide
    assert 2 * ARROW_HEAD * geometry.cell * scale >= 10  # head at least 10 px across
