"""Tournaments on Discord: the moderator's commands and the sign-up's buttons (thin, like the
game handlers), and `TournamentDisplay`, which makes each table's thread, starts its game
there, and keeps the tournament's message (the sign-up, then the standings) up to date.

A tournament lives in one text channel. Its message there is the sign-up (Join, Leave, Start,
Cancel) until a moderator starts it, then the standings: the round being played, a line per
table with a link to its thread, and the picture of the table. Each table is a public thread
of that channel (`create_thread` with type public_thread: without it discord.py asks for a
private one), where a welcome pings its players and the game is played like any other.

Everything here can stop half-way (a crash, a refused request) and be taken up again: the
service says which tables are still to set up and claims them for this process; a thread made
but never recorded is found again by its name among the server's active threads, as Discord
lists them (whichever process made it); the message is redrawn from what is stored until it
shows the latest. On start, every running tournament is caught up once the gateway is ready
and the killed run's window on a channel (5 requests of a kind in 5 s) is over.

With several processes, the tournament's message is drawn by the one holding its server's
shard (as a game's due work is, bot.services.turn_clock): a channel's edit limit counts every
process while each knows only its own use of it. Another process leaves it OWNER_GRACE_SECONDS,
then draws only what the message does not show yet (its owner is down, or far behind).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

import discord

from bot.edge import interactions, replies
from bot.edge.answers import DISCORD_TIMEOUT_SECONDS, bounded, guarded
from bot.edge.buttons import TournamentAction, TournamentButton, WithdrawButton
from bot.edge.display import GameDisplay
from bot.edge.errors import ModeratorsOnlyError, NotATextChannelError
from bot.edge.incidents import DISCORD_FAILURES, failure_level, why
from bot.edge.interactions import Interaction
from bot.edge.permissions import MissingPermissionsError, to_grant
from bot.presentation import images, presenter
from bot.presentation import tournaments as shown
from bot.presentation.links import mention
from bot.presentation.messages import text
from bot.services.availability import Availability, DatabaseUnavailableError
from bot.services.errors import GameError, NoTournamentHereError, WithdrawError
from bot.services.guilds import GuildService
from bot.services.locks import KeyedLocks
from bot.services.tournament_views import (
    Progress,
    TableView,
    TournamentStatus,
    TournamentView,
    Withdrawal,
)
from bot.services.turn_clock import SHARD_GRACE
from bot.services.views import GameStatus, GameView
from bot.supervisor import cancel_and_wait

if TYPE_CHECKING:
    from discord.types.threads import Thread as ThreadPayload

    from bot.services.tournaments import TournamentService

log = logging.getLogger(__name__)

_TABLE_NOT_SET_UP: tuple[type[Exception], ...] = (
    *DISCORD_FAILURES,
    GameError,
    MissingPermissionsError,
)
"""How a table's set-up fails: Discord failing, the game refusing, or the channel refusing
the bot (each one line; the table is set up at a later pass)."""
TOURNAMENT_PERMISSIONS = (
    "view_channel",
    "send_messages",
    "embed_links",
    "attach_files",
    "create_public_threads",
    "send_messages_in_threads",
)
"""What the bot needs in a tournament's channel: post there, and play in threads of it."""
ARCHIVE_MINUTES: Final = 10080
"""A table's thread is archived after a week without a message (the longest turn limit)."""
RETRY_DELAYS_SECONDS = (1.0, 5.0, 30.0, 120.0, 600.0)
"""Pauses before each new try to set up tables Discord refused or failed."""
NOTICE_LOOKAHEAD = 5
"""How many of the channel's messages a new thread are looked through for Discord's "started a
thread" notice (it comes right after the thread)."""
HISTORY_PAGE = 100
"""The most messages one read of a channel's history gives (Discord's limit)."""
PICTURE_PATIENCE_SECONDS = 0.5
"""How long a click on Start waits for the standings' picture before deferring its answer."""
OWNER_GRACE_SECONDS = SHARD_GRACE.total_seconds()
"""How long a process that does not hold a tournament's server leaves its message to the one
that does before drawing it itself (that one is down, or far behind)."""
ENDED_CATCH_UP = timedelta(days=1)
"""How far back a start looks for an ended tournament whose message may not show its end."""
END_SHOWN_PATIENCE_SECONDS: Final = 2 * DISCORD_TIMEOUT_SECONDS
"""How long the winner's announcement waits for the last game's result to be posted in its
thread (its picture drawn, then Discord's answer), so the channel reads in order; a result
Discord does not take by then is posted by the game's retries, after the announcement."""
SIGNUP_BUTTONS = (
    (TournamentAction.JOIN, "button.join", discord.ButtonStyle.success),
    (TournamentAction.LEAVE, "button.leave", discord.ButtonStyle.secondary),
    (TournamentAction.START, "button.start", discord.ButtonStyle.primary),
    (TournamentAction.CANCEL, "button.cancel", discord.ButtonStyle.danger),
)


def signup_buttons(view: TournamentView) -> discord.ui.View | None:
    """Join, Leave, Start and Cancel, while the tournament signs up."""
    if view.status is not TournamentStatus.SIGNUP:
        return None
    buttons = discord.ui.View(timeout=None)
    for action, key, style in SIGNUP_BUTTONS:
        label = text(key, view.locale)
        buttons.add_item(TournamentButton(view.id, action, label=label, style=style))
    return buttons


def standings_buttons(view: TournamentView) -> discord.ui.View | None:
    """Withdraw, while the tournament runs (asked first, privately)."""
    if view.status is not TournamentStatus.RUNNING:
        return None
    buttons = discord.ui.View(timeout=None)
    label = text("button.withdraw", view.locale)
    buttons.add_item(
        TournamentButton(
            view.id, TournamentAction.WITHDRAW, label=label, style=discord.ButtonStyle.secondary
        )
    )
    return buttons


def missing_for_tournament(permissions: discord.Permissions) -> tuple[str, ...]:
    """The permissions (flag names) a tournament's channel needs that `permissions` lacks, as
    they are to be granted (bot.edge.permissions.to_grant)."""
    missing = [name for name in TOURNAMENT_PERMISSIONS if not getattr(permissions, name)]
    return to_grant(missing, sending="send_messages")


def _snowflake(value: object) -> int | None:
    """An id as Discord's JSON gives it (a string), or None."""
    return int(value) if isinstance(value, (str, int)) else None


def _embed_text(embed: discord.Embed) -> tuple[object, ...]:
    """What an embed says, as Discord gives it back (its picture's address aside)."""
    fields = tuple((field.name, field.value, field.inline) for field in embed.fields)
    return embed.title, embed.description, fields, embed.footer.text


def _is_moderator(interaction: Interaction) -> bool:
    return bool(interaction.permissions.manage_channels)


class TournamentDisplay:
    """Shows tournaments for one client and sets their tables up (see the module)."""

    def __init__(
        self,
        client: discord.Client,
        service: TournamentService,
        games: GameDisplay,
        pictures: images.Pictures,
        availability: Availability | None = None,
        *,
        last_run_over: Callable[[datetime], Awaitable[None]] | None = None,
    ) -> None:
        """`availability` is the database's: a tournament whose moving on after a game an
        outage cut off moves on once the database is back (None: at the next start).
        `last_run_over(begun)` returns once Discord's window on a channel has passed since a
        restart, at once for a tournament begun since (`GameDisplay.wait_out_restart`; None: a
        display no run came before)."""
        self._client = client
        self._last_run_over = last_run_over
        self._availability = availability
        self._service = service
        self._games = games
        self._pictures = pictures
        self._tasks: set[asyncio.Task[None]] = set()
        self._wanted: set[int] = set()
        """Tournaments whose message is to be drawn again."""
        self._drawing: dict[int, asyncio.Task[None]] = {}
        self._setting_up = KeyedLocks()
        self._stopped = False
        self._ends_shown: dict[int, asyncio.Event] = {}
        """Games just ended whose result is not posted yet, each set once it is."""
        self._notices_kept: set[int] = set()
        """Channels where Discord kept a "started a thread" notice the bot tried to delete:
        said once in the log, not for each table."""

    def in_background(self, work: Coroutine[Any, Any, None], name: str) -> None:
        """Run `work` as a task of its own, kept until it ends or `stop`; a failure is logged
        (what it left undone is caught up later: by a retry, the next change, the next start)."""
        if self._stopped:
            work.close()
            return

        async def logged() -> None:
            try:
                await work
            except Exception:
                log.exception("%s failed", name)

        task = asyncio.create_task(logged(), name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def stop(self) -> None:
        """Stop the work in the background (before the database closes: work cut off in a
        transaction rolls it back); nothing new starts after. Never raises, and gives up on a
        task that outlives the stop's deadline, as the supervisor does."""
        self._stopped = True
        await cancel_and_wait([*self._tasks, *self._drawing.values()])

    # --- what moves a tournament on --------------------------------------------------------

    def game_closed(self, game_id: int) -> None:
        """A game ended (the loader says so, right after the write, before its result is
        posted): if it is a tournament's, move the tournament on in the background."""
        self._ends_shown[game_id] = asyncio.Event()
        self.in_background(self._after_game(game_id), f"tournament-game-{game_id}")

    def game_shown(self, view: GameView, message_id: int) -> None:
        """A game's message was posted (`GameDisplay.on_shown`): an end waited for is shown."""
        if view.status is not GameStatus.RUNNING and view.id in self._ends_shown:
            self._ends_shown[view.id].set()

    async def _after_game(self, game_id: int) -> None:
        """Move the game's tournament on; an outage that cuts it off is waited out, and the
        tournament moved on again (its round paired once: the store says if it is already),
        its tables still to set up set up."""
        try:
            await self._outlasting_outages(
                lambda again: self._move_on(game_id, after_outage=again),
                f"game {game_id}: its tournament moves on once the database is back",
            )
        finally:
            self._ends_shown.pop(game_id, None)

    async def _outlasting_outages(
        self, attempt: Callable[[bool], Awaitable[None]], waiting: str
    ) -> None:
        """Run `attempt` (told whether an outage cut an earlier try) until it ends without the
        database going away; each outage is waited out, with one INFO line saying what
        waits (the outage itself is logged by its watch)."""
        after_outage = False
        while True:
            try:
                await attempt(after_outage)
                return
            except DatabaseUnavailableError as error:
                if self._availability is None:
                    raise
                log.info("%s (%s)", waiting, why(error))
                after_outage = True
                await self._availability.back()

    async def _move_on(self, game_id: int, *, after_outage: bool) -> None:
        progress = await self._service.game_closed(game_id)
        if progress is None:
            return
        if progress.finished:  # the last game's result comes first in the channel's eyes
            shown = self._ends_shown[game_id].wait()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(shown, END_SHOWN_PATIENCE_SECONDS)
        await self.show_progress(progress)
        running = progress.view.status is TournamentStatus.RUNNING
        if after_outage and running and progress.paired is None:  # paired before the outage
            await self.set_up(progress.view.id)

    async def resume(self) -> None:
        """After a start: once the gateway is ready (the channels and their threads are
        known), catch up on every running tournament: a round left to pair, tables left to
        set up, a message left behind; then draw the end of those that ended lately. A
        database outage meanwhile is waited out, and the catch-up run again from the start
        (each step does only what is still undone). It works in channels the killed run may
        have just used to the full (its history read for each table's notice, its message
        redrawn), so each step waits that run's window on them out first."""
        await self._client.wait_until_ready()
        await self._outlasting_outages(
            lambda _: self._catch_up_running(),
            "the running tournaments are caught up once the database is back",
        )
        await self._outlasting_outages(
            lambda _: self._catch_up_ended(),
            "the ended tournaments are caught up once the database is back",
        )

    async def _catch_up_ended(self) -> None:
        ended = await self._service.ended_within(ENDED_CATCH_UP)
        await asyncio.gather(*(self._catch_up_end(tournament_id) for tournament_id in ended))

    async def _catch_up_running(self) -> None:
        for tournament_id in await self._service.running():
            try:
                await self.show_resignations(await self._service.resign_withdrawn(tournament_id))
                await self.show_progress(await self._service.advance(tournament_id))
                await self.set_up(tournament_id)
            except DatabaseUnavailableError:
                raise  # the whole catch-up waits for the database
            except Exception:  # logged; the others are caught up all the same
                log.exception("catching up tournament %s failed", tournament_id)

    async def _catch_up_end(self, tournament_id: int) -> None:
        try:
            await self.show_end(tournament_id)
        except DatabaseUnavailableError:
            raise  # the whole catch-up waits for the database
        except Exception as error:  # the message stays as it is; the end is announced
            log.log(
                failure_level(error, logging.INFO),
                "tournament %s: ended message not caught up (%s)",
                tournament_id,
                why(error),
            )

    async def show_end(self, tournament_id: int) -> None:
        """Draw a tournament's end on its message unless the message shows it already: the
        process that ended it may have died before it drew it. The owner of the server's shard
        looks at once (unless it is drawing the message already); another process leaves it
        to the owner for OWNER_GRACE_SECONDS first, as every redraw does, since both may be
        starting together and a channel's edit limit counts them both."""
        if tournament_id in self._drawing:
            return
        view = await self._service.look(tournament_id)
        if not self._holds(view.guild_id):
            await self._wait_for_owner()
            view = await self._service.look(tournament_id)
        await self._after_last_run(view.created_at)
        if not await self._shows(view):
            await self._edit_message(view)

    async def show_progress(self, progress: Progress) -> None:
        """Show what moving the tournament on did: a new round's tables set up, the message
        redrawn, and (once only, by whichever process ended it) the winner announced; just
        after a restart, once the last run's window on a channel is over."""
        view = progress.view
        await self._after_last_run(view.created_at)
        if progress.paired is not None:
            await self.set_up(view.id)
        self.refresh(view.id)
        if progress.finished:  # at once: a crash before it would lose it
            await self._announce(view, shown.finished_text(view), view.winners)

    async def _after_last_run(self, begun: datetime) -> None:
        """Return once a killed run's window on the channels it used is over (at once without
        a restart, once it is over, and for a tournament `begun` since the restart): what this
        display does in the tournament's channel and its threads uses the bot token, whose
        buckets there the last run may have filled."""
        if self._last_run_over is not None:
            await self._last_run_over(begun)

    async def _announce(self, view: TournamentView, content: str, pings: tuple[int, ...]) -> None:
        mentions = discord.AllowedMentions(
            everyone=False, roles=False, users=[discord.Object(user) for user in pings]
        )
        try:
            await bounded(
                self._channel(view.channel_id, view).send(content, allowed_mentions=mentions)
            )
        except DISCORD_FAILURES as error:
            log.log(
                failure_level(error),
                "tournament %s: announcement not posted (%s)",
                view.id,
                why(error),
            )

    # --- setting the tables up -------------------------------------------------------------

    async def set_up(self, tournament_id: int) -> None:
        """Make the thread and start the game of every table still to set up that this
        process could claim; tables Discord refused are tried again in the background."""
        async with self._setting_up.holding(tournament_id):
            failed = await self._set_up_claimed(tournament_id)
        self.refresh(tournament_id)
        if failed:
            self.in_background(self._retry(tournament_id), f"tournament-retry-{tournament_id}")

    async def _set_up_claimed(self, tournament_id: int) -> bool:
        """Set up the tables claimed now; True if one failed. The tables without a thread get
        theirs first, all of them (`_threads_for`), then each table is set up in turn."""
        failed = False
        held = await self._service.claim_tables(tournament_id)
        try:
            threads: dict[tuple[int, int], int] = {}
            if any(table.thread_id is None for table in held):
                threads, failed = await self._threads_for(tournament_id, held)
            while held:
                table = held[0]
                thread_id = table.thread_id or threads.get((table.round, table.number))
                try:
                    if thread_id is not None:  # else its thread failed, said above
                        await self._set_up_table(tournament_id, table, thread_id)
                except _TABLE_NOT_SET_UP as error:
                    self._not_set_up(tournament_id, table, error)
                    failed = True
                finally:
                    await self._service.release_table(tournament_id, held.pop(0))
        finally:
            for table in held:  # cut off: released all the same
                await self._service.release_table(tournament_id, table)
        return failed

    def _not_set_up(self, tournament_id: int, table: TableView, error: Exception) -> None:
        log.log(
            failure_level(error),
            "tournament %s: table %s of round %s not set up (%s)",
            tournament_id,
            table.number,
            table.round,
            why(error),
        )

    async def _threads_for(
        self, tournament_id: int, tables: list[TableView]
    ) -> tuple[dict[tuple[int, int], int], bool]:
        """The thread of each of `tables` that has none recorded, by (round, table): one a run
        that stopped before recording it made (the server's active threads listed once for
        them all), else a new one; and whether one failed (said in the log). Discord's "started
        a thread" notices of them all are then deleted together, in one read of the channel's
        history, before any thread is recorded: a run that stops in between leaves them to be
        found again, their notices with them, by the next."""
        missing = [table for table in tables if table.thread_id is None]
        try:
            view = await self._service.look(tournament_id)
            listed = await self._active_threads(view)
        except _TABLE_NOT_SET_UP as error:
            for table in missing:
                self._not_set_up(tournament_id, table, error)
            return {}, True
        threads: dict[tuple[int, int], int] = {}
        failed = False
        for table in missing:
            try:
                threads[(table.round, table.number)] = await self._thread_for(view, table, listed)
            except _TABLE_NOT_SET_UP as error:
                self._not_set_up(tournament_id, table, error)
                failed = True
        if threads:
            await self._drop_thread_notices(view, set(threads.values()))
        return threads, failed

    async def _retry(self, tournament_id: int) -> None:
        """Try the tables again after each pause; a try a database outage cut off is made
        again once the database is back, its pause not spent."""
        pauses = iter(RETRY_DELAYS_SECONDS)
        pause = next(pauses, None)
        while pause is not None:
            await asyncio.sleep(pause)
            try:
                async with self._setting_up.holding(tournament_id):
                    failed = await self._set_up_claimed(tournament_id)
            except DatabaseUnavailableError as error:  # the outage is logged by its watch
                if self._availability is None:
                    raise
                log.info(
                    "tournament %s: its tables are set up once the database is back (%s)",
                    tournament_id,
                    why(error),
                )
                await self._availability.back()
                pause = 0.0
                continue
            self.refresh(tournament_id)
            if not failed:
                return
            pause = next(pauses, None)
        log.error("tournament %s: gave up setting its tables up until a restart", tournament_id)

    async def _set_up_table(self, tournament_id: int, table: TableView, thread_id: int) -> None:
        """The table's thread `thread_id` recorded (unless it has one: then that one is its
        thread), the welcome pinging its players there, then its game, whose first turn is
        posted in the thread."""
        view = await self._service.look(tournament_id)
        if table.thread_id is None:
            thread_id = await self._service.set_thread(tournament_id, table, thread_id)
            welcome = shown.welcome_post(view, table)
            mentions = discord.AllowedMentions(
                everyone=False,
                roles=False,
                users=[discord.Object(user) for user in welcome.pings],
            )
            await bounded(
                self._channel(thread_id, view).send(
                    welcome.content, embed=welcome.embed, allowed_mentions=mentions
                )
            )
            table = next(
                found
                for found in (await self._service.look(tournament_id)).tables
                if (found.round, found.number) == (table.round, table.number)
            )
        game = await self._service.start_table(tournament_id, table)
        await self._games.post_first_turn(game)
        # A player who withdrew once the table was paired is resigned from its game: read after
        # the game is stored, as the withdrawal resigns after it is stored, so one of the two
        # sees the other.
        await self.show_resignations(await self._service.resign_withdrawn(tournament_id))

    async def _thread_for(
        self, view: TournamentView, table: TableView, listed: list[ThreadPayload]
    ) -> int:
        """The table's public thread in the tournament's channel: one already made under its
        name (a run that stopped before recording it, among the server's active threads
        `listed`), else a new one. Its notice in the channel is left to the caller."""
        name = shown.thread_name(view, table)
        parent = self._client.get_channel(view.channel_id)
        if parent is None:
            parent = await bounded(self._client.fetch_channel(view.channel_id))
        if not isinstance(parent, discord.TextChannel):
            raise NotATextChannelError()
        made = await self._made_thread(view, name, listed)
        if made is not None:
            log.info("tournament %s: adopting thread %s", view.id, made)
            return made
        thread = await asyncio.wait_for(
            parent.create_thread(
                name=name,
                type=discord.ChannelType.public_thread,
                auto_archive_duration=ARCHIVE_MINUTES,
            ),
            DISCORD_TIMEOUT_SECONDS,
        )
        return thread.id

    async def _drop_thread_notices(self, view: TournamentView, thread_ids: set[int]) -> None:
        """Delete Discord's "started a thread" notices for tables' threads (new, or made by a
        run that stopped before recording them) from the tournament's channel: the standings
        already link every table's thread, and a notice per table per round would bury them.
        Each notice is the bot's own (it made the thread) and comes right after its thread, so
        the channel's messages after the first thread are read, NOTICE_LOOKAHEAD a thread at
        most, in as few reads as Discord allows (HISTORY_PAGE a read): one for a round of up to
        HISTORY_PAGE tables that nobody talks between (a read per table would keep a round of 32
        tables waiting half a minute on the channel's 5 reads in 5 s). Where Discord does not
        let the bot read the channel's history or delete a notice, the notices stay, said once
        per channel in the log."""
        channel_id = view.channel_id
        left = set(thread_ids)
        after = min(thread_ids)
        budget = NOTICE_LOOKAHEAD * len(thread_ids)
        try:
            while left and budget > 0:
                limit = min(HISTORY_PAGE, budget)
                page = await asyncio.wait_for(
                    self._client.http.logs_from(channel_id, limit, after=after),
                    DISCORD_TIMEOUT_SECONDS,
                )
                for message in page:
                    reference = message.get("message_reference")
                    pointed = _snowflake(reference.get("channel_id")) if reference else None
                    if (
                        message.get("type") == discord.MessageType.thread_created.value
                        and pointed in left
                    ):
                        await bounded(
                            self._client.http.delete_message(channel_id, int(message["id"]))
                        )
                        left.discard(pointed)
                if len(page) < limit:
                    return  # nothing more after
                after = max(int(message["id"]) for message in page)
                budget -= len(page)
        except DISCORD_FAILURES as error:
            if channel_id not in self._notices_kept:
                self._notices_kept.add(channel_id)
                log.info(
                    "tournament %s: Discord's 'started a thread' notices stay in channel %s (%s)",
                    view.id,
                    channel_id,
                    why(error),
                )

    async def _active_threads(self, view: TournamentView) -> list[ThreadPayload]:
        """The server's active threads as Discord lists them (`_made_thread` looks among
        them): asked once for all the tables set up together."""
        listed = await asyncio.wait_for(
            self._client.http.get_active_threads(view.guild_id), DISCORD_TIMEOUT_SECONDS
        )
        return listed["threads"]

    async def _made_thread(
        self, view: TournamentView, name: str, listed: list[ThreadPayload]
    ) -> int | None:
        """The id of an active thread of the tournament's channel named `name` that the bot
        made and no table has recorded, among the server's active threads `listed` as Discord
        gives them: a process that does not hold the server's shard knows none of its threads
        (its channel comes from `fetch_channel`), and another process may have made the
        thread. A recorded one is another table's: one of an earlier tournament of the same
        name in the channel, whose threads stay active a week."""
        me = getattr(self._client.user, "id", None)
        for thread in listed:
            if (
                thread["name"] == name
                and _snowflake(thread.get("parent_id")) == view.channel_id
                and _snowflake(thread.get("owner_id")) == me
                and not await self._service.thread_recorded(int(thread["id"]))
            ):
                return int(thread["id"])
        return None

    # --- the tournament's message ----------------------------------------------------------

    def refresh(self, tournament_id: int) -> None:
        """Draw the tournament's message again, in the background, until it shows what is
        stored (another process may be drawing it too: each draws until it drew the latest); a
        draw a database outage cuts off is made once the database is back."""
        self._wanted.add(tournament_id)
        drawing = self._drawing.get(tournament_id)
        # A draw that has just ended is still listed until its done callback runs: a request
        # in between starts a new one rather than being left to it.
        if (drawing is None or drawing.done()) and not self._stopped:
            task = asyncio.create_task(self._draw(tournament_id), name=f"standings-{tournament_id}")
            self._drawing[tournament_id] = task
            task.add_done_callback(lambda done: self._forget_draw(tournament_id, done))

    def _forget_draw(self, tournament_id: int, done: asyncio.Task[None]) -> None:
        if self._drawing.get(tournament_id) is done:
            del self._drawing[tournament_id]

    async def _draw(self, tournament_id: int) -> None:
        while tournament_id in self._wanted:
            self._wanted.discard(tournament_id)
            try:
                view = await self._service.look(tournament_id)
                if not self._holds(view.guild_id):
                    await self._wait_for_owner()
                    view = await self._service.look(tournament_id)
                    if await self._shows(view):
                        continue
                await self._after_last_run(view.created_at)
                await self._edit_message(view)
                if await self._service.look(tournament_id) != view:
                    self._wanted.add(tournament_id)
            except DatabaseUnavailableError as error:  # the outage is logged by its watch
                if self._availability is None:
                    log.info(
                        "tournament %s: message not redrawn (%s)",
                        tournament_id,
                        why(error),
                    )
                    return
                log.info(
                    "tournament %s: its message is redrawn once the database is back (%s)",
                    tournament_id,
                    why(error),
                )
                self._wanted.add(tournament_id)
                await self._availability.back()
            except Exception as error:  # best effort: the next change draws it again
                log.log(
                    failure_level(error, logging.INFO),
                    "tournament %s: message not redrawn (%s)",
                    tournament_id,
                    why(error),
                )

    def _holds(self, guild_id: int) -> bool:
        """Whether this process holds the shard of the server, `(guild_id >> 22) % count` as on
        Discord: its message is this process's to draw first. A channel's limits (5 edits in
        5 s) count every process of the bot, but each knows only its own use of them, so one
        process draws while it can."""
        count = getattr(self._client, "shard_count", None) or 1
        held = getattr(self._client, "shard_ids", None)
        return held is None or (guild_id >> 22) % count in held

    async def _wait_for_owner(self) -> None:
        await asyncio.sleep(OWNER_GRACE_SECONDS)

    async def _shows(self, view: TournamentView) -> bool:
        """Whether the tournament's message already says what `view` says (its owner drew it):
        the same embed text, and the picture if the standings have one."""
        if view.message_id is None:
            return True
        channel = self._channel(view.channel_id, view)
        message = await asyncio.wait_for(
            channel.fetch_message(view.message_id), DISCORD_TIMEOUT_SECONDS
        )
        if view.status in (TournamentStatus.SIGNUP, TournamentStatus.CANCELLED):
            wanted, picture = shown.signup_post(view).embed, False
        else:
            post = shown.standings_post(view)
            wanted, picture = post.embed, post.picture is not None
        has_picture = any(a.filename == shown.STANDINGS_NAME for a in message.attachments)
        return (
            len(message.embeds) == 1
            and _embed_text(message.embeds[0]) == _embed_text(wanted)
            and has_picture == picture
        )

    async def _edit_message(self, view: TournamentView) -> None:
        if view.message_id is None:
            return
        message = self._channel(view.channel_id, view).get_partial_message(view.message_id)
        if view.status in (TournamentStatus.SIGNUP, TournamentStatus.CANCELLED):
            post = shown.signup_post(view)
            await bounded(message.edit(embed=post.embed, view=signup_buttons(view)))
            return
        embed, files = await self.standings(view)
        await bounded(message.edit(embed=embed, attachments=files, view=standings_buttons(view)))

    async def standings(self, view: TournamentView) -> tuple[discord.Embed, list[discord.File]]:
        """The standings' embed and its picture, drawn in the workers: the embed names the
        picture only together with the file, so that the message never links to a file it
        lacks. Raises what drawing raised (the message is then left as it was)."""
        post = shown.standings_post(view)
        if post.picture is None:
            return post.embed, []
        png = await self._pictures.standings_png(post.picture)
        post.embed.set_image(url=f"attachment://{shown.STANDINGS_NAME}")
        return post.embed, [images.as_file(png, shown.STANDINGS_NAME)]

    async def standings_in_time(
        self, interaction: Interaction, view: TournamentView
    ) -> tuple[discord.Embed, list[discord.File]]:
        """The standings to answer a click with: if the picture is not drawn within
        PICTURE_PATIENCE_SECONDS, the click is deferred meanwhile; if it cannot be drawn, the
        standings without it (the redraw that follows adds it)."""

        async def drawn() -> tuple[discord.Embed, list[discord.File]]:
            try:
                return await self.standings(view)
            except Exception as error:  # the picture is best effort: the standings go out
                log.warning(
                    "tournament %s: standings shown without their picture (%s)", view.id, why(error)
                )
                return shown.standings_post(view).embed, []

        return await replies.in_time(interaction, drawn(), PICTURE_PATIENCE_SECONDS)

    # --- a withdrawal ------------------------------------------------------------------------

    async def show_withdrawal(self, withdrawal: Withdrawal) -> None:
        """A player withdrew: each game they were resigned from shows it in its thread, as a
        resignation there would, and the standings are drawn again."""
        await self._after_last_run(withdrawal.view.created_at)
        await self.show_resignations(withdrawal.resigned)
        self.refresh(withdrawal.view.id)

    async def show_resignations(self, resigned: Sequence[tuple[GameView, GameView]]) -> None:
        """Bring each game a withdrawn player was resigned from up to date (the game before,
        and after, the resignation): its turn's message tells its thread."""
        for before, after in resigned:
            try:
                await self._games.after_change_elsewhere(before, after)
            except DISCORD_FAILURES as error:  # its catch-up shows it
                log.log(
                    failure_level(error, logging.INFO),
                    "game %s: a withdrawal's resignation not shown (%s)",
                    after.id,
                    why(error),
                )

    # --- an abort ----------------------------------------------------------------------------

    async def show_abort(self, view: TournamentView, games: list[GameView]) -> None:
        """The tournament was aborted: its channel is told, each game it ended says so in its
        thread, and the message shows the standings as they were."""
        await self._after_last_run(view.created_at)
        for game in games:
            try:
                aborted = presenter.aborted_post(game).embed
                await bounded(
                    self._channel(game.game.channel_id, view).send(
                        embed=aborted, allowed_mentions=discord.AllowedMentions.none()
                    )
                )
                await self._games.after_abort_elsewhere(game)
            except DISCORD_FAILURES as error:
                log.log(
                    failure_level(error, logging.INFO),
                    "game %s: its abort not shown (%s)",
                    game.id,
                    why(error),
                )
        self.refresh(view.id)
        await self._announce(view, shown.aborted_text(view), ())

    def _channel(self, channel_id: int, view: TournamentView) -> discord.PartialMessageable:
        return self._client.get_partial_messageable(channel_id, guild_id=view.guild_id)


class TournamentController:
    """Handles /marrakech-mod tournament, tournament-abort and tournament-withdraw, and the
    tournament buttons."""

    def __init__(
        self, service: TournamentService, guilds: GuildService, display: TournamentDisplay
    ) -> None:
        self._service = service
        self._guilds = guilds
        self._display = display

    async def open(
        self,
        interaction: Interaction,
        *,
        name: str,
        format: str,
        seats: int,
        rounds: int | None,
        turn_limit_seconds: int | None,
        variant: str | None,
    ) -> None:
        """Open a tournament in this text channel; its sign-up is the answer (a variant or
        turn limit left out is the server's default)."""

        async def work() -> None:
            guild_id = interactions.guild_id(interaction)
            if not _is_moderator(interaction):
                raise ModeratorsOnlyError()
            channel = interaction.channel
            if isinstance(channel, discord.Thread) or getattr(channel, "type", None) not in (
                discord.ChannelType.text,
                discord.ChannelType.news,
            ):
                raise NotATextChannelError()
            missing = missing_for_tournament(interaction.app_permissions)
            if missing:
                raise MissingPermissionsError(missing)
            channel_id = interactions.channel_id(interaction)
            chosen_variant, limit = await self._guilds.options_for_new(
                guild_id,
                channel_id,
                None,
                variant=variant,
                turn_limit_seconds=turn_limit_seconds,
            )
            view = await self._service.open(
                guild_id=guild_id,
                channel_id=channel_id,
                moderator_id=interaction.user.id,
                name=name,
                format=format,
                seats=seats,
                rounds=rounds,
                variant=chosen_variant,
                turn_limit_seconds=limit,
                locale=interactions.server_language(interaction),
            )
            post = shown.signup_post(view)
            sent = await replies.send(
                interaction,
                embed=post.embed,
                view=signup_buttons(view) or discord.utils.MISSING,
                allowed_mentions=discord.AllowedMentions.none(),
            )
            message_id = sent.message_id
            if message_id is None:
                message_id = (await interaction.original_response()).id
            await self._service.set_message(view.id, message_id)

        await guarded(interaction, "opening a tournament", work, public=True)

    async def ask_abort(self, interaction: Interaction) -> None:
        """Ask the moderator, privately, to confirm ending the tournament of this channel (or
        of the thread a game of it is played in)."""

        async def work() -> None:
            interactions.guild_id(interaction)
            if not _is_moderator(interaction):
                raise ModeratorsOnlyError()
            view = await self._service.open_at(interactions.channel_id(interaction))
            language = interactions.user_language(interaction)
            buttons = discord.ui.View(timeout=None)
            buttons.add_item(
                TournamentButton(
                    view.id,
                    TournamentAction.ABORT,
                    label=text("tournament.abort.button", language),
                    style=discord.ButtonStyle.danger,
                )
            )
            buttons.add_item(
                TournamentButton(
                    view.id, TournamentAction.KEEP, label=text("confirm.keep.button", language)
                )
            )
            await replies.send(
                interaction,
                content=text("tournament.abort.question", language, name=shown.in_text(view.name)),
                view=buttons,
                ephemeral=True,
            )

        await guarded(interaction, "asking to abort a tournament", work)

    async def ask_withdraw(self, interaction: Interaction, member: discord.User) -> None:
        """Ask the moderator, privately, to confirm withdrawing `member` from the running
        tournament of this channel (or of the thread a game of it is played in)."""

        async def work() -> None:
            interactions.guild_id(interaction)
            if not _is_moderator(interaction):
                raise ModeratorsOnlyError()
            if member.bot:
                raise WithdrawError("bot", member.id, own=False)
            view = await self._service.open_at(interactions.channel_id(interaction))
            await self._service.check_withdraw(view.id, member.id, by=interaction.user.id)
            await self._ask_withdraw(interaction, view, member.id)

        await guarded(interaction, "asking to withdraw a player from a tournament", work)

    async def _withdraw_asked(self, interaction: Interaction, tournament_id: int) -> None:
        """Withdraw on the standings: the player is asked, privately, to confirm."""
        user = interaction.user.id
        view = await self._service.check_withdraw(tournament_id, user, by=user)
        await self._ask_withdraw(interaction, view, user)

    async def _ask_withdraw(
        self, interaction: Interaction, view: TournamentView, user_id: int
    ) -> None:
        """The private question before withdrawing `user_id` (the asker, or a member a
        moderator names): what it means, then Withdraw or Keep."""
        language = interactions.user_language(interaction)
        own = user_id == interaction.user.id
        buttons = discord.ui.View(timeout=None)
        buttons.add_item(
            WithdrawButton(
                view.id,
                user_id,
                label=text("tournament.withdraw.button", language),
                style=discord.ButtonStyle.danger,
            )
        )
        buttons.add_item(
            TournamentButton(
                view.id, TournamentAction.KEEP, label=text("confirm.keep.button", language)
            )
        )
        key = "tournament.withdraw.question" if own else "tournament.withdraw.question.other"
        question = text(key, language, name=shown.in_text(view.name), user=mention(user_id))
        await replies.send(
            interaction,
            content=question,
            view=buttons,
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def on_withdraw(self, interaction: Interaction, tournament_id: int, user_id: int) -> None:
        """A click on Withdraw in the question (custom_id `mk:withdraw:<tournament>:<user>`):
        the player themselves, or a moderator for another, withdraws them; the answer says so,
        then the games they were resigned from and the standings show it."""

        async def work() -> None:
            interactions.guild_id(interaction)
            view = await self._clicked(interaction, tournament_id)
            by = interaction.user.id
            if user_id != by and not _is_moderator(interaction):
                raise ModeratorsOnlyError()
            withdrawal = await self._service.withdraw(tournament_id, user_id, by=by)
            language = interactions.user_language(interaction)
            done = shown.withdrawal_text(
                language,
                name=shown.in_text(view.name),
                user=mention(user_id),
                after=withdrawal.after,
                own=user_id == by,
            )
            try:
                await replies.edit(interaction, content=done, view=None)
            finally:  # stored: shown though Discord refused the answer (too late)
                self._display.in_background(
                    self._display.show_withdrawal(withdrawal),
                    f"tournament-withdraw-{tournament_id}-{user_id}",
                )

        await guarded(interaction, f"withdrawing {user_id} from tournament {tournament_id}", work)

    async def _clicked(self, interaction: Interaction, tournament_id: int) -> TournamentView:
        """The tournament a button names, once the click is known to come from its server and
        its channel (or a thread of it); NoTournamentHereError for a forged id."""
        view = await self._service.look(tournament_id)
        if view.guild_id != interaction.guild_id:  # a forged id: another server's
            raise NoTournamentHereError()
        if not await self._clicked_at(interaction, view):  # forged: from another channel
            raise NoTournamentHereError()
        return view

    async def on_tournament_button(
        self, interaction: Interaction, tournament_id: int, action: TournamentAction
    ) -> None:
        """A click on a tournament button (custom_id `mk:tour:<tournament>:<action>`)."""
        handlers: dict[TournamentAction, Callable[[Interaction, int], Awaitable[None]]] = {
            TournamentAction.JOIN: self._join,
            TournamentAction.LEAVE: self._leave,
            TournamentAction.START: self._start,
            TournamentAction.CANCEL: self._cancel,
            TournamentAction.WITHDRAW: self._withdraw_asked,
            TournamentAction.ABORT: self._abort,
            TournamentAction.KEEP: self._keep,
        }

        async def work() -> None:
            interactions.guild_id(interaction)
            await self._clicked(interaction, tournament_id)
            await handlers[action](interaction, tournament_id)

        await guarded(interaction, f"tournament button {action} of {tournament_id}", work)

    async def _clicked_at(self, interaction: Interaction, view: TournamentView) -> bool:
        """Whether the click comes from the tournament's channel or from a thread of its games:
        its buttons live nowhere else, and the permissions Discord gives with a click are the
        channel's it comes from."""
        channel_id = interactions.channel_id(interaction)
        if channel_id == view.channel_id:
            return True
        try:
            return (await self._service.open_at(channel_id)).id == view.id
        except NoTournamentHereError:
            return False

    async def _edit_signup(self, interaction: Interaction, view: TournamentView) -> None:
        post = shown.signup_post(view)
        await replies.edit(interaction, embed=post.embed, view=signup_buttons(view))

    async def _join(self, interaction: Interaction, tournament_id: int) -> None:
        user = interaction.user
        view = await self._service.join(tournament_id, user.id, user.display_name)
        await self._edit_signup(interaction, view)

    async def _leave(self, interaction: Interaction, tournament_id: int) -> None:
        view = await self._service.leave(tournament_id, interaction.user.id)
        await self._edit_signup(interaction, view)

    async def _cancel(self, interaction: Interaction, tournament_id: int) -> None:
        if not _is_moderator(interaction):
            raise ModeratorsOnlyError()
        view = await self._service.cancel(tournament_id, interaction.user.id, moderator=True)
        await self._edit_signup(interaction, view)

    async def _start(self, interaction: Interaction, tournament_id: int) -> None:
        """Start: the sign-up becomes the standings, with their picture in the same edit (the
        first round's threads are made after, in the background, and shown by a redraw). A
        permission the tables need, taken from the bot since the sign-up opened, is named, and
        nothing starts."""
        if not _is_moderator(interaction):
            raise ModeratorsOnlyError()
        missing = missing_for_tournament(interaction.app_permissions)
        if missing:
            raise MissingPermissionsError(missing)
        progress = await self._service.start(tournament_id, interaction.user.id, moderator=True)
        try:
            embed, files = await self._display.standings_in_time(interaction, progress.view)
            buttons = standings_buttons(progress.view)
            await replies.edit(interaction, embed=embed, attachments=files, view=buttons)
        finally:  # stored: set up and shown though Discord refused the answer (too late)
            self._display.in_background(
                self._display.show_progress(progress), f"tournament-start-{tournament_id}"
            )

    async def _abort(self, interaction: Interaction, tournament_id: int) -> None:
        """End the tournament (TournamentService.abort): a cancelled sign-up is drawn again,
        an abort is told in the channel and in its games' threads."""
        if not _is_moderator(interaction):
            raise ModeratorsOnlyError()
        view, games = await self._service.abort(tournament_id, interaction.user.id, moderator=True)
        language = interactions.user_language(interaction)
        done = text("tournament.abort.done", language, name=shown.in_text(view.name))
        try:
            await replies.edit(interaction, content=done, view=None)
        except Exception:  # stored: shown though Discord refused the answer (too late)
            self._display.in_background(
                self._show_ended(view, games), f"tournament-abort-{tournament_id}"
            )
            raise
        await self._show_ended(view, games)

    async def _show_ended(self, view: TournamentView, games: list[GameView]) -> None:
        """Show an abort: a cancelled sign-up is drawn again, an abort is told in the channel
        and in its games' threads."""
        if view.status is TournamentStatus.CANCELLED:
            self._display.refresh(view.id)  # the sign-up says it was cancelled
            return
        await self._display.show_abort(view, games)

    async def _keep(self, interaction: Interaction, tournament_id: int) -> None:
        language = interactions.user_language(interaction)
        await replies.edit(interaction, content=text("tournament.keep.done", language), view=None)
