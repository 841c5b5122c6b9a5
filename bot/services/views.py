"""What the service hands back to the edge: a game, its players, its state, what happened."""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage import GameRow, GameStatus
from engine import GameEnded, GameState, TurnStarted
from engine.events import Event


@dataclass(frozen=True, slots=True)
class Player:
    """A seat in a game: a Discord user, or (later) an AI of some level."""

    user_id: int | None
    seat: int | None  # None until the game starts
    ai_level: str | None = None
    resigned: bool = False


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

    def is_seated(self, user_id: int) -> bool:
        return any(player.user_id == user_id for player in self.players)

    @property
    def user_to_move(self) -> int | None:
        if self.state is None or self.state.to_move is None:
            return None
        return self.user_at(self.state.to_move)

    @property
    def turn_changed(self) -> bool:
        """True when this request ended the turn it was made in (a new turn, or the end)."""
        return any(isinstance(event, TurnStarted | GameEnded) for event in self.events)
