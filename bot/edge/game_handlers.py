"""GameHandlers: the /marrakech game commands and the game buttons, as thin handlers.

Each handler authorises and parses at the edge (a lobby button's action into a LobbyAction),
calls the game services (lobby and play), answers the interaction, and leaves putting the game's
messages right to GameDisplay. Expected errors become short private answers (bot.edge.answers).

Languages: private (ephemeral) answers speak the acting user's Discord locale; public messages
speak the game's language, taken from the server's locale when the game opened and stored with
it, so later edits and posts (after restarts too) stay in the same language.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import discord

from bot import crashpoints
from bot.edge import interactions
from bot.edge.answers import guarded, or_missing, tell
from bot.edge.display import GameDisplay
from bot.edge.errors import ModeratorsOnlyError, describe, report
from bot.edge.interactions import Interaction
from bot.edge.layout import lobby_action, lobby_buttons
from bot.edge.permissions import require_game_permissions
from bot.presentation import presenter
from bot.presentation.links import mention
from bot.presentation.messages import text
from bot.services.actions import AI_LEVELS, LobbyAction
from bot.services.errors import BadOptionError, GameNotFoundError, StaleBoardError
from bot.services.views import GameStatus, GameView

if TYPE_CHECKING:
    from bot.services.games import GameService
    from bot.services.guilds import GuildService

log = logging.getLogger(__name__)


class GameHandlers:
    """Handles /marrakech game commands and game buttons for one client."""

    def __init__(self, service: GameService, guilds: GuildService, display: GameDisplay) -> None:
        self._service = service
        self._lobby = service.lobby
        self._play = service.play
        self._guilds = guilds
        self._display = display
        self._in_flight: Counter[int] = Counter()
        """Clicks being handled per game: while one is, its answer will show the game."""

    async def new(
        self,
        interaction: Interaction,
        *,
        seats: int,
        variant: str | None,
        turn_limit_seconds: int | None,
    ) -> None:
        """Open a lobby; a variant or turn limit left out (None) is the server's default."""

        async def work() -> None:
            guild_id = interactions.guild_id(interaction)
            require_game_permissions(interaction)
            variant_chosen, limit = await self._guilds.options_for_new(
                guild_id,
                interactions.channel_id(interaction),
                getattr(interaction.channel, "parent_id", None),
                variant=variant,
                turn_limit_seconds=turn_limit_seconds,
            )
            view = await self._lobby.create_lobby(
                guild_id=guild_id,
                channel_id=interactions.channel_id(interaction),
                host_id=interaction.user.id,
                seats=seats,
                variant=variant_chosen,
                turn_limit_seconds=limit,
                locale=interactions.server_language(interaction),
            )
            crashpoints.reach("lobby.created")
            post = presenter.lobby_post(view)
            response = await interaction.response.send_message(
                embed=post.embed, view=or_missing(lobby_buttons(view))
            )
            message_id = response.message_id if response is not None else None
            if message_id is None:
                message_id = (await interaction.original_response()).id
            await self._play.set_board_message(view.id, message_id, view.seq)

        await guarded(interaction, "opening a lobby", work)

    async def join(self, interaction: Interaction) -> None:
        await self._lobby_command(interaction, LobbyAction.JOIN)

    async def leave(self, interaction: Interaction) -> None:
        await self._lobby_command(interaction, LobbyAction.LEAVE)

    async def start(self, interaction: Interaction) -> None:
        await self._lobby_command(interaction, LobbyAction.START)

    async def add_ai(self, interaction: Interaction, level: str) -> None:
        if level in AI_LEVELS:
            await self._lobby_command(interaction, LobbyAction.add_ai(level))
            return

        async def refuse() -> None:  # the command offers the levels: nothing else is taken
            raise BadOptionError("level", level)

        await guarded(interaction, "seating an AI", refuse)

    async def remove_ai(self, interaction: Interaction) -> None:
        await self._lobby_command(interaction, LobbyAction.REMOVE_AI)

    async def rejoin(self, interaction: Interaction) -> None:
        """Take one's seat back from the AI (after three timeouts in a row)."""
        user = mention(interaction.user.id)
        await self._change_open_game(
            interaction,
            "rejoining",
            self._play.rejoin,
            lambda view: text("rejoin.done", view.game.locale, user=user, game_id=view.id),
        )

    async def board(self, interaction: Interaction) -> None:
        async def work() -> None:
            interactions.guild_id(interaction)
            view = await self._play.look(
                await self._service.open_game_id(interactions.channel_id(interaction))
            )
            language = interactions.user_language(interaction)
            if view.state is None:
                post = presenter.lobby_post(view, language=language)
                await interaction.response.send_message(embed=post.embed, ephemeral=True)
                return
            post = presenter.board_post(view, language)
            await self._display.send_response(interaction, post, ephemeral=True)

        await guarded(interaction, "showing the board", work)

    async def rules(self, interaction: Interaction) -> None:
        async def work() -> None:
            post = presenter.rules_post(interactions.user_language(interaction))
            await interaction.response.send_message(embed=post.embed, ephemeral=True)

        await guarded(interaction, "showing the rules", work)

    async def resign(self, interaction: Interaction) -> None:
        user = mention(interaction.user.id)
        await self._change_open_game(
            interaction,
            "resigning",
            self._play.resign,
            lambda view: text("event.resigned", view.game.locale, user=user),
        )

    async def _change_open_game(
        self,
        interaction: Interaction,
        doing: str,
        change: Callable[[int, int], Awaitable[GameView]],
        announcement: Callable[[GameView], str],
    ) -> None:
        """Apply `change` (game id, user id) to the channel's open game for the user, say so in
        the channel with the changed game's `announcement`, then bring its messages up to date."""

        async def work() -> None:
            interactions.guild_id(interaction)
            require_game_permissions(interaction)
            game_id = await self._service.open_game_id(interactions.channel_id(interaction))
            before = await self._play.look(game_id)
            view = await change(game_id, interaction.user.id)
            await interaction.response.send_message(
                announcement(view), allowed_mentions=discord.AllowedMentions.none()
            )
            await self._display.after_change_elsewhere(before, view)

        await guarded(interaction, doing, work)

    async def abort(self, interaction: Interaction, *, moderator: bool) -> None:
        async def work() -> None:
            interactions.guild_id(interaction)
            if moderator and not interaction.permissions.manage_channels:
                raise ModeratorsOnlyError()
            game_id = await self._service.open_game_id(interactions.channel_id(interaction))
            view = await self._play.abort(game_id, interaction.user.id, moderator=moderator)
            post = presenter.aborted_post(view)
            await interaction.response.send_message(
                embed=post.embed, allowed_mentions=discord.AllowedMentions.none()
            )
            await self._display.strip_buttons(view)

        await guarded(interaction, "aborting a game", work)

    async def on_button(
        self, interaction: Interaction, game_id: int, seq: int, action: str
    ) -> None:
        """A click on a game button (custom_id `mk:<game>:<seq>:<action>`)."""

        async def work() -> None:
            interactions.guild_id(interaction)
            require_game_permissions(interaction)
            if (await self._play.look(game_id)).game.channel_id != interaction.channel_id:
                # Discord only sends ids that are on the clicked message, but a game's button
                # acts in its own channel only, whatever a forged payload says.
                raise GameNotFoundError(game_id)
            lobby = lobby_action(action)
            if lobby is not None:
                await self._lobby_click(interaction, game_id, lobby)
                return
            try:
                view = await self._play.act(game_id, interaction.user.id, seq, action)
            except StaleBoardError:
                if not await self._display.refresh_if_behind(
                    interaction, game_id, another_click_pending=self._in_flight[game_id] > 1
                ):
                    raise
                return
            crashpoints.reach("click.committed")
            try:
                await self._display.show_after_click(interaction, view)
            except discord.NotFound as error:
                # The interaction expired before the answer (a bot too busy to answer within
                # Discord's 3 s): the move is stored, so show the game anew in the channel.
                log.warning("game %s: the click's answer came too late (%s)", view.id, error)
                self._display.retry_display(view.id)

        self._in_flight[game_id] += 1
        try:
            await guarded(interaction, f"handling button {action} of game {game_id}", work)
        finally:
            self._in_flight[game_id] -= 1
            if not self._in_flight[game_id]:
                del self._in_flight[game_id]

    async def command_failed(
        self, interaction: Interaction, error: discord.app_commands.AppCommandError
    ) -> None:
        """A slash command discord.py could not run: unknown (a stale or forged command), or
        an option it could not convert. Handlers answer their own errors, so only those get here;
        each still gets an answer."""
        language = interactions.user_language(interaction)
        if isinstance(
            error,
            discord.app_commands.CommandNotFound
            | discord.app_commands.TransformerError
            | discord.app_commands.CommandSignatureMismatch,
        ):
            message = text("error.bad_command", language)
        else:
            message = describe(error, language) or report(error, "running a command", language)
        await tell(interaction, message)

    async def unknown_button(self, interaction: Interaction) -> None:
        """A click on a button that is not (or no longer) one of ours."""
        await tell(
            interaction, text("error.unknown_button", interactions.user_language(interaction))
        )

    async def _lobby_command(self, interaction: Interaction, action: LobbyAction) -> None:
        async def work() -> None:
            interactions.guild_id(interaction)
            require_game_permissions(interaction)
            game_id = await self._service.open_game_id(interactions.channel_id(interaction))
            lobby_message = (await self._play.look(game_id)).game.board_message_id
            view = await self._lobby_change(game_id, interaction.user.id, action)
            key = {
                LobbyAction.START: "lobby.game_started",
                LobbyAction.JOIN: "lobby.you_joined",
                LobbyAction.LEAVE: "lobby.you_left",
                LobbyAction.REMOVE_AI: "lobby.ai_removed",
            }.get(action, "lobby.ai_added")
            language = interactions.user_language(interaction)
            level = text(f"ai.level.{action.ai_level or 'easy'}", language)
            await interaction.response.send_message(
                text(key, language, game_id=game_id, level=level), ephemeral=True
            )
            await self._display.edit_lobby(view, lobby_message)
            if action is LobbyAction.START:
                await self._display.post_current(view)

        await guarded(interaction, f"lobby command {action}", work)

    async def _lobby_change(self, game_id: int, user: int, action: LobbyAction) -> GameView:
        view = await self._lobby.apply(game_id, user, action)
        if action is LobbyAction.START:
            crashpoints.reach("lobby.started")
        return view

    async def _lobby_click(
        self, interaction: Interaction, game_id: int, action: LobbyAction
    ) -> None:
        user = interaction.user.id
        view = await self._lobby_change(game_id, user, action)
        post = presenter.lobby_post(view, closed_by=user)
        await interaction.response.edit_message(embed=post.embed, view=lobby_buttons(view))
        if view.status is GameStatus.LOBBY and interaction.message is not None:
            await self._play.set_board_message(view.id, interaction.message.id, view.seq)
        if action is LobbyAction.START:
            await self._display.post_current(view)
