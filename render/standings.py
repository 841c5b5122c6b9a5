"""The picture of a tournament's standings: a table of ranks, names, points, tie-breaks and games
left, in the colours of the board's panel.

It is drawn for a phone first: 720 pixels wide with large type, so that shown at 390 pixels (a
phone's width) no text is under 12 pixels high (SMALLEST at full width). The number columns
are as wide as their widest text, column name or number, so that a language's longer column
names are drawn whole; the player column takes the rest, and a name that does not fit ends in
an ellipsis; a note (a player who withdrew) goes on a second line of the row, from the name on,
at the smallest size. Nothing
is told by colour alone: ranks are numbers, the leaders carry a star as well as a lighter row,
and every text stands on its background with a contrast ratio of at least 4.5 (WCAG AA), for
every common colour-vision deficiency too (tests/render/test_standings.py checks both).

The caller gives every word and every number as text (`StandingsTable`): render knows nothing
of points or tie-breaks, only how to lay a table out. Names go through render.names for the
face they are drawn in (the bold one for a leader), so a character that face lacks is dropped
and a long name ends in an ellipsis.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

from PIL import Image, ImageDraw

from render import palette
from render.names import display_name, fit_name
from render.palette import RGB
from render.text import draw_text, width

WIDTH = 720
PHONE_WIDTH = 390
SMALLEST_ON_A_PHONE = 12
SMALLEST = math.ceil(SMALLEST_ON_A_PHONE * WIDTH / PHONE_WIDTH)
"""The smallest size any text is drawn at: 12 px once the picture is shown 390 px wide."""
PAD = 18
TITLE_HEIGHT = 104
HEADER_HEIGHT = 46
ROW_HEIGHT = 58
FOOT = 14
TITLE_SIZE = 34
SUBTITLE_SIZE = 26
HEADER_SIZE = 24
CELL_SIZE = 30
"""Ranks and names."""
NUMBER_SIZE = 26
"""Points, tie-breaks and games left: a little smaller than names, so that four-digit scores
and long column names leave the names room."""
NOTED_NAME_SIZE = 26
"""A rank and name with a note under them: a little smaller, so that both lines fit the row."""
NOTED_LINE_Y = 19
NOTE_Y = 43
"""The middles of a noted row's two lines (rank, name and numbers; the note), from its top."""
RANK_WIDTH = 52
NAME_GAP = 8
"""Between the rank and the name."""
COLUMN_GAP = 18
"""Before each number column: its widest text (column name or cell) plus this is its width."""
LEAST_NAME_WIDTH = 150
"""The player column keeps at least this; number columns wider than what is left share it
(and their texts shrink, down to SMALLEST)."""

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
    players ranked first (drawn with a star and a lighter row); a `note` is drawn on a second
    line, under the name and the numbers."""

    rank: str
    name: str
    cells: tuple[str, ...]
    leader: bool = False
    note: str = ""
    """Said on a second line, smaller and dimmer (a player who withdrew: after which round)."""


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


def _columns(table: StandingsTable) -> list[tuple[int, int]]:
    """(left, right) of each column: rank, name, then the number columns, each as wide as its
    widest text at full size (so that every language's column names fit without shrinking),
    the player column taking the rest."""
    natural = []
    for index, header in enumerate(table.headers[2:]):
        cells = [row.cells[index] for row in table.rows if index < len(row.cells)]
        widest = max(
            [
                width(display_name(header, ""), HEADER_SIZE),
                *(width(display_name(cell, ""), NUMBER_SIZE, bold=index == 0) for cell in cells),
            ]
        )
        natural.append(math.ceil(widest) + COLUMN_GAP)
    room = WIDTH - 2 * PAD - RANK_WIDTH - NAME_GAP - LEAST_NAME_WIDTH
    if sum(natural) > room:  # numbers too wide for the player column's least: shared out
        natural = [width_ * room // sum(natural) for width_ in natural]
    right = WIDTH - PAD
    numbers: list[tuple[int, int]] = []
    for column_width in reversed(natural):
        numbers.insert(0, (right - column_width + COLUMN_GAP, right))
        right -= column_width
    rank = (PAD, PAD + RANK_WIDTH)
    name = (rank[1] + NAME_GAP, right)
    return [rank, name, *numbers]


def _fitted(text: str, size: int, room: int, *, bold: bool = False) -> tuple[str, int]:
    """`text` at the largest size from `size` down to SMALLEST that fits `room` pixels, else
    at SMALLEST and shortened with an ellipsis."""
    return fit_name(text, size, room, bold=bold, least=SMALLEST / size)


def standings_image(table: StandingsTable) -> Image.Image:
    """The picture as a Pillow image (RGB)."""
    width, height = standings_size(len(table.rows))
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width, TITLE_HEIGHT - 8), fill=TITLE_BAND)
    title, size = fit_name(
        display_name(table.title, "", bold=True), TITLE_SIZE, width - 2 * PAD, bold=True
    )
    draw_text(image, (PAD, 30), title, size=size, fill=TEXT, bold=True, anchor="lm")
    subtitle, size = _fitted(display_name(table.subtitle, ""), SUBTITLE_SIZE, width - 2 * PAD)
    draw_text(image, (PAD, 72), subtitle, size=size, fill=TEXT, anchor="lm")
    columns = _columns(table)
    header_y = TITLE_HEIGHT + HEADER_HEIGHT // 2
    for index, (label, (left, right)) in enumerate(zip(table.headers, columns, strict=False)):
        text, size = _fitted(display_name(label, ""), HEADER_SIZE, right - left)
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
    """One row: its rank, name and numbers on one line, in the row's middle; a row with a note
    has them on its upper line, and the note under them, from the name's left to the picture's
    right edge (the player column alone is too narrow for it beside long numbers)."""
    fill: RGB = LEADER if row.leader else ROW_ALT if alternate else ROW
    draw.rectangle((PAD // 2, top + 2, WIDTH - PAD // 2, top + ROW_HEIGHT - 2), fill=fill)
    line = top + (NOTED_LINE_Y if row.note else ROW_HEIGHT // 2)
    name_size = NOTED_NAME_SIZE if row.note else CELL_SIZE
    rank_left, rank_right = columns[0]
    rank, size = _fitted(display_name(row.rank, ""), name_size, rank_right - rank_left, bold=True)
    draw_text(image, (rank_right, line), rank, size=size, fill=TEXT, bold=True, anchor="rm")
    left, right = columns[1]
    shown = display_name(row.name, "?", bold=row.leader)  # a leader's name is drawn in bold
    if row.leader:
        shown = f"{STAR} {shown}"
    if row.note:  # a smaller name shrinks no further than the smallest size
        name, size = _fitted(shown, name_size, right - left, bold=row.leader)
    else:
        name, size = fit_name(shown, name_size, right - left, bold=row.leader)
    draw_text(image, (left, line), name, size=size, fill=TEXT, bold=row.leader, anchor="lm")
    if row.note:
        note, size = _fitted(display_name(row.note, ""), SMALLEST, WIDTH - PAD - left)
        draw_text(image, (left, top + NOTE_Y), note, size=size, fill=TEXT_DIM, anchor="lm")
    for index, (cell, (cell_left, cell_right)) in enumerate(
        zip(row.cells, columns[2:], strict=False)
    ):
        bold = index == 0
        text, size = _fitted(display_name(cell, ""), NUMBER_SIZE, cell_right - cell_left, bold=bold)
        colour = TEXT if index == 0 else TEXT_DIM if index == len(row.cells) - 1 else TEXT
        draw_text(image, (cell_right, line), text, size=size, fill=colour, bold=bold, anchor="rm")


def render_standings(table: StandingsTable) -> bytes:
    """The PNG of the standings."""
    buffer = io.BytesIO()
    standings_image(table).save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()
