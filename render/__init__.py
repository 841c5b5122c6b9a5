"""Pillow pictures of Marrakech engine states, for the bot to post.

- `render_board(state, *, events=..., show_candidates=..., show_choices=..., names=..., ...)
  -> bytes`: PNG of a turn, the board with the panel beside it (landscape, phone-friendly).
- `render_game_over(state, *, events=..., names=..., ...) -> bytes`: PNG of the final board and
  ranking.
- `render_replay(record, *, names=..., ...) -> bytes`: animated GIF of a whole game, one frame
  per turn (panel below the board).
- `image_size(players, size=..., portrait=...)`: the (width, height) of a board picture.
- `Labels`: the panel's words, for pictures in another language (Latin, Cyrillic or Greek).
- `panel_model(state, ...)`: what the panel says and where, readable without the pixels.

Imports only the engine's public API, Pillow and the standard library.
"""

from render.board import TurnMarks, board_image, marks_from_events, render_board, render_game_over
from render.layout import DEFAULT_SIZE, MAX_SIZE, MIN_SIZE, image_size
from render.panel import ENGLISH, Labels, PanelModel, PanelText, panel_model
from render.replay import REPLAY_SIZE, render_replay, replay_frames

__all__ = [
    "DEFAULT_SIZE",
    "ENGLISH",
    "MAX_SIZE",
    "MIN_SIZE",
    "REPLAY_SIZE",
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
    "render_replay",
    "replay_frames",
]
