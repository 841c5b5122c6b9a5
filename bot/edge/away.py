"""The Discord edge of time away: `/marrakech away`, `back` and `quiet-hours` (answered
privately, in the user's language), the lines a game's channel gets when its player goes away
or comes back, and the one direct message that brings what was held during quiet hours.

Thin: parse, call bot.services.away, answer. A bad input (too many days, an unknown time
zone, quiet hours of no length or too long, a time not written HH:MM or that no clock shows,
named with its option) gets a short answer and changes nothing. A channel's line names the
player without pinging them.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Protocol

import discord
from discord import app_commands

from bot.edge import interactions, replies
from bot.edge.answers import DISCORD_TIMEOUT_SECONDS, guarded
from bot.edge.delivery import NONCE_LENGTH
from bot.edge.errors import ModeratorsOnlyError
from bot.edge.incidents import DISCORD_FAILURES, failure_level, why
from bot.edge.interactions import Interaction
from bot.presentation import away as words
from bot.presentation.messages import text, translation
from bot.services.away import AwayService, HeldNotice
from bot.services.errors import BadOptionError
from bot.services.time_rules import (
    TIMEZONE_LENGTH,
    AwayGame,
    AwayRefusedError,
    NotAwayError,
    QuietHours,
    Resumed,
    TurnNow,
    zone_names,
)

log = logging.getLogger(__name__)

_QUIET_ERRORS = {
    "timezone": "quiet.bad_timezone",
    "quiet_length": "quiet.bad_length",
    "from": "quiet.bad_time",
    "to": "quiet.bad_time",
}


class AwayController:
    """Handles /marrakech away, back and quiet-hours, and /marrakech-mod tournament-away-days."""

    def __init__(
        self,
        away: AwayService,
        client: discord.Client,
        tournament_at: Callable[[int], Awaitable[int]] | None = None,
        redraw: Redraw | None = None,
    ) -> None:
        """`tournament_at` names the tournament open in a channel (or played in its thread),
        raising the services' error when there is none; `redraw` draws a game's turn message
        again (the games waiting for someone back then no longer say they are away)."""
        self._away = away
        self._client = client
        self._tournament_at = tournament_at
        self._redraw = redraw

    async def tournament_away_days(self, interaction: Interaction, days: int) -> None:
        async def work() -> None:
            interactions.guild_id(interaction)
            if not interaction.permissions.manage_channels:
                raise ModeratorsOnlyError()
            assert self._tournament_at is not None
            tournament_id = await self._tournament_at(interactions.channel_id(interaction))
            await self._away.set_tournament_away_days(tournament_id, days)
            language = interactions.user_language(interaction)
            await replies.send(
                interaction,
                content=words.tournament_capped(days, language),
                ephemeral=True,
            )

        await guarded(interaction, "capping a tournament's away days", work)

    async def away(self, interaction: Interaction, days: int) -> None:
        async def work() -> None:
            language = interactions.user_language(interaction)
            guild_id = interactions.guild_id(interaction)
            user_id = interaction.user.id
            try:
                until, games = await self._away.go_away(guild_id, user_id, days, language)
            except AwayRefusedError as refused:
                await replies.send(
                    interaction, content=words.away_refused(refused, language), ephemeral=True
                )
                return
            await replies.send(
                interaction, content=words.away_started(until, language), ephemeral=True
            )
            await tell_channels(
                self._client,
                ((game.channel_id, words.away_notice(user_id, until, game)) for game in games),
            )
            if self._redraw is not None:  # a turn of theirs under way says they are away
                for game in games:
                    await self._redraw(game.game_id, user_id)

        await guarded(interaction, "going away", work)

    async def back(self, interaction: Interaction) -> None:
        async def work() -> None:
            language = interactions.user_language(interaction)
            user_id = interaction.user.id
            try:
                resumed = await self._away.come_back(interactions.guild_id(interaction), user_id)
            except NotAwayError:
                await replies.send(
                    interaction, content=text("away.not_away", language), ephemeral=True
                )
                return
            await replies.send(interaction, content=text("away.back", language), ephemeral=True)
            guild_id = interactions.guild_id(interaction)
            others = await self._away.running_games(guild_id, user_id, besides=resumed)
            await tell_channels(
                self._client,
                (
                    *((game.channel_id, words.back_notice(user_id, game)) for game in resumed),
                    *((game.channel_id, words.back_elsewhere(user_id, game)) for game in others),
                ),
            )
            await redraw_all(self._redraw, resumed)
            await redraw_waiting(self._redraw, others, user_id)

        await guarded(interaction, "coming back", work)

    async def quiet_hours(
        self,
        interaction: Interaction,
        starts: str | None,
        ends: str | None,
        timezone: str | None,
    ) -> None:
        async def work() -> None:
            interactions.guild_id(interaction)  # a command of server channels, like the others
            language = interactions.user_language(interaction)
            user_id = interaction.user.id
            if starts is None and ends is None and timezone is None:
                await self._away.set_quiet_hours(user_id, None)
                await replies.send(
                    interaction, content=text("quiet.cleared", language), ephemeral=True
                )
                return
            if starts is None or ends is None or timezone is None:
                await replies.send(
                    interaction, content=text("quiet.incomplete", language), ephemeral=True
                )
                return
            try:
                quiet = QuietHours.parse(starts, ends, timezone)
            except BadOptionError as error:
                await replies.send(
                    interaction,
                    content=_quiet_refusal(error, starts, ends, timezone, language),
                    ephemeral=True,
                )
                return
            await self._away.set_quiet_hours(user_id, quiet, language)
            await replies.send(
                interaction, content=words.quiet_set(quiet, language), ephemeral=True
            )

        await guarded(interaction, "setting quiet hours", work)

    async def zones(self, interaction: Interaction, typed: str) -> list[app_commands.Choice[str]]:
        """The time zones offered as the member types (IANA names)."""
        del interaction
        return [app_commands.Choice(name=name, value=name) for name in zone_names(typed)]


def _quiet_refusal(
    error: BadOptionError, starts: str, ends: str, timezone: str, language: str
) -> str:
    """Why quiet hours were refused: a time is named as typed, with its option as the
    member's client shows it (`to:25:00` is written HH:MM, yet no clock shows it)."""
    key = _QUIET_ERRORS.get(error.option, "quiet.bad_time")
    option = error.option if error.option in ("from", "to") else "from"
    typed = starts if option == "from" else ends
    return text(
        key,
        language,
        timezone=_clipped(timezone, TIMEZONE_LENGTH),  # the answer stays one Discord takes
        time=typed,  # at most 5 characters: the command's limit
        option=translation(f"option_name.{option}", language) or option,
    )


def _clipped(typed: str, most: int) -> str:
    """What a person typed, cut to `most` characters with an ellipsis when longer."""
    return typed if len(typed) <= most else typed[: most - 1] + "…"


async def tell_channels(
    client: discord.Client,
    lines: Iterable[tuple[int, str]],
    nonce_of: Callable[[int], str] | None = None,
) -> None:
    """Post each (channel, line), naming people without pinging them, with the nonce
    `nonce_of(channel)` gives, if any (one message however often it is posted); a failure is
    logged (a private answer, or the turn's own message, is what the members needed)."""
    for channel_id, line in lines:
        channel = client.get_partial_messageable(channel_id)
        quiet = discord.AllowedMentions.none()
        sending = (
            channel.send(line, allowed_mentions=quiet)
            if nonce_of is None
            else channel.send(line, allowed_mentions=quiet, nonce=nonce_of(channel_id))
        )
        try:
            await asyncio.wait_for(sending, DISCORD_TIMEOUT_SECONDS)
        except DISCORD_FAILURES as error:
            log.log(
                failure_level(error),
                "channel %s: the line about time away was not sent: %s",
                channel_id,
                why(error),
            )


class Redraw(Protocol):
    """Draw a game's turn message again as the game stands, if it waits for the move of
    `waiting_for` when given (bot.edge.display.GameDisplay.redraw)."""

    async def __call__(self, game_id: int, waiting_for: int | None = None, /) -> None: ...


async def redraw_all(redraw: Redraw | None, resumed: Sequence[Resumed]) -> None:
    """The turns waiting for someone back from days away: drawn again, no longer saying their
    clock stands still."""
    if redraw is not None:
        for game in resumed:
            await redraw(game.game_id)


async def redraw_waiting(redraw: Redraw | None, games: Sequence[AwayGame], user_id: int) -> None:
    """The turns of `games` under way that wait for `user_id`, back with no clock to run again
    (a game without a turn limit): drawn again, no longer saying they are away."""
    if redraw is not None:
        for game in games:
            await redraw(game.game_id, user_id)


class HeldMessages:
    """Sends a person what was held during their quiet hours, as one direct message (or, if
    their direct messages are closed, one ping per server, listing that server's games alone,
    in the channel of the first of them it names), and tells the games waiting for their move
    when their days away ran out."""

    def __init__(
        self,
        client: discord.Client,
        away: AwayService | None = None,
        redraw: Redraw | None = None,
    ) -> None:
        self._client = client
        self._away = away
        self._redraw = redraw

    async def send(self, user_id: int, notices: Sequence[HeldNotice]) -> None:
        """Send them (raises when neither the direct message nor each server's channel took
        it: the notices stay unsent and go at the next try, each post with the same nonce).
        The end of days away is told first, in the channels of the games waiting for the
        person's move (a line that fails is logged, not tried again)."""
        for notice in notices:
            if notice.kind == "back" and self._away is not None:
                resumed = await self._away.days_over(notice)
                if resumed is None:  # away again: the channels were just told so
                    continue
                others = []
                if notice.guild_id is not None:
                    others = await self._away.running_games(
                        notice.guild_id, user_id, besides=resumed
                    )
                await tell_channels(
                    self._client,
                    (
                        *((g.channel_id, words.days_over_notice(user_id, g)) for g in resumed),
                        *(
                            (g.channel_id, words.back_elsewhere(user_id, g, days_over=True))
                            for g in others
                        ),
                    ),
                    partial(_told_once, user_id, notice),
                )
                await redraw_all(self._redraw, resumed)
                await redraw_waiting(self._redraw, others, user_id)
        notices = [notice for notice in notices if notice.kind != "back"]
        if not notices:
            return
        turns = await self._away.turns_now(notices) if self._away is not None else {}
        message = words.held_message(notices, turns)
        if message is None:  # nothing held is still true or worth telling
            return
        nonce = held_nonce(user_id, notices)
        try:
            channel = await asyncio.wait_for(
                self._client.create_dm(discord.Object(user_id)), DISCORD_TIMEOUT_SECONDS
            )
            await asyncio.wait_for(
                channel.send(
                    message,
                    allowed_mentions=discord.AllowedMentions.none(),
                    nonce=nonce,
                ),
                DISCORD_TIMEOUT_SECONDS,
            )
            return
        except discord.Forbidden as error:
            log.info(
                "user %s: held notices not sent directly (%s); pinged in the channels",
                user_id,
                error,
            )
        for server in by_server(notices):
            await self._ping_in_channel(user_id, server, turns)

    async def _ping_in_channel(
        self, user_id: int, notices: Sequence[HeldNotice], turns: Mapping[int, TurnNow]
    ) -> None:
        """Post one server's part of the list, pinging its person, in the channel of the first
        game it names (nothing when it names none), with a nonce made from that server's
        notices: sent again, the post is the same message."""
        held = words.held_message_and_first(notices, turns)
        if held is None:
            return
        message, first = held
        game_channel = self._client.get_partial_messageable(
            first.channel_id, guild_id=first.guild_id
        )
        await asyncio.wait_for(
            game_channel.send(
                words.held_in_channel(user_id, message),
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(user_id)]),
                nonce=held_nonce(user_id, notices),
            ),
            DISCORD_TIMEOUT_SECONDS,
        )


def by_server(notices: Sequence[HeldNotice]) -> list[list[HeldNotice]]:
    """`notices` split by server, in the order each server first comes, each keeping its
    order: a server's channel is shown only that server's games."""
    servers: dict[int | None, list[HeldNotice]] = {}
    for notice in notices:
        servers.setdefault(notice.guild_id, []).append(notice)
    return list(servers.values())


def _told_once(user_id: int, notice: HeldNotice, channel_id: int) -> str:
    """The nonce of the line that tells a game's channel the person's days away are over."""
    return held_nonce(user_id, [replace(notice, channel_id=channel_id)])


def held_nonce(user_id: int, notices: Sequence[HeldNotice]) -> str:
    """The nonce of the message that sends a person `notices`, the same in every process and
    after a restart: Discord (asked to enforce it) creates one message for it within a few
    minutes however often it is sent, so a process that dies after Discord took the message
    but before it marked the notices sent, and the one that sends them again, post it once."""
    names = sorted(f"{n.channel_id}:{n.game_id}:{n.seq}:{n.kind}" for n in notices)
    digest = hashlib.sha256(f"{user_id}|{'|'.join(names)}".encode()).hexdigest()
    return digest[:NONCE_LENGTH]
