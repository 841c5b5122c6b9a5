"""Pillow pictures of Marrakech engine states, for the bot to post.

- `render_board(state, *, events=..., show_candidates=..., show_choices=..., names=..., ...)
  -> bytes`: PNG of a turn, the board with the panel beside it (landscape, phone-friendly).
- `render_game_over(state, *, events=..., names=..., ...) -> bytes`: PNG of the final board and
  ranking.
- `render_replay(record, *, names=..., ...) -> bytes`: animated GIF of a whole game, one frame
  per turn (panel below the board).
- `render_guide(scene) -> bytes`: PNG of one of the rules guide's scenes (`GuideScene`: Assam
  round a border arc, a payment, the places a rug may go), the board alone.
- `image_size(players, size=..., portrait=...)`: the (width, height) of a board picture.
- `Labels`: the panel's words, for pictures in another language (Latin, Cyrillic or Greek).
- `panel_model(state, ...)`: what the panel says and where, readable without the pixels.

Imports only the engine's public API, Pillow and the standard library.
"""

from render.board import TurnMarks, board_image, marks_from_events, render_board, render_game_over
from render.guide import GuideScene, render_guide
from render.layout import DEFAULT_SIZE, MAX_SIZE, MIN_SIZE, image_size
from render.panel import ENGLISH, Labels, PanelModel, PanelText, panel_model
from render.replay import REPLAY_SIZE, render_replay, replay_frames

__all__ = [
    "DEFAULT_SIZE",
    "ENGLISH",
    "MAX_SIZE",
    "MIN_SIZE",
    "REPLAY_SIZE",
    "GuideScene",
    "Labels",
    "PanelModel",
    "PanelText",
    "TurnMarks",
    "board_image",
    "image_size",
    "marks_from_events",
    "panel_model",
    "render_board",
    "render_game_over",
    "render_guide",
    "render_replay",
    "replay_frames",
]
