"""A coached game says so where people look: the lobby's options and the result's note, in
English, French and Ukrainian, in place of the casual game's words."""

from __future__ import annotations

import dataclasses

import pytest

from bot.presentation import presenter
from bot.services import GameStatus, GameView, Player
from tests.bot.presentation.test_community import description, finished
from tests.bot.presentation.test_languages import game_row

LOBBY = {
    "en": "coached, never rated",
    "fr": "avec le coach, jamais classée",
    "uk": "з тренером, без рейтингу",
}
RESULT = {
    "en": "A coached game: never rated, no rating changed.",
    "fr": "Une partie avec le coach : jamais classée, aucune cote n'a changé.",
    "uk": "Гра з тренером: без рейтингу, рейтинги не змінилися.",
}


def coached(view: GameView) -> GameView:
    return dataclasses.replace(view, game=dataclasses.replace(view.game, coach=True, casual=True))


@pytest.mark.parametrize("locale", sorted(LOBBY))
def test_the_lobby_says_the_game_is_coached_and_never_rated(locale: str) -> None:
    lobby = GameView(game_row(locale, GameStatus.LOBBY, seq=0), (Player(100, None),))
    options = presenter.lobby_post(coached(lobby)).embed.fields[1].value or ""
    assert LOBBY[locale] in options


@pytest.mark.parametrize("locale", sorted(RESULT))
def test_the_result_says_the_game_was_coached_and_changed_no_rating(locale: str) -> None:
    text = description(presenter.final_post(coached(finished(locale))))
    assert RESULT[locale] in text
    casual_note = description(presenter.final_post(finished(locale, casual=True)))
    assert RESULT[locale] not in casual_note
