"""The jobs the worker processes run: an AI decision, a board picture, a replay GIF, a picture
of the rules guide, a tournament's standings.

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
from render import ENGLISH, Labels, render_board, render_game_over, render_guide, render_replay
from render.standings import StandingsTable, render_standings


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
    names: tuple[str, ...] | None = None
    """One display string per seat, in seat order (None: the seat labels)."""
    show_choices: bool = False
    """Arrows from Assam into the squares he may face (the ORIENT or ROTATE decision)."""


def choose_action(record: Record, level: str, seed: int, budget: ai.Budget | None = None) -> str:
    """The action a `level` AI picks at the end of `record` (see `ai.choose_action`)."""
    return ai.choose_action(engine.replay_record(record), level, seed, budget)


def board_png(picture: BoardPicture) -> bytes:
    """The PNG of `picture`."""
    state = engine.replay_record(picture.record)
    if picture.final:
        return render_game_over(
            state, events=picture.events, labels=picture.labels, names=picture.names
        )
    return render_board(
        state,
        events=picture.events,
        show_candidates=picture.numbered,
        show_choices=picture.show_choices,
        labels=picture.labels,
        names=picture.names,
    )


def replay_gif(
    record: Record, labels: Labels = ENGLISH, names: tuple[str, ...] | None = None
) -> bytes:
    """The animated GIF of the whole game in `record`, its seats shown by `names` (one per
    seat, in seat order; None: the seat labels)."""
    return render_replay(record, labels=labels, names=names)


def standings_png(table: StandingsTable) -> bytes:
    """The PNG of a tournament's standings (render.standings)."""
    return render_standings(table)


def guide_png(scene: str) -> bytes:
    """The PNG of one of the rules guide's scenes (render.guide)."""
    return render_guide(scene)


@functools.cache
def ready() -> bool:
    """Draw one board, once per process, so fonts and cached layers are loaded before the
    first real picture; True when done."""
    config = engine.deal(3, engine.Variant.STANDARD, first_player=0)
    board_png(BoardPicture(engine.Record(3, config.variant, 0, config.piles, ())))
    return True
