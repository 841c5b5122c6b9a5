"""The bundled DejaVu Sans faces (Latin and Cyrillic; licence in fonts/LICENSE.txt), lazily."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

FONT_DIR = Path(__file__).resolve().parent / "fonts"
REGULAR = FONT_DIR / "DejaVuSans.ttf"
BOLD = FONT_DIR / "DejaVuSans-Bold.ttf"


@lru_cache(maxsize=64)
def font(size: int, *, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The bundled sans-serif face at `size` pixels, bold or regular (cached)."""
    return ImageFont.truetype(str(BOLD if bold else REGULAR), size)
