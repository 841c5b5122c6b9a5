"""The picture of a tournament's standings: a table of ranks, names, points, tie-breaks and games
left, in the colours of the board's panel.

It is drawn for a phone first: 720 pixels wide with large type, so that shown at 390 pixels (a
phone's width) its smallest text is still about 12 pixels high. Nothing is told by colour
alone: ranks are numbers, the leaders carry a star as well as a lighter row, and every text
stands on its background with a contrast ratio of at least 4.5 (WCAG AA), for every common
colour-vision deficiency too (tests/render/test_standings.py checks both).

The caller gives every word and every number as text (`StandingsTable`): render knows nothing
of points or tie-breaks, only how to lay a table out. Names go through render.names, so a
character the bundled font lacks is dropped and a long name ends in an ellipsis.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageDraw

from render import palette
from render.names import display_name, fit_name, shorten
from render.palette import RGB
from render.text import draw_text, fit

WIDTH = 720
PAD = 18
TITLE_HEIGHT = 104
HEADER_HEIGHT = 46
ROW_HEIGHT = 58
FOOT = 14
TITLE_SIZE = 34
SUBTITLE_SIZE = 26
HEADER_SIZE = 24
CELL_SIZE = 30
RANK_WIDTH = 64
NUMBER_WIDTHS = (84, 96, 86, 72, 62)
"""The widths of the number columns, in the order `StandingsTable.headers` names them after
the player column: points, Buchholz, score, dirhams, games left."""

BACKGROUND = palette.BACKGROUND
TITLE_BAND = palette.FRAME_EDGE
ROW = palette.PANEL
ROW_ALT = (58, 38, 27)
LEADER = palette.PANEL_ACTIVE
TEXT = palette.TEXT
TEXT_DIM = (212, 198, 182)
"""Column names and games left: lighter than the board panel's dim text, so that it keeps a
contrast of 4.5 on the leaders' lighter row too."""
RULE = (120, 88, 62)
STAR = "★"


@dataclass(frozen=True, slots=True)
class StandingsRow:
    """One player's line: rank, name, then one text per number column; `leader` marks the
    players ranked first (drawn with a star and a lighter row)."""

    rank: str
    name: str
    cells: tuple[str, ...]
    leader: bool = False


@dataclass(frozen=True, slots=True)
class StandingsTable:
    """What the picture shows: a title and a line under it, the column names (rank, player,
    then the number columns) and the rows, best first."""

    title: str
    subtitle: str
    headers: tuple[str, ...]
    rows: tuple[StandingsRow, ...]


def standings_size(rows: int) -> tuple[int, int]:
    """The (width, height) of a standings picture with `rows` rows."""
    return WIDTH, TITLE_HEIGHT + HEADER_HEIGHT + ROW_HEIGHT * max(rows, 1) + FOOT


def _columns() -> list[tuple[int, int]]:
    """(left, right) of each column: rank, name, then the number columns."""
    right = WIDTH - PAD
    numbers: list[tuple[int, int]] = []
    for width in reversed(NUMBER_WIDTHS):
        numbers.insert(0, (right - width, right))
        right -= width
    rank = (PAD, PAD + RANK_WIDTH)
    name = (rank[1] + 8, numbers[0][0] - 10)
    return [rank, name, *numbers]


def standings_image(table: StandingsTable) -> Image.Image:
    """The picture as a Pillow image (RGB)."""
    width, height = standings_size(len(table.rows))
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width, TITLE_HEIGHT - 8), fill=TITLE_BAND)
    title, size = fit_name(display_name(table.title, "", bold=True), TITLE_SIZE, width - 2 * PAD)
    draw_text(image, (PAD, 30), title, size=size, fill=TEXT, bold=True, anchor="lm")
    subtitle = shorten(display_name(table.subtitle, ""), SUBTITLE_SIZE, width - 2 * PAD)
    draw_text(image, (PAD, 72), subtitle, size=SUBTITLE_SIZE, fill=TEXT, anchor="lm")
    columns = _columns()
    header_y = TITLE_HEIGHT + HEADER_HEIGHT // 2
    for index, (label, (left, right)) in enumerate(zip(table.headers, columns, strict=False)):
        text = display_name(label, "")
        size = fit(text, HEADER_SIZE, right - left)
        if index == 1:
            draw_text(image, (left, header_y), text, size=size, fill=TEXT_DIM, anchor="lm")
        else:
            draw_text(image, (right, header_y), text, size=size, fill=TEXT_DIM, anchor="rm")
    rule_y = TITLE_HEIGHT + HEADER_HEIGHT - 2
    draw.line((PAD, rule_y, width - PAD, rule_y), fill=RULE, width=2)
    top = TITLE_HEIGHT + HEADER_HEIGHT
    for number, row in enumerate(table.rows):
        _draw_row(image, draw, row, top + number * ROW_HEIGHT, number % 2 == 1, columns)
    return image


def _draw_row(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    row: StandingsRow,
    top: int,
    alternate: bool,
    columns: list[tuple[int, int]],
) -> None:
    fill: RGB = LEADER if row.leader else ROW_ALT if alternate else ROW
    draw.rectangle((PAD // 2, top + 2, WIDTH - PAD // 2, top + ROW_HEIGHT - 2), fill=fill)
    middle = top + ROW_HEIGHT // 2
    rank_right = columns[0][1]
    rank = display_name(row.rank, "")
    draw_text(image, (rank_right, middle), rank, size=CELL_SIZE, fill=TEXT, bold=True, anchor="rm")
    left, right = columns[1]
    shown = display_name(row.name, "?")
    if row.leader:
        shown = f"{STAR} {shown}"
    name, size = fit_name(shown, CELL_SIZE, right - left)
    draw_text(image, (left, middle), name, size=size, fill=TEXT, bold=row.leader, anchor="lm")
    for index, (cell, (cell_left, cell_right)) in enumerate(
        zip(row.cells, columns[2:], strict=False)
    ):
        text = display_name(cell, "")
        bold = index == 0
        size = fit(text, CELL_SIZE, cell_right - cell_left, bold=bold)
        colour = TEXT if index == 0 else TEXT_DIM if index == len(row.cells) - 1 else TEXT
        draw_text(image, (cell_right, middle), text, size=size, fill=colour, bold=bold, anchor="rm")


def render_standings(table: StandingsTable) -> bytes:
    """The PNG of the standings."""
    buffer = io.BytesIO()
    standings_image(table).save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()
