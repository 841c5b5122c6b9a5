"""Board pictures checked on their pixels: size, rug colours, Assam, candidates, overlays."""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys
from pathlib import Path
from typing import cast

import pytest
from PIL import Image, ImageChops

from engine import (
    COLOR_ORDER,
    COLS,
    ROWS,
    AssamMoved,
    Facing,
    GameState,
    Phase,
    RugPlaced,
    TaxPaid,
    Variant,
    legal_actions,
    orientations,
    owner_of,
    placement_notation,
    placements,
    seat_colors,
)
from render import (
    DEFAULT_SIZE,
    TurnMarks,
    board_image,
    image_size,
    marks_from_events,
    render_board,
    render_game_over,
)
from render.layout import Layout, layout, step_arc
from render.overlays import path_points, payment_center, turn_badge_center
from render.palette import (
    ASSAM,
    BADGE,
    COIN,
    LAST_RUG,
    NEUTRAL_STYLE,
    PATH,
    REGION,
    RGB,
    RUG_STYLES,
)
from render.samples import Moment, at_turn, first_moment, moments, new_sample
from render.sprites import assam_body_offset, badge, badge_radius, coin_radius

from .conftest import decode


def _covered_by_marks(moment: Moment, with_candidates: bool) -> set[int]:
    """Squares where an overlay may hide the centre: Assam, the path, candidate ends."""
    state = moment.state
    busy = {state.assam}
    for event in moment.events:
        if isinstance(event, AssamMoved):
            busy |= {event.start, *(step.square for step in event.path)}
    if with_candidates:
        busy |= {square for pair in placements(state) for square in pair}
    return busy


def test_png_decodes_at_the_documented_size(midgame: Moment) -> None:
    for size in (DEFAULT_SIZE, 480):
        image = decode(render_board(midgame.state, size=size))
        assert image.size == image_size(4, size=size)


def test_two_player_picture_has_the_landscape_size_and_its_own_portrait_height(
    two_player: Moment,
) -> None:
    image = decode(render_board(two_player.state, events=two_player.events))
    assert image.size == image_size(2) == image_size(4)
    tall = decode(render_board(two_player.state, events=two_player.events, portrait=True))
    assert tall.size == image_size(2, portrait=True)
    assert image_size(2, portrait=True)[1] < image_size(4, portrait=True)[1]


def test_portrait_draws_the_same_board_with_the_panel_below(midgame: Moment) -> None:
    size = 640
    wide = decode(render_board(midgame.state, events=midgame.events, size=size))
    tall = decode(render_board(midgame.state, events=midgame.events, size=size, portrait=True))
    assert tall.size == image_size(4, size=size, portrait=True)
    # The board part of each is the same picture, at the scale of its own layout.
    for portrait, image in ((False, wide), (True, tall)):
        geometry = layout(size, 4, portrait)
        x, y = geometry.center_pixel(midgame.state.assam)
        dx, dy = assam_body_offset(geometry.cell, midgame.state.facing)
        assert image.getpixel((x + dx, y + dy)) == ASSAM


@pytest.mark.parametrize("fixture", ["midgame", "two_player", "after_laying"])
def test_each_rug_square_shows_its_owners_color_at_its_centre(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    moment: Moment = request.getfixturevalue(fixture)
    state = moment.state
    image = decode(render_board(state, events=moment.events, show_candidates=True))
    geometry = layout(DEFAULT_SIZE, state.players)
    busy = _covered_by_marks(moment, with_candidates=True)
    checked = 0
    for square in range(ROWS * COLS):
        color = state.color_at(square)
        if square in busy:
            continue
        pixel = image.getpixel(geometry.center_pixel(square))
        if color is None:
            assert pixel not in {style.fill for style in RUG_STYLES.values()}
        else:
            assert pixel == RUG_STYLES[color].fill, square
            checked += 1
    assert checked >= 8


def _rug_fill_shown(image: Image.Image, geometry: Layout, square: int) -> RGB | None:
    """The rug fill (a colour's or the neutral grey) that covers most of `square`'s inner
    area, None if none shows: unlike the pixel at its centre, it does not depend on where the
    rug's motif falls."""
    x0, y0, x1, y1 = geometry.square_box(square)
    margin = round(geometry.cell * 0.15)
    counts = image.crop((x0 + margin, y0 + margin, x1 - margin, y1 - margin)).getcolors(1 << 16)
    shown = {colour: count for count, colour in counts or ()}
    fills = [NEUTRAL_STYLE.fill, *(style.fill for style in RUG_STYLES.values())]
    best = max(fills, key=lambda fill: shown.get(fill, 0))
    return best if shown.get(best, 0) else None


@pytest.mark.parametrize("fixture", ["eliminated", "two_player_out_at_the_end"])
def test_rugs_of_an_eliminated_seat_turn_neutral_in_each_of_its_colours(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    """R9: every rug of a seat that is out is grey, whichever of its colours it is (in two
    players a seat owns two), and every other rug keeps its colour."""
    state = cast(Moment, request.getfixturevalue(fixture)).state
    (out,) = state.eliminated
    image = decode(render_board(state))
    geometry = layout(DEFAULT_SIZE, state.players)
    neutral = set()
    for square in range(ROWS * COLS):
        color = state.color_at(square)
        if color is None or square == state.assam:
            continue
        shown = _rug_fill_shown(image, geometry, square)
        if owner_of(state.players, COLOR_ORDER.index(color)) == out:
            assert shown == NEUTRAL_STYLE.fill, (square, color)
            neutral.add(color)
        else:
            assert shown == RUG_STYLES[color].fill, (square, color)
    assert neutral == set(seat_colors(state.players, out)), "the sample shows each of its colours"


def test_assam_is_drawn_where_he_stands_and_nowhere_else(midgame: Moment) -> None:
    state = midgame.state
    image = decode(render_board(state))
    geometry = layout(DEFAULT_SIZE, 4)
    dx, dy = assam_body_offset(geometry.cell, state.facing)
    for square in range(ROWS * COLS):
        x, y = geometry.center_pixel(square)
        assert (image.getpixel((x + dx, y + dy)) == ASSAM) is (square == state.assam)


def test_assams_arrow_points_his_way(midgame: Moment) -> None:
    state = midgame.state
    image = decode(render_board(state))
    geometry = layout(DEFAULT_SIZE, 4)
    x, y = geometry.center_pixel(state.assam)
    dx, dy = assam_body_offset(geometry.cell, state.facing)
    # Behind him is his dark body; ahead, as far out, the white arrow.
    assert image.getpixel((x + dx, y + dy)) == ASSAM
    assert image.getpixel((x - dx, y - dy)) == (255, 255, 255)


def _pixels(image: Image.Image) -> list[tuple[int, int, int]]:
    """The RGB pixels of an image, row by row."""
    data = image.convert("RGB").tobytes()
    return [(data[i], data[i + 1], data[i + 2]) for i in range(0, len(data), 3)]


def _badge_pixels(image: Image.Image, x: float, y: float, reach: int) -> int:
    box = image.crop((round(x) - reach, round(y) - reach, round(x) + reach, round(y) + reach))
    return sum(1 for pixel in _pixels(box) if pixel == BADGE)


def _edges() -> list[tuple[int, int]]:
    pairs = []
    for square in range(ROWS * COLS):
        row, col = divmod(square, COLS)
        if col + 1 < COLS:
            pairs.append((square, square + 1))
        if row + 1 < ROWS:
            pairs.append((square, square + COLS))
    return pairs


@pytest.mark.parametrize("fixture", ["midgame", "two_player"])
def test_numbered_candidates_appear_only_on_legal_placements(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    moment: Moment = request.getfixturevalue(fixture)
    state = moment.state
    assert state.phase is Phase.PLACE
    image = decode(render_board(state, events=moment.events, show_candidates=True))
    geometry = layout(DEFAULT_SIZE, state.players)
    reach = badge_radius(geometry.cell) // 2
    legal = set(placements(state))
    assert legal
    for first, second in _edges():
        x, y = geometry.shared_edge_midpoint(first, second)
        shown = _badge_pixels(image, x, y, reach) > reach
        assert shown is ((first, second) in legal), (first, second)


def test_badges_carry_the_numbers_of_legal_actions_order(midgame: Moment) -> None:
    state = midgame.state
    ordered = placements(state)
    assert [placement_notation(a, b) for a, b in ordered] == legal_actions(state)
    image = decode(render_board(state, show_candidates=True))
    geometry = layout(DEFAULT_SIZE, 4)
    ring = RUG_STYLES[state.next_rug_color(state.to_move)].fill  # type: ignore[arg-type,index]
    inner = round(badge_radius(geometry.cell) * 0.55)
    templates = {}
    for number in range(1, len(ordered) + 1):
        sprite = badge(geometry.cell, str(number), ring).convert("RGB")
        c = sprite.width // 2
        templates[number] = list(_pixels(sprite.crop((c - inner, c - inner, c + inner, c + inner))))
    for number, (first, second) in enumerate(ordered, start=1):
        x, y = geometry.shared_edge_midpoint(first, second)
        sprite_side = badge(geometry.cell, str(number), ring).width
        left = round(x - sprite_side / 2) + sprite_side // 2
        top = round(y - sprite_side / 2) + sprite_side // 2
        seen = _pixels(image.crop((left - inner, top - inner, left + inner, top + inner)))

        def distance(
            template: list[tuple[int, int, int]], seen: list[tuple[int, int, int]] = seen
        ) -> int:
            return sum(
                abs(a - b)
                for p, q in zip(template, seen, strict=True)
                for a, b in zip(p, q, strict=True)
            )

        best = min(templates, key=lambda n: distance(templates[n]))
        assert best == number


def _path_across_a_badge() -> Moment:
    """A 4-player turn at the rug-laying step whose path runs over the edge where a numbered
    placement's badge goes (d1-d2)."""
    start = at_turn(4, seed=5, turn=14)
    return next(
        m
        for m in moments(start.state, random.Random(5))
        if m.state.phase is Phase.PLACE and m.events
    )


def test_the_path_never_hides_a_numbered_badge() -> None:
    """Players choose their rug by its number: every badge looks the same whether the turn's
    path is drawn or not, for the path goes under the badges (here it crosses one)."""
    moment = _path_across_a_badge()
    state = moment.state
    geometry = layout(DEFAULT_SIZE, 4)
    with_path = decode(render_board(state, events=moment.events, show_candidates=True))
    without = decode(render_board(state, show_candidates=True))
    path_alone = decode(render_board(state, events=moment.events))
    board_alone = decode(render_board(state))
    inner = round(badge_radius(geometry.cell) * 0.65)  # a square inside each badge's disc
    crossed = []
    for number, (first, second) in enumerate(placements(state), start=1):
        x, y = geometry.shared_edge_midpoint(first, second)
        box = (round(x) - inner, round(y) - inner, round(x) + inner, round(y) + inner)
        if ImageChops.difference(path_alone.crop(box), board_alone.crop(box)).getbbox():
            crossed.append(number)
        hidden = ImageChops.difference(with_path.crop(box), without.crop(box)).getbbox()
        assert hidden is None, f"badge {number} is partly hidden by the path"
    assert crossed, "the path crosses a badge's place"


def test_candidates_are_only_numbered_when_asked_and_at_the_place_phase(
    midgame: Moment, after_laying: Moment
) -> None:
    plain = render_board(midgame.state, events=midgame.events)
    numbered = render_board(midgame.state, events=midgame.events, show_candidates=True)
    explicit = render_board(
        midgame.state, events=midgame.events, candidates=placements(midgame.state)
    )
    assert plain != numbered
    assert numbered == explicit
    assert render_board(midgame.state, show_candidates=True, candidates=[]) == render_board(
        midgame.state
    )
    # Outside the PLACE phase no placement is numbered (only Assam's turns are labelled).
    state = after_laying.state
    assert state.phase is Phase.ORIENT
    image = decode(render_board(state, show_candidates=True))
    geometry = layout(DEFAULT_SIZE, 4)
    reach = badge_radius(geometry.cell) // 2
    for first, second in _edges():
        if state.assam not in (first, second):
            x, y = geometry.shared_edge_midpoint(first, second)
            assert _badge_pixels(image, x, y, reach) == 0


@pytest.mark.parametrize(
    ("phase", "variant", "labels"),
    [
        (Phase.ORIENT, Variant.STANDARD, ["L", "S", "R"]),
        (Phase.ROTATE, Variant.ROTATE_AFTER, ["L", "R"]),
    ],
)
def test_ways_to_turn_assam_are_labelled_on_the_sides_he_may_face(
    phase: Phase, variant: Variant, labels: list[str]
) -> None:
    moment = at_turn(3, seed=4, turn=9, phase=phase, variant=variant)
    state = moment.state
    assert state.phase is phase
    image = decode(render_board(state, show_candidates=True))
    plain = decode(render_board(state))
    geometry = layout(DEFAULT_SIZE, 3)
    reach = badge_radius(geometry.cell) // 2
    options = orientations(state)
    assert [label for label, _ in options] == labels == legal_actions(state)
    allowed = {facing for _, facing in options}
    assert (state.facing in allowed) is (phase is Phase.ORIENT)  # S keeps his facing
    assert Facing((state.facing + 2) % 4) not in allowed  # never turned round (R4)
    for facing in Facing:
        x, y = turn_badge_center(geometry, state.assam, facing)
        assert (_badge_pixels(image, x, y, reach) > reach) is (facing in allowed), facing
        assert _badge_pixels(plain, x, y, reach) == 0


ON_SCREEN = {Facing.N: (0, -1), Facing.E: (1, 0), Facing.S: (0, 1), Facing.W: (-1, 0)}
"""Which way each facing points on the picture: north is up."""


def _away_from_the_edge(square: int) -> bool:
    row, col = divmod(square, COLS)
    return 0 < row < ROWS - 1 and 0 < col < COLS - 1


def _badge_pixels_towards(image: Image.Image, geometry: Layout, square: int, way: Facing) -> int:
    """BADGE pixels between the side of `square` facing `way` and the centre of the next
    square that way (from half a square to a square out, 0.3 of a square either side)."""
    x, y = geometry.center(square)
    dx, dy = ON_SCREEN[way]
    near, far, across = 0.5 * geometry.cell, 1.0 * geometry.cell, 0.3 * geometry.cell
    xs = sorted((x + dx * near, x + dx * far)) if dx else [x - across, x + across]
    ys = sorted((y + dy * near, y + dy * far)) if dy else [y - across, y + across]
    box = image.crop((round(xs[0]), round(ys[0]), round(xs[1]), round(ys[1])))
    return sum(1 for pixel in _pixels(box) if pixel == BADGE)


@pytest.mark.parametrize("facing", list(Facing))
def test_each_way_to_turn_assam_is_labelled_towards_the_side_it_turns_him_to(
    facing: Facing,
) -> None:
    """Whichever way Assam faces, each way to turn him (L, S or R), drawn alone, has its badge
    past the side of his square he would then face, and none past the side across from it."""
    state = first_moment(
        3,
        range(1, 60),
        lambda m: (
            m.state.phase is Phase.ORIENT
            and m.state.facing is facing
            and _away_from_the_edge(m.state.assam)
        ),
    ).state
    geometry = layout(DEFAULT_SIZE, 3)
    ways = orientations(state)
    assert [label for label, _ in ways] == ["L", "S", "R"]
    for label, way in ways:
        image = board_image(state, TurnMarks(turns=((label, way),)))
        across = Facing((way + 2) % 4)
        assert _badge_pixels_towards(image, geometry, state.assam, way) > 20, (label, way)
        assert _badge_pixels_towards(image, geometry, state.assam, across) == 0, (label, way)


def _with_border_step() -> tuple[Moment, AssamMoved]:
    for seed in range(40):
        moment = at_turn(3, seed=seed, turn=6)
        for event in moment.events:
            if isinstance(event, AssamMoved) and any(s.via_border for s in event.path):
                return moment, event
    raise AssertionError("no sample walk went round a border arc")


def test_path_is_drawn_round_the_border_arc() -> None:
    moment, moved = _with_border_step()
    image = decode(render_board(moment.state, path=moved))
    plain = decode(render_board(moment.state))
    geometry = layout(DEFAULT_SIZE, 3)
    square, facing = moved.start, moved.start_facing
    for step in moved.path:
        if step.via_border:
            arc = step_arc(geometry, square, facing, step.square, step.facing)
            points = arc.points()
            x, y = points[len(points) // 2]  # the middle of the arc, off the market
            assert not geometry.inside((x, y))
            assert image.getpixel((round(x), round(y))) == PATH
            assert plain.getpixel((round(x), round(y))) != PATH
        square, facing = step.square, step.facing
    assert len(path_points(geometry, moved)) > len(moved.path) + 1


def test_region_paid_for_is_outlined(midgame: Moment) -> None:
    (tax,) = [e for e in midgame.events if isinstance(e, TaxPaid)]
    image = decode(render_board(midgame.state, paid_region=tax.region))
    geometry = layout(DEFAULT_SIZE, 4)
    for square in tax.region:
        x0, y0, x1, _ = geometry.square_box(square)
        if square < COLS or square - COLS not in tax.region:  # its top side is on the outline
            assert image.getpixel(((x0 + x1) // 2, y0)) == REGION
        else:
            assert image.getpixel(((x0 + x1) // 2, y0)) != REGION


def test_last_rug_is_framed(after_laying: Moment) -> None:
    (laid,) = [e for e in after_laying.events if isinstance(e, RugPlaced)]
    image = decode(render_board(after_laying.state, events=after_laying.events))
    plain = decode(render_board(after_laying.state))
    geometry = layout(DEFAULT_SIZE, 4)
    boxes = [geometry.square_box(square) for square in laid.squares]
    x0 = min(b[0] for b in boxes)
    y1 = max(b[3] for b in boxes)
    x1 = max(b[2] for b in boxes)
    # The bright frame runs along the rug's bottom edge, over a dark line (a few pixels deep).
    probes = [((x0 + x1) // 2, y) for y in range(y1 - 6, y1 + 3)]
    assert any(image.getpixel(probe) == LAST_RUG for probe in probes)
    assert not any(plain.getpixel(probe) == LAST_RUG for probe in probes)


def test_same_inputs_give_the_same_bytes(midgame: Moment) -> None:
    first = render_board(midgame.state, events=midgame.events, show_candidates=True)
    second = render_board(midgame.state, events=midgame.events, show_candidates=True)
    assert first == second


def test_bytes_are_the_same_in_a_fresh_interpreter(midgame: Moment, repo_root: Path) -> None:
    here = hashlib.sha256(
        render_board(midgame.state, events=midgame.events, show_candidates=True)
    ).hexdigest()
    code = (
        "import hashlib; from render import render_board;"
        "from tests.render.conftest import midgame_moment; m = midgame_moment();"
        "print(hashlib.sha256(render_board(m.state, events=m.events, show_candidates=True))"
        ".hexdigest())"
    )
    there = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=repo_root
    ).stdout.strip()
    assert there == here


def test_game_over_picture_needs_a_finished_game(midgame: Moment, game_over: Moment) -> None:
    with pytest.raises(ValueError, match="not over"):
        render_game_over(midgame.state)
    image = decode(render_game_over(game_over.state, events=game_over.events))
    assert image.size == image_size(4)
    assert render_game_over(game_over.state) != render_board(game_over.state)


@pytest.mark.parametrize(
    ("players", "variant"),
    [(2, Variant.ROTATE_AFTER), (3, Variant.STANDARD)],
)
def test_every_moment_of_a_game_renders(players: int, variant: Variant) -> None:
    state, rng = new_sample(players, seed=40 + players, variant=variant)
    size = image_size(players, size=320)
    for moment in moments(state, rng):
        png = render_board(moment.state, events=moment.events, show_candidates=True, size=320)
        assert decode(png).size == size
    assert moment.state.is_over
    assert decode(render_game_over(moment.state, events=moment.events, size=320)).size == size


def test_the_sum_paid_shows_on_a_coin_where_assam_paid(midgame: Moment) -> None:
    (tax,) = [e for e in midgame.events if isinstance(e, TaxPaid)]
    state = midgame.state
    assert state.assam in tax.region
    geometry = layout(DEFAULT_SIZE, 4)
    x, y = payment_center(geometry, state.assam)
    reach = coin_radius(geometry.cell) // 2
    told = decode(render_board(state, events=midgame.events))
    region_only = decode(render_board(state, paid_region=tax.region))

    def coin_pixels(image: Image.Image) -> int:
        box = image.crop((round(x) - reach, round(y) - reach, round(x) + reach, round(y) + reach))
        return sum(1 for pixel in _pixels(box) if pixel == COIN)

    assert coin_pixels(told) > reach
    assert coin_pixels(region_only) == 0


def _coins_by_square(image: Image.Image, geometry: Layout) -> dict[int, int]:
    """The COIN pixels in the top-right quarter of each square (where a square's coin goes)."""
    found = {}
    for square in range(ROWS * COLS):
        x0, y0, x1, y1 = geometry.square_box(square)
        quarter = image.crop(((x0 + x1) // 2, y0, x1, (y0 + y1) // 2))
        found[square] = sum(1 for pixel in _pixels(quarter) if pixel == COIN)
    return found


def test_the_coin_is_by_assam_wherever_he_stands_in_the_region_paid_for() -> None:
    """Assam on a square of the region paid for other than its first (top left): the coin is
    at the corner of his square, none at the region's first."""

    def tax_of(moment: Moment) -> TaxPaid | None:
        taxes = [event for event in moment.events if isinstance(event, TaxPaid)]
        return taxes[-1] if taxes else None

    def paid_off_the_first_square(moment: Moment) -> bool:
        tax = tax_of(moment)
        return tax is not None and moment.state.assam in tax.region - {min(tax.region)}

    moment = first_moment(4, range(7, 60), paid_off_the_first_square)
    tax = tax_of(moment)
    assert tax is not None
    state = moment.state
    geometry = layout(DEFAULT_SIZE, 4)
    coins = _coins_by_square(decode(render_board(state, events=moment.events)), geometry)
    assert max(coins, key=lambda square: coins[square]) == state.assam, "by Assam"
    assert coins[state.assam] > 4 * coin_radius(geometry.cell), "a coin, not a stray pixel"
    assert coins[min(tax.region)] == 0, "not on the region's first square"


def test_marks_come_from_the_last_event_of_each_kind(midgame: Moment, after_laying: Moment) -> None:
    moved = [e for e in midgame.events if isinstance(e, AssamMoved)][-1]
    (tax,) = [e for e in midgame.events if isinstance(e, TaxPaid)]
    (laid,) = [e for e in after_laying.events if isinstance(e, RugPlaced)]
    marks = marks_from_events([*after_laying.events, *midgame.events])
    assert marks.path == moved
    assert marks.paid_region == tax.region
    assert marks.paid == tax.paid
    assert marks.last_rug == laid.squares
    assert marks_from_events([]) == TurnMarks()


def _assert_badges_ringed_in_the_colour_laid(state: GameState) -> None:
    """Each numbered placement's badge shows its ring in the colour the mover lays next."""
    assert state.to_move is not None
    ring = RUG_STYLES[state.next_rug_color(state.to_move)].fill  # type: ignore[index]

    def near_ring(picture: Image.Image, xy: tuple[int, int], *, opaque: bool = False) -> bool:
        pixel = cast(tuple[int, ...], picture.getpixel(xy))
        if opaque and pixel[3] != 255:
            return False
        return sum(abs(a - b) for a, b in zip(pixel, ring, strict=False)) < 40

    image = decode(render_board(state, show_candidates=True))
    geometry = layout(DEFAULT_SIZE, state.players)
    for number, (first, second) in enumerate(placements(state), start=1):
        sprite = badge(geometry.cell, str(number), ring)
        x, y = geometry.shared_edge_midpoint(first, second)
        left, top = round(x - sprite.width / 2), round(y - sprite.height / 2)
        ringed = [
            (left + dx, top + dy)
            for dx in range(sprite.width)
            for dy in range(sprite.height)
            if near_ring(sprite, (dx, dy), opaque=True)
        ]
        assert len(ringed) > 20, "the ring is wide enough to be seen"
        shown = sum(near_ring(image, point) for point in ringed)
        assert shown >= 0.9 * len(ringed), (number, shown, len(ringed))


def test_each_badge_is_ringed_in_the_colour_the_mover_lays(midgame: Moment) -> None:
    _assert_badges_ringed_in_the_colour_laid(midgame.state)


def test_in_two_players_the_badges_are_ringed_in_whichever_colour_the_seat_lays_this_turn() -> None:
    """In two players a seat lays its two colours in turn: the ring follows the rug laid this
    turn, its second colour as well as its first."""
    second_colour_laid = False
    for turn in range(2, 6):
        state = at_turn(2, seed=1, turn=turn).state
        assert state.phase is Phase.PLACE
        assert state.to_move is not None
        colour = state.next_rug_color(state.to_move)
        second_colour_laid |= colour == seat_colors(2, state.to_move)[1]
        _assert_badges_ringed_in_the_colour_laid(state)
    assert second_colour_laid, "the sample lays a seat's second colour"
