"""Turn clocks: when a turn began, when its player is reminded, when the bot acts by itself.

Pure functions of the time and the game's settings. A seat the AI plays (an AI seat, or a
human seat handed to the AI) is due at once; a human seat with a time limit gets its reminder
when half of the limit is gone and is played for by the AI at the deadline.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.storage.kinds import TurnClock

TIMEOUTS_BEFORE_HANDOVER = 3
"""Timeouts in a row after which the AI plays the seat for the rest of the game."""
TIMEOUT_LEVEL = "medium"
"""The AI level that plays a turn whose player ran out of time (and a handed-over seat)."""
DISPLAY_PATIENCE_SECONDS = 60
"""A change not shown this long after it was made means its message failed: show it again."""


def fresh_clock(now: datetime, limit_seconds: int | None, *, ai_plays: bool) -> TurnClock:
    """The clock of a turn beginning `now`."""
    started = now
    if ai_plays:
        return TurnClock(turn_started_at=started, remind_at=None, due_at=started)
    if limit_seconds is None:
        return TurnClock(turn_started_at=started)
    return TurnClock(
        turn_started_at=started,
        remind_at=now + timedelta(seconds=limit_seconds / 2),
        due_at=now + timedelta(seconds=limit_seconds),
    )


def is_due(value: datetime | None, now: datetime) -> bool:
    return value is not None and value <= now
