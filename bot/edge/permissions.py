"""What the bot needs in a channel to run a game there, checked from interaction.app_permissions."""

from __future__ import annotations

import discord

from bot.presentation.messages import text

GAME_PERMISSIONS = ("view_channel", "send_messages", "embed_links", "attach_files")


class MissingPermissionsError(Exception):
    """The bot lacks channel permissions it needs; `names` are the permission flag names."""

    def __init__(self, names: tuple[str, ...]) -> None:
        super().__init__(", ".join(names))
        self.names = names

    def label(self, language: str) -> str:
        """The missing permissions as Discord names them in `language`'s client."""
        return ", ".join(text(f"permission.{name}", language) for name in self.names)


def missing_for_game(permissions: discord.Permissions, *, in_thread: bool) -> tuple[str, ...]:
    """The permissions (flag names) a game's channel needs that `permissions` lacks."""
    needed = [
        "send_messages_in_threads" if in_thread and name == "send_messages" else name
        for name in GAME_PERMISSIONS
    ]
    return tuple(name for name in needed if not getattr(permissions, name))


def require_game_permissions(interaction: discord.Interaction[discord.Client]) -> None:
    """Raise MissingPermissionsError if the bot cannot post the game in this channel."""
    in_thread = isinstance(interaction.channel, discord.Thread) or (
        interaction.channel is not None
        and getattr(interaction.channel, "type", None)
        in (
            discord.ChannelType.public_thread,
            discord.ChannelType.private_thread,
            discord.ChannelType.news_thread,
        )
    )
    missing = missing_for_game(interaction.app_permissions, in_thread=in_thread)
    if missing:
        raise MissingPermissionsError(missing)
