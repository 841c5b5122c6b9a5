"""Pictures for the rules guide: small scenes played on the engine, drawn with a turn's overlays.

Each scene is a short game of fixed actions (die faces included, so no randomness), played from
the start with the engine's checked API; the picture is the market after those actions with the
overlays of a turn picture (render.overlays) and no panel, so it holds no words and looks the
same in every language:

- `GuideScene.MOVE`: Assam's walk round a border arc (R7), the path drawn.
- `GuideScene.PAY`: a payment (R8), the region paid for outlined and the sum on a coin.
- `GuideScene.LAY`: the places the next rug may go (R10), numbered as on the turn's buttons.

`guide_scene(scene)` gives the state and its marks (what the guide's text tells about), and
`render_guide(scene)` the PNG; the same scene and size always give the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from engine import (
    AssamMoved,
    Event,
    GameConfig,
    GameState,
    TurnStarted,
    Variant,
    apply,
    new_game,
    placements,
)
from render.board import TurnMarks, marks_from_events, paint_board
from render.encode import encode_png
from render.layout import layout
from render.market import base_image

GUIDE_SIZE = 480
"""The side of a guide picture in pixels: the board and its frame, nothing else."""


class GuideScene(StrEnum):
    """The scenes the guide shows."""

    MOVE = "move"
    PAY = "pay"
    LAY = "lay"


@dataclass(frozen=True)
class Scene:
    """A scene: the state drawn, the events of its last turn so far, the marks drawn over it."""

    state: GameState
    events: tuple[Event, ...]
    marks: TurnMarks


PLAYERS = 3
SCRIPTS: dict[GuideScene, str] = {
    # Red lays e2-e3, yellow b2-b3; blue turns Assam north on c2 and rolls 3: c1, then round
    # the arc onto d1 facing south, then d2.
    GuideScene.MOVE: "S D2 e2e3 L D1 b2b3 R D3",
    # Six rugs laid, then red walks from a4 to a6 and stops on the yellow region a6-b6-b5-c5.
    GuideScene.PAY: "L D3 a5b5 L D1 a6b6 R D3 d6e6 L D1 d5e5 S D1 b5c5 L D2 b3b4 L D2",
    # The moment after the MOVE scene: blue is to lay a rug next to Assam on d2.
    GuideScene.LAY: "S D2 e2e3 L D1 b2b3 R D3",
}
"""Each scene's actions, in the notation of the game records (FORMATS.md), from the start of a
3-player game under the standard rules in which seat 0 (red) plays first."""


def _played(actions: str) -> tuple[GameState, tuple[Event, ...]]:
    """The state after `actions`, and the events since its turn began."""
    state = new_game(GameConfig(PLAYERS, Variant.STANDARD, first_player=0))
    turn: list[Event] = []
    for action in actions.split():
        state, events = apply(state, action)
        if any(isinstance(event, TurnStarted) for event in events):
            turn = []
        else:
            turn.extend(events)
    return state, tuple(turn)


@cache
def guide_scene(scene: GuideScene | str) -> Scene:
    """The state, events and marks of a scene (ValueError for a scene there is not)."""
    scene = GuideScene(scene)
    state, events = _played(SCRIPTS[scene])
    if scene is GuideScene.LAY:
        marks = TurnMarks(candidates=tuple(placements(state)))
    elif scene is GuideScene.MOVE:
        moved = next(event for event in events if isinstance(event, AssamMoved))
        marks = TurnMarks(path=moved)
    else:
        marks = marks_from_events(events)
    return Scene(state, events, marks)


def render_guide(scene: GuideScene | str, *, size: int = GUIDE_SIZE) -> bytes:
    """The PNG of a scene: the market with its frame and arcs, `size` pixels square."""
    drawn = guide_scene(scene)
    geometry = layout(size, PLAYERS, portrait=True)
    image = base_image(size, PLAYERS, portrait=True).copy()
    paint_board(image, geometry, drawn.state, drawn.marks)
    side = geometry.board_side
    return encode_png(image.crop((0, 0, side, side)))
