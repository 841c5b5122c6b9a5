"""A turn in one line: what a turn's message is edited down to once the game moved on from it.

A game shows one board picture at a time, on the message of the turn being played (or, at the
end, on the result). Every other turn message is a single line of text, with no picture and no
button, that says which turn it was, who played it and what happened: how Assam was turned, the
die, where he stopped, what was paid and the rug laid (and who went out, or that the game was
aborted there). A turn the AI played for a person out of time says so at its start: the line is
where the channel is told of a timeout, and of the seat handed to the AI after the last one, as
the turn's log entries recorded them when the AI played it. A reminder to play, or a player's
nudge, once its turn is over, says so, and what the AI did of a turn that ran out
(`reminder_over`, `nudge_over`). Pure functions; every word comes from the message catalogue.
"""

from __future__ import annotations

from collections.abc import Sequence

import engine
from bot.presentation.links import mention
from bot.presentation.messages import text
from bot.presentation.names import facing_name, seat_name, squares_label
from bot.presentation.presenter import COLOR_DOTS
from bot.services import deadlines
from bot.services.views import EndReason, GameStatus, GameView, TurnReason
from engine import GameState
from engine.events import Event

CONTENT_LIMIT = 2000
"""The most characters Discord takes in a message's text."""
SEPARATOR = " · "


def finished_turn(view: GameView) -> int:
    """The number of the turn the last change of the game ended: the one before the current
    turn, or the last turn once the game is over."""
    state = _state(view)
    return state.turn if state.is_over else max(1, state.turn - 1)


def turn_line(view: GameView, turn: int) -> str:
    """Turn `turn` of the game in one line: its header (game and turn number), then its mover
    and what happened in it. The current and the previous turn are told in full; an older one
    (a message left far behind by a crash) says only that it is over."""
    state = _state(view)
    language = view.game.locale
    events = _events_of(view, state, turn)
    if events is None:
        story = text("turn.done", language, turn=turn)
    else:
        mover = _mover(state, turn, events)
        finished = turn < state.turn or state.is_over
        name = _mover_name(view, mover, turn, language, finished=finished)
        who = f"{_dots(state, mover)} {name}"
        parts = _parts(view, events, language, mover)
        if view.status is GameStatus.ABORTED and turn == state.turn:
            parts.append(_stopped(view, language))
        story = text("story.by", language, who=who, parts=SEPARATOR.join(parts)) if parts else who
    line = text("story.line", language, game_id=view.id, turn=turn, story=story)
    return line if len(line) <= CONTENT_LIMIT else line[: CONTENT_LIMIT - 1] + "…"


def _stopped(view: GameView, language: str) -> str:
    """How the last turn of a game stopped early ended."""
    if view.game.end_reason is EndReason.ABANDONED:
        return text("story.abandoned", language)
    return text("story.aborted", language, user=mention(view.game.ended_by))


def reminder_over(view: GameView) -> str:
    """What a reminder to play says once the turn it was about is over (see `ran_out`)."""
    return ran_out(view) or text("timer.reminder_over", view.game.locale, game_id=view.id)


def nudge_over(view: GameView) -> str:
    """What a player's nudge says once the turn it was about is over (see `ran_out`)."""
    return ran_out(view) or text("nudge.over", view.game.locale, game_id=view.id)


def ran_out(view: GameView) -> str | None:
    """What a ping to play (a reminder, a nudge) says when the game's last finished turn ran
    out of time: that the AI played it for its player, or (the last of the turns in a row that
    hand a seat over) took their seat, and how to take it back. The pinged player who follows
    the ping too late learns it there. The turn is named, so the line stays true whichever turn
    the ping was about. None when that turn did not run out."""
    language = view.game.locale
    turn = finished_turn(view)
    state = _state(view)
    recorded = view.ai_move(turn)
    events = _events_of(view, state, turn)
    player = None if events is None else view.player_at(_mover(state, turn, events))
    if recorded is None or player is None or player.user_id is None:
        return None
    user = mention(player.user_id)
    if recorded.reason is TurnReason.TIMEOUT:
        return text("timer.ran_out", language, game_id=view.id, turn=turn, user=user)
    if recorded.reason is TurnReason.HANDED_OVER:
        count = recorded.in_a_row
        return text(
            "timer.handed_over", language, game_id=view.id, turn=turn, user=user, count=count
        )
    return None


def _events_of(view: GameView, state: GameState, turn: int) -> tuple[Event, ...] | None:
    if turn == state.turn:
        return view.turn_events
    if turn == state.turn - 1:
        return view.previous_turn_events
    return None


def _mover(state: GameState, turn: int, events: Sequence[Event]) -> int:
    """Whose turn it was: the seat its start named (the first turn has none: the first
    player's)."""
    for event in events:
        if isinstance(event, engine.TurnStarted):
            return event.seat
    if turn == 1:
        return state.config.first_player
    for event in events:
        if isinstance(event, engine.AssamTurned | engine.DieRolled | engine.RugPlaced):
            return event.seat
    return state.config.first_player


def _mover_name(view: GameView, seat: int, turn: int, language: str, *, finished: bool) -> str:
    """The mover of the current or the previous turn. A human whose turn the AI played is named
    as the AI playing for them, and a `finished` turn that ran out of time tells it: the first
    turns in a row that did, then the one that handed the seat to the AI (with how to take it
    back). This is the channel's one notice of a timeout, derived from what is stored like the
    rest of the line, so a catch-up after a crash tells it as the first showing would have.

    Why the AI played the turn is read from its log entries, which record it with the moves
    (`GameView.ai_move`), so taking the seat back before any display showed the turn changes
    nothing. A turn logged before that was kept is told from the seat as stored now: its count
    of turns in a row the AI played for it, reset only by a turn its player ended themselves
    (or by taking the seat back), so a count above zero means the AI played (or finished) their
    latest finished turn. A turn still under way in a seat the AI does not keep is its
    person's: the AI plays a turn out of time whole, in one go."""
    player = view.player_at(seat)
    if player is None or player.ai_level is not None:
        return seat_name(view, seat, language)
    recorded = view.ai_move(turn)
    if recorded is not None:
        reason, in_a_row = recorded.reason, recorded.in_a_row
    elif not player.timeouts or not (finished or player.autoplay):
        return seat_name(view, seat, language)
    elif not player.autoplay:
        reason, in_a_row = TurnReason.TIMEOUT, player.timeouts
    elif player.timeouts == deadlines.TIMEOUTS_BEFORE_HANDOVER:
        reason, in_a_row = TurnReason.HANDED_OVER, player.timeouts
    else:
        reason, in_a_row = TurnReason.AUTOPLAY, player.timeouts
    user = mention(player.user_id)
    if finished and reason is TurnReason.TIMEOUT:
        return text("story.timed_out", language, user=user)
    if finished and reason is TurnReason.HANDED_OVER:
        return text("story.handed_over", language, user=user, count=in_a_row)
    return text("ai.playing_for", language, user=user)


def _parts(
    view: GameView, events: Sequence[Event], language: str, mover: int | None = None
) -> list[str]:
    """What happened, one short part per thing, in order; a walk that cost nothing says so.
    The turn's own player (`mover`), named before these parts, is not named again when they
    resign."""
    parts: list[str] = []
    for index, event in enumerate(events):
        match event:
            case (
                engine.AssamTurned(rotation=rotation, facing=facing)
                | engine.AssamRotated(rotation=rotation, facing=facing)
            ):
                parts.append(
                    text(f"story.turned.{rotation}", language, facing=facing_name(facing, language))
                )
            case engine.DieRolled(face=face):
                parts.append(text("story.rolled", language, face=face))
            case engine.AssamMoved() as moved:
                parts.append(text("story.moved", language, square=engine.square_name(moved.end)))
                if not any(isinstance(later, engine.TaxPaid) for later in events[index + 1 :]):
                    parts.append(text("story.no_payment", language))
            case engine.TaxPaid(payee=payee, owed=owed, paid=paid):
                key = "story.paid" if paid == owed else "story.paid_short"
                payee_name = seat_name(view, payee, language)
                parts.append(text(key, language, payee=payee_name, owed=owed, paid=paid))
            case engine.PlayerEliminated(seat=seat, resigned=resigned):
                if resigned and seat == mover:
                    parts.append(text("story.resigned.self", language))
                    continue
                key = "story.resigned" if resigned else "story.eliminated"
                parts.append(text(key, language, user=seat_name(view, seat, language)))
            case engine.RugPlaced(color=color, squares=squares):
                parts.append(
                    text(
                        "story.placed",
                        language,
                        color=text(f"color.{color.value}", language),
                        squares=squares_label(squares),
                    )
                )
    return parts


def _dots(state: GameState, seat: int) -> str:
    return "".join(COLOR_DOTS[color] for color in engine.seat_colors(state.players, seat))


def _state(view: GameView) -> GameState:
    if view.state is None:
        raise ValueError(f"game {view.id} has not started")
    return view.state
