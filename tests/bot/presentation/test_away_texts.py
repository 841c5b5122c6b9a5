"""The one message that brings what quiet hours held names every notice, of every kind, in
the game's language, and counts what it leaves out; a time left reads in hours and minutes; a
refused absence names the cap that refused it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.presentation import away
from bot.presentation.messages import text
from bot.services.away import HeldNotice
from bot.services.time_rules import AwayRefusedError

KINDS = ("turn", "remind", "nudge", "next")


@pytest.mark.parametrize("language", ["en", "fr", "uk"])
def test_the_held_message_names_every_kind_of_notice(language: str) -> None:
    release = datetime(2026, 12, 8, 12, tzinfo=UTC)
    notices = [
        HeldNotice(7, 9, 500 + n, 12 + n, 3, kind, language, release)
        for n, kind in enumerate(KINDS)
    ]
    message = away.held_message(notices)
    assert message.count("\n") == len(KINDS)
    for notice in notices:
        line = text(
            f"quiet.held_{notice.kind}",
            language,
            game_id=notice.game_id,
            link=f"<#{notice.channel_id}>",
        )
        assert line in message.splitlines()


def test_a_long_list_counts_what_it_leaves_out() -> None:
    release = datetime(2026, 12, 8, 12, tzinfo=UTC)
    notices = [HeldNotice(7, 9, 500, n, 3, "turn", "en", release) for n in range(25)]
    message = away.held_message(notices)
    assert message.endswith("• and 5 more.")
    assert message.count("• Game #") == away.HELD_LINES == 20
    assert "Game #19:" in message
    assert "Game #20:" not in message


def test_a_time_left_reads_in_hours_and_minutes() -> None:
    assert away.duration(timedelta(hours=23, minutes=10, seconds=59), "en") == "23 h 10 min"
    assert away.duration(timedelta(minutes=4, seconds=59), "en") == "4 min"
    assert away.duration(timedelta(hours=24, milliseconds=-400), "en") == "24 h 0 min"


def test_a_refusal_names_the_cap_that_refused() -> None:
    """A tournament's lower cap is named as the tournament's, not the server's."""
    by_tournament = away.away_refused(AwayRefusedError(5, 2, 10, by_tournament=True), "en")
    assert by_tournament == (
        "A tournament you play in on this server allows at most 2 days away at once. "
        "Nothing changed."
    )
    by_server = away.away_refused(AwayRefusedError(5, 2, 10), "en")
    assert "tournament" not in by_server
    assert "at most 2 days at once on this server" in by_server


def test_a_server_with_no_away_days_says_it_allows_none() -> None:
    """With no day allowed at once, the refusal says the server allows no away days, not
    "at most 0 days"."""
    off = away.away_refused(AwayRefusedError(1, 0, 0), "en")
    assert off == "This server does not allow away days. Nothing changed."


def test_a_full_hour_left_reads_in_hours() -> None:
    """Exactly an hour left reads "1 h 0 min", the way every longer time reads."""
    assert away.duration(timedelta(hours=1), "en") == "1 h 0 min"
