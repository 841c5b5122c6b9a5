"""A drill step's picture: the board before a decision, what the player did (badge 1) and the
better option (badge 2), two rugs or two ways to turn Assam told apart without colour, and
readable scaled to a phone's 390 px."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops

from engine import Phase, placement_notation, placements
from render.drill import BETTER_LABEL, TAKEN_LABEL, drill_marks, render_drill
from render.layout import DEFAULT_SIZE, layout
from render.samples import Moment, first_moment

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


def test_the_rug_taken_and_the_better_rug_are_both_marked_and_numbered() -> None:
    state = moment(Phase.PLACE).state
    rugs = [placement_notation(a, b) for a, b in placements(state)]
    taken, better = rugs[0], rugs[-1]
    marks = drill_marks(state, taken, better)
    assert len(marks.candidates) == 2, "badges 1 and 2, in that order"
    assert marks.last_rug == marks.candidates[0], "the rug laid is framed as one just laid"

    plain = decode(render_drill(state, taken))
    both = decode(render_drill(state, taken, better))
    assert plain.width == DEFAULT_SIZE
    geometry = layout(DEFAULT_SIZE, state.players, False)
    half = geometry.cell // 4
    first, second = marks.candidates
    assert not changed(plain, both, around(geometry.shared_edge_midpoint(*first), half))
    assert changed(plain, both, around(geometry.shared_edge_midpoint(*second), half)), (
        "the better rug appears with its badge once shown"
    )


def test_the_two_ways_to_turn_assam_get_arrows_and_badges() -> None:
    state = moment(Phase.ORIENT).state
    marks = drill_marks(state, "L", "R")
    assert [label for label, _ in marks.turns] == [TAKEN_LABEL, BETTER_LABEL]
    assert marks.turns[0][1] != marks.turns[1][1]
    assert marks.choices == tuple(facing for _, facing in marks.turns)
    alone = drill_marks(state, "L")
    assert [label for label, _ in alone.turns] == [TAKEN_LABEL]
    assert decode(render_drill(state, "L")) != decode(render_drill(state, "L", "R"))


def test_an_action_that_is_not_an_option_is_refused() -> None:
    state = moment(Phase.ORIENT).state
    with pytest.raises(ValueError, match="not ways to turn Assam"):
        drill_marks(state, "L", "X")


def test_a_drill_step_scales_to_a_phone() -> None:
    state = moment(Phase.PLACE).state
    (first, second), *_ = placements(state)
    rug = placement_notation(first, second)
    small = decode(render_drill(state, rug, size=PHONE_WIDTH))
    assert small.width == PHONE_WIDTH


@pytest.mark.parametrize("phase", [Phase.PLACE, Phase.ORIENT])
def test_a_pick_that_is_the_move_taken_is_marked_once(phase: Phase) -> None:
    """Picking again what was played marks it as played (badge 1), not as a second option."""
    state = moment(phase).state
    taken = "S" if phase is Phase.ORIENT else placement_notation(*placements(state)[0])
    assert drill_marks(state, taken, taken) == drill_marks(state, taken)
