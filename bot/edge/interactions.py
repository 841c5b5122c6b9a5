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
