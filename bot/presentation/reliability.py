"""How a person's reliability reads (docs/watching.md#reliability-at-a-glance): in
`/marrakech stats` in full, and in a lobby beside their name once they played enough turns
("usually plays within 2 h")."""

from __future__ import annotations

import math

from bot.presentation.messages import text
from bot.services.reliability import ENOUGH_TURNS, Reliability

SEPARATOR = " · "


def duration_label(seconds: float, language: str) -> str:
    """A time a turn usually takes, rounded up: minutes (by fives past ten) under an hour,
    hours under two days, days beyond."""
    minutes = max(1, math.ceil(seconds / 60))
    if minutes < 60:
        shown = minutes if minutes <= 10 else 5 * math.ceil(minutes / 5)
        if shown < 60:
            return text("duration.minutes", language, count=shown)
    hours = math.ceil(seconds / 3600)
    if hours < 48:
        return text("duration.hours", language, count=hours)
    return text("duration.days", language, count=math.ceil(seconds / 86400))


def stats_line(reliability: Reliability, language: str) -> str:
    """The stats' line: how fast they usually play (or that it is too soon to say), the share
    of their turns that ran out, and the games they left unfinished, by how (in a few words
    when there are none)."""
    unfinished = text(
        "reliability.unfinished",
        language,
        unfinished=reliability.unfinished,
        resigned=reliability.resigned,
        handed=reliability.handed_to_ai,
        substituted=reliability.substituted_away,
    )
    if not reliability.unfinished:  # no breakdown of zeros, long on a phone
        unfinished = text("reliability.unfinished.none", language)
    parts = [
        _speed(reliability, language),
        text("reliability.ran_out", language, timeouts=_percent(reliability)),
        unfinished,
    ]
    return text("reliability.stats", language, line=SEPARATOR.join(parts))


def lobby_note(reliability: Reliability | None, language: str) -> str | None:
    """What a lobby says beside the person's name: how fast they usually play and, when some
    of their turns ran out, how many; None before they played ENOUGH_TURNS turns."""
    if reliability is None or not reliability.enough:
        return None
    parts = [_speed(reliability, language)]
    if reliability.ran_out:
        parts.append(text("reliability.ran_out", language, timeouts=_percent(reliability)))
    return SEPARATOR.join(parts)


def _speed(reliability: Reliability, language: str) -> str:
    """How fast they usually play; before that can be told, that it is too soon: how many of
    the turns needed they had, or, with enough turns and none of their own timed (the AI
    played them all), that too few were their own."""
    if reliability.median_seconds is None and reliability.turns >= ENOUGH_TURNS:
        return text("reliability.untimed", language)
    if not reliability.enough or reliability.median_seconds is None:
        return text("reliability.few", language, turns=reliability.turns, needed=ENOUGH_TURNS)
    median = duration_label(reliability.median_seconds, language)
    return text("reliability.median", language, median=median)


def _percent(reliability: Reliability) -> int:
    """The share of turns that ran out, to the nearest percent: some never read 0% (which
    the lobby leaves out as none), nor all but some 100%."""
    shown = round(100 * reliability.ran_out_share)
    if reliability.ran_out and reliability.played:
        return min(99, max(1, shown))
    return shown
