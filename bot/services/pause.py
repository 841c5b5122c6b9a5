"""The pause of a game that no person plays any more.

A seat is under a person's control while a human holds it, plays it themselves (it was not
handed to the AI after timeouts) and is still in the game. Once no seat is, but someone could
take theirs back (a seat the AI took over after timeouts), the AI would only play the game
against itself, turn after turn, to an empty channel while they are away. So the game pauses at
the start of the next round (the turn of the first player, or of the next seat still in after
them), the channel is told, and the game waits: `/marrakech rejoin` by a player whose seat the
AI took resumes it; after the turn limit (a day when there is none) it ends as abandoned,
counted in no one's stats.

With no one left who could take a seat back (every person resigned or is out), there is no one
to wait for, and the places they left with count (a resignation or an elimination is the place
it gave, in the stats and the ratings): the game does not pause, and the AI seats play it to its
end as they played it before.

The pause is not stored as such: it follows from the players and the state, so it holds
across restarts and processes. Its deadline is the turn clock's `due_at`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from bot.services.views import Player
from bot.storage.kinds import TurnClock
from engine import GameState

PAUSE_SECONDS_WITHOUT_LIMIT = 24 * 60 * 60
"""How long a paused game without a turn limit waits for someone to take a seat back."""


def played_by_people(players: Sequence[Player], state: GameState) -> bool:
    """True while some seat still in the game is played by the person who holds it."""
    return any(
        player.seat is not None
        and player.user_id is not None
        and player.ai_level is None
        and not player.autoplay
        and not player.resigned
        and not state.is_eliminated(player.seat)
        for player in players
    )


def may_resume(players: Sequence[Player], state: GameState) -> tuple[int, ...]:
    """The users who can take their seat back from the AI (and so resume a paused game)."""
    return tuple(
        player.user_id
        for player in players
        if player.seat is not None
        and player.user_id is not None
        and player.autoplay
        and not player.resigned
        and not state.is_eliminated(player.seat)
    )


def is_paused(players: Sequence[Player], state: GameState | None) -> bool:
    """True when the game waits for a person: a round begins, no seat is theirs to play, and
    someone could take theirs back."""
    if state is None or state.is_over or state.to_move is None:
        return False
    return (
        state.to_move == _first_of_round(state)
        and not played_by_people(players, state)
        and bool(may_resume(players, state))
    )


def _first_of_round(state: GameState) -> int | None:
    """The seat that opens each round: the first player, or the next seat still in after it."""
    count = state.players
    first = state.config.first_player
    for step in range(count):
        seat = (first + step) % count
        if not state.is_eliminated(seat):
            return seat
    return None


def pause_clock(now: datetime, limit_seconds: int | None) -> TurnClock:
    """The clock of a paused turn: due when the game is to end as abandoned."""
    wait = limit_seconds if limit_seconds is not None else PAUSE_SECONDS_WITHOUT_LIMIT
    return TurnClock(turn_started_at=now, remind_at=None, due_at=now + timedelta(seconds=wait))
