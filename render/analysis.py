"""The picture of a finished game's analysis: how each seat's chance of winning went, turn by
turn, the turning point, the biggest payments, each seat's accuracy (with its inaccuracies,
mistakes and blunders, each blunder ringed on its seat's line) and the luck of each seat's dice.

`render_analysis(picture, width=...) -> bytes` draws an `AnalysisPicture`: plain numbers (the
chances after every turn, the turning point's place among them, each seat's luck, place and
whether it went out) and the words to write (`AnalysisTexts`, in the caller's language). Words
may name a seat as `{seat0}` to `{seat3}`; each becomes that seat's name as the board's panel
draws it (render.names: made drawable by the bundled font, else the seat label).

Made to be read on a phone (the picture is usually shown 390 px wide) and by colour-blind
players: every seat's line has its rug colour (the board's palette), its rug's mark as markers
along it (diamond, dot, bar, cross) and a dash pattern of its own (solid, long dashes, short
dashes, dash and dot); the legend shows the same line beside the seat's rug swatches and name.
A blunder's ring is a light band between two ink circles around the seat's own marker: a shape
no marker has, told without colour.

`analysis_lines(picture, width=...)` gives every text the picture draws with its box, so what it
says can be checked without reading pixels.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from engine import seat_colors
from render import palette
from render.encode import encode_png
from render.layout import Box
from render.names import display_name, drawable, fit_name, shorten
from render.palette import RGB, Mark, rug_style
from render.sprites import crossed_swatch, rug_piece
from render.text import draw_text, width

ANALYSIS_WIDTH = 720
"""The default width: shown at 390 px on a phone, its smallest text is still 12 px."""
PHONE_WIDTH = 390
SMALLEST_ON_A_PHONE = 12
SMALLEST = math.ceil(SMALLEST_ON_A_PHONE * ANALYSIS_WIDTH / PHONE_WIDTH)
"""The smallest size any text is drawn at (at the default width): 12 px once the picture is
shown 390 px wide."""
MIN_WIDTH = 360
MAX_WIDTH = 2000
SUPERSAMPLE = 3
"""The chart's lines are drawn this many times larger, then scaled down (smooth edges)."""
CHART_BACKGROUND = palette.SQUARE
GRID = palette.SQUARE_LINE
SWING_BAND = (252, 218, 120)
BLUNDER_RING = (255, 253, 246)
"""The light band of the ring around a blunder's mark (a colour nothing else of the picture has)."""

DASHES: tuple[tuple[float, ...], ...] = ((), (5.0, 2.0), (1.6, 1.6), (4.5, 1.6, 1.0, 1.6))
"""Each seat's dash pattern, in line widths (on, off, on, off...; empty: solid)."""

SEAT_PLACEHOLDER = re.compile(r"\{seat([0-3])\}")
"""How a text names a seat: `{seat0}` to `{seat3}`."""


@dataclass(frozen=True)
class AnalysisTexts:
    """The words of the picture, in the caller's language (English by default). `{seat0}` to
    `{seat3}` in any of them stand for the seats' names; `seat` and `rank` are templates of
    `{n}`, like the board's `Labels`."""

    title: str = "How the game went"
    chances: str = "Chance of winning after each turn"
    turn: str = "turn"
    swing: str = "Turning point"
    swing_lines: tuple[str, ...] = ()
    payments: str = "Biggest payments"
    payment_lines: tuple[str, ...] = ()
    luck: str = "Dice luck: points above an average roll"
    luck_values: tuple[str, ...] = ()
    """One per seat, the luck as written in the caller's language ("+3.5")."""
    accuracy: str = "Accuracy: 100% is the best choice each time, about 50% choosing at random"
    accuracy_values: tuple[str, ...] = ()
    """One per seat, its accuracy as written in the caller's language ("87%")."""
    accuracy_counts: tuple[str, ...] = ()
    """One per seat, its count of inaccuracies, mistakes and blunders in words."""
    blunder_key: str = "Ringed mark: a blunder"
    seat: str = "Seat {n}"
    rank: str = "#{n}"
    percent: str = "{n}%"
    """How a percentage is written, as in `accuracy_values` ("{n} %" in French): the chart's
    axis."""


@dataclass(frozen=True)
class AnalysisPicture:
    """What the picture shows (see the module)."""

    players: int
    turns: tuple[int, ...]
    """The turn each point of the chart follows (0: the start)."""
    chances: tuple[tuple[float, ...], ...]
    """Per point, each seat's chance of winning (0 to 1)."""
    swing: int | None
    """The point right after the turning point (its turn ends there); None: none."""
    luck: tuple[float, ...]
    places: tuple[int, ...]
    """Each seat's final place (1 for a winner)."""
    out: tuple[bool, ...]
    """Whether each seat went out."""
    texts: AnalysisTexts = field(default_factory=AnalysisTexts)
    names: tuple[str, ...] | None = None
    """One display string per seat (None, or "" for a seat: its seat label)."""
    blunders: tuple[tuple[int, int], ...] = ()
    """The blunders to ring on the chart: (the point after its turn, the seat that made it)."""

    def __post_init__(self) -> None:
        seats = self.players
        if not 2 <= seats <= 4:
            raise ValueError("an analysis has 2 to 4 seats")
        per_seat: list[Sequence[object]] = [self.luck, self.places, self.out]
        if self.names is not None:
            per_seat.append(self.names)
        texts = self.texts
        given = (texts.luck_values, texts.accuracy_values, texts.accuracy_counts)
        per_seat.extend(values for values in given if values)
        if any(len(values) != seats for values in per_seat):
            raise ValueError(f"every per-seat value needs one entry per seat ({seats})")
        if len(self.turns) != len(self.chances) or len(self.turns) < 2:
            raise ValueError("the chart needs a turn for each of two points or more")
        if any(len(point) != seats for point in self.chances):
            raise ValueError("every point needs one chance per seat")
        if self.swing is not None and not 0 < self.swing < len(self.turns):
            raise ValueError("the turning point must be a point after the start")
        for point, seat in self.blunders:
            if not (0 < point < len(self.turns) and 0 <= seat < seats):
                raise ValueError("a blunder needs a point after the start and a seat")


@dataclass(frozen=True)
class Bar:
    """A seat's luck bar: its middle y and half height, from x0 to x1."""

    seat: int
    mid: int
    half: int
    x0: int
    x1: int


@dataclass(frozen=True)
class DrawnText:
    """A text of the picture: `role` (title, heading, legend, axis, line, luck), the seat it
    belongs to if any, the text as drawn, its box and size."""

    role: str
    seat: int | None
    text: str
    box: Box
    size: int


def line_color(players: int, seat: int) -> RGB:
    """The colour of a seat's line: its (first) rug colour."""
    return rug_style(seat_colors(players, seat)[0]).fill


def seat_mark(players: int, seat: int) -> Mark:
    """The marker along a seat's line: its (first) rug colour's mark."""
    return rug_style(seat_colors(players, seat)[0]).mark


class _Painter:
    """Draws and notes the texts of one picture."""

    def __init__(self, picture: AnalysisPicture, image_width: int) -> None:
        self.picture = picture
        self.width = image_width
        self.unit = image_width / ANALYSIS_WIDTH
        self.margin = self.px(24)
        self.texts: list[DrawnText] = []
        self.ops: list[tuple[str, tuple[object, ...]]] = []
        self.names = tuple(self._name(seat) for seat in range(picture.players))

    def px(self, value: float) -> int:
        return max(1, round(value * self.unit))

    def _name(self, seat: int) -> str:
        names = self.picture.names
        given = None if names is None or not names[seat] else names[seat]
        return display_name(given, self.picture.texts.seat.format(n=seat + 1))

    def words(self, template: str) -> str:
        """`template` with the seats' names in, made drawable. Every placeholder is filled in
        one pass, so a name that reads like a placeholder ("{seat1}") stays that name."""
        players = self.picture.players

        def name(found: re.Match[str]) -> str:
            seat = int(found.group(1))
            if seat >= players:
                return found.group(0)
            return shorten(self.names[seat], self.px(24), self.px(260))

        return drawable(SEAT_PLACEHOLDER.sub(name, template))

    def text(
        self,
        role: str,
        seat: int | None,
        words: str,
        box: Box,
        size: int,
        *,
        bold: bool = False,
        fill: RGB = palette.TEXT,
        right: bool = False,
    ) -> DrawnText:
        """Note `words` to draw in `box` (vertically centred): shrunk by a tenth at most, and
        never under SMALLEST, to fit its width, then cut with an ellipsis."""
        least = min(1.0, max(0.9, self.px(SMALLEST) / size))
        shown, size = fit_name(words, size, max(1, box[2] - box[0]), bold=bold, least=least)
        drawn = DrawnText(role, seat, shown, box, size)
        self.texts.append(drawn)
        self.ops.append(("text", (drawn, bold, fill, right)))
        return drawn

    def wrapped(
        self,
        role: str,
        template: str,
        top: int,
        size: float,
        *,
        bold: bool = False,
        fill: RGB = palette.TEXT,
        spacing: float = 1.35,
    ) -> int:
        """Note `template` (names filled in) wrapped to the picture's width from `top`; the y
        below it."""
        left, right = self.margin, self.width - self.margin
        pixels = self.px(size)
        line_h = round(pixels * spacing)
        for line in _wrap(self.words(template), pixels, right - left, bold=bold):
            box = (left, top, right, top + line_h)
            self.text(role, None, line, box, pixels, bold=bold, fill=fill)
            top += line_h
        return top


def _wrap(words: str, size: int, room: int, *, bold: bool = False) -> list[str]:
    """`words` in lines at most `room` pixels wide (a word too long alone is cut later)."""
    lines: list[str] = []
    line = ""
    for word in words.split(" "):
        candidate = f"{line} {word}" if line else word
        if line and width(candidate, size, bold=bold) > room:
            lines.append(line)
            line = word
        else:
            line = candidate
    if line:
        lines.append(line)
    return lines


def _layout(painter: _Painter) -> tuple[int, Box, list[Bar]]:
    """Note every text; return the picture's height, the chart's box and the luck bars."""
    picture, texts, px = painter.picture, painter.picture.texts, painter.px
    w, margin = painter.width, painter.margin
    top = painter.wrapped("title", texts.title, margin, 32, bold=True, spacing=1.3) + px(6)
    top = _legend(painter, top) + px(8)
    top = painter.wrapped("heading", texts.chances, top, 24, fill=palette.TEXT_DIM)
    chart = (margin + px(72), top + px(10), w - margin - px(10), top + px(10) + px(310))
    _axis_texts(painter, chart)
    top = chart[3] + px(48)
    if picture.blunders:
        key = (margin + px(KEY_ROOM), top, w - margin, top + px(KEY_ROW))
        painter.text("key", None, painter.words(texts.blunder_key), key, px(23))
        top += px(KEY_ROW) + px(10)
    if picture.swing is not None and texts.swing_lines:
        heading = f"{texts.swing} · {texts.turn} {picture.turns[picture.swing]}"
        top = painter.wrapped("heading", heading, top, 26, bold=True, fill=palette.ASSAM_RING)
        for line in texts.swing_lines:
            top = painter.wrapped("swing", line, top, 24)
        top += px(14)
    if texts.payment_lines:
        top = painter.wrapped("heading", texts.payments, top, 26, bold=True)
        for line in texts.payment_lines:
            top = painter.wrapped("payment", line, top, 24)
        top += px(14)
    if texts.accuracy_values:
        top = painter.wrapped("heading", texts.accuracy, top, 26, bold=True) + px(4)
        top = _accuracy(painter, top) + px(14)
    top = painter.wrapped("heading", texts.luck, top, 26, bold=True) + px(4)
    bars = _luck(painter, top)
    return top + picture.players * px(LUCK_ROW) + margin, chart, bars


LUCK_ROW = 38
"""The height of a seat's luck bar row (at the default width)."""
KEY_ROW = 34
"""The height of the row under the chart that tells what a ringed mark means."""
KEY_ROOM = 44
"""The room before the key's words, where its sample ring is painted."""


def _accuracy(painter: _Painter, top: int) -> int:
    """Each seat's accuracy: its name and accuracy on a row, its counts of inaccuracies,
    mistakes and blunders below; the y below them."""
    picture, texts, px = painter.picture, painter.picture.texts, painter.px
    margin, right = painter.margin, painter.width - painter.margin
    row_h = px(LUCK_ROW)
    count_h = px(32)
    for seat in range(picture.players):
        box = (margin + px(34), top, right - px(110), top + row_h)
        painter.text("accuracy_name", seat, painter.names[seat], box, px(24))
        box = (right - px(106), top, right, top + row_h)
        value = drawable(texts.accuracy_values[seat])
        painter.text("accuracy", seat, value, box, px(24), bold=True, right=True)
        top += row_h
        if texts.accuracy_counts:
            box = (margin + px(34), top, right, top + count_h)
            counts = drawable(texts.accuracy_counts[seat])
            painter.text("accuracy_counts", seat, counts, box, px(23), fill=palette.TEXT_DIM)
            top += count_h
    return top


def _legend(painter: _Painter, top: int) -> int:
    """A row per seat: its rank, then (painted later) its swatches and line sample, then its
    name; the y below them."""
    picture, texts, px = painter.picture, painter.picture.texts, painter.px
    row_h = px(LEGEND_ROW)
    x = painter.margin
    ranks = [drawable(texts.rank.format(n=place)) for place in picture.places]
    widest = max((width(rank, px(24), bold=True) for rank in ranks), default=0.0)
    rank_w = max(px(46), math.ceil(widest) + px(6))  # "n° 1" is wider than "#1"
    for seat in range(picture.players):
        y = top + seat * row_h
        fill = palette.ASSAM_RING if picture.places[seat] == 1 else palette.TEXT
        box = (x, y, x + rank_w, y + row_h)
        painter.text("rank", seat, ranks[seat], box, px(24), bold=True, fill=fill)
        name_x = x + rank_w + _swatches_width(painter, 2) + px(68)
        box = (name_x, y, painter.width - painter.margin, y + row_h)
        painter.text("legend", seat, painter.names[seat], box, px(24))
    return top + picture.players * row_h


LEGEND_ROW = 38
"""The height of a seat's row in the legend (at the default width)."""


def _luck(painter: _Painter, top: int) -> list[Bar]:
    """Each seat's row of the luck: its name, its bar from the middle (right: lucky, left:
    unlucky) and its value beyond the bar's end."""
    picture, texts, px = painter.picture, painter.picture.texts, painter.px
    margin = painter.margin
    bar_h = px(LUCK_ROW)
    name_right = margin + px(230)
    left, right = margin + px(240), painter.width - margin
    value_room = px(78)
    middle = (left + right) / 2
    half = (right - left) / 2 - value_room
    biggest = max((abs(value) for value in picture.luck), default=0.0) or 1.0
    bars = []
    for seat in range(picture.players):
        y = top + seat * bar_h
        box = (margin + px(34), y, name_right, y + bar_h)
        painter.text("luck_name", seat, painter.names[seat], box, px(24))
        value = picture.luck[seat]
        end = middle + half * value / biggest
        x0, x1 = sorted((round(middle), round(end)))
        bars.append(Bar(seat, y + bar_h // 2, round(bar_h * 0.32), x0, max(x1, x0 + 2)))
        words = texts.luck_values[seat] if texts.luck_values else f"{value:+.1f}"
        if value >= 0:
            box = (x1 + px(6), y, x1 + value_room, y + bar_h)
        else:
            box = (x0 - value_room, y, x0 - px(6), y + bar_h)
        painter.text("luck", seat, drawable(words), box, px(SMALLEST), right=value < 0)
    return bars


def _swatches_width(painter: _Painter, count: int) -> int:
    """How wide `count` swatches stand in the legend."""
    return count * (painter.px(28) + painter.px(4))


def _axis_texts(painter: _Painter, chart: Box) -> None:
    """The percentages beside the chart and the turn numbers below it."""
    px = painter.px
    x0, y0, x1, y1 = chart
    for quarter in range(5):
        y = y1 - (y1 - y0) * quarter / 4
        box = (px(4), round(y) - px(14), x0 - px(14), round(y) + px(14))
        words = drawable(painter.picture.texts.percent.format(n=quarter * 25))
        painter.text("axis", None, words, box, px(SMALLEST), fill=palette.TEXT_DIM, right=True)
    turns = painter.picture.turns
    last = len(turns) - 1
    step = _tick_step(turns[-1])
    for index, turn in enumerate(turns):
        if turn == 0 or turn % step:
            continue
        x = x0 + (x1 - x0) * index / last
        box = (round(x) - px(30), y1 + px(12), round(x) + px(30), y1 + px(38))
        painter.text("axis", None, str(turn), box, px(SMALLEST), fill=palette.TEXT_DIM)


def _tick_step(last_turn: int) -> int:
    """Turn numbers are written every 10 turns, or every 5 in a short game."""
    return 5 if last_turn <= 24 else 10


def analysis_lines(picture: AnalysisPicture, *, width: int = ANALYSIS_WIDTH) -> list[DrawnText]:
    """Every text `render_analysis(picture, width=...)` draws, in drawing order."""
    painter = _Painter(picture, _checked_width(width))
    _layout(painter)
    return painter.texts


def _checked_width(value: int) -> int:
    if not MIN_WIDTH <= value <= MAX_WIDTH:
        raise ValueError(f"width must be between {MIN_WIDTH} and {MAX_WIDTH} px")
    return value


def analysis_image(picture: AnalysisPicture, *, width: int = ANALYSIS_WIDTH) -> Image.Image:
    """The picture as an RGB image `width` pixels wide (its height follows its contents)."""
    painter = _Painter(picture, _checked_width(width))
    height, chart, bars = _layout(painter)
    image = Image.new("RGB", (painter.width, height), palette.BACKGROUND)
    _paint_chart(image, painter, chart)
    _paint_legend(image, painter)
    _paint_luck(image, painter, bars)
    _paint_key(image, painter)
    _paint_accuracy(image, painter)
    for kind, args in painter.ops:
        if kind == "text":
            drawn, bold, fill, right = args
            assert isinstance(drawn, DrawnText)
            x0, y0, x1, y1 = drawn.box
            at: tuple[float, float] = (x1 if right else x0, (y0 + y1) / 2)
            if drawn.role == "axis" and not right and drawn.text.isdigit():
                at, anchor = ((x0 + x1) / 2, (y0 + y1) / 2), "mm"
            else:
                anchor = "rm" if right else "lm"
            draw_text(
                image,
                at,
                drawn.text,
                size=drawn.size,
                fill=fill,  # type: ignore[arg-type]
                bold=bool(bold),
                anchor=anchor,
            )
    return image


def render_analysis(picture: AnalysisPicture, *, width: int = ANALYSIS_WIDTH) -> bytes:
    """PNG bytes of the picture (see the module)."""
    return encode_png(analysis_image(picture, width=width))


def _point_xy(chart: Box, picture: AnalysisPicture, index: int, seat: int) -> tuple[float, float]:
    x0, y0, x1, y1 = chart
    last = len(picture.turns) - 1
    chance = min(1.0, max(0.0, picture.chances[index][seat]))
    return x0 + (x1 - x0) * index / last, y1 - (y1 - y0) * chance


def _draw_order(picture: AnalysisPicture) -> list[int]:
    """Seats from the last place to the first, so the winner's line lies on top."""
    return sorted(range(picture.players), key=lambda seat: (-picture.places[seat], -seat))


def _paint_chart(image: Image.Image, painter: _Painter, chart: Box) -> None:
    """The chart's background, grid, turning point band, and every seat's line and markers,
    drawn supersampled and scaled down into `chart`."""
    picture = painter.picture
    s = SUPERSAMPLE
    x0, y0, x1, y1 = chart
    pad = painter.px(10)
    outer = (x0 - pad, y0 - pad, x1 + pad, y1 + pad)
    big_size = ((outer[2] - outer[0]) * s, (outer[3] - outer[1]) * s)
    big = Image.new("RGB", big_size, palette.BACKGROUND)
    draw = ImageDraw.Draw(big)

    def at(x: float, y: float) -> tuple[float, float]:
        return (x - outer[0]) * s, (y - outer[1]) * s

    draw.rounded_rectangle(
        (0, 0, big_size[0] - 1, big_size[1] - 1), radius=painter.px(8) * s, fill=CHART_BACKGROUND
    )
    if picture.swing is not None:
        left = _point_xy(chart, picture, picture.swing - 1, 0)[0]
        right = _point_xy(chart, picture, picture.swing, 0)[0]
        band_x0, band_y0 = at(left, y0)
        band_x1, band_y1 = at(right, y1)
        draw.rectangle((band_x0, band_y0, max(band_x1, band_x0 + 4 * s), band_y1), fill=SWING_BAND)
    grid_w = max(1, painter.px(1.5)) * s
    for quarter in range(5):
        y = y1 - (y1 - y0) * quarter / 4
        draw.line([at(x0, y), at(x1, y)], fill=GRID, width=grid_w)
    line_w = painter.px(4.5) * s
    casing = line_w + 2 * painter.px(1.5) * s
    for seat in _draw_order(picture):
        points = [at(*_point_xy(chart, picture, i, seat)) for i in range(len(picture.turns))]
        color = line_color(picture.players, seat)
        for piece in _dashed(points, [d * line_w for d in DASHES[seat]]):
            draw.line(piece, fill=palette.INK, width=casing, joint="curve")
            _caps(draw, piece, casing, palette.INK)
        for piece in _dashed(points, [d * line_w for d in DASHES[seat]]):
            draw.line(piece, fill=color, width=line_w, joint="curve")
            _caps(draw, piece, line_w, color)
        radius = painter.px(7.5) * s
        every = max(1, round(len(points) / 12))
        for index in range(len(points)):
            if index % every == (seat * every) // picture.players or index == len(points) - 1:
                _marker(draw, points[index], radius, seat_mark(picture.players, seat), color)
    radius = painter.px(7.5) * s
    for point, seat in picture.blunders:
        center = at(*_point_xy(chart, picture, point, seat))
        _blunder_ring(draw, center, radius)
        _marker(
            draw,
            center,
            radius,
            seat_mark(picture.players, seat),
            line_color(picture.players, seat),
        )
    small = big.resize((outer[2] - outer[0], outer[3] - outer[1]), Image.Resampling.LANCZOS)
    image.paste(small, (outer[0], outer[1]))


def _caps(
    draw: ImageDraw.ImageDraw, piece: list[tuple[float, float]], line_w: int, color: RGB
) -> None:
    """Round ends for a stroke (Pillow's lines end square)."""
    r = line_w / 2
    for x, y in (piece[0], piece[-1]):
        draw.ellipse((x - r, y - r, x + r, y + r), fill=color)


def _dashed(
    points: Sequence[tuple[float, float]], pattern: Sequence[float]
) -> list[list[tuple[float, float]]]:
    """The polyline through `points` cut by a dash `pattern` (lengths on, off, on, ...): the
    pieces drawn. An empty pattern gives the whole line."""
    if not pattern:
        return [list(points)]
    pieces: list[list[tuple[float, float]]] = []
    phase, left = 0, pattern[0]
    current: list[tuple[float, float]] = [points[0]]
    for (ax, ay), (bx, by) in itertools.pairwise(points):
        length = math.hypot(bx - ax, by - ay)
        done = 0.0
        while length - done > left:
            done += left
            t = done / length if length else 1.0
            here = (ax + (bx - ax) * t, ay + (by - ay) * t)
            if phase % 2 == 0:
                current.append(here)
                pieces.append(current)
                current = []
            else:
                current = [here]
            phase = (phase + 1) % len(pattern)
            left = pattern[phase]
        left -= length - done
        if phase % 2 == 0:
            current.append((bx, by))
    if phase % 2 == 0 and len(current) > 1:
        pieces.append(current)
    return [piece for piece in pieces if len(piece) > 1]


def _marker(
    draw: ImageDraw.ImageDraw, center: tuple[float, float], r: float, mark: Mark, color: RGB
) -> None:
    """A seat's marker: its rug's mark as a shape (diamond, dot, bar, cross) in its colour,
    outlined in ink."""
    x, y = center
    edge = max(2.0, r * 0.28)
    if mark is Mark.DIAMOND:
        outline = [(x, y - r - edge), (x + r + edge, y), (x, y + r + edge), (x - r - edge, y)]
        draw.polygon(outline, fill=palette.INK)
        draw.polygon([(x, y - r), (x + r, y), (x, y + r), (x - r, y)], fill=color)
    elif mark is Mark.DOTS:
        draw.ellipse((x - r - edge, y - r - edge, x + r + edge, y + r + edge), fill=palette.INK)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=color)
    elif mark is Mark.BARS:
        h = r * 0.62
        draw.rectangle((x - r - edge, y - h - edge, x + r + edge, y + h + edge), fill=palette.INK)
        draw.rectangle((x - r, y - h, x + r, y + h), fill=color)
    else:  # a cross, for brown (and the neutral hatch, never a seat's)
        arm = r * 0.42
        for dx, dy in ((r, arm), (arm, r)):
            draw.rectangle(
                (x - dx - edge, y - dy - edge, x + dx + edge, y + dy + edge), fill=palette.INK
            )
        for dx, dy in ((r, arm), (arm, r)):
            draw.rectangle((x - dx, y - dy, x + dx, y + dy), fill=color)


def _blunder_ring(draw: ImageDraw.ImageDraw, center: tuple[float, float], r: float) -> None:
    """The ring drawn around a seat's marker where it blundered: a white band between two ink
    circles, a shape no seat's marker has, so it reads without its colour."""
    x, y = center
    for radius, fill in ((r * 2.4, palette.INK), (r * 2.05, BLUNDER_RING), (r * 1.55, palette.INK)):
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=fill)


def _paint_key(image: Image.Image, painter: _Painter) -> None:
    """The sample ring before the words that tell what it means."""
    for drawn in painter.texts:
        if drawn.role != "key":
            continue
        s = SUPERSAMPLE
        side = painter.px(KEY_ROW)
        big = Image.new("RGB", (side * s, side * s), palette.BACKGROUND)
        draw = ImageDraw.Draw(big)
        center = (side * s / 2, side * s / 2)
        _blunder_ring(draw, center, painter.px(7.0) * s)
        draw.ellipse(
            (center[0] - 4 * s, center[1] - 4 * s, center[0] + 4 * s, center[1] + 4 * s),
            fill=CHART_BACKGROUND,
        )
        small = big.resize((side, side), Image.Resampling.LANCZOS)
        x0, y0, _, y1 = drawn.box
        image.paste(small, (x0 - painter.px(KEY_ROOM) + painter.px(4), (y0 + y1 - side) // 2))


def _line_sample(painter: _Painter, seat: int) -> Image.Image:
    """A short piece of a seat's line with its marker, as the legend shows it."""
    s = SUPERSAMPLE
    w, h = painter.px(58), painter.px(30)
    big = Image.new("RGB", (w * s, h * s), palette.BACKGROUND)
    draw = ImageDraw.Draw(big)
    draw.rounded_rectangle(
        (0, 0, w * s - 1, h * s - 1), radius=painter.px(6) * s, fill=CHART_BACKGROUND
    )
    line_w = painter.px(4.5) * s
    casing = line_w + 2 * painter.px(1.5) * s
    color = line_color(painter.picture.players, seat)
    points = [(line_w, h * s / 2), (w * s - line_w, h * s / 2)]
    pattern = [d * line_w * 0.6 for d in DASHES[seat]]
    for piece in _dashed(points, pattern):
        draw.line(piece, fill=palette.INK, width=casing)
        _caps(draw, piece, casing, palette.INK)
    for piece in _dashed(points, pattern):
        draw.line(piece, fill=color, width=line_w)
        _caps(draw, piece, line_w, color)
    radius = painter.px(7.5) * s
    _marker(draw, (w * s / 2, h * s / 2), radius, seat_mark(painter.picture.players, seat), color)
    return big.resize((w, h), Image.Resampling.LANCZOS)


def _paint_legend(image: Image.Image, painter: _Painter) -> None:
    """Each seat's swatches and line sample, before its name."""
    picture = painter.picture
    side = painter.px(28)
    for drawn in painter.texts:
        if drawn.role != "legend" or drawn.seat is None:
            continue
        seat = drawn.seat
        x0, y0, _, y1 = drawn.box
        mid = (y0 + y1) // 2
        colors = seat_colors(picture.players, seat)
        sample_x = x0 - painter.px(64)
        x = sample_x - _swatches_width(painter, len(colors))
        for color in colors:
            style = rug_style(color)
            piece = (
                crossed_swatch(side, style) if picture.out[seat] else rug_piece(side, style, (1, 1))
            )
            image.paste(piece, (x, mid - piece.height // 2), piece)
            x += side + painter.px(4)
        sample = _line_sample(painter, seat)
        image.paste(sample, (sample_x, mid - sample.height // 2))


def _paint_accuracy(image: Image.Image, painter: _Painter) -> None:
    """Each seat's swatch before its name in the accuracy rows."""
    side = painter.px(24)
    for drawn in painter.texts:
        if drawn.role != "accuracy_name" or drawn.seat is None:
            continue
        style = rug_style(seat_colors(painter.picture.players, drawn.seat)[0])
        piece = rug_piece(side, style, (1, 1))
        mid = (drawn.box[1] + drawn.box[3]) // 2
        image.paste(piece, (painter.margin, mid - piece.height // 2), piece)


def _paint_luck(image: Image.Image, painter: _Painter, bars: list[Bar]) -> None:
    """Each seat's luck as a bar from the middle line (right: lucky, left: unlucky), with its
    swatch before its name."""
    picture, px = painter.picture, painter.px
    draw = ImageDraw.Draw(image)
    side = px(24)
    for bar in bars:
        style = rug_style(seat_colors(picture.players, bar.seat)[0])
        piece = rug_piece(side, style, (1, 1))
        image.paste(piece, (painter.margin, bar.mid - piece.height // 2), piece)
        box = (bar.x0, bar.mid - bar.half, bar.x1, bar.mid + bar.half)
        draw.rectangle(box, fill=style.fill, outline=palette.TEXT_DIM, width=max(1, px(2)))
    middle = bars[0].x0 if picture.luck[bars[0].seat] >= 0 else bars[0].x1
    top, bottom = bars[0].mid - px(19), bars[-1].mid + px(19)
    draw.line([(middle, top), (middle, bottom)], fill=palette.TEXT_DIM, width=max(1, px(2)))
