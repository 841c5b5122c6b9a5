"""What the tournament service hands back to the edge: a tournament, its players, its tables
and its standings. Never a storage row, and never the tournament's seed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from bot.services import pairing
from bot.services.pairing import Seat
from bot.services.standings import Standing
from bot.services.views import GameView
from bot.storage.kinds import GameStatus

BYE_LEVEL = "medium"
"""The AI level that fills the seat of a bye."""


class TournamentFormat(StrEnum):
    SWISS = "swiss"
    ROUND_ROBIN = "round-robin"


class TournamentStatus(StrEnum):
    SIGNUP = "signup"
    RUNNING = "running"
    OVER = "over"
    CANCELLED = "cancelled"
    ABORTED = "aborted"


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player signed up, shown by the name they had when they joined (None: none known)."""

    user_id: int
    name: str | None = None


@dataclass(frozen=True, slots=True)
class TableView:
    """A table of a round: its seats (a user id, or None for an AI seat), its thread and its
    game once set up, and the game's status."""

    round: int
    number: int
    seats: tuple[Seat, ...]
    thread_id: int | None = None
    game_id: int | None = None
    game_status: GameStatus | None = None

    @property
    def closed(self) -> bool:
        """Its game is over (played to its end, or aborted)."""
        return self.game_status in (GameStatus.OVER, GameStatus.ABORTED)

    @property
    def humans(self) -> tuple[int, ...]:
        return tuple(seat for seat in self.seats if seat is not None)

    @property
    def ai_seats(self) -> int:
        return sum(seat is None for seat in self.seats)


@dataclass(frozen=True, slots=True)
class TournamentView:
    """A tournament as the edge shows it. `rounds` is the number of rounds once it started (a
    Swiss tournament's may be set before); `standings` are empty before the start."""

    id: int
    guild_id: int
    channel_id: int
    name: str
    format: TournamentFormat
    seats: int
    rounds: int | None
    variant: str
    turn_limit_seconds: int | None
    locale: str
    status: TournamentStatus
    created_by: int
    ended_by: int | None
    message_id: int | None
    created_at: datetime
    entrants: tuple[Entrant, ...] = ()
    tables: tuple[TableView, ...] = ()
    standings: tuple[Standing, ...] = ()

    @property
    def planned_rounds(self) -> int | None:
        """The rounds it plays: its own once set, or before the start those the players signed
        up so far would play (a round-robin's schedule, or the Swiss default); None for fewer
        than two players."""
        if self.rounds is not None:
            return self.rounds
        if len(self.entrants) < pairing.MIN_TABLE:
            return None
        if self.format is TournamentFormat.ROUND_ROBIN:
            return pairing.round_robin_rounds(len(self.entrants), self.seats)
        return pairing.swiss_rounds(len(self.entrants), self.seats)

    @property
    def current_round(self) -> int:
        """The last round paired (0 before the first)."""
        return max((table.round for table in self.tables), default=0)

    def round_tables(self, round_no: int) -> tuple[TableView, ...]:
        return tuple(table for table in self.tables if table.round == round_no)

    @property
    def winners(self) -> tuple[int, ...]:
        """The players ranked first once the tournament is over (none before)."""
        if self.status is not TournamentStatus.OVER:
            return ()
        return tuple(line.user_id for line in self.standings if line.rank == 1)

    def name_of(self, user_id: int) -> str | None:
        for entrant in self.entrants:
            if entrant.user_id == user_id:
                return entrant.name
        return None

    def table_of_thread(self, thread_id: int) -> TableView | None:
        for table in self.tables:
            if table.thread_id == thread_id:
                return table
        return None


@dataclass(frozen=True, slots=True)
class Progress:
    """What moving a tournament on did: the tournament now, the round it paired (None: none),
    and whether this call finished it (of several processes, one only is told so)."""

    view: TournamentView
    paired: int | None = None
    finished: bool = False


@dataclass(frozen=True, slots=True)
class Withdrawal:
    """A player's withdrawal from a running tournament: the tournament after it, the round after
    which they withdrew, and each game of theirs it resigned them from (the game before, and
    after, the resignation)."""

    view: TournamentView
    after: int
    resigned: tuple[tuple[GameView, GameView], ...] = ()
