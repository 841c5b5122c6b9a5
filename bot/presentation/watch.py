"""What a spectator reads (docs/watching.md): their private view of a game (the board now, the
last turn over, and where their watch stands) and the direct message that tells them the
turns finished since the last one, several in one message."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping

from bot.presentation import story
from bot.presentation.links import message_link
from bot.presentation.messages import text
from bot.presentation.presenter import Post, board_post
from bot.services.views import GameStatus, GameView
from bot.services.watch_views import WatchNews, WatchView

DM_LIMIT = 2000
"""The most characters Discord takes in a message's text."""
MENTION = re.compile(r"<@!?(\d+)>")
"""A user's mention in a message's text."""


def in_language(view: GameView, language: str) -> GameView:
    """The game as someone reads it privately: its lines in their `language`."""
    return dataclasses.replace(view, game=dataclasses.replace(view.game, locale=language))


def finished_turns(view: GameView) -> range:
    """The turns of the game over by now (none before the first ends)."""
    state = view.state
    if state is None:
        return range(0)
    return range(1, story.finished_turn(view) + 1 if state.is_over or state.turn > 1 else 1)


def watch_post(watch: WatchView, language: str) -> Post:
    """The private view: the board as `/marrakech board` shows it, the last turn over, and
    what the watcher gets."""
    view = in_language(watch.game, language)
    post = board_post(view, language)
    embed = post.embed
    turns = finished_turns(view)
    last = story.turn_line(view, turns[-1]) if turns else text("watch.no_turn_yet", language)
    embed.add_field(name=text("watch.last_turn", language), value=last[:1024], inline=False)
    embed.description = text(_status_key(watch), language)
    return post


def _status_key(watch: WatchView) -> str:
    if watch.game.status is GameStatus.ABORTED:
        return "watch.status.game_stopped"
    if watch.game.status is not GameStatus.RUNNING:
        return "watch.status.over"
    if watch.watcher is None:
        return "watch.status.stopped"
    return "watch.status.dms" if watch.watcher.dms else "watch.status.watching"


def news_text(news: WatchNews, lines: Mapping[int, str]) -> str:
    """The direct message of the turns over since the watcher was last told, in the language
    they asked in (else the game's): each turn's line (as its message in the channel tells it,
    from `lines` when known and in that language, else from the game), its players named
    without mentions, then the end when the game is over. Kept within Discord's limit: the
    oldest turns give way to a count of them."""
    view = in_language(news.view, news.locale or news.view.game.locale)
    language = view.game.locale
    turns = [turn for turn in finished_turns(view) if turn >= view.turn_at(news.told_seq)]
    if language != news.view.game.locale:  # the channel's lines are in the game's language
        lines = {}
    told = [_named(view, lines.get(turn) or story.turn_line(view, turn)) for turn in turns]
    url = _url(view)
    head = text("watch.dm.header", language, game_id=view.id, url=url)
    ends = {GameStatus.OVER: "watch.dm.over", GameStatus.ABORTED: "watch.dm.stopped"}
    end = ends.get(view.status)
    tail = [text(end, language, game_id=view.id)] if end is not None else []
    body = told
    dropped = 0
    while body and len("\n".join([head, *_earlier(dropped, language), *body, *tail])) > DM_LIMIT:
        body = body[1:]
        dropped += 1
    return "\n".join([head, *_earlier(dropped, language), *body, *tail])[:DM_LIMIT]


def _named(view: GameView, line: str) -> str:
    """`line` with each player's mention replaced by the name the server showed them by (a
    mention in a direct message shows as an unknown user on a client that has not met the
    member); anyone else, or a player whose name was not kept, stays a mention."""
    names = {p.user_id: p.name for p in view.players if p.user_id is not None and p.name}

    def name(found: re.Match[str]) -> str:
        return names.get(int(found[1])) or found[0]

    return MENTION.sub(name, line)


def _earlier(count: int, language: str) -> list[str]:
    return [text("watch.dm.earlier", language, count=count)] if count else []


def _url(view: GameView) -> str:
    game = view.game
    if game.board_message_id is None:
        return f"#{game.id}"
    return message_link(game.guild_id, game.channel_id, game.board_message_id)
