"""Small pictures drawn once per size and pasted many times: rug pieces with their colour's
mark (whole rugs with their shadow, as stamps), Assam facing each way, the arrows of the ways
he may be turned, the numbered and lettered badges, the coin of a payment, panel swatches
(crossed out for a seat that is out) and the die.

Each is drawn supersampled and scaled down (smooth edges) and cached, so a board only pastes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFilter

from engine import Facing
from render import palette
from render.palette import Mark, RugStyle
from render.text import draw_text

SUPERSAMPLE = 4
Shape = tuple[int, int]  # (columns, rows) of squares a rug piece spans: (1,1), (2,1), (1,2)


def _downscale(big: Image.Image, size: tuple[int, int]) -> Image.Image:
    return big.resize(size, Image.Resampling.LANCZOS)


# How a sprite drawn facing north is turned to face each way.
_TURNS = {
    Facing.N: None,
    Facing.E: Image.Transpose.ROTATE_270,
    Facing.S: Image.Transpose.ROTATE_180,
    Facing.W: Image.Transpose.ROTATE_90,
}


def _turned(sprite: Image.Image, facing: Facing) -> Image.Image:
    turn = _TURNS[facing]
    return sprite if turn is None else sprite.transpose(turn)


def rug_inset(cell: int) -> int:
    """Gap between a rug piece and the edge of its squares, so neighbouring rugs stay apart."""
    return max(2, round(cell * 0.06))


def _draw_mark(
    draw: ImageDraw.ImageDraw, style: RugStyle, box: tuple[float, ...], unit: float
) -> None:
    """The colour's motif inside one half (box in supersampled pixels); the centre stays bare so
    the rug's colour shows there."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    half = (x1 - x0) / 2
    ink = style.motif
    stroke = round(unit * 0.07)
    if style.mark is Mark.DIAMOND:
        for r in (half * 0.62, half * 0.40):
            draw.polygon(
                [(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)], outline=ink, width=stroke
            )
    elif style.mark is Mark.DOTS:
        d = half * 0.46
        r = half * 0.15
        for dx, dy in ((-d, -d), (d, -d), (-d, d), (d, d)):
            draw.ellipse((cx + dx - r, cy + dy - r, cx + dx + r, cy + dy + r), fill=ink)
    elif style.mark is Mark.BARS:
        for dy in (-half * 0.55, half * 0.55):
            draw.rectangle(
                (x0 + half * 0.18, cy + dy - half * 0.10, x1 - half * 0.18, cy + dy + half * 0.10),
                fill=ink,
            )
    elif style.mark is Mark.CROSS:
        near, far, arm = half * 0.16, half * 0.66, half * 0.15
        draw.rectangle((cx - arm, cy - far, cx + arm, cy - near), fill=ink)
        draw.rectangle((cx - arm, cy + near, cx + arm, cy + far), fill=ink)
        draw.rectangle((cx - far, cy - arm, cx - near, cy + arm), fill=ink)
        draw.rectangle((cx + near, cy - arm, cx + far, cy + arm), fill=ink)
    else:  # Mark.HATCH: diagonal lines (x - y = k), none through the centre.
        gap = half * 0.36
        x0, y0, x1, y1 = cx - half * 0.62, cy - half * 0.62, cx + half * 0.62, cy + half * 0.62
        for k in (-2.5, -1.5, -0.5, 0.5, 1.5, 2.5):
            shift = (cx - cy) + k * gap
            lo, hi = max(x0, y0 + shift), min(x1, y1 + shift)
            if lo < hi:
                draw.line([(lo, lo - shift), (hi, hi - shift)], fill=ink, width=stroke)


def _draw_fringes(
    draw: ImageDraw.ImageDraw,
    style: RugStyle,
    size: tuple[int, int],
    depth: int,
    spacing: int,
    vertical: bool,
) -> None:
    """Fringes of depth `depth` across both short ends of a whole rug of pixel `size`."""
    width, height = size
    if vertical:
        ends = [(0, 0, width, depth), (0, height - depth, width, height)]
    else:
        ends = [(0, 0, depth, height), (width - depth, 0, width, height)]
    thread = (*style.outline, 255)
    for x0, y0, x1, y1 in ends:
        draw.rectangle((x0, y0, x1, y1), fill=(*style.motif, 255))
        if vertical:
            for x in range(x0 + spacing // 2, x1, spacing):
                draw.line([(x, y0), (x, y1)], fill=thread, width=SUPERSAMPLE)
        else:
            for y in range(y0 + spacing // 2, y1, spacing):
                draw.line([(x0, y), (x1, y)], fill=thread, width=SUPERSAMPLE)


@lru_cache(maxsize=256)
def rug_piece(cell: int, style: RugStyle, shape: Shape) -> Image.Image:
    """An RGBA rug piece spanning `shape` squares: 1x1 for a half whose other half is covered,
    2x1 or 1x2 for a whole rug, which also gets fringes at its short ends. Each half carries
    the colour's mark centred on its square; the piece is inset from the squares' edges."""
    s = SUPERSAMPLE
    cols, rows = shape
    inset = rug_inset(cell)
    width, height = (cols * cell - 2 * inset) * s, (rows * cell - 2 * inset) * s
    big = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    whole = cols * rows == 2
    fringe = round(cell * 0.05) * s if whole else 0
    if whole:
        _draw_fringes(draw, style, (width, height), fringe, round(cell * 0.07) * s, rows == 2)
    if rows == 2:
        body = (0, fringe, width - 1, height - 1 - fringe)
    else:
        body = (fringe, 0, width - 1 - fringe, height - 1)
    draw.rounded_rectangle(
        body,
        radius=round(cell * 0.08) * s,
        fill=(*style.fill, 255),
        outline=(*style.outline, 255),
        width=max(2, round(cell * 0.035)) * s,
    )
    # An inner border line, as woven rugs have.
    border = round(cell * 0.09) * s
    bx0, by0, bx1, by1 = body
    draw.rounded_rectangle(
        (bx0 + border, by0 + border, bx1 - border, by1 - border),
        radius=round(cell * 0.04) * s,
        outline=(*style.motif, 255),
        width=max(1, round(cell * 0.02)) * s,
    )
    side = (cell - 2 * inset) * s
    for i in range(cols * rows):
        col, row = (i, 0) if cols == 2 else (0, i)
        # The square this half covers, less the inset, in sprite pixels.
        x0, y0 = col * cell * s, row * cell * s
        _draw_mark(draw, style, (x0, y0, x0 + side, y0 + side), cell * s)
    return _downscale(big, (width // s, height // s))


@lru_cache(maxsize=16)
def crossed_swatch(side: int, style: RugStyle) -> Image.Image:
    """A small rug swatch veiled and crossed out: the colour of a seat that is out."""
    swatch = rug_piece(side, style, (1, 1)).copy()
    veil = Image.new("RGBA", swatch.size, (*palette.PANEL, 150))
    veil.putalpha(swatch.getchannel("A").point(lambda a: a * 150 // 255))
    swatch = Image.alpha_composite(swatch, veil)
    draw = ImageDraw.Draw(swatch)
    inset, width = round(side * 0.12), max(2, round(side * 0.1))
    for line in (
        ((inset, inset), (side - inset, side - inset)),
        ((inset, side - inset), (side - inset, inset)),
    ):
        draw.line(line, fill=(*palette.TEXT_DIM, 255), width=width)
    return swatch


@lru_cache(maxsize=32)
def rug_shadow(cell: int, shape: Shape) -> Image.Image:
    """A soft shadow (L mask) for a whole rug lying on top of others."""
    cols, rows = shape
    inset = rug_inset(cell)
    pad = shadow_pad(cell)
    width, height = cols * cell - 2 * inset, rows * cell - 2 * inset
    mask = Image.new("L", (width + 2 * pad, height + 2 * pad), 0)
    ImageDraw.Draw(mask).rounded_rectangle(
        (pad, pad, pad + width, pad + height), radius=round(cell * 0.08), fill=110
    )
    return mask.filter(ImageFilter.GaussianBlur(pad / 2))


@dataclass(frozen=True)
class Stamp:
    """A sprite split so that it pastes fast: its fully opaque middle is copied as is, and only
    its rim (anti-aliased edges, shadow) is blended through its alpha."""

    parts: tuple[tuple[Image.Image, tuple[int, int], bool], ...]  # image, offset, blended
    size: tuple[int, int]

    def paste(self, image: Image.Image, x: int, y: int) -> None:
        """Paste the sprite with its top-left corner at (x, y)."""
        for part, (dx, dy), blended in self.parts:
            image.paste(part, (x + dx, y + dy), part if blended else None)


def make_stamp(sprite: Image.Image, margin: int) -> Stamp:
    """Split an RGBA sprite whose pixels more than `margin` inside its edges are all opaque
    (checked: otherwise the whole sprite is blended)."""
    w, h = sprite.size
    core = (margin, margin, w - margin, h - margin)
    if 2 * margin >= min(w, h) or sprite.getchannel("A").crop(core).getextrema() != (255, 255):
        return Stamp(((sprite, (0, 0), True),), sprite.size)
    parts = [(sprite.crop(core).convert("RGB"), (margin, margin), False)]
    rims = (
        (0, 0, w, margin),
        (0, h - margin, w, h),
        (0, margin, margin, h - margin),
        (w - margin, margin, w, h - margin),
    )
    parts.extend((sprite.crop(box), (box[0], box[1]), True) for box in rims)
    return Stamp(tuple(parts), sprite.size)


def shadow_pad(cell: int) -> int:
    """How far a whole rug's shadow reaches past the rug."""
    return max(2, round(cell * 0.06))


@lru_cache(maxsize=256)
def rug_stamp(cell: int, style: RugStyle, shape: Shape) -> Stamp:
    """A rug piece ready to paste: a whole rug (2x1 or 1x2) with its soft shadow around it
    (the stamp then starts `shadow_pad(cell)` up and left of the piece), a covered half (1x1)
    on its own."""
    piece = rug_piece(cell, style, shape)
    radius = round(cell * 0.08) + 2
    if shape == (1, 1):
        return make_stamp(piece, radius)
    pad = shadow_pad(cell)
    shift = max(1, round(cell * 0.03))
    size = (piece.width + 2 * pad, piece.height + 2 * pad)
    alpha = Image.new("L", size, 0)
    alpha.paste(rug_shadow(cell, shape), (shift, shift))
    shadow = Image.new("RGBA", size, (0, 0, 0, 0))
    shadow.putalpha(alpha)
    on_top = Image.new("RGBA", size, (0, 0, 0, 0))
    on_top.paste(piece, (pad, pad))
    return make_stamp(Image.alpha_composite(shadow, on_top), pad + radius)


@lru_cache(maxsize=32)
def assam(cell: int, facing: Facing) -> Image.Image:
    """Assam seen from above: a dark disc ringed in gold with a big white arrow for his
    facing, reaching almost to the edge of his square (RGBA, one square in size)."""
    return _turned(_assam_north(cell), facing)


@lru_cache(maxsize=8)
def _assam_north(cell: int) -> Image.Image:
    """Assam facing north, drawn once per size and turned for the other facings."""
    s = SUPERSAMPLE
    side = cell * s
    c = side / 2
    big = Image.new("RGBA", (side, side), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    disc = cell * 0.29 * s
    ring = cell * 0.05 * s
    shadow_offset = cell * 0.03 * s
    draw.ellipse(
        (
            c - disc - ring + shadow_offset,
            c - disc - ring + shadow_offset,
            c + disc + ring + shadow_offset,
            c + disc + ring + shadow_offset,
        ),
        fill=(0, 0, 0, 90),
    )
    draw.ellipse(
        (c - disc - ring, c - disc - ring, c + disc + ring, c + disc + ring),
        fill=(*palette.ASSAM_RING, 255),
        outline=(*palette.INK, 255),
        width=round(cell * 0.012 * s) or 1,
    )
    draw.ellipse((c - disc, c - disc, c + disc, c + disc), fill=(*palette.ASSAM, 255))
    # The arrow, drawn pointing north (up) and turned afterwards.
    tip, base, wing = cell * 0.48 * s, cell * 0.06 * s, cell * 0.22 * s
    notch = cell * 0.14 * s
    arrow = [(c, c - tip), (c + wing, c + base), (c, c - notch + base), (c - wing, c + base)]
    draw.polygon(
        arrow,
        fill=(*palette.ASSAM_ARROW, 255),
        outline=(*palette.INK, 255),
        width=round(cell * 0.02 * s) or 1,
    )
    return _downscale(big, (cell, cell))


def assam_body_offset(cell: int, facing: Facing) -> tuple[int, int]:
    """Offset from the square's centre to a pixel that shows Assam's dark disc (behind the
    arrow), for tests and anyone who needs to find him in a picture."""
    away = round(cell * 0.2)
    return {
        Facing.N: (0, away),
        Facing.E: (-away, 0),
        Facing.S: (0, -away),
        Facing.W: (away, 0),
    }[facing]


@lru_cache(maxsize=128)
def badge(cell: int, label: str, ring: tuple[int, int, int]) -> Image.Image:
    """A round badge with a short label (a candidate's number, or L/S/R for a way to turn
    Assam), ringed in the mover's colour."""
    s = SUPERSAMPLE
    radius = badge_radius(cell)
    side = 2 * radius + 2
    big = Image.new("RGBA", (side * s, side * s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    c = side * s / 2
    r = radius * s
    draw.ellipse((c - r, c - r, c + r, c + r), fill=(*palette.HALO, 255))
    r2 = r - max(1, round(cell * 0.015)) * s
    draw.ellipse((c - r2, c - r2, c + r2, c + r2), fill=(*ring, 255))
    r3 = r2 - max(2, round(cell * 0.04)) * s
    draw.ellipse((c - r3, c - r3, c + r3, c + r3), fill=(*palette.BADGE, 255))
    size = round(cell * (0.31 if len(label) == 1 else 0.26)) * s
    draw_text(big, (c, c), label, size=size, fill=palette.BADGE_TEXT, bold=True, anchor="mm")
    return _downscale(big, (side, side))


@lru_cache(maxsize=64)
def coin(cell: int, label: str) -> Image.Image:
    """A gold coin with a short label (the dirhams just paid)."""
    s = SUPERSAMPLE
    radius = coin_radius(cell)
    side = 2 * radius + 2
    big = Image.new("RGBA", (side * s, side * s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    c, r = side * s / 2, radius * s
    draw.ellipse(
        (c - r, c - r, c + r, c + r),
        fill=(*palette.COIN, 255),
        outline=(*palette.INK, 255),
        width=max(1, round(cell * 0.02)) * s,
    )
    r2 = r - round(cell * 0.045) * s
    draw.ellipse(
        (c - r2, c - r2, c + r2, c + r2),
        outline=(*palette.COIN_EDGE, 255),
        width=max(1, round(cell * 0.012)) * s,
    )
    size = round(cell * (0.21 if len(label) <= 2 else 0.17)) * s
    draw_text(big, (c, c), label, size=size, fill=palette.INK, bold=True, anchor="mm")
    return _downscale(big, (side, side))


def coin_radius(cell: int) -> int:
    """Radius in pixels of the coin showing a payment."""
    return max(8, round(cell * 0.2))


def badge_radius(cell: int) -> int:
    """Radius in pixels of a candidate badge."""
    return max(8, round(cell * 0.245))


@lru_cache(maxsize=16)
def die(side: int, face: int) -> Image.Image:
    """A die showing `face` pips (1 to 4, the faces of the Marrakech die)."""
    s = SUPERSAMPLE
    big = Image.new("RGBA", (side * s, side * s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    draw.rounded_rectangle(
        (0, 0, side * s - 1, side * s - 1),
        radius=round(side * 0.2 * s),
        fill=(*palette.TEXT, 255),
        outline=(*palette.INK, 255),
        width=max(1, round(side * 0.05)) * s,
    )
    spots = {
        1: [(0.5, 0.5)],
        2: [(0.28, 0.28), (0.72, 0.72)],
        3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
        4: [(0.28, 0.28), (0.72, 0.28), (0.28, 0.72), (0.72, 0.72)],
    }[face]
    r = side * 0.1 * s
    for fx, fy in spots:
        x, y = fx * side * s, fy * side * s
        draw.ellipse((x - r, y - r, x + r, y + r), fill=(*palette.INK, 255))
    return _downscale(big, (side, side))


# A choice arrow, in market squares from Assam's centre: where its tail starts (under his
# disc), where its tip ends (in the next square, or on the frame when the arrow points off the
# market, short of the coordinates), its shaft's and head's half widths and its head's length;
# then the dark edge round it and, for a turn, the light rim round its dark body.
ARROW_TAIL, ARROW_TIP, ARROW_TIP_OFF = 0.2, 1.3, 1.08
ARROW_SHAFT, ARROW_HEAD, ARROW_HEAD_LENGTH = 0.11, 0.3, 0.36
ARROW_EDGE, ARROW_RIM = 0.03, 0.075


def _offset(points: list[tuple[float, float]], distance: float) -> list[tuple[float, float]]:
    """A polygon grown outwards by `distance` (shrunk if negative), corners mitred."""
    area = sum(
        x0 * y1 - x1 * y0
        for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1], strict=True)
    )
    sign = 1.0 if area > 0 else -1.0  # outward normals point right of the edges when area > 0
    grown = []
    count = len(points)
    for i, (x, y) in enumerate(points):
        px, py = points[i - 1]
        nx, ny = points[(i + 1) % count]
        normals = []
        for (ax, ay), (bx, by) in (((px, py), (x, y)), ((x, y), (nx, ny))):
            length = math.hypot(bx - ax, by - ay)
            normals.append((sign * (by - ay) / length, -sign * (bx - ax) / length))
        (n1x, n1y), (n2x, n2y) = normals
        scale = distance / (1 + n1x * n2x + n1y * n2y)
        grown.append((x + (n1x + n2x) * scale, y + (n1y + n2y) * scale))
    return grown


def arrow_outline(cell: float, reach: float = ARROW_TIP) -> list[tuple[float, float]]:
    """The body of a choice arrow pointing north from (0, 0) with its tip `reach` squares
    away, in pixels for a square of `cell` pixels (y grows downwards)."""
    tail, tip = ARROW_TAIL * cell, reach * cell
    shaft, head = ARROW_SHAFT * cell, ARROW_HEAD * cell
    neck = (reach - ARROW_HEAD_LENGTH) * cell
    return [
        (-shaft, -tail),
        (-shaft, -neck),
        (-head, -neck),
        (0.0, -tip),
        (head, -neck),
        (shaft, -neck),
        (shaft, -tail),
    ]


@lru_cache(maxsize=64)
def choice_arrow(
    cell: int, facing: Facing, straight: bool, off_market: bool = False
) -> Image.Image:
    """An arrow from Assam's centre into the next square towards `facing` (RGBA, centred on
    his square, `choice_arrow_side(cell)` wide), or shorter, onto the frame, when that way
    leaves the market (`off_market`): solid light for keeping straight on, a dark body in a
    light rim for a turn; both edged in dark so they read on any rug or square."""
    return _turned(_choice_arrow_north(cell, straight, off_market), facing)


@lru_cache(maxsize=32)
def _choice_arrow_north(cell: int, straight: bool, off_market: bool) -> Image.Image:
    """A choice arrow pointing north, drawn once per kind and size and turned for the other
    facings."""
    s = SUPERSAMPLE
    side = choice_arrow_side(cell)
    big = Image.new("RGBA", (side * s, side * s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    c = side * s / 2
    body = arrow_outline(cell * s, ARROW_TIP_OFF if off_market else ARROW_TIP)
    layers = [(ARROW_EDGE, palette.INK), (0.0, palette.HALO)]
    if not straight:
        layers.append((-ARROW_RIM, palette.ASSAM))
    for grow, color in layers:
        points = _offset(body, grow * cell * s) if grow else body
        draw.polygon([(c + x, c + y) for x, y in points], fill=(*color, 255))
    return _downscale(big, (side, side))


def choice_arrow_side(cell: int) -> int:
    """Side of the square sprite holding a choice arrow (even, centred on Assam's centre)."""
    return 2 * math.ceil((ARROW_TIP + ARROW_EDGE * 3) * cell)
