"""Per-server settings as use cases: moderators set defaults and allowed channels; `new` reads
them to fill the options a player left out and to refuse channels not open to games. Each
change is one transaction in the store, which also reads back the settings it answers with.
The rules of time (away days, clocks in quiet hours) are the away service's, shown with the
rest."""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from bot.services.clock import Clock, system_clock
from bot.services.errors import BadOptionError, ChannelNotAllowedError, ChannelNotListedError
from bot.services.views import ServerSettings
from bot.storage.away import TimeSettings
from bot.storage.guilds import GuildSettings, GuildStore
from engine import Variant

MIN_TURN_LIMIT_SECONDS = 5 * 60
MAX_TURN_LIMIT_SECONDS = 7 * 24 * 3600


def check_turn_limit(seconds: int | None, option: str = "turn_limit") -> None:
    """BadOptionError naming `option` (the command's name for the limit) unless `seconds` is
    none or 5 minutes to 7 days."""
    if seconds is not None and not MIN_TURN_LIMIT_SECONDS <= seconds <= MAX_TURN_LIMIT_SECONDS:
        raise BadOptionError(option, seconds)


def check_variant(variant: str) -> None:
    if variant not in {v.value for v in Variant}:
        raise BadOptionError("variant", variant)


class TimeRulesKeeper(Protocol):
    """Where a server's rules of time are kept (bot.services.away.AwayService)."""

    async def settings(self, guild_id: int) -> TimeSettings: ...
    async def set_away_days(self, guild_id: int, days: int) -> TimeSettings: ...
    async def set_clocks_in_quiet(self, guild_id: int, on: bool) -> TimeSettings: ...


class GuildService:
    """A server's defaults for new games and the channels that allow them."""

    def __init__(
        self, store: GuildStore, *, clock: Clock = system_clock, away: TimeRulesKeeper | None = None
    ) -> None:
        """`away` keeps the server's rules of time (None: shown as the defaults)."""
        self._store = store
        self._clock = clock
        self._away = away

    async def settings(self, guild_id: int) -> ServerSettings:
        return await self._settings(guild_id)

    async def options_for_new(
        self,
        guild_id: int,
        channel_id: int,
        parent_id: int | None,
        *,
        variant: str | None,
        turn_limit_seconds: int | None,
    ) -> tuple[str, int | None]:
        """The variant and turn limit of a new game: the player's choice, else the server's
        default. `turn_limit_seconds` 0 means "no limit", None "the default". Raises
        ChannelNotAllowedError if games are not allowed in the channel (or its parent)."""
        settings = await self._store.get(guild_id)
        allowed = settings.channel_ids
        if allowed and channel_id not in allowed and parent_id not in allowed:
            raise ChannelNotAllowedError(allowed)
        chosen_variant = variant or settings.variant or Variant.STANDARD.value
        if turn_limit_seconds is None:
            limit = settings.turn_limit_seconds
        else:
            limit = turn_limit_seconds or None
        return chosen_variant, limit

    async def set_turn_limit(self, guild_id: int, seconds: int | None) -> ServerSettings:
        """The server's default turn limit (None: no limit), `limit` in its command."""
        check_turn_limit(seconds, "limit")
        row = await self._store.set_turn_limit(guild_id, seconds, self._clock())
        return await self._shown(row)

    async def set_away_days(self, guild_id: int, days: int) -> ServerSettings:
        """The most days one may be away at once on the server (0: away days refused)."""
        assert self._away is not None
        await self._away.set_away_days(guild_id, days)
        return await self._settings(guild_id)

    async def set_clocks_in_quiet(self, guild_id: int, on: bool) -> ServerSettings:
        """Whether turn clocks run during a player's quiet hours (else they pause)."""
        assert self._away is not None
        await self._away.set_clocks_in_quiet(guild_id, on)
        return await self._settings(guild_id)

    async def set_variant(self, guild_id: int, variant: str) -> ServerSettings:
        check_variant(variant)
        return await self._shown(await self._store.set_variant(guild_id, variant, self._clock()))

    async def allow_channel(self, guild_id: int, channel_id: int) -> ServerSettings:
        return await self._shown(await self._store.allow_channel(guild_id, channel_id))

    async def remove_channel(self, guild_id: int, channel_id: int) -> ServerSettings:
        """Take the channel off the allowed list (an empty list allows every channel)."""
        row = await self._store.remove_channel(guild_id, channel_id)
        if row is None:
            raise ChannelNotListedError(channel_id)
        return await self._shown(row)

    async def _settings(self, guild_id: int) -> ServerSettings:
        return await self._shown(await self._store.get(guild_id))

    async def _shown(self, row: GuildSettings) -> ServerSettings:
        shown = ServerSettings(row.guild_id, row.turn_limit_seconds, row.variant, row.channel_ids)
        if self._away is None:
            return shown
        times = await self._away.settings(row.guild_id)
        return replace(shown, away_days=times.away_days, clocks_in_quiet=times.clocks_in_quiet)
