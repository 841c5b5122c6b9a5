"""Animated GIF of a whole game from its record: the opening board, then one frame after each
turn (with that turn's path, region paid for and rug laid marked), then the final ranking.

Frames use the portrait layout (the panel below the board): a replay is posted on its own, so
on a phone the taller picture gives the board the whole width of the screen."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from PIL import Image

from engine import Event, GameEnded, GameState, Record, TurnStarted, new_game, replay_events
from render.board import TurnMarks, board_image, marks_from_events
from render.encode import encode_gif
from render.panel import ENGLISH, Labels

REPLAY_SIZE = 560
FIRST_FRAME_MS = 1500
TURN_FRAME_MS = 700
LAST_FRAME_MS = 5000


def turn_states(record: Record) -> Iterator[tuple[GameState, tuple[Event, ...]]]:
    """The state at the start of the game, then after every finished turn, each with the
    events of that turn (resignations included). Raises engine.ReplayError if the record does
    not replay."""
    state = new_game(record.config)
    yield state, ()
    events: list[Event] = []
    for state, told in replay_events(record):
        events.extend(told)
        if any(isinstance(e, (TurnStarted, GameEnded)) for e in told):
            yield state, tuple(events)
            events = []
    if events:
        yield state, tuple(events)


def replay_frames(
    record: Record,
    *,
    size: int = REPLAY_SIZE,
    labels: Labels = ENGLISH,
    names: Sequence[str] | None = None,
) -> list[Image.Image]:
    """The RGB frames of `render_replay`, each `image_size(players, size=size, portrait=True)`."""
    frames = []
    for state, events in turn_states(record):
        marks = marks_from_events(events) if events else TurnMarks()
        image = board_image(
            state,
            marks,
            size=size,
            labels=labels,
            names=names,
            final=state.is_over,
            portrait=True,
        )
        frames.append(image)
    return frames


def render_replay(
    record: Record,
    *,
    size: int = REPLAY_SIZE,
    labels: Labels = ENGLISH,
    names: Sequence[str] | None = None,
) -> bytes:
    """An animated GIF (looping) of the game in `record`, one frame per turn, the final frame
    showing the ranking; `size` is its width, `labels` and `names` are as in `render_board`.
    The same arguments give the same bytes."""
    frames = replay_frames(record, size=size, labels=labels, names=names)
    durations = [TURN_FRAME_MS] * len(frames)
    durations[0] = FIRST_FRAME_MS
    if len(frames) > 1:
        durations[-1] = LAST_FRAME_MS
    return encode_gif(frames, durations)
