"""What the edge reads off a Discord interaction: where it happened and which language to answer
in (private answers speak the user's Discord locale, public messages the server's)."""

from __future__ import annotations

from typing import Any

import discord

from bot.edge.errors import GuildOnlyError
from bot.presentation.messages import language_of

Interaction = discord.Interaction[Any]


def user_language(interaction: Interaction) -> str:
    """The language of a private answer: the acting user's Discord locale."""
    return language_of(interaction.locale)


def server_language(interaction: Interaction) -> str:
    """The language of a game's public messages: the server's locale."""
    return language_of(interaction.guild_locale)


def guild_id(interaction: Interaction) -> int:
    """The server the interaction happened in; GuildOnlyError in a direct message."""
    if interaction.guild_id is None:
        raise GuildOnlyError()
    return interaction.guild_id


def channel_id(interaction: Interaction) -> int:
    """The channel the interaction happened in; GuildOnlyError without one."""
    if interaction.channel_id is None:
        raise GuildOnlyError()
    return interaction.channel_id


def moderates(interaction: Interaction, channel_id: int) -> bool:
    """Whether the member who acted holds Manage Channels in the channel `channel_id` (a game's,
    which may be another than the one they acted in). Discord gives a member's permissions in
    the channel of the interaction only; another channel's are worked out from the client's
    cache of the server (its roles, the channel's overwrites). While the cache does not know
    that channel yet (the first moments of a start), only a server manager acts there."""
    permissions = _permissions_in(interaction, channel_id)
    if permissions is None:
        return interaction.permissions.manage_guild
    return permissions.manage_channels


def sees(interaction: Interaction, channel_id: int) -> bool:
    """Whether the member who acted may see the channel `channel_id` (a game's, which may be
    another than the one they acted in), worked out as `moderates` works out Manage Channels.
    While the client's cache does not know that channel yet, only an administrator (who sees
    every channel) does."""
    permissions = _permissions_in(interaction, channel_id)
    if permissions is None:
        return interaction.permissions.administrator
    return permissions.view_channel


def _permissions_in(interaction: Interaction, channel_id: int) -> discord.Permissions | None:
    """The acting member's permissions in the channel `channel_id`: Discord's own for the
    interaction's channel, else worked out from the client's cache of the server (its roles,
    the channel's overwrites; a thread's are its parent's); None while the cache does not know
    that channel."""
    if interaction.channel_id == channel_id:
        return interaction.permissions
    guild, member = interaction.guild, interaction.user
    channel = guild.get_channel_or_thread(channel_id) if guild is not None else None
    if channel is not None and isinstance(member, discord.Member):
        return channel.permissions_for(member)
    return None
