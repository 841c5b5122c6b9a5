"""Values stored with a game that others name without the store: its status, why it ended,
its turn clock, and why the AI made a move for a person.

They live apart from the store so that the services' views can name them without reaching
for the store itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class GameStatus(StrEnum):
    LOBBY = "lobby"
    RUNNING = "running"
    OVER = "over"
    ABORTED = "aborted"


class EndReason(StrEnum):
    """Why a game stopped (the games.end_reason column)."""

    FINISHED = "finished"
    CANCELLED = "cancelled"
    ABORTED_BY_HOST = "aborted-by-host"
    ABORTED_BY_MODERATOR = "aborted-by-moderator"
    ABANDONED = "abandoned"
    """No person played the game any more and no one took a seat back in time."""


@dataclass(frozen=True, slots=True)
class TurnClock:
    """The current turn's timing (moments in UTC): when it began, when its player gets their
    reminder, and when the bot must act by itself (None: not at all)."""

    turn_started_at: datetime | None = None
    remind_at: datetime | None = None
    due_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class AiFor:
    """Why the AI made a logged move for a person, as recorded with the move (the actions'
    ai_for and ai_in_a_row columns): `reason` is 'timeout', 'handed-over' or 'autoplay' (the
    services' TurnReason values), `in_a_row` their turns in a row the AI played for them, this
    one included."""

    reason: str
    in_a_row: int
