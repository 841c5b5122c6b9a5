"""What the channel reads when a game pauses for want of a person, when it ends abandoned, and
the "since your last turn" line of a turn's ping, in each language."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

import engine
from bot.presentation import presenter, story
from bot.presentation.messages import text
from bot.presentation.player_games import turn_dm_text
from bot.presentation.since import since_last_turn_line
from bot.services import EndReason, GameStatus, GameView, Player
from bot.services.views import SinceLastTurn, TurnNotice
from tests.bot.presentation.test_presentation import game_row

LANGUAGES = ("en", "fr", "uk")
ABANDON_AT = datetime(2026, 3, 2, 12, tzinfo=UTC)


def paused_view(language: str) -> GameView:
    """A 3-player game at the start of a round, every seat played by the AI: seat 0 was
    handed over by user 100, who may take it back."""
    state = engine.new_game(engine.deal(3, "standard", first_player=0))
    players = (
        Player(100, 0, autoplay=True, timeouts=3, name="Alice"),
        Player(None, 1, ai_level="easy"),
        Player(None, 2, ai_level="hard"),
    )
    game = replace(game_row(), locale=language, seats_wanted=3)
    return GameView(game, players, state, paused_until=ABANDON_AT)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_paused_game_calls_those_who_may_take_their_seat_back(language: str) -> None:
    post = presenter.turn_post(paused_view(language), ping=True)
    assert post.pings == (100,)
    assert post.content is not None
    assert "<@100>" in post.content
    assert "#12" in post.content or "№12" in post.content or "n° 12" in post.content
    description = post.embed.description or ""
    assert f"<t:{int(ABANDON_AT.timestamp())}:R>" in description, "when it ends"
    assert "rejoin" in description or "reprendre" in description or "повернутися" in description
    quiet = presenter.turn_post(paused_view(language))
    assert quiet.content is None
    assert quiet.pings == ()


def test_a_paused_game_calls_every_person_who_may_take_their_seat_back() -> None:
    """With two seats handed over to the AI, the paused ping names both people, and pings
    both."""
    view = paused_view("en")
    players = (view.players[0], Player(101, 1, autoplay=True, timeouts=3), view.players[2])
    post = presenter.turn_post(replace(view, players=players), ping=True)
    assert post.pings == (100, 101)
    assert post.content is not None
    assert "<@100>, <@101>: `/marrakech rejoin`" in post.content


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_abandoned_game_says_so_everywhere(language: str) -> None:
    view = paused_view(language)
    ended = replace(
        view,
        game=replace(view.game, status=GameStatus.ABORTED, end_reason=EndReason.ABANDONED),
        paused_until=None,
    )
    end = presenter.aborted_post(ended).embed.description or ""
    lobby = presenter.lobby_post(ended).embed.description or ""
    line = story.turn_line(ended, 1)
    abort = presenter.aborted_post(replace(ended, game=replace(ended.game, end_reason=None)))
    for said in (end, lobby, line):
        assert "<@None>" not in said
        assert "None" not in said
    assert end != abort.embed.description
    assert "12" in end
    assert end == text("abandon.done", language, game_id=ended.id)
    assert lobby == text("lobby.abandoned", language), "the first message, never aborted by ?"
    assert line.endswith(text("story.abandoned", language))


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_turn_ping_says_who_paid_you_and_whom_you_paid(language: str) -> None:
    state = engine.new_game(engine.deal(3, "standard", first_player=0))
    players = tuple(Player(100 + seat, seat, name=f"P{seat}") for seat in range(3))
    since = SinceLastTurn(paid_to_you=((1, 3),), you_paid=((2, 5),))
    game = replace(game_row(), locale=language, seats_wanted=3)
    view = GameView(game, players, state, since_last_turn=since)
    post = presenter.turn_post(view, ping=True)
    assert post.content is not None
    first, second = post.content.split("\n")
    assert "<@100>" in first
    assert "<@101>" in second, "who paid you"
    assert "3" in second
    assert "<@102>" in second, "whom you paid"
    assert "5" in second
    assert post.pings == (100,), "only the player to move is pinged"
    nothing = presenter.turn_post(replace(view, since_last_turn=SinceLastTurn()), ping=True)
    assert nothing.content is not None
    assert "\n" not in nothing.content


def test_the_since_line_lists_every_payment_in_both_directions_in_order() -> None:
    """Two seats that paid you and two you paid each get their clause, those who paid you
    first, each in the order given, joined one after another."""
    since = SinceLastTurn(paid_to_you=((1, 3), (2, 1)), you_paid=((3, 5), (1, 2)))
    line = since_last_turn_line(since, lambda seat: f"P{seat}", "en")
    assert line == (
        "Since your last turn: P1 paid you 3 dirhams; P2 paid you 1 dirham; "
        "you paid P3 5 dirhams; you paid P1 2 dirhams."
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_what_you_paid_has_its_unit_as_what_you_were_paid(language: str) -> None:
    """Both halves of the line name the dirhams, in the plural form of their count."""
    for count in (1, 2, 5, 21):
        paid_you = text("turn_dm.paid_you", language, player="P", dirhams=count)
        you_paid = text("turn_dm.you_paid", language, player="P", dirhams=count)
        unit = paid_you.split()[-1]
        assert unit in you_paid.split(), (count, you_paid)


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "Since this seat's last turn:"),
        ("fr", "Depuis le dernier tour de cette place :"),
        ("uk", "Від попереднього ходу цього місця:"),
    ],
)
def test_a_seat_that_changed_hands_speaks_of_its_own_last_turn(language: str, said: str) -> None:
    """A substitute never had a last turn there: what the seat was paid, and paid, since its
    own last turn is told as the seat's, in the turn's ping and in the direct message."""
    state = engine.new_game(engine.deal(3, "standard", first_player=0))
    players = (
        Player(100, 0, name="Sub", stands_in_for=99),
        *(Player(100 + seat, seat, name=f"P{seat}") for seat in (1, 2)),
    )
    since = SinceLastTurn(paid_to_you=((1, 3),), you_paid=((2, 5),))
    game = replace(game_row(), locale=language, seats_wanted=3)
    view = GameView(game, players, state, since_last_turn=since)
    post = presenter.turn_post(view, ping=True)
    assert post.content is not None
    assert post.content.split("\n")[1].startswith(said), post.content
    notice = TurnNotice(12, 5, 22, 302, language, 100, 0, players, ((1, 3),), ((2, 5),))
    assert turn_dm_text(notice).split("\n")[1].startswith(said)
