"""The Discord edge of everything around games: stats, leaderboard, history, replays, and the
server settings moderators change with /marrakech-admin.

Thin like the game controller: parse, authorise, call a service, answer through the presenter;
errors go through the one error table (via `guarded`). Stats, leaderboard, history and replays
are public: they speak the server's language; settings are private: the user's.
"""

from __future__ import annotations

import io
import json
from typing import Any

import discord

from bot import images, interactions, presenter
from bot.controller import guarded
from bot.errors import ManagersOnlyError
from bot.messages import text
from bot.services import GameService, GuildService, StatsService

Interaction = discord.Interaction[Any]

REPLAY_NAME = "marrakech-game-{game_id}.gif"


class CommunityController:
    """Handles /marrakech stats, leaderboard, history, replay and /marrakech-admin."""

    def __init__(self, games: GameService, guilds: GuildService, stats: StatsService) -> None:
        self._games = games
        self._guilds = guilds
        self._stats = stats

    # --- stats and history -------------------------------------------------------------------

    async def stats(self, interaction: Interaction, member: discord.abc.User | None) -> None:
        async def work() -> None:
            user_id = (member or interaction.user).id
            stats = await self._stats.player(interactions.guild_id(interaction), user_id)
            post = presenter.stats_post(stats, interactions.server_language(interaction))
            await interaction.response.send_message(
                embed=post.embed, allowed_mentions=discord.AllowedMentions.none()
            )

        await guarded(interaction, "showing stats", work)

    async def leaderboard(self, interaction: Interaction) -> None:
        async def work() -> None:
            rows = await self._stats.leaderboard(interactions.guild_id(interaction))
            post = presenter.leaderboard_post(rows, interactions.server_language(interaction))
            await interaction.response.send_message(
                embed=post.embed, allowed_mentions=discord.AllowedMentions.none()
            )

        await guarded(interaction, "showing the leaderboard", work)

    async def history(self, interaction: Interaction, *, server: bool) -> None:
        async def work() -> None:
            channel_id = None if server else interaction.channel_id
            rows = await self._stats.history(interactions.guild_id(interaction), channel_id)
            post = presenter.history_post(
                rows, server=server, language=interactions.server_language(interaction)
            )
            await interaction.response.send_message(
                embed=post.embed, allowed_mentions=discord.AllowedMentions.none()
            )

        await guarded(interaction, "showing the history", work)

    async def replay(self, interaction: Interaction, game_id: int) -> None:
        """Post the animated replay (drawn in a thread: deferred first) and the record."""

        async def work() -> None:
            record = await self._games.replay_record(game_id, interactions.guild_id(interaction))
            language = interactions.server_language(interaction)
            await interaction.response.defer(thinking=True)
            gif = await images.render_replay_gif(record, language)
            files = [
                discord.File(io.BytesIO(gif), filename=REPLAY_NAME.format(game_id=game_id)),
                discord.File(
                    io.BytesIO(json.dumps(record, indent=1).encode()),
                    filename=presenter.RECORD_NAME.format(game_id=game_id),
                ),
            ]
            await interaction.followup.send(
                text("replay.done", language, game_id=game_id),
                files=files,
                allowed_mentions=discord.AllowedMentions.none(),
            )

        await guarded(interaction, f"replaying game {game_id}", work)

    # --- server settings ---------------------------------------------------------------------

    async def show_settings(self, interaction: Interaction) -> None:
        async def work() -> None:
            settings = await self._guilds.settings(_managed_guild(interaction))
            await _answer_settings(
                interaction,
                presenter.settings_post(settings, interactions.user_language(interaction)),
                saved=False,
            )

        await guarded(interaction, "showing the settings", work)

    async def set_turn_limit(self, interaction: Interaction, seconds: int) -> None:
        async def work() -> None:
            guild_id = _managed_guild(interaction)
            settings = await self._guilds.set_turn_limit(guild_id, seconds or None)
            await _answer_settings(
                interaction,
                presenter.settings_post(settings, interactions.user_language(interaction)),
                saved=True,
            )

        await guarded(interaction, "setting the turn limit", work)

    async def set_variant(self, interaction: Interaction, variant: str) -> None:
        async def work() -> None:
            settings = await self._guilds.set_variant(_managed_guild(interaction), variant)
            await _answer_settings(
                interaction,
                presenter.settings_post(settings, interactions.user_language(interaction)),
                saved=True,
            )

        await guarded(interaction, "setting the variant", work)

    async def allow_channel(self, interaction: Interaction, channel_id: int) -> None:
        async def work() -> None:
            settings = await self._guilds.allow_channel(_managed_guild(interaction), channel_id)
            await _answer_settings(
                interaction,
                presenter.settings_post(settings, interactions.user_language(interaction)),
                saved=True,
            )

        await guarded(interaction, "allowing a channel", work)

    async def remove_channel(self, interaction: Interaction, channel_id: int) -> None:
        async def work() -> None:
            settings = await self._guilds.remove_channel(_managed_guild(interaction), channel_id)
            await _answer_settings(
                interaction,
                presenter.settings_post(settings, interactions.user_language(interaction)),
                saved=True,
            )

        await guarded(interaction, "removing a channel", work)


async def _answer_settings(interaction: Interaction, post: presenter.Post, *, saved: bool) -> None:
    await interaction.response.send_message(
        text("admin.saved", interactions.user_language(interaction)) if saved else None,
        embed=post.embed,
        ephemeral=True,
    )


def _managed_guild(interaction: Interaction) -> int:
    """The guild, if the member may manage it (checked at run time: Discord's default
    permissions can be overridden by a server)."""
    guild_id = interactions.guild_id(interaction)
    if not interaction.permissions.manage_guild:
        raise ManagersOnlyError()
    return guild_id
