"""What a turn adds on top of the rugs: the region just paid for, the rug just laid, the path
Assam walked (border arcs included), the arrows of the ways he may be turned, Assam himself,
the numbered candidate placements and the labelled ways to turn Assam.

They are painted in that order, except that the candidates' bars go under the path and their
dots and numbered badges over everything, so the path and every number stay in view. The
arrows start under Assam, so they seem to come out of him."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from PIL import Image, ImageDraw

from engine import COLS, ROWS, AssamMoved, Facing
from render import palette
from render.layout import DIRECTIONS, Layout, Point, step_arc
from render.sprites import assam, badge, choice_arrow, coin


def _stroke(
    draw: ImageDraw.ImageDraw,
    points: Sequence[Point],
    color: tuple[int, int, int],
    width: int,
    halo: tuple[int, int, int],
    halo_width: int,
) -> None:
    """A polyline with a contrasting halo under it, so it reads on any rug colour."""
    flat = [(round(x), round(y)) for x, y in points]
    draw.line(flat, fill=halo, width=width + 2 * halo_width, joint="curve")
    draw.line(flat, fill=color, width=width, joint="curve")


def _dot(
    draw: ImageDraw.ImageDraw,
    at: Point,
    radius: float,
    fill: tuple[int, int, int],
    outline: tuple[int, int, int],
    width: int,
) -> None:
    x, y = at
    draw.ellipse(
        (x - radius, y - radius, x + radius, y + radius), fill=fill, outline=outline, width=width
    )


def draw_region(image: Image.Image, geometry: Layout, region: Collection[int]) -> None:
    """Outline the region just paid for: its outer boundary, dark under white."""
    squares = set(region)
    draw = ImageDraw.Draw(image)
    edges: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for square in squares:
        row, col = divmod(square, COLS)
        x0, y0, x1, y1 = geometry.square_box(square)
        sides = (
            (row - 1, col, (x0, y0), (x1, y0)),
            (row + 1, col, (x0, y1), (x1, y1)),
            (row, col - 1, (x0, y0), (x0, y1)),
            (row, col + 1, (x1, y0), (x1, y1)),
        )
        for r, c, a, b in sides:
            outside = not (0 <= r < ROWS and 0 <= c < COLS)
            if outside or r * COLS + c not in squares:
                edges.append((a, b))
    width = max(3, round(geometry.cell * 0.06))
    for color, w in ((palette.INK, width + 4), (palette.REGION, width)):
        for a, b in edges:
            draw.line([a, b], fill=color, width=w)
        for a, b in edges:  # square off the corners where two sides meet
            for x, y in (a, b):
                half = w / 2 - 0.5
                draw.rectangle((x - half, y - half, x + half, y + half), fill=color)


def payment_center(geometry: Layout, square: int) -> Point:
    """Where the coin showing a payment sits: the top-right corner of the square, clear of
    Assam's disc and arrow."""
    x, y = geometry.center(square)
    return (x + geometry.cell * 0.34, y - geometry.cell * 0.34)


def draw_payment(image: Image.Image, geometry: Layout, square: int, paid: int) -> None:
    """A gold coin with the dirhams just paid, at the corner of the square where they were."""
    sprite = coin(geometry.cell, f"\u2212{paid}")
    x, y = payment_center(geometry, square)
    image.paste(sprite, (round(x - sprite.width / 2), round(y - sprite.height / 2)), sprite)


def draw_last_rug(image: Image.Image, geometry: Layout, squares: Sequence[int]) -> None:
    """Frame the rug just laid in a bright colour, over a dark line."""
    boxes = [geometry.square_box(square) for square in squares]
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    cell = geometry.cell
    draw = ImageDraw.Draw(image)
    pad = max(1, round(cell * 0.02))
    width = max(3, round(cell * 0.05))
    radius = round(cell * 0.1)
    draw.rounded_rectangle(
        (x0 - pad, y0 - pad, x1 + pad, y1 + pad),
        radius=radius,
        outline=palette.INK,
        width=width + 4,
    )
    draw.rounded_rectangle(
        (x0 - pad + 2, y0 - pad + 2, x1 + pad - 2, y1 + pad - 2),
        radius=radius,
        outline=palette.LAST_RUG,
        width=width,
    )


def path_points(geometry: Layout, moved: AssamMoved) -> list[Point]:
    """The line Assam walked: through the centre of every square, round border arcs."""
    points = [geometry.center(moved.start)]
    square, facing = moved.start, moved.start_facing
    for step in moved.path:
        if step.via_border:
            arc = step_arc(geometry, square, facing, step.square, step.facing)
            points.extend(arc.points())
        points.append(geometry.center(step.square))
        square, facing = step.square, step.facing
    return points


def draw_path(image: Image.Image, geometry: Layout, moved: AssamMoved) -> None:
    """Draw Assam's walk: a line from where he started, a dot on every square he reached."""
    cell = geometry.cell
    draw = ImageDraw.Draw(image)
    width = max(4, round(cell * 0.09))
    halo = max(1, round(cell * 0.025))
    _stroke(draw, path_points(geometry, moved), palette.PATH, width, palette.HALO, halo)
    start_radius = cell * 0.13
    _dot(
        draw,
        geometry.center(moved.start),
        start_radius,
        palette.HALO,
        palette.PATH,
        max(2, round(cell * 0.05)),
    )
    for step in moved.path[:-1]:
        _dot(draw, geometry.center(step.square), cell * 0.09, palette.PATH, palette.HALO, halo)


def turn_badge_center(geometry: Layout, square: int, facing: Facing) -> Point:
    """Where the badge of a way to turn Assam sits: just past the side of his square that he
    would then face, short of the neighbouring square's centre."""
    x, y = geometry.center(square)
    dx, dy = DIRECTIONS[facing]
    return (x + dx * geometry.cell * 0.72, y + dy * geometry.cell * 0.72)


def draw_turn_options(
    image: Image.Image,
    geometry: Layout,
    square: int,
    options: Sequence[tuple[str, Facing]],
    ring: tuple[int, int, int],
) -> None:
    """Label the ways Assam may be turned (L, S, R) on the sides he would then face."""
    for label, facing in options:
        # A size smaller than candidate badges, so the neighbouring squares' centres stay clear.
        sprite = badge(round(geometry.cell * 0.8), label, ring)
        x, y = turn_badge_center(geometry, square, facing)
        image.paste(sprite, (round(x - sprite.width / 2), round(y - sprite.height / 2)), sprite)


def draw_choice_arrows(
    image: Image.Image, geometry: Layout, square: int, facing: Facing, choices: Sequence[Facing]
) -> None:
    """An arrow from Assam (on `square`, facing `facing`) into the square he would face for
    each way he may be turned (`choices`), or onto the frame where that way leaves the market:
    the one that keeps him straight on is solid light, the turns are dark in a light rim."""
    x, y = geometry.center(square)
    row, col = divmod(square, COLS)
    for choice in choices:
        dx, dy = DIRECTIONS[choice]
        off_market = not (0 <= row + dy < ROWS and 0 <= col + dx < COLS)
        sprite = choice_arrow(geometry.cell, choice, choice == facing, off_market)
        left, top = round(x - sprite.width / 2), round(y - sprite.height / 2)
        image.paste(sprite, (left, top), sprite)


def draw_assam(image: Image.Image, geometry: Layout, square: int, facing: Facing) -> None:
    """Paste Assam on his square, arrow pointing where he faces."""
    sprite = assam(geometry.cell, facing)
    x0, y0, _, _ = geometry.square_box(square)
    image.paste(sprite, (x0, y0), sprite)


def draw_candidate_bars(
    image: Image.Image, geometry: Layout, candidates: Sequence[tuple[int, int]]
) -> None:
    """Thin bars joining the centres of the two squares of each candidate placement."""
    cell = geometry.cell
    draw = ImageDraw.Draw(image)
    width = max(2, round(cell * 0.035))
    halo = max(1, round(cell * 0.02))
    for first, second in candidates:
        a, b = geometry.center(first), geometry.center(second)
        _stroke(draw, [a, b], palette.HALO, width, palette.INK, halo)


def draw_candidate_badges(
    image: Image.Image,
    geometry: Layout,
    candidates: Sequence[tuple[int, int]],
    ring: tuple[int, int, int],
    labels: Sequence[str] = (),
) -> None:
    """Number candidate placements 1..N (or badge them with `labels`, in order): a dot on the
    centre of both squares each one covers and its badge on the edge the two squares share
    (ringed in the colour to lay)."""
    cell = geometry.cell
    draw = ImageDraw.Draw(image)
    halo = max(1, round(cell * 0.02))
    for first, second in candidates:
        for end in (first, second):
            _dot(draw, geometry.center(end), cell * 0.06, palette.HALO, palette.INK, halo)
    names = labels or [str(number) for number in range(1, len(candidates) + 1)]
    for name, (first, second) in zip(names, candidates, strict=True):
        sprite = badge(cell, name, ring)
        mx, my = geometry.shared_edge_midpoint(first, second)
        image.paste(sprite, (round(mx - sprite.width / 2), round(my - sprite.height / 2)), sprite)
