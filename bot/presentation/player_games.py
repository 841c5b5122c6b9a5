"""What a player reads about their own games: their open games on a server
(`/marrakech mygames`, a private embed) and the direct message when their turn begins (a link
to the turn message, and who paid them and whom they paid since their previous turn)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

import discord

from bot.presentation.away import moment
from bot.presentation.links import mention, message_link
from bot.presentation.messages import text, within
from bot.presentation.names import ai_name, player_name
from bot.presentation.presenter import EMBED_DESCRIPTION_LIMIT, LOBBY_COLOR, Post
from bot.presentation.since import since_last_turn_line
from bot.services.views import OpenGame, SinceLastTurn, TurnNotice, UpNextNotice


def my_games_post(
    games: Sequence[OpenGame],
    user_id: int,
    language: str,
    away: Mapping[int, datetime] | None = None,
) -> Post:
    """One line per game: its number and channel, whose turn it is (the caller, a player or
    an AI; a lobby says it is one; `away`: until when a person is away, beside their name)
    and a link to the message that shows the game now. The games waiting for the caller come
    first (their turn, or a paused game waiting for them to take their seat back), the others
    after, each part in the order given. As many lines as Discord takes in an embed's
    description, then a count of the games left out."""
    first = sorted(games, key=lambda game: not _waits_for(game, user_id))
    lines = [_line(game, user_id, language, away or {}) for game in first]
    description = within(
        lines, lambda shown: _listed(shown, len(lines), language), EMBED_DESCRIPTION_LIMIT
    )
    embed = discord.Embed(
        title=text("mygames.title", language),
        description=description or text("mygames.empty", language),
        color=LOBBY_COLOR,
    )
    return Post(embed=embed)


def _listed(shown: Sequence[str], games: int, language: str) -> str:
    """The lines `shown`, of the first of `games`, and a count of the others."""
    left_out = games - len(shown)
    more = [text("mygames.more", language, count=left_out)] if left_out else []
    return "\n".join([*shown, *more])


def _waits_for(game: OpenGame, user_id: int) -> bool:
    """Whether `game` waits for `user_id` to act: their turn, or their seat to take back."""
    if game.yours_to_ai:
        return game.paused
    player = game.to_play
    return player is not None and player.user_id == user_id and not player.ai_plays


def _line(game: OpenGame, user_id: int, language: str, away: Mapping[int, datetime]) -> str:
    until = None if game.to_play is None else away.get(game.to_play.user_id or 0)
    if game.lobby:
        state = text("mygames.lobby", language)
    elif game.paused and game.yours_to_ai:
        state = text("mygames.paused_for_you", language)
    elif game.yours_to_ai:
        state = text("mygames.yours_to_ai", language)
    elif game.to_play is None:
        state = text("mygames.turn.unknown", language)
    elif game.to_play.user_id == user_id and not game.to_play.ai_plays:
        if until is not None:
            state = text("mygames.turn.you_away", language, until=moment(until))
        else:
            state = text("mygames.turn.you", language)
    elif until is not None and not game.to_play.ai_plays:
        player = player_name(game.to_play, language)
        state = text("mygames.turn.away", language, player=player, until=moment(until))
    else:
        state = text("mygames.turn.other", language, player=player_name(game.to_play, language))
    if game.message_id is None:
        return text(
            "mygames.line", language, game_id=game.game_id, channel=game.channel_id, state=state
        )
    url = message_link(game.guild_id, game.channel_id, game.message_id)
    return text(
        "mygames.line_link",
        language,
        game_id=game.game_id,
        channel=game.channel_id,
        state=state,
        url=url,
    )


def turn_dm_text(notice: TurnNotice) -> str:
    """The direct message when the player's turn begins, in the player's own language
    (`locale`; the game's is `game_locale`)."""
    language = notice.locale
    url = message_link(notice.guild_id, notice.channel_id, notice.message_id)
    lines = [text("turn_dm.text", language, game_id=notice.game_id, url=url)]
    player = notice.player_at(notice.seat)
    since = since_last_turn_line(
        SinceLastTurn(notice.paid_to_you, notice.you_paid),
        lambda seat: _name(notice, seat, language),
        language,
        handed_over=player is not None and player.stands_in_for is not None,
    )
    if since is not None:
        lines.append(since)
    return "\n".join(lines)


def up_next_text(notice: UpNextNotice) -> str:
    """The direct message to a player who is next: a link to the turn before theirs."""
    url = message_link(notice.guild_id, notice.channel_id, notice.message_id)
    return text("up_next_dm.text", notice.locale, game_id=notice.game_id, url=url)


def turn_dm_closed_text(user_id: int, language: str) -> str:
    """The public line that tells a player their closed direct messages turned these off."""
    return text("turn_dm.closed", language, user=mention(user_id))


def _name(notice: TurnNotice, seat: int, language: str) -> str:
    """A seat's name as a direct message shows it: the name its player had in the server (a
    mention there shows nothing useful), else the AI's name, else the mention."""
    player = notice.player_at(seat)
    if player is None:
        return "?"
    if player.ai_level is not None:
        return ai_name(player.ai_level, language)
    return player.name or mention(player.user_id)
