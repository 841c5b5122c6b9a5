"""Replay GIFs: one frame per turn, marking that turn's path, payment and rug, looping for
ever, small enough for Discord, the same bytes every time."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

from engine import (
    AssamMoved,
    Record,
    ReplayError,
    RugPlaced,
    TaxPaid,
    Variant,
    record_of,
    replay_events,
)
from render import image_size, panel, render_replay
from render.board import TurnMarks, board_image, marks_from_events
from render.palette import LAST_RUG, PATH
from render.replay import FIRST_FRAME_MS, LAST_FRAME_MS, REPLAY_SIZE, replay_frames, turn_states
from render.samples import Moment, at_turn, finished
from render.text import draw_text

DISCORD_LIMIT = 8 * 1024 * 1024


def _gif(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "GIF"
    return image


def test_full_four_player_game_gives_one_frame_per_turn_under_8_mb(game_over: Moment) -> None:
    state = game_over.state
    data = render_replay(record_of(state))
    assert len(data) < DISCORD_LIMIT
    gif = _gif(data)
    frames = getattr(gif, "n_frames", 1)
    assert gif.size == image_size(4, size=REPLAY_SIZE, portrait=True)
    assert frames == state.turn + 1  # the opening, then every turn including the last
    assert gif.info["duration"] == FIRST_FRAME_MS
    gif.seek(frames - 1)
    assert gif.info["duration"] == LAST_FRAME_MS


def test_the_replay_loops_for_ever() -> None:
    """The replay is "an animated GIF (looping)": it plays the game again and again, not once
    to stop on the ranking."""
    gif = _gif(render_replay(record_of(at_turn(2, seed=1, turn=3).state), size=400))
    assert gif.info.get("loop") == 0, "0: loop for ever; without it a viewer plays it once"


def test_frames_follow_the_turns_and_end_on_the_final_state(game_over: Moment) -> None:
    frames = list(turn_states(record_of(game_over.state)))
    opening, opening_events = frames[0]
    assert opening.turn == 1
    assert opening_events == ()
    turns = [state.turn for state, _ in frames]
    assert turns == sorted(turns)
    final, _ = frames[-1]
    assert final == game_over.state


def test_the_last_frame_shows_the_final_ranking(
    game_over: Moment, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The panel's texts, caught on their way to drawing, frame by frame (each begins with its
    title): every frame but the last is titled with its turn; the last says the game is over
    and why, and ranks the seats #1 to #4; no earlier frame ranks them."""
    drawn: list[str] = []

    def recording(image: Image.Image, xy: tuple[float, float], text: str, **how: Any) -> None:
        drawn.append(text)
        draw_text(image, xy, text, **how)

    monkeypatch.setattr(panel, "draw_text", recording)
    state = game_over.state
    render_replay(record_of(state))
    titles = [i for i, text in enumerate(drawn) if text.startswith(("Turn ", "Game over"))]
    assert len(titles) == state.turn + 1, "a title on every frame"
    *turns, last = titles
    assert all(drawn[i].startswith("Turn ") for i in turns)
    assert drawn[last : last + 2] == ["Game over", "all rugs laid"]
    assert [text for text in drawn[last:] if text.startswith("#")] == ["#1", "#2", "#3", "#4"]
    assert not any(text.startswith("#") for text in drawn[:last]), "ranked at the end alone"


@pytest.mark.parametrize("variant", list(Variant), ids=lambda variant: variant.value)
def test_each_frame_marks_the_path_payment_and_rug_of_its_whole_turn(variant: Variant) -> None:
    """A turn's frame is drawn from every event of that turn, not its last action's alone:
    together the frames tell each event of the game once, and each turn's frame marks the
    path Assam walked, the region paid for where a tax was paid, and the rug laid."""
    record = record_of(finished(4, seed=7, variant=variant).state)
    told = [event for _, events in replay_events(record) for event in events]
    frames = list(turn_states(record))
    assert [event for _, events in frames for event in events] == told
    taxed = laid = 0
    for _, events in frames[1:]:
        marks = marks_from_events(events)
        walks = [event for event in events if isinstance(event, AssamMoved)]
        assert walks, "every turn walks Assam"
        assert marks.path is walks[-1]
        if any(isinstance(event, TaxPaid) for event in events):
            assert marks.paid_region
            taxed += 1
        if any(isinstance(event, RugPlaced) for event in events):
            assert marks.last_rug
            laid += 1
    assert taxed > 0
    assert laid > 0


@pytest.mark.parametrize("variant", list(Variant), ids=lambda variant: variant.value)
def test_each_frame_draws_the_marks_of_its_whole_turn(variant: Variant) -> None:
    """Each frame after the opening is the board of its turn with every mark that turn's
    events tell (the path in its colour on every one, the frame of the rug laid where one was
    laid), none of which the unmarked board of the same moment shows."""
    record = record_of(finished(3, seed=7, variant=variant).state)
    turns = list(turn_states(record))
    frames = replay_frames(record, size=320)
    assert len(frames) == len(turns)
    assert frames[0] == board_image(turns[0][0], size=320, portrait=True)
    laid = 0
    for frame, (state, events) in zip(frames[1:], turns[1:], strict=True):
        final = state.is_over
        marks = marks_from_events(events)
        assert frame == board_image(state, marks, size=320, final=final, portrait=True)
        plain = board_image(state, TurnMarks(), size=320, final=final, portrait=True)
        shown = {colour for _, colour in frame.getcolors(1 << 20) or ()}
        unmarked = {colour for _, colour in plain.getcolors(1 << 20) or ()}
        assert PATH in shown - unmarked, state.turn
        if marks.last_rug:
            assert LAST_RUG in shown - unmarked, state.turn
            laid += 1
    assert laid > 0


def test_resigned_game_replays_and_is_deterministic() -> None:
    start = at_turn(3, seed=2, turn=4)
    record = record_of(start.state)
    extras = {"resignations": [[len(record.actions), 1], [len(record.actions), 2]]}
    resigned = Record(
        record.players, record.variant, record.first_player, record.piles, record.actions, extras
    )
    states = [state for state, _ in turn_states(resigned)]
    assert states[-1].is_over
    assert states[-1].eliminated == (1, 2)
    first, second = render_replay(resigned, size=400), render_replay(resigned, size=400)
    assert first == second
    assert _gif(first).size == image_size(3, size=400, portrait=True)


def test_a_record_that_does_not_replay_is_refused() -> None:
    record = record_of(at_turn(2, seed=1, turn=2).state)
    broken = Record(
        record.players,
        record.variant,
        record.first_player,
        record.piles,
        (*record.actions, "a1a2", "a1a2"),
        {},
    )
    with pytest.raises(ReplayError):
        render_replay(broken)
