"""The rules guide's pictures (render.guide): deterministic, square, the board alone, and each
showing what its scene is for: a walk round a border arc, a payment, the numbered places."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from engine import COLS, ROWS, SQUARES, Phase, TaxPaid, placements
from render import GuideScene, render_guide
from render.guide import GUIDE_SIZE, SCRIPTS, guide_scene
from render.layout import layout
from render.overlays import path_points, payment_center
from render.palette import COIN, PATH, REGION
from render.sprites import coin_radius
from tests.render.conftest import decode


@pytest.mark.parametrize("scene", list(GuideScene))
def test_a_scene_is_the_same_bytes_every_time(scene: GuideScene) -> None:
    png = render_guide(scene)
    assert png == render_guide(scene.value)
    image = decode(png)
    assert image.size == (GUIDE_SIZE, GUIDE_SIZE), "the board and its frame, no panel"
    assert len(png) < 60_000


def test_the_same_bytes_in_another_process(repo_root: Path) -> None:
    here = [hashlib.sha256(render_guide(scene)).hexdigest() for scene in GuideScene]
    code = (
        "import hashlib; from render import GuideScene, render_guide;"
        "print(' '.join(hashlib.sha256(render_guide(s)).hexdigest() for s in GuideScene))"
    )
    there = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=repo_root
    ).stdout.split()
    assert there == here


def test_every_scene_is_its_own_picture() -> None:
    pictures = {render_guide(scene) for scene in GuideScene}
    assert len(pictures) == len(GuideScene)
    assert set(SCRIPTS) == set(GuideScene)


def test_other_sizes_and_unknown_scenes() -> None:
    assert decode(render_guide(GuideScene.PAY, size=320)).size == (320, 320)
    with pytest.raises(ValueError, match="size"):
        render_guide(GuideScene.PAY, size=100)
    with pytest.raises(ValueError, match="nowhere"):
        render_guide("nowhere")


def test_the_walk_goes_round_a_border_arc_and_is_drawn() -> None:
    scene = guide_scene(GuideScene.MOVE)
    moved = scene.marks.path
    assert moved is not None
    assert [step.via_border for step in moved.path] == [False, True, False]
    assert not scene.marks.paid_region
    assert not scene.marks.candidates
    image = decode(render_guide(GuideScene.MOVE))
    geometry = layout(GUIDE_SIZE, 3, portrait=True)
    points = path_points(geometry, moved)
    assert len(points) > len(moved.path) + 1, "the arc is drawn as a curve"
    top = min(points, key=lambda point: point[1])
    assert top[1] < geometry.origin, "the curve leaves the market over the frame"
    x, y = round(top[0]), round(top[1])
    assert image.getpixel((x, y)) == PATH


def test_the_payment_outlines_the_region_and_shows_the_toll() -> None:
    """The scene is a payment of 4 for a region of 4 squares, and its picture shows it: the
    region's outline on each side of its squares that borders the outside of the region, none
    on a side between two of them (the squares Assam's walk covers left out), and the coin
    where Assam paid."""
    scene = guide_scene(GuideScene.PAY)
    (tax,) = [event for event in scene.events if isinstance(event, TaxPaid)]
    assert scene.marks.paid_region == tax.region
    assert scene.marks.paid == tax.paid == len(tax.region) == 4
    assert scene.state.phase is Phase.PLACE
    assert scene.state.assam in tax.region
    assert tax.payer != tax.payee
    image = decode(render_guide(GuideScene.PAY))
    geometry = layout(GUIDE_SIZE, 3, portrait=True)
    moved = scene.marks.path
    assert moved is not None
    walked = {moved.start, *(step.square for step in moved.path)}
    checked = 0
    for square in tax.region - walked:
        row, col = divmod(square, COLS)
        x0, y0, x1, y1 = geometry.square_box(square)
        middle = ((x0 + x1) // 2, (y0 + y1) // 2)
        sides = (
            ((row - 1, col), (middle[0], y0)),
            ((row + 1, col), (middle[0], y1)),
            ((row, col - 1), (x0, middle[1])),
            ((row, col + 1), (x1, middle[1])),
        )
        for (r, c), point in sides:
            outline = not (0 <= r < ROWS and 0 <= c < COLS) or r * COLS + c not in tax.region
            assert (image.getpixel(point) == REGION) is outline, (square, (r, c))
            checked += outline
    assert checked >= 4
    x, y = payment_center(geometry, scene.state.assam)
    reach = coin_radius(geometry.cell) // 2
    box = image.crop((round(x) - reach, round(y) - reach, round(x) + reach, round(y) + reach))
    coin = sum(count for count, colour in box.getcolors(4 * reach * reach) or () if colour == COIN)
    assert coin > reach, "the coin with the sum paid"


def test_the_places_to_lay_are_the_engine_s() -> None:
    scene = guide_scene(GuideScene.LAY)
    assert scene.state.phase is Phase.PLACE
    assert list(scene.marks.candidates) == placements(scene.state)
    assert len(scene.marks.candidates) == 10
    assert all(0 <= square < SQUARES for pair in scene.marks.candidates for square in pair)
    assert scene.marks.path is None
