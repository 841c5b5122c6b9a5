"""Delivery: posts and edits a game's public messages, through its players' own clicks when it
can, else with the bot token.

Discord gives a bot token 50 requests a second, for all of the bot's processes and shards
together, and each channel about one new message and one edit a second. An interaction's own
answers are not bound to the global limit: its callback, and for 15 minutes its webhook (its
follow-ups, and edits of its messages), with a small bucket of its own per interaction. So a
game's messages go out through the interactions its players opened, while they are fresh: a
click's answer edits the clicked message, the next turn is posted as one of its follow-ups, and
the AI turns that come after are posted and retired through the same clicks. A message can be
edited through the interaction that posted it (or, for a component, whose message was
clicked); posts go through the game's fresh interaction used least recently, so that no one
interaction's bucket holds the game up. Without a fresh interaction (a turn played by the clock
long after the last click, a restart) the bot token does it.

Interactions are kept in memory, per game, for TOKEN_USE_SECONDS after Discord made them (a
little under the token's 15 minutes, for clocks that disagree), the newest
TOKENS_PER_GAME of each game.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.edge.incidents import failure_level, why
from bot.edge.interactions import Interaction
from bot.services.clock import Clock

log = logging.getLogger(__name__)

TOKEN_USE_SECONDS = 13 * 60
"""How long after Discord made an interaction its token is used (it lasts 15 minutes)."""
TOKENS_PER_GAME = 6
"""The newest interactions kept per game (a turn of a person's is a few clicks)."""
GAMES_KEPT = 10_000
"""The most games whose interactions are kept (the least recently played are let go)."""
NONCE_LENGTH = 25
"""The longest nonce Discord takes on a message."""


@dataclass(slots=True)
class _Token:
    """A fresh interaction of a game and the messages it may edit."""

    interaction: Interaction
    original: int | None
    """Its own message: the clicked one (a component), or its reply."""
    posted: set[int] = field(default_factory=set)
    """Its follow-ups."""
    last_used: float = 0.0

    def owns(self, message_id: int) -> bool:
        return message_id == self.original or message_id in self.posted


class Delivery:
    """Posts and edits games' public messages for one client (see the module)."""

    def __init__(self, client: discord.Client, clock: Clock) -> None:
        self._client = client
        self._clock = clock
        self._tokens: OrderedDict[int, list[_Token]] = OrderedDict()

    def opened(self, game_id: int, interaction: Interaction, original: int | None = None) -> None:
        """A player's interaction about the game was answered (publicly, or with the game's
        message edited): its token may now post and edit the game's messages. `original` is
        its own message when it is not the clicked one (a reply it sent)."""
        if not interaction.response.is_done():
            return
        if original is None and interaction.message is not None:
            original = interaction.message.id
        tokens = [token for token in self._tokens.pop(game_id, []) if self._fresh(token)]
        tokens.append(_Token(interaction, original, last_used=time.monotonic()))
        self._tokens[game_id] = tokens[-TOKENS_PER_GAME:]
        # The games are kept in the order of their last interaction: let go of the oldest
        # whose newest interaction is stale, and of any beyond GAMES_KEPT.
        while self._tokens and (
            len(self._tokens) > GAMES_KEPT or not self._fresh(next(iter(self._tokens.values()))[-1])
        ):
            self._tokens.popitem(last=False)

    def _fresh(self, token: _Token) -> bool:
        age = (self._clock() - token.interaction.created_at).total_seconds()
        return age < TOKEN_USE_SECONDS

    def _drop(self, game_id: int, refused: _Token) -> None:
        """Discord refused the token: it is not tried again. A game left without one is let
        go (`opened` reads each kept game's newest interaction)."""
        tokens = self._tokens.get(game_id, [])
        tokens[:] = [token for token in tokens if token is not refused]
        if not tokens:
            self._tokens.pop(game_id, None)

    def _usable(self, game_id: int) -> list[_Token]:
        return [token for token in self._tokens.get(game_id, ()) if self._fresh(token)]

    async def post(
        self, game_id: int, channel: discord.abc.Messageable, /, **fields: Any
    ) -> discord.Message:
        """Post a message in the game's channel: a follow-up of the game's fresh interaction
        used least recently, else with the bot token (`nonce` is kept for that one only)."""
        nonce = fields.pop("nonce", None)
        usable = self._usable(game_id)
        if usable:
            token = min(usable, key=lambda token: token.last_used)
            token.last_used = time.monotonic()
            try:
                message = await token.interaction.followup.send(wait=True, **fields)
            except discord.HTTPException as error:
                if not _token_refused(error):
                    raise
                log.log(
                    failure_level(error, logging.INFO),
                    "game %s: follow-up refused (%s); with the bot token",
                    game_id,
                    why(error),
                )
                self._drop(game_id, token)
                _rewind(fields)
            else:
                token.posted.add(message.id)
                return message
        if nonce is not None:
            fields["nonce"] = nonce
        return await channel.send(**fields)

    async def edit(self, game_id: int, message: discord.PartialMessage, /, **fields: Any) -> None:
        """Edit one of the game's messages: through the freshest interaction that may edit it,
        else with the bot token."""

        async def through(token: _Token) -> None:
            if message.id == token.original:
                await token.interaction.edit_original_response(**fields)
            else:
                await token.interaction.followup.edit_message(message.id, **fields)

        if not await self._through_owner(game_id, message.id, through, "edited"):
            _rewind(fields)
            await message.edit(**fields)

    async def delete(self, game_id: int, message: discord.PartialMessage, /) -> None:
        """Delete one of the game's messages: through the freshest interaction that may, else
        with the bot token."""

        async def through(token: _Token) -> None:
            if message.id == token.original:
                await token.interaction.delete_original_response()
            else:
                await token.interaction.followup.delete_message(message.id)

        if not await self._through_owner(game_id, message.id, through, "deleted"):
            await message.delete()

    async def _through_owner(
        self,
        game_id: int,
        message_id: int,
        act: Callable[[_Token], Awaitable[None]],
        done: str,
    ) -> bool:
        """`act` on the message through the freshest interaction that owns it; False when none
        does, or Discord no longer takes its token (the bot token must do it)."""
        owners = [token for token in self._usable(game_id) if token.owns(message_id)]
        if not owners:
            return False
        token = owners[-1]
        token.last_used = time.monotonic()
        try:
            await act(token)
        except discord.HTTPException as error:
            if not _token_refused(error):
                raise
            log.info(
                "game %s: message %s not %s through its interaction (%s); with the bot token "
                "instead",
                game_id,
                message_id,
                done,
                why(error),
            )
            self._drop(game_id, token)
            return False
        return True


def _rewind(fields: dict[str, Any]) -> None:
    """Put the files of a request back at their start: a request Discord refused read them,
    and the bot token's request must send them whole, not empty."""
    single = fields.get("file")
    for item in [*fields.get("files", ()), *fields.get("attachments", ()), single]:
        if isinstance(item, discord.File):
            item.reset()


def _token_refused(error: discord.HTTPException) -> bool:
    """Discord did not take the interaction's token (unknown, or expired after all): the bot
    token may still do it. Any other refusal (a 403: the bot may not) would be refused again."""
    return isinstance(error, discord.NotFound) or error.status == 401
