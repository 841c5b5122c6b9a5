"""A player's own games as they read them, in English, French and Ukrainian: the private list
of their open games and the direct message when their turn begins."""

# ruff: noqa: RUF001  (Ukrainian text on purpose: Cyrillic letters look like Latin ones)

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from bot.presentation.messages import LANGUAGES, text
from bot.presentation.player_games import my_games_post, turn_dm_closed_text, turn_dm_text
from bot.presentation.presenter import EMBED_DESCRIPTION_LIMIT
from bot.services.views import OpenGame, Player, TurnNotice

ME, ANNA = 11, 12
PLAYERS = (
    Player(ME, 0, name="Moi"),
    Player(ANNA, 1, name="Anna"),
    Player(None, 2, ai_level="hard"),
)
LINK = "https://discord.com/channels/1/20/300"
SNOWFLAKE = 1_312_345_678_901_234_567
"""An id as long as Discord's are today (19 digits)."""
GAME = 4_812_345
"""A game number of a bot that has run for years."""


def notice(locale: str, paid_to_you=((1, 3),), you_paid=((2, 1),)) -> TurnNotice:  # type: ignore[no-untyped-def]
    return TurnNotice(7, 1, 20, 300, locale, ME, 0, PLAYERS, paid_to_you, you_paid)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            "It is your turn in Marrakech game #7: " + LINK + "\n"
            "Since your last turn: Anna paid you 3 dirhams; you paid 🤖 AI (hard) 1 dirham.",
        ),
        (
            "fr",
            "C'est votre tour dans la partie de Marrakech n° 7 : " + LINK + "\n"
            "Depuis votre dernier tour : Anna vous a payé une dîme de 3 dirhams ; "
            "vous avez payé une dîme de 1 dirham à 🤖 IA (difficile).",
        ),
        (
            "uk",
            "Ваш хід у грі Марракеш №7: " + LINK + "\n"
            "Від вашого попереднього ходу: Anna платить вам 3 дирхами; "
            "ви заплатили гравцю 🤖 ШІ (складний) 1 дирхам.",
        ),
    ],
)
def test_the_turn_message_links_the_turn_and_says_who_paid(language: str, expected: str) -> None:
    assert turn_dm_text(notice(language)) == expected


@pytest.mark.parametrize("language", ["en", "fr", "uk"])
def test_a_turn_without_payments_has_the_link_alone(language: str) -> None:
    text = turn_dm_text(notice(language, (), ()))
    assert text.count("\n") == 0
    assert text.endswith(LINK)


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", "direct messages are closed"), ("fr", "messages privés"), ("uk", "особисті")],
)
def test_closed_direct_messages_are_told_with_a_mention(language: str, words: str) -> None:
    line = turn_dm_closed_text(ME, language)
    assert line.startswith(f"<@{ME}>")
    assert words in line


@pytest.mark.parametrize(
    ("language", "lobby", "mine", "theirs", "empty"),
    [
        ("en", "lobby", "your turn", "waiting for <@12>", "no open game"),
        ("fr", "inscriptions", "votre tour", "au tour de <@12>", "aucune partie"),
        ("uk", "набір гравців", "ваш хід", "хід: <@12>", "жодній"),
    ],
)
def test_my_games_says_whose_turn_with_links(
    language: str, lobby: str, mine: str, theirs: str, empty: str
) -> None:
    games = [
        OpenGame(1, 5, 20, False, 300, PLAYERS[0]),
        OpenGame(2, 5, 21, False, None, PLAYERS[1]),
        OpenGame(3, 5, 22, True, 302, None),
    ]
    description = my_games_post(games, ME, language).embed.description or ""
    first, second, third = description.split("\n")
    assert "<#20>" in first
    assert mine in first
    assert "https://discord.com/channels/5/20/300" in first
    assert theirs in second
    assert "https://" not in second, "no message recorded: no link"
    assert lobby in third
    assert "https://discord.com/channels/5/22/302" in third
    nothing = my_games_post([], ME, language).embed.description or ""
    assert empty in nothing


def test_my_games_says_the_ai_plays_a_seat_handed_over_and_how_to_take_it_back() -> None:
    """A seat the AI took over after timeouts is played by the AI until `/marrakech rejoin`:
    whoever's turn it is, the person is told the AI plays their seat and how to take it back
    (not that the game waits for the AI, nor that it is their turn)."""
    handed = dataclasses.replace(PLAYERS[0], autoplay=True)
    assert handed.user_id == ME
    for to_play in (handed, PLAYERS[1]):
        game = OpenGame(1, 5, 20, False, 300, to_play, yours_to_ai=True)
        (line,) = (my_games_post([game], ME, "en").embed.description or "").split("\n")
        assert "the AI plays your seat: `/marrakech rejoin` takes it back" in line, line
        assert "your turn" not in line
        assert "waiting for" not in line


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "paused until you take your seat back: `/marrakech rejoin`"),
        ("fr", "en pause jusqu'à ce que vous repreniez votre place : `/marrakech reprendre`"),
        ("uk", "на паузі, доки ви не повернете своє місце: `/марракеш повернутися`"),
    ],
)
def test_my_games_says_a_paused_game_waits_for_me_to_take_my_seat_back(
    language: str, said: str
) -> None:
    handed = dataclasses.replace(PLAYERS[0], autoplay=True)
    game = OpenGame(1, 5, 20, False, 300, handed, yours_to_ai=True, paused=True)
    (line,) = (my_games_post([game], ME, language).embed.description or "").split("\n")
    assert said in line, line


@pytest.mark.parametrize(
    ("language", "theirs", "rejoin"),
    [
        ("en", "waiting for 🤖 AI for <@12>", "/marrakech rejoin"),
        ("fr", "au tour de 🤖 IA pour <@12>", "/marrakech reprendre"),
        ("uk", "хід: 🤖 ШІ замість <@12>", "/марракеш повернутися"),
    ],
)
def test_my_games_tells_only_the_person_a_paused_game_waits_for_to_take_their_seat_back(
    language: str, theirs: str, rejoin: str
) -> None:
    """A paused game waits for the people whose seat the AI plays: another player in it (one
    whose seat went out of the game, say) reads whose turn it is, not how to rejoin."""
    anna_handed = dataclasses.replace(PLAYERS[1], autoplay=True)
    game = OpenGame(1, 5, 20, False, 300, anna_handed, yours_to_ai=False, paused=True)
    (line,) = (my_games_post([game], ME, language).embed.description or "").split("\n")
    assert theirs in line, line
    assert rejoin not in line, line


@pytest.mark.parametrize(
    ("language", "theirs"),
    [
        ("en", "waiting for 🤖 AI for <@12>"),
        ("fr", "au tour de 🤖 IA pour <@12>"),
        ("uk", "хід: 🤖 ШІ замість <@12>"),
    ],
)
def test_my_games_does_not_say_a_seat_the_ai_plays_waits_for_its_person_away(
    language: str, theirs: str
) -> None:
    """Anna, whose seat the AI plays, is away: the game waits for the AI, not for her return,
    so her line names the AI playing for her and no moment she is away until."""
    anna_handed = dataclasses.replace(PLAYERS[1], autoplay=True)
    away = {ANNA: datetime(2026, 12, 8, 14, tzinfo=UTC)}
    for paused in (False, True):
        game = OpenGame(1, 5, 20, False, 300, anna_handed, yours_to_ai=False, paused=paused)
        (line,) = (my_games_post([game], ME, language, away).embed.description or "").split("\n")
        assert theirs in line, line
        assert "<t:" not in line, line


def test_my_games_says_until_when_the_player_it_waits_for_is_away_with_the_weekday() -> None:
    """Anna is away: the game waiting for her says until when, as Discord writes a moment with
    its weekday in each reader's own time zone ("Tuesday, 8 December 2026 14:00")."""
    until = datetime(2026, 12, 8, 14, tzinfo=UTC)
    game = OpenGame(1, 5, 20, False, 300, PLAYERS[1], yours_to_ai=False, paused=False)
    (line,) = (my_games_post([game], ME, "en", {ANNA: until}).embed.description or "").split("\n")
    assert f"away until <t:{int(until.timestamp())}:F>" in line, line


@pytest.mark.parametrize("language", LANGUAGES)
def test_my_games_lists_the_games_that_fit_an_embed_and_counts_the_rest(language: str) -> None:
    """Discord refuses an embed description over 4,096 characters, and the member would get no
    list at all: a busy player's games (lobbies, their turn while they are away, another's turn
    while that person is away, a seat to take back), numbered in the millions, with ids of 19
    digits, are listed whole and in order as far as they fit, and the rest counted."""
    until = datetime(2026, 12, 8, 14, tzinfo=UTC)
    me = Player(SNOWFLAKE, 0)
    games = []
    for n in range(30):
        other = Player(SNOWFLAKE + 1 + n, 1)
        waiting = OpenGame(GAME + n, SNOWFLAKE, SNOWFLAKE + n, False, SNOWFLAKE + n, other)
        games.append(
            [
                waiting,
                dataclasses.replace(waiting, to_play=me),
                dataclasses.replace(waiting, lobby=True, to_play=None),
                dataclasses.replace(
                    waiting,
                    to_play=dataclasses.replace(me, autoplay=True),
                    yours_to_ai=True,
                    paused=True,
                ),
            ][n % 4]
        )
    away = {SNOWFLAKE + n: until for n in range(31)}
    mine_first = [games[n] for n in range(30) if n % 4 in (1, 3)]
    mine_first += [games[n] for n in range(30) if n % 4 in (0, 2)]
    lines = [
        my_games_post([game], SNOWFLAKE, language, away).embed.description for game in mine_first
    ]
    description = my_games_post(games, SNOWFLAKE, language, away).embed.description or ""
    assert len(description) <= EMBED_DESCRIPTION_LIMIT
    *listed, more = description.split("\n")
    assert listed == lines[: len(listed)], "whole lines, those waiting for the member first"
    assert more == text("mygames.more", language, count=len(games) - len(listed))


def test_my_games_lists_the_games_waiting_for_the_member_first() -> None:
    """Their turn and a paused game waiting for them to take their seat back come before a
    lobby, another's turn and a seat the AI plays while the game goes on, each part in the order
    the games came: with more games than one answer takes, those left out are never the ones
    waiting for the member."""
    other, me = Player(ANNA, 1), Player(ME, 0)
    base = OpenGame(GAME, None, 5, False, None, other)
    games = [
        base,
        dataclasses.replace(base, game_id=GAME + 1, lobby=True, to_play=None),
        dataclasses.replace(base, game_id=GAME + 2, to_play=me),
        dataclasses.replace(
            base, game_id=GAME + 3, to_play=dataclasses.replace(me, autoplay=True), yours_to_ai=True
        ),
        dataclasses.replace(
            base,
            game_id=GAME + 4,
            to_play=dataclasses.replace(me, autoplay=True),
            yours_to_ai=True,
            paused=True,
        ),
        dataclasses.replace(base, game_id=GAME + 5, to_play=me),
    ]
    description = my_games_post(games, ME, "en").embed.description or ""
    numbers = [int(line.split("**#")[1].split("**")[0]) for line in description.split("\n")]
    assert numbers == [GAME + 2, GAME + 4, GAME + 5, GAME, GAME + 1, GAME + 3]
