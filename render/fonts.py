"""The bundled DejaVu Sans faces (Latin and Cyrillic; licence in fonts/LICENSE.txt), lazily."""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

FONT_DIR = Path(__file__).resolve().parent / "fonts"
REGULAR = FONT_DIR / "DejaVuSans.ttf"
BOLD = FONT_DIR / "DejaVuSans-Bold.ttf"

# A FreeType face must not be used by two threads at once, and the bot renders in worker
# threads: hold this lock around every measuring or drawing of text.
FREETYPE_LOCK = threading.RLock()


@lru_cache(maxsize=64)
def font(size: int, *, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The bundled sans-serif face at `size` pixels, bold or regular (cached)."""
    return ImageFont.truetype(str(BOLD if bold else REGULAR), size)
