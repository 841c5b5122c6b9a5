"""Numbers as each language writes them: decimal comma and grouped thousands in fr and uk."""

from __future__ import annotations

import pytest

from bot.presentation import messages, presenter
from bot.services.views import PlayerSummary


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
            wins=count,
            games=messages.number(5, "uk"),
            average="1",
            best=1,
        ).count("1\u00a0234")
        == 1
    )


@pytest.mark.parametrize(("language", "average"), [("en", "27.5"), ("fr", "27,5"), ("uk", "27,5")])
def test_stats_and_leaderboard_write_the_average_in_the_language(
    language: str, average: str
) -> None:
    row = PlayerSummary(
        100, games=1200, wins=3, average_score=27.5, best_score=40, favourite_color="red"
    )
    stats = presenter.stats_post(row, language).embed.description or ""
    assert average in stats
    assert f"{messages.number(1200, language)}" in stats
    board = presenter.leaderboard_post([row], language).embed.description or ""
    assert average in board
