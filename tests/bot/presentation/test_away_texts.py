"""The one message that brings what quiet hours held names every notice, of every kind, in
the game's language, and counts what it leaves out; a time left reads in hours and minutes, in
the language of whoever reads it; time away ends on a date with its weekday; a refused absence
names the cap that refused it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.presentation import away
from bot.presentation.messages import LANGUAGES, text
from bot.services.away import HeldNotice
from bot.services.time_rules import AwayGame, AwayRefusedError, Resumed, TurnNow

KINDS = ("turn", "remind", "nudge", "next")
CONTENT_LIMIT = 2000
"""The most characters Discord takes in a message's text."""
TWO_HOURS_FIVE = [("en", "2 h 5 min"), ("fr", "2 h 5"), ("uk", "2 год 5 хв")]
"""2 hours and 5 minutes left, as each language reads it."""
SNOWFLAKE = 1_312_345_678_901_234_567
"""An id as long as Discord's are today (19 digits)."""
GAME = 4_812_345
"""A game number of a bot that has run for years."""


@pytest.mark.parametrize("language", ["en", "fr", "uk"])
def test_the_held_message_names_every_kind_of_notice(language: str) -> None:
    release = datetime(2026, 12, 8, 12, tzinfo=UTC)
    notices = [
        HeldNotice(7, 9, 500 + n, 12 + n, 3, kind, language, release)
        for n, kind in enumerate(KINDS)
    ]
    message = away.held_message(notices) or ""
    assert message.count("\n") == len(KINDS)
    for notice in notices:
        line = text(
            f"quiet.held_{notice.kind}",
            language,
            game_id=notice.game_id,
            link=f"<#{notice.channel_id}>",
        )
        assert line in message.splitlines()


@pytest.mark.parametrize(
    ("language", "heading"),
    [
        ("en", "🌅 Your quiet hours are over. While they lasted:"),
        ("fr", "🌅 Vos heures calmes sont finies. Pendant ce temps :"),
        ("uk", "🌅 Ваші тихі години скінчилися. Тим часом:"),
    ],
)
def test_the_held_message_opens_in_the_language_quiet_hours_were_set_in(
    language: str, heading: str
) -> None:
    release = datetime(2026, 12, 8, 12, tzinfo=UTC)
    notices = [HeldNotice(7, 9, 500, 12, 3, "turn", language, release)]
    message = away.held_message(notices) or ""
    assert message.splitlines()[0] == heading, message


def test_a_long_list_counts_what_it_leaves_out() -> None:
    release = datetime(2026, 12, 8, 12, tzinfo=UTC)
    notices = [HeldNotice(7, 9, 500, n, 3, "turn", "en", release) for n in range(25)]
    message = away.held_message(notices) or ""
    assert message.endswith("• and 5 more; `/marrakech mygames` lists your games on each server.")
    assert message.count("• Game #") == away.HELD_LINES == 20
    assert "Game #19:" in message
    assert "Game #20:" not in message


def test_a_long_list_counts_the_lines_it_leaves_out_not_the_notices_said_no_more() -> None:
    """A "next" whose turn began makes no line: what the list leaves out is counted in the
    lines it does not show, not in the notices it was given."""
    release = datetime(2026, 12, 8, 12, tzinfo=UTC)
    turns = [HeldNotice(7, 9, 500 + n, n, 3, "turn", "en", release) for n in range(25)]
    untrue = [HeldNotice(7, 9, 500 + n, n, 2, "next", "en", release) for n in range(3)]
    message = away.held_message([*untrue, *turns]) or ""
    assert message.count("• Game #") == away.HELD_LINES
    assert message.splitlines()[-1] == text("quiet.held_more", "en", count=5)


@pytest.mark.parametrize("kinds", [("remind",), ("turn", "remind")])
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_held_message_fits_a_direct_message_and_counts_the_lines_left_out(
    language: str, kinds: tuple[str, ...]
) -> None:
    """Discord refuses a message over 2,000 characters, and a refused list would never come:
    the list names the lines that fit, whole and in order, with the ping in front that the
    game's channel gets too (direct messages closed), and counts the others. Games numbered in
    the millions, ids of 19 digits, each turn's end told (clocks that run in quiet hours)."""
    release = datetime(2026, 12, 8, 7, tzinfo=UTC)
    night = release - timedelta(hours=5)
    ends = release + timedelta(hours=20)
    notices, lines = [], []
    for n in range(away.HELD_LINES):
        game, channel = GAME + n, SNOWFLAKE + n
        for kind in kinds:
            notices.append(
                HeldNotice(SNOWFLAKE, SNOWFLAKE, channel, game, 3, kind, language, release, night)
            )
            lines.append(text(f"quiet.held_{kind}", language, game_id=game, link=f"<#{channel}>"))
        lines[-1] += " " + text("quiet.held_ends", language, when=away.relative(ends))
    since = night - timedelta(hours=5)
    turns = {game: TurnNow(game, True, ends, since) for game in range(GAME, GAME + len(lines))}
    message = away.held_message(notices, turns) or ""
    assert len(away.held_in_channel(SNOWFLAKE, message)) <= CONTENT_LIMIT
    _, *listed, more = message.splitlines()
    assert listed == lines[: len(listed)], "whole lines, in order"
    assert more == text("quiet.held_more", language, count=len(lines) - len(listed))


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_held_ping_in_a_channel_fits_a_message_whatever_the_numbers_in_it(
    language: str,
) -> None:
    """The ping in front of the list in a game's channel takes room from the list: with the
    longest id there can be, games numbered with 1 to 19 digits, every kind of notice and lists
    of 20, 25 and 40 lines, the ping and its list never pass Discord's 2,000 characters (a
    refused ping never comes, and the notices it holds stay unsent)."""
    longest = 2**64 - 1
    release = datetime(2026, 12, 8, 7, tzinfo=UTC)
    night = release - timedelta(hours=5)
    ends = release + timedelta(hours=20)
    too_long = []
    for kind in KINDS:
        for digits in range(1, 20):
            for count in (20, 25, 40):
                games = range(10 ** (digits - 1), 10 ** (digits - 1) + count)
                notices = [
                    HeldNotice(longest, longest, longest - g, g, 3, kind, language, release, night)
                    for g in games
                ]
                turns = {g: TurnNow(g, True, ends, night - timedelta(hours=5)) for g in games}
                message = away.held_message(notices, turns) or ""
                pinged = away.held_in_channel(longest, message)
                if len(pinged) > CONTENT_LIMIT:
                    too_long.append((kind, digits, count, len(pinged)))
    assert too_long == [], "(kind, digits of the games, lines, characters) over 2,000"


def test_a_time_left_reads_in_hours_and_minutes() -> None:
    assert away.duration(timedelta(hours=23, minutes=10, seconds=59), "en") == "23 h 10 min"
    assert away.duration(timedelta(minutes=4, seconds=59), "en") == "4 min"
    assert away.duration(timedelta(hours=24, milliseconds=-400), "en") == "24 h 0 min"


@pytest.mark.parametrize(("language", "left"), TWO_HOURS_FIVE)
def test_a_time_left_reads_its_hours_then_its_minutes_in_every_language(
    language: str, left: str
) -> None:
    """Each language's words put the hours and the minutes where they belong: swapped, 2 h 5
    would read as 5 hours left."""
    assert away.duration(timedelta(hours=2, minutes=5), language) == left


@pytest.mark.parametrize(("language", "left"), TWO_HOURS_FIVE)
def test_a_clock_running_again_tells_the_time_left_in_the_game_s_language(
    language: str, left: str
) -> None:
    """The line a game's channel gets when its player is back, or their days away are over, is
    public: the time left in it is worded in the game's language too."""
    resumed = Resumed(1, 2, language, timedelta(hours=2, minutes=5))
    for key, line in [
        ("away.back_notice", away.back_notice(5, resumed)),
        ("away.days_over_notice", away.days_over_notice(5, resumed)),
    ]:
        assert line == text(key, language, user="<@5>", left=left, game_id=1)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_lines_of_time_away_give_its_end_as_a_date_with_its_weekday(language: str) -> None:
    """A line saying someone is away "until ..." reads right only with a date: `<t:…:F>`,
    which Discord shows in each reader's own time zone as "Tuesday, 1 December 2026 14:00",
    never `<t:…:R>` ("in 3 days"). So say the channel's line, the answer to `/marrakech away`
    and a turn's message, with a turn limit or without one."""
    until = datetime(2026, 12, 1, 14, tzinfo=UTC)
    date = f"<t:{int(until.timestamp())}:F>"
    assert date in away.away_started(until, language)
    for timed in (True, False):
        assert date in away.away_notice(5, until, AwayGame(1, 2, language, timed))
        assert date in away.on_turn(until, language, timed=timed)


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


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_tournament_that_refuses_away_days_says_so_and_names_no_number(language: str) -> None:
    """A tournament's cap of 0, told to the player refused and to the moderator who set it,
    says the tournament allows no away days, in every language: no "at most 0 days"."""
    refused = away.away_refused(AwayRefusedError(1, 0, 10, by_tournament=True), language)
    assert refused == text("away.refused_tournament_off", language)
    capped = away.tournament_capped(0, language)
    assert capped == text("away.tournament_capped_off", language)
    for said in (refused, capped):
        assert not any(character.isdigit() for character in said), said
    assert "3" in away.tournament_capped(3, language), "a cap of days names them"


def test_a_full_hour_left_reads_in_hours() -> None:
    """Exactly an hour left reads "1 h 0 min", the way every longer time reads."""
    assert away.duration(timedelta(hours=1), "en") == "1 h 0 min"


def test_under_a_minute_left_does_not_read_as_none() -> None:
    """A clock back with seconds left reads "under a minute", not "0 min" (out of time?)."""
    assert away.duration(timedelta(seconds=20), "en") == "under a minute"
    assert away.duration(timedelta(seconds=20), "fr") == "moins d'une minute"
    assert away.duration(timedelta(seconds=20), "uk") == "менше хвилини"
    assert away.duration(timedelta(seconds=60), "en") == "1 min"


def test_a_month_s_allowance_is_named_alone_when_it_refuses() -> None:
    """Asked within the server's days at once, the refusal is the month's: it says so first,
    not the cap the person did not pass; days that run into next month name that month."""
    month = away.away_refused(AwayRefusedError(1, 7, 0), "en")
    assert month == (
        "You have 0 days away left this month on this server (at most 10 a month, in whole "
        "days begun). Nothing changed."
    )
    assert "at once" not in month
    later = away.away_refused(AwayRefusedError(7, 14, 4, next_month=True), "en")
    assert later.startswith("Those days run into next month, where 4 days away are left")


def test_up_next_is_left_out_once_the_turn_it_announced_began() -> None:
    """A game's "your turn is next" and then "your turn began" held in the same night: the
    first is no longer true when the message goes, and is left out."""
    release = datetime(2026, 12, 8, 12, tzinfo=UTC)
    notices = [
        HeldNotice(7, 9, 500, 12, 3, "next", "en", release),
        HeldNotice(7, 9, 500, 12, 5, "turn", "en", release),
        HeldNotice(7, 9, 501, 13, 4, "next", "en", release),
    ]
    assert (away.held_message(notices) or "").splitlines()[1:] == [
        "• Game #12: your turn began (<#500>).",
        "• Game #13: your turn is next (<#501>).",
    ]


@pytest.mark.parametrize("language", ["en", "fr", "uk"])
def test_a_held_turn_says_when_it_ends_or_that_its_time_ran_out(language: str) -> None:
    """As the hours end: game 12 still waits for the person's move, and its last line says
    when the turn ends (Discord shows the moment relative to each reader's now). Game 13's turn
    ran out in the night: its lines become one saying the AI played it. Game 14's turn was
    played by the person: nothing of it is said. In game 15 a turn ran out and the next one
    began in the same night: the first is told as run out, the second as under way."""
    release = datetime(2026, 12, 8, 12, tzinfo=UTC)
    night = release - timedelta(hours=8)
    ends = release + timedelta(hours=5)
    later = night + timedelta(hours=4)

    def held(game: int, kind: str, at: datetime = night) -> HeldNotice:
        return HeldNotice(7, 9, 488 + game, game, 3, kind, language, release, at)

    notices = [
        held(12, "turn"),
        held(13, "turn"),
        held(14, "turn"),
        held(12, "remind"),
        held(13, "remind"),
        held(15, "turn"),
        held(15, "turn", later),
    ]
    turns = {
        12: TurnNow(12, True, ends, night),
        13: TurnNow(13, False, timed_out=True),
        14: TurnNow(14, False),
        15: TurnNow(15, True, ends, later, timed_out=True),
    }
    lines = (away.held_message(notices, turns) or "").splitlines()[1:]
    until = " " + text("quiet.held_ends", language, when=f"<t:{int(ends.timestamp())}:R>")
    assert lines == [
        text("quiet.held_turn", language, game_id=12, link="<#500>"),
        text("quiet.held_ran_out", language, game_id=13, link="<#501>"),
        text("quiet.held_remind", language, game_id=12, link="<#500>") + until,
        text("quiet.held_ran_out", language, game_id=15, link="<#503>"),
        text("quiet.held_turn", language, game_id=15, link="<#503>") + until,
    ]
    assert away.held_message([held(14, "turn")], turns) is None, "nothing left worth saying"
    untimed = {game: TurnNow(game, True, None) for game in (12, 13, 14, 15)}
    assert away.held_message(notices, untimed) == away.held_message(notices), "no clock to tell"
