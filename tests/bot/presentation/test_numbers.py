"""Numbers as each language writes them: decimal comma and grouped thousands in fr and uk."""

from __future__ import annotations

import pickle

import pytest

from bot.presentation import community, messages
from bot.services.views import Leaderboard, PlayerSummary, RatedPlayer


@pytest.mark.parametrize(
    ("language", "average", "thousands"),
    [("en", "27.5", "1,234"), ("fr", "27,5", "1\u202f234"), ("uk", "27,5", "1\u00a0234")],
)
def test_numbers_follow_the_language(language: str, average: str, thousands: str) -> None:
    assert messages.number(27.5, language, decimals=1) == average
    assert f"{messages.number(1234, language)}" == thousands
    assert messages.number(1234.25, language, decimals=1) == thousands + average[2] + "2"


def test_a_written_count_still_agrees_with_its_word() -> None:
    count = messages.number(1234, "uk")
    assert (
        messages.text(
            "leaderboard.line",
            "uk",
            rank=1,
            user="Оля",
            rating=messages.number(1500, "uk"),
            games=count,
        ).count("1\u00a0234")
        == 1
    )


@pytest.mark.parametrize(
    ("language", "average", "rating"),
    [("en", "27.5", "1,532"), ("fr", "27,5", "1\u202f532"), ("uk", "27,5", "1\u00a0532")],
)
def test_stats_and_leaderboard_write_numbers_in_the_language(
    language: str, average: str, rating: str
) -> None:
    row = PlayerSummary(
        100, games=1200, wins=3, average_score=27.5, best_score=40, favourite_color="red"
    )
    stats = community.stats_post(row, None, language).post.embed.description or ""
    assert average in stats
    assert f"{messages.number(1200, language)}" in stats
    board = Leaderboard((RatedPlayer(100, None, 1532, 1200, False),), (), 10)
    shown = community.leaderboard_post(board, language).embed.description or ""
    assert rating in shown
    assert f"{messages.number(1200, language)}" in shown


def test_a_number_with_a_tenth_agrees_as_its_language_makes_a_fraction_agree() -> None:
    """French: under 2 singular ("1,9 point"), 2 and over plural; English: always plural. A
    picture drawn by a worker gets the plain text."""
    for value, word in ((0.5, "point"), (1.94, "point"), (1.96, "points"), (-3.0, "points")):
        assert f"{messages.number(value, 'fr', 1):point|points}" == word, value
    assert f"{messages.number(1.0, 'en', 1):point|points}" == "points"
    signed = messages.number(-1.5, "fr", 1, signed=True)
    assert (f"{signed}", f"{signed:point|points}") == ("\u22121,5", "point")
    assert type(pickle.loads(pickle.dumps(signed))) is str
