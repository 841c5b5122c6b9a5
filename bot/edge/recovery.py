"""Catching up after a crash: find what the last run already showed before posting anything.

A run killed after Discord accepted a message but before its id was stored leaves a message
the database does not know: a turn with live buttons, a lobby, or a final result. Posting the
game again would show it twice, with two sets of live buttons (and ping twice). So the catch-up
first reads the channel's recent history: the bot's own messages of that game since the one the
database knows. One that already shows the current decision is adopted; every other one that
still offers a decision is retired by the display (a turn edited down to its one line, the lobby
closed); a result's Rematch button offers none. The end of a game stopped early is found by
its notice's text. Without Read Message History the history is empty and the game is simply
posted.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import discord

from bot.edge.buttons import CUSTOM_ID_TEMPLATE
from bot.edge.incidents import DISCORD_FAILURES, failure_level, why
from bot.edge.layout import REMATCH, lobby_action
from bot.presentation.links import mention
from bot.presentation.messages import text
from bot.presentation.presenter import RECORD_NAME, aborted_post
from bot.services.views import GameStatus, GameView

log = logging.getLogger(__name__)

HISTORY_TIMEOUT_SECONDS = 5.0
"""The longest wait for the history (discord.py sets no timeout of its own)."""
HISTORY_LIMIT = 50
"""How many messages after the known one are read (a game posts a few per turn at most)."""


async def game_messages(
    channel: discord.PartialMessageable, view: GameView, bot_id: int
) -> list[discord.Message] | None:
    """The bot's messages of this game from the known one on, oldest first; None if the
    history cannot be read."""
    known = view.game.board_message_id
    after = discord.Object(known - 1) if known is not None else None

    async def read() -> list[discord.Message]:
        return [
            message
            async for message in channel.history(
                limit=HISTORY_LIMIT, after=after, oldest_first=True
            )
        ]

    try:
        history = await asyncio.wait_for(read(), HISTORY_TIMEOUT_SECONDS)
    except DISCORD_FAILURES as error:
        log.log(
            failure_level(error, logging.INFO),
            "history of channel %s not readable: %s",
            view.game.channel_id,
            why(error),
        )
        return None
    return [
        m
        for m in history
        if m.author.id == bot_id
        and (_belongs(m, view.id) or tells_end(m, view) or tells_rejoin(m, view) is not None)
    ]


def showing_now(messages: list[discord.Message], view: GameView) -> discord.Message | None:
    """The newest message that already shows the game as it is now, if any."""
    lobby = view.status is GameStatus.LOBBY  # a lobby and the first turn are both at seq 0
    for message in reversed(messages):
        if view.status is GameStatus.OVER:
            if _carries_record(message, view.id):
                return message
        elif set(_buttons(message)) and all(
            game == view.id and seq == view.seq and (lobby_action(action) is not None) == lobby
            for game, seq, action in _buttons(message)
        ):
            return message
    return None


def tells_end(message: discord.Message, view: GameView) -> bool:
    """Whether the message tells the end of the game stopped early (its end notice)."""
    if view.status is not GameStatus.ABORTED:
        return False
    notice = aborted_post(view).embed.description
    return any(embed.description == notice for embed in message.embeds)


def rejoin_notice(view: GameView, user_id: int) -> str:
    """What the channel is told when the user takes their seat back from the AI."""
    return text("rejoin.done", view.game.locale, user=mention(user_id), game_id=view.id)


def tells_rejoin(message: discord.Message, view: GameView) -> int | None:
    """The user whose return to their seat of the game the message tells, if it tells one."""
    for player in view.players:
        if player.user_id is not None and message.content == rejoin_notice(view, player.user_id):
            return player.user_id
    return None


def has_live_buttons(message: discord.Message) -> bool:
    return any(True for _ in _buttons(message))


def shown_seq(message: discord.Message) -> int | None:
    """The seq of the decision a message's live turn buttons belong to; None for a lobby
    message (or one without live buttons)."""
    seqs = [seq for _, seq, action in _buttons(message) if lobby_action(action) is None]
    return max(seqs, default=None)


def _belongs(message: discord.Message, game_id: int) -> bool:
    if any(game == game_id for game, _, _ in _buttons(message)):
        return True
    return _carries_record(message, game_id)


def _carries_record(message: discord.Message, game_id: int) -> bool:
    """Whether the message has the game's record attached (the game's final message)."""
    return any(a.filename == RECORD_NAME.format(game_id=game_id) for a in message.attachments)


def _buttons(message: discord.Message) -> Iterator[tuple[int, int, str]]:
    """(game id, seq, action) of each enabled game button on the message that offers a
    decision: the result's Rematch acts on no game's decision, so it is left out."""
    pending: list[Any] = list(message.components)
    while pending:
        component = pending.pop()
        pending.extend(getattr(component, "children", ()))
        custom_id = getattr(component, "custom_id", None)
        if getattr(component, "disabled", False) or not isinstance(custom_id, str):
            continue
        match = CUSTOM_ID_TEMPLATE.fullmatch(custom_id)
        if match is not None and match["action"] != REMATCH:
            yield int(match["game"]), int(match["seq"]), match["action"]
