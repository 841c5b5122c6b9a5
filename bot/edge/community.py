"""The Discord edge of everything around games: stats and ratings, leaderboard, history,
replays, and the server settings moderators change with /marrakech-admin.

Thin like the game controller: parse, authorise, call a service, answer through the
presentation (bot.presentation.community for the community's posts);
errors go through the one error table (via `guarded`). Stats, leaderboard, history and replays
are public: they speak the server's language; settings are private: the user's.
"""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable

import discord

from bot.edge import interactions, replies
from bot.edge.answers import guarded
from bot.edge.errors import BotStatsError, ManagersOnlyError
from bot.edge.interactions import Interaction
from bot.edge.permissions import require_game_permissions_in
from bot.presentation import community, images, presenter
from bot.presentation.analysis import AnalysisPictures, analysis_file
from bot.presentation.messages import text
from bot.services.analysis import FinishedGame
from bot.services.errors import BadOptionError, UnseenGameError
from bot.services.guilds import GuildService
from bot.services.play import PlayService
from bot.services.ratings import RatingService
from bot.services.stats import StatsService
from bot.services.time_rules import QUIET_CLOCKS
from bot.services.views import ServerSettings

REPLAY_NAME = "marrakech-game-{game_id}.gif"


class CommunityController:
    """Handles /marrakech stats, leaderboard, history, replay and /marrakech-admin."""

    def __init__(
        self,
        play: PlayService,
        guilds: GuildService,
        stats: StatsService,
        ratings: RatingService,
        pictures: images.Pictures,
        analyses: AnalysisPictures,
    ) -> None:
        self._play = play
        self._pictures = pictures
        self._analyses = analyses
        self._guilds = guilds
        self._stats = stats
        self._ratings = ratings

    # --- stats and history -------------------------------------------------------------------

    async def stats(self, interaction: Interaction, member: discord.abc.User | None) -> None:
        """A member's stats and rating; with a rated game, its chart (drawn in a worker:
        deferred first)."""

        async def work() -> None:
            user_id = (member or interaction.user).id
            guild_id = interactions.guild_id(interaction)
            if member is not None and member.bot:  # no seat, no stats: no empty card posted
                raise BotStatsError(user_id)
            stats = await self._stats.player(guild_id, user_id)
            rating = await self._ratings.player(guild_id, user_id) if stats.games else None
            (reliability,) = await self._stats.reliability(guild_id, [user_id])
            language = interactions.server_language(interaction)
            shown = community.stats_post(stats, rating, language, reliability)
            if shown.chart is None:
                await replies.send(
                    interaction,
                    embed=shown.post.embed,
                    allowed_mentions=discord.AllowedMentions.none(),
                )
                return
            await replies.defer(interaction, thinking=True)
            png = await self._pictures.rating_chart(shown.chart)
            await replies.send(
                interaction,
                embed=shown.post.embed,
                file=images.as_file(png, community.CHART_NAME),
                allowed_mentions=discord.AllowedMentions.none(),
            )

        await guarded(interaction, "showing stats", work, public=True)

    async def leaderboard(self, interaction: Interaction) -> None:
        async def work() -> None:
            board = await self._ratings.leaderboard(interactions.guild_id(interaction))
            post = community.leaderboard_post(board, interactions.server_language(interaction))
            await replies.send(
                interaction, embed=post.embed, allowed_mentions=discord.AllowedMentions.none()
            )

        await guarded(interaction, "showing the leaderboard", work, public=True)

    async def history(self, interaction: Interaction, *, server: bool) -> None:
        async def work() -> None:
            channel_id = None if server else interaction.channel_id
            # The whole server's list leaves out the games of channels the member cannot see.
            rows = await self._stats.history(
                interactions.guild_id(interaction),
                channel_id,
                sees=lambda channel: interactions.sees(interaction, channel),
            )
            post = community.history_post(
                rows, server=server, language=interactions.server_language(interaction)
            )
            await replies.send(
                interaction, embed=post.embed, allowed_mentions=discord.AllowedMentions.none()
            )

        await guarded(interaction, "showing the history", work, public=True)

    async def replay(self, interaction: Interaction, game_id: int) -> None:
        """Post the animated replay and the analysis (drawn in the workers: deferred first) and
        the record, for a member who can see the game's channel."""

        async def work() -> None:
            record = await self._play.replay_record(game_id, interactions.guild_id(interaction))
            shown = await self._play.look(game_id)
            if not interactions.sees(interaction, shown.game.channel_id):
                raise UnseenGameError(game_id)
            players = shown.players  # their names, for the panel
            language = interactions.server_language(interaction)
            await replies.defer(interaction, thinking=True)
            gif = await self._pictures.replay_gif(record, language, players)
            finished = FinishedGame(game_id, record, players)
            analysis = await self._analyses.png(finished, language)
            files = [
                discord.File(io.BytesIO(gif), filename=REPLAY_NAME.format(game_id=game_id)),
                analysis_file(analysis, game_id),
                presenter.record_file(record, game_id),
            ]
            await replies.send(
                interaction,
                content=text("replay.done", language, game_id=game_id),
                files=files,
                allowed_mentions=discord.AllowedMentions.none(),
            )

        await guarded(interaction, f"replaying game {game_id}", work, public=True)

    # --- server settings ---------------------------------------------------------------------

    async def show_settings(self, interaction: Interaction) -> None:
        await self._settings_command(
            interaction, "showing the settings", self._guilds.settings, saved=False
        )

    async def set_turn_limit(self, interaction: Interaction, seconds: int) -> None:
        await self._settings_command(
            interaction,
            "setting the turn limit",
            lambda guild_id: self._guilds.set_turn_limit(guild_id, seconds or None),
        )

    async def set_variant(self, interaction: Interaction, variant: str) -> None:
        await self._settings_command(
            interaction,
            "setting the variant",
            lambda guild_id: self._guilds.set_variant(guild_id, variant),
        )

    async def set_away_days(self, interaction: Interaction, days: int) -> None:
        await self._settings_command(
            interaction,
            "setting the away days",
            lambda guild_id: self._guilds.set_away_days(guild_id, days),
        )

    async def set_clocks_in_quiet(self, interaction: Interaction, state: str) -> None:
        """`state`: one of QUIET_CLOCKS (run: the clocks run in quiet hours); any other is
        refused, changing nothing."""

        async def change(guild_id: int) -> ServerSettings:
            if state not in QUIET_CLOCKS:
                raise BadOptionError("state", state)
            return await self._guilds.set_clocks_in_quiet(guild_id, state == "run")

        await self._settings_command(interaction, "setting the clocks in quiet hours", change)

    async def allow_channel(self, interaction: Interaction, channel_id: int) -> None:
        """Allow games in the channel, if the bot can post them there (else the permissions
        it lacks there are named, and nothing is saved)."""

        async def change(guild_id: int) -> ServerSettings:
            require_game_permissions_in(interaction, channel_id)
            return await self._guilds.allow_channel(guild_id, channel_id)

        await self._settings_command(interaction, "allowing a channel", change)

    async def remove_channel(self, interaction: Interaction, channel_id: int) -> None:
        await self._settings_command(
            interaction,
            "removing a channel",
            lambda guild_id: self._guilds.remove_channel(guild_id, channel_id),
        )

    async def _settings_command(
        self,
        interaction: Interaction,
        doing: str,
        change: Callable[[int], Awaitable[ServerSettings]],
        *,
        saved: bool = True,
    ) -> None:
        """Apply `change` to the settings of the server the member manages and show them
        privately (saying they were saved when `saved`)."""

        async def work() -> None:
            settings = await change(_managed_guild(interaction))
            language = interactions.user_language(interaction)
            await replies.send(
                interaction,
                content=text("admin.saved", language) if saved else None,
                embed=presenter.settings_post(settings, language).embed,
                ephemeral=True,
            )

        await guarded(interaction, doing, work)


def _managed_guild(interaction: Interaction) -> int:
    """The guild, if the member may manage it (checked at run time: Discord's default
    permissions can be overridden by a server)."""
    guild_id = interactions.guild_id(interaction)
    if not interaction.permissions.manage_guild:
        raise ManagersOnlyError()
    return guild_id
