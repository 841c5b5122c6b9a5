"""What the command tree sends Discord: server channels only, and a channel option that offers
only channels where a game can be played."""

from __future__ import annotations

from typing import Any, cast

import discord
from discord import app_commands

from bot.edge.commands import build_commands


class _Tree:
    allowed_contexts = app_commands.AppCommandContext()
    allowed_installs = app_commands.AppInstallationType()


def _payloads() -> list[dict[str, Any]]:
    nothing = cast(Any, None)
    tree = cast(Any, _Tree())
    return [group.to_dict(tree) for group in build_commands(nothing, nothing, nothing)]


def test_every_group_is_kept_to_server_channels_by_its_contexts() -> None:
    for payload in _payloads():
        assert payload["contexts"] == [0], payload["name"]


def test_the_admin_channel_option_offers_text_announcement_and_forum_channels_only() -> None:
    offered = set()
    for payload in _payloads():
        for command in payload["options"]:
            for option in command.get("options", []):
                if option["type"] == discord.AppCommandOptionType.channel.value:
                    offered.add(tuple(sorted(option["channel_types"])))
    assert offered == {
        tuple(
            sorted(
                (
                    discord.ChannelType.text.value,
                    discord.ChannelType.news.value,
                    discord.ChannelType.forum.value,
                )
            )
        )
    }
