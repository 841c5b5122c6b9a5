"""A game in memory, and the steps on it that the lobby, play and turn-clock services share.

`LoadedGame` is a game as the loader (bot.services.loader) keeps it: its stored row (seed and
turn clock included, so it never leaves the services), its players and, once started, its
state with the events of the current and the previous turn and the turns the AI played for a
person, as their log entries record them. `view()` is what the edge gets of
it. The functions below are pure: applying an action, the players after a seat control
changed, the results at the end, and how events split into turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

import engine
from bot.services import pause
from bot.services.errors import IllegalMoveError, NotSeatedError, StaleBoardError
from bot.services.views import (
    AiMove,
    GameInfo,
    GameView,
    Player,
    RatingChange,
    SinceLastTurn,
    TurnReason,
)
from bot.storage.game_rows import ActionRow, GameRow, NewAction, ResultRow, SeatControl, SeatRow
from bot.storage.kinds import EndReason, TurnClock
from engine import GameState
from engine.events import Event


@dataclass(frozen=True, slots=True)
class LoadedGame:
    """A game in memory: its row, players and (once started) state with recent events."""

    game: GameRow
    players: tuple[Player, ...]
    state: GameState | None
    turn_events: tuple[Event, ...] = ()
    previous_turn_events: tuple[Event, ...] = ()
    turn_starts: tuple[int, ...] = ()
    """The seq at which each turn began: (0,) once started, one more per TurnStarted."""
    history: tuple[Event, ...] = ()
    """Every event of the game so far (what a player missed since their last turn)."""
    ratings: tuple[RatingChange, ...] = ()
    """Once a rated game is over and its ratings applied: what it did to each seat's."""
    ai_moves: tuple[AiMove, ...] = ()
    """The turns the AI played for a person, as their log entries record them."""

    def view(self, events: Sequence[Event] = ()) -> GameView:
        return GameView(
            game=game_info(self.game),
            players=self.players,
            state=self.state,
            events=tuple(events),
            turn_events=self.turn_events,
            previous_turn_events=self.previous_turn_events,
            turn_starts=self.turn_starts,
            since_last_turn=self._since_last_turn(),
            paused_until=self.paused_until(),
            ratings=self.ratings,
            ai_moves=self.ai_moves,
        )

    def _since_last_turn(self) -> SinceLastTurn:
        state = self.state
        if state is None or state.to_move is None:
            return SinceLastTurn()
        return payments_since_last_turn(self.history, state.to_move)

    def paused_until(self) -> datetime | None:
        """Until when the game waits for a person to take their seat back (None: it does not)."""
        if self.game.due_at is None or not pause.is_paused(self.players, self.state):
            return None
        return self.game.due_at

    @property
    def clock(self) -> TurnClock:
        return TurnClock(self.game.turn_started_at, self.game.remind_at, self.game.due_at)

    def seat_of(self, user_id: int) -> int | None:
        """The seat of the user while they are in (None in a lobby: seats come at the start);
        NotSeatedError in a started game they are not, or no longer, in."""
        for player in self.players:
            if player.user_id == user_id and not player.resigned:
                return player.seat
        if self.state is not None:
            raise NotSeatedError()
        return None

    def player_at(self, seat: int | None) -> Player | None:
        for player in self.players:
            if seat is not None and player.seat == seat:
                return player
        return None

    def user_at(self, seat: int | None) -> int | None:
        player = self.player_at(seat)
        return player.user_id if player is not None else None

    def stale(self) -> StaleBoardError:
        """The error for a request made at a seq the game has moved on from, with the game's
        current message, if one shows the game as it is now: a double tap that ended a turn
        comes while the next turn is being posted, and the message recorded then is the one
        just tapped, not one to send the player to."""
        game = self.game
        current = game.board_message_id if game.board_message_seq == game.seq else None
        return StaleBoardError(game.id, game.channel_id, game.guild_id, current)


def apply_action(state: GameState, action: str, events: list[Event]) -> GameState:
    """`action` applied to `state`, its events added to `events`; IllegalMoveError if the
    rules do not allow it."""
    try:
        state, new_events = engine.apply(state, action)
    except engine.IllegalActionError as error:
        raise IllegalMoveError(str(error)) from None
    events.extend(new_events)
    return state


def players_of(seats: Sequence[SeatRow]) -> tuple[Player, ...]:
    return tuple(
        Player(
            s.user_id,
            s.seat,
            s.ai_level,
            s.resigned,
            s.timeouts,
            s.autoplay,
            s.display_name,
            s.stands_in_for,
            s.left_with_out,
            s.hints_used,
        )
        for s in seats
    )


def with_control(players: tuple[Player, ...], control: SeatControl) -> tuple[Player, ...]:
    return tuple(
        replace(player, timeouts=control.timeouts, autoplay=control.autoplay)
        if player.seat == control.seat
        else player
        for player in players
    )


def results_of(state: GameState, players: Sequence[Player]) -> list[ResultRow]:
    """Every seat's place, score and colour at the end (ties share a place; the next place
    counts everyone above: 1, 1, 3, as the final message numbers them).

    A seat handed to a substitute is counted for the person who left it, as if they had
    resigned then (out, at the place that gives them); the substitute finished it for them,
    at the seat's own place. Such a game ranks every seat for the ratings too (`rated_place`):
    the others in the order they finished, the person who left among them."""
    outcome = state.outcome
    assert outcome is not None
    scores = engine.scores(state)
    place_of: dict[int, int] = {}  # a group's place counts every seat ranked above it
    for group in outcome.ranking:
        place_of.update(dict.fromkeys(group, len(place_of) + 1))
    left = {p.seat: p.left_with_out for p in players if p.seat is not None and p.stands_in_for}
    rated = rated_places(outcome.ranking, state.eliminated, left) if left else {}
    rows = []
    for player in players:
        if player.seat is None:
            continue
        seat = player.seat
        row = ResultRow(
            seat=seat,
            user_id=player.user_id,
            ai_level=player.ai_level,
            color=engine.seat_colors(state.players, seat)[0].value,
            score=scores[seat].total,
            dirhams=scores[seat].dirhams,
            place=place_of[seat],
            won=place_of[seat] == 1,
            eliminated=state.is_eliminated(seat),
            rated_place=rated.get(seat),
        )
        if player.stands_in_for is not None:
            row = replace(
                row,
                user_id=player.stands_in_for,
                place=rated[seat],
                won=False,
                eliminated=True,
                finished_by=player.user_id,
                finished_place=place_of[seat],
            )
        rows.append(row)
    return rows


def rated_places(
    ranking: Sequence[Sequence[int]],
    eliminated: Sequence[int],
    left: dict[int, int | None],
) -> dict[int, int]:
    """Each seat's place among the rated players of a game in which the people of the seats
    `left` (seat -> seats out of the game when its person left) handed them over.

    Every other seat keeps its order at the end. A person who left counts as out at that moment:
    behind every seat still in at the end or out after they left, ahead of the seats already out
    (out the same moment as another who left with as many seats out: a shared place). Ties share
    a place; the next place counts everyone above (1, 1, 3)."""
    out_moment = {seat: float(index) for index, seat in enumerate(eliminated)}
    keys: dict[int, tuple[int, float]] = {}
    for place, group in enumerate(ranking):
        for seat in group:
            if seat in left:
                keys[seat] = (1, -((left[seat] or 0) - 0.5))
            elif seat in out_moment:
                keys[seat] = (1, -out_moment[seat])
            else:
                keys[seat] = (0, float(place))
    return {seat: 1 + sum(other < key for other in keys.values()) for seat, key in keys.items()}


def split_turns(
    current: tuple[Event, ...], previous: tuple[Event, ...], events: Sequence[Event]
) -> tuple[tuple[Event, ...], tuple[Event, ...]]:
    """(the current turn's events, the previous turn's) after `events` happened."""
    for event in events:
        if isinstance(event, engine.TurnStarted):
            current, previous = (event,), current
        else:
            current = (*current, event)
    return current, previous


def with_ai_moves(
    moves: tuple[AiMove, ...], turn: int, entries: Sequence[NewAction | ActionRow]
) -> tuple[AiMove, ...]:
    """`moves` (in turn order) with turn `turn`'s, if one of `entries` (moves of that turn,
    the latest one logged) records the AI playing it for a person and `moves` does not have it
    yet."""
    if moves and moves[-1].turn == turn:
        return moves
    for entry in entries:
        if entry.ai_for is not None:
            reason = TurnReason(entry.ai_for.reason)
            return (*moves, AiMove(turn, reason, entry.ai_for.in_a_row))
    return moves


def game_info(row: GameRow) -> GameInfo:
    """What the edge may know of a game: its row less the seed, config and clocks."""
    return GameInfo(
        id=row.id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        host_id=row.host_id,
        status=row.status,
        seats_wanted=row.seats_wanted,
        variant=row.variant,
        turn_limit_seconds=row.turn_limit_seconds,
        seed_sha256=row.seed_sha256,
        seq=row.seq,
        board_message_id=row.board_message_id,
        board_message_seq=row.board_message_seq,
        end_reason=EndReason(row.end_reason) if row.end_reason is not None else None,
        ended_by=row.ended_by,
        locale=row.locale,
        lobby_message_id=row.lobby_message_id,
        reminder_message_id=row.reminder_message_id,
        nudge_message_id=row.nudge_message_id,
        tournament_id=row.tournament_id,
        casual=row.casual,
        coach=row.coach,
    )


def payments_since_last_turn(events: Sequence[Event], seat: int) -> SinceLastTurn:
    """(who paid `seat` and how much, whom `seat` paid and how much), summed per other seat,
    over the events from the start of the seat's previous turn to the end of `events` (the
    start of its new turn). Nothing before the seat's first turn ends."""
    starts = [
        index
        for index, event in enumerate(events)
        if isinstance(event, engine.TurnStarted) and event.seat == seat
    ]
    if len(starts) < 2:
        return SinceLastTurn()
    received: dict[int, int] = {}
    paid: dict[int, int] = {}
    for event in events[starts[-2] : starts[-1]]:
        if isinstance(event, engine.TaxPaid) and event.paid > 0:
            if event.payee == seat:
                received[event.payer] = received.get(event.payer, 0) + event.paid
            elif event.payer == seat:
                paid[event.payee] = paid.get(event.payee, 0) + event.paid
    return SinceLastTurn(tuple(received.items()), tuple(paid.items()))
