"""Whether a watcher still sees a game's channel, asked of Discord for the watcher's direct
messages (docs/watching.md).

A bot without the Server Members intent is told neither of a member who left nor of a role
taken away, so the member is fetched from Discord (GET one member: 5 requests a second per
server, each also one of the bot token's 50 a second). Asked at every turn of every watched
game, a busy server's watchers would spend that bucket many times over, so a member fetched
is trusted for a minute for the turns' messages: a watcher who loses sight of the channel by
a role or by leaving may be told the turns of that minute, never the game's end, which is
asked afresh. A channel's own permissions come with the gateway and count at once."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

import discord

from bot.edge.answers import DISCORD_TIMEOUT_SECONDS
from bot.edge.incidents import why
from bot.services.views import GameView

log = logging.getLogger(__name__)

MEMBER_TRUSTED_SECONDS = 60.0
"""How long a member fetched from Discord (or found gone) is trusted for a turn's message."""
_KEPT = 4096
"""Members remembered before those no longer trusted are forgotten."""


class Sight:
    """Tells whether a watcher may still see a game's channel, fetching each member from
    Discord at most once a minute per server for the turns' messages."""

    def __init__(
        self,
        client: discord.Client,
        clock: Callable[[], float] = time.monotonic,
        trusted_seconds: float = MEMBER_TRUSTED_SECONDS,
    ) -> None:
        self._client = client
        self.clock = clock
        self._trusted = trusted_seconds
        self._members: dict[tuple[int, int], tuple[float, discord.Member | None]] = {}
        """(server, user) -> when fetched, and the member (None: not a member)."""

    async def sees(self, view: GameView, user_id: int, *, afresh: bool = False) -> bool:
        """Whether the watcher may still see the game's channel, as a watch is allowed: a
        member of its server with View Channel there (a thread's from its parent). `afresh`
        fetches the member whatever was fetched before (the game's end). While the client's
        cache does not know the server or the channel, or Discord does not answer, it cannot
        be told: True, and the message goes."""
        guild_id = view.game.guild_id
        guild = self._client.get_guild(guild_id) if guild_id is not None else None
        channel = guild.get_channel_or_thread(view.game.channel_id) if guild is not None else None
        if guild is None or channel is None:
            return True
        now = self.clock()
        known = None if afresh else self._members.get((guild.id, user_id))
        if known is not None and now - known[0] < self._trusted:
            member = known[1]
        else:
            try:
                member = await asyncio.wait_for(
                    guild.fetch_member(user_id), DISCORD_TIMEOUT_SECONDS
                )
            except discord.NotFound:
                member = None  # no longer a member of the server
            except Exception as error:  # cannot be told now
                log.debug(
                    "whether user %s sees game %s was not told (%s)", user_id, view.id, why(error)
                )
                return True
            self._remember(guild.id, user_id, now, member)
        return member is not None and channel.permissions_for(member).view_channel

    def _remember(
        self, guild_id: int, user_id: int, now: float, member: discord.Member | None
    ) -> None:
        if len(self._members) >= _KEPT:
            self._members = {
                key: (at, kept)
                for key, (at, kept) in self._members.items()
                if now - at < self._trusted
            }
        self._members[(guild_id, user_id)] = (now, member)
