"""A drill step's picture: the board before a decision, what the player did (badge 1) and the
better option (badge 2), two rugs or two ways to turn Assam told apart without colour, and
readable scaled to a phone's 390 px."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from PIL import Image, ImageChops

from engine import Phase, placement_notation, placements
from render.board import render_board
from render.drill import BETTER_LABEL, TAKEN_LABEL, drill_marks, render_drill
from render.layout import DEFAULT_SIZE, Layout, layout
from render.overlays import turn_badge_center
from render.palette import BADGE, LAST_RUG, RGB, rug_style
from render.samples import Moment, first_moment
from render.sprites import badge, badge_radius

from .conftest import decode

PHONE_WIDTH = 390


def moment(phase: Phase) -> Moment:
    return first_moment(2, range(3, 40), lambda m: m.state.phase is phase and m.state.turn >= 6)


def changed(a: Image.Image, b: Image.Image, box: tuple[int, int, int, int]) -> bool:
    """Whether the two pictures differ inside `box`."""
    return ImageChops.difference(a.crop(box), b.crop(box)).getbbox() is not None


def around(point: tuple[float, float], half: int) -> tuple[int, int, int, int]:
    x, y = round(point[0]), round(point[1])
    return (x - half, y - half, x + half, y + half)


def badge_pixels(image: Image.Image, point: tuple[float, float], reach: int) -> int:
    """How many pixels of a badge's face (BADGE) lie within `reach` of `point`."""
    box = image.crop(around(point, reach))
    return sum(count for count, colour in box.getcolors(4 * reach * reach) or () if colour == BADGE)


def label_of(
    image: Image.Image,
    cell: int,
    point: tuple[float, float],
    ring: RGB,
    among: Sequence[str] = (TAKEN_LABEL, BETTER_LABEL),
) -> str:
    """Which of the badges `among` (1 and 2) the picture shows centred on `point` (the closest
    match)."""
    sprites = {label: badge(cell, label, ring) for label in among}
    side = sprites[TAKEN_LABEL].width
    left, top = round(point[0] - side / 2), round(point[1] - side / 2)
    seen = image.crop((left, top, left + side, top + side))
    inner = around((side / 2, side / 2), round(badge_radius(cell) * 0.55))

    def distance(label: str) -> int:
        plain = Image.new("RGB", (side, side))
        plain.paste(sprites[label], (0, 0), sprites[label])
        difference = ImageChops.difference(plain.crop(inner), seen.crop(inner)).convert("L")
        return sum(value * count for value, count in enumerate(difference.histogram()))

    return min(sprites, key=distance)


def framed(image: Image.Image, geometry: Layout, squares: tuple[int, ...]) -> bool:
    """Whether the LAST_RUG frame runs along the bottom edge of the rug on `squares`."""
    boxes = [geometry.square_box(square) for square in squares]
    x = (min(b[0] for b in boxes) + max(b[2] for b in boxes)) // 2
    bottom = max(b[3] for b in boxes)
    return any(image.getpixel((x, y)) == LAST_RUG for y in range(bottom - 6, bottom + 3))


def test_the_rug_taken_and_the_better_rug_are_both_marked_and_numbered() -> None:
    """Against the board alone, the rug taken gets badge 1 and the frame of a rug just laid;
    asked for, the better rug gets badge 2 and the rug taken stays as it was."""
    state = moment(Phase.PLACE).state
    assert state.to_move is not None
    rugs = [placement_notation(a, b) for a, b in placements(state)]
    taken, better = rugs[0], rugs[-1]
    marks = drill_marks(state, taken, better)
    assert len(marks.candidates) == 2, "badges 1 and 2, in that order"
    assert marks.last_rug == marks.candidates[0], "the rug laid is framed as one just laid"

    board = decode(render_board(state))
    plain = decode(render_drill(state, taken))
    both = decode(render_drill(state, taken, better))
    assert plain.width == DEFAULT_SIZE
    geometry = layout(DEFAULT_SIZE, state.players, False)
    half = geometry.cell // 4
    reach = badge_radius(geometry.cell) // 2
    ring = rug_style(state.next_rug_color(state.to_move)).fill
    first, second = marks.candidates
    at_first = geometry.shared_edge_midpoint(*first)
    at_second = geometry.shared_edge_midpoint(*second)
    for picture in (plain, both):
        assert changed(board, picture, around(at_first, half)), "the rug taken is marked"
        assert badge_pixels(picture, at_first, reach) > reach
        assert label_of(picture, geometry.cell, at_first, ring) == TAKEN_LABEL
        assert framed(picture, geometry, first), "framed as a rug just laid"
    assert not framed(board, geometry, first)
    assert not changed(plain, both, around(at_first, half))
    assert badge_pixels(plain, at_second, reach) == 0
    assert changed(plain, both, around(at_second, half)), (
        "the better rug appears with its badge once shown"
    )
    assert badge_pixels(both, at_second, reach) > reach
    assert label_of(both, geometry.cell, at_second, ring) == BETTER_LABEL


def test_the_two_ways_to_turn_assam_get_arrows_and_badges() -> None:
    """Each way shown gets a badge on the side Assam would then face: the way taken alone,
    then both; the board alone has none."""
    state = moment(Phase.ORIENT).state
    marks = drill_marks(state, "L", "R")
    assert [label for label, _ in marks.turns] == [TAKEN_LABEL, BETTER_LABEL]
    assert marks.turns[0][1] != marks.turns[1][1]
    assert marks.choices == tuple(facing for _, facing in marks.turns)
    alone = drill_marks(state, "L")
    assert [label for label, _ in alone.turns] == [TAKEN_LABEL]
    board = decode(render_board(state))
    taken = decode(render_drill(state, "L"))
    both = decode(render_drill(state, "L", "R"))
    assert taken != both
    geometry = layout(DEFAULT_SIZE, state.players, False)
    reach = badge_radius(geometry.cell) // 2
    (_, left), (_, right) = marks.turns
    at_left = turn_badge_center(geometry, state.assam, left)
    at_right = turn_badge_center(geometry, state.assam, right)
    assert badge_pixels(board, at_left, reach) == badge_pixels(board, at_right, reach) == 0
    assert badge_pixels(taken, at_left, reach) > reach
    assert badge_pixels(taken, at_right, reach) == 0
    assert badge_pixels(both, at_left, reach) > reach
    assert badge_pixels(both, at_right, reach) > reach


def test_an_action_that_is_not_an_option_is_refused() -> None:
    state = moment(Phase.ORIENT).state
    with pytest.raises(ValueError, match="not ways to turn Assam"):
        drill_marks(state, "L", "X")


def test_a_drill_step_scales_to_a_phone() -> None:
    """At a phone's width the rug taken is still marked: it differs from the board alone
    around it and its badge is there."""
    state = moment(Phase.PLACE).state
    (first, second), *_ = placements(state)
    rug = placement_notation(first, second)
    small = decode(render_drill(state, rug, size=PHONE_WIDTH))
    assert small.width == PHONE_WIDTH
    board = decode(render_board(state, size=PHONE_WIDTH))
    geometry = layout(PHONE_WIDTH, state.players, False)
    at = geometry.shared_edge_midpoint(first, second)
    reach = badge_radius(geometry.cell) // 2
    assert changed(board, small, around(at, geometry.cell // 4))
    assert badge_pixels(small, at, reach) > reach
    assert framed(small, geometry, (first, second))


@pytest.mark.parametrize("phase", [Phase.PLACE, Phase.ORIENT])
def test_a_pick_that_is_the_move_taken_is_marked_once(phase: Phase) -> None:
    """Picking again what was played marks it as played (badge 1), not as a second option."""
    state = moment(phase).state
    taken = "S" if phase is Phase.ORIENT else placement_notation(*placements(state)[0])
    assert drill_marks(state, taken, taken) == drill_marks(state, taken)


def test_a_second_try_draws_every_option_numbered_and_the_rug_taken_framed() -> None:
    state = moment(Phase.PLACE).state
    rugs = sorted(placement_notation(a, b) for a, b in placements(state))
    marks = drill_marks(state, rugs[2], picking=rugs)
    assert len(marks.candidates) == len(rugs), "every option, numbered in the order given"
    assert marks.last_rug == marks.candidates[2], "the rug taken framed as one just laid"
    geometry = layout(DEFAULT_SIZE, state.players, False)
    picture = decode(render_drill(state, rugs[2], picking=rugs))
    assert state.to_move is not None
    ring = rug_style(state.next_rug_color(state.to_move)).fill
    among = [str(number) for number in range(1, len(rugs) + 1)]
    for number, rug in enumerate(marks.candidates, start=1):
        at = geometry.shared_edge_midpoint(*rug)
        assert label_of(picture, geometry.cell, at, ring, among) == str(number)


def test_a_pick_is_drawn_with_the_best_and_the_numbers_the_try_gave() -> None:
    """After a pick, the rug taken, the pick and the best rug the answer names keep their
    numbers from the try's picture and buttons (here 3, 1 and 2), the rug taken framed."""
    state = moment(Phase.PLACE).state
    assert state.to_move is not None
    rugs = sorted(placement_notation(a, b) for a, b in placements(state))
    marks = drill_marks(state, rugs[2], rugs[0], also=rugs[1], badges=("3", "1", "2"))
    assert marks.candidate_labels == ("3", "1", "2")
    assert marks.last_rug == marks.candidates[0], "the rug taken is still framed"
    geometry = layout(DEFAULT_SIZE, state.players, False)
    picture = decode(render_drill(state, rugs[2], rugs[0], also=rugs[1], badges=("3", "1", "2")))
    ring = rug_style(state.next_rug_color(state.to_move)).fill
    among = ["1", "2", "3"]
    for label, rug in zip(("3", "1", "2"), marks.candidates, strict=True):
        at = geometry.shared_edge_midpoint(*rug)
        assert label_of(picture, geometry.cell, at, ring, among) == label
    again = drill_marks(state, rugs[2], rugs[1], also=rugs[1], badges=("3", "2", "2"))
    assert again.candidate_labels == ("3", "2"), "a pick that is the best is drawn once"
