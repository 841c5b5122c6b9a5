"""The Discord edge of spectators (docs/watching.md): the Watch button on a running game's
message and `/marrakech watch game:` open a private view of the game; its buttons refresh it,
turn the direct messages at each finished turn on or off, or stop watching. None of them acts
on the game, pings anyone or adds a message to the channel.

The direct messages go out in the background once a game's message is posted (`shown`), one
game's in order, each to a watcher who still sees the game's channel (one who no longer does
has their messages for the game turned off instead); a finished game's end held for a
watcher in their quiet hours goes once they end; a start learns the watched games before the
games' messages are caught up (`learn`), so that the catch-up tells their watchers, then sends
what they were not told yet (`resume`); a database outage that cuts any of it off is waited
out, with no line per game, and what it cut off is sent (the catch-up run again) once it is
back."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import defaultdict
from datetime import timedelta
from functools import partial

import discord

from bot.edge import interactions
from bot.edge.answers import guarded, tell
from bot.edge.buttons import WatchAction, WatchButton
from bot.edge.direct import Delivery, send_direct
from bot.edge.display import GameDisplay
from bot.edge.incidents import why
from bot.edge.inflight import HANDLERS, OutageWaits
from bot.edge.interactions import Interaction
from bot.edge.sight import Sight
from bot.presentation import story
from bot.presentation.messages import text
from bot.presentation.watch import finished_turns, news_text, watch_post
from bot.services.availability import Availability, DatabaseUnavailableError
from bot.services.views import GameStatus, GameView
from bot.services.watch import WatchService
from bot.services.watch_views import WatchView

log = logging.getLogger(__name__)

LINES_KEPT = 30
"""The newest finished turns' lines kept per game for the watchers' messages."""
DM_PATIENCE_SECONDS = 30.0
"""How long a watcher's message may wait on Discord (a direct message channel takes 5 messages
in 5 s): it is claimed already, and nobody waits for it."""


def watch_entry(view: GameView) -> discord.ui.View | None:
    """The Watch button of a running game's message (None once it is not running)."""
    if view.status is not GameStatus.RUNNING:
        return None
    buttons = discord.ui.View(timeout=None)
    label = text("watch.button.watch", view.game.locale)
    buttons.add_item(WatchButton(view.id, WatchAction.WATCH, label=label, emoji="👀"))
    return buttons


def private_buttons(watch: WatchView, language: str) -> discord.ui.View | None:
    """The private view's buttons: refresh, messages on or off, stop (or watch again)."""
    game = watch.game
    if game.status is not GameStatus.RUNNING:
        return None
    buttons = discord.ui.View(timeout=None)

    def add(action: WatchAction, key: str, emoji: str) -> None:
        buttons.add_item(WatchButton(game.id, action, label=text(key, language), emoji=emoji))

    if watch.watcher is None:
        add(WatchAction.WATCH, "watch.button.watch", "👀")
        return buttons
    add(WatchAction.REFRESH, "watch.button.refresh", "🔄")
    if watch.watcher.dms:
        add(WatchAction.DMS_OFF, "watch.button.dms_off", "🔕")
    else:
        add(WatchAction.DMS_ON, "watch.button.dms_on", "🔔")
    add(WatchAction.STOP, "watch.button.stop", "✖️")
    return buttons


class WatchController:
    """`/marrakech watch` and the spectators' buttons, answered privately."""

    def __init__(self, watch: WatchService, display: GameDisplay) -> None:
        self._watch = watch
        self._display = display

    async def command(self, interaction: Interaction, game_id: int) -> None:
        async def work() -> None:
            guild_id = interactions.guild_id(interaction)
            language = interactions.user_language(interaction)
            user_id = interaction.user.id
            sees = partial(interactions.sees, interaction)
            watch = await self._watch.watch(guild_id, game_id, user_id, language, sees)
            await self._show(interaction, watch, new=True)

        await guarded(interaction, "watching a game", work)

    async def on_watch(self, interaction: Interaction, game_id: int, action: WatchAction) -> None:
        """A click on a spectator's button (custom_id `mk:watch:<game>:<action>`)."""

        async def work() -> None:
            guild_id = interactions.guild_id(interaction)
            user_id = interaction.user.id
            language = interactions.user_language(interaction)  # of their direct messages too
            sees = partial(interactions.sees, interaction)
            if action is WatchAction.WATCH:
                watch = await self._watch.watch(guild_id, game_id, user_id, language, sees)
            elif action is WatchAction.REFRESH:
                watch = await self._watch.look(guild_id, game_id, user_id, sees)
            elif action is WatchAction.STOP:
                watch = await self._watch.unwatch(guild_id, game_id, user_id)
            else:
                on = action is WatchAction.DMS_ON
                watch = await self._watch.set_dms(guild_id, game_id, user_id, on, language, sees)
            if not sees(watch.game.game.channel_id):
                # Ending what they get is theirs, the game as it is now is not: said in words.
                done = "watch.unseen.stopped" if watch.watcher is None else "watch.unseen.dms_off"
                await tell(interaction, text(done, language, game_id=game_id))
                return
            # The game's own message stays as it is: the view comes as a new private answer.
            await self._show(interaction, watch, new=_on_public_message(interaction))

        await guarded(interaction, "answering a watch button", work)

    async def _show(self, interaction: Interaction, watch: WatchView, *, new: bool) -> None:
        language = interactions.user_language(interaction)
        post = watch_post(watch, language)
        buttons = private_buttons(watch, language)
        if new:
            await self._display.send_response(interaction, post, ephemeral=True, buttons=buttons)
        else:
            await self._display.edit_response(interaction, post, buttons)


def _on_public_message(interaction: Interaction) -> bool:
    message = interaction.message
    return message is None or not message.flags.ephemeral


class WatchMessages:
    """Sends watchers the direct message of the turns over since they were last told."""

    def __init__(
        self,
        client: discord.Client,
        watch: WatchService,
        availability: Availability | None = None,
    ) -> None:
        """`availability` is the database's: a start's catch-up an outage cut off runs again
        once it is back (None: at the next start)."""
        self._client = client
        self._sight = Sight(client)
        self._availability = availability
        self._outages = OutageWaits()
        self._watch = watch
        self._lines: dict[int, dict[int, str]] = defaultdict(dict)
        self._locks: dict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._latest: dict[int, GameView] = {}
        """Per game, the newest view its message showed: a send that waited for the one before
        tells everything up to it, so turns that came meanwhile come together."""
        self._tasks: set[asyncio.Task[None]] = set()

    def shown(self, view: GameView, message_id: int) -> None:
        """The game's message `message_id` shows `view` (a new turn, or the result): keep the
        line of the turn it ended, and send what is due, in the background, linking that
        message (`view` was read before it was posted; 0: the message `view` names)."""
        if message_id:
            view = dataclasses.replace(
                view, game=dataclasses.replace(view.game, board_message_id=message_id)
            )
        turns = finished_turns(view)
        if turns:
            lines = self._lines[view.id]
            lines[turns[-1]] = story.turn_line(view, turns[-1])
            for old in [turn for turn in lines if turn <= turns[-1] - LINES_KEPT]:
                del lines[old]
        newest = self._latest.get(view.id)
        if newest is None or newest.seq <= view.seq:
            self._latest[view.id] = view
        task = asyncio.create_task(self._send(view), name=f"watch-dm-{view.id}")
        HANDLERS.follow(task)  # a clean stop waits for it: a turn claimed is never told again
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def learn(self) -> None:
        """At the start, before any game is shown: learn the watched games, so that the
        catch-up of the games' messages tells their watchers what it shows (a game stopped
        before its end included, which no seq marks as news)."""
        try:
            await self._watch.start()
        except Exception as error:  # a courtesy: logged, never in the way of the start
            log.warning("the watched games were not read (%s)", why(error))

    async def resume(self) -> None:
        """At the start, once the games' messages are caught up: learn the watched games (a
        read again after `learn`: it adds what failed or came meanwhile), and send what their
        watchers were not told yet. A database outage is one INFO line (the outage itself is
        logged by its watch): the catch-up runs again in the background once the database is
        back, so the start goes on meanwhile."""
        try:
            await self._watch.start()
            for view in await self._watch.games_behind():
                await self._send(view, wait_out=False)
        except DatabaseUnavailableError as error:
            if self._availability is None:
                log.warning("the watchers' direct messages were not caught up (%s)", why(error))
                return
            log.info(
                "the watchers' direct messages are caught up once the database is back (%s)",
                why(error),
            )
            task = asyncio.create_task(self._resume_once_back(), name="watchers-resume")
            self._outages.keep(task)
            return
        except Exception as error:  # a courtesy: logged, never in the way of the start
            log.warning("the watchers' direct messages were not caught up (%s)", why(error))

    async def _resume_once_back(self) -> None:
        assert self._availability is not None
        await self._availability.back()
        await self.resume()

    async def _wait_back(self) -> None:
        """Wait for the database, as a task `stop` ends."""
        assert self._availability is not None
        await self._outages.back(self._availability)

    async def stop(self) -> None:
        """Stop what waits for the database (a start's catch-up, a game's messages) before it
        closes; never raises. What it leaves untold is told by the next start."""
        await self._outages.stop()

    async def idle(self) -> None:
        """Wait for the direct messages under way (for tests and a clean stop)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _send(self, shown: GameView, *, wait_out: bool = True) -> None:
        """Tell the game's watchers what is due. A database outage is no line per game: it
        is waited out and the messages sent once it is back (the outage is logged by its
        watch); not `wait_out`, it is raised, for the caller to wait out."""
        async with self._locks[shown.id]:
            while True:
                latest = self._latest.get(shown.id)
                view = latest if latest is not None and latest.seq > shown.seq else shown
                try:
                    due = await self._watch.news(view)
                except DatabaseUnavailableError as error:
                    if not wait_out:
                        raise
                    if self._availability is None:
                        log.warning(
                            "game %s: the watchers' messages were not read (%s)",
                            view.id,
                            why(error),
                        )
                        return
                    log.debug("game %s: watchers told once the database is back", view.id)
                    await self._wait_back()
                    continue
                except Exception as error:
                    log.warning(
                        "game %s: the watchers' messages were not read (%s)", view.id, why(error)
                    )
                    return
                break
            lines = self._lines.get(view.id, {})
            for news in due:
                try:
                    content = news_text(news, lines)
                except Exception:  # claimed already: logged, never sent twice
                    log.exception("game %s: a watcher's message was not written", view.id)
                    continue
                ended = view.status is not GameStatus.RUNNING
                if not await self._sight.sees(view, news.user_id, afresh=ended):
                    await self._out_of_sight(view.id, news.user_id)
                    continue
                sent = await send_direct(self._client, news.user_id, content, DM_PATIENCE_SECONDS)
                if sent is Delivery.CLOSED:
                    await self._closed(view.id, news.user_id)
            if view.status is not GameStatus.RUNNING:
                self._lines.pop(view.id, None)
                self._latest.pop(view.id, None)
                wait = self._watch.end_held(view.id)
                if wait is not None:
                    self._show_again(view, wait)
        if view.status is not GameStatus.RUNNING:
            self._locks.pop(view.id, None)

    async def _closed(self, game_id: int, user_id: int) -> None:
        """The watcher's direct messages are closed to the bot: turn theirs for the game off
        (Refresh shows it), so the turns after it try none."""
        await self._stop_messages(
            game_id,
            user_id,
            "a watcher's closed direct messages were not turned off",
            "does not accept direct messages",
        )

    async def _out_of_sight(self, game_id: int, user_id: int) -> None:
        """The watcher can no longer see the game's channel: turn theirs for the game off (a
        Refresh of their view is refused; seeing it again, they may ask again)."""
        await self._stop_messages(
            game_id,
            user_id,
            "the messages of a watcher who no longer sees its channel were not turned off",
            "no longer sees the game's channel",
        )

    async def _stop_messages(self, game_id: int, user_id: int, failed: str, reason: str) -> None:
        """Turn a watcher's messages about a game off, with one log line either way; a failure
        is tried again at the next message, which meets the same refusal."""
        try:
            await self._watch.stop_messages(game_id, user_id)
        except Exception as error:
            log.warning("game %s: %s (%s)", game_id, failed, why(error))
        else:
            log.info(
                "user %s %s; their messages about game %s are now off", user_id, reason, game_id
            )

    def _show_again(self, view: GameView, wait: timedelta) -> None:
        """The game's end is held for a watcher for `wait`: show it to its watchers again
        then."""
        asyncio.get_running_loop().call_later(wait.total_seconds(), self.shown, view, 0)
