"""The picture of one step of Learn from your mistakes: the board before a decision, with what
the player did and, once asked, what was better.

The two options are drawn with a turn picture's own overlays (render.board's `TurnMarks`), so
they read like the buttons the player pressed in the game:

- a rug: each option's bar and badge on the edge its two squares share, badge 1 for the rug the
  player laid (also framed, as a rug just laid is) and badge 2 for the better rug;
- a way to turn Assam (before the roll, or after the rug in `rotate-after`): an arrow into the
  square each way faces, labelled 1 (what the player did) and 2 (the better way);
- a second try: every option numbered from 1 in the order of the step's buttons, as a turn's
  picture numbers its placements, the rug taken framed; once the player picks one, the two
  rugs keep those numbers (`badges`), so the picture, the buttons and the text agree.

Numbers, a frame and arrows tell the two apart without their colours, so the picture reads for
colour-blind players as the turn pictures do (docs/architecture.md, render). The text beside
it (bot.presentation.drill) says which number is which.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import GameState, orientations, parse_placement
from render.board import TurnMarks, board_image
from render.encode import encode_png
from render.layout import DEFAULT_SIZE
from render.panel import ENGLISH, Labels

TAKEN_LABEL = "1"
"""The badge of the option the player took."""
BETTER_LABEL = "2"
"""The badge of the better option."""


def drill_marks(
    state: GameState,
    taken: str,
    better: str | None = None,
    *,
    also: str | None = None,
    picking: Sequence[str] = (),
    badges: Sequence[str] = (TAKEN_LABEL, BETTER_LABEL, "3"),
) -> TurnMarks:
    """The marks of a drill step: `taken` (badge 1) and, when given, `better` (badge 2) and
    `also` (a third option: the best, beside a pick), options of the seat to move at `state`;
    or, for a second try, every option of `picking` numbered in its order from 1, as the
    step's buttons are, the rug taken framed. `badges`: the options' badges in that order
    instead of 1, 2 (a rug keeps its number on the try's buttons on every screen of a step).
    An option given twice is drawn once. ValueError for an action that is not one."""
    if picking:
        return _every_option(state, taken, picking)
    drawn: dict[str, str] = {}  # each option once, with its badge, in order
    for action, badge in zip((taken, better, also), badges, strict=False):
        if action is not None:
            drawn.setdefault(action, badge)
    shown, labels = list(drawn), list(drawn.values())
    turns = dict(orientations(state))
    if turns:
        if any(action not in turns for action in shown):
            raise ValueError(f"{shown!r} are not ways to turn Assam here")
        labelled = tuple(
            (label, turns[action]) for label, action in zip(labels, shown, strict=True)
        )
        return TurnMarks(turns=labelled, choices=tuple(facing for _, facing in labelled))
    rugs = tuple(parse_placement(action) for action in shown)
    return TurnMarks(candidates=rugs, last_rug=rugs[0], candidate_labels=tuple(labels))


def _every_option(state: GameState, taken: str, picking: Sequence[str]) -> TurnMarks:
    turns = dict(orientations(state))
    if turns:
        if any(action not in turns for action in picking):
            raise ValueError(f"{picking!r} are not ways to turn Assam here")
        labelled = tuple((str(n), turns[action]) for n, action in enumerate(picking, start=1))
        return TurnMarks(turns=labelled, choices=tuple(facing for _, facing in labelled))
    return TurnMarks(
        candidates=tuple(parse_placement(action) for action in picking),
        last_rug=parse_placement(taken),
    )


def render_drill(
    state: GameState,
    taken: str,
    better: str | None = None,
    *,
    also: str | None = None,
    picking: Sequence[str] = (),
    badges: Sequence[str] = (TAKEN_LABEL, BETTER_LABEL, "3"),
    size: int = DEFAULT_SIZE,
    labels: Labels = ENGLISH,
    names: Sequence[str] | None = None,
    portrait: bool = False,
) -> bytes:
    """A PNG of the board at `state` (before the decision) with the panel, marking `taken`
    and, when given, `better` (see the module); the other arguments are `render_board`'s."""
    marks = drill_marks(state, taken, better, also=also, picking=picking, badges=badges)
    image = board_image(state, marks, size=size, labels=labels, names=names, portrait=portrait)
    return encode_png(image)
