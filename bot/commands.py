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
from bot.messages import command_text
from engine import Variant

Interaction = discord.Interaction[Any]

TURN_LIMITS = (0, 5 * 60, 3600, 12 * 3600, 24 * 3600, 3 * 24 * 3600, 7 * 24 * 3600)
"""Turn time limits offered at `new`, in seconds (0: none)."""
VARIANTS = tuple(variant.value for variant in Variant)


def build_commands(controller: GameController) -> list[app_commands.Group]:
    """The two top-level command groups, bound to `controller`."""
    game = app_commands.Group(
        name="marrakech",
        description=command_text("command.marrakech"),
        guild_only=True,
    )

    @game.command(name="new", description=command_text("command.new"))
    @app_commands.describe(
        seats=command_text("command.new.seats"),
        variant=command_text("command.new.variant"),
        turn_limit=command_text("command.new.turn_limit"),
    )
    @app_commands.choices(
        variant=[
            app_commands.Choice(name=command_text(f"choice.variant.{value}"), value=value)
            for value in VARIANTS
        ]
    )
    @app_commands.choices(
        turn_limit=[
            app_commands.Choice(name=command_text(f"choice.turn_limit.{value}"), value=value)
            for value in TURN_LIMITS
        ]
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

    @game.command(name="join", description=command_text("command.join"))
    async def join(interaction: Interaction) -> None:
        await controller.join(interaction)

    @game.command(name="leave", description=command_text("command.leave"))
    async def leave(interaction: Interaction) -> None:
        await controller.leave(interaction)

    @game.command(name="start", description=command_text("command.start"))
    async def start(interaction: Interaction) -> None:
        await controller.start(interaction)

    @game.command(name="board", description=command_text("command.board"))
    async def board(interaction: Interaction) -> None:
        await controller.board(interaction)

    @game.command(name="rules", description=command_text("command.rules"))
    async def rules(interaction: Interaction) -> None:
        await controller.rules(interaction)

    @game.command(name="resign", description=command_text("command.resign"))
    async def resign(interaction: Interaction) -> None:
        await controller.resign(interaction)

    @game.command(name="abort", description=command_text("command.abort"))
    async def abort(interaction: Interaction) -> None:
        await controller.abort(interaction, moderator=False)

    moderation = app_commands.Group(
        name="marrakech-mod",
        description=command_text("command.mod"),
        guild_only=True,
        default_permissions=discord.Permissions(manage_channels=True),
    )

    @moderation.command(name="abort", description=command_text("command.mod.abort"))
    async def mod_abort(interaction: Interaction) -> None:
        await controller.abort(interaction, moderator=True)

    return [game, moderation]
