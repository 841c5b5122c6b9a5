"""What the bot needs in a channel to run a game there, checked from interaction.app_permissions."""

from __future__ import annotations

import discord

from bot.presentation.messages import text

GAME_PERMISSIONS = ("view_channel", "send_messages", "embed_links", "attach_files")


class MissingPermissionsError(Exception):
    """The bot lacks channel permissions it needs; `names` are the permission flag names.
    `channel_id`: the channel that lacks them, when it is not the one the user acted in."""

    def __init__(self, names: tuple[str, ...], *, channel_id: int | None = None) -> None:
        super().__init__(", ".join(names))
        self.names = names
        self.channel_id = channel_id

    def label(self, language: str) -> str:
        """The missing permissions as Discord names them in `language`'s client."""
        return ", ".join(text(f"permission.{name}", language) for name in self.names)


def missing_for_game(permissions: discord.Permissions, *, in_thread: bool) -> tuple[str, ...]:
    """The permissions (flag names) a game's channel needs that `permissions` lacks, as they
    are to be granted (`to_grant`)."""
    sending = "send_messages_in_threads" if in_thread else "send_messages"
    needed = [sending if name == "send_messages" else name for name in GAME_PERMISSIONS]
    missing = [name for name in needed if not getattr(permissions, name)]
    return to_grant(missing, sending=sending)


def to_grant(missing: list[str], *, sending: str) -> tuple[str, ...]:
    """Of the `missing` permissions, those a moderator must grant. Discord takes every other
    one away with View Channel, and Embed Links and Attach Files with `sending` (Send
    Messages; in a thread, Send Messages in Threads): a channel that denies that one alone
    lacks them too (discord.py's permissions_for and interaction.app_permissions say so), and
    granting it gives them back."""
    if "view_channel" in missing:
        return ("view_channel",)
    if sending in missing:
        return tuple(name for name in missing if name not in ("embed_links", "attach_files"))
    return tuple(missing)


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


def require_game_permissions_in(
    interaction: discord.Interaction[discord.Client], channel_id: int
) -> None:
    """Raise MissingPermissionsError, naming the channel, if the bot cannot post games in the
    channel `channel_id` (one an admin names, maybe another than the one they act in): in a
    forum, in its posts. Discord gives the bot's permissions in the interaction's channel only;
    another's are worked out from the client's cache of the server (its roles, the channel's
    overwrites). While the cache does not know that channel, nothing is checked here: the
    game's own commands check again where it is opened."""
    if channel_id == interaction.channel_id:  # a forum takes no command: not one
        permissions, forum = interaction.app_permissions, False
    else:
        guild = interaction.guild
        channel = guild.get_channel(channel_id) if guild is not None else None
        if guild is None or channel is None or guild.me is None:
            return
        permissions = channel.permissions_for(guild.me)
        forum = isinstance(channel, discord.ForumChannel)
    missing = missing_for_game(permissions, in_thread=forum)
    if missing:
        raise MissingPermissionsError(missing, channel_id=channel_id)
