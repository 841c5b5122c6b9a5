"""How messages point at people and at other messages: a user mention and a message link."""

from __future__ import annotations

__all__ = ["mention", "message_link"]


def mention(user_id: int | None) -> str:
    """The mention of user `user_id` ("?" when there is none to mention)."""
    return f"<@{user_id}>" if user_id is not None else "?"


def message_link(guild_id: int | None, channel_id: int, message_id: int) -> str:
    """The link that opens a message in Discord's clients."""
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"
