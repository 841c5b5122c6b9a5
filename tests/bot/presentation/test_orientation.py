"""Turning Assam by the screen's directions: the buttons name the direction he will face, with
an arrow pointing there, in screen order; the one a player clicks is the direction the story
tells and the engine's next state holds; and the picture draws the choices."""

from __future__ import annotations

import dataclasses
import random
import re
from functools import cache

import pytest

import engine
from bot.presentation import images, messages, narration, presenter
from bot.presentation.presenter import FACING_ARROWS, orientation_choices
from bot.services import GameInfo, GameStatus, GameView, Player
from bot.workers import jobs
from engine import Facing, GameState, Phase

ARROW_FACING = {arrow: facing for facing, arrow in FACING_ARROWS.items()}


@cache
def decision_states() -> dict[tuple[Phase, Facing], GameState]:
    """A state waiting for Assam to be turned, for each phase (ORIENT in the standard game,
    ROTATE in the variant) and each way he may be facing then."""
    found: dict[tuple[Phase, Facing], GameState] = {}
    for variant in ("standard", "rotate-after"):
        rng = random.Random(0)
        state = engine.new_game(engine.deal(2, variant, rng))
        while not state.is_over:
            if state.phase in (Phase.ORIENT, Phase.ROTATE):
                found.setdefault((state.phase, state.facing), state)
            state, _ = engine.apply(state, rng.choice(engine.legal_actions(state)))
    assert len(found) == 8, sorted(found)
    return found


def view_of(state: GameState, language: str = "en") -> GameView:
    game = GameInfo(
        id=12,
        guild_id=1,
        channel_id=2,
        host_id=100,
        status=GameStatus.RUNNING,
        seats_wanted=state.players,
        variant=state.config.variant.value,
        turn_limit_seconds=None,
        seed_sha256="f" * 64,
        seq=7,
        locale=language,
    )
    players = tuple(Player(100 + seat, seat) for seat in range(state.players))
    return GameView(game, players, state)


@pytest.mark.parametrize(
    ("facing", "expected"),
    [
        (Facing.N, [("L", "⬅️", "West"), ("S", "⬆️", "North (straight on)"), ("R", "➡️", "East")]),
        (Facing.S, [("R", "⬅️", "West"), ("S", "⬇️", "South (straight on)"), ("L", "➡️", "East")]),
        (Facing.E, [("L", "⬆️", "North"), ("S", "➡️", "East (straight on)"), ("R", "⬇️", "South")]),
        (Facing.W, [("R", "⬆️", "North"), ("S", "⬅️", "West (straight on)"), ("L", "⬇️", "South")]),
    ],
)
def test_the_orient_buttons_name_where_assam_will_face_in_screen_order(
    facing: Facing, expected: list[tuple[str, str, str]]
) -> None:
    """Straight on in the middle; west on the left, east on the right, north before south."""
    choices = orientation_choices(decision_states()[(Phase.ORIENT, facing)], "en")
    assert [(c.action, c.emoji, c.label) for c in choices] == expected


@pytest.mark.parametrize(
    ("facing", "expected"),
    [
        (Facing.N, [("L", "⬅️", "West"), ("R", "➡️", "East")]),
        (Facing.S, [("R", "⬅️", "West"), ("L", "➡️", "East")]),
        (Facing.E, [("L", "⬆️", "North"), ("R", "⬇️", "South")]),
        (Facing.W, [("R", "⬆️", "North"), ("L", "⬇️", "South")]),
    ],
)
def test_the_variant_s_rotate_buttons_name_the_quarter_turns_the_same_way(
    facing: Facing, expected: list[tuple[str, str, str]]
) -> None:
    choices = orientation_choices(decision_states()[(Phase.ROTATE, facing)], "en")
    assert [(c.action, c.emoji, c.label) for c in choices] == expected


@pytest.mark.parametrize("language", messages.LANGUAGES)
@pytest.mark.parametrize("key", sorted(decision_states()), ids=lambda key: f"{key[0]}-{key[1]}")
def test_each_arrow_points_where_the_engine_turns_assam(
    language: str, key: tuple[Phase, Facing]
) -> None:
    state = decision_states()[key]
    choices = orientation_choices(state, language)
    assert sorted(c.action for c in choices) == sorted(engine.legal_actions(state))
    straight = messages.text("button.straight_on", language, direction="")
    for choice in choices:
        facing = engine.orient(state.facing, choice.action)
        assert choice.emoji is not None
        assert ARROW_FACING[choice.emoji] == facing
        direction = messages.text(f"button.direction.{facing.name}", language)
        assert choice.label.startswith(direction)
        assert (choice.action == "S") == (choice.label != direction)
        assert (choice.action == "S") == choice.label.endswith(straight.strip())
        assert len(choice.label) <= 80


@pytest.mark.parametrize("language", messages.LANGUAGES)
@pytest.mark.parametrize("key", sorted(decision_states()), ids=lambda key: f"{key[0]}-{key[1]}")
def test_the_direction_clicked_is_the_one_the_story_tells_and_the_state_holds(
    language: str, key: tuple[Phase, Facing]
) -> None:
    state = decision_states()[key]
    view = view_of(state, language)
    for choice in orientation_choices(state, language):
        after, events = engine.apply(state, choice.action)
        assert ARROW_FACING[choice.emoji or ""] == after.facing
        turned = [e for e in events if isinstance(e, engine.AssamTurned | engine.AssamRotated)]
        assert [e.facing for e in turned] == [after.facing]
        (line,) = narration.narrate(view, turned, language)
        facing_word = messages.text(f"facing.{after.facing.name}", language)
        assert facing_word in line
        others = {f for f in Facing if f is not after.facing}
        assert not any(messages.text(f"facing.{f.name}", language) in line for f in others)


@pytest.mark.parametrize("language", messages.LANGUAGES)
@pytest.mark.parametrize("key", sorted(decision_states()), ids=lambda key: f"{key[0]}-{key[1]}")
def test_each_button_names_in_words_the_direction_the_story_then_tells(
    language: str, key: tuple[Phase, Facing]
) -> None:
    """On a phone the button's word is all a player reads before Assam walks: it is the word
    of the direction the click's story tells, as a whole word, and no other direction's."""
    state = decision_states()[key]
    view = view_of(state, language)
    straight = messages.text("button.straight_on", language, direction="").strip()
    words = {f: messages.text(f"button.direction.{f.name}", language).casefold() for f in Facing}

    def says(word: str, line: str) -> bool:
        return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", line.casefold()) is not None

    for choice in orientation_choices(state, language):
        after, events = engine.apply(state, choice.action)
        word = choice.label.removesuffix(straight).strip().casefold()
        assert word == words[after.facing], (choice.label, after.facing)
        turned = [e for e in events if isinstance(e, engine.AssamTurned | engine.AssamRotated)]
        (line,) = narration.narrate(view, turned, language)
        assert says(word, line), (choice.label, line)
        others = [w for f, w in words.items() if f is not after.facing]
        assert not any(says(other, line) for other in others), (choice.label, line)


def test_the_story_says_where_assam_was_faced() -> None:
    state = decision_states()[(Phase.ORIENT, Facing.S)]
    view = view_of(state)
    _, events = engine.apply(state, "R")  # a right turn, for a man facing south, is west
    story = narration.narrate(view, events, "en")
    assert story[0] == f"<@{100 + (state.to_move or 0)}> faced Assam west."
    kept = narration.narrate(view, engine.apply(state, "S")[1], "fr")[0]
    assert kept.endswith("laisse Assam dans son orientation (vers le sud).")
    faced = narration.narrate(view, engine.apply(state, "L")[1], "uk")[0]
    assert faced.endswith("повертає Ассама на схід.")


@pytest.mark.parametrize("phase", [Phase.ORIENT, Phase.ROTATE])
def test_the_decision_s_picture_draws_the_choices(phase: Phase) -> None:
    state = decision_states()[(phase, Facing.E)]
    post = presenter.turn_post(view_of(state))
    assert post.image is not None
    assert post.image.show_choices
    assert not post.image.numbered
    picture = images.picture_of(post.image)
    assert picture.show_choices
    without = dataclasses.replace(picture, show_choices=False)
    assert jobs.board_png(picture) != jobs.board_png(without), "the worker draws the arrows"


def test_no_other_picture_draws_the_choices() -> None:
    rng = random.Random(3)
    state = engine.new_game(engine.deal(3, "standard", rng))
    while not state.is_over:
        if state.phase not in (Phase.ORIENT, Phase.ROTATE) and state.to_move is not None:
            image = presenter.turn_post(view_of(state)).image
            assert image is not None
            assert not images.picture_of(image).show_choices
        state, _ = engine.apply(state, rng.choice(engine.legal_actions(state)))
