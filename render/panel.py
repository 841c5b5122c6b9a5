"""The panel beside (or below) the board: the turn and the die just rolled, then an entry per
seat with its colour swatches (colour and mark), its name, dirhams, rugs left, visible squares
and score; whose turn it is and who is out; or, once the game is over, the final ranking and
why the game ended (and how first place was settled), whole and still readable on a phone
(READABLE_ON_A_PHONE): on as many lines as it needs beside the board, on the line kept for it
below. A seat that is out keeps its dirhams; the word for "out" stands, whole, across its
other three columns, which mean nothing for it (its rugs are neutral).

The column names stand right-aligned over their numbers and apart (by a letter's height
wherever the width allows), so that two of them never read as one ("tapis visibles"): beside
the board the columns are as wide as their names need, the rest of the width shared evenly.

The panel is laid out first as a `PanelModel` (every text with its box, size and colour, every
seat entry with its swatches and marks) and then painted from it, so what the picture says can
be read back without looking at pixels (`panel_model(state, ...).lines()`).

Words come from `Labels` so the bot can pass its own language. Seat names are the caller's
display strings (`names`), made drawable by render.names; without them, or where nothing of
a name can be drawn, a seat is shown by its label ("Seat 3"). Every text goes through the same
check, so the panel never shows a character the bundled font lacks.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine import (
    REASON_LAST_PLAYER,
    REASON_RUGS_EXHAUSTED,
    Color,
    GameState,
    Phase,
    scores,
    seat_colors,
)
from render import palette
from render.layout import (
    COLUMNS_CELLS,
    COLUMNS_MIN,
    DEFAULT_SIZE,
    PAD_CELLS,
    ROW_CELLS,
    ROW_MIN,
    TITLE_CELLS,
    TITLE_MIN,
    Box,
    Layout,
    layout,
)
from render.names import display_name, drawable, fit_name, shorten
from render.palette import RGB, rug_style
from render.sprites import crossed_swatch, die, rug_inset, rug_piece
from render.text import draw_text, fit, width


@dataclass(frozen=True)
class Labels:
    """The words drawn in the image. `{n}` is replaced by a number."""

    seat: str = "Seat {n}"
    turn: str = "Turn {n}"
    dirhams: str = "dirhams"
    rugs: str = "rugs"
    visible: str = "visible"
    score: str = "score"
    out: str = "out"
    rank: str = "#{n}"
    game_over: str = "Game over"
    rugs_exhausted: str = "all rugs laid"
    last_player_standing: str = "last one standing"
    shared: str = "shared win"
    dirhams_tie_break: str = "tie broken by dirhams"


ENGLISH = Labels()

PHONE_WIDTH = 390
READABLE_ON_A_PHONE = 12
"""The size, in pixels once the picture is shown 390 px wide on a phone, of the words saying
why the game ended: what the analysis and the standings keep for every text."""
SEPARATOR = " · "
"""Between why the game ended and how first place was settled."""
NO_BREAK = "\u00a0"
MOST_WORDS = 12
"""Words wrapped past this many are broken as late as each line allows, not evened out."""


def _reason_size(geometry: Layout) -> int:
    """The size of the words saying why the game ended: READABLE_ON_A_PHONE on a phone."""
    return math.ceil(READABLE_ON_A_PHONE * geometry.width / PHONE_WIDTH)


def _wrap(words: str, size: int, room: int) -> list[str]:
    """`words` in as few lines at most `room` pixels wide at `size` as breaking between words
    allows, the lines as even as they can be (a word too wide alone is left to be cut)."""
    split = words.split(" ")
    fewest: list[str] = []  # each line as long as it can be: the fewest lines
    for word in split:
        if fewest and width(f"{fewest[-1]} {word}", size) <= room:
            fewest[-1] = f"{fewest[-1]} {word}"
        else:
            fewest.append(word)
    if len(split) > MOST_WORDS:
        return fewest
    best, widest = fewest, max(width(line, size) for line in fewest)
    for breaks in itertools.combinations(range(1, len(split)), len(fewest) - 1):
        ends = [0, *breaks, len(split)]
        lines = [" ".join(split[a:b]) for a, b in itertools.pairwise(ends)]
        longest = max(width(line, size) for line in lines)
        if longest < widest:
            best, widest = lines, longest
    return best


def _reason_lines(reason: str, size: int, room: int) -> list[str]:
    """The lines of `reason` at `size` in `room` pixels: one line if it fits, else why the game
    ended, then how first place was settled on a line of its own (the separator ending the
    line before, with the word before it), each broken between words where it is still too
    wide."""
    if width(reason, size) <= room:
        return [reason]
    parts = reason.split(SEPARATOR)
    lines: list[str] = []
    for part in parts[:-1]:
        lines += _wrap(part + NO_BREAK + SEPARATOR.strip(), size, room)
    lines += _wrap(parts[-1], size, room)
    return [line.replace(NO_BREAK, " ") for line in lines]


@dataclass(frozen=True)
class PanelText:
    """One text of the panel. `role` says what it is: "title" (the turn, or "Game over"),
    "reason" (a line of why the game ended and how first place was settled), "column" (a
    column name), "rank", "name", "number" or "out" (the word saying a seat is out, in place
    of its rugs left, visible squares and score); `seat` is the seat it belongs to (None for
    the title, the reason and column names). It is drawn at
    `size` pixels, vertically centred in `box`, from its left edge, (`right`) up to its right
    edge or (`centred`) centred in it, and always fits the box's width."""

    role: str
    seat: int | None
    text: str
    box: Box
    size: int
    bold: bool
    fill: RGB
    right: bool = False
    centred: bool = False


@dataclass(frozen=True)
class SeatEntry:
    """One seat's entry: its row (portrait) or card (landscape) `box`, its place in the final
    ranking (None in a live game), where its swatches start (x, middle y) and their side, and
    whether it is the seat to move (marked by a triangle at `marker`) or out. `strike` is the
    line (x0, x1, y) through the swatches and name of a seat that is out."""

    seat: int
    place: int | None
    box: Box
    swatches: tuple[int, float]
    swatch_side: int
    active: bool
    out: bool
    strike: tuple[int, int, int] | None
    marker: tuple[float, float, float]  # the turn marker's x, middle y and half height


@dataclass(frozen=True)
class PanelModel:
    """Everything the panel draws: its texts in drawing order, its seat entries in the order
    shown, and the die just rolled (x, y, side, face) if one shows."""

    texts: tuple[PanelText, ...]
    seats: tuple[SeatEntry, ...]
    die: tuple[int, int, int, int] | None = None

    def lines(self) -> list[str]:
        """The panel's words and numbers, in drawing order."""
        return [text.text for text in self.texts]

    def names(self) -> list[str]:
        """The seat names as drawn, in the order the seats are shown."""
        return [text.text for text in self.texts if text.role == "name"]


def check_names(names: Sequence[str] | None, players: int) -> tuple[str, ...] | None:
    """`names` as a tuple, after checking that there is one string per seat."""
    if names is None:
        return None
    if isinstance(names, str) or len(names) != players:
        raise ValueError(f"names must give one string per seat ({players})")
    if not all(isinstance(name, str) for name in names):
        raise ValueError("every name must be a string")
    return tuple(names)


def _title_text(state: GameState, labels: Labels, final: bool) -> tuple[str, str]:
    """The title and, once the game is over, why it ended (with how a tie was settled)."""
    if not final:
        return labels.turn.format(n=state.turn), ""
    outcome = state.outcome
    if outcome is None:
        raise ValueError("the game is not over")
    reason = {
        REASON_RUGS_EXHAUSTED: labels.rugs_exhausted,
        REASON_LAST_PLAYER: labels.last_player_standing,
    }.get(outcome.reason, outcome.reason)
    if outcome.tie_break == "shared":
        reason += SEPARATOR + labels.shared
    elif outcome.tie_break == "dirhams":
        reason += SEPARATOR + labels.dirhams_tie_break
    return labels.game_over, drawable(reason)


def _rows(state: GameState, final: bool) -> list[tuple[int, int | None]]:
    """(seat, place) in the order shown: seat order live, ranking order (ties sharing a place)
    once the game is over."""
    if not final:
        return [(seat, None) for seat in range(state.players)]
    outcome = state.outcome
    assert outcome is not None  # checked by _title_text
    rows: list[tuple[int, int | None]] = []
    for group in outcome.ranking:
        place = len(rows) + 1
        rows.extend((seat, place) for seat in group)
    return rows


def _values(state: GameState, seat: int) -> tuple[str, ...]:
    """The numbers of a seat's columns: dirhams, rugs left, visible squares and score; only its
    dirhams for a seat that is out (the word for "out" stands in place of the others)."""
    score = scores(state)[seat]
    if state.is_eliminated(seat):
        return (str(score.dirhams),)
    return (str(score.dirhams), str(state.rugs_in_hand(seat)), str(score.visible), str(score.total))


def _swatch_span(state: GameState, seat: int, side: int) -> int:
    """How far a seat's swatches (one per colour it owns, as `_swatches` pastes them) reach,
    with the gap after the last one."""
    count = len(seat_colors(state.players, seat))
    return count * (side - 2 * rug_inset(side) + round(side * 0.35))


class _Builder:
    """Collects a panel's texts and seat entries."""

    def __init__(self, geometry: Layout, state: GameState, labels: Labels) -> None:
        self.geometry = geometry
        self.state = state
        self.labels = labels
        self.texts: list[PanelText] = []
        self.seats: list[SeatEntry] = []

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
        centred: bool = False,
        shrink: bool = False,
    ) -> PanelText:
        """Add `words` (made drawable) in `box`, fitted to the box's width: shrunk as far as
        8 px if `shrink`, else at most a fifth, then cut with an ellipsis if still too wide."""
        shown = drawable(words, bold=bold)
        room = max(1, box[2] - box[0])
        if shrink:
            size = fit(shown, size, room, bold=bold)
            shown = shorten(shown, size, room, bold=bold)
        else:
            shown, size = fit_name(shown, size, room, bold=bold)
        item = PanelText(role, seat, shown, box, size, bold, fill, right, centred)
        self.texts.append(item)
        return item


def _column_words(labels: Labels) -> list[str]:
    return [drawable(w) for w in (labels.dirhams, labels.rugs, labels.visible, labels.score)]


def _column_names(builder: _Builder, boxes: Sequence[Box], size: int) -> None:
    """The names of the four number columns, right-aligned in their boxes, all at the largest
    size up to `size` at which each fits its box."""
    words = _column_words(builder.labels)
    size = min(fit(word, size, box[2] - box[0]) for word, box in zip(words, boxes, strict=True))
    for word, box in zip(words, boxes, strict=True):
        builder.text(
            "column", None, word, box, size, fill=palette.TEXT_DIM, right=True, shrink=True
        )


def _share(least: Sequence[int], room: float) -> list[float]:
    """Widths for columns needing at least `least` pixels each (together no more than `room`)
    that fill `room`: as even as their needs allow, the columns that need less sharing evenly
    what the others leave."""
    kept: set[int] = set()  # the columns wider than the even share: as wide as they need
    while True:
        free = [k for k in range(len(least)) if k not in kept]
        even = (room - sum(least[k] for k in kept)) / len(free)
        wider = {k for k in free if least[k] > even}
        if not wider:
            return [float(least[k]) if k in kept else even for k in range(len(least))]
        kept |= wider


def _landscape_columns(
    labels: Labels,
    reach: int,
    start: int,
    end: int,
    sizes: tuple[int, int],
    spacing: tuple[float, int],
) -> tuple[list[int], list[int], int]:
    """Beside the board: the right edges of the four number columns, which share the width
    from `start` to `end`, the left edges of their names' boxes (the first may reach back to
    `reach`) and the size of the names. `sizes` are the largest size of the names and the
    size of the numbers; `spacing` the least room left of a name (past the column before it)
    and left of a number (in its own column).

    Four even columns fit the names at some size (cutting them with an ellipsis if even the
    smallest size is too wide): the names are never smaller than that. They are at the
    largest size up to the largest of `sizes` at which each stands its own size (a letter's
    height) away from the name before; else at that least size as far apart as the width
    allows; else (a very small picture) in the even columns. Columns are as wide as their
    names need (and at least three digits of the numbers), the rest of the width shared out
    evenly."""
    heading, number = sizes
    tight, inset = spacing
    words = _column_words(labels)
    column_w = (end - start) / 4
    even = [round(start + column_w * (k + 1)) for k in range(4)]
    even_lefts = [reach, *(round(edge + tight) for edge in even[:-1])]
    least_size = min(
        fit(word, heading, edge - x) for word, x, edge in zip(words, even_lefts, even, strict=True)
    )
    digits = math.ceil(width("000", number, bold=True)) + inset

    def needs(size: int, gap: int) -> list[int]:
        named = [math.ceil(width(word, size)) for word in words]
        return [max(digits, named[0] - (start - reach))] + [
            max(digits, name + gap) for name in named[1:]
        ]

    tries = [(size, size) for size in range(heading, least_size - 1, -1)]
    tries += [(least_size, gap) for gap in range(least_size - 1, math.ceil(tight), -1)]
    for size, gap in tries:
        least = needs(size, gap)
        if sum(least) <= end - start:
            edges, reached = [], 0.0
            for column in _share(least, end - start):
                reached += column
                edges.append(start + math.floor(reached))
            edges[-1] = end
            return edges, [reach, *(edge + gap for edge in edges[:-1])], size
    return even, even_lefts, least_size


def _name(names: tuple[str, ...] | None, seat: int, labels: Labels) -> str:
    return display_name(None if names is None else names[seat], labels.seat.format(n=seat + 1))


def _portrait(
    builder: _Builder, names: tuple[str, ...] | None, final: bool
) -> tuple[int, int, int, int] | None:
    """The panel below the board: a title line, a line of column names, one row per seat."""
    geometry, state, labels = builder.geometry, builder.state, builder.labels
    cell, w = geometry.cell, geometry.width
    x0, y0, x1, _ = geometry.panel_box
    columns = [round(w * f) for f in (0.55, 0.68, 0.82, 0.96)]  # right edges
    title_h = max(TITLE_MIN, round(cell * TITLE_CELLS))
    reason_h = geometry.reason_height
    columns_h = max(COLUMNS_MIN, round(cell * COLUMNS_CELLS))
    row_h = max(ROW_MIN, round(cell * ROW_CELLS))
    top = y0 + round(cell * PAD_CELLS)
    title, reason = _title_text(state, labels, final)
    left = round(cell * 0.2)
    if not final:  # the turn stands in the middle of the title's and the reason's lines
        title_h += reason_h
    shown = builder.text(
        "title",
        None,
        title,
        (left, top, w - round(cell * 1.2), top + title_h),
        round(cell * 0.27),
        bold=True,
        shrink=True,
    )
    die_at = None
    if not final and state.last_roll is not None and state.phase in (Phase.PLACE, Phase.ROTATE):
        side = round((title_h - reason_h) * 0.8)
        end = left + round(width(shown.text, shown.size, bold=True))
        die_at = (end + round(cell * 0.2), round(top + (title_h - side) / 2), side, state.last_roll)
    line = top + title_h
    if final:  # on the width of the picture (shrunk only if words wider than it ever came)
        box = (left, line, w - left, line + reason_h)
        size = _reason_size(geometry)
        builder.text("reason", None, reason, box, size, fill=palette.TEXT_DIM, shrink=True)
        line += reason_h
    room = round(w * 0.135)
    boxes = [(right - room, line, right, line + columns_h) for right in columns]
    _column_names(builder, boxes, max(9, round(cell * 0.2)))
    row_top = line + columns_h
    rank_left, rank_size, rank_gap = round(cell * 0.2), max(10, round(cell * 0.24)), cell * 0.12
    # the swatches start after the widest place's words, a gap apart ("n° 4", "№4")
    widest = max(
        width(drawable(labels.rank.format(n=n), bold=True), rank_size, bold=True)
        for n in range(1, state.players + 1)
    )
    ranked_x = max(round(cell * 0.75), round(rank_left + widest + rank_gap))
    for index, (seat, place) in enumerate(_rows(state, final)):
        top = row_top + index * row_h
        mid = top + row_h / 2
        out = state.is_eliminated(seat)
        ink = palette.TEXT_DIM if out else palette.TEXT
        x = round(cell * 0.55)
        if place is not None:
            rank_color = palette.ASSAM_RING if place == 1 else palette.TEXT
            box = (rank_left, top, round(ranked_x - rank_gap), top + row_h)
            rank = labels.rank.format(n=place)
            builder.text(
                "rank", seat, rank, box, rank_size, bold=True, fill=rank_color, shrink=True
            )
            x = ranked_x
        side = round(row_h * 0.78)
        name_x = x + _swatch_span(state, seat, side) + round(cell * 0.05)
        name_box = (name_x, top, columns[0] - round(w * 0.1), top + row_h)
        name = builder.text("name", seat, _name(names, seat, labels), name_box, round(cell * 0.25))
        size = max(10, round(cell * 0.27))
        for right, value in zip(columns, _values(state, seat), strict=False):
            box = (right - round(w * 0.12), top, right, top + row_h)
            builder.text("number", seat, value, box, size, bold=True, fill=ink, right=True)
        strike = None
        if out:  # the word for "out" across the columns after dirhams; the name struck through
            box = (columns[0] + round(w * 0.03), top, columns[-1], top + row_h)
            builder.text("out", seat, labels.out, box, size, bold=True, fill=ink, centred=True)
            strike = (x, name_x + round(width(name.text, name.size)), round(mid))
        active = state.to_move == seat and not state.is_over
        entry_box = (x0 + round(cell * 0.1), top + 1, x1 - round(cell * 0.1), top + row_h - 2)
        marker = (round(cell * 0.2), mid, row_h * 0.22)
        builder.seats.append(
            SeatEntry(seat, place, entry_box, (x, mid), side, active, out, strike, marker)
        )
    return die_at


def _landscape(
    builder: _Builder, names: tuple[str, ...] | None, final: bool
) -> tuple[int, int, int, int] | None:
    """The panel beside the board: the title (and why the game ended), the column names, then
    a card per seat: swatches and name on one line, the numbers below them."""
    geometry, state, labels = builder.geometry, builder.state, builder.labels
    cell = geometry.cell
    x0, y0, x1, y1 = geometry.panel_box
    left, right = x0 + round(cell * 0.25), x1 - round(cell * 0.3)
    top = y0 + round(cell * 0.3)
    title, reason = _title_text(state, labels, final)
    title_h = round(cell * 0.8)
    shown = builder.text(
        "title", None, title, (left, top, right, top + title_h), round(cell * 0.42), bold=True
    )
    die_at = None
    if not final and state.last_roll is not None and state.phase in (Phase.PLACE, Phase.ROTATE):
        side = round(cell * 0.58)
        end = left + round(width(shown.text, shown.size, bold=True))
        die_at = (
            end + round(cell * 0.25),
            round(top + (title_h - side) / 2),
            side,
            state.last_roll,
        )
    line = top + title_h
    if reason:  # on as many lines as it needs, never shrunk below a phone's readable size
        size = _reason_size(geometry)
        line_h = round(size * 1.2)
        for words in _reason_lines(reason, size, right - left):
            box = (left, line, right, line + line_h)
            builder.text("reason", None, words, box, size, fill=palette.TEXT_DIM)
            line += line_h
        line += round(cell * 0.1)
    indent = left + round(cell * 0.4)  # where swatches and numbers start, past the turn marker
    number_size = round(cell * 0.42)
    inset = round(cell * 0.08)  # the least room left of a number in its column
    sizes = (round(cell * 0.3), number_size)
    spacing = (cell * 0.06, inset)
    columns, lefts, heading = _landscape_columns(labels, left, indent, right, sizes, spacing)
    starts = [indent, *columns[:-1]]  # left edges of the columns
    columns_h = round(cell * 0.5)
    # Column names stand right-aligned over their numbers; the first may reach the margin.
    boxes = [(x, line, edge, line + columns_h) for x, edge in zip(lefts, columns, strict=True)]
    _column_names(builder, boxes, heading)
    cards_top = line + columns_h
    card_h = min(round(cell * 1.7), (y1 - round(cell * 0.15) - cards_top) // state.players)
    gap = round(card_h * 0.06)
    name_h = round((card_h - gap) * 0.52)
    for index, (seat, place) in enumerate(_rows(state, final)):
        top = cards_top + index * card_h
        mid = top + name_h / 2 + gap
        out = state.is_eliminated(seat)
        ink = palette.TEXT_DIM if out else palette.TEXT
        x = indent
        if place is not None:
            rank_color = palette.ASSAM_RING if place == 1 else palette.TEXT
            box = (left, top + gap, indent + round(cell * 0.45), top + gap + name_h)
            rank = labels.rank.format(n=place)
            size = round(cell * 0.38)
            shown = builder.text("rank", seat, rank, box, size, bold=True, fill=rank_color)
            x = left + round(width(shown.text, shown.size, bold=True) + cell * 0.15)
            x = max(x, indent)
        side = round(cell * 0.52)
        name_x = x + _swatch_span(state, seat, side) + round(cell * 0.18)
        name_box = (name_x, top + gap, x1 - round(cell * 0.15), top + gap + name_h)
        name = builder.text("name", seat, _name(names, seat, labels), name_box, round(cell * 0.4))
        numbers_top = top + gap + name_h
        numbers_bottom = top + card_h
        for x_start, edge, value in zip(starts, columns, _values(state, seat), strict=False):
            box = (x_start + inset, numbers_top, edge, numbers_bottom)
            builder.text("number", seat, value, box, number_size, bold=True, fill=ink, right=True)
        strike = None
        if out:  # the word for "out" across the columns after dirhams; the name struck through
            box = (columns[0] + inset, numbers_top, right, numbers_bottom)
            builder.text(
                "out", seat, labels.out, box, number_size, bold=True, fill=ink, centred=True
            )
            end = name_x + round(width(name.text, name.size))
            strike = (x, end, round(mid))
        active = state.to_move == seat and not state.is_over
        entry_box = (x0 + round(cell * 0.1), top + gap, x1 - round(cell * 0.1), top + card_h)
        marker = (x0 + round(cell * 0.22), mid, cell * 0.16)
        builder.seats.append(
            SeatEntry(seat, place, entry_box, (x, mid), side, active, out, strike, marker)
        )
    return die_at


def layout_panel(
    geometry: Layout,
    state: GameState,
    labels: Labels = ENGLISH,
    names: Sequence[str] | None = None,
    *,
    final: bool = False,
) -> PanelModel:
    """The panel of `state` laid out in `geometry` (see `panel_model`)."""
    shown = check_names(names, state.players)
    builder = _Builder(geometry, state, labels)
    arrange = _portrait if geometry.portrait else _landscape
    die_at = arrange(builder, shown, final)
    return PanelModel(tuple(builder.texts), tuple(builder.seats), die_at)


def panel_model(
    state: GameState,
    *,
    size: int = DEFAULT_SIZE,
    portrait: bool = False,
    labels: Labels = ENGLISH,
    names: Sequence[str] | None = None,
    final: bool = False,
) -> PanelModel:
    """What the panel of `render_board(state, size=..., portrait=..., labels=..., names=...)`
    shows, and where; with `final`, that of `render_game_over` (which raises ValueError if the
    game is not over). `names` gives one display string per seat (ValueError unless there is
    one per seat); None shows the seat labels."""
    return layout_panel(layout(size, state.players, portrait), state, labels, names, final=final)


def revealed_rug(state: GameState, seat: int) -> Color | None:
    """The colour `seat` lays next, where everyone may see it: in 2 players, the top of its pile
    from the start of its turn until it lays it (R2: revealed at the start of that player's
    turn, so never the other seat's, nor the mover's next while it turns Assam after laying in
    the rotate-after variant); None otherwise."""
    if state.players != 2 or state.to_move != seat:
        return None
    if state.phase not in (Phase.ORIENT, Phase.ROLL, Phase.PLACE):
        return None
    return state.next_rug_color(seat)


def _swatches(image: Image.Image, state: GameState, entry: SeatEntry, reveal: bool) -> None:
    """A seat's colour swatches (in 2 players, with `reveal`, the colour the seat to move lays
    this turn is framed, `revealed_rug`; a seat that is out keeps its colours, veiled and
    crossed out)."""
    draw = ImageDraw.Draw(image)
    x, mid = entry.swatches
    side = entry.swatch_side
    next_color = revealed_rug(state, entry.seat) if reveal and entry.place is None else None
    for color in seat_colors(state.players, entry.seat):
        if entry.out:
            piece = crossed_swatch(side, rug_style(color))
        else:
            piece = rug_piece(side, rug_style(color), (1, 1))
        top = round(mid - piece.height / 2)
        if color is next_color:
            draw.rounded_rectangle(
                (x - 3, top - 3, x + piece.width + 2, top + piece.height + 2),
                radius=4,
                outline=palette.TEXT,
                width=2,
            )
        image.paste(piece, (x, top), piece)
        x += piece.width + round(side * 0.35)


def draw_model(
    image: Image.Image,
    geometry: Layout,
    state: GameState,
    model: PanelModel,
    *,
    reveal: bool = True,
) -> None:
    """Paint a panel model: highlight of the seat to move, swatches, texts, strikes, die.
    `reveal`: frame the rug the seat to move lays this turn (`revealed_rug`); False for a
    board whose turn has laid its rug though its panel still shows that turn (a hint)."""
    cell = geometry.cell
    draw = ImageDraw.Draw(image)
    for entry in model.seats:
        if entry.active:
            draw.rounded_rectangle(entry.box, radius=round(cell * 0.08), fill=palette.PANEL_ACTIVE)
            x, mid, size = entry.marker
            points = [(x, mid - size), (x + size * 1.2, mid), (x, mid + size)]
            draw.polygon(points, fill=palette.TEXT)
        _swatches(image, state, entry, reveal)
    for text in model.texts:
        x0, y0, x1, y1 = text.box
        anchor, x = ("mm", (x0 + x1) / 2) if text.centred else ("lm", x0)
        if text.right:
            anchor, x = "rm", x1
        at = (x, (y0 + y1) / 2)
        draw_text(
            image, at, text.text, size=text.size, fill=text.fill, bold=text.bold, anchor=anchor
        )
    for entry in model.seats:
        if entry.strike is not None:
            sx0, sx1, sy = entry.strike
            draw.line(
                [(sx0, sy), (sx1, sy)], fill=palette.TEXT_DIM, width=max(1, round(cell * 0.03))
            )
    if model.die is not None:
        dx, dy, side, face = model.die
        sprite = die(side, face)
        image.paste(sprite, (dx, dy), sprite)
