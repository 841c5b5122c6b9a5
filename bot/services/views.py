"""What the service hands back to the edge: a game, its players, its state, what happened."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from bot.storage import GameRow, GameStatus
from engine import GameEnded, GameState, TurnStarted
from engine.events import Event


@dataclass(frozen=True, slots=True)
class Player:
    """A seat in a game: a Discord user, or an AI of some level (`user_id` None).

    `timeouts` counts a human's turns in a row that ran out of time; `autoplay` means the AI
    plays the seat for them until they `/marrakech rejoin`.
    """

    user_id: int | None
    seat: int | None  # None until the game starts
    ai_level: str | None = None
    resigned: bool = False
    timeouts: int = 0
    autoplay: bool = False

    @property
    def ai_plays(self) -> bool:
        """True if the AI makes this seat's moves (an AI seat, or a human's handed over)."""
        return self.ai_level is not None or self.autoplay


@dataclass(frozen=True, slots=True)
class GameView:
    """A game as the edge needs it to answer and draw.

    `events` are what this request did (empty for a plain look); `turn_events` everything since
    the current turn began, and `previous_turn_events` the whole turn before it, so that a
    message can be redrawn after a restart exactly as it was meant to look.
    """

    game: GameRow
    players: tuple[Player, ...]
    state: GameState | None = None
    events: tuple[Event, ...] = ()
    turn_events: tuple[Event, ...] = ()
    previous_turn_events: tuple[Event, ...] = ()

    @property
    def id(self) -> int:
        return self.game.id

    @property
    def seq(self) -> int:
        return self.game.seq

    @property
    def status(self) -> GameStatus:
        return self.game.status

    def player_at(self, seat: int | None) -> Player | None:
        for player in self.players:
            if seat is not None and player.seat == seat:
                return player
        return None

    @property
    def ai_to_move(self) -> bool:
        """True if the seat to move is played by the AI (nobody is to click)."""
        if self.state is None or self.state.to_move is None:
            return False
        player = self.player_at(self.state.to_move)
        return player is not None and player.ai_plays

    def user_at(self, seat: int) -> int | None:
        for player in self.players:
            if player.seat == seat:
                return player.user_id
        return None

    def seat_of(self, user_id: int) -> int | None:
        for player in self.players:
            if player.user_id == user_id:
                return player.seat
        return None

    @property
    def user_to_move(self) -> int | None:
        if self.state is None or self.state.to_move is None:
            return None
        return self.user_at(self.state.to_move)

    @property
    def turn_changed(self) -> bool:
        """True when this request ended the turn it was made in (a new turn, or the end)."""
        return any(isinstance(event, TurnStarted | GameEnded) for event in self.events)


@dataclass(frozen=True, slots=True)
class DueWork:
    """Something a turn clock calls for: a reminder to send, a turn for the AI to play, or a
    change that was never shown (its message failed) to show again, since neither a reminder
    nor an AI turn can follow before it is."""

    REMIND: ClassVar[str] = "remind"
    PLAY: ClassVar[str] = "play"
    SHOW: ClassVar[str] = "show"

    game_id: int
    seq: int
    kind: str


@dataclass(frozen=True, slots=True)
class Reminder:
    """Half of the turn's time is gone: ping `user_id`, who must move by `deadline`."""

    view: GameView
    user_id: int | None
    deadline: datetime


@dataclass(frozen=True, slots=True)
class AutoTurn:
    """A turn the AI played by itself, and why: its own seat, a seat handed over after
    timeouts, a player who ran out of time, or one who just did so for the third time in a row
    (and whose seat the AI keeps playing)."""

    AI: ClassVar[str] = "ai"
    AUTOPLAY: ClassVar[str] = "autoplay"
    TIMEOUT: ClassVar[str] = "timeout"
    HANDED_OVER: ClassVar[str] = "handed-over"

    view: GameView
    seat: int
    user_id: int | None
    level: str
    reason: str


@dataclass(frozen=True, slots=True)
class Damage:
    """A game whose stored rows were found damaged on loading it.

    `fatal`: its log cannot be replayed, so it cannot go on (a moderator can end it); otherwise
    only its snapshot was wrong and the log, the source of truth, was used instead.
    """

    game_id: int
    guild_id: int | None
    channel_id: int
    reason: str
    locale: str
    fatal: bool = True
