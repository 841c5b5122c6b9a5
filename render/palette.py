"""The colours of the picture: rug colours with their marks, and the market's own tones.

Rug colours follow RULES.md R1 (red, yellow, blue, brown) plus a neutral grey for the rugs of
eliminated players. They were chosen so that every pair stays clearly apart (CIEDE2000 above
15) for normal vision and under simulated protanopia, deuteranopia and tritanopia, including
against the empty market square (see render.vision and tests/render/test_palette.py). Each
colour also carries its own mark (a motif drawn on every rug half and on the panel swatches),
so no one has to rely on hue alone.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from engine import Color

RGB = tuple[int, int, int]


class Mark(enum.Enum):
    """The motif woven into a rug half, one per colour."""

    DIAMOND = "diamond"
    DOTS = "dots"
    BARS = "bars"
    CROSS = "cross"
    HATCH = "hatch"


@dataclass(frozen=True)
class RugStyle:
    """How one rug colour is painted: base fill, outline, motif and the motif's tone."""

    fill: RGB
    outline: RGB
    motif: RGB
    mark: Mark


RUG_STYLES: dict[Color, RugStyle] = {
    Color.RED: RugStyle(
        fill=(224, 64, 42), outline=(110, 22, 12), motif=(255, 214, 190), mark=Mark.DIAMOND
    ),
    Color.YELLOW: RugStyle(
        fill=(242, 193, 46), outline=(122, 88, 0), motif=(150, 96, 10), mark=Mark.DOTS
    ),
    Color.BLUE: RugStyle(
        fill=(30, 90, 168), outline=(8, 34, 74), motif=(176, 208, 246), mark=Mark.BARS
    ),
    Color.BROWN: RugStyle(
        fill=(78, 51, 34), outline=(30, 18, 10), motif=(200, 158, 112), mark=Mark.CROSS
    ),
}
NEUTRAL_STYLE = RugStyle(
    fill=(143, 143, 143), outline=(70, 70, 70), motif=(204, 204, 204), mark=Mark.HATCH
)

# The market and its surroundings.
SQUARE = (243, 236, 224)  # an empty market square
SQUARE_LINE = (205, 186, 152)  # grid between squares
FRAME = (138, 61, 34)  # the border band around the market
FRAME_EDGE = (92, 36, 18)
ARC = (246, 222, 170)  # the mosaic arcs of R7
ARC_EDGE = (60, 110, 120)
BACKGROUND = (52, 33, 24)  # around the board and behind the panel
PANEL = (66, 43, 31)
PANEL_ACTIVE = (104, 70, 46)  # row of the seat whose turn it is
TEXT = (250, 242, 226)
TEXT_DIM = (176, 156, 138)
LABEL = (250, 234, 200)  # coordinates on the frame

# Overlays.
INK = (24, 20, 28)  # dark outline used under light strokes
HALO = (255, 255, 255)
PATH = (126, 34, 206)  # Assam's walk
REGION = (255, 255, 255)  # outline of the region just paid for
LAST_RUG = (0, 230, 255)  # frame of the rug just laid
BADGE = (38, 30, 56)  # candidate number badge (not INK, so tests can find badges)
BADGE_TEXT = (255, 255, 255)
ASSAM = (40, 24, 60)
ASSAM_ARROW = (255, 255, 255)
ASSAM_RING = (255, 208, 64)
COIN = (250, 196, 52)  # the coin showing a payment
COIN_EDGE = (176, 120, 20)

# Everything that must stay apart for every kind of colour vision.
DISTINGUISHED: dict[str, RGB] = {
    **{color.value: style.fill for color, style in RUG_STYLES.items()},
    "neutral": NEUTRAL_STYLE.fill,
    "empty": SQUARE,
}


def rug_style(color: Color | None) -> RugStyle:
    """The style of a rug colour; None stands for a neutral (eliminated player's) rug."""
    return NEUTRAL_STYLE if color is None else RUG_STYLES[color]
