"""Away days and quiet hours through the service on a real database (each back end), with an
injected clock: a turn clock stops while its player is away or quiet and starts again with the
time it had left; reminders due in quiet hours are held and sent once, as one piece of work per
person, when the hours end; the allowance and bad quiet hours are refused and change nothing.
Time only moves when a test moves it."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import heapq
import logging
import zoneinfo
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.services import DueKind, DueWork, GameView, TurnReason, time_rules
from bot.services.away import AwayService
from bot.services.errors import BadOptionError
from bot.services.guilds import GuildService
from bot.services.seat_errors import Unreachable
from bot.services.time_rules import (
    DEFAULT_AWAY_DAYS,
    LONGEST_QUIET,
    MONTHLY_AWAY_DAYS,
    AwayRefusedError,
    Interval,
    NotAwayError,
    QuietHours,
    TurnNow,
    advance,
    running,
)
from bot.services.tournament_views import TournamentStatus
from bot.services.tournaments import TournamentService
from bot.storage import Database, GuildStore, open_database
from bot.storage.away import AwayStore, HeldNotice, TimeSettings
from bot.storage.database import Connection
from bot.storage.tournaments import TournamentStore
from tests.bot.services.test_async_play import (
    BOB,
    CAROL,
    GUILD,
    HOST,
    LIMIT,
    ManualClock,
    Table,
    make_table,
    play_turn,
    run_until_quiet,
    two_humans,
)
from tests.bot.services.test_pause import at_the_ai_s_turn_in_their_seat, time_out_three_times
from tests.bot.services.test_ratings import opened
from tests.bot.services.test_substitutes import seat_of
from tests.bot.services.test_tournaments import end_by_resignations, set_up
from tests.polling import until
from tests.round_trips import counting

DAY = timedelta(days=1)
HOLDING_PASS = 4
"""The round trips of the pass that holds a reminder: the claim, the read of the player's time
away, the reminder marked sent and the notice written (the pass that sends a reminder makes
the first and the third; the edge's release of the claim is one more in both)."""
RELEASING_PASS = 3
"""The round trips of the pass that sends the held notices: the claim of the games' due work
that every pass makes, then the notices' claim and their marking, one statement each,
whatever their number."""
KYIV = "Europe/Kyiv"


class AwayTable(Table):
    """The service's table whose handler also sends the held notices (into a log)."""

    released: list[list[HeldNotice]]

    async def handle(self, work: DueWork) -> None:
        if work.kind is DueKind.RELEASE:
            self.released.append(self.service.turns.held(work))
            await self.service.turns.held_sent(work)
            await self.service.turns.release(work)
            return
        if work.kind is DueKind.REMIND:
            reminder = await self.service.turns.remind(work.game_id, work.seq)
            if reminder is not None:
                self.reminders.append(reminder)
            return
        if work.kind is DueKind.PLAY:
            turn = await self.service.turns.play_due(work.game_id, work.seq)
            if turn is not None:
                self.turns.append(turn)  # type: ignore[arg-type]
                await self.show(turn.view)
            return
        await super().handle(work)


@pytest.fixture
def table(database: Database) -> AwayTable:
    made = make_table(database, ManualClock(datetime(2026, 3, 2, 12, tzinfo=UTC)))
    away = AwayTable(made.database, made.clock, made.service, made.scheduler)
    away.released = []
    away.scheduler._handle = away.handle  # the scheduler hands its work to this table
    return away


async def who_moves(table: AwayTable, limit: int = LIMIT) -> tuple[GameView, int, int]:
    """A game of two people started on `table` with a turn limit of `limit` seconds: the game,
    the person to move and the other."""
    view = await two_humans(table, limit=limit)
    mover = view.user_to_move
    assert mover is not None
    return view, mover, BOB if mover == HOST else HOST


async def sleep_for(table: Table) -> timedelta | None:
    seconds = await table.scheduler.seconds_to_sleep()
    return None if seconds is None else timedelta(seconds=seconds)


# --- running time ------------------------------------------------------------------------------


def test_a_clock_runs_only_outside_its_stops() -> None:
    start = datetime(2026, 3, 2, 12, tzinfo=UTC)
    stops = [(start + timedelta(hours=1), start + timedelta(hours=3))]
    assert advance(start, 3600, iter(stops)) == start + timedelta(hours=1)
    assert advance(start, 7200, iter(stops)) == start + timedelta(hours=4)
    assert running(start, start + timedelta(hours=4), iter(stops)) == timedelta(hours=2)
    quiet = QuietHours.parse("23:00", "08:00", KYIV)
    # Kyiv is UTC+2 in early March: quiet from 21:00 to 06:00 UTC; 12:00 + 10 h of running
    # time is 22:00 on the next day's clock: 9 h to 21:00, then 1 h after 06:00.
    assert advance(start, 10 * 3600, quiet.windows(start)) == start + timedelta(hours=19)
    assert quiet.until(start) is None
    assert quiet.until(start + timedelta(hours=10)) == start + timedelta(hours=18)


def at(day: tuple[int, int, int], hour: int, minute: int = 0) -> datetime:
    return datetime(*day, hour, minute, tzinfo=UTC)


def test_quiet_nights_inside_days_away_neither_wind_the_clock_back_nor_stop_it_twice() -> None:
    """Stops may overlap: a quiet night that falls inside days away is time the clock stood
    still already. A 1-day turn begun at 12:00 UTC on Monday 2 March as its player (Kyiv, quiet
    23:00 to 08:00, 21:00 to 06:00 UTC) leaves for 2 days runs 9 h on Wednesday evening, stops
    for the night, and runs its last 15 h on Thursday: it ends at 21:00, not before."""
    start = at((2026, 3, 2), 12)
    quiet = QuietHours.parse("23:00", "08:00", KYIV)
    away = (start, start + 2 * DAY)

    def stops() -> Iterator[Interval]:
        return heapq.merge(iter([away]), quiet.windows(start))

    assert advance(start, DAY.total_seconds(), stops()) == at((2026, 3, 5), 21)
    assert advance(start, 9 * 3600, stops()) == at((2026, 3, 4), 21), "Wednesday's 9 hours"
    assert running(start, at((2026, 3, 5), 21), stops()) == DAY
    assert running(start, at((2026, 3, 4), 15), stops()) == timedelta(hours=3)


def test_quiet_hours_keep_to_the_local_clock_when_summer_time_begins_and_ends() -> None:
    quiet = QuietHours.parse("23:30", "07:30", "Europe/Paris")
    # Paris goes from UTC+1 to UTC+2 at 02:00 on 29 March 2026: that night is an hour short.
    spring = quiet.windows(at((2026, 3, 28), 12))
    assert next(spring) == (at((2026, 3, 28), 22, 30), at((2026, 3, 29), 5, 30))
    assert next(spring) == (at((2026, 3, 29), 21, 30), at((2026, 3, 30), 5, 30))
    # ... and back at 03:00 on 25 October 2026: that night is an hour long.
    autumn = quiet.windows(at((2026, 10, 24), 12))
    assert next(autumn) == (at((2026, 10, 24), 21, 30), at((2026, 10, 25), 6, 30))
    assert next(autumn) == (at((2026, 10, 25), 22, 30), at((2026, 10, 26), 6, 30))
    # A turn begun at 21:00 in Paris runs 2 h 30 min before the short night and 2 h 30 min
    # after it, by 09:00 (summer time) in the morning.
    start = at((2026, 3, 28), 20)
    assert running(start, at((2026, 3, 29), 8), quiet.windows(start)) == timedelta(hours=5)
    assert advance(start, 5 * 3600, quiet.windows(start)) == at((2026, 3, 29), 8)
    assert quiet.until(at((2026, 3, 29), 5)) == at((2026, 3, 29), 5, 30)


def test_quiet_hours_that_begin_in_an_hour_skipped_or_repeated_keep_to_the_local_clock() -> None:
    """02:30 does not happen in Paris on 29 March 2026 (the clocks jump from 02:00 to 03:00)
    and happens twice on 25 October (03:00 goes back to 02:00): hours from 02:30 to 08:00
    begin by the clock of the time before the change, so they last an hour less in spring
    (4 h 30 min, from 03:30 summer time) and an hour more in autumn (6 h 30 min, from the
    first 02:30); neither begins before 02:00 local."""
    quiet = QuietHours.parse("02:30", "08:00", "Europe/Paris")
    spring = next(quiet.windows(at((2026, 3, 28), 12)))
    assert spring == (at((2026, 3, 29), 1, 30), at((2026, 3, 29), 6))
    assert quiet.until(at((2026, 3, 29), 0, 45)) is None, "01:45 in Paris: not quiet yet"
    autumn = next(quiet.windows(at((2026, 10, 24), 12)))
    assert autumn == (at((2026, 10, 25), 0, 30), at((2026, 10, 25), 7))
    assert autumn[1] - autumn[0] == timedelta(hours=6, minutes=30)


def test_quiet_hours_that_end_in_an_hour_skipped_or_repeated_keep_to_the_local_clock() -> None:
    """Hours from 22:00 to 02:30 in Paris end, like those that begin then, by the clock of the
    time before the change: at 03:30 summer time on 29 March 2026 (3 h 30 min), and at the
    first 02:30 on 25 October (5 h 30 min)."""
    quiet = QuietHours.parse("22:00", "02:30", "Europe/Paris")
    spring = next(quiet.windows(at((2026, 3, 28), 12)))
    assert spring == (at((2026, 3, 28), 21), at((2026, 3, 29), 1, 30))
    assert quiet.until(at((2026, 3, 29), 1)) == at((2026, 3, 29), 1, 30), "03:00 summer time"
    autumn = next(quiet.windows(at((2026, 10, 24), 12)))
    assert autumn == (at((2026, 10, 24), 20), at((2026, 10, 25), 0, 30))
    assert quiet.until(at((2026, 10, 25), 0, 30)) is None, "the second 02:00 is not quiet"


def test_quiet_hours_are_under_way_from_their_first_moment_until_their_end() -> None:
    """A window of quiet hours is [start, end): a ping due at its very first moment is held,
    as the turn clock already stands still then."""
    quiet = QuietHours.parse("23:00", "08:00", KYIV)
    # Kyiv is UTC+2 in early March: quiet from 21:00 to 06:00 UTC.
    start, end = at((2026, 3, 2), 21), at((2026, 3, 3), 6)
    assert next(quiet.windows(start)) == (start, end)
    assert quiet.until(start - timedelta(microseconds=1)) is None
    assert quiet.until(start) == end, "the first moment of the hours is quiet"
    assert quiet.until(end - timedelta(microseconds=1)) == end
    assert quiet.until(end) is None, "their end is not"
    assert advance(start, 60, quiet.windows(start)) == end + timedelta(seconds=60)


def test_quiet_hours_that_the_skipped_hour_swallows_stop_no_clock_that_night() -> None:
    """Hours from 02:50 to 03:10 in Paris begin, on 29 March 2026, by the clock of before the
    change: at 03:50 summer time, after they would end. That night has none, and a clock
    running through it loses no time to them, nor gains any."""
    quiet = QuietHours.parse("02:50", "03:10", "Europe/Paris")
    start = at((2026, 3, 28), 23)
    windows = quiet.windows(start)
    assert next(windows) == (at((2026, 3, 30), 0, 50), at((2026, 3, 30), 1, 10))
    assert running(start, at((2026, 3, 29), 3), quiet.windows(start)) == timedelta(hours=4)
    assert advance(start, 4 * 3600, quiet.windows(start)) == at((2026, 3, 29), 3)


def test_quiet_hours_under_way_are_found_where_the_local_day_is_behind_utc_s() -> None:
    """At 13:30 in Pago Pago (UTC-11, no summer time) on 2 March it is already 3 March in UTC:
    the hours from 22:00 the evening before to 14:00 are still under way, for half an hour."""
    quiet = QuietHours.parse("22:00", "14:00", "Pacific/Pago_Pago")
    now = at((2026, 3, 3), 0, 30)
    assert quiet.until(now) == at((2026, 3, 3), 1)
    assert running(now, at((2026, 3, 3), 2), quiet.windows(now)) == timedelta(hours=1)


@pytest.mark.parametrize(
    ("starts", "ends", "zone", "option"),
    [
        ("23:00", "08:00", "Mars/Olympus", "timezone"),
        ("23:00", "08:00", "Europe/Kyiv/", "timezone"),
        ("23:00", "08:00", "../Kyiv", "timezone"),
        ("23:00", "08:00", "zone.tab", "timezone"),
        ("08:00", "08:00", KYIV, "quiet_length"),
        ("00:00", "00:00", KYIV, "quiet_length"),
        ("06:00", "23:00", KYIV, "quiet_length"),
        ("25:00", "08:00", KYIV, "from"),
        ("23:00", "8", KYIV, "to"),
        ("23:00", "08:00:30", KYIV, "to"),
        ("23:00", "07.30", KYIV, "to"),
        ("23:00", "7:30", KYIV, "to"),
        ("23:00", "0730", KYIV, "to"),
        ("2300", "07:30", KYIV, "from"),
        ("23.30", "07:00", KYIV, "from"),
        ("23:00", "07,30", KYIV, "to"),
        ("23:00", "0730Z", KYIV, "to"),
        ("T2300", "07:00", KYIV, "from"),
    ],
)
def test_bad_quiet_hours_are_refused_by_name(
    starts: str, ends: str, zone: str, option: str
) -> None:
    with pytest.raises(BadOptionError) as refused:
        QuietHours.parse(starts, ends, zone)
    assert refused.value.option == option


def test_quiet_hours_of_sixteen_hours_are_allowed_and_a_minute_more_refused() -> None:
    assert QuietHours.parse("22:00", "14:00", KYIV).length() == LONGEST_QUIET
    assert timedelta(hours=16) == LONGEST_QUIET
    with pytest.raises(BadOptionError) as refused:
        QuietHours.parse("22:00", "14:01", KYIV)
    assert refused.value.option == "quiet_length"


def test_a_time_zone_typed_in_another_case_is_the_zone_it_names() -> None:
    """A phone user who types the zone rather than picking it is not refused for its case."""
    assert QuietHours.parse("23:00", "08:00", "america/new_york").timezone == "America/New_York"
    assert QuietHours.parse("23:00", "08:00", " EUROPE/KYIV ").timezone == KYIV


# --- away days ---------------------------------------------------------------------------------


async def test_away_stops_the_clock_and_coming_back_restarts_it_with_the_time_left(
    table: AwayTable,
) -> None:
    view, mover, _ = await who_moves(table)
    table.clock.advance(100)
    until, games = await table.service.away.go_away(GUILD, mover, 2)
    assert until == table.clock.now + 2 * DAY
    assert [game.game_id for game in games] == [view.id]
    assert (await table.service.away.availability(GUILD, mover)).away_until == until

    table.clock.advance(LIMIT)  # the reminder and the end were due: the clock stood still
    await table.scheduler.run_due()
    assert table.reminders == []
    assert table.turns == []
    assert await sleep_for(table) == until - table.clock.now, "then the days' end is told"

    table.clock.advance(3600)
    resumed = await table.service.away.come_back(GUILD, mover)
    assert [(game.game_id, game.left) for game in resumed] == [
        (view.id, timedelta(seconds=LIMIT - 100))
    ]
    assert (await table.service.away.availability(GUILD, mover)).reachable
    assert await sleep_for(table) == timedelta(seconds=LIMIT / 2 - 100)
    table.clock.advance(LIMIT / 2 - 100)
    await table.scheduler.run_due()
    assert [reminder.user_id for reminder in table.reminders] == [mover]
    table.clock.advance(LIMIT / 2)
    await table.scheduler.run_due()
    assert [turn.user_id for turn in table.turns] == [mover], "the AI played at the real end"
    with pytest.raises(NotAwayError):
        await table.service.away.come_back(GUILD, mover)


async def test_away_stops_the_clock_on_a_server_whose_clocks_run_in_quiet_hours(
    table: AwayTable,
) -> None:
    """Letting clocks run in quiet hours lets only quiet hours run: while away, the player
    gets no reminder and no timeout, and back, their clock runs with the time it had left."""
    away = table.service.away
    await away.set_clocks_in_quiet(GUILD, True)
    view, mover, _ = await who_moves(table)
    table.clock.advance(100)
    await away.go_away(GUILD, mover, 1)
    table.clock.advance(LIMIT)  # the reminder and the end were due: the clock stood still
    for _ in range(3):  # past the scheduler's retry of work it handled just before
        await table.scheduler.run_due()
        table.clock.advance(31)
    assert table.reminders == []
    assert table.turns == [], "away: no timeout"
    resumed = await away.come_back(GUILD, mover)
    assert [(game.game_id, game.left) for game in resumed] == [
        (view.id, timedelta(seconds=LIMIT - 100))
    ]


async def test_going_away_again_while_away_counts_the_running_spell_only_until_then(
    table: AwayTable,
) -> None:
    """Asking again while away ends the running spell then, as `back` would: the month's ten
    days count its days begun, not the days it was asked for. 4 days, then 1 day of a spell
    asked for 5, then 5 more: 10 of March's 10."""
    away = table.service.away
    table.clock.now = datetime(2026, 3, 2, 12, tzinfo=UTC)
    await away.go_away(GUILD, HOST, 4)
    table.clock.now = datetime(2026, 3, 10, 12, tzinfo=UTC)
    await away.go_away(GUILD, HOST, 5)
    table.clock.now = datetime(2026, 3, 11, 12, tzinfo=UTC)
    until, _ = await away.go_away(GUILD, HOST, 5)
    assert until == datetime(2026, 3, 16, 12, tzinfo=UTC)
    table.clock.now = datetime(2026, 3, 20, 12, tzinfo=UTC)
    with pytest.raises(AwayRefusedError) as refused:  # and March has none left
        await away.go_away(GUILD, HOST, 1)
    assert refused.value.left == 0


async def reminded_at_half_the_limit(table: AwayTable) -> int:
    """The game's first mover, reminded once its turn reaches half the limit."""
    _, mover, _ = await who_moves(table)
    table.clock.advance(LIMIT / 2)
    await table.scheduler.run_due()
    assert [reminder.user_id for reminder in table.reminders] == [mover]
    return mover


async def test_a_turn_reminded_before_its_player_went_away_is_not_reminded_again_once_back(
    table: AwayTable,
) -> None:
    """The reminder at half the limit pings the player once: their clock, stopped by days
    away after it and started again by coming back, runs on to the turn's end with no second
    reminder."""
    mover = await reminded_at_half_the_limit(table)
    table.clock.advance(10)
    await table.service.away.go_away(GUILD, mover, 1)
    table.clock.advance(3600)
    await table.service.away.come_back(GUILD, mover)
    for seconds in (0, 31, 62):  # past the scheduler's retry of work it handled just before
        table.clock.advance(seconds)
        await table.scheduler.seconds_to_sleep()
        await table.scheduler.run_due()
    assert len(table.reminders) == 1, "reminded once"
    left = timedelta(seconds=LIMIT / 2 - 10 - 93)
    assert await sleep_for(table) == left, "next: the end of the turn"
    table.clock.advance(left.total_seconds())
    await table.scheduler.run_due()
    assert [turn.user_id for turn in table.turns] == [mover], "out of time at the real end"


async def test_a_turn_reminded_before_its_player_went_away_is_not_reminded_while_away(
    table: AwayTable,
) -> None:
    """Reminded at half the limit, then away: as the turn's old end comes, its clock is found
    stopped and set later, and that gives the reminder sent no second life. Nothing reaches
    the person while they are away."""
    mover = await reminded_at_half_the_limit(table)
    table.clock.advance(60)
    await table.service.away.go_away(GUILD, mover, 1)
    table.clock.advance(LIMIT / 2)  # past the end the turn had before the days away
    for _ in range(4):  # past the scheduler's retry of work it handled just before
        await table.scheduler.run_due()
        table.clock.advance(31)
    assert [reminder.user_id for reminder in table.reminders] == [mover], "reminded once"
    assert table.turns == [], "away: the clock stands still"


async def test_a_turn_reminded_before_days_away_that_run_out_is_not_reminded_again(
    table: AwayTable,
) -> None:
    """Reminded at half the limit, then away until the days run out by themselves: the
    clock set later as the turn's old end comes keeps no reminder still to send, so the
    player hears nothing more before their time runs out at its real end."""
    mover = await reminded_at_half_the_limit(table)
    table.clock.advance(60)
    until, _ = await table.service.away.go_away(GUILD, mover, 1)
    table.clock.advance(LIMIT / 2)  # past the end the turn had before the days away
    await table.scheduler.run_due()
    table.clock.now = until
    for _ in range(4):  # past the scheduler's retry of work it handled just before
        await table.scheduler.run_due()
        table.clock.advance(31)
    assert [reminder.user_id for reminder in table.reminders] == [mover], "reminded once"
    end = until + timedelta(seconds=LIMIT / 2 - 60)
    table.clock.now = end
    await table.scheduler.run_due()
    assert [reminder.user_id for reminder in table.reminders] == [mover], "reminded once"
    assert [turn.user_id for turn in table.turns] == [mover], "out of time at the real end"


async def test_a_reminder_due_before_its_player_went_away_and_not_yet_sent_waits_for_their_return(
    table: AwayTable,
) -> None:
    """The reminder fell due, the bot had not sent it yet (it was down, or behind), and the
    player went away: it does not ping them while they are away, and it goes once they are
    back (their turn has used half its time by then)."""
    _, mover, _ = await who_moves(table)
    table.clock.advance(LIMIT / 2 + 60)  # the reminder is due, and nobody has looked yet
    until, _ = await table.service.away.go_away(GUILD, mover, 1)
    for _ in range(4):  # past the scheduler's retry of work it handled just before
        await table.scheduler.run_due()
        table.clock.advance(31)
    assert table.reminders == [], "away: no reminder reaches them"
    assert table.turns == [], "away: the clock stands still"
    table.clock.now = until + timedelta(seconds=1)
    for _ in range(4):
        await table.scheduler.run_due()
        table.clock.advance(31)
    assert [reminder.user_id for reminder in table.reminders] == [mover], "back: reminded once"


async def test_days_away_running_out_are_told_once_with_the_time_left(
    table: AwayTable,
) -> None:
    view, mover, _ = await who_moves(table)
    away = table.service.away
    table.clock.advance(100)
    until, _ = await away.go_away(GUILD, mover, 1)
    table.clock.now = until + timedelta(seconds=1)
    await table.scheduler.run_due()
    assert [[(n.user_id, n.game_id, n.kind) for n in sent] for sent in table.released] == [
        [(mover, 0, "back")]
    ]
    resumed = await away.days_over(table.released[0][0])
    assert resumed is not None, "not away again"
    assert [(game.game_id, game.left) for game in resumed] == [
        (view.id, timedelta(seconds=LIMIT - 101))
    ]
    for minutes in (0, 1, 2, 5, 30, 120):  # past every pause of the scheduler's retries
        table.clock.advance(minutes * 60)
        await table.scheduler.seconds_to_sleep()
        await table.scheduler.run_due()
    assert len(table.released) == 1, "told once: the telling is stored, not only put off"

    await away.go_away(GUILD, mover, 1)
    await away.come_back(GUILD, mover)  # early: its own line, and nothing at the days' end
    table.clock.advance(DAY.total_seconds() + 1)
    await table.scheduler.seconds_to_sleep()
    await table.scheduler.run_due()
    assert [n.kind for sent in table.released for n in sent] == ["back"]


async def test_the_time_left_told_when_days_away_end_leaves_out_the_quiet_hours_to_come(
    table: AwayTable,
) -> None:
    """The clock ran 100 s before the days away and 1 s after them: the person's next quiet
    hours, still to come, have not run yet."""
    # 12:00 UTC is 14:00 in Kyiv; quiet from 23:00 to 08:00 there (21:00 to 06:00 UTC).
    view, mover, _ = await who_moves(table, limit=int(DAY.total_seconds()))
    away = table.service.away
    await away.set_quiet_hours(mover, QuietHours.parse("23:00", "08:00", KYIV))
    table.clock.advance(100)
    until, _ = await away.go_away(GUILD, mover, 1)  # back at 12:01:40 UTC, before 21:00
    table.clock.now = until + timedelta(seconds=1)
    await table.scheduler.run_due()
    (notice,) = [n for sent in table.released for n in sent if n.kind == "back"]
    resumed = await away.days_over(notice)
    assert resumed is not None, "not away again"
    assert [(game.game_id, game.left) for game in resumed] == [
        (view.id, DAY - timedelta(seconds=101))
    ]


async def test_days_away_over_tell_nothing_while_away_again(table: AwayTable) -> None:
    _, mover, _ = await who_moves(table)
    away = table.service.away
    until, _ = await away.go_away(GUILD, mover, 1)
    table.clock.now = until
    await away.go_away(GUILD, mover, 1)  # away again before the first days' end is told
    notice = HeldNotice(mover, GUILD, 0, 0, 0, "back", "en", until)
    assert await away.days_over(notice) is None, "still away: the clock stays stopped"


async def test_coming_back_restarts_only_the_turns_waiting_for_that_person(
    table: AwayTable,
) -> None:
    _, _, other = await who_moves(table)
    away = table.service.away
    table.clock.advance(100)
    await away.go_away(GUILD, other, 1)
    table.clock.advance(100)
    assert await away.come_back(GUILD, other) == [], "no game waits for their move"
    assert await sleep_for(table) == timedelta(seconds=LIMIT / 2 - 200), "the mover's clock ran"


async def test_coming_back_leaves_a_seat_the_ai_plays_to_the_ai(table: AwayTable) -> None:
    """A seat handed to the AI after three timeouts has no clock to start again: coming back
    tells nothing of it, and the AI still plays its turn at once."""
    view, sleeper, other = await who_moves(table)
    for _ in range(3):
        table.clock.advance(LIMIT)
        await table.scheduler.run_due()
        view = await play_turn(table, await table.service.play.look(view.id), other)
    assert view.user_to_move == sleeper
    assert view.ai_to_move, "handed over: the AI plays the sleeper's seat"
    away = table.service.away
    await away.go_away(GUILD, sleeper, 1)
    table.clock.advance(60)
    assert await away.come_back(GUILD, sleeper) == []
    await table.scheduler.run_due()
    assert (table.turns[-1].reason, table.turns[-1].user_id) == (TurnReason.AUTOPLAY, sleeper)


async def test_days_away_over_do_not_tell_a_turn_whose_time_ran_out_meanwhile(
    table: AwayTable,
) -> None:
    _, mover, _ = await who_moves(table)
    until, _ = await table.service.away.go_away(GUILD, mover, 1)
    table.clock.now = until + timedelta(seconds=LIMIT + 1)  # told late: the time is out
    notice = HeldNotice(mover, GUILD, 0, 0, 0, "back", "en", until)
    assert await table.service.away.days_over(notice) == []


async def test_only_running_games_are_told_of_time_away_and_an_untimed_one_of_no_clock(
    table: AwayTable,
) -> None:
    """A game still gathering its players waits at nobody's turn: its channel is not told.
    A running game with no turn limit is told, as one with no clock to stop."""
    service = table.service
    lobby = await service.lobby.create_lobby(
        guild_id=GUILD, channel_id=741, host_id=HOST, seats=2, turn_limit_seconds=LIMIT
    )
    untimed = await service.lobby.create_lobby(
        guild_id=GUILD, channel_id=742, host_id=HOST, seats=2, turn_limit_seconds=None
    )
    await service.lobby.join(untimed.id, BOB)
    await table.show(await service.lobby.start(untimed.id, HOST))
    timed = await two_humans(table)
    _, told = await service.away.go_away(GUILD, HOST, 1)
    assert {game.game_id: game.timed for game in told} == {untimed.id: False, timed.id: True}
    assert lobby.id not in {game.game_id for game in await service.away.running_games(GUILD, HOST)}


async def test_a_game_whose_seat_of_theirs_went_out_is_not_told_of_their_time_away(
    table: AwayTable,
) -> None:
    """A seat that could not pay (R9) is out, though its person never resigned: the game
    never waits at their turns again, so no line in its channel says it does, nor that they
    are back; a player still in is told of in both."""
    service = table.service
    view = await opened(service, (HOST, BOB, CAROL), channel=731)
    loaded = service.loader.in_memory(view.id)
    assert loaded is not None
    assert loaded.state is not None
    out, still_in = (BOB, CAROL) if seat_of(view, BOB) != loaded.state.to_move else (CAROL, BOB)
    out_seat = seat_of(view, out)
    assert out_seat is not None
    service.loader.keep(
        dataclasses.replace(loaded, state=loaded.state._replace(eliminated=(out_seat,)))
    )
    assert (await service.away.go_away(GUILD, out, 1))[1] == []
    assert await service.away.running_games(GUILD, out) == [], "nor told they are back"
    _, told = await service.away.go_away(GUILD, still_in, 1)
    assert [game.game_id for game in told] == [view.id]


async def test_a_game_whose_seat_of_theirs_the_ai_plays_is_not_told_of_their_time_away(
    table: AwayTable,
) -> None:
    """A seat the AI took over after three timeouts is played at once: the game waits at no
    turn of its person's, so no line in its channel says it does, nor that they are back;
    the other player is told of in both."""
    view = await time_out_three_times(table, await two_humans(table), HOST)
    (other,) = [p.user_id for p in view.players if p.user_id not in (None, HOST)]
    assert other is not None
    assert [p.autoplay for p in view.players if p.user_id == HOST] == [True]
    assert (await table.service.away.go_away(GUILD, HOST, 1))[1] == []
    assert await table.service.away.running_games(GUILD, HOST) == [], "nor told they are back"
    _, told = await table.service.away.go_away(GUILD, other, 1)
    assert [game.game_id for game in told] == [view.id]


async def test_a_turn_that_begins_while_away_waits_for_the_end_of_the_days(
    table: AwayTable,
) -> None:
    _, mover, other = await who_moves(table)
    until, _ = await table.service.away.go_away(GUILD, other, 1)
    table.clock.advance(LIMIT)
    await table.scheduler.run_due()  # the mover ran out of time: the AI played for them
    assert [turn.user_id for turn in table.turns] == [mover]
    assert await sleep_for(table) == timedelta(seconds=LIMIT / 2), "as stored at the start"
    table.clock.advance(LIMIT / 2)
    await table.scheduler.run_due()
    assert table.reminders == [], "away: no reminder"
    assert await sleep_for(table) == until - table.clock.now, "the days' end, to tell it"
    table.clock.now = until
    await table.scheduler.run_due()
    assert await sleep_for(table) == timedelta(seconds=LIMIT / 2)


async def test_time_away_on_another_server_stops_no_clock_and_no_nudge_here(
    table: AwayTable,
) -> None:
    """Away days are per server: away on another server, the person can still be nudged
    here, and their turn here is reminded and played at the limit as if they were not away."""
    _, mover, _ = await who_moves(table)
    away = table.service.away
    await away.go_away(GUILD + 1, mover, 2)
    assert await away.unreachable(GUILD, mover) is None, "away from the other server only"
    table.clock.advance(LIMIT / 2)
    await table.scheduler.run_due()
    assert [reminder.user_id for reminder in table.reminders] == [mover]
    table.clock.advance(LIMIT / 2)
    await table.scheduler.run_due()
    assert [turn.user_id for turn in table.turns] == [mover], "this server's clock ran out"


async def test_back_on_one_server_ends_only_that_server_s_days_away(table: AwayTable) -> None:
    """Away days are per server: `back` on a server where the person is not away is refused
    (no channel hears they are back), and `back` on one of two servers they are away on ends
    that server's days away only."""
    view, mover, _ = await who_moves(table)
    away = table.service.away
    await away.go_away(GUILD, mover, 3)
    table.clock.advance(60)
    await away.go_away(GUILD + 1, mover, 2)
    table.clock.advance(60)
    with pytest.raises(NotAwayError):
        await away.come_back(GUILD + 2, mover)
    assert await away.come_back(GUILD + 1, mover) == [], "no game there waits for them"
    assert await away.unreachable(GUILD + 1, mover) is None, "back there"
    assert await away.unreachable(GUILD, mover) is not None, "still away here"
    resumed = await away.come_back(GUILD, mover)
    assert [game.game_id for game in resumed] == [view.id]


async def test_a_server_that_refuses_away_days_leaves_another_server_its_own(
    table: AwayTable,
) -> None:
    """Away days are per server: a server's `away-days 0` refuses them there only; another
    server keeps its 7, which its settings show."""
    away = table.service.away
    await away.set_away_days(GUILD + 1, 0)
    assert (await away.settings(GUILD)).away_days == 7
    until, _ = await away.go_away(GUILD, HOST, 7)
    assert until == table.clock.now + 7 * DAY
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD + 1, HOST, 1)
    assert refused.value.allowed == 0


async def test_away_beyond_the_allowance_is_refused_and_changes_nothing(
    table: AwayTable,
) -> None:
    away = table.service.away
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD, HOST, 8)
    assert (refused.value.allowed, refused.value.left) == (7, MONTHLY_AWAY_DAYS)
    assert (await away.availability(GUILD, HOST)).reachable
    await away.go_away(GUILD, HOST, 7)
    await away.come_back(GUILD, HOST)  # the same moment: nothing used
    await away.go_away(GUILD, HOST, 6)
    table.clock.advance(DAY.total_seconds())
    await away.come_back(GUILD, HOST)  # one day used
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD, HOST, MONTHLY_AWAY_DAYS)
    assert refused.value.left == MONTHLY_AWAY_DAYS - 1
    await away.set_away_days(GUILD, 14)  # the server allows more than the month has left
    await away.go_away(GUILD, HOST, 1)
    table.clock.advance(DAY.total_seconds() / 2)
    await away.come_back(GUILD, HOST)  # half a day away: a whole day begun
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD, HOST, MONTHLY_AWAY_DAYS - 1)
    assert (refused.value.allowed, refused.value.left) == (14, MONTHLY_AWAY_DAYS - 2)
    assert (await away.availability(GUILD, HOST)).reachable, "refused: not away"
    await away.set_away_days(GUILD, 0)
    with pytest.raises(AwayRefusedError):
        await away.go_away(GUILD, HOST, 1)
    with pytest.raises(BadOptionError):
        await away.set_away_days(GUILD, 15)
    assert (await away.settings(GUILD)).away_days == 0


async def test_two_commands_away_at_once_in_two_processes_never_pass_the_month_s_days(
    table: AwayTable, database_target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two `away` commands at the same moment, one in each process (a database of its own
    each), both asking the 5 days March has left: the first is held in the transaction that
    writes its spell until the second has counted what it may take and comes to write its
    own. The second counts the first's days: granted 5 days, the first holds; the second,
    whose start ends the first's spell after a day begun, has 4 left and is refused, and
    March counts its 10 days, not 11."""
    away = table.service.away
    table.clock.now = datetime(2026, 3, 2, 12, tzinfo=UTC)
    await away.go_away(GUILD, HOST, 5)
    table.clock.now = datetime(2026, 3, 10, 12, tzinfo=UTC)  # back on 7 March: 5 days left
    second = await open_database(database_target)
    try:
        elsewhere = make_table(second, ManualClock(table.clock.now + timedelta(hours=1)))
        other_asked, first_done = asyncio.Event(), asyncio.Event()
        first_writes, other_writes = table.database.transaction, second.transaction

        @contextlib.asynccontextmanager
        async def held_in_its_write() -> AsyncIterator[Connection]:
            async with first_writes() as conn:
                await other_asked.wait()
                yield conn

        @contextlib.asynccontextmanager
        async def after_the_first() -> AsyncIterator[Connection]:
            other_asked.set()
            await first_done.wait()
            async with other_writes() as conn:
                yield conn

        monkeypatch.setattr(table.database, "transaction", held_in_its_write)
        monkeypatch.setattr(second, "transaction", after_the_first)

        async def first() -> datetime:
            try:
                return (await away.go_away(GUILD, HOST, 5))[0]
            finally:
                first_done.set()

        async def other() -> datetime:
            try:
                return (await elsewhere.service.away.go_away(GUILD, HOST, 5))[0]
            finally:
                other_asked.set()

        granted, refused = await asyncio.gather(first(), other(), return_exceptions=True)
    finally:
        await second.close()
    assert granted == datetime(2026, 3, 15, 12, tzinfo=UTC)
    assert isinstance(refused, AwayRefusedError), f"the second command got {refused!r}"
    assert (refused.allowed, refused.left) == (DEFAULT_AWAY_DAYS, 4)
    assert (await away.availability(GUILD, HOST)).away_until == granted


async def test_a_spell_begun_last_month_counts_this_month_only_its_days_in_it(
    table: AwayTable,
) -> None:
    """The month's allowance counts whole days begun from the later of the spell's start and
    the month's first moment: days away in February cost nothing in March."""
    away = table.service.away
    await away.set_away_days(GUILD, 14)
    table.clock.now = datetime(2026, 2, 27, 12, tzinfo=UTC)
    await away.go_away(GUILD, HOST, 7)
    table.clock.now = datetime(2026, 3, 2, 12, tzinfo=UTC)
    await away.come_back(GUILD, HOST)  # 1 March 00:00 to 2 March 12:00 in March: 2 days begun
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD, HOST, MONTHLY_AWAY_DAYS - 1)
    assert refused.value.left == MONTHLY_AWAY_DAYS - 2
    await away.go_away(GUILD, HOST, MONTHLY_AWAY_DAYS - 2)


async def test_days_asked_that_fall_next_month_count_in_next_month(table: AwayTable) -> None:
    """Ten days in a calendar month: of a spell asked at a month's end, only the days in that
    month count against it; the rest count in the next month, which has its own ten."""
    away = table.service.away
    await away.set_away_days(GUILD, 14)
    table.clock.now = datetime(2026, 3, 20, 12, tzinfo=UTC)
    await away.go_away(GUILD, HOST, 5)  # 5 days of March used: 5 left
    table.clock.now = datetime(2026, 3, 27, 10, tzinfo=UTC)
    until, _ = await away.go_away(GUILD, HOST, 7)  # 27-31 March: 5 days begun, 3 in April
    assert until == datetime(2026, 4, 3, 10, tzinfo=UTC)
    table.clock.now = datetime(2026, 4, 3, 11, tzinfo=UTC)
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD, HOST, 8)
    assert refused.value.left == MONTHLY_AWAY_DAYS - 3, "April counts only its own 3 days"
    await away.go_away(GUILD, HOST, 7)


async def test_days_away_asked_in_december_count_in_december_and_in_next_year_s_january(
    table: AwayTable,
) -> None:
    """The month after December is January of the next year, whatever today's date: 7 days
    asked on 27 December count 5 in December and 3 in January; 12 asked on 31 December pass
    January's ten, and the refusal names next month's."""
    away = table.service.away
    await away.set_away_days(GUILD, 14)
    await away.set_away_days(GUILD + 1, 14)
    table.clock.now = datetime(2026, 12, 27, 10, tzinfo=UTC)
    until, _ = await away.go_away(GUILD, HOST, 7)
    assert until == datetime(2027, 1, 3, 10, tzinfo=UTC)
    table.clock.now = datetime(2026, 12, 31, 12, tzinfo=UTC)
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD + 1, HOST, 12)  # 1 day of December, 11 begun in January
    assert (refused.value.left, refused.value.next_month) == (MONTHLY_AWAY_DAYS, True)
    await away.go_away(GUILD + 1, HOST, 10)
    table.clock.now = datetime(2027, 1, 3, 11, tzinfo=UTC)
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD, HOST, 8)
    assert (refused.value.left, refused.value.next_month) == (MONTHLY_AWAY_DAYS - 3, False)
    await away.go_away(GUILD, HOST, 7)


async def test_a_spell_that_would_pass_next_month_s_allowance_is_refused(
    table: AwayTable,
) -> None:
    away = table.service.away
    await away.set_away_days(GUILD, 14)
    table.clock.now = datetime(2026, 3, 31, 12, tzinfo=UTC)
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD, HOST, 12)  # 1 day of March, 11 begun in April
    assert refused.value.left == MONTHLY_AWAY_DAYS
    await away.go_away(GUILD, HOST, 10)  # 1 day of March, 10 begun in April


async def test_a_refusal_names_the_month_whose_allowance_the_days_pass(
    table: AwayTable,
) -> None:
    """Days asked within a month whose allowance is used up are refused by this month's;
    days that run into next month and pass its allowance, by next month's."""
    away = table.service.away
    await away.set_away_days(GUILD, 14)
    await away.go_away(GUILD, HOST, 9)  # 9 of March's 10 days
    table.clock.now = datetime(2026, 3, 11, 12, tzinfo=UTC)
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD, HOST, 2)  # all in March
    assert (refused.value.left, refused.value.next_month) == (1, False)
    table.clock.now = datetime(2026, 3, 31, 12, tzinfo=UTC)
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD, HOST, 12)  # 1 day of March, 11 begun in April
    assert (refused.value.left, refused.value.next_month) == (MONTHLY_AWAY_DAYS, True)


async def test_days_past_the_server_s_allowance_name_this_month_s_days_left(
    table: AwayTable,
) -> None:
    """More days than the server allows at once are refused by that allowance, whose answer
    tells the days left this month: this month's, even when the days asked would run into
    next month and pass its allowance too."""
    away = table.service.away
    table.clock.now = datetime(2026, 3, 2, 12, tzinfo=UTC)
    await away.go_away(GUILD, HOST, 5)
    table.clock.now = datetime(2026, 3, 9, 12, tzinfo=UTC)
    await away.go_away(GUILD, HOST, 4)  # 9 of March's 10 days
    table.clock.now = datetime(2026, 3, 31, 12, tzinfo=UTC)
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD, HOST, 12)  # more than 7 at once; 11 begun in April
    assert (refused.value.allowed, refused.value.left) == (DEFAULT_AWAY_DAYS, 1)


def tournaments_on(table: AwayTable) -> TournamentService:
    """The tournaments of the table's service."""
    return TournamentService(
        TournamentStore(table.database), table.service, seeds=lambda: "5e" * 16
    )


async def cup_with_bob(table: AwayTable, channel: int = 700, guild: int = GUILD) -> int:
    """A Swiss tournament of the server `guild` (by default the table's), in `channel`, that
    BOB has joined (HOST has not): its id."""
    tournaments = tournaments_on(table)
    cup = await tournaments.open(
        guild_id=guild,
        channel_id=channel,
        moderator_id=HOST,
        name=f"Cup {channel}",
        format="swiss",
        seats=2,
        rounds=2,
        variant="standard",
        turn_limit_seconds=None,
        locale="en",
    )
    await tournaments.join(cup.id, BOB, "bob")
    return cup.id


async def test_a_tournament_may_cap_or_refuse_its_players_away_days(table: AwayTable) -> None:
    cup = await cup_with_bob(table)
    away = table.service.away
    await away.set_tournament_away_days(cup, 2)
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD, BOB, 3)
    assert (refused.value.allowed, refused.value.by_tournament) == (2, True)
    await away.go_away(GUILD, HOST, 3)  # not one of its players
    await away.go_away(GUILD, BOB, 2)
    await away.set_tournament_away_days(cup, 0)
    with pytest.raises(AwayRefusedError):
        await away.go_away(GUILD, BOB, 1)
    with pytest.raises(BadOptionError):
        await away.set_tournament_away_days(cup, 15)


async def test_days_within_a_tournament_s_cap_refused_by_the_month_name_the_month(
    table: AwayTable,
) -> None:
    """A tournament's player who asks fewer days than its cap allows, past what the month
    leaves them, is refused by the month: the answer names the days left this month, not the
    tournament's cap, which the days asked do not pass."""
    cup = await cup_with_bob(table)
    away = table.service.away
    await away.set_tournament_away_days(cup, 5)
    table.clock.now = datetime(2026, 3, 2, 12, tzinfo=UTC)
    await away.go_away(GUILD, BOB, 5)
    table.clock.now = datetime(2026, 3, 9, 12, tzinfo=UTC)
    await away.go_away(GUILD, BOB, 4)
    table.clock.now = datetime(2026, 3, 16, 12, tzinfo=UTC)
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD, BOB, 3)  # within the cap of 5; 1 day left in March
    assert (refused.value.left, refused.value.by_tournament) == (1, False)


async def test_a_tournament_caps_its_players_away_days_on_its_own_server_only(
    table: AwayTable,
) -> None:
    """Away days are per server: a tournament that refuses them on another server leaves its
    player this server's allowance, and refuses them there."""
    cup = await cup_with_bob(table, guild=GUILD + 1)
    away = table.service.away
    await away.set_tournament_away_days(cup, 0)
    until, _ = await away.go_away(GUILD, BOB, 3)
    assert until == table.clock.now + 3 * DAY
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD + 1, BOB, 1)
    assert (refused.value.allowed, refused.value.by_tournament) == (0, True)


async def test_a_player_in_two_tournaments_gets_the_lower_of_their_caps(table: AwayTable) -> None:
    """One tournament's cap does not lift another's: of the caps of the open tournaments a
    player plays in, the lowest holds, a refusal (0) whatever the other allows."""
    first, second = await cup_with_bob(table), await cup_with_bob(table, channel=701)
    away = table.service.away
    await away.set_tournament_away_days(first, 2)
    await away.set_tournament_away_days(second, 5)
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD, BOB, 3)
    assert (refused.value.allowed, refused.value.by_tournament) == (2, True)
    await away.set_tournament_away_days(first, 0)
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD, BOB, 1)
    assert (refused.value.allowed, refused.value.by_tournament) == (0, True)


async def test_a_tournament_s_cap_may_be_up_to_14_days_as_the_command_offers(
    table: AwayTable,
) -> None:
    cup = await cup_with_bob(table)
    away = table.service.away
    await away.set_tournament_away_days(cup, 0)
    await away.set_tournament_away_days(cup, 14)  # the most /marrakech-mod offers
    with pytest.raises(BadOptionError):
        await away.set_tournament_away_days(cup, 15)
    assert await away.store.tournament_cap(GUILD, BOB) == 14, "the cap of 14 is kept"


async def test_a_tournament_s_cap_above_the_server_s_gives_its_players_the_server_s(
    table: AwayTable,
) -> None:
    # "The lower of its cap and the server's": a cap above the server's lifts nothing.
    cup = await cup_with_bob(table)
    away = table.service.away
    await away.set_away_days(GUILD, 3)
    await away.set_tournament_away_days(cup, 10)
    with pytest.raises(AwayRefusedError) as refused:
        await away.go_away(GUILD, BOB, 5)
    assert (refused.value.allowed, refused.value.by_tournament) == (3, False)
    await away.go_away(GUILD, BOB, 3)


async def test_a_tournament_s_cap_lifts_once_the_tournament_is_closed(table: AwayTable) -> None:
    # The cap holds "while it is open": once cancelled, the server's allowance applies again.
    cup = await cup_with_bob(table)
    away = table.service.away
    await away.set_tournament_away_days(cup, 0)
    with pytest.raises(AwayRefusedError):
        await away.go_away(GUILD, BOB, 3)
    await tournaments_on(table).cancel(cup, HOST, moderator=True)
    await away.go_away(GUILD, BOB, 3)  # within the server's 7 days


async def test_a_tournament_s_cap_lifts_once_the_tournament_is_played_to_its_end(
    table: AwayTable,
) -> None:
    """The cap holds while the tournament runs; once its last round is over, the server's
    allowance applies again, as after a cancel."""
    cup = await cup_with_bob(table)
    tournaments = tournaments_on(table)
    await tournaments.join(cup, CAROL, "carol")
    away = table.service.away
    await away.set_tournament_away_days(cup, 0)
    await tournaments.start(cup, HOST, moderator=True)
    progress = None
    while progress is None or not progress.finished:
        with pytest.raises(AwayRefusedError):
            await away.go_away(GUILD, BOB, 3)
        for game in await set_up(tournaments, cup):
            ended = await end_by_resignations(table.service, game)
            progress = await tournaments.game_closed(ended.id)
    assert (await tournaments.look(cup)).status is TournamentStatus.OVER
    await away.go_away(GUILD, BOB, 3)  # within the server's 7 days


async def test_time_away_kept_in_memory_no_longer_counts_once_it_ends(
    table: AwayTable,
) -> None:
    """What `away_until` read stays in memory until a change is told; a spell in it whose end
    has come is over all the same, with nothing read again."""
    away = table.service.away
    assert await away.away_until(GUILD, HOST) is None  # read, and kept in memory
    until, _ = await away.go_away(GUILD, HOST, 1)
    table.clock.now = until - timedelta(seconds=1)
    assert await away.away_until(GUILD, HOST) == until
    table.clock.now = until
    assert await away.away_until(GUILD, HOST) is None, "away until its end, not at it"
    table.clock.advance(DAY.total_seconds())
    assert await away.away_until(GUILD, HOST) is None


# --- quiet hours -------------------------------------------------------------------------------


@contextlib.contextmanager
def system_time_zones(path: Sequence[str]) -> Iterator[None]:
    """zoneinfo as on a host whose system database of time zones is in the folders `path`
    (none: only the tzdata package is left to find them in). The search path and the caches
    are restored after."""
    saved = zoneinfo.TZPATH
    zoneinfo.reset_tzpath(path)
    ZoneInfo.clear_cache()
    time_rules._zone_by_lower_name.cache_clear()
    try:
        yield
    finally:
        zoneinfo.reset_tzpath(saved)
        ZoneInfo.clear_cache()
        time_rules._zone_by_lower_name.cache_clear()


@pytest.fixture
def no_system_time_zones() -> Iterator[None]:
    """zoneinfo as in an image whose system holds no database of time zones (python:3.11-slim
    may lack it, or lack the old names such as Europe/Kiev)."""
    with system_time_zones([]):
        yield


@pytest.mark.parametrize("name", ["posix/Europe/Paris", "right/Europe/Paris", "localtime"])
def test_a_time_zone_only_the_host_s_system_holds_is_refused(name: str, tmp_path: Path) -> None:
    """A name the host's own database adds to the tzdata package's (its posix/ and right/
    copies, its localtime) would turn the person's clock into an error on a host without it:
    it is refused as an unknown zone, and the zone it copies is taken by its own name."""
    paris = resources.files("tzdata").joinpath("zoneinfo", "Europe", "Paris").read_bytes()
    copy = tmp_path.joinpath(*name.split("/"))
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_bytes(paris)
    with system_time_zones([str(tmp_path)]):
        winter = datetime(2026, 12, 1, tzinfo=UTC)
        assert winter.astimezone(ZoneInfo(name)).hour == 1, "the host's system holds the name"
        with pytest.raises(BadOptionError) as refused:
            QuietHours.parse("23:00", "07:00", name)
        assert refused.value.option == "timezone"
        assert QuietHours.parse("23:00", "07:00", "Europe/Paris").timezone == "Europe/Paris"


@pytest.mark.usefixtures("no_system_time_zones")
async def test_quiet_hours_work_whatever_time_zones_the_system_holds(table: AwayTable) -> None:
    """A zone name is taken, and once stored read back and applied, from the tzdata package
    the bot depends on, so an image rebuilt without the system's database (or its old names:
    Europe/Kiev is Europe/Kyiv's) turns no one's clock into an error."""
    away = table.service.away
    assert table.clock.now.hour == 12, "12:00 UTC: 14:00 in Kyiv"
    for person, zone in ((HOST, "Europe/Kiev"), (BOB, KYIV)):
        quiet = QuietHours.parse("13:00", "16:00", zone)
        assert quiet.timezone == zone
        await away.set_quiet_hours(person, quiet)
    away.changed_elsewhere()  # read back from the database
    for person in (HOST, BOB):
        assert await away.unreachable(GUILD, person) == Unreachable(
            "quiet", datetime(2026, 3, 2, 14, tzinfo=UTC)
        )


async def test_who_can_be_reached_follows_quiet_hours_and_time_away_at_once(
    table: AwayTable,
) -> None:
    away = table.service.away
    assert table.clock.now.hour == 12, "12:00 UTC: 14:00 in Kyiv"
    assert await away.unreachable(GUILD, HOST) is None
    assert await away.quiet_until(HOST) is None
    assert await away.away_until(GUILD, HOST) is None  # read, and kept in memory
    await away.set_quiet_hours(HOST, QuietHours.parse("13:00", "16:00", KYIV))
    quiet_until = table.clock.now + timedelta(hours=2)
    assert await away.unreachable(GUILD, HOST) == Unreachable("quiet", quiet_until)
    assert await away.quiet_until(HOST) is not None, "no direct message in quiet hours"
    until, _ = await away.go_away(GUILD, HOST, 1)
    assert await away.unreachable(GUILD, HOST) == Unreachable("away", until), "away first"
    assert await away.away_until(GUILD, HOST) == until, "the change made here is seen here"
    assert await away.away_until(GUILD + 1, HOST) is None, "away from this server's games only"
    await away.come_back(GUILD, HOST)
    assert await away.away_until(GUILD, HOST) is None


async def test_quiet_hours_set_late_in_a_turn_give_back_no_time_that_ran(
    table: AwayTable,
) -> None:
    """The clock is the time the turn has run: quiet hours set 20 hours into a 24-hour turn
    stop it from then on, not over the hours that already ran."""
    _, mover, _ = await who_moves(table, limit=24 * 3600)  # 2 March 12:00 UTC
    table.clock.advance(20 * 3600)  # 3 March 08:00
    await table.service.away.set_quiet_hours(mover, QuietHours.parse("16:00", "08:00", "UTC"))
    table.clock.advance(4 * 3600 + 60)  # 3 March 12:01: 24 h 1 min have run
    await table.scheduler.run_due()
    assert [turn.user_id for turn in table.turns] == [mover], "their 24 hours ran out"


async def test_quiet_hours_set_while_their_hours_are_under_way_give_back_none_that_ran(
    table: AwayTable,
) -> None:
    """Quiet hours of 06:00 to 10:00 set at 08:00, 20 hours into a 24-hour turn: the clock
    stops from 08:00 to 10:00, not over the two hours from 06:00 that already ran, so the turn
    runs out at 14:00, not 16:00."""
    _, mover, _ = await who_moves(table, limit=24 * 3600)  # 2 March 12:00 UTC
    table.clock.advance(20 * 3600)  # 3 March 08:00
    await table.service.away.set_quiet_hours(mover, QuietHours.parse("06:00", "10:00", "UTC"))
    table.clock.advance(6 * 3600 - 60)  # 3 March 13:59: 23 h 59 min have run
    await table.scheduler.run_due()
    assert table.turns == [], "a minute left"
    table.clock.advance(2 * 60)  # 3 March 14:01
    await table.scheduler.run_due()
    assert [turn.user_id for turn in table.turns] == [mover], "their 24 hours ran out"


async def quiet_four_hours_into_a_night_turn(table: AwayTable) -> int:
    """A 12-hour turn begun at 22:00, its player quiet from 23:00 to 08:00 (UTC) since then;
    now 03:00, four quiet hours on: the player."""
    table.clock.now = datetime(2026, 3, 2, 22, tzinfo=UTC)
    _, mover, _ = await who_moves(table, limit=12 * 3600)
    await table.service.away.set_quiet_hours(mover, QuietHours.parse("23:00", "08:00", "UTC"))
    table.clock.now = datetime(2026, 3, 3, 3, tzinfo=UTC)
    return mover


async def runs_out_at_14(table: AwayTable, mover: int) -> None:
    """The turn of `quiet_four_hours_into_a_night_turn`, its four quiet hours paused and none
    after: still waiting at 13:59, played by the AI at 14:01."""
    for hour, minute in ((4, 0), (10, 1), (13, 59)):
        table.clock.now = datetime(2026, 3, 3, hour, minute, tzinfo=UTC)
        await table.scheduler.run_due()
    assert table.turns == [], "11 h 59 min of their 12 h have run"
    table.clock.now = datetime(2026, 3, 3, 14, 1, tzinfo=UTC)
    await table.scheduler.run_due()
    assert [turn.user_id for turn in table.turns] == [mover]


async def test_quiet_hours_turned_off_keep_the_hours_they_paused(table: AwayTable) -> None:
    """A 12-hour turn begun at 22:00 in quiet hours from 23:00 to 08:00, turned off at 03:00:
    the four hours they paused stay paused, so the turn runs until 14:00, not 10:00."""
    mover = await quiet_four_hours_into_a_night_turn(table)
    await table.service.away.set_quiet_hours(mover, None)
    await runs_out_at_14(table, mover)


async def test_quiet_hours_turned_off_bring_a_turn_s_end_set_later_back_to_its_real_end(
    table: AwayTable,
) -> None:
    """A 24-hour turn begun at 22:00, quiet from 23:00 to 08:00: at 22:00 the next day its end
    is found 16:00 the day after (16 h ran). Quiet hours turned off at 23:30 leave 8 hours to
    run from then: the turn ends at 07:30, not at the 16:00 stored before."""
    table.clock.now = datetime(2026, 3, 2, 22, tzinfo=UTC)
    _, mover, _ = await who_moves(table, limit=24 * 3600)
    await table.service.away.set_quiet_hours(mover, QuietHours.parse("23:00", "08:00", "UTC"))
    table.clock.now = datetime(2026, 3, 3, 22, tzinfo=UTC)
    for _ in range(3):  # past the scheduler's retry of work it handled just before
        await table.scheduler.run_due()
        table.clock.advance(31)
    assert [reminder.user_id for reminder in table.reminders] == [mover]
    assert table.turns == []
    table.clock.now = datetime(2026, 3, 3, 23, 30, tzinfo=UTC)
    await table.service.away.set_quiet_hours(mover, None)
    assert await sleep_for(table) == timedelta(hours=8)
    table.clock.now = datetime(2026, 3, 4, 7, 31, tzinfo=UTC)
    await table.scheduler.run_due()
    assert [turn.user_id for turn in table.turns] == [mover]


async def test_clocks_that_ran_in_quiet_hours_until_the_server_let_them_pause_give_no_hours_back(
    table: AwayTable,
) -> None:
    """A 24-hour turn whose clock ran 20 hours, quiet hours included, before the server let
    clocks pause in them runs out 4 hours on."""
    away = table.service.away
    await away.set_clocks_in_quiet(GUILD, True)
    _, mover, _ = await who_moves(table, limit=24 * 3600)  # 2 March 12:00 UTC
    await away.set_quiet_hours(mover, QuietHours.parse("16:00", "08:00", "UTC"))
    table.clock.advance(20 * 3600)
    await away.set_clocks_in_quiet(GUILD, False)
    table.clock.advance(4 * 3600 + 60)
    await table.scheduler.run_due()
    assert [turn.user_id for turn in table.turns] == [mover], "their 24 hours ran out"


async def test_quiet_hours_that_paused_a_clock_stay_paused_when_the_server_lets_clocks_run(
    table: AwayTable,
) -> None:
    """A 12-hour turn begun at 22:00, paused in quiet hours from 23:00 until the server lets
    clocks run at 03:00, runs until 14:00."""
    mover = await quiet_four_hours_into_a_night_turn(table)
    await table.service.away.set_clocks_in_quiet(GUILD, True)
    await runs_out_at_14(table, mover)


@pytest.mark.parametrize("another_server_runs_them", [False, True])
async def test_quiet_hours_pause_the_clock_by_default(
    table: AwayTable, another_server_runs_them: bool
) -> None:
    """Paused by default, and `quiet-clocks` is a server's setting: another server's `run`
    leaves this server's clocks paused in quiet hours."""
    if another_server_runs_them:
        await table.service.away.set_clocks_in_quiet(GUILD + 1, True)
    # 12:00 UTC is 14:00 in Kyiv: quiet from 14:02 to 16:00 there, so the clock stops after
    # two minutes of the turn and runs again two hours on.
    _, mover, _ = await who_moves(table)
    await table.service.away.set_quiet_hours(mover, QuietHours.parse("14:02", "16:00", KYIV))
    table.clock.advance(LIMIT / 2)
    await table.scheduler.run_due()
    assert table.reminders == [], "the reminder waits for the clock's real half"
    back = datetime(2026, 3, 2, 14, tzinfo=UTC)
    half = back + timedelta(seconds=LIMIT / 2 - 120)
    assert await sleep_for(table) == half - table.clock.now, "paused in the quiet hours here"


async def test_a_reminder_gives_the_real_end_of_a_turn_whose_quiet_hours_come_after_it(
    table: AwayTable,
) -> None:
    """The quiet hours begin after half the limit: the reminder is due as it always was, and
    the end it gives counts the pause still to come."""
    # 12:00 UTC is 14:00 in Kyiv: quiet from 14:07 to 16:00 there (12:07 to 14:00 UTC), so
    # the clock runs 7 of its 10 minutes, stops, and runs its last 3 from 14:00 UTC.
    _, mover, _ = await who_moves(table)
    await table.service.away.set_quiet_hours(mover, QuietHours.parse("14:07", "16:00", KYIV))
    table.clock.advance(LIMIT / 2)
    for _ in range(3):  # past the scheduler's retry of work it handled just before
        await table.scheduler.run_due()
        table.clock.advance(31)
    (reminder,) = table.reminders
    assert reminder.deadline == datetime(2026, 3, 2, 14, 3, tzinfo=UTC)


async def test_a_reminder_due_when_a_pause_moved_only_its_turn_s_end_goes_at_once(
    table: AwayTable, caplog: pytest.LogCaptureFixture
) -> None:
    """Quiet hours after half the limit move the turn's end, not its reminder: the pass that
    finds the reminder due sets the later end and sends the reminder with it, rather than
    leaving it for a retry half a minute later with a warning that the work changed nothing."""
    # 12:00 UTC is 14:00 in Kyiv: quiet from 14:07 to 16:00 there (12:07 to 14:00 UTC).
    _, mover, _ = await who_moves(table)
    await table.service.away.set_quiet_hours(mover, QuietHours.parse("14:07", "16:00", KYIV))
    table.clock.advance(LIMIT / 2)
    with caplog.at_level(logging.WARNING):
        await table.scheduler.run_due()
        assert [reminder.user_id for reminder in table.reminders] == [mover], "sent at once"
        assert table.reminders[0].deadline == datetime(2026, 3, 2, 14, 3, tzinfo=UTC)
        assert await table.scheduler.run_due() == 0, "nothing left due"
    assert [record.getMessage() for record in caplog.records] == []
    assert await sleep_for(table) == datetime(2026, 3, 2, 14, 3, tzinfo=UTC) - table.clock.now


async def test_quiet_hours_then_time_away_in_one_turn_both_stop_its_clock(
    table: AwayTable,
) -> None:
    """The clock stops over the quiet hours that came first in the turn, then over the time
    away: back, it has the time left of both, and the AI does not play the turn."""
    # 12:00 UTC is 14:00 in Kyiv: quiet from 14:02 to 16:00 there (12:02 to 14:00 UTC), so the
    # clock stops two minutes into the turn and runs again two hours on.
    view, mover, _ = await who_moves(table)
    away = table.service.away
    await away.set_quiet_hours(mover, QuietHours.parse("14:02", "16:00", KYIV))
    table.clock.now = datetime(2026, 3, 2, 14, 5, tzinfo=UTC)  # 2 + 5 minutes run
    await away.go_away(GUILD, mover, 1)
    table.clock.advance(3600)
    resumed = await away.come_back(GUILD, mover)
    assert [(game.game_id, game.left) for game in resumed] == [
        (view.id, timedelta(seconds=LIMIT - 7 * 60))
    ]
    await table.scheduler.run_due()
    assert table.turns == [], "three minutes are left: the AI does not play yet"


async def test_days_away_over_quiet_nights_give_the_turn_its_whole_time_once_back(
    table: AwayTable,
) -> None:
    """Quiet hours set, then days away at the start of a 1-day turn: the nights inside the
    days away stop the clock once, not twice, and never wind it back. Back on Wednesday at
    12:00 UTC with their whole day, the player (Kyiv, quiet 21:00 to 06:00 UTC) has 9 hours
    that evening and 15 on Thursday: the AI does not play before Thursday 21:00."""
    away = table.service.away
    for person in (HOST, BOB):
        await away.set_quiet_hours(person, QuietHours.parse("23:00", "08:00", KYIV))
    view, mover, _ = await who_moves(table, limit=int(DAY.total_seconds()))
    until, _ = await away.go_away(GUILD, mover, 2)
    assert until == datetime(2026, 3, 4, 12, tzinfo=UTC)
    table.clock.now = until + timedelta(seconds=1)
    await table.scheduler.run_due()
    (notice,) = [n for sent in table.released for n in sent if n.kind == "back"]
    resumed = await away.days_over(notice)
    assert resumed is not None, "not away again"
    assert [(game.game_id, game.left) for game in resumed] == [
        (view.id, DAY - timedelta(seconds=1))
    ]
    for moment in (at((2026, 3, 4), 15, 1), at((2026, 3, 5), 9, 1), at((2026, 3, 5), 20, 58)):
        table.clock.now = moment
        for _ in range(3):  # past the scheduler's retry of work it handled just before
            await table.scheduler.seconds_to_sleep()
            await table.scheduler.run_due()
            table.clock.advance(31)
        assert table.turns == [], f"{moment:%a %H:%M}: time is left, the AI does not play"
    assert [reminder.user_id for reminder in table.reminders] == [mover], "12 h run by 09:00"
    table.clock.now = at((2026, 3, 5), 21, 1)
    await table.scheduler.run_due()
    assert [turn.user_id for turn in table.turns] == [mover], "its 24 hours ran out"


@pytest.mark.parametrize("saved", ["its away days", "its clocks set to run, then to pause"])
async def test_quiet_hours_pause_the_clock_on_a_server_whose_settings_are_stored(
    table: AwayTable, saved: str
) -> None:
    """A server's stored settings pause the clock in quiet hours as the default does, whether
    it only set its away days or set its clocks to run in quiet hours and back to pause."""
    away = table.service.away
    if saved == "its away days":
        await away.set_away_days(GUILD, 5)
    else:
        await away.set_clocks_in_quiet(GUILD, True)
        await away.set_clocks_in_quiet(GUILD, False)
    _, mover, _ = await who_moves(table)
    await away.set_quiet_hours(mover, QuietHours.parse("14:02", "16:00", KYIV))
    table.clock.advance(LIMIT / 2)
    await table.scheduler.run_due()
    assert table.reminders == [], "the reminder waits for the clock's real half"
    back = datetime(2026, 3, 2, 14, tzinfo=UTC)
    assert await sleep_for(table) == back + timedelta(seconds=LIMIT / 2 - 120) - table.clock.now


async def test_changing_the_away_days_or_the_clocks_in_quiet_hours_keeps_the_other(
    table: AwayTable,
) -> None:
    """Each answers with the settings as they stand after it, as they are read back."""
    away = table.service.away
    assert await away.set_clocks_in_quiet(GUILD, True) == TimeSettings(GUILD, 7, True)
    running = TimeSettings(GUILD, 5, True)
    assert await away.set_away_days(GUILD, 5) == running, "the clocks still run"
    assert await away.settings(GUILD) == running
    paused = TimeSettings(GUILD, 5, False)
    assert await away.set_clocks_in_quiet(GUILD, False) == paused, "the days are kept"
    assert await away.settings(GUILD) == paused


async def test_away_days_and_clocks_in_quiet_hours_changed_at_once_both_hold(
    table: AwayTable,
) -> None:
    """Two managers change the two rules of time at the same moment: should either change
    read the server's settings before writing, it reads them only once the other has read
    them too (or is done), and both changes must still hold."""
    away = table.service.away
    read = away.store.settings
    reads = 0
    both_read = asyncio.Event()

    async def read_then_wait(guild_id: int) -> TimeSettings:
        nonlocal reads
        found = await read(guild_id)
        reads += 1
        if reads == 2:
            both_read.set()
        await both_read.wait()
        return found

    async def change(setting: Awaitable[TimeSettings]) -> None:
        try:
            await setting
        finally:
            both_read.set()  # a change done waits for no other

    away.store.settings = read_then_wait  # type: ignore[method-assign]
    try:
        await asyncio.gather(
            change(away.set_away_days(GUILD, 5)), change(away.set_clocks_in_quiet(GUILD, True))
        )
    finally:
        away.store.settings = read  # type: ignore[method-assign]
    settings = await away.settings(GUILD)
    assert (settings.away_days, settings.clocks_in_quiet) == (5, True)


async def test_the_server_s_settings_say_whether_clocks_run_in_quiet_hours(
    table: AwayTable,
) -> None:
    """What `/marrakech-admin quiet-clocks` answers and `show` shows, with the server's other
    settings."""
    guilds = GuildService(GuildStore(table.database), away=table.service.away)
    assert not (await guilds.settings(GUILD)).clocks_in_quiet, "they pause by default"
    assert (await guilds.set_clocks_in_quiet(GUILD, True)).clocks_in_quiet
    assert (await guilds.settings(GUILD)).clocks_in_quiet
    assert not (await guilds.set_clocks_in_quiet(GUILD, False)).clocks_in_quiet
    assert not (await guilds.settings(GUILD)).clocks_in_quiet


async def test_a_reminder_in_quiet_hours_is_held_and_sent_once_at_their_end(
    table: AwayTable,
) -> None:
    view, mover, _ = await who_moves(table)
    away = table.service.away
    await away.set_clocks_in_quiet(GUILD, True)
    await away.set_quiet_hours(mover, QuietHours.parse("13:00", "18:00", KYIV))
    assert (await away.availability(GUILD, mover)).quiet_until == datetime(
        2026, 3, 2, 16, tzinfo=UTC
    )
    table.clock.advance(LIMIT / 2)
    await table.scheduler.run_due()
    assert table.reminders == [], "held, not sent"
    assert await sleep_for(table) == timedelta(seconds=LIMIT / 2), "the clock runs on"
    end = datetime(2026, 3, 2, 16, tzinfo=UTC)
    table.clock.now = end
    await table.scheduler.run_due()  # their quiet hours are over; out of time: the AI played
    assert [turn.user_id for turn in table.turns] == [mover]
    assert [[(n.user_id, n.game_id, n.kind) for n in sent] for sent in table.released] == [
        [(mover, view.id, "remind")]
    ]
    for minutes in (0, 1, 2, 5, 30, 120):  # past every pause of the scheduler's retries
        table.clock.advance(minutes * 60)
        await table.scheduler.seconds_to_sleep()
        await table.scheduler.run_due()
    assert len(table.released) == 1, "sent once: the sending is stored, not only put off"


async def test_a_reminder_due_as_quiet_hours_begin_waits_for_their_end_while_clocks_pause(
    table: AwayTable,
) -> None:
    """Clocks pause in quiet hours (the default), and the turn's clock reaches half time at
    12:05 UTC, the very moment quiet hours from 14:05 to 18:00 in Kyiv begin: the reminder is
    held to their end (16:00 UTC), when the clock, stopped meanwhile, still has 5 minutes."""
    view, mover, _ = await who_moves(table)
    away = table.service.away
    await away.set_quiet_hours(mover, QuietHours.parse("14:05", "18:00", KYIV))
    table.clock.advance(LIMIT / 2)
    await table.scheduler.run_due()
    assert table.reminders == [], "held, not sent"
    table.clock.now = datetime(2026, 3, 2, 16, tzinfo=UTC)
    await table.scheduler.run_due()
    assert [[(n.user_id, n.game_id, n.kind) for n in sent] for sent in table.released] == [
        [(mover, view.id, "remind")]
    ]
    assert table.turns == [], "the clock stood still: the turn still has its time"
    assert await sleep_for(table) == timedelta(seconds=LIMIT / 2)


@pytest.mark.parametrize(
    ("changed", "release"),
    [
        (("13:00", "20:00", KYIV), datetime(2026, 3, 2, 18, tzinfo=UTC)),
        (("13:00", "18:00", "Europe/Paris"), datetime(2026, 3, 2, 17, tzinfo=UTC)),
        (("13:00", "15:00", KYIV), datetime(2026, 3, 2, 13, tzinfo=UTC)),
        (None, datetime(2026, 3, 2, 12, 6, tzinfo=UTC)),
    ],
    ids=["end-moved-later", "zone-changed", "end-moved-sooner", "turned-off"],
)
async def test_what_quiet_hours_hold_waits_for_their_end_as_it_is_when_it_comes(
    table: AwayTable, changed: tuple[str, str, str] | None, release: datetime
) -> None:
    """A reminder held at 12:05 UTC until the end of quiet hours from 13:00 to 18:00 in Kyiv
    (16:00 UTC) follows a change made during those hours: the end moved later, or the zone
    changed, it waits for the new end (no direct message inside the hours the person now
    has); the end moved sooner, it goes then; the hours turned off, it goes at once. Once."""
    _, mover, _ = await who_moves(table)
    away = table.service.away
    await away.set_clocks_in_quiet(GUILD, True)
    await away.set_quiet_hours(mover, QuietHours.parse("13:00", "18:00", KYIV))
    table.clock.advance(LIMIT / 2)
    await table.scheduler.run_due()
    assert table.reminders == [], "held"
    table.clock.advance(60)
    quiet = None if changed is None else QuietHours.parse(*changed)
    await away.set_quiet_hours(mover, quiet)
    quiet_until = (await away.availability(GUILD, mover)).quiet_until
    assert quiet_until == (None if quiet is None else release)
    old_end = datetime(2026, 3, 2, 16, tzinfo=UTC)
    for moment in sorted({old_end, release - timedelta(minutes=1)}):
        if table.clock.now < moment < release:
            table.clock.now = moment
            await table.scheduler.seconds_to_sleep()
            await table.scheduler.run_due()
            assert table.released == [], f"{moment:%H:%M} UTC: still quiet, held"
    table.clock.now = release
    for _ in range(3):  # past the scheduler's retry of work it handled just before
        await table.scheduler.seconds_to_sleep()
        await table.scheduler.run_due()
        table.clock.advance(31)
    assert [[(n.user_id, n.kind) for n in sent] for sent in table.released] == [[(mover, "remind")]]


async def test_what_quiet_hours_hold_comes_in_the_language_they_were_set_in(
    table: AwayTable,
) -> None:
    # The game is in English; its player set their quiet hours in Ukrainian: the one message
    # that brings what was held is theirs, in their language, whichever game it names first.
    view, mover, _ = await who_moves(table)
    assert view.game.locale == "en"
    away = table.service.away
    await away.set_clocks_in_quiet(GUILD, True)
    await away.set_quiet_hours(mover, QuietHours.parse("13:00", "18:00", KYIV), locale="uk")
    table.clock.advance(LIMIT / 2)
    await table.scheduler.run_due()
    table.clock.now = datetime(2026, 3, 2, 16, tzinfo=UTC)
    await table.scheduler.run_due()
    assert [[(n.kind, n.locale) for n in sent] for sent in table.released] == [[("remind", "uk")]]


async def test_a_held_turn_ping_is_kept_in_the_language_quiet_hours_were_set_in(
    table: AwayTable,
) -> None:
    # The turn's ping and direct message are held on the turn message's path, not the
    # reminders': the same promise, another code path.
    view, mover, _ = await who_moves(table)
    assert view.game.locale == "en"
    away = table.service.away
    await away.set_quiet_hours(mover, QuietHours.parse("13:00", "18:00", KYIV), locale="uk")
    assert await away.reachable(view.game, view.seq, [mover]) == (), "quiet: the ping is held"
    end = datetime(2026, 3, 2, 16, tzinfo=UTC)
    held = await away.store.claim_held(end, "a", end + timedelta(seconds=60))
    assert [(n.kind, n.locale) for n in held] == [("turn", "uk")]


async def test_a_held_notice_is_claimed_by_one_process_only(table: AwayTable) -> None:
    other = make_table(table.database, table.clock)
    notice = HeldNotice(HOST, GUILD, 500, 1, 3, "turn", "en", table.clock.now)
    await table.service.away.hold(notice)
    await table.service.away.hold(notice)  # the same turn's ping and direct message: one
    store = table.service.away.store
    lease = table.clock.now + timedelta(seconds=60)
    first = await store.claim_held(table.clock.now, "a", lease)
    second = await store.claim_held(table.clock.now, "b", lease)
    assert [n.seq for n in first] == [3]
    assert second == []
    assert await store.mark_sent(HOST, "b", table.clock.now) == 0, "a's claim, not b's to mark"
    assert await store.mark_sent(HOST, "a", table.clock.now) == 1
    table.clock.advance(120)
    assert await store.claim_held(table.clock.now, "b", lease + timedelta(seconds=120)) == []
    assert await other.service.away.store.next_release(table.clock.now) is None


# --- what it costs the database ------------------------------------------------------------------


async def test_what_a_held_reminder_and_its_release_cost_in_round_trips(table: AwayTable) -> None:
    """A pass that holds a reminder costs the pass that sends one plus the read of its
    player's time away and the notice's write; the pass that sends the held notices claims and
    marks them in one statement each; the scheduler's look ahead stays one statement."""
    _, mover, _ = await who_moves(table, limit=6 * 3600)  # reminded at 15:00, due at 18:00
    await table.service.away.set_clocks_in_quiet(GUILD, True)
    with counting(table.database) as trips:
        await table.scheduler.seconds_to_sleep()
    looking_ahead = trips.count
    assert looking_ahead == 1, "the look ahead: one statement"
    await table.service.away.set_quiet_hours(mover, QuietHours.parse("13:00", "18:00", KYIV))
    table.clock.advance(3 * 3600)
    with counting(table.database) as trips:
        await table.scheduler.run_due()
    holding = trips.count
    assert table.reminders == []
    table.clock.now = datetime(2026, 3, 2, 16, tzinfo=UTC)
    await table.scheduler.seconds_to_sleep()
    with counting(table.database) as trips:
        await table.scheduler.run_due()
    releasing = trips.count
    assert len(table.released) == 1
    print(
        f"\nround trips: the look ahead {looking_ahead}, the pass holding a reminder {holding}, "
        f"the pass sending it {releasing}"
    )
    assert holding == HOLDING_PASS
    assert releasing == RELEASING_PASS


async def test_another_process_s_change_of_quiet_hours_or_time_away_is_seen(
    table: AwayTable, database_target: str
) -> None:
    """Each process keeps everyone's quiet hours and time away in memory; a change made by
    another process (its own database, here), hours set or cleared, days away taken or ended,
    reaches it through `changed_elsewhere`, which PostgreSQL's NOTIFY calls (SQLite serves one
    process)."""
    second = await open_database(database_target)
    try:
        elsewhere = make_table(second, table.clock).service.away
        here = table.service.away
        told = asyncio.Event()

        def changed() -> None:
            here.changed_elsewhere()
            told.set()

        listening = asyncio.create_task(here.store.listen_away(changed))
        if second.backend == "postgres":
            await told.wait()  # told once as it starts listening
        quiet = QuietHours.parse("23:00", "08:00", KYIV)
        back_at = table.clock.now + 2 * DAY

        def quiet_hours() -> Awaitable[object]:
            return here.quiet_hours(BOB)

        def away_until() -> Awaitable[object]:
            return here.away_until(GUILD, BOB)

        async def seen(
            look: Callable[[], Awaitable[object]],
            change: Callable[[], Awaitable[object]],
            what: str,
            new: object,
        ) -> None:
            """`change` made elsewhere, with what `look` reads kept in memory here just
            before: its own notification tells this process (PostgreSQL), or the test does
            (SQLite, kept until then)."""
            kept = await look()
            assert kept != new
            told.clear()
            await change()
            if second.backend == "postgres":
                await until(told.is_set, f"the notification of {what}")
            else:
                assert await look() == kept, f"{what}: kept until told"
                here.changed_elsewhere()
            assert await look() == new, f"{what} is seen"

        assert await quiet_hours() is None
        assert await away_until() is None
        await seen(
            quiet_hours, lambda: elsewhere.set_quiet_hours(BOB, quiet), "the new quiet hours", quiet
        )
        await seen(
            quiet_hours, lambda: elsewhere.set_quiet_hours(BOB, None), "the hours cleared", None
        )
        await seen(away_until, lambda: elsewhere.go_away(GUILD, BOB, 2), "the time away", back_at)
        await seen(away_until, lambda: elsewhere.come_back(GUILD, BOB), "the coming back", None)
        listening.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listening
    finally:
        await second.close()


# --- what is kept in memory --------------------------------------------------------------------


async def test_quiet_hours_changed_in_this_process_are_known_here_at_once(
    table: AwayTable,
) -> None:
    """A change of quiet hours made here replaces what this process keeps in memory, with no
    change told from elsewhere: hours moved away from now let direct messages through, and
    hours set back over now hold them again."""
    away = table.service.away
    assert table.clock.now.hour == 12, "12:00 UTC: 14:00 in Kyiv"
    await away.set_quiet_hours(HOST, QuietHours.parse("13:00", "16:00", KYIV))
    assert await away.quiet_until(HOST) is not None, "read, and kept in memory: quiet now"
    evening = QuietHours.parse("20:00", "22:00", KYIV)
    await away.set_quiet_hours(HOST, evening)
    assert await away.quiet_until(HOST) is None, "moved to the evening: not quiet now"
    assert await away.quiet_hours(HOST) == evening
    await away.set_quiet_hours(HOST, QuietHours.parse("13:30", "15:00", KYIV))
    assert await away.quiet_until(HOST) is not None, "set back over now: quiet again"


def hold_first_read(
    monkeypatch: pytest.MonkeyPatch, store: AwayStore, name: str
) -> tuple[asyncio.Event, asyncio.Event]:
    """The store's read `name` made to hold its first call once it has read, until the second
    event is set; the first event says it has read. Later calls go straight through."""
    read = getattr(store, name)
    has_read, release = asyncio.Event(), asyncio.Event()

    async def held(*args: object) -> object:
        first = not has_read.is_set()
        value = await read(*args)
        if first:
            has_read.set()
            await release.wait()
        return value

    monkeypatch.setattr(store, name, held)
    return has_read, release


async def overtaken(
    table: AwayTable,
    monkeypatch: pytest.MonkeyPatch,
    read: str,
    look: Callable[[AwayService], Awaitable[object]],
    change: Callable[[AwayService], Awaitable[object]],
) -> tuple[object, object, object]:
    """A read through `look` that read before `change` (made by another process, and told)
    and ends after a newer read that saw it: what the older read, the newer read and a look
    after both answer."""
    here = table.service.away
    elsewhere = make_table(table.database, table.clock).service.away
    has_read, release = hold_first_read(monkeypatch, here.store, read)

    async def look_here() -> object:
        return await look(here)

    older = asyncio.create_task(look_here())
    await asyncio.wait_for(has_read.wait(), timeout=30.0)
    await change(elsewhere)
    here.changed_elsewhere()
    newer = await look(here)
    release.set()
    return await older, newer, await look(here)


async def test_an_older_read_of_quiet_hours_ending_last_does_not_replace_the_newer(
    table: AwayTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    quiet = QuietHours.parse("23:00", "08:00", KYIV)
    assert await overtaken(
        table,
        monkeypatch,
        "all_quiet",
        lambda away: away.quiet_hours(BOB),
        lambda away: away.set_quiet_hours(BOB, quiet),
    ) == (None, quiet, quiet)


async def test_an_older_read_of_time_away_ending_last_does_not_replace_the_newer(
    table: AwayTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    back_at = table.clock.now + 2 * DAY
    assert await overtaken(
        table,
        monkeypatch,
        "active_spells",
        lambda away: away.away_until(GUILD, BOB),
        lambda away: away.go_away(GUILD, BOB, 2),
    ) == (None, back_at, back_at)


async def test_a_held_turn_is_told_only_while_it_waits_for_its_player(table: AwayTable) -> None:
    """What quiet hours held of a turn is still true only while the game waits for that
    person's move: until its deadline, and not once it was played, or its time ran out (the AI
    plays it), or for someone whose turn it is not. The deadline is the real one: clocks
    pause in quiet hours by default, and the stored deadline is moved later only when it falls
    due."""
    away = table.service.away
    # 12:00 UTC is 14:00 in Kyiv: quiet from 14:02 to 16:00 there, so the clock stops two
    # minutes into the turn and runs again two hours on. Set before the game begins, they
    # leave its stored clock as it began.
    for person in (HOST, BOB):
        await away.set_quiet_hours(person, QuietHours.parse("14:02", "16:00", KYIV))
    view, mover, other = await who_moves(table)
    begun = table.clock.now
    release = datetime(2026, 3, 2, 14, tzinfo=UTC)
    held = [
        HeldNotice(mover, GUILD, view.game.channel_id, view.id, 3, "turn", "en", release, begun),
        HeldNotice(mover, GUILD, view.game.channel_id, view.id, 3, "remind", "en", release),
    ]
    table.clock.now = release
    (now,) = (await away.turns_now(held)).values()
    real_end = release + timedelta(seconds=LIMIT - 120)
    assert now == TurnNow(view.id, True, real_end, begun)
    loaded = await table.service.loader.load(view.id)
    assert loaded.game.due_at is not None
    assert loaded.game.due_at < real_end, "stored without the pause, moved only when due"
    others = [dataclasses.replace(notice, user_id=other) for notice in held]
    assert await away.turns_now(others) == {view.id: TurnNow(view.id, False)}
    assert await away.turns_now([dataclasses.replace(held[0], kind="next")]) == {}
    table.clock.now = real_end  # the time ran out: the AI is about to play it
    assert await away.turns_now(held) == {view.id: TurnNow(view.id, False, None, begun, True)}
    for _ in range(3):  # the stored deadline is moved to the real one, then played at once
        await table.scheduler.seconds_to_sleep()
        await table.scheduler.run_due()
        table.clock.advance(60)
    assert table.turns, "the AI played the turn"
    (after,) = (await away.turns_now(held)).values()
    assert (after.waits, after.timed_out) == (False, True), "their last turn ran out"


async def test_a_held_turn_that_ran_out_is_told_even_when_the_next_one_began_since(
    table: AwayTable,
) -> None:
    """A turn whose time ran out in the night (the AI played it) is told as such in the
    morning even when the game waits for the person's next turn again."""
    view, mover, other = await who_moves(table)
    begun = table.clock.now
    release = begun + timedelta(hours=8)
    held = HeldNotice(
        mover, GUILD, view.game.channel_id, view.id, view.seq, "turn", "en", release, begun
    )
    table.clock.advance(LIMIT)
    await table.scheduler.run_due()  # out of time: the AI plays the turn for them
    await run_until_quiet(table)
    assert [turn.user_id for turn in table.turns] == [mover]
    table.clock.advance(60)
    view = await play_turn(table, await table.service.play.look(view.id), other)
    assert view.user_to_move == mover, "their next turn began"
    table.clock.advance(60)
    (now,) = (await table.service.away.turns_now([held])).values()
    assert (now.waits, now.timed_out) == (True, True)


async def test_a_held_turn_of_a_seat_the_ai_took_over_does_not_wait_for_its_person(
    table: AwayTable,
) -> None:
    # After three timeouts the AI plays the seat, which is still the person's: its turn does
    # not wait for them, so the morning message must not say when it ends.
    view = await at_the_ai_s_turn_in_their_seat(table, await two_humans(table), BOB)
    loaded = await table.service.loader.load(view.id)
    assert loaded.state is not None
    player = loaded.player_at(loaded.state.to_move)
    assert player is not None
    assert (player.user_id, player.ai_plays) == (BOB, True)
    now = table.clock.now
    held = HeldNotice(BOB, GUILD, view.game.channel_id, view.id, view.seq, "turn", "en", now, now)
    (found,) = (await table.service.away.turns_now([held])).values()
    assert not found.waits
