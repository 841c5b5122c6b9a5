"""Encoding finished pictures: PNG for boards, GIF for replays, both through one fixed
256-colour palette.

Quantising to a palette made in advance is fast (Pillow keeps a lookup cache per palette) and
makes the PNG about a third of the size of an RGB one, which also makes it quicker to compress.
The palette holds every flat colour of render.palette exactly, so rugs keep their true colour;
the rest of its entries come from a median-cut of a specimen picture holding every sprite
(anti-aliased edges, the market, the panel), so edges and text stay smooth. Nothing random or
time-dependent goes in, so the same pixels always give the same bytes.

Learning the palette (`learned_palette`) draws the specimen, a fifth of a second: every worker
process would pay it before its first picture. So the palette is kept here, learned once
(`PALETTE_HEX`), and tests/render/test_encode.py checks that it is still what the specimen
gives (it prints the new table when a colour or a sprite changed).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from functools import lru_cache

from PIL import Image

from engine import Facing
from render import palette
from render.layout import DEFAULT_SIZE, layout
from render.market import base_image
from render.sprites import (
    assam,
    badge,
    choice_arrow,
    crossed_swatch,
    die,
    rug_piece,
    rug_stamp,
)
from render.text import draw_text

PNG_COMPRESS_LEVEL = 3
PALETTE_SIZE = 256
# Adaptive colours closer than this (per channel) to an exact one are dropped, so that an exact
# colour always quantises to itself.
NEAR = 6


def exact_colors() -> list[tuple[int, int, int]]:
    """Every flat colour the pictures use, each of which must survive quantisation exactly."""
    colors: list[tuple[int, int, int]] = []
    for style in (*palette.RUG_STYLES.values(), palette.NEUTRAL_STYLE):
        colors.extend((style.fill, style.outline, style.motif))
    for name in dir(palette):
        value = getattr(palette, name)
        if name.isupper() and isinstance(value, tuple) and len(value) == 3:
            colors.append(value)
    colors.append((0, 0, 0))
    unique: list[tuple[int, int, int]] = []
    for color in colors:
        if color not in unique:
            unique.append(color)
    return unique


def _specimen(width: int) -> Image.Image:
    """A picture holding every kind of pixel a board can have, to learn the palette from:
    rugs of every style and shape, Assam every way, the arrows of his choices, badges, dice,
    swatches, and text."""
    geometry = layout(width, 4)
    image = base_image(width, 4).copy()
    cell = geometry.cell
    px, py, px1, _ = geometry.panel_box
    swatch = round(cell * 0.56)
    styles = [*palette.RUG_STYLES.values(), palette.NEUTRAL_STYLE]
    shapes = ((1, 1), (2, 1), (1, 2))
    for i, style in enumerate(styles):
        for j, shape in enumerate(shapes):
            x0, y0, _, _ = geometry.square_box(i * 7 + j * 2)
            rug_stamp(cell, style, shape).paste(image, x0, y0)
        for j, small in enumerate(
            (rug_piece(swatch, style, (1, 1)), crossed_swatch(swatch, style))
        ):
            at = (px + 5 + i * round(swatch * 1.4), py + 5 + j * round(swatch * 1.2))
            image.paste(small, at, small)
    for k, facing in enumerate(Facing):
        x, y = geometry.center(8 + 7 * (k % 3) + k // 3)
        arrow = choice_arrow(cell, facing, k % 2 == 0)
        image.paste(arrow, (round(x - arrow.width / 2), round(y - arrow.height / 2)), arrow)
    for k, facing in enumerate(Facing):
        sprite = assam(cell, facing)
        x0, y0, _, _ = geometry.square_box(35 + k)
        image.paste(sprite, (x0, y0), sprite)
    for k, style in enumerate(styles):
        for j, label in enumerate((str(k + 8), "LSR"[k % 3])):
            sprite = badge(cell, label, style.fill)
            x0, y0, _, _ = geometry.square_box(42 + k)
            image.paste(sprite, (x0 + j * sprite.width, y0), sprite)
        face = die(round(cell * 0.58), 1 + k % 4)
        image.paste(face, (px1 - face.width - 5, py + 5 + k * (face.height + 4)), face)
    lines = ("Turn 12 Seat 3 dirhams rugs visible score", "0123456789 #1 out", "Alice Zoë Дмитро")
    for k, text in enumerate(lines):
        y = py + round(cell * 3) + round(cell * 0.6) * k
        size = round(cell * (0.27, 0.42, 0.4)[k])
        draw_text(image, (px + 5, y), text, size=size, fill=palette.TEXT, bold=k == 1)
    return image


def learned_palette() -> bytes:
    """The 256-colour palette (768 bytes, RGB) learned from the specimen: every exact colour
    first, then the median-cut's colours not within NEAR of one already in."""
    exact = exact_colors()
    learned = _specimen(DEFAULT_SIZE).quantize(
        PALETTE_SIZE, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
    )
    raw = learned.getpalette() or []
    entries = list(exact)
    for i in range(0, len(raw), 3):
        color = (raw[i], raw[i + 1], raw[i + 2])
        if len(entries) >= PALETTE_SIZE:
            break
        if all(max(abs(a - b) for a, b in zip(color, e, strict=True)) > NEAR for e in entries):
            entries.append(color)
    while len(entries) < PALETTE_SIZE:
        entries.append(entries[-1])
    return bytes(channel for color in entries for channel in color)


PALETTE_HEX = (
    "e0402a6e160cffd6bef2c12e7a580096600a1e5aa808224ab0d0f64e33221e120ac89e708f8f8f464646cccccc"
    "f6deaa3c6e7828183cffffffffd040342118261e38fac434b078148a3d225c241218141cfaeac800e6ff422b1f"
    "68462e7e22cef3ece0cdba98faf2e2b09c8a000000fffff2fef7eaf9f8f6f6f2ebeeeceaf5ebd7ffe8aeffdec7"
    "ffe155ebe5d9ebe3d0e6dccee5d8c4eddaabded8cfddd3bdb9d7fbd5cdbcc5cbd3f9c384d8c8adecbf3bebbb2a"
    "ccc8bdcdbfa3c4c3c2b9c0bfddb589e4b42cbfb4a1ceac7db7b4aeb5b79aabaaa3aea599a3aa98d09f6fa29f98"
    "a99e8fbf9263b68f6ea5947ab4784fa98357a76c1697b2c58e999a95959699958e79959678928d958f87927e67"
    "7689847a7c794b7aa3427480856b49906142835f036b6563536263306c7f3168762a64ae225d9fe34c36d93d28"
    "9241228b471e8c3f328c3e2a785607724d3a62564f624d3b7d41264e4d4f5248454b433c3c425323487ebb3920"
    "89331c8130187e291175190f6b2c17583c2848362b51361b492c1e422f2a402216362137192a49112143201b2f"
    "21151d1914240f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b13"
    "0f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b13"
    "0f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b13"
    "0f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b13"
    "0f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b13"
    "0f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b13"
    "0f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b13"
    "0f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b130f0b13"
    "0f0b13"
)
"""`learned_palette()`, kept (hex, 3 bytes a colour): what every picture is quantised with."""


@lru_cache(maxsize=1)
def palette_image() -> Image.Image:
    """The fixed 256-colour palette (as a 'P' image) every picture is quantised with."""
    holder = Image.new("P", (1, 1))
    holder.putpalette(bytes.fromhex(PALETTE_HEX))
    return holder


def quantize(image: Image.Image) -> Image.Image:
    """The picture in 'P' mode on the fixed palette (no dithering)."""
    return image.quantize(palette=palette_image(), dither=Image.Dither.NONE)


def encode_png(image: Image.Image) -> bytes:
    """PNG bytes of an RGB picture (no metadata, so the same pixels give the same bytes)."""
    out = io.BytesIO()
    quantize(image).save(out, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return out.getvalue()


def encode_gif(frames: Iterable[Image.Image], durations: Sequence[int]) -> bytes:
    """An animated GIF (looping) of RGB frames, each shown for its duration in milliseconds."""
    quantized = [quantize(frame) for frame in frames]
    if not quantized:
        raise ValueError("a GIF needs at least one frame")
    out = io.BytesIO()
    quantized[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=quantized[1:],
        duration=list(durations),
        loop=0,
        optimize=False,
        disposal=1,
    )
    return out.getvalue()
