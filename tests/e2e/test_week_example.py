"""The week example's transcript (docs/async.md) writes people, channels and moments as a
reader sees them in Discord: a relative moment (`<t:...:R>`, the held direct message's "Your
turn ends in 5 hours") as it read when the message was sent, the others as a date in UTC. No
bot is started here: `python -m tests.e2e.week_example` runs the whole week."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.e2e.week_example import readable, relative

NOW = datetime(2026, 12, 8, 13, tzinfo=UTC)


def tag(when: datetime, style: str = "") -> str:
    return f"<t:{int(when.timestamp())}{':' + style if style else ''}>"


def test_a_relative_moment_reads_as_discord_words_it_when_the_message_came() -> None:
    ends = datetime(2026, 12, 9, 21, tzinfo=UTC)  # 32 hours after NOW
    text = f"• Game #1: your turn began (<#7>). Your turn ends {tag(ends, 'R')}."
    assert readable(text, {}, {7: "souk"}, NOW) == (
        "• Game #1: your turn began (#souk). Your turn ends in a day."
    )


def test_other_moments_are_dates_in_utc() -> None:
    until = datetime(2026, 12, 11, 15, tzinfo=UTC)
    for style in ("", "F"):
        said = readable(f"<@5> is away until {tag(until, style)}", {5: "Dana"}, {}, NOW)
        assert said == "@Dana is away until Friday, 11 December 2026 15:00"
    assert readable(tag(until, "R"), {}, {}) == "Friday, 11 December 2026 15:00"


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (10, "in a few seconds"),
        (60, "in a minute"),
        (5 * 60, "in 5 minutes"),
        (60 * 60, "in an hour"),
        (5 * 3600, "in 5 hours"),
        (21 * 3600 + 29 * 60, "in 21 hours"),
        (30 * 3600, "in a day"),
        (3 * 86400, "in 3 days"),
        (30 * 86400, "in a month"),
        (100 * 86400, "in 3 months"),
        (400 * 86400, "in a year"),
        (800 * 86400, "in 2 years"),
        (-2 * 86400, "2 days ago"),
        (-90 * 60, "2 hours ago"),
    ],
)
def test_relative_words_follow_discord_s_thresholds(seconds: int, words: str) -> None:
    assert relative(NOW + timedelta(seconds=seconds), NOW) == words
