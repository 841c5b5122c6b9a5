"""The community's posts and the ratings wherever they show: the result's line per seat
("Amina 1,532 (+18)") in the order of the ranking and in the language's numbers, a casual
game's note, the leaderboard by rating with the provisional players after the others under a
line that says so and the AI levels in its footer, the stats with the rating, its chart, the
best and worst result and the record against each AI level, the lobby saying whether the game
is rated, and the history naming who won each game."""

# ruff: noqa: RUF001  (Ukrainian text on purpose: Cyrillic letters look like Latin ones)

from __future__ import annotations

import dataclasses
import random
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from PIL import Image

import engine
from bot.presentation import community, images, names, presenter, ratings
from bot.presentation.messages import LANGUAGES, text
from bot.services import GameStatus, GameView, Player
from bot.services.ratings import RatingService
from bot.services.reliability import Reliability
from bot.services.stats import StatsService, accuracy_of
from bot.services.views import (
    Accuracy,
    AiRecord,
    FinishedFor,
    Leaderboard,
    PastGame,
    PlayerRating,
    PlayerSummary,
    RatedPlayer,
    RatedResult,
    RatingChange,
)
from bot.storage.ratings import RatingRow
from bot.storage.stats import HistoryRow, PlayerStats
from bot.workers.pool import WorkerPool
from render import accuracy_strip, rating_chart
from render.text import draw_text
from tests.bot.presentation.test_languages import game_row

EMBED_LIMIT = 6000
"""The most characters Discord takes in an embed's texts together."""
SNOWFLAKE = 1_312_345_678_901_234_567
"""An id as long as Discord's are today (19 digits)."""
GAME = 9_812_345
"""A game number of a bot that has run for years."""

SUMMARY = PlayerSummary(
    100, games=4, wins=1, average_score=51.5, best_score=70, favourite_color="red"
)


def finished(locale: str = "en", *, casual: bool = False) -> GameView:
    """A finished 3-seat game: seat 1 an AI, the others people 100 and 102."""
    state = engine.new_game(engine.deal(3, "standard", first_player=0))
    while not state.is_over:
        actions = engine.legal_actions(state)
        state, _ = engine.apply(state, actions[len(actions) // 2])
    players = (Player(100, 0), Player(None, 1, ai_level="medium"), Player(102, 2))
    return GameView(game_row(locale, GameStatus.OVER, casual=casual), players, state)


def with_changes(view: GameView) -> GameView:
    changes = (
        RatingChange(0, 100, None, 1514, 1532, False),
        RatingChange(1, None, "medium", 1470, 1450, False),
        RatingChange(2, 102, None, 1500, 1493, True),
    )
    return dataclasses.replace(view, ratings=changes)


def description(post: presenter.Post) -> str:
    return post.embed.description or ""


# --- the result ------------------------------------------------------------------------------


def test_the_result_gives_each_seat_s_rating_and_change_in_ranking_order() -> None:
    view = with_changes(finished())
    text = description(presenter.final_post(view))
    assert "**Ratings**" in text
    assert "<@100> 1,532 (+18)" in text
    assert "🤖 AI (medium) 1,450 (\u221220)" in text
    assert "<@102> 1,493 (\u22127, provisional)" in text
    state = view.state
    assert state is not None
    assert state.outcome is not None
    order = [seat for group in state.outcome.ranking for seat in group]
    lines = [line for line in text.splitlines() if "(+" in line or "(\u2212" in line]
    shown = [next(c.seat for c in view.ratings if f"{c.after:,}" in line) for line in lines]
    assert shown == order


def test_a_seat_a_substitute_finished_is_rated_for_the_person_who_left_it() -> None:
    """Seat 2 was handed from 102 to 104: the rating change is 102's, named as 102."""
    view = with_changes(finished())
    handed = tuple(
        dataclasses.replace(player, user_id=104, stands_in_for=102) if player.seat == 2 else player
        for player in view.players
    )
    text = description(presenter.final_post(dataclasses.replace(view, players=handed)))
    assert "<@102> 1,493 (\u22127, provisional)" in text
    assert "<@104> 1," not in text


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_ratings_of_a_game_with_a_substitute_come_in_the_order_they_were_rated_in(
    language: str,
) -> None:
    """The seat that finished first was handed from 102 to 104 before anyone was out: 102 is
    rated as out first, last of the three, behind the AI and 100. Their line comes last, where
    they were rated, never first with a loss under a ranking whose first place is 104's; 104,
    not rated for this game, has no line, and each rated person is named once."""
    view = finished(language)
    state = view.state
    assert state is not None
    assert state.outcome is not None
    order = [seat for group in state.outcome.ranking for seat in group]
    first, second, third = order
    people = {0: 100, 2: 102}
    handed = tuple(
        dataclasses.replace(player, user_id=104, stands_in_for=102, left_with_out=0)
        if player.seat == first
        else player
        for player in view.players
    )
    rated = {first: 3, second: 1, third: 2}
    changes = tuple(
        RatingChange(
            seat,
            102 if seat == first else people.get(seat),
            None if seat in people else "medium",
            1500,
            1510 + seat,
            False,
            rated[seat],
        )
        for seat in range(3)
    )
    view = dataclasses.replace(view, players=handed, ratings=changes)
    shown = description(presenter.final_post(view)).splitlines()
    start = shown.index(RATINGS_TITLE[language]) + 1
    lines = [line for line in shown[start : start + 4] if re.search(r"\(\+\d+\)$", line)]
    assert [line.split(" 1")[0] for line in lines] == [
        names.seat_name(view, second, language),
        names.seat_name(view, third, language),
        "<@102>",
    ], shown
    assert not any(line.startswith("<@104> ") for line in lines)


RATINGS_TITLE = {"en": "**Ratings**", "fr": "**Cotes**", "uk": "**Рейтинги**"}


def test_the_result_writes_ratings_as_the_language_writes_numbers() -> None:
    fr = description(presenter.final_post(with_changes(finished("fr"))))
    assert "**Cotes**" in fr
    assert "<@100> 1\u202f532 (+18)" in fr
    assert "<@102> 1\u202f493 (\u22127, provisoire)" in fr
    uk = description(presenter.final_post(with_changes(finished("uk"))))
    assert "<@100> 1\u00a0532 (+18)" in uk


def test_a_casual_result_says_no_rating_changed_and_a_pending_one_says_nothing() -> None:
    casual = description(presenter.final_post(finished(casual=True)))
    assert "A casual game: no rating changed." in casual
    assert "**Ratings**" not in casual
    pending = description(presenter.final_post(finished()))
    assert "**Ratings**" not in pending
    assert "casual" not in pending


def test_a_change_has_its_sign() -> None:
    assert ratings.signed(18, "en") == "+18"
    assert ratings.signed(-7, "en") == "\u22127"
    assert ratings.signed(0, "en") == "±0"
    assert ratings.signed(1234, "fr") == "+1\u202f234"


def test_the_lobby_says_whether_the_game_is_rated() -> None:
    lobby = GameView(game_row("en", GameStatus.LOBBY, seq=0), (Player(100, None),))
    options = presenter.lobby_post(lobby).embed.fields[1].value or ""
    assert options.startswith("3 seats · standard rules · 1 h per turn · rated")
    casual = dataclasses.replace(lobby, game=dataclasses.replace(lobby.game, casual=True))
    assert "casual, not rated" in (presenter.lobby_post(casual).embed.fields[1].value or "")


CASUAL_LOBBY = {
    "en": "casual, not rated",
    "fr": "amicale, non classée",
    "uk": "товариська, без рейтингу",
}
RATED_LOBBY = {"en": "· rated", "fr": "· classée", "uk": "· рейтингова"}
CASUAL_RESULT = {
    "en": "A casual game: no rating changed.",
    "fr": "Une partie amicale : aucune cote n'a changé.",
    "uk": "Товариська гра: рейтинги не змінилися.",
}


@pytest.mark.parametrize("language", sorted(CASUAL_LOBBY))
def test_the_lobby_and_the_result_say_a_casual_game_is_not_rated_in_each_language(
    language: str,
) -> None:
    lobby = GameView(game_row(language, GameStatus.LOBBY, seq=0), (Player(100, None),))
    rated = presenter.lobby_post(lobby).embed.fields[1].value or ""
    assert RATED_LOBBY[language] in rated
    assert CASUAL_LOBBY[language] not in rated
    casual = dataclasses.replace(lobby, game=dataclasses.replace(lobby.game, casual=True))
    assert CASUAL_LOBBY[language] in (presenter.lobby_post(casual).embed.fields[1].value or "")
    result = description(presenter.final_post(finished(language, casual=True)))
    assert CASUAL_RESULT[language] in result
    assert CASUAL_RESULT[language] not in description(presenter.final_post(finished(language)))


def test_a_started_game_s_first_message_counts_the_seats_it_started_with() -> None:
    """A lobby for 3 started with 2: no seat looks open once the game is on, or over."""
    state = engine.new_game(engine.deal(2, "standard", random.Random(1)))
    for status in (GameStatus.RUNNING, GameStatus.OVER):
        game = game_row("en", status)
        assert game.seats_wanted == 3
        started = GameView(game, (Player(100, 0), Player(101, 1)), state)
        players, options = presenter.lobby_post(started).embed.fields
        assert players.name == "Players (2)"
        assert (options.value or "").startswith("2 seats · standard rules")


@pytest.mark.parametrize(
    ("language", "heading"),
    [("en", "Players (1/3)"), ("fr", "Joueurs (1/3)"), ("uk", "Гравці (1/3)")],
)
def test_an_open_lobby_counts_who_is_seated_out_of_its_seats(language: str, heading: str) -> None:
    """A lobby for 3 with its host alone: whoever looks sees one seated and three seats."""
    lobby = GameView(game_row(language, GameStatus.LOBBY, seq=0), (Player(100, None),))
    players, _ = presenter.lobby_post(lobby).embed.fields
    assert players.name == heading


# --- the leaderboard -------------------------------------------------------------------------


def test_the_leaderboard_ranks_by_rating_the_provisional_after_under_a_line() -> None:
    board = Leaderboard(
        players=(
            RatedPlayer(1, None, 1720, 30, False),
            RatedPlayer(2, None, 1610, 10, False),
            RatedPlayer(3, None, 1800, 4, True),
            RatedPlayer(4, None, 1480, 1, True),
        ),
        references=(
            RatedPlayer(None, "easy", 1380, 50, False),
            RatedPlayer(None, "hard", 1905, 8, True),
            RatedPlayer(None, "medium", 1450, 20, False),
        ),
        provisional_games=10,
    )
    post = community.leaderboard_post(board, "en")
    assert description(post).splitlines() == [
        "**1.** <@1>: **1,720** · 30 rated games",
        "**2.** <@2>: **1,610** · 10 rated games",
        "Provisional, fewer than 10 rated games:",
        "**3.** <@3>: **1,800** · 4 rated games",
        "**4.** <@4>: **1,480** · 1 rated game",
    ]
    assert post.embed.footer.text == (
        "AI reference players here: easy 1,380 · hard 1,905 · medium 1,450"
    )


@pytest.mark.parametrize(
    ("language", "footer"),
    [
        ("fr", "Joueurs de référence, les IA d'ici : facile 1\u202f380 · difficile 1\u202f905"),
        ("uk", "ШІ-гравці для порівняння тут: легкий 1\xa0380 · складний 1\xa0905"),
    ],
)
def test_the_leaderboard_names_the_ai_levels_in_its_language(language: str, footer: str) -> None:
    """The footer's AI levels are words of the language asked for, as every other name of an
    AI level is: one-word labels an English-fragment check cannot see."""
    board = Leaderboard(
        players=(),
        references=(
            RatedPlayer(None, "easy", 1380, 50, False),
            RatedPlayer(None, "hard", 1905, 8, True),
        ),
        provisional_games=10,
    )
    post = community.leaderboard_post(board, language)
    assert post.embed.footer.text == footer


LEADERBOARD_LINES = {
    "en": [
        "**1.** <@1>: **1,720** · 30 rated games",
        "Provisional, fewer than 10 rated games:",
        "**2.** <@2>: **1,610** · 1 rated game",
    ],
    "fr": [
        "**1.** <@1> : **1\u202f720** · 30 parties classées",
        "Cotes provisoires, moins de 10 parties classées :",
        "**2.** <@2> : **1\u202f610** · 1 partie classée",
    ],
    "uk": [
        "**1.** <@1>: **1\u00a0720** · 30 рейтингових ігор",
        "Попередні рейтинги, менше ніж 10 рейтингових ігор:",
        "**2.** <@2>: **1\u00a0610** · 1 рейтингова гра",
    ],
}
PROVISIONAL_RESULT = {
    "en": "<@102> 1,493 (\u22127, provisional)",
    "fr": "<@102> 1\u202f493 (\u22127, provisoire)",
    "uk": "<@102> 1\u00a0493 (\u22127, попередній)",
}


@pytest.mark.parametrize("language", sorted(LEADERBOARD_LINES))
def test_the_leaderboard_and_a_provisional_change_read_in_each_language(language: str) -> None:
    """The ranks, the line above the provisional ratings and a result's provisional change,
    in words of the language asked for."""
    board = Leaderboard(
        players=(RatedPlayer(1, None, 1720, 30, False), RatedPlayer(2, None, 1610, 1, True)),
        references=(),
        provisional_games=10,
    )
    shown = community.leaderboard_post(board, language).embed.description or ""
    assert shown.splitlines() == LEADERBOARD_LINES[language]
    change = RatingChange(2, 102, None, 1500, 1493, True)
    assert ratings.change_line("<@102>", change, language) == PROVISIONAL_RESULT[language]


def test_a_leaderboard_without_provisional_players_or_ratings() -> None:
    settled = Leaderboard((RatedPlayer(1, None, 1720, 30, False),), (), 10)
    post = community.leaderboard_post(settled, "en")
    assert "Provisional" not in description(post)
    assert post.embed.footer.text is None
    empty = community.leaderboard_post(Leaderboard((), (), 10), "fr")
    assert description(empty) == "Personne n'a encore terminé de partie classée sur ce serveur."


class CrowdedServer:
    """A server with more rated people than a leaderboard lists: as many as it is asked for,
    the settled ones first, and its three AI levels."""

    async def leaderboard(self, guild_id: int, settled: int, limit: int) -> list[RatingRow]:
        return [
            RatingRow(SNOWFLAKE + n, None, 95.0, 0.9, 1_234 if n < limit // 2 else settled - 1)
            for n in range(limit)
        ]

    async def references(self, guild_id: int) -> list[RatingRow]:
        return [RatingRow(None, level, 30.0, 1.0, 5_000) for level in ("easy", "medium", "hard")]


@pytest.mark.parametrize("language", LANGUAGES)
async def test_a_full_leaderboard_fits_discord_s_embed(language: str) -> None:
    """As many people as the leaderboard lists, with the longest ids, ratings and game counts
    in the thousands, settled and provisional, fit one embed in every language."""
    board = await RatingService(CrowdedServer()).leaderboard(1)  # type: ignore[arg-type]
    assert board.players
    embed = community.leaderboard_post(board, language).embed
    assert len(embed.description or "") <= presenter.EMBED_DESCRIPTION_LIMIT
    assert len(embed) <= EMBED_LIMIT


# --- the stats -------------------------------------------------------------------------------


def rating(games: int, **changes: object) -> PlayerRating:
    shown = PlayerRating(
        user_id=100,
        points=1586,
        games=games,
        provisional=games < 10,
        history=(1500, 1586),
        best=RatedResult(7, 1, 3, 86),
        worst=RatedResult(9, 4, 4, -46),
        against_ai=(AiRecord("easy", 3, 0, 1), AiRecord("hard", 0, 1, 2)),
        provisional_games=10,
    )
    return dataclasses.replace(shown, **changes)  # type: ignore[arg-type]


def test_a_loss_is_never_called_the_best_result_nor_a_win_the_worst() -> None:
    lost = RatedResult(3, 2, 2, -46)
    only_lost = description(
        community.stats_post(SUMMARY, rating(1, best=lost, worst=lost), "en").post
    )
    assert "Best result" not in only_lost
    assert "Worst result: **\u221246** in game #3 (place 2 of 2)" in only_lost
    won = RatedResult(4, 1, 2, 30)
    only_won = description(community.stats_post(SUMMARY, rating(1, best=won, worst=won), "en").post)
    assert "Best result: **+30** in game #4 (place 1 of 2)" in only_won
    assert "Worst result" not in only_won


def test_a_result_that_left_the_rating_unchanged_is_neither_the_best_nor_the_worst() -> None:
    """The best result is a gain and the worst a loss: a game that moved the rating by ±0 is
    neither."""
    even = RatedResult(5, 1, 2, 0)
    shown = description(community.stats_post(SUMMARY, rating(1, best=even, worst=even), "en").post)
    assert "Best result" not in shown
    assert "Worst result" not in shown


def test_the_stats_show_the_rating_its_results_and_the_record_against_the_ai() -> None:
    shown = community.stats_post(SUMMARY, rating(12), "en")
    text = description(shown.post)
    assert "Games played: **4**" in text
    assert "Rating: **1,586** after 12 rated games" in text
    assert "Best result: **+86** in game #7 (place 1 of 3)" in text
    assert "Worst result: **\u221246** in game #9 (place 4 of 4)" in text
    assert "Against the AI:\n🤖 AI (easy): 3 wins, 0 ties, 1 loss\n" in text
    assert "🤖 AI (hard): 0 wins, 1 tie, 2 losses" in text
    assert shown.chart == ratings.RatingChart((1500, 1586), 10, "en")
    assert shown.post.embed.image.url == f"attachment://{community.CHART_NAME}"


def test_a_provisional_rating_says_how_far_it_is_and_one_game_is_one_result() -> None:
    one = rating(1, best=RatedResult(7, 1, 2, 86), worst=RatedResult(7, 1, 2, 86), against_ai=())
    text = description(community.stats_post(SUMMARY, one, "en").post)
    assert "Rating: **1,586**, provisional (1 of 10 rated games)" in text
    assert "Best result" in text
    assert "Worst result" not in text, "one game is not both"
    assert "Against the AI" not in text
    uk = description(community.stats_post(SUMMARY, rating(2), "uk").post)
    assert "Рейтинг: **1\u00a0586**, попередній (2 з 10 рейтингових ігор)" in uk


def test_no_chart_without_a_rated_game_and_no_rating_without_a_game() -> None:
    unrated = rating(0, points=1500, history=(1500,), best=None, worst=None, against_ai=())
    shown = community.stats_post(SUMMARY, unrated, "en")
    assert "Rating: **1,500** (no rated game yet)" in description(shown.post)
    assert shown.chart is None
    assert shown.post.embed.image.url is None
    nobody = dataclasses.replace(SUMMARY, games=0)
    alone = community.stats_post(nobody, None, "en")
    assert description(alone.post) == "<@100> has not finished a game in this server yet."
    assert alone.chart is None


def test_a_substitute_with_no_game_of_their_own_is_told_so_above_the_games_they_finished() -> None:
    """Not "has not finished a game" above a game they finished for someone."""
    substitute = dataclasses.replace(SUMMARY, games=0, finished_for=(FinishedFor(7, 1, 200),))
    assert description(community.stats_post(substitute, None, "en").post) == (
        "<@100> has not played a game of their own in this server yet.\n"
        "Finished for someone: game #7 for <@200>, place 1"
    )


def test_a_substitute_with_no_game_of_their_own_sees_the_accuracy_of_the_games_they_finished() -> (
    None
):
    """The decisions they made in a seat they finished for someone are judged: their accuracy,
    and the chart of it alone, are shown though they have no game of their own yet."""
    substitute = dataclasses.replace(
        SUMMARY,
        games=0,
        finished_for=(FinishedFor(7, 1, 200),),
        accuracy=accuracy_of((82.0,)),
    )
    shown = community.stats_post(substitute, None, "en")
    assert description(shown.post) == (
        "<@100> has not played a game of their own in this server yet.\n"
        "Accuracy: **82%** in the last judged game\n"
        "Finished for someone: game #7 for <@200>, place 1"
    )
    assert shown.chart is not None
    assert shown.chart.points == ()
    assert shown.chart.accuracy is not None
    assert shown.post.embed.image.url == f"attachment://{community.CHART_NAME}"


RATING_LINES = {
    "en": [
        "Rating: **1,586** after 12 rated games",
        "Best result: **+86** in game #7 (place 1 of 3)",
        "Worst result: **\u221246** in game #9 (place 4 of 4)",
        "Against the AI:",
        "🤖 AI (easy): 3 wins, 0 ties, 1 loss",
        "🤖 AI (hard): 0 wins, 1 tie, 2 losses",
    ],
    "fr": [
        "Cote : **1\u202f586** après 12 parties classées",
        "Meilleur résultat : **+86** à la partie n° 7 (place 1 sur 3)",
        "Pire résultat : **\u221246** à la partie n° 9 (place 4 sur 4)",
        "Contre l'IA :",
        "🤖 IA (facile) : 3 victoires, 0 égalité, 1 défaite",
        "🤖 IA (difficile) : 0 victoire, 1 égalité, 2 défaites",
    ],
    "uk": [
        "Рейтинг: **1\u00a0586** після 12 рейтингових ігор",
        "Найкращий результат: **+86** у грі №7 (місце 1 з 3)",
        "Найгірший результат: **\u221246** у грі №9 (місце 4 з 4)",
        "Проти ШІ:",
        "🤖 ШІ (легкий): 3 перемоги, 0 нічиїх, 1 поразка",
        "🤖 ШІ (складний): 0 перемог, 1 нічия, 2 поразки",
    ],
}


@pytest.mark.parametrize("language", sorted(RATING_LINES))
def test_the_stats_rating_best_and_worst_and_record_against_the_ai_read_in_each_language(
    language: str,
) -> None:
    assert community.rating_lines(rating(12), language) == RATING_LINES[language]


FIRST_RATING_LINE = {
    "en": (
        "Rating: **1,586**, provisional (3 of 10 rated games)",
        "Rating: **1,500** (no rated game yet)",
    ),
    "fr": (
        "Cote : **1\u202f586**, provisoire (3 sur 10 parties classées)",
        "Cote : **1\u202f500** (aucune partie classée pour l'instant)",
    ),
    "uk": (
        "Рейтинг: **1\u00a0586**, попередній (3 з 10 рейтингових ігор)",
        "Рейтинг: **1\u00a0500** (ще жодної рейтингової гри)",
    ),
}


@pytest.mark.parametrize("language", sorted(FIRST_RATING_LINE))
def test_a_provisional_rating_and_one_without_a_rated_game_read_in_each_language(
    language: str,
) -> None:
    unrated = rating(0, points=1500, history=(1500,), best=None, worst=None, against_ai=())
    provisional, none = FIRST_RATING_LINE[language]
    assert community.rating_lines(rating(3), language)[0] == provisional
    assert community.rating_lines(unrated, language) == [none]


def test_the_stats_are_titled_in_each_language() -> None:
    titles = {
        language: community.stats_post(SUMMARY, None, language).post.embed.title
        for language in ("en", "fr", "uk")
    }
    assert titles == {
        "en": "Marrakech results",
        "fr": "Résultats à Marrakech",
        "uk": "Результати: Марракеш",
    }


def test_the_stats_show_the_accuracy_and_its_trend_in_each_language() -> None:
    judged = dataclasses.replace(SUMMARY, accuracy=Accuracy(20, 81.6, 4.25))
    en = description(community.stats_post(judged, None, "en").post)
    assert "Accuracy: **82%** over the last 20 judged games" in en
    assert "Trend: \u2197 **+4.2**\u00a0points (the newest 10 against the 10 before)" in en
    fr = description(community.stats_post(judged, None, "fr").post)
    assert "Précision : **82\u202f%** sur les 20 dernières parties jugées" in fr
    assert (
        "Tendance : \u2197 **+4,2**\u00a0points (les 10 plus récentes contre les 10 d’avant)" in fr
    )
    uk = description(community.stats_post(judged, None, "uk").post)
    assert "Точність: **82\u202f%** за 20 останніх оцінених ігор" in uk
    assert "Тенденція: \u2197 **+4,2**\u00a0пункту (останні 10 проти 10 попередніх)" in uk


def test_a_french_trend_under_two_points_says_point() -> None:
    """French makes a number under 2 agree in the singular: a trend of +1.5 is "1,5 point",
    one of -3.0 "3,0 points"."""
    rising = dataclasses.replace(SUMMARY, accuracy=Accuracy(8, 70.0, 1.5))
    fr = description(community.stats_post(rising, None, "fr").post)
    assert "Tendance : \u2197 **+1,5**\u00a0point (les 4 plus récentes contre les 4 d’avant)" in fr
    falling = dataclasses.replace(SUMMARY, accuracy=Accuracy(8, 70.0, -3.0))
    fr = description(community.stats_post(falling, None, "fr").post)
    assert "\u2198 **\u22123,0**\u00a0points" in fr


def test_a_falling_steady_or_missing_trend_says_so() -> None:
    falling = dataclasses.replace(SUMMARY, accuracy=Accuracy(4, 70.0, -3.0))
    assert "\u2198 **\u22123.0**\u00a0points" in description(
        community.stats_post(falling, None, "en").post
    )
    three = dataclasses.replace(SUMMARY, accuracy=Accuracy(3, 70.0, None))
    assert "за 3 останні оцінені ігри" in description(community.stats_post(three, None, "uk").post)
    steady = dataclasses.replace(SUMMARY, accuracy=Accuracy(6, 70.0, 0.5))
    assert "\u2192 **+0.5**\u00a0points" in description(
        community.stats_post(steady, None, "en").post
    )
    one = dataclasses.replace(SUMMARY, accuracy=Accuracy(1, 70.0, None))
    uk = description(community.stats_post(one, None, "uk").post)
    assert "Точність: **70\u202f%** за останню оцінену гру" in uk, "the post is public: no 'your'"
    en = description(community.stats_post(one, None, "en").post)
    assert "Accuracy: **70%** in the last judged game" in en
    fr = description(community.stats_post(one, None, "fr").post)
    assert "Précision : **70\u202f%** sur la dernière partie jugée" in fr
    assert "Тенденція" not in uk
    assert "Accuracy" not in description(community.stats_post(SUMMARY, None, "en").post)


def test_the_chart_s_triangle_points_the_way_the_trend_s_arrow_does() -> None:
    """The triangle is the cue that needs no colour: it rises from +1 point and falls from -1
    point, as the text's arrow does, and a smaller move either way has none."""
    for newest_first, arrow, direction in (
        ((67.0, 67.0, 70.0, 70.0), "\u2198 **\u22123.0**", -1),
        ((69.8, 69.8, 70.0, 70.0), "\u2192 **\u22120.2**", 0),
        ((70.5, 70.5, 70.0, 70.0), "\u2192 **+0.5**", 0),
        ((74.25, 74.25, 70.0, 70.0), "\u2197 **+4.2**", 1),
    ):
        assert_trend_reads(newest_first, arrow, direction)


def assert_trend_reads(newest_first: tuple[float, ...], arrow: str, direction: int) -> None:
    """The stats of a member with these accuracies, newest first, read `arrow` in English and
    draw the chart's triangle `direction` (1 up, -1 down, 0 none)."""
    judged = dataclasses.replace(SUMMARY, accuracy=accuracy_of(newest_first))
    shown = community.stats_post(judged, None, "en")
    said = description(shown.post)
    assert f"Trend: {arrow}\u00a0points" in said, said
    assert shown.chart is not None
    assert shown.chart.accuracy is not None
    assert shown.chart.accuracy.direction == direction, (newest_first, said)


def test_a_trend_shown_as_one_point_rises_or_falls() -> None:
    """The way is decided on the trend as it is shown, to a tenth: a rise of 0.96 reads
    "+1.0" and rises, in the text and on the chart, as a rise of 1 does; one of 0.94 reads
    "+0.9" and is steady."""
    for newest_first, arrow, direction in (
        ((81.0, 80.92, 80.0, 80.0), "\u2197 **+1.0**", 1),
        ((79.0, 79.08, 80.0, 80.0), "\u2198 **\u22121.0**", -1),
        ((80.94, 80.94, 80.0, 80.0), "\u2192 **+0.9**", 0),
    ):
        assert_trend_reads(newest_first, arrow, direction)


def test_with_an_odd_number_of_games_the_trend_leaves_the_oldest_out_of_both_halves() -> None:
    """Five judged games: the trend is the newest 2 against the 2 before them, and says so."""
    judged = dataclasses.replace(SUMMARY, accuracy=accuracy_of((90.0, 84.0, 80.0, 70.0, 10.0)))
    en = description(community.stats_post(judged, None, "en").post)
    assert "Trend: \u2197 **+12.0**\u00a0points (the newest 2 against the 2 before)" in en, en


def test_the_chart_draws_the_accuracy_game_by_game_under_the_rating_in_each_language() -> None:
    newest_first = (90.0, 84.0, 80.0, 70.0)
    judged = dataclasses.replace(SUMMARY, accuracy=accuracy_of(newest_first))
    shown = community.stats_post(judged, rating(12), "en")
    assert shown.chart is not None
    assert shown.chart.points == (1500, 1586)
    strip = shown.chart.accuracy
    assert strip is not None
    assert strip.values == (70.0, 80.0, 84.0, 90.0), "oldest first, as the chart reads"
    assert (strip.title, strip.average, strip.trend, strip.direction) == (
        "Accuracy, last 4 games",
        "81%",
        "+12.0",
        1,
    )
    fr = community.stats_post(judged, rating(12), "fr").chart
    assert fr is not None
    assert fr.accuracy is not None
    assert (fr.accuracy.title, fr.accuracy.average, fr.accuracy.trend) == (
        "Précision, 4 dernières parties",
        "81\u202f%",
        "+12,0",
    )
    assert fr.accuracy.percent.format(n=50) == "50\u202f%"
    uk = community.stats_post(judged, rating(12), "uk").chart
    assert uk is not None
    assert uk.accuracy is not None
    assert uk.accuracy.title == "Точність, 4 останні гри"
    one = dataclasses.replace(SUMMARY, accuracy=accuracy_of((90.0,)))
    titles = []
    for language in ("en", "fr", "uk"):
        chart = community.stats_post(one, rating(12), language).chart
        assert chart is not None
        assert chart.accuracy is not None
        titles.append(chart.accuracy.title)
    assert titles == ["Accuracy, last game", "Précision, dernière partie", "Точність, остання гра"]


def test_before_a_rated_game_the_chart_is_the_accuracy_alone() -> None:
    unrated = rating(0, points=1500, history=(1500,), best=None, worst=None, against_ai=())
    judged = dataclasses.replace(SUMMARY, accuracy=accuracy_of((75.0, 77.0)))
    shown = community.stats_post(judged, unrated, "en")
    assert shown.chart is not None
    assert shown.chart.points == ()
    assert shown.chart.accuracy is not None
    assert shown.chart.accuracy.trend is None, "too few games for a trend"
    assert shown.post.embed.image.url == f"attachment://{community.CHART_NAME}"


def test_the_chart_s_average_accuracy_is_rounded_to_the_nearest_percent() -> None:
    """A mean of 80.6 is drawn as 81%, not cut to 80%."""
    judged = dataclasses.replace(SUMMARY, accuracy=accuracy_of((81.0, 80.2)))
    chart = community.stats_post(judged, None, "en").chart
    assert chart is not None
    assert chart.accuracy is not None
    assert chart.accuracy.average == "81%"


async def test_the_stats_chart_is_drawn_in_the_member_s_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The chart of French stats, drawn as the bot draws it (`Pictures.rating_chart`, by the
    workers): every word, caught on its way to drawing, is French ("Cote", "parties",
    "provisoire"), none English, and the rating is written as French writes numbers; the
    accuracy under it is drawn too, its words and percentages French."""
    history = tuple(1500 + 9 * game for game in range(13))  # 12 rated games, to 1,608
    judged = dataclasses.replace(SUMMARY, accuracy=accuracy_of((90.0, 84.0, 80.0, 70.0)))
    shown = community.stats_post(judged, rating(12, points=1608, history=history), "fr")
    assert shown.chart is not None
    drawn: list[str] = []

    def recording(image: Image.Image, xy: tuple[float, float], words: str, **how: Any) -> None:
        drawn.append(words)
        draw_text(image, xy, words, **how)

    monkeypatch.setattr(rating_chart, "draw_text", recording)
    monkeypatch.setattr(accuracy_strip, "draw_text", recording)
    pool = WorkerPool(workers=0)
    try:
        png = await images.Pictures(pool).rating_chart(shown.chart)
    finally:
        await pool.close()
    assert png.startswith(b"\x89PNG")
    assert {"Cote", "parties", "provisoire", "1\u202f608"} <= set(drawn), drawn
    assert {"Précision, 4 dernières parties", "81\u202f%", "50\u202f%"} <= set(drawn), drawn
    assert not {"Rating", "games", "provisional", "1,608", "81%", "50%"} & set(drawn), drawn


def test_the_stats_tell_reliability_only_once_there_is_something_to_tell() -> None:
    """No turn played and no game left: no reliability line; a turn played, or a game left
    before any turn of one's own: the line."""
    nothing = Reliability(100, 0, 0, None, 0, 0, 0)
    assert "Reliability" not in description(community.stats_post(SUMMARY, None, "en", nothing).post)
    one_turn = Reliability(100, 1, 0, 600.0, 0, 0, 0)
    assert "**Reliability**: too few turns yet" in description(
        community.stats_post(SUMMARY, None, "en", one_turn).post
    )
    resigned_only = Reliability(100, 0, 0, None, 1, 0, 0)
    said = description(community.stats_post(SUMMARY, None, "en", resigned_only).post)
    assert "**Reliability**: too few turns yet" in said, said
    assert "1 game left unfinished (1 resigned, 0 left to the AI" in said, said


def test_the_stats_tell_reliability_before_any_game_is_finished() -> None:
    """Reliability is read from running games too: a member who played turns and resigned a
    game still running has no finished game to count, and the line still tells it."""
    nobody = dataclasses.replace(SUMMARY, games=0)
    resigned = Reliability(100, 12, 0, 600.0, 1, 0, 0)
    said = description(community.stats_post(nobody, None, "en", resigned).post)
    assert said.startswith("<@100> has not finished a game in this server yet.\n"), said
    assert "**Reliability**: usually plays within 10 min · 0% of turns ran out" in said, said
    assert "1 game left unfinished (1 resigned, 0 left to the AI" in said, said
    nothing = Reliability(100, 0, 0, None, 0, 0, 0)
    alone = description(community.stats_post(nobody, None, "en", nothing).post)
    assert alone == "<@100> has not finished a game in this server yet.", "nothing to tell"


def test_a_trend_of_exactly_the_steady_margin_has_its_way() -> None:
    """Only a trend within TREND_STEADY of none is steady; at the margin it rises or falls."""
    assert community.trend_direction(community.TREND_STEADY) == 1
    assert community.trend_direction(-community.TREND_STEADY) == -1
    assert community.trend_direction(community.TREND_STEADY / 2) == 0


@pytest.mark.parametrize("language", ["en", "fr", "uk"])
def test_no_score_is_shown_when_no_game_ended_in_play(language: str) -> None:
    """Out or resigned in every game: no score counts, so the line of scores is left out (not
    "0.0", nor bare hyphens), and so is a favourite colour when there is none."""
    scoreless = dataclasses.replace(
        SUMMARY, games=2, wins=0, average_score=None, best_score=None, favourite_color=None
    )
    said = description(community.stats_post(scoreless, None, language).post)
    assert "**-**" not in said, said
    assert not any(line.endswith(": -") for line in said.splitlines()), said
    assert text("stats.scores", language, average=1, best=1).split(":")[0] not in said
    assert "**2**" in said, "the games still counted"


class BusySubstitute:
    """A member with many games of their own, 20 judged, and more games finished for others
    than the stats list: as many as they are asked for."""

    async def player(self, guild_id: int, user_id: int) -> PlayerStats:
        return PlayerStats(user_id, 1_234, 567, 61.4, 98, "red")

    async def finished_for(
        self, guild_id: int, user_id: int, limit: int
    ) -> list[tuple[int, int, int]]:
        return [(GAME - n, 4, SNOWFLAKE + 1 + n) for n in range(limit)]  # game, place, for

    async def recent_accuracy(self, guild_id: int, user_id: int, limit: int) -> list[float]:
        return [87.5 - n for n in range(limit)]


@pytest.mark.parametrize("language", LANGUAGES)
async def test_the_stats_of_a_member_who_finished_many_games_for_others_fit_discord_s_embed(
    language: str,
) -> None:
    """As many games finished for someone as the stats list, numbered in the millions, with
    the accuracy and the other lines, fit one embed in every language."""
    summary = await StatsService(BusySubstitute()).player(1, SNOWFLAKE)  # type: ignore[arg-type]
    assert summary.finished_for
    embed = community.stats_post(summary, None, language).post.embed
    assert len(embed.description or "") <= presenter.EMBED_DESCRIPTION_LIMIT
    assert len(embed) <= EMBED_LIMIT


# --- the history -----------------------------------------------------------------------------


def test_the_history_names_a_game_s_ai_winner_by_its_level() -> None:
    """A game an AI won reads "won by" the AI and its level; a win shared with a person names
    both."""
    now = datetime(2026, 1, 1, tzinfo=UTC)
    rows = [
        PastGame(1, 2, "over", "finished", 2, now, now, (None,), ("hard",)),
        PastGame(2, 2, "over", "finished", 3, now, now, (100, None), (None, "easy")),
    ]
    said = description(community.history_post(rows, server=False, language="en"))
    first, second = said.split("\n")
    assert f"won by {names.ai_name('hard', 'en')}" in first, first
    assert f"won by <@100> and {names.ai_name('easy', 'en')}" in second, second
    assert "?" not in first + second


@pytest.mark.parametrize("language", ["en", "fr", "uk"])
def test_an_empty_history_says_how_to_start_a_game_and_offers_no_replay(language: str) -> None:
    """A channel with no game yet is told to start one; the footer offering to replay a
    finished game comes only under games there are."""
    now = datetime(2026, 1, 1, tzinfo=UTC)
    empty = community.history_post([], server=False, language=language).embed
    assert empty.description == text("history.empty", language)
    assert empty.footer.text is None
    games = [PastGame(1, 2, "over", "finished", 2, now, now, (100,), (None,))]
    listed = community.history_post(games, server=False, language=language).embed
    assert listed.footer.text == text("history.footer", language)


def test_the_history_joins_the_winners_of_a_shared_win_in_the_language_asked_for() -> None:
    """As the final post does: "A and B" in English, "A et B" in French."""
    now = datetime(2026, 1, 1, tzinfo=UTC)
    rows = [PastGame(1, 3, "over", "finished", 3, now, now, (100, 101), (None, None))]
    for language, joined in (("en", "<@100> and <@101>"), ("fr", "<@100> et <@101>")):
        said = description(community.history_post(rows, server=False, language=language))
        assert joined in said, said


@pytest.mark.parametrize("language", ["en", "fr", "uk"])
def test_the_history_calls_an_abandoned_game_abandoned_as_its_end_notice_does(
    language: str,
) -> None:
    """An abandoned game reads "abandoned", never "aborted", which the history says of a game
    someone stopped."""
    now = datetime(2026, 1, 1, tzinfo=UTC)
    rows = [
        PastGame(2, 5, "aborted", "abandoned", 2, now, now, (), ()),
        PastGame(1, 5, "aborted", "aborted-by-host", 2, now, now, (), ()),
    ]
    abandoned, aborted = description(
        community.history_post(rows, server=False, language=language)
    ).splitlines()
    assert text("history.outcome.abandoned", language) in abandoned, abandoned
    assert text("history.outcome.aborted", language) in aborted, aborted


@pytest.mark.parametrize("language", ["en", "fr", "uk"])
def test_the_history_calls_a_cancelled_lobby_cancelled_not_aborted(language: str) -> None:
    """A lobby its host cancelled had no game played: it reads "cancelled", as its lobby
    said, never "aborted", which the history says of a game someone stopped."""
    now = datetime(2026, 1, 1, tzinfo=UTC)
    rows = [
        PastGame(2, 5, "aborted", "cancelled", 1, now, now, (), ()),
        PastGame(1, 5, "aborted", "aborted-by-host", 2, now, now, (), ()),
    ]
    cancelled, aborted = description(
        community.history_post(rows, server=False, language=language)
    ).splitlines()
    assert text("history.outcome.cancelled", language) in cancelled, cancelled
    assert text("history.outcome.aborted", language) not in cancelled, cancelled
    assert text("history.outcome.aborted", language) in aborted, aborted


class EveryGameStore:
    """A server with more finished games than the history lists: as many as it is asked
    for, each won by four people sharing the win."""

    async def history(self, guild_id: int, channel_id: int | None, limit: int) -> list[HistoryRow]:
        when = datetime(2026, 12, 8, 12, tzinfo=UTC)
        winners = tuple(SNOWFLAKE + seat for seat in range(4))
        return [
            HistoryRow(
                GAME - n, SNOWFLAKE + n, "over", "finished", 4, when, when, winners, (None,) * 4
            )
            for n in range(limit)
        ]


@pytest.mark.parametrize("language", LANGUAGES)
async def test_a_full_history_fits_discord_s_embed(language: str) -> None:
    """As many games as the history lists, numbered in the millions, in channels with the
    longest ids and each won by four people, fit one embed in every language."""
    rows = await StatsService(EveryGameStore()).history(1, None)  # type: ignore[arg-type]
    assert rows
    embed = community.history_post(rows, server=True, language=language).embed
    assert len(embed.description or "") <= presenter.EMBED_DESCRIPTION_LIMIT
    assert len(embed) <= EMBED_LIMIT
