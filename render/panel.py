"""The panel under the board: one row per seat with its colour swatches (colour and mark),
dirhams, rugs left, visible squares and score; whose turn it is and who is out; or, once the
game is over, the final ranking. Words come from `Labels` so the bot can pass its own language
(the bundled font has Latin and Cyrillic); player names never appear in the image."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine import (
    REASON_LAST_PLAYER,
    REASON_RUGS_EXHAUSTED,
    GameState,
    Phase,
    Score,
    scores,
    seat_colors,
)
from render import palette
from render.layout import Layout
from render.palette import rug_style
from render.sprites import crossed_swatch, die, rug_piece
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


def _columns(geometry: Layout) -> list[int]:
    """Right edges of the four number columns: dirhams, rugs, visible, score."""
    w = geometry.width
    return [round(w * f) for f in (0.55, 0.68, 0.82, 0.96)]


def _title(image: Image.Image, geometry: Layout, top: int, text: str) -> int:
    """The title line's text at the left; returns the x where the text ends."""
    cell = geometry.cell
    mid = top + geometry.title_height / 2
    left = round(cell * 0.2)
    size = fit(text, round(cell * 0.27), geometry.width - round(cell * 1.2), bold=True)
    draw_text(image, (left, mid), text, size=size, fill=palette.TEXT, bold=True, anchor="lm")
    return left + round(width(text, size, bold=True))


def _column_names(image: Image.Image, geometry: Layout, labels: Labels, top: int) -> None:
    mid = top + geometry.columns_height / 2
    size = max(9, round(geometry.cell * 0.2))
    names = (labels.dirhams, labels.rugs, labels.visible, labels.score)
    for right, text in zip(_columns(geometry), names, strict=True):
        fitted = fit(text, size, round(geometry.width * 0.135))
        draw_text(image, (right, mid), text, size=fitted, fill=palette.TEXT_DIM, anchor="rm")


def _swatches(
    image: Image.Image,
    geometry: Layout,
    state: GameState,
    seat: int,
    x: int,
    mid: float,
    *,
    highlight_next: bool,
) -> int:
    """Draw a seat's colour swatches from `x` (in 2 players the colour it lays next is framed;
    a seat that is out keeps its colours, veiled and crossed out); return the x after them."""
    side = round(geometry.row_height * 0.78)
    draw = ImageDraw.Draw(image)
    next_color = state.next_rug_color(seat) if highlight_next else None
    for color in seat_colors(state.players, seat):
        if state.is_eliminated(seat):
            piece = crossed_swatch(side, rug_style(color))
        else:
            piece = rug_piece(side, rug_style(color), (1, 1))
        top = round(mid - piece.height / 2)
        if color is next_color and state.players == 2:
            draw.rounded_rectangle(
                (x - 3, top - 3, x + piece.width + 2, top + piece.height + 2),
                radius=4,
                outline=palette.TEXT,
                width=2,
            )
        image.paste(piece, (x, top), piece)
        x += piece.width + round(side * 0.35)
    return x


def _turn_marker(draw: ImageDraw.ImageDraw, x: float, mid: float, size: float) -> None:
    draw.polygon([(x, mid - size), (x + size * 1.2, mid), (x, mid + size)], fill=palette.TEXT)


def _numbers(
    image: Image.Image,
    geometry: Layout,
    mid: float,
    values: tuple[str, str, str, str],
    color: tuple[int, int, int],
) -> None:
    size = max(10, round(geometry.cell * 0.27))
    for right, text in zip(_columns(geometry), values, strict=True):
        draw_text(image, (right, mid), text, size=size, fill=color, bold=True, anchor="rm")


def _panel(
    image: Image.Image,
    geometry: Layout,
    state: GameState,
    labels: Labels,
    title: str,
    rows: Sequence[tuple[int, int | None]],
) -> int:
    """The title line, the column names, then a row per `(seat, place)` (place None in a live
    game); returns the x where the title's text ends."""
    top = geometry.board_height + geometry.panel_pad
    text_end = _title(image, geometry, top, title)
    _column_names(image, geometry, labels, top + geometry.title_height)
    row_top = top + geometry.title_height + geometry.columns_height
    by_seat = scores(state)  # in seat order
    draw = ImageDraw.Draw(image)
    for row, (seat, place) in enumerate(rows):
        row_y = row_top + row * geometry.row_height
        _seat_row(image, draw, geometry, state, labels, seat, by_seat[seat], row_y, place=place)
    return text_end


def draw_panel(image: Image.Image, geometry: Layout, state: GameState, labels: Labels) -> None:
    """The live panel: turn number, the die just rolled, and a row per seat."""
    seats = [(seat, None) for seat in range(state.players)]
    text_end = _panel(image, geometry, state, labels, labels.turn.format(n=state.turn), seats)
    if state.last_roll is not None and state.phase in (Phase.PLACE, Phase.ROTATE):
        side = round(geometry.title_height * 0.8)
        sprite = die(side, state.last_roll)
        top = geometry.board_height + geometry.panel_pad
        y = round(top + (geometry.title_height - side) / 2)
        image.paste(sprite, (text_end + round(geometry.cell * 0.2), y), sprite)


def _seat_row(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    geometry: Layout,
    state: GameState,
    labels: Labels,
    seat: int,
    score: Score,
    top: int,
    *,
    place: int | None,
) -> None:
    """One seat's row from `top`: its place in the final ranking (if given), swatches, name,
    dirhams, rugs left (or "out"), visible squares and score; the seat to move is highlighted
    and a seat that is out is struck through."""
    cell = geometry.cell
    mid = top + geometry.row_height / 2
    out = state.is_eliminated(seat)
    active = state.to_move == seat and not state.is_over
    if active:
        draw.rounded_rectangle(
            (
                round(cell * 0.1),
                top + 1,
                geometry.width - round(cell * 0.1),
                top + geometry.row_height - 2,
            ),
            radius=round(cell * 0.08),
            fill=palette.PANEL_ACTIVE,
        )
        _turn_marker(draw, round(cell * 0.2), mid, geometry.row_height * 0.22)
    x = round(cell * 0.55)
    if place is not None:
        color = palette.ASSAM_RING if place == 1 else palette.TEXT
        draw_text(
            image,
            (round(cell * 0.2), mid),
            labels.rank.format(n=place),
            size=max(10, round(cell * 0.24)),
            fill=color,
            bold=True,
            anchor="lm",
        )
        x = round(cell * 0.75)
    x = _swatches(image, geometry, state, seat, x, mid, highlight_next=place is None)
    name = labels.seat.format(n=seat + 1)
    text_color = palette.TEXT_DIM if out else palette.TEXT
    size = fit(name, round(cell * 0.25), _columns(geometry)[0] - round(geometry.width * 0.1) - x)
    draw_text(image, (x + round(cell * 0.05), mid), name, size=size, fill=text_color, anchor="lm")
    rugs = labels.out if out else str(state.rugs_in_hand(seat))
    values = (str(score.dirhams), rugs, str(score.visible), str(score.total))
    _numbers(image, geometry, mid, values, text_color)
    if out:
        draw.line(
            [(x, round(mid)), (_columns(geometry)[-1], round(mid))],
            fill=palette.TEXT_DIM,
            width=max(1, round(cell * 0.02)),
        )


def draw_ranking(image: Image.Image, geometry: Layout, state: GameState, labels: Labels) -> None:
    """The final panel: seats in ranking order (tied seats share a place), with why the game
    ended."""
    outcome = state.outcome
    if outcome is None:
        raise ValueError("the game is not over")
    reason = {
        REASON_RUGS_EXHAUSTED: labels.rugs_exhausted,
        REASON_LAST_PLAYER: labels.last_player_standing,
    }.get(outcome.reason, outcome.reason)
    title = f"{labels.game_over} · {reason}"
    if outcome.tie_break == "shared":
        title += f" · {labels.shared}"
    elif outcome.tie_break == "dirhams":
        title += f" · {labels.dirhams_tie_break}"
    rows: list[tuple[int, int | None]] = []
    for group in outcome.ranking:
        place = len(rows) + 1
        rows.extend((seat, place) for seat in group)
    _panel(image, geometry, state, labels, title, rows)
