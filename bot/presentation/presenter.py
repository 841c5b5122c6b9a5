"""Turns game views into what Discord shows: message text, embeds and which image to draw.

Pure functions, no Discord I/O: every sentence comes from the message catalogue
(bot.presentation.messages).
Public game messages (lobby, turns, pings, the end) are written in the game's own language,
chosen from the server's locale when it opened; private answers take the language they are given.
The community's posts (stats and ratings, leaderboard, history) are in
bot.presentation.community.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby
from typing import Any

import discord

import engine
from bot.presentation import ratings
from bot.presentation.links import mention, message_link
from bot.presentation.messages import ENGLISH_LANGUAGE, allowed_channels, listed, number, text
from bot.presentation.names import color_name, player_name, seat_name, squares_label
from bot.presentation.narration import narrate
from bot.presentation.since import since_last_turn_line
from bot.services import pause
from bot.services.time_rules import MONTHLY_AWAY_DAYS
from bot.services.views import (
    EndReason,
    GameInfo,
    GameStatus,
    GameView,
    Player,
    RatingChange,
    Reminder,
    ServerSettings,
)
from engine import Color, GameState, Phase
from engine.events import Event

COLOR_DOTS = {Color.RED: "🟥", Color.YELLOW: "🟨", Color.BLUE: "🟦", Color.BROWN: "🟫"}
EMBED_COLORS = {
    Color.RED: 0xC0392B,
    Color.YELLOW: 0xF1C40F,
    Color.BLUE: 0x2E86C1,
    Color.BROWN: 0x8E5B3A,
}
LOBBY_COLOR = 0xD35400
END_COLOR = 0x27AE60
IMAGE_NAME = "board.png"
RECORD_NAME = "marrakech-game-{game_id}.json"
EMBED_DESCRIPTION_LIMIT = 4096


@dataclass(frozen=True, slots=True)
class BoardImage:
    """Which picture to draw for a message: the board now, or the final ranking."""

    state: GameState
    events: tuple[Event, ...]
    numbered: bool = False
    final: bool = False
    language: str = ENGLISH_LANGUAGE
    """The language of the words drawn in the picture's panel."""
    players: tuple[Player, ...] = ()
    """The game's players, whose names the panel shows (none: the seat labels)."""
    show_choices: bool = False
    """Draw the ways Assam may face as arrows (the ORIENT decision, or ROTATE in the variant)."""
    panel_turn: tuple[int, int | None] | None = None
    """The turn and the player to move the panel shows (None: the state's own): a hint draws
    the board as its option leaves it, on the turn it was asked on."""


@dataclass(frozen=True, slots=True)
class Post:
    """A message to send or to edit into place."""

    embed: discord.Embed
    content: str | None = None
    image: BoardImage | None = None
    pings: tuple[int, ...] = ()
    """The users the message's content may ping (nobody else's mention notifies)."""


def turn_limit_label(seconds: int | None, language: str) -> str:
    if seconds is None:
        return text("turn_limit.none", language)
    if seconds % 86400 == 0:
        return text("turn_limit.days", language, days=seconds // 86400)
    if seconds % 3600 == 0:
        return text("turn_limit.some", language, hours=seconds // 3600)
    return text("turn_limit.minutes", language, minutes=seconds // 60)


# --- lobby -----------------------------------------------------------------------------------


def lobby_post(
    view: GameView,
    *,
    closed_by: int | None = None,
    language: str | None = None,
    link: str | None = None,
    notes: Mapping[int, str] | None = None,
) -> Post:
    """The lobby message: options, who joined (while open, with each person's note, by user:
    how fast they usually play, bot.presentation.reliability), the commitment; closed when
    started/cancelled.

    Once the game started it is no longer titled a lobby and says where the game is: `link`
    leads to its first turn while it is played, then to its result.
    In the game's language, unless shown privately to someone in theirs (`language`).
    """
    game = view.game
    language = language or game.locale
    started = view.state is not None
    title = text("lobby.title_started" if started else "lobby.title", language, game_id=game.id)
    embed = discord.Embed(title=title, color=LOBBY_COLOR)
    if game.status is GameStatus.LOBBY:
        embed.description = text("lobby.body", language, host=mention(game.host_id))
    elif game.end_reason is EndReason.ABANDONED:
        embed.description = text("lobby.abandoned", language)
    elif game.status is GameStatus.ABORTED:
        embed.description = text(
            "lobby.aborted" if started else "lobby.cancelled",
            language,
            user=mention(closed_by or game.ended_by),
        )
    elif link is None:
        embed.description = text("lobby.started", language)
    else:
        key = "lobby.finished" if game.status is GameStatus.OVER else "lobby.playing"
        embed.description = text(key, language, link=link)
    # once started, the game has the seats it started with: none of the lobby's looks open
    seats = len(view.players) if view.started else game.seats_wanted
    heading = (
        text("lobby.players_seated", language, count=len(view.players))
        if view.started
        else text("lobby.players", language, count=len(view.players), seats=seats)
    )
    embed.add_field(
        name=heading,
        value="\n".join(_lobby_name(view, player, language, notes) for player in view.players)
        or "-",
        inline=False,
    )
    embed.add_field(
        name="\u200b",
        value=text(
            "lobby.options",
            language,
            seats=seats,
            variant=text(f"variant.{game.variant}", language),
            turn_limit=turn_limit_label(game.turn_limit_seconds, language),
            rated=text(_rated_key(game), language),
        )
        + "\n"
        + text("lobby.commitment", language, sha=game.seed_sha256),
        inline=False,
    )
    return Post(embed=embed)


def _lobby_name(
    view: GameView, player: Player, language: str, notes: Mapping[int, str] | None
) -> str:
    name = player_name(player, language)
    if view.status is not GameStatus.LOBBY or notes is None or player.user_id is None:
        return name
    note = notes.get(player.user_id)
    return name if note is None else f"{name} · {note}"


def _rated_key(game: GameInfo) -> str:
    """How the lobby says whether the game is rated: coached (never rated), casual or rated."""
    if game.coach:
        return "lobby.coach"
    return "lobby.casual" if game.casual else "lobby.rated"


# --- turns -----------------------------------------------------------------------------------


def turn_post(view: GameView, *, ping: bool = False) -> Post:
    """The live message of the current turn: what happened so far and what to decide now."""
    state = _state(view)
    language = view.game.locale
    mover = state.to_move
    assert mover is not None
    user = view.user_at(mover)
    lines = narrate(view, view.turn_events, language)
    lines.append("")
    if view.paused_until is not None:
        lines.append(text("turn.paused", language, deadline=_relative(view.paused_until)))
    elif view.ai_to_move:
        lines.append(text("turn.prompt.ai", language, player=seat_name(view, mover, language)))
    else:
        lines.append(_prompt(state, user, language))
    embed = _turn_embed(view, state, state.turn, lines, _seat_color(state, mover), language)
    image = BoardImage(
        state,
        view.turn_events,
        numbered=state.phase is Phase.PLACE,
        language=language,
        players=view.players,
        show_choices=state.phase in (Phase.ORIENT, Phase.ROTATE),
    )
    if not ping:
        return Post(embed=embed, image=image)
    if view.paused_until is not None:
        return _paused_post(view, state, embed, image)
    if view.ai_to_move:
        player = seat_name(view, mover, language)
        thinking = text("turn.ai_thinking", language, player=player, game_id=view.id)
        return Post(embed=embed, content=thinking, image=image)
    content = text("turn.ping", language, user=mention(user), game_id=view.id)
    mover_player = view.player_at(mover)
    since = since_last_turn_line(
        view.since_last_turn,
        lambda seat: seat_name(view, seat, language),
        language,
        handed_over=mover_player is not None and mover_player.stands_in_for is not None,
    )
    if since is not None:
        content = f"{content}\n{since}"
    return Post(embed=embed, content=content, image=image, pings=(user,) if user else ())


def _paused_post(view: GameView, state: GameState, embed: discord.Embed, image: BoardImage) -> Post:
    """The turn a paused game waits at, as posted: it calls those who can take their seat
    back (a game pauses only while someone can)."""
    users = pause.may_resume(view.players, state)
    content = text(
        "turn.paused_ping",
        view.game.locale,
        game_id=view.id,
        users=", ".join(mention(user) for user in users),
    )
    return Post(embed=embed, content=content, image=image, pings=users)


def _relative(moment: datetime) -> str:
    """A moment as Discord shows it in each reader's time zone, relative to now."""
    return f"<t:{int(moment.timestamp())}:R>"


def final_post(view: GameView) -> Post:
    """The end: ranking with scores, why it ended, the tie-break, each seat's rating and its
    change (or that a casual game changed none), the record attached."""
    state = _state(view)
    language = view.game.locale
    outcome = state.outcome
    assert outcome is not None
    scores = engine.scores(state)
    lines = [text(f"end.reason.{outcome.reason}", language)]
    above = 0  # seats ranked above the group: seats sharing a place share its number (1, 1, 3)
    for group in outcome.ranking:
        place = above + 1
        above += len(group)
        for seat in group:
            dot = _dots(state, seat)
            user = seat_name(view, seat, language)
            if state.is_eliminated(seat):
                lines.append(text("end.rank_line_out", language, place=place, dot=dot, user=user))
            else:
                score = scores[seat]
                lines.append(
                    text(
                        "end.rank_line",
                        language,
                        place=place,
                        dot=dot,
                        user=user,
                        total=score.total,
                        dirhams=score.dirhams,
                        visible=score.visible,
                    )
                )
    lines.extend(_tie_lines(view, state, outcome, language))
    lines.append(_winner_line(view, outcome.ranking[0], language))
    lines.extend(_rating_lines(view, outcome, language))
    lines.extend(_payment_lines(view, state, language))
    lines.append(text("end.record", language))
    embed = discord.Embed(
        title=text("end.title", language, game_id=view.id),
        description="\n".join(lines),
        color=END_COLOR,
    )
    embed.set_image(url=f"attachment://{IMAGE_NAME}")
    embed.set_footer(text=_footer(view, language))
    image = BoardImage(state, view.turn_events, final=True, language=language, players=view.players)
    return Post(embed=embed, image=image)


def _names(view: GameView, seats: Sequence[int], language: str) -> str:
    """The seats' players as a list: "A", "A and B", "A, B and C"."""
    return listed([seat_name(view, seat, language) for seat in seats], language)


def _tie_lines(
    view: GameView, state: GameState, outcome: engine.Outcome, language: str
) -> list[str]:
    """How the seats still in were ordered (R11): each tie on points, and whether dirhams
    split it or it stayed shared. With one seat left there was nothing to order."""
    scores = engine.scores(state)
    standing = [s for group in outcome.ranking for s in group if not state.is_eliminated(s)]
    lines = []
    for total, tied_seats in groupby(standing, key=lambda seat: scores[seat].total):
        tied = tuple(tied_seats)
        if len(tied) < 2:
            continue
        by_dirhams = [tuple(g) for _, g in groupby(tied, key=lambda seat: scores[seat].dirhams)]
        users = _names(view, tied, language)
        if len(by_dirhams) == 1:
            lines.append(text("end.tie.even", language, users=users, total=total))
        else:
            ahead = _names(view, by_dirhams[0], language)
            lines.append(text("end.tie.dirhams", language, users=users, total=total, ahead=ahead))
    if not lines and len(standing) > 1:
        lines.append(text("end.tie_break.score", language))
    return lines


@dataclass(frozen=True, slots=True)
class Payments:
    """What a finished game's seats paid and received in all (by seat), and its biggest
    single payment (None: nobody paid anything)."""

    paid: tuple[int, ...]
    received: tuple[int, ...]
    biggest: engine.TaxPaid | None


def payments(state: GameState) -> Payments:
    """Every payment of the game (R8), replayed from its record."""
    paid = [0] * state.players
    received = [0] * state.players
    biggest: engine.TaxPaid | None = None
    for _, events in engine.replay_events(engine.record_of(state)):
        for event in events:
            if isinstance(event, engine.TaxPaid) and event.paid > 0:
                paid[event.payer] += event.paid
                received[event.payee] += event.paid
                if biggest is None or event.paid > biggest.paid:
                    biggest = event
    return Payments(tuple(paid), tuple(received), biggest)


def _payment_lines(view: GameView, state: GameState, language: str) -> list[str]:
    """The game in short: dirhams paid and received per seat, and the biggest payment."""
    summary = payments(state)
    if summary.biggest is None:
        return [text("end.summary.none", language)]
    lines = [text("end.summary.title", language)]
    lines.extend(
        text(
            "end.summary.line",
            language,
            dot=_dots(state, seat),
            user=seat_name(view, seat, language),
            paid=number(summary.paid[seat], language),
            received=number(summary.received[seat], language),
        )
        for seat in range(state.players)
    )
    biggest = summary.biggest
    lines.append(
        text(
            "end.summary.biggest",
            language,
            payer=seat_name(view, biggest.payer, language),
            payee=seat_name(view, biggest.payee, language),
            paid=number(biggest.paid, language),
        )
    )
    return lines


def _rating_lines(view: GameView, outcome: engine.Outcome, language: str) -> list[str]:
    """Each seat's rating after the game and its change, in the order the seats were rated
    in: the ranking's, where the person who left a seat a substitute finished comes at the
    place they were rated at, as if they had resigned then (docs/async.md#substitutes),
    never at the seat's. A casual game says it changed none. Nothing while the ratings do not
    include the game yet."""
    if view.game.coach:
        return [text("end.coach", language)]
    if view.game.casual:
        return [text("end.casual", language)]
    changes = {change.seat: change for change in view.ratings}
    if not changes:
        return []
    ranked = [seat for group in outcome.ranking for seat in group if seat in changes]
    place_at_end = {seat: index + 1 for index, seat in enumerate(ranked)}

    def rated_at(seat: int) -> tuple[int, int]:
        place = changes[seat].place
        return (place_at_end[seat] if place is None else place, place_at_end[seat])

    lines = [text("end.ratings", language)]
    lines.extend(
        ratings.change_line(_rated_name(view, changes[seat], language), changes[seat], language)
        for seat in sorted(ranked, key=rated_at)
    )
    return lines


def _rated_name(view: GameView, change: RatingChange, language: str) -> str:
    """Who a seat's rating change is for: its player, or the person who left a seat a
    substitute finished (rated for it: docs/async.md#substitutes)."""
    player = view.player_at(change.seat)
    if change.user_id is not None and (player is None or player.user_id != change.user_id):
        return mention(change.user_id)
    return seat_name(view, change.seat, language)


def _winner_line(view: GameView, winners: Sequence[int], language: str) -> str:
    """Who won: a shared win names all who share it; an AI winner is not congratulated."""
    if len(winners) > 1:
        return text("end.winner_shared", language, users=_names(view, winners, language))
    player = view.player_at(winners[0])
    if player is not None and player.ai_level is not None:
        return text("end.winner_ai", language, user=seat_name(view, winners[0], language))
    return text("end.winner", language, users=seat_name(view, winners[0], language))


def aborted_post(view: GameView) -> Post:
    """The end of a game stopped early: aborted by someone, or abandoned by everyone."""
    language = view.game.locale
    if view.game.end_reason is EndReason.ABANDONED:
        description = text("abandon.done", language, game_id=view.id)
    else:
        description = text(
            "abort.done", language, game_id=view.id, user=mention(view.game.ended_by)
        )
    return Post(embed=discord.Embed(description=description, color=LOBBY_COLOR))


def board_post(view: GameView, language: str) -> Post:
    """A private look at the board and the scores, in the asker's `language`; a game stopped
    before its end (aborted or abandoned) shows its last board as such."""
    state = _state(view)
    if view.status is GameStatus.ABORTED:
        title = "board.title_stopped"
    else:
        title = "board.title_final" if state.is_over else "board.title"
    embed = discord.Embed(title=text(title, language, game_id=view.id), color=LOBBY_COLOR)
    _add_seats_and_board(embed, view, state, language)
    image = BoardImage(state, view.turn_events, language=language, players=view.players)
    return Post(embed=embed, image=image)


@dataclass(frozen=True, slots=True)
class Choice:
    """A button of the decision the game waits for: the action (a notation, or ROLL) it sends,
    its label and the emoji shown before the label (None: none)."""

    action: str
    label: str
    emoji: str | None = None


FACING_ARROWS = {
    engine.Facing.N: "⬆️",
    engine.Facing.E: "➡️",
    engine.Facing.S: "⬇️",
    engine.Facing.W: "⬅️",
}
"""The arrow that points, on screen, the way a facing looks (north is up on the board)."""
_SCREEN_ORDER = (engine.Facing.W, engine.Facing.N, engine.Facing.S, engine.Facing.E)
"""Where a turn's button sits beside the straight-on one: west on the left, east on the
right, north before south (read top to bottom)."""


def placement_labels(state: GameState) -> list[str]:
    """The placements in the engine's order; button n lays the n-th (numbered on the image)."""
    return engine.legal_actions(state) if state.phase is Phase.PLACE else []


def placement_choices(state: GameState, language: str) -> list[Choice]:
    """One button per placement, in the engine's order: its number on the picture and the
    two squares it covers ("3 · c2-c3"), readable without the picture."""
    return [
        Choice(
            notation,
            text(
                "button.place",
                language,
                number=number,
                squares=squares_label(engine.parse_placement(notation)),
            ),
        )
        for number, notation in enumerate(placement_labels(state), start=1)
    ]


def orientation_choices(state: GameState, language: str) -> list[Choice]:
    """The ways Assam may face now (ORIENT, or ROTATE in the variant), each named by the
    direction he will look on the board ("West", "North (straight on)") with an arrow
    pointing there. The action is the engine's notation (L, S or R).

    Order: straight on in the middle, the quarter turns on either side where they lie on
    screen (west left, east right; north before south when he faces east or west).
    """
    choices = engine.orientations(state)
    if not choices:
        return []

    def place(choice: tuple[str, engine.Facing]) -> float:
        rotation, facing = choice
        if rotation == "S":
            return 1.5  # between the two turns
        return float(_SCREEN_ORDER.index(facing))

    buttons = []
    for rotation, facing in sorted(choices, key=place):
        direction = text(f"button.direction.{facing.name}", language)
        label = (
            text("button.straight_on", language, direction=direction)
            if rotation == "S"
            else direction
        )
        buttons.append(Choice(rotation, label, FACING_ARROWS[facing]))
    return buttons


# --- helpers ---------------------------------------------------------------------------------


def _state(view: GameView) -> GameState:
    if view.state is None:
        raise ValueError(f"game {view.id} has not started")
    return view.state


def _prompt(state: GameState, user: int | None, language: str) -> str:
    who = mention(user)
    if state.phase is Phase.PLACE:
        color = state.next_rug_color(state.to_move) if state.to_move is not None else None
        name = color_name(color, language) if color is not None else "?"
        return text("turn.prompt.place", language, user=who, color=name)
    prompt = text(f"turn.prompt.{state.phase.value}", language, user=who)
    # Right after laying a rug (the rotate step of rotate-after) there is none to lay now.
    if state.players == 2 and state.to_move is not None and state.phase is not Phase.ROTATE:
        color = state.next_rug_color(state.to_move)
        if color is not None:
            name = color_name(color, language)
            prompt += "\n" + text("turn.must_lay", language, user=who, color=name)
    return prompt


def _turn_embed(
    view: GameView, state: GameState, turn: int, lines: list[str], color: int, language: str
) -> discord.Embed:
    description = "\n".join(lines)
    if len(description) > EMBED_DESCRIPTION_LIMIT:
        description = description[: EMBED_DESCRIPTION_LIMIT - 1] + "…"
    embed = discord.Embed(
        title=text("turn.title", language, game_id=view.id, turn=turn),
        description=description,
        color=color,
    )
    _add_seats_and_board(embed, view, state, language)
    return embed


def _add_seats_and_board(
    embed: discord.Embed, view: GameView, state: GameState, language: str
) -> None:
    """Add the list of seats (whose turn it is, who is out), the board image and the footer to
    `embed`."""
    embed.add_field(
        name=text("turn.table_title", language),
        value=_seat_table(view, state, language),
        inline=False,
    )
    embed.set_image(url=f"attachment://{IMAGE_NAME}")
    embed.set_footer(text=_footer(view, language))


def _seat_table(view: GameView, state: GameState, language: str) -> str:
    """Who plays which colours, who is out and whose turn it is. The numbers (dirhams, rugs
    left, score) are the picture's panel's: they are not repeated here."""
    lines = []
    for seat in range(state.players):
        dot = _dots(state, seat)
        user = seat_name(view, seat, language)
        if state.is_eliminated(seat):
            key = "turn.seat_line_out"
        elif seat == state.to_move:
            key = "turn.seat_line_to_move"
        else:
            key = "turn.seat_line"
        lines.append(text(key, language, dot=dot, user=user))
    return "\n".join(lines)


def _dots(state: GameState, seat: int) -> str:
    return "".join(COLOR_DOTS[color] for color in engine.seat_colors(state.players, seat))


def _seat_color(state: GameState, seat: int) -> int:
    return EMBED_COLORS[engine.seat_colors(state.players, seat)[0]]


def _footer(view: GameView, language: str) -> str:
    return text(
        "turn.footer", language, game_id=view.id, seq=view.seq, sha=view.game.seed_sha256[:16]
    )


# --- the turn clock --------------------------------------------------------------------------


def reminder_text(reminder: Reminder) -> str:
    """The ping for a player who has used half of their turn's time (a public message)."""
    game = reminder.view.game
    language = game.locale
    link = ""
    if game.board_message_id is not None:
        link = message_link(game.guild_id, game.channel_id, game.board_message_id)
    return text(
        "timer.reminder",
        language,
        user=mention(reminder.user_id),
        game_id=game.id,
        deadline=f"<t:{int(reminder.deadline.timestamp())}:R>",
        link=link,
    )


# --- settings and records -------------------------------------------------------------------


def settings_post(settings: ServerSettings, language: str) -> Post:
    """The server's settings, naming its allowed channels as far as the embed takes them."""
    variant = settings.variant or engine.Variant.STANDARD.value
    others = {
        "turn_limit": turn_limit_label(settings.turn_limit_seconds, language),
        "variant": text(f"variant.{variant}", language),
        "away_days": (
            text("admin.away_days", language, days=settings.away_days, monthly=MONTHLY_AWAY_DAYS)
            if settings.away_days
            else text("admin.away_days_off", language)
        ),
        "quiet_clocks": text(
            "admin.quiet_clocks.run" if settings.clocks_in_quiet else "admin.quiet_clocks.pause",
            language,
        ),
    }
    description = allowed_channels(
        settings.channel_ids,
        language,
        lambda channels: text(
            "admin.settings",
            language,
            channels=channels or text("admin.all_channels", language),
            **others,
        ),
        EMBED_DESCRIPTION_LIMIT,
    )
    return Post(
        embed=discord.Embed(
            title=text("admin.title", language), description=description, color=LOBBY_COLOR
        )
    )


def record_file(record: dict[str, Any], game_id: int) -> discord.File:
    """The game record (FORMATS.md) as the JSON attachment that goes with a finished game."""
    return discord.File(
        io.BytesIO(json.dumps(record, indent=1).encode()),
        filename=RECORD_NAME.format(game_id=game_id),
    )
