"""What players read and see of a tournament: its sign-up, then its standings (text and the
picture of the table), the names of its threads, the welcome in each, the winner's
announcement, and the question before aborting one.

Pure functions, no Discord I/O, every sentence from the catalogue: public messages in the
tournament's language (the server's when it opened), private answers in the language given.
"""

from __future__ import annotations

from dataclasses import dataclass

import discord

from bot.presentation.links import mention, message_link
from bot.presentation.messages import number, text
from bot.presentation.names import ai_name
from bot.presentation.presenter import turn_limit_label
from bot.services.standings import Standing
from bot.services.tournament_views import (
    BYE_LEVEL,
    TableView,
    TournamentFormat,
    TournamentStatus,
    TournamentView,
)
from bot.services.views import GameStatus
from render.standings import StandingsRow, StandingsTable

TOURNAMENT_COLOR = 0xB8860B
STANDINGS_NAME = "standings.png"
THREAD_NAME_LIMIT = 100
SHOWN_ENTRANTS = 40
"""The most players the sign-up lists by name (the rest are counted)."""
COLUMNS = ("rank", "player", "points", "buchholz", "score", "dirhams", "left")
FIELD_LIMIT = 1024
"""The most characters Discord takes in an embed field's value."""
EMBED_LIMIT = 6000
"""The most characters Discord takes in an embed, title, description, fields and footer."""
MAX_TABLE_FIELDS = 20
"""The most fields the round's tables take (Discord allows 25 in an embed)."""


@dataclass(frozen=True, slots=True)
class TournamentPost:
    """A tournament message to send or edit into place, with the standings picture to draw
    (None: none) and the users its content may ping."""

    embed: discord.Embed
    content: str | None = None
    picture: StandingsTable | None = None
    pings: tuple[int, ...] = ()


def in_text(name: str) -> str:
    """A tournament's name as a message's text shows it: its own characters, never Discord
    markdown (a `**` in it would end the text's bold, a `[text](url)` make the bot post a
    masked link)."""
    return discord.utils.escape_markdown(name)


def points(half_points: int, language: str) -> str:
    """Points kept in halves, written with ½: "3", "2½", "½"."""
    whole, half = divmod(half_points, 2)
    if not half:
        return str(number(whole, language))
    return f"{number(whole, language)}½" if whole else "½"


def _format(view: TournamentView) -> str:
    return text(f"tournament.format.{view.format.value}", view.locale)


def _rounds(view: TournamentView) -> str:
    """How many rounds: its own once set; before, those the players signed up so far would
    play, said as depending on them."""
    if view.rounds is not None:
        return text("tournament.rounds.some", view.locale, rounds=view.rounds)
    planned = view.planned_rounds
    players = len(view.entrants)
    if view.format is TournamentFormat.ROUND_ROBIN:
        if planned is None:
            return text("tournament.rounds.all_meet", view.locale)
        return text("tournament.rounds.all_meet_in", view.locale, rounds=planned, players=players)
    if planned is None:
        return text("tournament.rounds.auto", view.locale)
    return text("tournament.rounds.auto_now", view.locale, rounds=planned, players=players)


def options_line(view: TournamentView) -> str:
    language = view.locale
    return text(
        "tournament.options",
        language,
        format=_format(view),
        seats=view.seats,
        rounds=_rounds(view),
        variant=text(f"variant.{view.variant}", language),
        turn_limit=turn_limit_label(view.turn_limit_seconds, language),
    )


# --- sign-up ---------------------------------------------------------------------------------


def signup_post(view: TournamentView) -> TournamentPost:
    """The sign-up message: what the tournament is, who signed up, how to join; once closed
    without a start, who cancelled it."""
    language = view.locale
    closed = view.status is TournamentStatus.CANCELLED
    title = "tournament.title.cancelled" if closed else "tournament.title.signup"
    embed = discord.Embed(title=text(title, language, name=view.name), color=TOURNAMENT_COLOR)
    if closed:
        embed.description = text(
            "tournament.cancelled", language, user=mention(view.ended_by or view.created_by)
        )
    else:
        embed.description = text(
            "tournament.signup.body", language, moderator=mention(view.created_by)
        )
    shown = [mention(entrant.user_id) for entrant in view.entrants[:SHOWN_ENTRANTS]]
    hidden = len(view.entrants) - len(shown)
    if hidden > 0:
        shown.append(text("tournament.players.more", language, count=hidden))
    embed.add_field(
        name=text("tournament.players", language, count=len(view.entrants)),
        value=", ".join(shown) or text("tournament.players.none", language),
        inline=False,
    )
    embed.add_field(name="\u200b", value=options_line(view), inline=False)
    return TournamentPost(embed=embed)


# --- standings -------------------------------------------------------------------------------


def _title(view: TournamentView) -> str:
    language = view.locale
    if view.status is TournamentStatus.OVER:
        return text("tournament.title.over", language, name=view.name)
    if view.status is TournamentStatus.ABORTED:
        return text("tournament.title.aborted", language, name=view.name)
    return text(
        "tournament.title.running",
        language,
        name=view.name,
        round=max(view.current_round, 1),
        rounds=view.rounds or 1,
    )


def _subtitle(view: TournamentView) -> str:
    language = view.locale
    if view.status is TournamentStatus.OVER:
        return text(
            "tournament.picture.final", language, format=_format(view), rounds=view.rounds or 1
        )
    if view.status is TournamentStatus.ABORTED:
        if not view.current_round:  # stopped between its start and its first pairing
            return text("tournament.picture.aborted_unpaired", language)
        return text("tournament.picture.aborted", language, round=view.current_round)
    return text(
        "tournament.picture.round",
        language,
        format=_format(view),
        round=max(view.current_round, 1),
        rounds=view.rounds or 1,
    )


def seat_label(view: TournamentView, seat: int | None) -> str:
    """A seat in text: a player's mention, or the AI of a bye."""
    if seat is None:
        return ai_name(BYE_LEVEL, view.locale)
    return mention(seat)


def table_line(view: TournamentView, table: TableView) -> str:
    """One table of the round: its thread (whose name says the round and the table; before
    it is made, the table's number), its players and how its game stands."""
    language = view.locale
    if table.game_status is None:
        status = "waiting"
    elif table.game_status is GameStatus.RUNNING:
        status = "playing"
    else:
        status = table.game_status.value
    players = f" {text('tournament.versus', language)} ".join(
        seat_label(view, seat) for seat in table.seats
    )
    said = text(f"tournament.table.{status}", language)
    if table.thread_id is None:
        return text(
            "tournament.table_line.unthreaded",
            language,
            table=table.number,
            players=players,
            status=said,
        )
    return text(
        "tournament.table_line",
        language,
        thread=f"<#{table.thread_id}>",
        players=players,
        status=said,
    )


def standings_table(view: TournamentView) -> StandingsTable:
    """The picture of the standings: every player's rank, name, points, tie-breaks and games
    left, in the tournament's language."""
    language = view.locale
    headers = tuple(text(f"tournament.column.{column}", language) for column in COLUMNS)
    rows = tuple(_row(view, line) for line in view.standings)
    return StandingsTable(view.name, _subtitle(view), headers, rows)


def _row(view: TournamentView, line: Standing) -> StandingsRow:
    language = view.locale
    name = view.name_of(line.user_id) or str(line.user_id)
    # First place is starred once it means something: a point won, or the end naming its
    # winners (every game aborted: all of them share it).
    leader = line.rank == 1 and (
        view.status is TournamentStatus.OVER
        or (
            view.status is not TournamentStatus.ABORTED
            and any(other.half_points for other in view.standings)
        )
    )
    note = ""
    if line.withdrew_after is not None:
        note = _after_round("tournament.picture.withdrawn", language, line.withdrew_after)
    return StandingsRow(
        rank=str(line.rank),
        name=name,
        note=note,
        cells=(
            points(line.half_points, language),
            points(line.half_buchholz, language),
            str(number(line.score, language)),
            str(number(line.dirhams, language)),
            str(0 if view.status is TournamentStatus.ABORTED else line.left),
        ),
        leader=leader,
    )


def withdrawal_text(language: str, *, name: str, user: str, after: int, own: bool) -> str:
    """The answer to a withdrawal: `user` (the player themselves when `own`) withdrew from the
    tournament `name` (as shown in text) after round `after`."""
    key = "tournament.withdraw.done" if own else "tournament.withdraw.done.other"
    return _after_round(key, language, after, name=name, user=user)


def _after_round(key: str, language: str, after: int, **fields: object) -> str:
    """The text `key` saying a player withdrew after round `after`; one withdrawn before the
    first round was paired (the pairing follows the start in the workers) reads "before the
    first round" (the key's `.first` text), never "after round 0"."""
    return text(f"{key}.first" if after == 0 else key, language, round=after, **fields)


def standings_post(view: TournamentView) -> TournamentPost:
    """The standings message: the round being played with a line per table (its thread, its
    players, its game's state), the winner once over, and the picture of the table to draw
    (the embed shows it as STANDINGS_NAME once whoever sends it attaches it)."""
    language = view.locale
    embed = discord.Embed(title=_title(view), color=TOURNAMENT_COLOR)
    lines = []
    if view.status is TournamentStatus.OVER:
        winners = ", ".join(mention(user) for user in view.winners)
        key = "tournament.winner" if len(view.winners) == 1 else "tournament.winners"
        lines.append(text(key, language, winners=winners))
    elif view.status is TournamentStatus.ABORTED:
        lines.append(
            text("tournament.aborted_by", language, user=mention(view.ended_by or view.created_by))
        )
    lines.append(options_line(view))
    out = sorted(
        (line.withdrew_after, line.rank, line.user_id)
        for line in view.standings
        if line.withdrew_after is not None
    )
    if out:
        players = ", ".join(
            _after_round("tournament.withdrawn.player", language, after, player=mention(user))
            for after, _, user in out
        )
        lines.append(text("tournament.withdrawn", language, players=players))
    embed.description = "\n".join(lines)
    embed.set_footer(text=text("tournament.legend", language))
    if view.current_round and view.status is TournamentStatus.RUNNING:
        name = text("tournament.round_tables", language, round=view.current_round)
        tables = [table_line(view, table) for table in view.round_tables(view.current_round)]
        for value in _table_fields(view, tables, len(name), EMBED_LIMIT - len(embed)):
            embed.add_field(name=name, value=value, inline=False)
            name = "\u200b"  # the round's name once, over its first field
    return TournamentPost(embed=embed, picture=standings_table(view))


def _table_fields(view: TournamentView, lines: list[str], name: int, room: int) -> list[str]:
    """The round's table lines in fields of at most FIELD_LIMIT characters, whole lines only,
    within `room` characters in all (fields' names of `name` characters, then one each); the
    tables that do not fit are counted in a last line."""
    for shown_count in range(len(lines), -1, -1):
        hidden = len(lines) - shown_count
        more = [text("tournament.more_tables", view.locale, count=hidden)] if hidden else []
        fields = _packed(lines[:shown_count] + more)
        size = sum(len(field) for field in fields) + name + len(fields) - 1
        if size <= room and len(fields) <= MAX_TABLE_FIELDS:
            return fields
    return []


def _packed(lines: list[str]) -> list[str]:
    """`lines` joined in as few fields of at most FIELD_LIMIT characters as they take."""
    fields: list[str] = []
    for line in lines:
        if fields and len(fields[-1]) + 1 + len(line) <= FIELD_LIMIT:
            fields[-1] += "\n" + line
        else:
            fields.append(line[:FIELD_LIMIT])
    return fields


# --- threads ---------------------------------------------------------------------------------


def thread_name(view: TournamentView, table: TableView) -> str:
    """The name of a table's thread (at most 100 characters: the tournament's name is cut)."""
    language = view.locale
    tail = text("tournament.thread_name", language, name="", round=table.round, table=table.number)
    room = THREAD_NAME_LIMIT - len(tail)
    name = view.name if len(view.name) <= room else view.name[: max(room - 1, 1)].rstrip() + "…"
    return text(
        "tournament.thread_name", language, name=name, round=table.round, table=table.number
    )[:THREAD_NAME_LIMIT]


def welcome_post(view: TournamentView, table: TableView) -> TournamentPost:
    """The first message of a table's thread, pinging its players."""
    language = view.locale
    key = "tournament.welcome"
    if table.ai_seats:  # the AI in a withdrawn player's seat, or the bye's opponent
        key = "tournament.welcome.ai" if _withdrawn_seats(view, table) else "tournament.welcome.bye"
    content = text(
        key,
        language,
        players=", ".join(mention(user) for user in table.humans),
        round=table.round,
        name=in_text(view.name),
        table=table.number,
        ai=ai_name(BYE_LEVEL, language),
    )
    lines = [options_line(view)]
    if view.message_id is not None:
        link = message_link(view.guild_id, view.channel_id, view.message_id)
        lines.append(text("tournament.standings_link", language, link=link))
    embed = discord.Embed(color=TOURNAMENT_COLOR, description="\n".join(lines))
    return TournamentPost(embed=embed, content=content, pings=table.humans)


def _withdrawn_seats(view: TournamentView, table: TableView) -> bool:
    """Whether the table's AI seats may be those of players who withdrew rather than a bye's:
    in a round-robin paired after a withdrawal (a Swiss round pairs only the players still in,
    and seats the AI for a bye alone). Its welcome then says the AI plays in place of whoever
    is missing, true of a bye too."""
    if view.format is not TournamentFormat.ROUND_ROBIN:
        return False
    return any(
        line.withdrew_after is not None and line.withdrew_after < table.round
        for line in view.standings
    )


# --- the end ---------------------------------------------------------------------------------


def finished_text(view: TournamentView) -> str:
    """The announcement in the tournament's channel: who won, with a link to the final
    standings (its message, far above once the rounds' threads were made; the channel if it
    was never recorded)."""
    winners = ", ".join(mention(user) for user in view.winners)
    key = "tournament.announce.winner" if len(view.winners) == 1 else "tournament.announce.shared"
    if view.message_id is not None:
        url = message_link(view.guild_id, view.channel_id, view.message_id)
    else:
        url = f"https://discord.com/channels/{view.guild_id}/{view.channel_id}"
    return text(key, view.locale, winners=winners, name=in_text(view.name), url=url)


def aborted_text(view: TournamentView) -> str:
    return text(
        "tournament.announce.aborted",
        view.locale,
        name=in_text(view.name),
        user=mention(view.ended_by or view.created_by),
    )
