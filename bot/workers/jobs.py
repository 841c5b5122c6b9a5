"""The jobs the worker processes run: an AI decision, a board picture, a replay GIF.

Each is a module-level function of plain data, so it pickles into a worker: a game `Record`
(its config and every action, as in FORMATS.md) stands for the game, never a live object of
the bot's. The worker replays the record itself (a couple of milliseconds for a whole game), so
what it decides or draws is exactly what the bot's own state would give.

This module imports the engine, the AI and render only (no Discord, no database): the worker
pool's fork server imports it once, and every worker starts from that warm copy.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import ai
import engine
from engine import Record
from engine.events import Event
from render import ENGLISH, Labels, render_board, render_game_over, render_replay


@dataclass(frozen=True, slots=True)
class BoardPicture:
    """What a board picture shows: the game so far, the events to mark, and its panel words."""

    record: Record
    events: tuple[Event, ...] = ()
    numbered: bool = False
    """Number the places the rug may go (the PLACE decision)."""
    final: bool = False
    """The final ranking instead of the turn's panel."""
    labels: Labels = ENGLISH


def choose_action(record: Record, level: str, seed: int, budget: ai.Budget | None = None) -> str:
    """The action a `level` AI picks at the end of `record` (see `ai.choose_action`)."""
    return ai.choose_action(engine.replay_record(record), level, seed, budget)


def board_png(picture: BoardPicture) -> bytes:
    """The PNG of `picture`."""
    state = engine.replay_record(picture.record)
    if picture.final:
        return render_game_over(state, events=picture.events, labels=picture.labels)
    return render_board(
        state, events=picture.events, show_candidates=picture.numbered, labels=picture.labels
    )


def replay_gif(record: Record, labels: Labels = ENGLISH) -> bytes:
    """The animated GIF of the whole game in `record`."""
    return render_replay(record, labels=labels)


@functools.cache
def ready() -> bool:
    """Draw one board, once per process, so fonts and cached layers are loaded before the
    first real picture; True when done."""
    config = engine.deal(3, engine.Variant.STANDARD, first_player=0)
    board_png(BoardPicture(engine.Record(3, config.variant, 0, config.piles, ())))
    return True
