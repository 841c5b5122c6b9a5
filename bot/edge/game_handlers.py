"""GameHandlers: the /marrakech game commands and the game buttons, as thin handlers.

Each handler authorises and parses at the edge (a lobby button's action into a LobbyAction),
calls the game services (lobby and play), answers the interaction, and leaves putting the game's
messages right to GameDisplay. Expected errors become short private answers (bot.edge.answers).

Resigning and ending a game never happen on a slip: the command only asks, privately, with a
button that goes ahead and one that keeps playing (`mk:confirm:...` ids, bot.edge.buttons); the
click checks again, since the game may have moved on meanwhile. The rules guide has its own
handler (bot.edge.guide).

A finished game's Rematch button (bot.edge.layout) opens a new lobby in its channel with its
settings and AI seats, posted as `/marrakech new` posts one, pinging the other players to join.
Its Analysis button shows the game's analysis to the presser alone (bot.edge.analysis).

Languages: private (ephemeral) answers speak the acting user's Discord locale; public messages
speak the game's language, taken from the server's locale when the game opened and stored with
it, so later edits and posts (after restarts too) stay in the same language.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

import discord

import engine
from bot import crashpoints
from bot.edge import interactions, replies
from bot.edge.answers import bounded, guarded, or_missing, tell
from bot.edge.buttons import Confirmation, ConfirmButton, GuideStep
from bot.edge.display import GameDisplay
from bot.edge.errors import ModeratorsOnlyError, describe, report
from bot.edge.incidents import failure_level, why
from bot.edge.inflight import HANDLERS
from bot.edge.interactions import Interaction
from bot.edge.layout import HINT, REMATCH, lobby_action, lobby_buttons
from bot.edge.permissions import require_game_permissions
from bot.presentation import coach, presenter
from bot.presentation.images import as_file
from bot.presentation.links import mention
from bot.presentation.messages import text
from bot.services.actions import AI_LEVELS, ROLL, LobbyAction
from bot.services.availability import DatabaseUnavailableError
from bot.services.errors import (
    BadOptionError,
    GameDamagedError,
    GameNotFoundError,
    GameNotRunningError,
    NoGameHereError,
    StaleBoardError,
)
from bot.services.views import GameStatus, GameView
from engine import Phase

if TYPE_CHECKING:
    from bot.edge.analysis import AnalysisHandler
    from bot.edge.guide import RulesGuide
    from bot.services.games import GameService
    from bot.services.guilds import GuildService

log = logging.getLogger(__name__)
T = TypeVar("T")
HINT_IMAGE = "hint.png"
"""The file name of a hint's picture."""
LOBBY_DRAWS = 3
"""The most times one lobby click draws the lobby, its seats having changed meanwhile."""

CONFIRMATION_KEYS = {
    Confirmation.RESIGN: "confirm.resign",
    Confirmation.ABORT: "confirm.abort",
    Confirmation.MOD_ABORT: "confirm.abort",
}
"""The catalogue keys (`<key>.question`, `.button`, `.done`) of what a confirmation asks; an
abort of a game still in its lobby is a cancellation, asked and told as one (`.question_lobby`,
`.done_lobby`)."""


class GameHandlers:
    """Handles /marrakech game commands and game buttons for one client."""

    def __init__(
        self,
        service: GameService,
        guilds: GuildService,
        display: GameDisplay,
        guide: RulesGuide,
        analysis: AnalysisHandler,
        coached: coach.Coach | None = None,
    ) -> None:
        """`coached`: the coach's searches for a coached game's Hint (None: Hint answers that
        the coach is away)."""
        self._service = service
        self._lobby = service.lobby
        self._play = service.play
        self._guilds = guilds
        self._display = display
        self._guide = guide
        self._analysis = analysis
        self._in_flight: Counter[int] = Counter()
        """Clicks being handled per game: while one is, its answer will show the game."""
        self._coach = coached
        self._hints = service.hints
        """The hints each person has used in a game, stored with their seat."""
        self._hinted: dict[int, tuple[tuple[int, int], coach.Options]] = {}
        """The options of each game's latest hint, with the board it was asked on
        (`coach.board_of`): the verdict on the decision made on that board reuses them (no
        second search)."""
        self._verdicts: set[asyncio.Task[None]] = set()
        """Verdicts being computed (kept referenced until done)."""
        service.on_game_closed(self._forget_coaching)

    async def new(
        self,
        interaction: Interaction,
        *,
        seats: int,
        variant: str | None,
        turn_limit_seconds: int | None,
        casual: bool = False,
        coach: bool = False,
    ) -> None:
        """Open a lobby; a variant or turn limit left out (None) is the server's default. A
        `casual` game counts in no rating; a `coach` game is casual, with hints and verdicts."""

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
                host_name=interaction.user.display_name,
                casual=casual,
                coach=coach,
            )
            await self._post_lobby(interaction, view)

        await guarded(interaction, "opening a lobby", work, public=True)

    async def _post_lobby(
        self,
        interaction: Interaction,
        view: GameView,
        content: str | None = None,
        mentions: discord.AllowedMentions = discord.utils.MISSING,
    ) -> None:
        """Answer the interaction with a new lobby's message and its buttons (under `content`,
        which pings only whom `mentions` allows), and record it as the game's message."""
        crashpoints.reach("lobby.created")
        post = presenter.lobby_post(view, notes=await self._display.lobby_notes(view))
        sending = replies.send(
            interaction,
            content=content,
            embed=post.embed,
            view=or_missing(lobby_buttons(view)),
            allowed_mentions=mentions,
        )
        sent = await self._shown(view.id, sending)  # stored: posted anew if Discord refuses
        message_id = sent.message_id
        if message_id is None:
            message_id = (await interaction.original_response()).id
        if sent.original:
            self._display.opened(view.id, interaction, message_id)
        else:  # a follow-up of a click acknowledged late: the token edits the clicked message
            self._display.opened(view.id, interaction)
        await self._play.set_board_message(view.id, message_id, view.seq, lobby=True)

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
        await self._change_open_game(interaction, "rejoining", self._play.rejoin, None)

    async def board(self, interaction: Interaction) -> None:
        """The channel's game, privately. A running game whose turn message is gone (deleted
        by a moderator) has its turn posted again, and the answer says so: without it no
        button would be left to play the game. Asking Discord for that message needs Read
        Message History."""

        async def work() -> None:
            interactions.guild_id(interaction)
            view = await self._play.look(
                await self._service.game_to_show(interactions.channel_id(interaction))
            )
            language = interactions.user_language(interaction)
            if view.state is None:
                post = presenter.lobby_post(view, language=language)
                await replies.send(interaction, embed=post.embed, ephemeral=True)
                return
            note = None
            if interaction.app_permissions.read_message_history and (
                await self._display.post_if_gone(view)
            ):
                note = text("board.posted_again", language)
            post = presenter.board_post(view, language)
            await self._display.send_response(interaction, post, ephemeral=True, note=note)

        await guarded(interaction, "showing the board", work)

    async def hint(self, interaction: Interaction) -> None:
        """`/marrakech hint`: the Hint of the channel's game, as its button gives it (and the
        clear refusal in a rated game, a tournament's included, whose turns carry no Hint)."""

        async def work() -> None:
            interactions.guild_id(interaction)
            require_game_permissions(interaction)
            game_id = await self._service.game_to_show(interactions.channel_id(interaction))
            await self._hint(interaction, game_id)

        await guarded(interaction, "giving a hint", work)

    async def rules(self, interaction: Interaction) -> None:
        await self._guide.show(interaction)

    async def on_guide(self, interaction: Interaction, page: int, step: GuideStep) -> None:
        """A click on Previous or Next in the rules guide (custom_id `mk:guide:<page>:<step>`)."""
        await self._guide.turn(interaction, page, step)

    async def on_analysis(self, interaction: Interaction, game_id: int) -> None:
        """A click on Analysis under a finished game (custom_id `mk:analysis:<game>`)."""
        await self._analysis.show(interaction, game_id)

    async def resign(self, interaction: Interaction) -> None:
        """Ask the user, privately, to confirm leaving the channel's running game."""

        async def work() -> None:
            interactions.guild_id(interaction)
            require_game_permissions(interaction)
            game_id = await self._service.open_game_id(interactions.channel_id(interaction))
            await self._play.check_resign(game_id, interaction.user.id)
            await self._ask(interaction, game_id, Confirmation.RESIGN)

        await guarded(interaction, "resigning", work)

    async def _change_open_game(
        self,
        interaction: Interaction,
        doing: str,
        change: Callable[[int, int], Awaitable[GameView]],
        announcement: Callable[[GameView], str] | None,
    ) -> None:
        """Apply `change` (game id, user id) to the channel's open game for the user, say so in
        the channel with the changed game's `announcement` (None: a seat taken back, which the
        display tells once), then bring its messages up to date."""

        async def work() -> None:
            interactions.guild_id(interaction)
            require_game_permissions(interaction)
            game_id = await self._service.open_game_id(interactions.channel_id(interaction))
            before = await self._play.look(game_id)
            view = await change(game_id, interaction.user.id)
            if announcement is None:
                await self._display.show_rejoins(view, interaction)
            else:
                await replies.send(
                    interaction,
                    content=announcement(view),
                    allowed_mentions=discord.AllowedMentions.none(),
                )
            self._display.opened(game_id, interaction)
            await self._shown(game_id, self._display.after_change_elsewhere(before, view))

        await guarded(interaction, doing, work, public=True)

    async def abort(self, interaction: Interaction, *, moderator: bool) -> None:
        """Ask the host (or a moderator), privately, to confirm ending the channel's game."""

        async def work() -> None:
            interactions.guild_id(interaction)
            if moderator and not interaction.permissions.manage_channels:
                raise ModeratorsOnlyError()
            game_id = await self._service.open_game_id(interactions.channel_id(interaction))
            await self._play.check_abort(game_id, interaction.user.id, moderator=moderator)
            choice = Confirmation.MOD_ABORT if moderator else Confirmation.ABORT
            lobby = await self._status(game_id) is GameStatus.LOBBY
            await self._ask(interaction, game_id, choice, lobby=lobby)

        await guarded(interaction, "aborting a game", work)

    async def _status(self, game_id: int) -> GameStatus:
        """The game's status now (a damaged game, which cannot be loaded but can be ended, is
        still running)."""
        try:
            return (await self._play.look(game_id)).status
        except GameDamagedError:
            return GameStatus.RUNNING

    async def _ask(
        self, interaction: Interaction, game_id: int, choice: Confirmation, *, lobby: bool = False
    ) -> None:
        """The private question before `choice`: go ahead (danger) or keep playing; of a game
        still in its `lobby`, whether to cancel it."""
        language = interactions.user_language(interaction)
        key = CONFIRMATION_KEYS[choice]
        question = f"{key}.question_lobby" if lobby else f"{key}.question"
        buttons = discord.ui.View(timeout=None)
        danger = discord.ButtonStyle.danger
        buttons.add_item(
            ConfirmButton(game_id, choice, label=text(f"{key}.button", language), style=danger)
        )
        keep = text("confirm.keep.button", language)
        buttons.add_item(ConfirmButton(game_id, Confirmation.KEEP, label=keep))
        await replies.send(
            interaction,
            content=text(question, language, game_id=game_id),
            view=buttons,
            ephemeral=True,
        )

    async def on_confirm(
        self, interaction: Interaction, game_id: int, choice: Confirmation
    ) -> None:
        """A click on a confirmation (custom_id `mk:confirm:<game>:<choice>`): keep playing, or
        do what the command asked for if it still may be done, and say so on the confirmation.
        A confirmation that outlived its game (over, or the user no longer in it) gets the
        usual refusal in its place, Keep playing too: it never says an ended game goes on."""

        async def work() -> None:
            language = interactions.user_language(interaction)
            if choice is Confirmation.KEEP:  # true only of a game still open
                open_now = await self._status(game_id) in (GameStatus.LOBBY, GameStatus.RUNNING)
                kept = text("confirm.keep.done", language, game_id=game_id)
                refused = text("error.game_not_running", language)
                await replies.edit(interaction, content=kept if open_now else refused, view=None)
                return
            try:
                await self._confirmed(interaction, game_id, choice, language)
            except Exception as error:
                refusal = describe(error, language)
                if refusal is None or replies.answered(interaction):
                    raise
                await replies.edit(interaction, content=refusal, view=None)

        await guarded(interaction, f"confirming {choice} of game {game_id}", work)

    async def _confirmed(
        self, interaction: Interaction, game_id: int, choice: Confirmation, language: str
    ) -> None:
        """Resign or end the game as confirmed: the confirmation says it is done, then the
        game's messages are brought up to date, which tells the channel (in the game's
        language) of a resignation; an abort is also announced."""
        interactions.guild_id(interaction)
        if choice is Confirmation.MOD_ABORT and not interaction.permissions.manage_channels:
            raise ModeratorsOnlyError()
        if choice is Confirmation.RESIGN:
            require_game_permissions(interaction)
        try:
            open_game = await self._service.open_game_id(interactions.channel_id(interaction))
        except NoGameHereError:
            raise GameNotRunningError() from None
        if open_game != game_id:  # the game it was asked about is over
            raise GameNotRunningError()
        user = interaction.user.id
        done = text(f"{CONFIRMATION_KEYS[choice]}.done", language, game_id=game_id)
        if choice is Confirmation.RESIGN:
            before = await self._play.look(game_id)
            view = await self._play.resign(game_id, user)
            await self._shown(game_id, replies.edit(interaction, content=done, view=None))
            # the channel is told by the turn's own message (bot.edge.display), which a
            # catch-up after a crash derives again: a post here could be cut off, or doubled
            self._display.opened(game_id, interaction)
            await self._shown(game_id, self._display.after_change_elsewhere(before, view))
            return
        view = await self._play.abort(game_id, user, moderator=choice is Confirmation.MOD_ABORT)
        crashpoints.reach("end.committed")
        if not view.started:  # a lobby: cancelled
            done = text(f"{CONFIRMATION_KEYS[choice]}.done_lobby", language, game_id=game_id)
        await self._shown(game_id, replies.edit(interaction, content=done, view=None))
        # the end is told by the display, from what is stored, which a catch-up after a crash
        # derives again: a post here could be cut off
        self._display.opened(game_id, interaction)
        await self._display.show_end(view, interaction)

    async def on_button(
        self, interaction: Interaction, game_id: int, seq: int, action: str
    ) -> None:
        """A click on a game button (custom_id `mk:<game>:<seq>:<action>`)."""

        async def work() -> None:
            interactions.guild_id(interaction)
            require_game_permissions(interaction)
            if await self._play.channel_of(game_id) != interaction.channel_id:
                # Discord only sends ids that are on the clicked message, but a game's button
                # acts in its own channel only, whatever a forged payload says.
                raise GameNotFoundError(game_id)
            if action == REMATCH:
                await self._rematch(interaction, game_id)
                return
            if action == HINT:
                await self._hint(interaction, game_id)
                return
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
                    await self._display.retire_left_behind(interaction, game_id, seq)
                    raise
                return
            except GameNotRunningError:
                await self._display.retire_left_behind(interaction, game_id, seq)
                raise
            crashpoints.reach("click.committed")
            await self._show_move(interaction, view)
            if view.game.coach and action != ROLL and self._coach is not None:
                self._verdict_later(interaction, view)

        self._in_flight[game_id] += 1
        try:
            await guarded(interaction, f"handling button {action} of game {game_id}", work)
        finally:
            self._in_flight[game_id] -= 1
            if not self._in_flight[game_id]:
                del self._in_flight[game_id]

    async def _hint(self, interaction: Interaction, game_id: int) -> None:
        """A coached game's Hint: refused in a rated game or a tournament, off the presser's
        turn, while the AI plays their seat and once their hints are used up; else one of
        their hints is taken (stored, by one guarded update), the click answered at once
        (deferred, privately) and the coach's option edited in when a worker has found it. A
        hint not shown is given back."""
        view = await self._play.look(game_id)
        language = interactions.user_language(interaction)
        state = view.state
        if not view.game.coach:
            await tell(interaction, text("coach.refused.not_coached", language))
            return
        user = interaction.user.id
        mover = None if state is None else state.to_move
        if mover is None or view.user_at(mover) != user:
            await tell(interaction, text("coach.refused.not_your_turn", language))
            return
        seated = view.player_at(mover)
        if seated is not None and seated.autoplay:  # the AI decides: pointed to rejoin, as a move
            await tell(interaction, text("error.handed_to_ai", language))
            return
        if state is not None and state.phase is Phase.ROLL:  # no choice yet: the die first
            await tell(interaction, text("coach.refused.roll_first", language))
            return
        if self._coach is None:
            await tell(interaction, text("coach.refused.away", language))
            return
        assert state is not None
        left = await self._hints.take(game_id, user)
        if left is None:
            await tell(
                interaction, text("coach.refused.none_left", language, count=self._hints.allowance)
            )
            return
        try:
            await replies.defer(interaction, ephemeral=True, thinking=True)
            options = await self._coach.options(engine.record_of(state))
            png = await self._coach.hint_png(state, options[0].action, language, view.players)
            await replies.send(
                interaction,
                content=coach.hint_line(state, options[0], left, language),
                files=[as_file(png, HINT_IMAGE)],
                ephemeral=True,
            )
        except Exception:
            await self._hints.give_back(game_id, user)  # not shown: the hint stays the person's
            raise
        self._hinted[game_id] = (coach.board_of(state), options)

    def _forget_coaching(self, game_id: int) -> None:
        """A closed game's hint options are of no more use."""
        self._hinted.pop(game_id, None)

    def _verdict_later(self, interaction: Interaction, view: GameView) -> None:
        """Judge the presser's decision that `view` follows in a worker and tell them the
        verdict as a private follow-up of their click, when it is ready: the public turn goes
        on without waiting for it. A clean stop waits for it as for a handler."""
        task = asyncio.create_task(self._verdict(interaction, view))
        HANDLERS.follow(task)
        self._verdicts.add(task)
        task.add_done_callback(self._verdicts.discard)

    async def _verdict(self, interaction: Interaction, view: GameView) -> None:
        assert view.state is not None
        assert self._coach is not None
        record = engine.record_of(view.state)
        index = coach.last_decision(record)
        hinted = self._hinted.pop(view.id, None)
        board = coach.board_of(view.state, index)
        options = hinted[1] if hinted is not None and hinted[0] == board else None
        language = interactions.user_language(interaction)
        try:
            judgement, facings = await self._coach.verdict(record, index, options)
            await bounded(
                interaction.followup.send(
                    coach.verdict_line(judgement, facings, language, view.state.players),
                    ephemeral=True,
                )
            )
        except Exception as error:  # a verdict is a courtesy: the move stands without it
            log.log(
                failure_level(error),
                "game %s: no verdict on action %s (%s)",
                view.id,
                index,
                why(error),
            )

    async def _show_move(self, interaction: Interaction, view: GameView) -> None:
        """Show a move that is stored already. Whatever fails on the way (Discord, or the
        database gone meanwhile), the game is shown again in the background (as soon as the
        database is back), and the player is told the truth: the move counts. Only a refusal
        that names its cause (missing permissions) is answered as such."""
        try:
            await self._display.show_after_click(interaction, view)
        except discord.NotFound as error:
            # The interaction expired before the answer (a bot too busy to answer within
            # Discord's 3 s): the move is stored, so show the game anew in the channel.
            log.warning("game %s: the click's answer came too late (%s)", view.id, error)
            self._display.retry_display(view.id)
        except Exception as error:
            language = interactions.user_language(interaction)
            if isinstance(error, DatabaseUnavailableError):
                message = text("error.move_saved", language)
            elif describe(error, language) is not None:
                raise
            else:
                doing = f"showing game {view.id} after a move"
                message = report(error, doing, language, "error.move_saved_code")
            self._display.retry_display(view.id)
            await tell(interaction, message)

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
            view = await self._lobby_change(game_id, interaction, action)
            key = {
                LobbyAction.START: "lobby.game_started",
                LobbyAction.JOIN: "lobby.you_joined",
                LobbyAction.LEAVE: "lobby.you_left",
                LobbyAction.REMOVE_AI: "lobby.ai_removed",
            }.get(action, "lobby.ai_added")
            language = interactions.user_language(interaction)
            level = text(f"ai.level.{action.ai_level or 'easy'}", language)
            said = text(key, language, game_id=game_id, level=level)
            await self._shown(game_id, replies.send(interaction, content=said, ephemeral=True))
            self._display.opened(game_id, interaction)
            await self._shown(game_id, self._show_lobby_change(view, lobby_message, action))

        await guarded(interaction, f"lobby command {action}", work)

    async def _show_lobby_change(
        self, view: GameView, lobby_message: int | None, action: LobbyAction
    ) -> None:
        await self._display.edit_lobby(view, lobby_message)
        if action is LobbyAction.START:
            await self._display.post_first_turn(view)

    async def _shown(self, game_id: int, showing: Awaitable[T]) -> T:
        """Show (or answer) a change that is stored already; if that fails (Discord, a click
        whose answer came too late, or the database gone meanwhile), the game is shown again
        in the background, as soon as the database is back, before the error is answered."""
        try:
            return await showing
        except Exception:
            self._display.retry_display(game_id)
            raise

    async def _lobby_change(
        self, game_id: int, interaction: Interaction, action: LobbyAction
    ) -> GameView:
        """Apply the user's lobby `action`; a player who joins is shown by their display name
        (server nickname, else global name, else username: discord.py's `display_name`)."""
        user = interaction.user
        view = await self._lobby.apply(game_id, user.id, action, name=user.display_name)
        if action is LobbyAction.START:
            crashpoints.reach("lobby.started")
        return view

    async def _rematch(self, interaction: Interaction, game_id: int) -> None:
        """A click on Rematch under a finished game: a new lobby in its channel with its
        settings and AI seats, the presser (one of its players) as host, posted as
        `/marrakech new` posts one and pinging the game's other players, and only them, to
        join. The final message is left as it is; while the channel has an open game (the
        rematch opened by an earlier click, say) the click is refused."""
        channel_id = interactions.channel_id(interaction)
        await self._guilds.options_for_new(  # games may still be played in this channel
            interactions.guild_id(interaction),
            channel_id,
            getattr(interaction.channel, "parent_id", None),
            variant=None,
            turn_limit_seconds=None,
        )
        user = interaction.user
        view, others = await self._lobby.rematch(game_id, user.id, user.display_name)
        language = view.game.locale
        host = mention(user.id)
        if others:
            players = ", ".join(mention(other) for other in others)
            content = text("rematch.invite", language, host=host, game_id=game_id, players=players)
        else:
            content = text("rematch.opened", language, host=host, game_id=game_id)
        mentions = discord.AllowedMentions(
            everyone=False,
            roles=False,
            replied_user=False,
            users=[discord.Object(other) for other in others],
        )
        await self._post_lobby(interaction, view, content, mentions)

    async def _lobby_click(
        self, interaction: Interaction, game_id: int, action: LobbyAction
    ) -> None:
        user = interaction.user.id
        view = await self._lobby_change(game_id, interaction, action)
        view = await self._shown(game_id, self._draw_lobby_click(interaction, view, user))
        self._display.opened(game_id, interaction)
        await self._shown(game_id, self._show_lobby_click(interaction, view, action))

    async def _draw_lobby_click(
        self, interaction: Interaction, view: GameView, user: int
    ) -> GameView:
        """Edit the clicked lobby into `view`; what it drew. Presses at once (two joins) are
        drawn in no set order, so a lobby whose seats changed while it was drawn is drawn
        again as it is now: the draw that lands last never shows an older list of players
        before the lobby is recorded as shown."""
        for _ in range(LOBBY_DRAWS):
            notes = await self._display.lobby_notes(view)
            post = presenter.lobby_post(view, closed_by=user, notes=notes)
            await replies.edit(interaction, embed=post.embed, view=lobby_buttons(view))
            if view.status is not GameStatus.LOBBY:
                break
            now = await self._play.look(view.id)
            if now.status is not GameStatus.LOBBY or now.players == view.players:
                break
            view = now
        return view

    async def _show_lobby_click(
        self, interaction: Interaction, view: GameView, action: LobbyAction
    ) -> None:
        if view.status is GameStatus.LOBBY and interaction.message is not None:
            await self._play.set_board_message(
                view.id, interaction.message.id, view.seq, lobby=True
            )
        if action is LobbyAction.START:
            await self._display.post_first_turn(view)
