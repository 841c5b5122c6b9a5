"""What players read about time away: the answers to `/marrakech away`, `back` and
`quiet-hours`, the lines a game's channel gets when its player goes away or comes back, and the
one message that brings what was held during quiet hours (bot.services.away)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Protocol, TypeVar

from bot.presentation.links import mention
from bot.presentation.messages import text, within
from bot.presentation.story import CONTENT_LIMIT
from bot.services.time_rules import (
    MONTHLY_AWAY_DAYS,
    TURN_NOTICES,
    AwayGame,
    AwayRefusedError,
    QuietHours,
    Resumed,
    TurnNow,
)

HELD_LINES = 20
"""The most lines one held message lists (the rest are counted)."""
HELD_ROOM = CONTENT_LIMIT - len(mention(2**64 - 1) + " ")
"""The most characters of the held message: a message's text, less the ping in front of it in
a game's channel (of the longest id there can be)."""


class HeldNotice(Protocol):
    """What the message names of a notice held during quiet hours (bot.services.away)."""

    @property
    def channel_id(self) -> int: ...
    @property
    def game_id(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def locale(self) -> str: ...
    @property
    def held_at(self) -> datetime | None: ...


Notice = TypeVar("Notice", bound=HeldNotice)


def relative(when: datetime) -> str:
    """A moment as Discord shows it to each reader, relative to now ("in 5 hours")."""
    return f"<t:{int(when.timestamp())}:R>"


def moment(when: datetime) -> str:
    """A moment as Discord shows it in each reader's own time zone, with its weekday
    ("Tuesday, 1 December 2026 14:00")."""
    return f"<t:{int(when.timestamp())}:F>"


def duration(length: timedelta, language: str) -> str:
    """A time left on a clock, in whole minutes never more than is left, from the nearest
    second (a clock that has run for a moment still shows its whole limit); under a minute
    in words."""
    minutes = round(length.total_seconds()) // 60
    if minutes == 0:  # "0 min" would read as out of time
        return text("duration.under_minute", language)
    if minutes >= 60:
        return text("duration.hours_minutes", language, hours=minutes // 60, minutes=minutes % 60)
    return text("duration.minutes", language, count=minutes)


def away_started(until: datetime, language: str) -> str:
    return text("away.started", language, until=moment(until))


def away_refused(error: AwayRefusedError, language: str) -> str:
    if error.by_tournament:
        if error.allowed == 0:  # not "at most 0 days": the tournament refuses them
            return text("away.refused_tournament_off", language)
        return text("away.refused_tournament", language, allowed=error.allowed)
    if error.allowed == 0:
        return text("away.refused_off", language)
    if error.asked <= error.allowed:  # the month's allowance is what refuses it
        key = "away.refused_next_month" if error.next_month else "away.refused_month"
        return text(key, language, left=error.left, monthly=MONTHLY_AWAY_DAYS)
    return text(
        "away.refused",
        language,
        allowed=error.allowed,
        left=error.left,
        monthly=MONTHLY_AWAY_DAYS,
    )


def tournament_capped(days: int, language: str) -> str:
    """The moderator's answer to `tournament-away-days`: the cap set, or (0) that the
    tournament's players may take no away days."""
    if days == 0:
        return text("away.tournament_capped_off", language)
    return text("away.tournament_capped", language, days=days)


def on_turn(until: datetime, language: str, *, timed: bool = True) -> str:
    """The line a turn message adds when its player is away (their clock stands still; a game
    without a turn limit has none)."""
    key = "away.on_turn" if timed else "away.on_turn_untimed"
    return text(key, language, until=moment(until))


def away_notice(user_id: int, until: datetime, game: AwayGame) -> str:
    """The line a game's channel gets when one of its players goes away (public); a game
    without a turn limit has no clock to stop."""
    key = "away.notice" if game.timed else "away.notice_untimed"
    return text(key, game.locale, user=mention(user_id), until=moment(until), game_id=game.game_id)


def back_elsewhere(user_id: int, game: AwayGame, *, days_over: bool = False) -> str:
    """The line a game that was told a player went away gets when they are back, if it is not
    waiting for their move (one that is gets `back_notice` or `days_over_notice`)."""
    key = "away.days_over_plain" if days_over else "away.back_plain"
    return text(key, game.locale, user=mention(user_id), game_id=game.game_id)


def back_notice(user_id: int, resumed: Resumed) -> str:
    """The line a game waiting for a player gets when they come back (public)."""
    return _clock_runs_again("away.back_notice", user_id, resumed)


def days_over_notice(user_id: int, resumed: Resumed) -> str:
    """The line a game waiting for a player gets when their days away run out (public)."""
    return _clock_runs_again("away.days_over_notice", user_id, resumed)


def _clock_runs_again(key: str, user_id: int, resumed: Resumed) -> str:
    """A game's line that the player's clock runs again, with the time their turn has left."""
    return text(
        key,
        resumed.locale,
        user=mention(user_id),
        left=duration(resumed.left, resumed.locale),
        game_id=resumed.game_id,
    )


def quiet_set(quiet: QuietHours, language: str) -> str:
    return text(
        "quiet.set",
        language,
        start=quiet.starts.strftime("%H:%M"),
        end=quiet.ends.strftime("%H:%M"),
        timezone=quiet.timezone,
    )


def held_message(
    notices: Sequence[HeldNotice], turns: Mapping[int, TurnNow] | None = None
) -> str | None:
    """The one message that brings a person what was held during their quiet hours, in their
    language (each notice is held in the one they set their quiet hours in; for hours set
    before that was kept, the language of the first game it names), or None when nothing held
    is still worth saying. Only what is still true is said, as `turns` tells it (a game left
    out of it is told as held):

    - a game's "your turn is next" is left out once its turn began in the same hours;
    - a notice of the turn under way is said, its game's last such line telling when the turn
      ends;
    - a notice of a turn that is over (played, or its time ran out; or an earlier turn, held
      before the current one began) is left out, but when the person's last turn ran out of
      time: then the game gets one line saying so, as the AI played it for them.

    It lists as many lines as HELD_LINES and Discord's limit of a message allow, and counts
    the others, saying where the games are found (`/marrakech mygames`)."""
    held = held_message_and_first(notices, turns)
    return None if held is None else held[0]


def held_message_and_first(
    notices: Sequence[Notice], turns: Mapping[int, TurnNow] | None = None
) -> tuple[str, Notice] | None:
    """`held_message`, with the notice of the first game it names (the channel of that game
    is where the message pings a person whose direct messages are closed; a notice the
    message leaves out may come before it); None when it names none."""
    lines = _held_lines(notices, turns or {})
    if not lines:
        return None
    language = notices[0].locale
    told = [line for _, line in lines]
    message = within(
        told[:HELD_LINES], lambda shown: _held_text(shown, len(told), language), HELD_ROOM
    )
    return message, lines[0][0]


def _held_text(shown: Sequence[str], told: int, language: str) -> str:
    """The held message that lists `shown`, the first of `told` lines, and counts the rest."""
    left_out = told - len(shown)
    more = [text("quiet.held_more", language, count=left_out)] if left_out else []
    return text("quiet.held", language, lines="\n".join([*shown, *more]))


def _held_lines(
    notices: Sequence[Notice], turns: Mapping[int, TurnNow]
) -> list[tuple[Notice, str]]:
    """The lines of `held_message`, in order, each with the notice it tells."""
    language = notices[0].locale
    began = {notice.game_id for notice in notices if notice.kind == "turn"}
    notices = [n for n in notices if not (n.kind == "next" and n.game_id in began)]  # untrue
    current = [n for n in notices if _still_true(n, turns.get(n.game_id))]
    last = {n.game_id: n for n in current if n.kind in TURN_NOTICES}
    lines: list[tuple[Notice, str]] = []
    told_over: set[int] = set()
    for notice in notices:
        now = turns.get(notice.game_id) if notice.kind in TURN_NOTICES else None
        link = f"<#{notice.channel_id}>"
        if notice not in current:
            if now is not None and now.timed_out and notice.game_id not in told_over:
                told_over.add(notice.game_id)
                lines.append(
                    (
                        notice,
                        text("quiet.held_ran_out", language, game_id=notice.game_id, link=link),
                    )
                )
            continue
        line = text(f"quiet.held_{notice.kind}", language, game_id=notice.game_id, link=link)
        if now is not None and now.ends_at is not None and last[notice.game_id] is notice:
            line += " " + text("quiet.held_ends", language, when=relative(now.ends_at))
        lines.append((notice, line))
    return lines


def _still_true(notice: HeldNotice, now: TurnNow | None) -> bool:
    """Whether a held notice still says something true: one of a turn, while the game waits
    for that turn (not an earlier one, held before the current turn began)."""
    if notice.kind not in TURN_NOTICES or now is None:
        return True
    if not now.waits:
        return False
    return notice.held_at is None or now.since is None or notice.held_at >= now.since


def held_in_channel(user_id: int, message: str) -> str:
    """The held message, as a ping in a game's channel, for a person whose direct messages
    are closed."""
    return f"{mention(user_id)} {message}"
