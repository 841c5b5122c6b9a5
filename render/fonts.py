"""The bundled DejaVu Sans faces (licence in fonts/LICENSE.txt), lazily, and which characters
each can draw.

Every face is opened with Pillow's basic layout engine, never Raqm: Pillow uses Raqm only where
the host happens to have libraqm installed, so leaving the choice to Pillow would make the same
state give different pixels on different hosts. The basic engine draws left-to-right text
without shaping, which is all the bundled faces are used for (see render.names).

What a face can draw is read from its own character map (the `cmap` table of the TrueType
file, parsed here with `struct`): a code point is covered when the map gives it a real glyph.
"""

from __future__ import annotations

import struct
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
    path = str(BOLD if bold else REGULAR)
    return ImageFont.truetype(path, size, layout_engine=ImageFont.Layout.BASIC)


def _format_12(data: bytes, at: int) -> set[int]:
    """Code points given a glyph by a format 12 subtable (segmented coverage, all planes)."""
    (groups,) = struct.unpack_from(">I", data, at + 12)
    codes: set[int] = set()
    for i in range(groups):
        start, end, glyph = struct.unpack_from(">III", data, at + 16 + 12 * i)
        first = start + 1 if glyph == 0 else start  # glyph 0 is .notdef, "no glyph"
        codes.update(range(first, end + 1))
    return codes


def _format_4(data: bytes, at: int) -> set[int]:
    """Code points given a glyph by a format 4 subtable (segments of the BMP)."""
    (seg_x2,) = struct.unpack_from(">H", data, at + 6)
    segments = seg_x2 // 2
    ends_at = at + 14
    starts_at = ends_at + seg_x2 + 2
    deltas_at = starts_at + seg_x2
    offsets_at = deltas_at + seg_x2
    codes: set[int] = set()
    for i in range(segments):
        (end,) = struct.unpack_from(">H", data, ends_at + 2 * i)
        (start,) = struct.unpack_from(">H", data, starts_at + 2 * i)
        (delta,) = struct.unpack_from(">H", data, deltas_at + 2 * i)
        (offset,) = struct.unpack_from(">H", data, offsets_at + 2 * i)
        for code in range(start, end + 1):
            if code == 0xFFFF:
                continue
            if offset == 0:
                glyph = (code + delta) & 0xFFFF
            else:
                where = offsets_at + 2 * i + offset + 2 * (code - start)
                (glyph,) = struct.unpack_from(">H", data, where)
                if glyph:
                    glyph = (glyph + delta) & 0xFFFF
            if glyph:
                codes.add(code)
    return codes


def cmap_coverage(data: bytes) -> frozenset[int]:
    """Every code point that a TrueType font file (its bytes) maps to a real glyph, read from
    its Unicode `cmap` subtable (format 12 preferred, else format 4). Raises ValueError for a
    file without one."""
    (count,) = struct.unpack_from(">H", data, 4)
    tables = {}
    for i in range(count):
        tag, _, offset, _ = struct.unpack_from(">4sIII", data, 12 + 16 * i)
        tables[tag] = offset
    if b"cmap" not in tables:
        raise ValueError("the font has no cmap table")
    cmap = tables[b"cmap"]
    (subtables,) = struct.unpack_from(">H", data, cmap + 2)
    found: dict[int, int] = {}  # format -> where its subtable starts
    for i in range(subtables):
        platform, encoding, offset = struct.unpack_from(">HHI", data, cmap + 4 + 8 * i)
        unicode = platform == 0 or (platform == 3 and encoding in (1, 10))
        if unicode:
            (fmt,) = struct.unpack_from(">H", data, cmap + offset)
            found.setdefault(fmt, cmap + offset)
    if 12 in found:
        return frozenset(_format_12(data, found[12]))
    if 4 in found:
        return frozenset(_format_4(data, found[4]))
    raise ValueError("the font has no Unicode cmap subtable of format 4 or 12")


@lru_cache(maxsize=2)
def coverage(*, bold: bool = False) -> frozenset[int]:
    """The code points the bundled regular (or bold) face has a glyph for (cached)."""
    return cmap_coverage((BOLD if bold else REGULAR).read_bytes())


def covers(char: str, *, bold: bool = False) -> bool:
    """Whether the bundled face has a glyph for the single character `char`."""
    return ord(char) in coverage(bold=bold)
