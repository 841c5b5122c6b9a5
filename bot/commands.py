"""The slash commands: `/marrakech ...` for players and `/marrakech-mod ...` for moderators.

Thin: each command parses its options and hands over to the GameController. The moderator
group is a separate top-level command because Discord applies default member permissions to
top-level commands only; the controller checks Manage Channels again at run time.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.controller import GameController

Interaction = discord.Interaction[Any]

TURN_LIMITS = (
    ("none", 0),
    ("5 minutes", 5 * 60),
    ("1 hour", 3600),
    ("12 hours", 12 * 3600),
    ("1 day", 24 * 3600),
    ("3 days", 3 * 24 * 3600),
    ("7 days", 7 * 24 * 3600),
)
VARIANTS = (("standard", "standard"), ("rotate-after (Assam turns after the rug)", "rotate-after"))


def build_commands(controller: GameController) -> list[app_commands.Group]:
    """The two top-level command groups, bound to `controller`."""
    game = app_commands.Group(
        name="marrakech",
        description="Play Marrakech, the rug market board game, in this channel",
        guild_only=True,
    )

    @game.command(name="new", description="Open a game lobby in this channel")
    @app_commands.describe(
        seats="How many players (2 to 4)",
        variant="Rules variant",
        turn_limit="Time each player has for a turn",
    )
    @app_commands.choices(
        variant=[app_commands.Choice(name=name, value=value) for name, value in VARIANTS]
    )
    @app_commands.choices(
        turn_limit=[app_commands.Choice(name=name, value=value) for name, value in TURN_LIMITS]
    )
    async def new(
        interaction: Interaction,
        seats: app_commands.Range[int, 2, 4] = 4,
        variant: str = "standard",
        turn_limit: int = 0,
    ) -> None:
        await controller.new(
            interaction,
            seats=seats,
            variant=variant,
            turn_limit_seconds=turn_limit or None,
        )

    @game.command(name="join", description="Join the lobby in this channel")
    async def join(interaction: Interaction) -> None:
        await controller.join(interaction)

    @game.command(name="leave", description="Leave the lobby in this channel")
    async def leave(interaction: Interaction) -> None:
        await controller.leave(interaction)

    @game.command(name="start", description="Start the game in this channel (host)")
    async def start(interaction: Interaction) -> None:
        await controller.start(interaction)

    @game.command(name="board", description="Show the current board and scores, privately")
    async def board(interaction: Interaction) -> None:
        await controller.board(interaction)

    @game.command(name="rules", description="A short summary of the rules")
    async def rules(interaction: Interaction) -> None:
        await controller.rules(interaction)

    @game.command(name="resign", description="Leave the running game (your rugs turn neutral)")
    async def resign(interaction: Interaction) -> None:
        await controller.resign(interaction)

    @game.command(name="abort", description="End the game you host in this channel")
    async def abort(interaction: Interaction) -> None:
        await controller.abort(interaction, moderator=False)

    moderation = app_commands.Group(
        name="marrakech-mod",
        description="Moderate Marrakech games",
        guild_only=True,
        default_permissions=discord.Permissions(manage_channels=True),
    )

    @moderation.command(name="abort", description="End the game in this channel (moderators)")
    async def mod_abort(interaction: Interaction) -> None:
        await controller.abort(interaction, moderator=True)

    return [game, moderation]
