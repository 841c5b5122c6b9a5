"""Small points of wording players stumbled on."""

# ruff: noqa: RUF001  (Ukrainian text on purpose: Cyrillic letters look like Latin ones)

from __future__ import annotations

import dataclasses
import json
import random
import re
from pathlib import Path

import engine
from bot.edge import errors as edge_errors
from bot.presentation import messages, names, presenter, story
from bot.services import GameView
from bot.services import errors as service_errors
from engine import Facing, Phase
from tests.bot.presentation.test_story import later_view

LOCALES = Path(__file__).resolve().parents[3] / "bot" / "presentation" / "locales"


def _state_at(variant: str, phase: Phase) -> engine.GameState:
    rng = random.Random(3)
    state = engine.new_game(engine.deal(2, variant, rng))
    for _ in range(200):
        if state.phase is phase:
            return state
        outcomes = engine.chance_outcomes(state)
        action = outcomes[0][0] if outcomes else engine.legal_actions(state)[0]
        state, _ = engine.apply(state, action)
    raise AssertionError(f"never reached {phase}")


def test_the_rotate_step_after_a_rug_does_not_ask_for_another_rug() -> None:
    state = _state_at("rotate-after", Phase.ROTATE)
    for language in messages.LANGUAGES:
        prompt = presenter._prompt(state, 42, language)
        assert prompt == messages.text("turn.prompt.rotate", language, user="<@42>")


def test_the_rotate_step_offers_no_straight_on_in_any_language() -> None:
    """After the rug Assam turns a quarter left or right, never straight on (R12): the words
    over the two buttons offer no third way, and are not the orient step's."""
    state = _state_at("rotate-after", Phase.ROTATE)
    for language in messages.LANGUAGES:
        prompt = presenter._prompt(state, 42, language)
        assert prompt != messages.text("turn.prompt.orient", language, user="<@42>")
        straight_on = messages.text("drill.turn.S", language)
        assert straight_on.casefold() not in prompt.casefold(), (language, prompt)


def test_the_two_player_orient_step_still_names_the_rug_to_lay() -> None:
    state = _state_at("standard", Phase.ORIENT)
    prompt = presenter._prompt(state, 42, "en")
    assert "\n" in prompt


def test_the_two_player_roll_step_of_the_variant_names_the_rug_to_lay() -> None:
    """Where Assam turns after the rug, a turn begins with the roll: the rug it reveals (R2)
    is named there already, as the picture's panel frames it."""
    state = _state_at("rotate-after", Phase.ROLL)
    assert state.to_move is not None
    color = state.next_rug_color(state.to_move)
    assert color is not None
    for language in messages.LANGUAGES:
        name = names.color_name(color, language)
        must = messages.text("turn.must_lay", language, user="<@42>", color=name)
        assert presenter._prompt(state, 42, language).endswith("\n" + must), language


def test_a_two_player_prompt_names_the_rug_the_picture_frames_even_a_second_colour() -> None:
    """Each of the two seats lays two colours from a shuffled pile: the turn's words name the
    next rug of that pile (`next_rug_color`, the one the picture's panel frames), not the
    seat's first colour."""
    for seed in range(40):
        rng = random.Random(seed)
        state = engine.new_game(engine.deal(2, "standard", rng))
        while not state.is_over:
            mover = state.to_move
            if state.phase is Phase.ORIENT and mover is not None:
                framed = state.next_rug_color(mover)
                if framed is not None and framed != engine.seat_colors(2, mover)[0]:
                    for language in messages.LANGUAGES:
                        color = names.color_name(framed, language)
                        must = messages.text("turn.must_lay", language, user="<@42>", color=color)
                        assert presenter._prompt(state, 42, language).endswith("\n" + must)
                    return
            outcomes = engine.chance_outcomes(state)
            action = (
                rng.choice(outcomes)[0] if outcomes else rng.choice(engine.legal_actions(state))
            )
            state, _ = engine.apply(state, action)
    raise AssertionError("no turn whose next rug is the seat's second colour")


def test_french_writes_numero_with_one_space_everywhere() -> None:
    catalogue = json.loads((LOCALES / "fr.json").read_text(encoding="utf-8"))
    for key, value in catalogue.items():
        for match in re.finditer("n°(.?)", value):
            assert match.group(1) == " ", f"{key}: {value!r}"


def test_ukrainian_names_the_doer_first_and_the_payment_reads_naturally() -> None:
    assert messages.text("lobby.cancelled", "uk", user="Оля") == "Оля скасовує цю гру."
    paid = messages.text("event.paid", "uk", payer="А", payee="Б", paid=2, color="жовтий", owed=2)
    assert paid.endswith(": поруч з Ассамом жовтий килим займає 2 клітинки.")


def _with_timeouts(view: GameView, seat: int, timeouts: int, *, autoplay: bool = False) -> GameView:
    players = tuple(
        dataclasses.replace(player, timeouts=timeouts, autoplay=autoplay)
        if player.seat == seat
        else player
        for player in view.players
    )
    return dataclasses.replace(view, players=players)


def test_a_turn_the_ai_played_for_a_player_out_of_time_says_so() -> None:
    view = later_view(3, seed=1)
    events = (
        engine.TurnStarted(seat=1, turn=5),
        engine.AssamTurned(seat=1, rotation="L", facing=Facing.W),
    )
    state = view.state
    assert state is not None
    shown = dataclasses.replace(view, previous_turn_events=events)
    played_by_them = story.turn_line(shown, state.turn - 1)
    assert "· 🟨 <@101>: faced Assam west" in played_by_them
    timed_out = story.turn_line(_with_timeouts(shown, 1, 1), state.turn - 1)
    assert "· 🟨 🤖 AI for <@101> (⏰ ran out of time): faced Assam west" in timed_out
    handed = story.turn_line(_with_timeouts(shown, 1, 3, autoplay=True), state.turn - 1)
    assert (
        "· 🟨 🤖 AI for <@101> (⏰ ran out of time 3 turns in a row: the AI plays their seat "
        "from now on; `/marrakech rejoin` takes it back): faced Assam west"
    ) in handed
    later = story.turn_line(_with_timeouts(shown, 1, 4, autoplay=True), state.turn - 1)
    assert "· 🟨 🤖 AI for <@101>: faced Assam west" in later, "told once, at the handover"
    for language in messages.LANGUAGES:
        shown_in = dataclasses.replace(
            _with_timeouts(shown, 1, 1),
            game=dataclasses.replace(shown.game, locale=language),
        )
        line = story.turn_line(shown_in, state.turn - 1)
        assert messages.text("ai.playing_for", language, user="<@101>") in line


def test_a_turn_under_way_is_its_player_s_though_their_last_one_ran_out() -> None:
    """The seat's count of timeouts in a row stands until its player ends a turn: the turn
    they are playing now is theirs, not the AI's, whatever the count says."""
    view = later_view(3, seed=1)
    state = view.state
    assert state is not None
    events = (
        engine.TurnStarted(seat=1, turn=state.turn),
        engine.AssamTurned(seat=1, rotation="L", facing=Facing.W),
    )
    shown = dataclasses.replace(view, turn_events=events)
    line = story.turn_line(_with_timeouts(shown, 1, 1), state.turn)
    assert "· 🟨 <@101>: faced Assam west" in line, line


def test_removing_a_channel_not_listed_names_the_channel() -> None:
    error = service_errors.ChannelNotListedError(77)
    for language in messages.LANGUAGES:
        answer = edge_errors.describe(error, language)
        assert answer is not None
        assert answer.startswith("<#77> ")
        assert answer != edge_errors.describe(
            service_errors.BadOptionError("channel", 77), language
        )
