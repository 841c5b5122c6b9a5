"""What the services hand back to the edge: a game, its players, its state, what happened.

The edge only ever sees these views, never a storage row: `GameInfo` holds what a message
shows of a game, and never its secret seed (that is revealed only in the record of a game
that is over). `GameStatus` and `EndReason` are the storage's own enums, named here so that
the edge takes them from the services.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import NamedTuple

from bot.storage.kinds import EndReason, GameStatus
from engine import GameEnded, GameState, TurnStarted
from engine.events import Event

__all__ = [
    "AiMove",
    "AutoTurn",
    "Damage",
    "DueKind",
    "DueWork",
    "EndReason",
    "GameInfo",
    "GameStatus",
    "GameView",
    "Player",
    "RatingChange",
    "Reminder",
    "TurnReason",
]


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What the edge shows of a game: where it is played, by whose lobby, with which options,
    how far it went and which message shows it. No seed, no stored config or snapshot."""

    id: int
    guild_id: int | None
    channel_id: int
    host_id: int
    status: GameStatus
    seats_wanted: int
    variant: str
    turn_limit_seconds: int | None
    seed_sha256: str
    seq: int
    board_message_id: int | None = None
    board_message_seq: int | None = None
    end_reason: EndReason | None = None
    ended_by: int | None = None
    locale: str = "en"
    """The language of the game's public messages (bot.presentation.messages.LANGUAGES)."""
    lobby_message_id: int | None = None
    """The lobby's message, which keeps pointing at the game once it started."""
    reminder_message_id: int | None = None
    """The reminder sent for the turn being played, until that turn's end is shown."""
    nudge_message_id: int | None = None
    """The ping of a player's nudge for the turn being played, until that turn's end is shown."""
    tournament_id: int | None = None
    """The tournament whose table the game is (None: an ordinary game)."""
    casual: bool = False
    """Opened as casual: no rating counts it."""
    coach: bool = False
    """Opened with the coach: hints and private verdicts, and always casual."""


@dataclass(frozen=True, slots=True)
class Player:
    """A seat in a game: a Discord user, or an AI of some level (`user_id` None).

    `timeouts` counts a human's turns in a row that the AI played for them: those that ran out
    of time (begun by them or not), then those it played once the seat was handed over (the
    turn that handed it over is the one at the threshold); a turn they end themselves, or a
    rejoin, sets it back to zero. `autoplay` means the AI plays the seat for them until they
    `/marrakech rejoin`. `name` is the name a human was
    shown by when they took the seat (their server nickname, else global name, else username);
    None for an AI, and for seats taken before names were kept.
    """

    user_id: int | None
    seat: int | None  # None until the game starts
    ai_level: str | None = None
    resigned: bool = False
    timeouts: int = 0
    autoplay: bool = False
    name: str | None = None
    stands_in_for: int | None = None
    """Once the seat was handed to a substitute: the person who left it first, whom the game
    rates for it as if they had resigned then (docs/async.md#substitutes)."""
    left_with_out: int | None = None
    """With `stands_in_for`: how many seats were out of the game when that person left."""
    hints_used: int = 0
    """In a coached game: the hints its person has asked for (docs/coach.md)."""

    @property
    def ai_plays(self) -> bool:
        """True if the AI makes this seat's moves (an AI seat, or a human's handed over)."""
        return self.ai_level is not None or self.autoplay


class SinceLastTurn(NamedTuple):
    """What changed for a seat since its previous turn began, as (other seat, dirhams)
    summed per other seat: who paid it, and whom it paid. Empty before its second turn."""

    paid_to_you: tuple[tuple[int, int], ...] = ()
    you_paid: tuple[tuple[int, int], ...] = ()


NOTHING_SINCE_LAST_TURN = SinceLastTurn()


@dataclass(frozen=True, slots=True)
class GameView:
    """A game as the edge needs it to answer and draw.

    `events` are what this request did (empty for a plain look); `turn_events` everything since
    the current turn began, and `previous_turn_events` the whole turn before it, so that a
    message can be redrawn after a restart exactly as it was meant to look. `turn_starts` holds
    the seq at which each turn began (turn n at `turn_starts[n - 1]`), so that a message known
    to show some seq can be told which turn it showed (`turn_at`).
    """

    game: GameInfo
    players: tuple[Player, ...]
    state: GameState | None = None
    events: tuple[Event, ...] = ()
    turn_events: tuple[Event, ...] = ()
    previous_turn_events: tuple[Event, ...] = ()
    turn_starts: tuple[int, ...] = ()
    since_last_turn: SinceLastTurn = NOTHING_SINCE_LAST_TURN
    """For the seat to move: who paid it and whom it paid since its previous turn."""
    paused_until: datetime | None = None
    """Set while the game waits for a person (bot.services.pause): when it ends as
    abandoned unless someone takes their seat back."""
    ratings: tuple[RatingChange, ...] = ()
    """For a rated game that is over: what it did to each seat's rating (empty until the
    ratings include it)."""
    ai_moves: tuple[AiMove, ...] = ()
    """The turns the AI played for a person, each as recorded with its moves, in order."""

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

    def ai_move(self, turn: int) -> AiMove | None:
        """The AI's play of turn `turn` for a person, as recorded with it (None: not such a
        turn, or one logged before the reason was kept)."""
        return next((move for move in self.ai_moves if move.turn == turn), None)

    @property
    def started(self) -> bool:
        """Whether the game left its lobby (its players have seats), even if its log cannot
        be replayed now (a damaged game has no state)."""
        return any(player.seat is not None for player in self.players)

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

    def turn_at(self, seq: int) -> int:
        """The number of the turn the game was in once its log held `seq` entries (the turn
        a message showing that seq showed); the current turn when the starts are not known."""
        if not self.turn_starts:
            return self.state.turn if self.state is not None else 1
        return max(1, bisect_right(self.turn_starts, seq))

    @property
    def turn_changed(self) -> bool:
        """True when this request ended the turn it was made in (a new turn, or the end)."""
        return any(isinstance(event, TurnStarted | GameEnded) for event in self.events)


class DueKind(StrEnum):
    """What a turn clock calls for."""

    REMIND = "remind"
    """Half of a human's turn is gone: ping them."""
    PLAY = "play"
    """The AI plays the turn: an AI seat's, a handed-over seat's, or one out of time."""
    SHOW = "show"
    """A change was never shown (its message failed): show it again."""
    RELEASE = "release"
    """A person's quiet hours ended: send what was held for them, as one message (the work's
    `game_id` is 0 and its `seq` the person's id)."""


@dataclass(frozen=True, slots=True)
class DueWork:
    """Something a turn clock calls for at the game's `seq`: a reminder to send, a turn for
    the AI to play, or a change that was never shown to show again (neither a reminder nor an
    AI turn can follow before it is)."""

    game_id: int
    seq: int
    kind: DueKind


@dataclass(frozen=True, slots=True)
class Reminder:
    """Half of the turn's time is gone: ping `user_id`, who must move by `deadline`."""

    view: GameView
    user_id: int | None
    deadline: datetime


class TurnReason(StrEnum):
    """Why the AI played a turn by itself."""

    AI = "ai"
    """The seat is an AI's."""
    AUTOPLAY = "autoplay"
    """The seat was handed to the AI after timeouts."""
    TIMEOUT = "timeout"
    """The player ran out of time."""
    HANDED_OVER = "handed-over"
    """The player ran out of time once too often in a row: the AI keeps the seat."""


class AiMove(NamedTuple):
    """A turn the AI played for a person, as recorded with its moves when it played them:
    why, and the person's turns in a row the AI played for them, this one included. What the
    seat became since (a rejoin resets its count) does not change it."""

    turn: int
    reason: TurnReason
    in_a_row: int


@dataclass(frozen=True, slots=True)
class AutoTurn:
    """A turn the AI played by itself at `level` for `seat`, and why."""

    view: GameView
    seat: int
    user_id: int | None
    level: str
    reason: TurnReason


@dataclass(frozen=True, slots=True)
class Abandoned:
    """A paused game that no one resumed in time: it ended as abandoned."""

    view: GameView


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


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """A server's defaults for `/marrakech new` and where games may be opened (empty: anywhere)."""

    guild_id: int
    turn_limit_seconds: int | None = None
    variant: str | None = None
    channel_ids: tuple[int, ...] = ()
    away_days: int = 7
    """The most days one may be away at once (0: away days refused: bot.services.away)."""
    clocks_in_quiet: bool = False
    """Whether turn clocks run during a player's quiet hours (else they pause)."""


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """A member's finished games on a server: count, wins, scores and favourite colour."""

    user_id: int
    games: int
    wins: int
    average_score: float | None
    """Over the games they ended in play (None: out or resigned in every one)."""
    best_score: int | None
    favourite_color: str | None
    accuracy: Accuracy | None = None
    """Their accuracy over their newest finished games (None: no game judged yet)."""
    finished_for: tuple[FinishedFor, ...] = ()
    """The games they finished for someone as a substitute, newest first (counted in none of
    the numbers above, and rated for no one but the person who left: docs/async.md)."""


@dataclass(frozen=True, slots=True)
class FinishedFor:
    """A game a member played to its end in a seat someone else left: its id, the place the
    seat finished at, and the person they finished it for."""

    game_id: int
    place: int
    for_user_id: int


@dataclass(frozen=True, slots=True)
class Accuracy:
    """A member's accuracy (0-100, docs/coach.md) over their newest judged games: its mean and
    its trend, the mean of the newer half minus that of the older half (None with fewer than
    4 games: too few to say)."""

    games: int
    average: float
    trend: float | None
    values: tuple[float, ...] = ()
    """Each of those games' accuracy, newest first (the stats' chart draws them)."""


@dataclass(frozen=True, slots=True)
class PastGame:
    """A game of the server, newest first, with its winners when it finished."""

    game_id: int
    channel_id: int
    status: str
    end_reason: str | None
    seats: int
    created_at: datetime
    updated_at: datetime
    winner_ids: tuple[int | None, ...]
    winner_levels: tuple[str | None, ...]


@dataclass(frozen=True, slots=True)
class OpenGame:
    """A lobby or running game of the server in which a user holds a seat.

    `message_id` is the message that shows the game now (the lobby, or the turn being
    played; None if it was never recorded); `to_play` the seat whose turn it is (None in a
    lobby, or if the game could not be loaded)."""

    game_id: int
    guild_id: int | None
    channel_id: int
    lobby: bool
    message_id: int | None
    to_play: Player | None
    yours_to_ai: bool = False
    """The AI plays the user's seat (handed to it after their timeouts) until they rejoin."""
    paused: bool = False
    """The game waits for a person to take their seat back (the AI plays every seat)."""


@dataclass(frozen=True, slots=True)
class TurnNotice:
    """What the direct message to a player whose turn began says: the game, its turn message,
    and the dirhams paid to and by them since their previous turn began (each as (other seat,
    dirhams), in the order first paid)."""

    game_id: int
    guild_id: int | None
    channel_id: int
    message_id: int
    locale: str
    user_id: int
    seat: int
    players: tuple[Player, ...]
    paid_to_you: tuple[tuple[int, int], ...]
    you_paid: tuple[tuple[int, int], ...]
    game_locale: str | None = None
    """The game's language, for what is said of this in its channel (None: `locale`)."""

    def player_at(self, seat: int) -> Player | None:
        for player in self.players:
            if player.seat == seat:
                return player
        return None


@dataclass(frozen=True, slots=True)
class UpNextNotice:
    """The direct message to a player who asked for one when they are next: the game and the
    message of the turn before theirs."""

    game_id: int
    guild_id: int | None
    channel_id: int
    message_id: int
    locale: str
    user_id: int
    game_locale: str | None = None
    """The game's language, for what is said of this in its channel (None: `locale`)."""


@dataclass(frozen=True, slots=True)
class RatingChange:
    """What a rated game did to one seat's rating (bot.services.ratings), in points: `before`
    and `after` it; `provisional` if the rating still is after it."""

    seat: int
    user_id: int | None
    ai_level: str | None
    before: int
    after: int
    provisional: bool
    place: int | None = None
    """The place the seat was rated at (ties share one): its place at the end, or, for a seat
    a substitute finished, the place of its person who left (docs/async.md#substitutes);
    None: not known."""

    @property
    def change(self) -> int:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class RatedResult:
    """One rated game of a player: its place out of `seats` and the points it gave."""

    game_id: int
    place: int
    seats: int
    change: int


@dataclass(frozen=True, slots=True)
class AiRecord:
    """A person's finished games against one AI level, per AI seat met: finished ahead of it
    (`wins`), on the same place (`ties`), or behind it (`losses`)."""

    level: str
    wins: int
    ties: int
    losses: int


@dataclass(frozen=True, slots=True)
class PlayerRating:
    """A member's rating on a server: points now, rated games, whether still provisional, the
    points after each rated game (`history`, starting with the points before the first), the
    games that gave the most and the fewest points, and their record against each AI level."""

    user_id: int
    points: int
    games: int
    provisional: bool
    history: tuple[int, ...]
    best: RatedResult | None
    worst: RatedResult | None
    against_ai: tuple[AiRecord, ...]
    provisional_games: int
    """How many rated games a rating takes to stop being provisional."""


@dataclass(frozen=True, slots=True)
class RatedPlayer:
    """A person (`user_id`) or an AI level (`ai_level`) with their rating on a server."""

    user_id: int | None
    ai_level: str | None
    points: int
    games: int
    provisional: bool


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """A server's best rated people, the settled ones first (each part best first), and its AI
    levels as reference players."""

    players: tuple[RatedPlayer, ...]
    references: tuple[RatedPlayer, ...]
    provisional_games: int
