"""A member's accuracy game by game, drawn under their rating chart (render.rating_chart).

One bar per judged game, oldest on the left, its height the game's accuracy on a scale from 0
to 100 (docs/coach.md), ticked at 0, 50 (about what choosing at random keeps) and 100; the
mean of the older half and of the newer half are drawn as a light bar across each half's
games, behind the bars (every bar's top shows, above the mean or below it), so the step
between them is the trend the stats give in words (the newest half against as many games
before; with an odd count the oldest game is left out of it, as in
`bot.services.stats.accuracy_of`). The header names it, gives the average large on the right
and, with a trend, its signed points beside a triangle pointing up for a rise, down for a fall
(none when steady). Shapes and light-on-dark strokes with dark rims carry every difference,
never a hue alone, so it reads the same for every kind of colour vision and at the 390 px a
phone shows.

All words come from the caller (`AccuracyStrip`), already in the reader's language.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from render import palette
from render.text import draw_text, fit, width

STRIP_HEIGHT = 250
"""The strip's height at the chart's full width (800 px)."""
TREND_GAMES = 4
"""The fewest games the halves' means are drawn for (two against two)."""

BAR = palette.COIN
MEAN = palette.TEXT
GRID = palette.PANEL_ACTIVE
RIM = palette.INK


@dataclass(frozen=True, slots=True)
class AccuracyStrip:
    """What the strip shows, its words in the reader's language."""

    values: tuple[float, ...]
    """Each judged game's accuracy (0-100), oldest first."""
    title: str
    """"Accuracy, last 20 games"."""
    average: str
    """The mean, as it is written ("82%")."""
    trend: str | None = None
    """The trend in signed points ("+4.2"), None with too few games."""
    direction: int = 0
    """+1 for a rise, -1 for a fall, 0 when steady (no triangle)."""
    percent: str = "{n}%"
    """How a percentage is written: the axis labels."""


def draw_accuracy(
    image: Image.Image, top: float, strip: AccuracyStrip, scale: float, left_margin: float
) -> None:
    """Draw `strip` into `image` from height `top` to its bottom, at `scale` of the full
    width; the plot starts `left_margin` from the left (the rating chart's, to line up)."""
    draw = ImageDraw.Draw(image)
    pad = 24 * scale
    draw.line([(pad, top), (image.width - pad, top)], fill=GRID, width=max(1, round(3 * scale)))
    header = 64 * scale
    _header(image, strip, top, header, pad, scale)
    tick_size = max(8, round(26 * scale))
    values = strip.values
    plot_left = max(left_margin, pad + width(strip.percent.format(n=100), tick_size) + 14 * scale)
    plot_right = image.width - pad - 14 * scale
    plot_top = top + header + 14 * scale
    plot_bottom = image.height - pad

    def y(value: float) -> float:
        return plot_bottom - (plot_bottom - plot_top) * value / 100

    for tick in (0, 50, 100):
        draw.line(
            [(plot_left, y(tick)), (plot_right, y(tick))],
            fill=GRID,
            width=max(1, round(2 * scale)),
        )
        draw_text(
            image,
            (plot_left - 10 * scale, y(tick)),
            strip.percent.format(n=tick),
            size=tick_size,
            fill=palette.TEXT_DIM,
            anchor="rm",
        )
    slot = (plot_right - plot_left) / max(len(values), 1)
    bar = max(2.0, slot * 0.62)
    rim = max(1, round(3 * scale))
    # The means first, so that every bar shows its top whole: above the mean or below it.
    for first, last, mean in _halves(values):
        level = y(mean)
        ends = [
            (plot_left + slot * first + 2 * scale, level),
            (plot_left + slot * last - 2 * scale, level),
        ]
        draw.line(ends, fill=RIM, width=max(3, round(11 * scale)))
        draw.line(ends, fill=MEAN, width=max(2, round(5 * scale)))
    for game, value in enumerate(values):
        middle = plot_left + slot * (game + 0.5)
        height = max(2.0 * rim, plot_bottom - y(value))
        draw.rectangle(
            [middle - bar / 2, plot_bottom - height, middle + bar / 2, plot_bottom],
            fill=BAR,
            outline=RIM,
            width=rim,
        )


def _halves(values: Sequence[float]) -> list[tuple[int, int, float]]:
    """(first game, end, mean) of the older and the newer half, as the trend compares them;
    none with fewer than TREND_GAMES games."""
    if len(values) < TREND_GAMES:
        return []
    half = len(values) // 2
    newer = len(values) - half
    older = newer - half
    return [
        (older, newer, math.fsum(values[older:newer]) / half),
        (newer, len(values), math.fsum(values[newer:]) / half),
    ]


def _header(
    image: Image.Image, strip: AccuracyStrip, top: float, header: float, pad: float, scale: float
) -> None:
    """The title on the left; the average large on the right, the trend before it."""
    middle = top + header / 2 + 6 * scale
    number_size = round(40 * scale)
    right = image.width - pad
    draw_text(
        image,
        (right, middle),
        strip.average,
        size=number_size,
        fill=palette.TEXT,
        bold=True,
        anchor="rm",
    )
    right -= width(strip.average, number_size, bold=True) + 22 * scale
    if strip.trend is not None:
        trend_size = round(30 * scale)
        draw_text(
            image, (right, middle), strip.trend, size=trend_size, fill=palette.TEXT, anchor="rm"
        )
        right -= width(strip.trend, trend_size) + 10 * scale
        if strip.direction:
            radius = 11 * scale
            _triangle(
                ImageDraw.Draw(image), (right - radius, middle), strip.direction, radius, scale
            )
            right -= 2 * radius
        right -= 18 * scale
    size = fit(strip.title, round(30 * scale), round(right - pad), bold=True)
    draw_text(
        image, (pad, middle), strip.title, size=size, fill=palette.TEXT, bold=True, anchor="lm"
    )


def _triangle(
    draw: ImageDraw.ImageDraw, at: tuple[float, float], direction: int, radius: float, scale: float
) -> None:
    """Pointing up for a rise, down for a fall, as the rating chart marks a game's step."""
    x, y = at
    tip = -1 if direction > 0 else 1
    shape = [
        (x, y + tip * radius * 1.15),
        (x - radius, y - tip * radius * 0.7),
        (x + radius, y - tip * radius * 0.7),
    ]
    draw.polygon(shape, fill=palette.TEXT, outline=RIM, width=max(1, round(3 * scale)))
