"""Text drawn with the bundled font, each distinct string rasterised once and cached as a
mask, since a board repeats the same labels and small numbers on every turn."""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from render.fonts import FREETYPE_LOCK, font

RGB = tuple[int, int, int]


@lru_cache(maxsize=4096)
def _mask(text: str, size: int, bold: bool, anchor: str) -> tuple[Image.Image, int, int]:
    face = font(size, bold=bold)
    with FREETYPE_LOCK:
        box = face.getbbox(text, anchor=anchor)
        left, top = math.floor(box[0]), math.floor(box[1])
        right, bottom = math.ceil(box[2]), math.ceil(box[3])
        mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
        ImageDraw.Draw(mask).text((-left, -top), text, font=face, fill=255, anchor=anchor)
    return mask, left, top


@lru_cache(maxsize=1024)
def fit(text: str, size: int, max_width: int, *, bold: bool = False) -> int:
    """The largest font size up to `size` at which `text` fits in `max_width` pixels."""
    with FREETYPE_LOCK:
        while size > 8 and font(size, bold=bold).getlength(text) > max_width:
            size -= 1
    return size


def width(text: str, size: int, *, bold: bool = False) -> float:
    """Advance width of `text` in pixels."""
    with FREETYPE_LOCK:
        return font(size, bold=bold).getlength(text)


def draw_text(
    image: Image.Image,
    xy: tuple[float, float],
    text: str,
    *,
    size: int,
    fill: RGB,
    bold: bool = False,
    anchor: str = "la",
) -> None:
    """Draw `text` at `xy` like ImageDraw.text with the same anchor (e.g. "lm", "rm", "mm")."""
    if not text:
        return
    mask, left, top = _mask(text, size, bold, anchor)
    x, y = round(xy[0]) + left, round(xy[1]) + top
    image.paste(fill, (x, y, x + mask.width, y + mask.height), mask)
