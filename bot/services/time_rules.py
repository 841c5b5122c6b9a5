"""The rules of time away that need no database: the allowance of away days, quiet hours
and their windows, and a turn clock's arithmetic of running time (bot.services.away applies
them; docs/async.md tells them to players).

A turn's clock is the time it has run, not the time that passed: `advance` walks from the
turn's start over the moments its clock stands still (intervals, in order) to where a given
running time is reached; `running` is the running time between two moments.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from importlib import resources
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.services.errors import BadOptionError
from bot.storage.kinds import TurnClock

DEFAULT_AWAY_DAYS = 7
"""The most days one may be away at once on a server that did not choose."""
MOST_AWAY_DAYS_SETTING = 14
"""The most a server may allow at once."""
MONTHLY_AWAY_DAYS = 10
"""The most days one may be away from a server's games in a calendar month (UTC)."""
QUIET_CLOCKS = ("pause", "run")
TIMEZONE_LENGTH = 64
"""The most characters `/marrakech quiet-hours timezone:` takes (IANA names are shorter)."""
"""What a server's turn clocks may do in a player's quiet hours: pause (the default) or run."""
LONGEST_QUIET = timedelta(hours=16)
"""Quiet hours longer than this would leave a turn clock almost no time to run in a day."""

Interval = tuple[datetime, datetime]


# --- quiet hours ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class QuietHours:
    """Daily quiet hours from `starts` to `ends` (local times; past midnight when `ends` comes
    first) in the IANA zone `timezone`."""

    starts: time
    ends: time
    timezone: str

    @classmethod
    def parse(cls, starts: str, ends: str, timezone: str) -> QuietHours:
        """Quiet hours from what a person typed; BadOptionError names what is wrong (an unknown
        zone, a time that is not HH:MM, no time at all between the two, or too long)."""
        typed = _zone_by_lower_name().get(timezone.strip().lower())  # in any case
        if typed is None:  # the host's system may hold it, another host would not
            raise BadOptionError("timezone", timezone)
        try:
            zone_name = ZoneInfo(typed).key
        except (ZoneInfoNotFoundError, ValueError):
            raise BadOptionError("timezone", timezone) from None
        quiet = cls(_hhmm(starts, "from"), _hhmm(ends, "to"), zone_name)
        if quiet.starts == quiet.ends or quiet.length() > LONGEST_QUIET:
            raise BadOptionError("quiet_length", f"{starts}-{ends}")
        return quiet

    def length(self) -> timedelta:
        day = datetime(2000, 1, 1)
        length = datetime.combine(day, self.ends) - datetime.combine(day, self.starts)
        return length if length > timedelta() else length + timedelta(days=1)

    def windows(self, since: datetime) -> Iterator[Interval]:
        """The quiet intervals (UTC) that end after `since`, in order, without end."""
        zone = ZoneInfo(self.timezone)
        day = since.astimezone(zone).date() - timedelta(days=1)
        while True:
            start = datetime.combine(day, self.starts, zone).astimezone(UTC)
            end_day = day if self.ends > self.starts else day + timedelta(days=1)
            end = datetime.combine(end_day, self.ends, zone).astimezone(UTC)
            if end > since and end > start:
                yield start, end
            day += timedelta(days=1)

    def until(self, now: datetime) -> datetime | None:
        """When the quiet hours under way at `now` end (None: it is not quiet now)."""
        for start, end in self.windows(now):
            return end if start <= now else None
        return None  # pragma: no cover - windows never ends


_HHMM = re.compile(r"[0-9]{2}:[0-9]{2}")
"""A time as quiet hours take it: hours and minutes, two digits each, a colon between (no
seconds, fraction or offset: `time.fromisoformat` would read "07.30" as 07:00:00.3)."""


def _hhmm(value: str, option: str) -> time:
    typed = value.strip()
    if not _HHMM.fullmatch(typed):
        raise BadOptionError(option, value)
    try:
        return time.fromisoformat(typed)
    except ValueError:  # 25:00, 07:60
        raise BadOptionError(option, value) from None


def zone_names(typed: str, limit: int = 25) -> list[str]:
    """IANA zone names that contain `typed` (case aside), for autocompletion."""
    wanted = typed.strip().lower().replace(" ", "_")
    return sorted(name for name in _zones() if wanted in name.lower())[:limit]


_ZONES: list[str] = []


def bundled_zones() -> list[str]:
    """The IANA zone names of the tzdata package the bot carries: the zones a person may set,
    so that one set on a host keeps working on any other, whatever its system database holds
    (a host's may add names, such as its posix/ and right/ copies or localtime)."""
    return resources.files("tzdata").joinpath("zones").read_text(encoding="utf-8").split()


@functools.cache
def _zone_by_lower_name() -> dict[str, str]:
    """Every zone name a person may set, by its lower-case spelling."""
    return {name.lower(): name for name in bundled_zones()}


def _zones() -> list[str]:
    if not _ZONES:
        _ZONES.extend(sorted(name for name in bundled_zones() if "/" in name))
    return _ZONES


# --- running time ------------------------------------------------------------------------


def advance(start: datetime, seconds: float, stops: Iterator[Interval]) -> datetime:
    """The moment at which a clock started at `start` has run `seconds`, stopped over
    `stops` (intervals in order of their start)."""
    moment = start
    left = timedelta(seconds=seconds)
    for begins, ends in stops:
        if ends <= moment:
            continue
        if begins > moment:
            if begins - moment >= left:
                return moment + left
            left -= begins - moment
        moment = ends
    return moment + left


def running(start: datetime, end: datetime, stops: Iterator[Interval]) -> timedelta:
    """How long a clock started at `start` has run by `end`, stopped over `stops`."""
    total = timedelta()
    moment = start
    for begins, ends in stops:
        if moment >= end:
            break
        if ends <= moment:
            continue
        if begins > moment:
            total += min(begins, end) - moment
        moment = max(moment, ends)
    if moment < end:
        total += end - moment
    return total


def turn_clock(
    started: datetime, limit_seconds: int, stops: Callable[[], Iterator[Interval]], *, remind: bool
) -> TurnClock:
    """The clock of a turn started at `started`, stopped over `stops()`: its reminder (if
    still to send) at half its time run, its end at all of it."""
    due = advance(started, limit_seconds, stops())
    remind_at = advance(started, limit_seconds / 2, stops()) if remind else None
    return TurnClock(started, remind_at, due)


# --- what the service answers ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Availability:
    """Whether a person can be reached now: away (on that server) until `away_until`, in
    quiet hours until `quiet_until` (None: not)."""

    away_until: datetime | None = None
    quiet_until: datetime | None = None

    @property
    def reachable(self) -> bool:
        """Neither away nor in quiet hours: a ping or direct message may go now."""
        return self.away_until is None and self.quiet_until is None


@dataclass(frozen=True, slots=True)
class Resumed:
    """A game whose clock runs again for a person who came back: `left` is the time their
    turn has left."""

    game_id: int
    channel_id: int
    locale: str
    left: timedelta


TURN_NOTICES = frozenset({"turn", "remind", "nudge"})
"""The held notices that speak of a turn under way: true only while it waits for the person."""


@dataclass(frozen=True, slots=True)
class TurnNow:
    """A game as a person's held notices of its turns are sent: whether it waits for their move
    (`waits`), since when (`since`: the turn's start, so a notice held before it is of an
    earlier turn) and until when (`ends_at`, their pauses counted; None: no turn limit), and
    whether their last turn ran out of time (`timed_out`: the AI played it)."""

    game_id: int
    waits: bool
    ends_at: datetime | None = None
    since: datetime | None = None
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class AwayGame:
    """A running game of a person who went away (the channel is told why it waits)."""

    game_id: int
    channel_id: int
    locale: str
    timed: bool = True
    """The game has a turn limit (a clock that stops meanwhile)."""


class AwayRefusedError(Exception):
    """Away days asked beyond what the server (`allowed`, at once) or a calendar month (`left`
    in it) allows: this month's, or (`next_month`) the next one's, into which they run."""

    def __init__(
        self,
        asked: int,
        allowed: int,
        left: int,
        *,
        by_tournament: bool = False,
        next_month: bool = False,
    ) -> None:
        super().__init__(f"{asked} days away asked; {allowed} allowed at once, {left} left")
        self.asked = asked
        self.allowed = allowed
        self.left = left
        self.by_tournament = by_tournament
        """The days asked pass the cap of a tournament the person plays in, lower than the
        server's (days within it that a month refuses are the month's)."""
        self.next_month = next_month
        """`left` is the next month's: the days asked run into it and pass its allowance."""


class NotAwayError(Exception):
    """`back` from a person who is not away on that server."""


@dataclass(frozen=True, slots=True)
class DueCheck:
    """What the turn clock learns about a turn falling due: `clock` is the turn's real clock
    when a pause moved it later than stored (set it and do nothing now), and the player's
    availability now."""

    clock: TurnClock | None
    availability: Availability
    held_locale: str | None = None
    """The language the player set their quiet hours in: what those hold is written in it
    (None: not known, the game's language then)."""
