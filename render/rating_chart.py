"""A player's rating over their rated games, as a small line chart for the stats message.

`render_rating_chart(points, ...)` draws the points a player had before their first rated game
and after each one since: a line over a grid of round values, the starting value as a dashed
line, the first games (while the rating is provisional) on a hatched band, and the last value
large in the corner. Each game's step is marked by its shape, not its colour alone: a triangle
pointing up for a gain, down for a loss, a dot for no change (left out when there are too many
games to mark one by one). The colours are the board's (render.palette): light strokes on the
panel's dark brown, each with a dark rim, so the chart reads the same for every kind of colour
vision and on a phone, where Discord shows it 390 pixels wide.

Under the rating the chart can draw the member's accuracy game by game and its trend
(`accuracy`, render.accuracy_strip); before any rated game that strip is the whole picture.

The few words come from `ChartLabels` (and the strip's own) and numbers are grouped with the
caller's separator, so the bot passes its own language. `python -m render.rating_chart OUT.png
[WIDTH]` draws a sample, rating and accuracy.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw

from render import palette
from render.accuracy_strip import STRIP_HEIGHT, AccuracyStrip, draw_accuracy
from render.encode import encode_png
from render.text import draw_text, fit, width

CHART_WIDTH = 800
CHART_HEIGHT = 450
START = 1500
"""Everyone's rating before their first rated game: drawn as a dashed line."""
MARKED_GAMES = 40
"""Up to this many games, each one's step is marked."""
VALUE_STEPS = (25, 50, 100, 250, 500, 1000, 2500)
"""Spacings of the horizontal grid, each a divisor of START so that its line is on the grid."""
GAME_STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000)

GAIN = palette.COIN
LOSS = palette.HALO
LINE = palette.COIN
GRID = palette.PANEL_ACTIVE
RIM = palette.INK


@dataclass(frozen=True)
class ChartLabels:
    """The words drawn in the chart."""

    title: str = "Rating"
    games: str = "games"
    provisional: str = "provisional"


CHART_ENGLISH = ChartLabels()

SAMPLE = (
    1500, 1586, 1541, 1597, 1622, 1590, 1633, 1661, 1649, 1688, 1712, 1698, 1721, 1745,
    1731, 1760, 1752, 1779, 1770, 1801, 1793, 1815, 1808, 1827, 1842, 1829, 1851,
)  # fmt: skip
"""A player's first 26 rated games, for the sample picture."""


MINUS = "\u2212"
"""The minus sign a value below zero is written with (a hyphen is a shorter dash, set lower)."""


def grouped(value: int, separator: str = ",") -> str:
    """`value` with its thousands separated by `separator` (1,532; 1 532), a minus sign in
    front of a value below zero (`MINUS`)."""
    return f"{value:,}".replace(",", separator).replace("-", MINUS)


def _step(span: float, steps: Sequence[int], most: int) -> int:
    """The smallest of `steps` that cuts `span` into at most `most` parts."""
    return next((step for step in steps if span / step <= most), steps[-1])


@dataclass(frozen=True)
class _Frame:
    """Where the plot lies in the picture and how values map into it."""

    left: float
    top: float
    right: float
    bottom: float
    games: int
    low: int
    high: int

    def x(self, game: float) -> float:
        return self.left + (self.right - self.left) * game / max(self.games, 1)

    def y(self, value: float) -> float:
        return self.bottom - (self.bottom - self.top) * (value - self.low) / (self.high - self.low)


def render_rating_chart(
    points: Sequence[int],
    *,
    provisional: int = 10,
    labels: ChartLabels = CHART_ENGLISH,
    separator: str = ",",
    width_px: int = CHART_WIDTH,
    accuracy: AccuracyStrip | None = None,
) -> bytes:
    """PNG of `points` (the rating before the first rated game, then after each one), the
    points of a rating still provisional (before `provisional` games) on a hatched band,
    numbers grouped with `separator`; with `accuracy`, the member's accuracy game by game under
    it (render.accuracy_strip), or alone when `points` is empty (no rated game)."""
    if not points and accuracy is None:
        raise ValueError("a rating chart needs at least the starting value")
    scale = width_px / CHART_WIDTH
    rating_height = round(CHART_HEIGHT * scale) if points else 0
    strip_height = round(STRIP_HEIGHT * scale) if accuracy is not None else 0
    image = Image.new("RGB", (width_px, rating_height + strip_height), palette.PANEL)
    left = 0.0
    if points:
        rating = image.crop((0, 0, width_px, rating_height))
        left = _draw_rating(rating, points, provisional, labels, separator, scale)
        image.paste(rating, (0, 0))
    if accuracy is not None:
        draw_accuracy(image, rating_height + (0 if points else -3 * scale), accuracy, scale, left)
    return encode_png(image)


def _draw_rating(
    image: Image.Image,
    points: Sequence[int],
    provisional: int,
    labels: ChartLabels,
    separator: str,
    scale: float,
) -> float:
    """Draw the rating's chart over all of `image`; where its plot starts on the left."""
    width_px, height = image.size
    pad = 24 * scale
    header = 74 * scale
    tick_size = max(8, round(26 * scale))
    low, high = _value_range(points)
    step = _step(high - low, VALUE_STEPS, 5)
    low, high = math.floor(low / step) * step, math.ceil(high / step) * step
    label_width = max(width(grouped(v, separator), tick_size) for v in (low, high))
    frame = _Frame(
        left=pad + label_width + 14 * scale,
        top=header + 16 * scale,
        right=width_px - pad - 14 * scale,
        bottom=height - pad - tick_size - 14 * scale,
        games=len(points) - 1,
        low=low,
        high=high,
    )
    draw = ImageDraw.Draw(image)
    # the points while the rating was provisional: after 0 to `provisional - 1` games
    band = frame.games if frame.games < provisional else provisional - 1
    _provisional_band(image, frame, band, labels, scale)
    for value in range(low, high + 1, step):
        y = frame.y(value)
        draw.line([(frame.left, y), (frame.right, y)], fill=GRID, width=max(1, round(2 * scale)))
        draw_text(
            image,
            (frame.left - 10 * scale, y),
            grouped(value, separator),
            size=tick_size,
            fill=palette.TEXT_DIM,
            anchor="rm",
        )
    _dashed(draw, frame, START, scale)
    _game_ticks(image, frame, labels, tick_size, scale)
    _line(draw, frame, points, scale)
    _header(image, points[-1], labels, separator, pad, header, scale)
    return frame.left


def _value_range(points: Sequence[int]) -> tuple[int, int]:
    low, high = min(*points, START), max(*points, START)
    margin = max(10, (high - low) // 10)
    return low - margin, high + margin


def _provisional_band(
    image: Image.Image, frame: _Frame, games: int, labels: ChartLabels, scale: float
) -> None:
    """Hatch the chart up to the last point (after `games` games) where the rating was still
    provisional, and name the band if it has room."""
    if games <= 0:
        return
    left, right = frame.x(0), frame.x(games)
    band = Image.new("RGB", image.size, palette.PANEL)
    draw = ImageDraw.Draw(band)
    gap = 16 * scale
    span = frame.bottom - frame.top
    x = left - span
    while x < right:
        draw.line(
            [(x, frame.bottom), (x + span, frame.top)],
            fill=palette.BACKGROUND,
            width=max(1, round(5 * scale)),
        )
        x += gap
    mask = Image.new("L", image.size, 0)
    ImageDraw.Draw(mask).rectangle([left, frame.top, right, frame.bottom], fill=255)
    image.paste(band, (0, 0), mask)
    size = fit(labels.provisional, max(8, round(24 * scale)), round(right - left - 12 * scale))
    if width(labels.provisional, size) <= right - left - 12 * scale and size >= 9 * scale:
        draw_text(
            image,
            (left + 6 * scale, frame.top + 4 * scale),
            labels.provisional,
            size=size,
            fill=palette.TEXT_DIM,
        )


def _dashed(draw: ImageDraw.ImageDraw, frame: _Frame, value: int, scale: float) -> None:
    y = frame.y(value)
    dash, gap = 14 * scale, 10 * scale
    x = frame.left
    while x < frame.right:
        end = min(x + dash, frame.right)
        draw.line([(x, y), (end, y)], fill=palette.TEXT_DIM, width=max(1, round(3 * scale)))
        x = end + gap


def _game_ticks(
    image: Image.Image, frame: _Frame, labels: ChartLabels, size: int, scale: float
) -> None:
    """Game numbers under the plot, and the word for them in the corner below the values."""
    step = _step(max(frame.games, 1), GAME_STEPS, 8)
    y = frame.bottom + 10 * scale
    for game in range(0, frame.games + 1, step):
        draw_text(
            image, (frame.x(game), y), str(game), size=size, fill=palette.TEXT_DIM, anchor="ma"
        )
    room = frame.left - 24 * scale - 10 * scale
    word = fit(labels.games, size, round(room))
    draw_text(
        image,
        (frame.left - 10 * scale - width(str(0), size) / 2 - 6 * scale, y),
        labels.games,
        size=word,
        fill=palette.TEXT_DIM,
        anchor="ra",
    )


def _line(draw: ImageDraw.ImageDraw, frame: _Frame, points: Sequence[int], scale: float) -> None:
    """The rating's line, with a dark rim, each game's step marked, the last value ringed."""
    xy = [(frame.x(game), frame.y(value)) for game, value in enumerate(points)]
    if len(xy) > 1:
        draw.line(xy, fill=RIM, width=max(3, round(10 * scale)), joint="curve")
        draw.line(xy, fill=LINE, width=max(2, round(5 * scale)), joint="curve")
    if len(points) - 1 <= MARKED_GAMES:
        radius = 10 * scale
        for game in range(1, len(points)):
            change = points[game] - points[game - 1]
            _marker(draw, xy[game], change, radius, scale)
    x, y = xy[-1]
    ring = 15 * scale
    draw.ellipse(
        [x - ring, y - ring, x + ring, y + ring],
        outline=RIM,
        width=max(2, round(8 * scale)),
    )
    draw.ellipse(
        [x - ring, y - ring, x + ring, y + ring],
        outline=palette.ASSAM_RING,
        width=max(1, round(4 * scale)),
    )


def _marker(
    draw: ImageDraw.ImageDraw, at: tuple[float, float], change: int, radius: float, scale: float
) -> None:
    """An upward triangle for a gain, a downward one for a loss, a dot for no change."""
    x, y = at
    rim = max(1, round(3 * scale))
    if change == 0:
        small = radius * 0.7
        draw.ellipse([x - small, y - small, x + small, y + small], fill=palette.TEXT, outline=RIM)
        return
    tip = -1 if change > 0 else 1
    shape = [
        (x, y + tip * radius * 1.15),
        (x - radius, y - tip * radius * 0.7),
        (x + radius, y - tip * radius * 0.7),
    ]
    draw.polygon(shape, fill=GAIN if change > 0 else LOSS, outline=RIM, width=rim)


def _header(
    image: Image.Image,
    value: int,
    labels: ChartLabels,
    separator: str,
    pad: float,
    header: float,
    scale: float,
) -> None:
    """The title on the left, the rating now large on the right."""
    number = grouped(value, separator)
    number_size = round(46 * scale)
    number_width = width(number, number_size, bold=True)
    draw_text(
        image,
        (image.width - pad, header / 2 + 6 * scale),
        number,
        size=number_size,
        fill=palette.TEXT,
        bold=True,
        anchor="rm",
    )
    room = image.width - 2 * pad - number_width - 24 * scale
    size = fit(labels.title, round(34 * scale), round(room), bold=True)
    draw_text(
        image,
        (pad, header / 2 + 6 * scale),
        labels.title,
        size=size,
        fill=palette.TEXT,
        bold=True,
        anchor="lm",
    )


SAMPLE_ACCURACY = AccuracyStrip(
    values=(
        56.4, 63.2, 51.9, 65.5, 59.0, 68.1, 62.6, 54.8, 66.9, 64.3,
        69.6, 65.1, 73.2, 61.4, 71.9, 75.3, 67.7, 72.5, 76.2, 70.8,
    ),
    title="Accuracy, last 20 games",
    average="66%",
    trend="+9.1",
    direction=1,
)  # fmt: skip
"""That player's accuracy over their last 20 judged games, for the sample picture."""


def main(argv: Sequence[str]) -> int:
    """Write the sample chart (the rating, the accuracy under it) to the path in `argv`, at
    the width given after it (default CHART_WIDTH)."""
    parser = argparse.ArgumentParser(
        prog="python -m render.rating_chart",
        description="Draw a sample rating chart, the accuracy under it, as a PNG.",
    )
    parser.add_argument("out", metavar="OUT.png", type=Path, help="the file to write")
    parser.add_argument(
        "width",
        metavar="WIDTH",
        type=int,
        nargs="?",
        default=CHART_WIDTH,
        help=f"its width in pixels (default {CHART_WIDTH})",
    )
    arguments = parser.parse_args(argv)
    chart = render_rating_chart(SAMPLE, width_px=arguments.width, accuracy=SAMPLE_ACCURACY)
    arguments.out.write_bytes(chart)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
