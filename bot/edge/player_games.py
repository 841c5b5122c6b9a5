"""The Discord edge of a player's own games: `/marrakech mygames` (where they play, privately),
`/marrakech notify on|next|off`, and the direct messages sent when an opted-in player's turn
begins, and when the player before one who asked to know when they are next begins theirs.

The direct message goes out in the background once the turn message is posted, so it never
delays the channel. Discord refuses it (403, code 50007) when the player's direct messages are
closed to the bot: that is logged at INFO, their choice is turned off, and they are told once,
in the game's channel. A database outage as it is read is waited out, with no line per game,
and the message goes once the database is back if the turn still waits for the player.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import discord

from bot.edge import interactions, replies
from bot.edge.answers import bounded, guarded
from bot.edge.direct import CANNOT_SEND_TO_USER, Delivery, deliver_direct, send_direct
from bot.edge.incidents import DISCORD_FAILURES, failure_level, why
from bot.edge.inflight import HANDLERS, OutageWaits
from bot.edge.interactions import Interaction
from bot.presentation import player_games
from bot.presentation.messages import text
from bot.services.availability import Availability, DatabaseUnavailableError
from bot.services.away import AwayService
from bot.services.player_games import PlayerGamesService
from bot.services.views import GameView, TurnNotice, UpNextNotice

log = logging.getLogger(__name__)

T = TypeVar("T")


class PlayerGamesController:
    """Handles /marrakech mygames and /marrakech notify (both answered privately)."""

    def __init__(self, players: PlayerGamesService, away: AwayService | None = None) -> None:
        """`away` says who is away, shown beside their name."""
        self._players = players
        self._away = away

    async def my_games(self, interaction: Interaction) -> None:
        async def work() -> None:
            user_id = interaction.user.id
            guild_id = interactions.guild_id(interaction)
            games = await self._players.open_games(guild_id, user_id)
            language = interactions.user_language(interaction)
            away = {}
            if self._away is not None:
                for game in games:
                    person = None if game.to_play is None else game.to_play.user_id
                    until = (
                        None if person is None else await self._away.away_until(guild_id, person)
                    )
                    if person is not None and until is not None:
                        away[person] = until
            post = player_games.my_games_post(games, user_id, language, away)
            await replies.send(
                interaction,
                embed=post.embed,
                ephemeral=True,
                allowed_mentions=discord.AllowedMentions.none(),
            )

        await guarded(interaction, "listing the player's games", work)

    async def notify(self, interaction: Interaction, state: str) -> None:
        async def work() -> None:
            interactions.guild_id(interaction)  # a command of server channels, like the others
            language = interactions.user_language(interaction)
            await self._players.set_notify(interaction.user.id, state, language)
            await replies.send(
                interaction, content=text(f"notify.{state}", language), ephemeral=True
            )

        await guarded(interaction, "setting turn messages", work)


class TurnMessages:
    """Sends opted-in players a direct message when a turn message of theirs is posted."""

    def __init__(
        self,
        client: discord.Client,
        players: PlayerGamesService,
        away: AwayService | None = None,
        availability: Availability | None = None,
    ) -> None:
        """`away` holds the message of a player in quiet hours for their end; `availability`
        is the database's: a read an outage cut off is made again once it is back (None: the
        message is not sent, with a warning)."""
        self._client = client
        self._players = players
        self._away = away
        self._availability = availability
        self._tasks: set[asyncio.Task[None]] = set()
        self._outages = OutageWaits()

    def turn_posted(self, view: GameView, message_id: int) -> None:
        """The turn message `message_id` of the game at `view` is in its channel: send the
        direct message, if one is due, in the background (a clean stop waits for it)."""
        task = asyncio.create_task(
            self._send(view.id, view.seq, message_id), name=f"turn-dm-{view.id}"
        )
        HANDLERS.follow(task)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def idle(self) -> None:
        """Wait for the direct messages under way (for tests and a clean stop)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def stop(self) -> None:
        """Stop the messages waiting for the database (before it closes); never raises."""
        await self._outages.stop()

    async def _read(self, reading: Callable[[], Awaitable[T]]) -> T:
        """`reading()`, made again once the database is back if an outage cuts it off (the
        outage is logged by its watch)."""
        while True:
            try:
                return await reading()
            except DatabaseUnavailableError:
                if self._availability is None:
                    raise
            await self._outages.back(self._availability)

    async def _send(self, game_id: int, seq: int, message_id: int) -> None:
        notice: TurnNotice | None = None
        try:
            notice, up_next = await self._read(
                lambda: self._players.turn_notices(game_id, seq, message_id)
            )
            if up_next is not None:
                coming = up_next
                if not await self._read(lambda: self._held(coming, seq, "next")):
                    await self._send_up_next(up_next)
            if notice is None:
                return
            told = notice
            if await self._read(lambda: self._held(told, seq, "turn")):
                return
            await deliver_direct(self._client, notice.user_id, player_games.turn_dm_text(notice))
        except discord.Forbidden as error:
            if error.code != CANNOT_SEND_TO_USER:
                log.warning("game %s: the turn's direct message was refused: %s", game_id, error)
                return
            await self._refused(notice)
        except Exception as error:  # a direct message is a courtesy: logged, never retried
            log.log(
                failure_level(error),
                "game %s: the turn's direct message was not sent (%s)",
                game_id,
                why(error),
            )

    async def _send_up_next(self, up_next: UpNextNotice) -> None:
        """The "you are next" message: a refusal for closed direct messages turns them off as
        the turn's does; any other failure is logged (`send_direct`) and leaves the turn's
        message to go."""
        content = player_games.up_next_text(up_next)
        if await send_direct(self._client, up_next.user_id, content) is Delivery.CLOSED:
            await self._refused(up_next)

    async def _held(self, notice: TurnNotice | UpNextNotice, seq: int, kind: str) -> bool:
        """Whether the direct message is held for the end of its person's quiet hours (sent
        with the others then: bot.services.away) rather than sent now."""
        return self._away is not None and await self._away.hold_if_quiet(
            notice.user_id,
            guild_id=notice.guild_id,
            channel_id=notice.channel_id,
            game_id=notice.game_id,
            seq=seq,
            kind=kind,
            locale=notice.locale,
        )

    async def _refused(self, notice: TurnNotice | UpNextNotice | None) -> None:
        if notice is None:
            return
        log.info(
            "user %s does not accept direct messages; their turn messages are now off",
            notice.user_id,
        )
        if not await self._players.turn_dms_refused(notice.user_id):
            return
        language = notice.game_locale or notice.locale  # a public line: the game's language
        line = player_games.turn_dm_closed_text(notice.user_id, language)
        channel = self._client.get_partial_messageable(notice.channel_id, guild_id=notice.guild_id)
        try:
            await bounded(
                channel.send(
                    line,
                    allowed_mentions=discord.AllowedMentions(
                        users=[discord.Object(notice.user_id)]
                    ),
                )
            )
        except DISCORD_FAILURES as error:
            log.log(
                failure_level(error),
                "game %s: closed direct messages not told: %s",
                notice.game_id,
                why(error),
            )
