"""Board pictures of engine states: `render_board` for a turn, `render_game_over` for the end.

A board is a copy of the cached static market (render.market) with the rugs, the turn's
overlays, Assam and the panel painted on, encoded as PNG (render.encode).

Typical use by the bot, after applying the actions of a turn and keeping their events:

    png = render_board(state, events=events, show_candidates=True)

`events` fills in the path, the region paid for and the last rug from the engine's
AssamMoved, TaxPaid and RugPlaced events (the last of each kind wins); the explicit options
override it. `show_candidates=True` numbers the legal placements 1..N in the order of
`engine.legal_actions(state)` when the state waits for a rug to be laid, and labels the ways
Assam may be turned (L, S, R) when it waits for that. `show_choices=True` draws those ways as
arrows from Assam into the squares he would face. `names` puts the players' display names in
the panel instead of "Seat n".
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from PIL import Image

from engine import (
    AssamMoved,
    Event,
    Facing,
    GameState,
    RugPlaced,
    TaxPaid,
    orientations,
    placements,
)
from render.encode import encode_png
from render.layout import DEFAULT_SIZE, Layout, layout
from render.market import base_image
from render.overlays import (
    draw_assam,
    draw_candidate_badges,
    draw_candidate_bars,
    draw_choice_arrows,
    draw_last_rug,
    draw_path,
    draw_payment,
    draw_region,
    draw_turn_options,
)
from render.palette import rug_style
from render.panel import ENGLISH, Labels, draw_model, layout_panel
from render.rugs import draw_rugs


@dataclass(frozen=True)
class TurnMarks:
    """What a picture highlights besides the state itself: the path walked, the region paid
    for (and how much), the rug just laid, the numbered candidate placements, the labelled
    ways to turn Assam (each an action notation with the facing it gives) and the facings he
    may be turned to, drawn as arrows (`choices`)."""

    path: AssamMoved | None = None
    paid_region: frozenset[int] = frozenset()
    last_rug: tuple[int, ...] = ()
    candidates: tuple[tuple[int, int], ...] = ()
    candidate_labels: tuple[str, ...] = ()
    """The badge of each candidate, in order (empty: numbered 1..N)."""
    turns: tuple[tuple[str, Facing], ...] = ()
    paid: int | None = None  # dirhams paid for the region, shown on a coin where Assam paid
    choices: tuple[Facing, ...] = ()


def marks_from_events(events: Iterable[Event]) -> TurnMarks:
    """The path, region paid for (and the sum paid) and last rug told by a turn's events (the
    last of each kind)."""
    path: AssamMoved | None = None
    tax: TaxPaid | None = None
    last_rug: tuple[int, ...] = ()
    for event in events:
        if isinstance(event, AssamMoved):
            path = event
        elif isinstance(event, TaxPaid):
            tax = event
        elif isinstance(event, RugPlaced):
            last_rug = tuple(event.squares)
    if tax is None:
        return TurnMarks(path=path, last_rug=last_rug)
    return TurnMarks(path=path, paid_region=tax.region, last_rug=last_rug, paid=tax.paid)


def _requested_marks(
    state: GameState,
    events: Iterable[Event],
    show_candidates: bool,
    show_choices: bool,
    candidates: Sequence[tuple[int, int]] | None,
    path: AssamMoved | None,
    paid_region: Collection[int] | None,
    last_rug: Sequence[int] | None,
) -> TurnMarks:
    """The marks `render_board` was asked for: each explicit option, else what `events` tell;
    with `show_candidates`, the engine's placements (PLACE) or ways to turn Assam; with
    `show_choices`, the facings those ways give (ORIENT, or ROTATE in the variant)."""
    told = marks_from_events(events)
    if candidates is None:
        shown = placements(state) if show_candidates else []
    else:
        shown = list(candidates)
    return TurnMarks(
        path=told.path if path is None else path,
        paid_region=told.paid_region if paid_region is None else frozenset(paid_region),
        last_rug=told.last_rug if last_rug is None else tuple(last_rug),
        candidates=tuple((a, b) for a, b in shown),
        turns=tuple(orientations(state)) if show_candidates else (),
        paid=told.paid if paid_region is None else None,
        choices=tuple(facing for _, facing in orientations(state)) if show_choices else (),
    )


def paint_board(image: Image.Image, geometry: Layout, state: GameState, marks: TurnMarks) -> None:
    """Paint the rugs of `state`, the `marks` and Assam on `image` (a copy of the market)."""
    draw_rugs(image, geometry, state)
    if marks.paid_region:
        draw_region(image, geometry, marks.paid_region)
    if marks.last_rug:
        draw_last_rug(image, geometry, marks.last_rug)
    if marks.candidates:
        draw_candidate_bars(image, geometry, marks.candidates)
    if marks.path is not None:
        draw_path(image, geometry, marks.path)
    if marks.choices:
        draw_choice_arrows(image, geometry, state.assam, state.facing, marks.choices)
    draw_assam(image, geometry, state.assam, state.facing)
    mover = state.to_move
    ring = rug_style(state.next_rug_color(mover) if mover is not None else None).fill
    if marks.paid is not None and marks.paid_region:
        where = state.assam if state.assam in marks.paid_region else min(marks.paid_region)
        draw_payment(image, geometry, where, marks.paid)
    if marks.candidates:
        draw_candidate_badges(image, geometry, marks.candidates, ring, marks.candidate_labels)
    if marks.turns:
        draw_turn_options(image, geometry, state.assam, marks.turns, ring)


def board_image(
    state: GameState,
    marks: TurnMarks = TurnMarks(),
    *,
    size: int = DEFAULT_SIZE,
    labels: Labels = ENGLISH,
    names: Sequence[str] | None = None,
    final: bool = False,
    portrait: bool = False,
    reveal: bool = True,
) -> Image.Image:
    """The board picture as a Pillow RGB image (what render_board and render_game_over
    encode): the live panel, or with `final` the ranking; beside the board, or below it with
    `portrait`; `reveal` as in `render_board`."""
    geometry = layout(size, state.players, portrait)
    model = layout_panel(geometry, state, labels, names, final=final)  # checks names first
    image = base_image(size, state.players, portrait).copy()
    paint_board(image, geometry, state, marks)
    draw_model(image, geometry, state, model, reveal=reveal)
    return image


def render_board(
    state: GameState,
    *,
    events: Iterable[Event] = (),
    show_candidates: bool = False,
    show_choices: bool = False,
    candidates: Sequence[tuple[int, int]] | None = None,
    path: AssamMoved | None = None,
    paid_region: Collection[int] | None = None,
    last_rug: Sequence[int] | None = None,
    size: int = DEFAULT_SIZE,
    labels: Labels = ENGLISH,
    names: Sequence[str] | None = None,
    portrait: bool = False,
    reveal: bool = True,
) -> bytes:
    """A PNG of the whole market for `state`, with the seat panel beside it.

    - `events`: the engine events of the turn so far; AssamMoved draws the path walked,
      TaxPaid outlines the region paid for (with the sum paid on a coin by Assam), RugPlaced
      frames the rug just laid.
    - `show_candidates`: at the PLACE phase, number the legal placements 1..N in the order of
      `engine.legal_actions(state)` (the order the bot offers them); when Assam is to be
      turned (ORIENT, or ROTATE in the variant), label the sides he may face L, S, R.
    - `show_choices`: when Assam is to be turned, an arrow from him into the square he would
      face for each way (left, straight on, right); the straight-on one is solid light, the
      turns dark in a light rim.
    - `candidates`, `path`, `paid_region`, `last_rug`: explicit marks, overriding `events` and
      `show_candidates` (pass an empty value to hide one).
    - `size`: image width in pixels (320..2000); the height is `image_size(players, size=...)`.
    - `labels`: the words of the panel, for another language.
    - `names`: one display string per seat, in seat order (e.g. "Alice", "AI (hard)"), shown
      instead of the seat labels; shortened with an ellipsis when too long, characters the
      bundled font lacks dropped (a name left with nothing to draw shows the seat label).
      Raises ValueError unless there is one per seat.
    - `portrait`: the panel below the board (one row per seat) instead of beside it.
    - `reveal`: in 2 players, frame the swatch of the rug the seat to move lays this turn (the
      top of its pile, revealed at the start of its turn: R2). False for a board whose panel
      shows a turn that has already laid its rug (a hint: the next rug is still hidden).

    The same arguments always give the same bytes.
    """
    marks = _requested_marks(
        state, events, show_candidates, show_choices, candidates, path, paid_region, last_rug
    )
    image = board_image(
        state, marks, size=size, labels=labels, names=names, portrait=portrait, reveal=reveal
    )
    return encode_png(image)


def render_game_over(
    state: GameState,
    *,
    events: Iterable[Event] = (),
    size: int = DEFAULT_SIZE,
    labels: Labels = ENGLISH,
    names: Sequence[str] | None = None,
    portrait: bool = False,
) -> bytes:
    """A PNG of the final market with the ranking (best first, ties sharing a place, each seat
    by its name when `names` are given) and why the game ended. `events` (the last turn's)
    marks the last move; `size`, `labels`, `names` and `portrait` are as in `render_board`.
    Raises ValueError if the game is not over."""
    if state.outcome is None:
        raise ValueError("the game is not over")
    marks = marks_from_events(events)
    image = board_image(
        state, marks, size=size, labels=labels, names=names, final=True, portrait=portrait
    )
    return encode_png(image)
