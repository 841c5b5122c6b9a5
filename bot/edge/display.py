"""GameDisplay: puts a game's message on screen and keeps it right.

A game shows in its channel as its lobby, one current message (the turn being played, or the
result) and the turns before it. Only the current message carries a board picture (and buttons:
a human's turn its choices, the result of a finished game Rematch, bot.edge.layout): once a turn
is over its message is edited down to one line of text (bot.presentation.story), with no
picture and no button, whatever ended it (a click, an AI turn, a timeout, a resignation, an
abort, a catch-up after a crash). The lobby, once the game started, links to its first turn,
and once it is over to its result (`_point_lobby`, newest link last): it is not edited at every
turn. Those two messages are recorded only once the lobby leads to them, in a write that says
whether its edit went through, so a process killed in between leaves the message to be adopted
by the catch-up, which leads the lobby to it first, and a start edits every lobby whose edit
failed.

Every message goes out through `Delivery` (bot.edge.delivery): through the players' own fresh
interactions when it can (a click's answer, its follow-ups and their edits are not bound to the
bot token's global limit), else with the bot token.

Discord may refuse, fail or not answer: then the game is left behind on display and shown again
in the background, with pauses that grow (the database being away uses none of them up: the
game is shown as soon as it is back); after a restart, `resume_displays` catches up on every
game whose message fell behind, adopting a message the last run sent but never recorded, so
nothing is shown twice. Whatever the channel is told of a change (a timeout, a resignation) is
drawn from what is stored, on the game's own messages, never posted apart after the commit: a
catch-up tells it as the first showing would have, once. The end of a game stopped early (an
abort, an abandoned game) is recorded as shown once told, so a catch-up tells an end that was
not, and finds in the channel's history a notice that was told but not recorded. A finished
game's result posted without its rating changes (applying them failed as it ended) is shown
again, edited to show them, once the server's next game or a start applies them: at once by
the process that applied them, else by the next start's catch-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import discord

from bot import crashpoints
from bot.edge import recovery, replies
from bot.edge.answers import DISCORD_TIMEOUT_SECONDS, bounded, or_missing, received_at
from bot.edge.delivery import NONCE_LENGTH, Delivery
from bot.edge.incidents import DISCORD, DISCORD_FAILURES, failure_level, faults_met, why
from bot.edge.interactions import Interaction
from bot.edge.layout import decision_buttons, final_buttons, lobby_buttons
from bot.edge.permissions import GAME_PERMISSIONS, MissingPermissionsError, missing_for_game
from bot.presentation import away as away_words
from bot.presentation import images, presenter, story
from bot.presentation.links import message_link
from bot.presentation.messages import text
from bot.presentation.presenter import Post
from bot.presentation.reliability import lobby_note
from bot.services.availability import Availability, DatabaseUnavailableError
from bot.services.catch_ups import CatchUp, CatchUps
from bot.services.clock import Clock
from bot.services.errors import GameError
from bot.services.locks import KeyedLocks
from bot.services.reliability import Reliability
from bot.services.views import (
    Abandoned,
    AutoTurn,
    Damage,
    GameInfo,
    GameStatus,
    GameView,
    Reminder,
)

if TYPE_CHECKING:
    from bot.services.nudges import Nudge
    from bot.services.play import PlayService

log = logging.getLogger(__name__)

ReliabilityLook = Callable[[int, Sequence[int]], Awaitable[Sequence[Reliability]]]
"""How reliably people play on a server (bot.services.stats): by server and users."""
Reachable = Callable[[GameInfo, int, Sequence[int]], Awaitable[tuple[int, ...]]]
"""Of the people a turn message of a game (at a seq) would ping, those it may ping now."""
AwayUntil = Callable[[int | None, int], Awaitable[datetime | None]]
"""When a person's time away from a server's games ends (None: not away)."""

UNKNOWN_MESSAGE = 10008
"""Discord's error code for a message that is not there (deleted)."""
REDISPLAY_DELAYS_SECONDS = (1.0, 5.0, 30.0, 120.0, 600.0)
"""Pauses before each new try to show a game whose current message Discord did not take."""
_NOT_SHOWN: tuple[type[Exception], ...] = (*DISCORD_FAILURES, MissingPermissionsError)
"""How a game's message fails to go out: Discord failing, or the channel refusing the bot."""
_RETRYING: contextvars.ContextVar[int | None] = contextvars.ContextVar("retrying", default=None)
"""The game whose showing again the running code is part of (None: none)."""
CHANNEL_WINDOW_SECONDS = 5.0
"""Discord's longest window on a channel's posts, edits and reads of its history (5 of each per
5 s). A process that starts cannot know how much of it the run before it used, but from what
it finds: the times of a game's messages, the record of the last start's catch-up of games."""
ANSWER_PATIENCE_SECONDS = 0.1
"""How long a click's answer may wait for its picture before the interaction is deferred and
edited once the picture is drawn (a picture takes a few milliseconds in an idle worker; Discord
fails an interaction not answered within 3 s)."""
GAME_NONCE_ROOM = NONCE_LENGTH - len("-99999")
"""The most characters of a game message's nonce: what a post replacing a deleted message
adds to it (`post_current`) still fits Discord's nonce."""


def game_nonce(view: GameView) -> str:
    """The nonce of the game's message at its seq, the same in every process: `mk{game}-{seq}`,
    or, for a game numbered too high for GAME_NONCE_ROOM, the start of a digest of that."""
    nonce = f"mk{view.id}-{view.seq}"
    if len(nonce) <= GAME_NONCE_ROOM:
        return nonce
    return "mk" + hashlib.sha256(nonce.encode()).hexdigest()[: GAME_NONCE_ROOM - 2]


class GameDisplay:
    """Shows games in their channels for one client (see the module)."""

    def __init__(
        self,
        client: discord.Client,
        play: PlayService,
        pictures: images.Pictures,
        clock: Clock,
        catch_ups: CatchUps,
        availability: Availability | None = None,
    ) -> None:
        """`catch_ups` keeps when this process's starts caught games up (bot.services.catch_ups);
        `availability` is the database's: a game shown again waits while it is away."""
        self._client = client
        self._play = play
        self._pictures = pictures
        self._availability = availability
        self._clock = clock
        self._catch_ups = catch_ups
        self._sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        """How it waits out a channel's window after a restart."""
        self._restarted_at: datetime | None = None
        """When `resume_displays` began, until Discord's window on a channel has passed since."""
        self._history_free_at: datetime | None = None
        self._catching_up: CatchUp | None = None
        """The start's catch-up of games while it runs, as recorded so far (its last read)."""
        self._record_failed = False
        """Whether a record of the start's catch-up failed already (one line per start)."""
        """After a restart, when the window on a channel's history that the last run's
        catch-up of games may have filled is over (None: no such window, or it is over)."""
        self._delivery = Delivery(client, clock)
        self._notices: set[asyncio.Task[None]] = set()
        self._retrying: dict[int, asyncio.Task[None]] = {}
        self._retry_soon: dict[int, asyncio.Event] = {}
        """Per game shown again in the background: set when a new failure asks for it again."""
        self._lobby_wanted: dict[int, tuple[GameView, int | None]] = {}
        """Per game, the lobby edit to make next: the game and its current message."""
        self._lobby_editors: dict[int, asyncio.Task[bool]] = {}
        self._turn_listeners: list[Callable[[GameView, int], None]] = []
        self._shown_listeners: list[Callable[[GameView, int], None]] = []
        self._lobby_buttons: Callable[[GameView], discord.ui.View | None] | None = None
        self._reliability: ReliabilityLook | None = None
        self._reachable: Reachable | None = None
        self._away_until: AwayUntil | None = None
        self._showing = KeyedLocks()
        """Per game, held while a change made elsewhere is being shown."""

    def opened(self, game_id: int, interaction: Interaction, original: int | None = None) -> None:
        """A player's interaction about the game was answered: the game's messages may go out
        through it for a while (bot.edge.delivery). `original`: the reply it sent, if any."""
        self._delivery.opened(game_id, interaction, original)

    def on_turn_posted(self, listener: Callable[[GameView, int], None]) -> None:
        """Call `listener` with the game and the message id each time a turn message is posted
        (it must not wait: the channel goes first)."""
        self._turn_listeners.append(listener)

    def on_shown(self, listener: Callable[[GameView, int], None]) -> None:
        """Call `listener(view, message_id)` once a game's message is posted: a new turn or
        the result (the spectators' messages)."""
        self._shown_listeners.append(listener)

    def lobby_reliability(self, look: ReliabilityLook) -> None:
        """How an open lobby learns how reliably its people play (one round trip)."""
        self._reliability = look

    async def lobby_notes(self, view: GameView) -> Mapping[int, str]:
        """What an open lobby says beside each person's name, by user: how fast they usually
        play, once they played enough turns (empty once it started)."""
        people = [p.user_id for p in view.players if p.user_id is not None]
        guild_id = view.game.guild_id
        if view.status is not GameStatus.LOBBY or not people or guild_id is None:
            return {}
        if self._reliability is None:
            return {}
        notes = {}
        for found in await self._reliability(guild_id, people):
            note = lobby_note(found, view.game.locale)
            if note is not None:
                notes[found.user_id] = note
        return notes

    def lobby_buttons(self, make: Callable[[GameView], discord.ui.View | None]) -> None:
        """What buttons a started game's lobby carries, once its links are written (the
        Watch button: bot.edge.watch)."""
        self._lobby_buttons = make

    def ping_only(self, reachable: Reachable) -> None:
        """Ping with a turn message only those `reachable` leaves (the others' pings are held
        for the end of their quiet hours: bot.services.away)."""
        self._reachable = reachable

    def show_away(self, away_until: AwayUntil) -> None:
        """Say on a turn message whose player is away until when (bot.services.away)."""
        self._away_until = away_until

    def report_damage(self, damage: Damage) -> None:
        """A game's stored rows are damaged: tell that channel's moderators (once per run)."""
        task = asyncio.create_task(self._post_damage_notice(damage), name="damage-notice")
        self._notices.add(task)
        task.add_done_callback(self._notices.discard)

    async def _post_damage_notice(self, damage: Damage) -> None:
        key = "notice.game_damaged" if damage.fatal else "notice.snapshot_repaired"
        notice = text(key, damage.locale, game_id=damage.game_id)  # the reason is logged
        channel = self._client.get_partial_messageable(damage.channel_id, guild_id=damage.guild_id)
        try:
            await bounded(channel.send(notice, allowed_mentions=discord.AllowedMentions.none()))
        except DISCORD_FAILURES as error:
            log.log(
                failure_level(error),
                "damage of game %s not reported in its channel: %s",
                damage.game_id,
                why(error),
            )

    async def resume_displays(self) -> None:
        """After a restart: post the current turn of every game whose message fell behind,
        then lead every lobby whose edit to lead to its game's first turn, or its result, did
        not go through (those this process claimed: another process starting too catches up
        the others), once the last run's window on a channel is over (`wait_out_restart`).

        The catch-up of games reads their channels' histories: it is recorded as begun, then
        each read as it begins, then as ended after the last (bot.services.catch_ups), and the
        record the last run left is read first, so that the first read waits for the rest of
        the window that run's own catch-up may have filled (`_wait_for_history`). A start with
        no game behind reads no history and records nothing, but closes a catch-up the last run
        never ended: that one is over by this start."""
        restarted = self._restarted_at = self._clock()
        self._record_failed = False
        last = await self._last_catch_up(restarted)
        views = await self._play.behind_on_display()
        if views:
            self._catching_up = CatchUp(restarted)
            await self._record_catch_up(self._catching_up)
        elif last is not None and last.ended is None:
            await self._record_catch_up(CatchUp(last.began, restarted, last.read))
        try:
            for view in views:
                try:
                    crashpoints.reach("resume.posting")
                    await self._catch_up(view, restarted=True)
                except _NOT_SHOWN as error:
                    log.log(
                        failure_level(error),
                        "could not bring game %s's message up to date: %s",
                        view.id,
                        why(error),
                    )
        finally:  # a failure ends the reads too; a kill leaves the catch-up never ended
            if self._catching_up is not None:
                read, self._catching_up = self._catching_up.read, None
                await self._record_catch_up(CatchUp(restarted, self._clock(), read))
        lobbies = await self._play.lobbies_behind()
        if lobbies:  # games from before the restart: the last run may have filled their window
            await self.wait_out_restart()
        for view, message_id in lobbies:
            editing = self._point_lobby(view, message_id)
            if editing is None or await asyncio.shield(editing):
                await self._play.lobby_linked(view.id, message_id)

    async def _last_catch_up(self, restarted: datetime) -> CatchUp | None:
        """The last run's catch-up of games, as recorded, and when the window on a channel's
        history it may have filled is over (`_history_free_at`): a window after it ended, or,
        killed during it, after its last read began (none if it read nothing); a window after
        this restart if its record cannot be read; none without a record (a first start, or
        one on a database that holds none for these shards)."""
        window = timedelta(seconds=CHANNEL_WINDOW_SECONDS)
        try:
            last = await self._catch_ups.last()
        except Exception as error:  # the database or the record: the start goes on all the same
            log.warning(
                "the last run's catch-up of games is not known (%s): "
                "a channel's history is read once Discord's window on it is over",
                why(error),
            )
            self._history_free_at = restarted + window
            return None
        if last is None:
            self._history_free_at = None
        elif last.ended is None:
            self._history_free_at = (
                None if last.read is None else min(last.read, restarted) + window
            )
        else:
            self._history_free_at = min(last.ended, restarted) + window
        return last

    async def _record_catch_up(self, catch_up: CatchUp) -> None:
        try:
            await self._catch_ups.record(catch_up)
        except Exception as error:  # the next start waits a whole window at most, or none
            if not self._record_failed:  # one line per start, however many games it catches up
                self._record_failed = True
                log.warning("this start's catch-up of games not recorded (%s)", why(error))

    async def _game_messages(self, view: GameView) -> list[discord.Message]:
        """The bot's messages of the game in its channel's history (recovery.game_messages;
        none where it cannot be read). During the start's catch-up of games the read is
        recorded as it begins, so that a start after a kill in the middle of it knows when the
        killed run last read a history."""
        if self._catching_up is not None:
            self._catching_up = CatchUp(self._catching_up.began, read=self._clock())
            await self._record_catch_up(self._catching_up)
        bot_id = self._client.user.id if self._client.user is not None else 0
        return await recovery.game_messages(self._channel(view), view, bot_id) or []

    async def _wait_for_history(self) -> None:
        """Return once the window on a channel's history that the last run's catch-up of games
        may have filled is over (`_last_catch_up`): a restart's first read of a history waits
        for the rest of it, the others none."""
        free = self._history_free_at
        if free is None:
            return
        left = (free - self._clock()).total_seconds()
        if left > 0:
            await self._sleep(left)
        self._history_free_at = None  # over for good

    def _window_left(self) -> float:
        """Seconds left of Discord's window on a channel (CHANNEL_WINDOW_SECONDS) since the
        restart (`resume_displays`); 0 without a restart, and for good once it is over."""
        restarted = self._restarted_at
        if restarted is None:
            return 0.0
        left = CHANNEL_WINDOW_SECONDS - (self._clock() - restarted).total_seconds()
        if left <= 0:
            self._restarted_at = None  # over for good
            return 0.0
        return left

    async def wait_out_restart(self, begun: datetime | None = None) -> None:
        """Return once Discord's window on a channel has passed since the restart, for work
        with the bot token in a channel the last run may have used (a tournament's channel and
        its tables' threads, a lobby left behind, an end to show): the run before was killed
        before this one started, so whatever it used of that window is over by then, which
        this run cannot otherwise know of a channel whose history it did not read. At once
        without a restart, once the window is over, and for what was `begun` since the restart
        (a game or a tournament the last run knew nothing of). Every such wait is this one:
        one pause in all, however many channels wait."""
        restarted = self._restarted_at
        if restarted is None or (begun is not None and begun >= restarted):
            return
        left = self._window_left()
        if left > 0:
            await self._sleep(left)

    async def wait_out_last_run(self, game_id: int) -> None:
        """`wait_out_restart`, for work on a game from before the restart (the turn clock's
        work: a turn the AI owes at once, one out of time). At once for a game begun since
        (or none: a direct message), whose channel the last run used nothing of."""
        if self._restarted_at is None or self._window_left() <= 0:
            return
        try:
            opened = await self._play.opened_at(game_id)
        except Exception:  # the database is away: the work fails on it without a post
            return
        if opened is not None:  # None: a direct message's
            await self.wait_out_restart(opened)

    async def catch_up(self, game_id: int) -> None:
        """Show a game whose last change was never shown (its message failed to post or to
        edit), if it still is not."""
        view = await self._play.look(game_id)
        if view.game.board_message_seq != view.seq:
            log.info("game %s: showing a change whose message never went out", game_id)
            await self._catch_up(view)

    async def _catch_up(self, view: GameView, *, restarted: bool = False) -> None:
        """Show the game as it is now, adopting a message the last run sent but never recorded,
        and retire every other message that still shows a decision (the known one included):
        no live button, no picture and no call to play is left anywhere else. A change that
        did not end the turn the known message shows is drawn on that message again instead,
        and so is a hand-over (the known message shows the game's seq, but not its new player).
        Without the channel's history only the known message is retired, and the game is
        posted again.
        Just `restarted`, it waits out what the last run may have used of Discord's window on
        the channel, so that none of its requests there is refused: before it reads the
        history, the rest of the window the last run's catch-up of games may have filled
        (`_wait_for_history`: no message's time tells a read); then, if the last run changed
        the game's messages within the window (their times say so), the rest of it before
        any post or edit of its own, the notice of a seat taken back included. An end to show
        (`show_end`) waits the window out whatever the times (`wait_out_restart`), before it
        reads, retires, edits or posts."""
        if view.status is GameStatus.ABORTED or (
            view.status is GameStatus.OVER and view.game.board_message_seq == view.seq
        ):  # stopped early, or a result shown without the rating changes applied since
            if restarted:
                await self.wait_out_restart()
            await self.show_end(view)
            return
        if restarted:
            await self._wait_for_history()
        found = await self._game_messages(view)
        if restarted and found:
            changed = max(message.edited_at or message.created_at for message in found)
            ago = (self._clock() - changed).total_seconds()
            wait = min(CHANNEL_WINDOW_SECONDS, CHANNEL_WINDOW_SECONDS - ago)
            if wait > 0:
                await self._sleep(wait)
        await self.show_rejoins(view)
        current = recovery.showing_now(found, view)
        known = view.game.board_message_id
        shown = _shown_seq(view)
        if shown != view.game.board_message_seq and current is not None and current.id == known:
            current = None  # its seats changed hands since it was drawn: drawn again in place
        redrawn = current is None and await self._redrawn_in_place(view, known, shown)
        kept = known if redrawn else None  # redrawn: it shows the game as it is now
        for message in found:
            if message is not current and message.id != kept and recovery.has_live_buttons(message):
                await self._retire(view, message.id, recovery.shown_seq(message))
        if not redrawn and known is not None and known not in {m.id for m in found}:
            await self._retire(view, known, shown)
        if (view.game.reminder_message_id, view.game.nudge_message_id) != (None, None) and (
            view.state is None  # never started: no ping can be about it
            or view.status is not GameStatus.RUNNING
            or (shown is not None and view.turn_at(shown) != view.state.turn)
        ):
            await self._retire_pings(view)  # the turn it was about is over
        if redrawn:
            return  # and recorded
        if current is None:
            await self.post_current(view)
        elif view.status is GameStatus.LOBBY:  # same buttons, but maybe not the same seats
            await self.edit_lobby(view, current.id)
        else:
            log.info("game %s: adopting message %s the last run sent", view.id, current.id)
            linked = await self._lead_lobby_to(view, current.id)
            await self._play.set_board_message(view.id, current.id, view.seq, lobby_linked=linked)

    async def _redrawn_in_place(self, view: GameView, known: int | None, shown: int | None) -> bool:
        """A change that did not end the turn its message shows (a resignation out of turn,
        a move within the turn): that message is drawn again in place, as the change would
        have been shown, so the turn keeps one message and what the change tells (who
        resigned) is told once, in its place. False if it is not such a change, or the
        message cannot be edited (gone): the caller retires it and posts the game anew."""
        state = view.state
        if (
            known is None
            or shown is None
            or state is None
            or view.status is not GameStatus.RUNNING
            or known == view.game.lobby_message_id
            or view.turn_at(shown) != state.turn
        ):
            return False
        try:
            await self._redraw_turn(view, known)
        except DISCORD_FAILURES as error:
            log.log(
                failure_level(error, logging.INFO),
                "game %s: message %s not redrawn in place: %s",
                view.id,
                known,
                why(error),
            )
            return False
        return True

    async def edit_lobby(self, view: GameView, message_id: int | None) -> None:
        if message_id is None:
            return
        post = presenter.lobby_post(view, notes=await self.lobby_notes(view))
        try:
            await bounded(self._edit(view, message_id, embed=post.embed, view=lobby_buttons(view)))
        except DISCORD_FAILURES as error:
            log.log(
                failure_level(error, logging.INFO),
                "lobby message of game %s not updated: %s",
                view.id,
                why(error),
            )
            if view.status is GameStatus.LOBBY:
                self.retry_display(view.id)  # its seats are marked not shown: try again
            return
        if view.status is GameStatus.LOBBY:  # not once the game started meanwhile
            await self._play.set_board_message(view.id, message_id, view.seq, lobby=True)

    async def show_auto_turn(self, turn: AutoTurn) -> None:
        """Show a turn the AI played by itself as a click would have: finalise the turn and
        post the next one. A turn played for a player out of time (or the one that handed
        their seat to the AI) says so in its own line (bot.presentation.story), which is
        derived from what is stored: a catch-up after a crash tells it just the same, once."""
        crashpoints.reach("auto.committed")
        await self.after_change_elsewhere(turn.view, turn.view)

    async def show_abandoned(self, abandoned: Abandoned) -> None:
        """A paused game ended as abandoned: its end is shown (`show_end`)."""
        crashpoints.reach("end.committed")
        await self.show_end(abandoned.view)

    async def show_end(self, view: GameView, answered: Interaction | None = None) -> None:
        """Show the end of a game stopped early (aborted, or abandoned by everyone), once:
        every message of it that still offers a decision is brought down to its line (the
        turn's line says the game ended), the lobby says so, and the end is told in the
        channel. It is derived from what is stored and recorded as shown (`end_shown`), so a
        catch-up after a crash between the end's commit and its showing shows it then; a
        notice the last run posted but did not record is found in the channel's history, not
        posted again. Nothing if the end is shown already. `answered`: the interaction that
        ended the game, whose follow-up tells the end (else it is posted in the channel). A game
        ended in its lobby gets no notice: its lobby says it was cancelled.

        A finished game's end is its result: one posted without the rating changes applied
        since (`ratings_applied_later`) is edited to show them, and recorded as shown."""
        async with self._showing.holding(view.id):
            if not await self._play.end_not_shown(view.id):
                return
            if view.status is GameStatus.OVER:
                await self._show_result_again(view.id)
                return
            found = await self._game_messages(view)
            for message in found:
                if recovery.has_live_buttons(message):
                    await self._retire(view, message.id, recovery.shown_seq(message))
            # a lobby's end is told by the lobby's own message ("cancelled"), as its Cancel
            # button leaves it; a game that began is told in a notice of its own
            told = not view.started or any(recovery.tells_end(m, view) for m in found)
            if not told:
                fields: dict[str, Any] = {
                    "embed": presenter.aborted_post(view).embed,
                    "allowed_mentions": discord.AllowedMentions.none(),
                }
                try:
                    if answered is not None:
                        await bounded(answered.followup.send(**fields))
                    else:
                        await bounded(self._post(view, **fields))
                except DISCORD_FAILURES as error:
                    log.log(
                        failure_level(error, logging.INFO),
                        "end of game %s not told: %s",
                        view.id,
                        why(error),
                    )
                    return  # not recorded: the next catch-up tells it
                crashpoints.reach("end.told")
            await self.after_abort(view, skip={message.id for message in found})

    async def _show_result_again(self, game_id: int) -> None:
        """Edit the finished game's result to show the game as it is now, with the rating
        changes applied since it was posted, and record its end as shown; a result that is gone
        (deleted) has nothing left to show. A refusal is logged and not recorded: the next
        catch-up (a start) shows it."""
        view = await self._play.look(game_id)  # read again: the changes came in since
        message_id = view.game.board_message_id
        if message_id is not None:
            embed = presenter.final_post(view).embed
            quiet = discord.AllowedMentions.none()
            try:
                await bounded(self._edit(view, message_id, embed=embed, allowed_mentions=quiet))
            except discord.NotFound:
                pass  # nothing left to show it on
            except DISCORD_FAILURES as error:
                log.log(
                    failure_level(error, logging.INFO),
                    "result of game %s not shown again: %s",
                    game_id,
                    why(error),
                )
                return
        await self._play.mark_end_shown(game_id)

    def ratings_applied_later(self, game_id: int) -> None:
        """The game's rating changes were applied after its end (bot.services.ratings): its
        result, if it was posted without them, shows them (`show_end`), in the background."""
        task = asyncio.create_task(self._show_ratings(game_id), name=f"ratings-{game_id}")
        self._notices.add(task)
        task.add_done_callback(self._notices.discard)

    async def _show_ratings(self, game_id: int) -> None:
        try:
            await self.show_end(await self._play.look(game_id))
        except Exception as error:  # the next catch-up (a start) shows them
            log.log(
                failure_level(error, logging.INFO),
                "game %s: its result does not show its ratings yet (%s)",
                game_id,
                why(error),
            )

    async def show_rejoins(self, view: GameView, answered: Interaction | None = None) -> None:
        """Tell, once, each seat of the running game taken back from the AI whose return is
        not told yet. It is derived from what is stored (the seat's `rejoin_shown`, cleared
        by the rejoin's own write) and recorded as told, so a catch-up after a crash between
        the rejoin's commit and its notice tells it then; a notice the last run posted but
        did not record is found in the channel's history, not posted again. `answered`: the
        rejoin command, whose answer tells it without reading the history first (nothing can
        have told a rejoin just committed, and the answer is due within Discord's window); it
        is answered privately if another process told it first."""
        async with self._showing.holding(view.id):
            users = await self._play.rejoins_not_shown(view.id)
            found: list[discord.Message] = []
            if users and answered is None:  # a rejoin just committed has no notice yet
                found = await self._game_messages(view)
            told = {recovery.tells_rejoin(message, view) for message in found}
            quiet = discord.AllowedMentions.none()
            for user_id in users:
                if user_id not in told:
                    notice = recovery.rejoin_notice(view, user_id)
                    try:
                        if answered is not None and not replies.answered(answered):
                            await bounded(
                                replies.send(answered, content=notice, allowed_mentions=quiet)
                            )
                        else:
                            await bounded(self._post(view, content=notice, allowed_mentions=quiet))
                    except DISCORD_FAILURES as error:
                        log.log(
                            failure_level(error, logging.INFO),
                            "return to game %s not told: %s",
                            view.id,
                            why(error),
                        )
                        continue  # not recorded: the next catch-up tells it
                    crashpoints.reach("rejoin.told")
                await self._play.mark_rejoin_shown(view.id, user_id)
        if answered is not None and not replies.answered(answered):  # told by another process
            notice = recovery.rejoin_notice(view, answered.user.id)
            await bounded(replies.send(answered, content=notice, ephemeral=True))

    async def send_reminder(self, reminder: Reminder) -> None:
        """Ping the player to move: half of their time is gone. The reminder is sent at most
        once: one Discord refuses (MissingPermissionsError, naming what the channel lacks),
        fails or does not take within DISCORD_TIMEOUT_SECONDS is not sent again (one warning
        line; the turn's own message pings them already). The game names one reminder, the
        one retired once its turn is over (at once, if that turn ended while it was posted): a
        reminder it still names (of a seat's player who left it, when nothing showed the
        hand-over) goes before this one takes its place, so that none is left calling for
        good."""
        if reminder.user_id is None:
            return
        post = self._post(
            reminder.view,
            content=presenter.reminder_text(reminder),
            allowed_mentions=discord.AllowedMentions(
                everyone=False, roles=False, users=[discord.Object(reminder.user_id)]
            ),
        )
        try:
            message = await asyncio.wait_for(post, DISCORD_TIMEOUT_SECONDS)
        except discord.Forbidden as error:
            raise MissingPermissionsError(
                self._missing_in(reminder.view) or GAME_PERMISSIONS
            ) from error
        except DISCORD_FAILURES as error:
            log.log(
                failure_level(error),
                "game %s: its reminder was not posted (%s)",
                reminder.view.id,
                why(error),
            )
            return
        replaced = reminder.view.game.reminder_message_id
        if replaced is not None and replaced != message.id:
            view = reminder.view
            await self._delete_ping(view, "reminder", replaced, story.reminder_over(view))
        await self._play.set_reminder_message(reminder.view.id, message.id)
        # The turn's end, shown while the reminder was posted, found none to retire.
        view = await self._play.look(reminder.view.id)
        asked = reminder.view.state
        if (
            view.state is None
            or asked is None
            or view.status is not GameStatus.RUNNING
            or view.state.turn != asked.turn
        ):
            await self._retire_pings(view)

    async def show_after_click(self, interaction: Interaction, view: GameView) -> None:
        """Answer a move: the clicked message shows the turn going on, or (the turn is over)
        becomes that turn's one line while the next turn, or the result, is posted."""
        if view.turn_changed:
            line = story.turn_line(view, story.finished_turn(view))
            await self._respond_line(interaction, line)
            crashpoints.reach("click.responded")
            self.opened(view.id, interaction)
            async with self._showing.holding(view.id):  # in turn with a change made elsewhere
                if not self._play.shown_from(view.id, view.seq):
                    await self.post_current(view)
            await self._retire_pings(view)
            return
        await self._respond_edit(interaction, presenter.turn_post(view), decision_buttons(view))
        crashpoints.reach("click.responded")
        self.opened(view.id, interaction)
        if interaction.message is not None:
            await self._play.set_board_message(view.id, interaction.message.id, view.seq)

    async def refresh_if_behind(
        self, interaction: Interaction, game_id: int, *, another_click_pending: bool
    ) -> bool:
        """A stale click on the game's own message whose display lags its state (the bot
        stopped between a commit and its answer): a change that did not end the turn is drawn
        on that message; otherwise it is retired (down to its turn's line) and the current
        decision posted, pinging whoever must act. True if it did."""
        view = await self._play.look(game_id)
        game = view.game
        clicked = interaction.message.id if interaction.message is not None else None
        if (
            another_click_pending
            or view.status not in (GameStatus.RUNNING, GameStatus.OVER)
            or clicked is None
            or clicked != game.board_message_id
            or game.board_message_seq == game.seq
        ):
            return False
        shown = game.board_message_seq
        state = view.state
        if (
            shown is not None
            and clicked != game.lobby_message_id
            and view.status is GameStatus.RUNNING
            and state is not None
            and view.turn_at(shown) == state.turn
        ):  # the change did not end the turn: its message shows it, as a catch-up would
            await self._respond_edit(interaction, presenter.turn_post(view), decision_buttons(view))
            self.opened(view.id, interaction)
            await self._play.set_board_message(view.id, clicked, view.seq)
            return True
        if shown is None or clicked == game.lobby_message_id:
            await replies.edit(interaction, view=None)
        else:
            await self._respond_line(interaction, story.turn_line(view, view.turn_at(shown)))
        self.opened(view.id, interaction)
        await self.post_current(view)
        return True

    async def retire_left_behind(self, interaction: Interaction, game_id: int, seq: int) -> None:
        """A click the game refused on a message that still offers a decision it has left
        behind (a message a process killed at the wrong moment left live while another moved
        the game on, or one of a game that ended since): answer by editing that message down to
        what it says now, its turn's one line, so it offers nothing any more; the caller then
        tells the clicker why privately. The game's current message is left as it is (a second
        click on it is only refused), and so is any message of the turn being played: that is
        the current one, whether or not it is recorded yet (a click may race its recording)."""
        try:
            view = await self._play.look(game_id)
        except GameError:
            return
        clicked = interaction.message.id if interaction.message is not None else None
        current = view.game.board_message_id
        state = view.state
        if (
            clicked is None
            or state is None
            or clicked == view.game.lobby_message_id
            or (clicked == current and view.status in (GameStatus.RUNNING, GameStatus.OVER))
            or (view.status is GameStatus.RUNNING and view.turn_at(seq) == state.turn)
        ):
            return
        await self._respond_line(interaction, story.turn_line(view, view.turn_at(seq)))

    async def after_change_elsewhere(self, before: GameView, view: GameView) -> None:
        """Bring the game's messages up to date after a change made outside its turn message
        (a resignation, a seat taken back, an AI turn, a timeout): a turn that ended is retired
        to its line and the next turn, or the result, is posted; otherwise the turn's message
        is redrawn. One game's changes are shown one at a time, so a redraw never lands on a
        message that a later change (an AI turn played at once) already retired."""
        async with self._showing.holding(view.id):
            message_id = before.game.board_message_id
            lobby = before.game.lobby_message_id
            if before.started and message_id is not None and message_id == lobby:
                # read as the first turn was being posted (`post_first_turn`): recorded by now
                message_id = (await self._play.look(view.id)).game.board_message_id
            if view.turn_changed or view.status is not GameStatus.RUNNING:
                if message_id is not None:
                    await self._retire(view, message_id, _shown_seq(before))
                await self.post_current(view)
                await self._retire_pings(view)
                return
            if message_id is None or message_id == lobby:  # no turn of it was ever shown
                await self.post_current(view)
                return
            now = await self._play.look(view.id)
            if now.seq != view.seq:
                return  # the game moved on: the change that moved it is shown after this
            message_id = now.game.board_message_id or message_id  # posted since `before`
            shown = now.game.board_message_seq
            if (
                shown is not None
                and view.state is not None
                and view.turn_at(shown) != view.state.turn
            ):
                # that message shows a turn that is over, and the move that ended it has not
                # posted the next one yet: posted here, as this change leaves it (the move
                # then finds it shown); never drawn on the ended turn's message
                await self._retire(view, message_id, shown)
                await self.post_current(view)
                await self._retire_pings(view)
                return
            await self._redraw_turn(view, message_id)

    async def _redraw_turn(self, view: GameView, message_id: int) -> None:
        """Draw the turn being played again on its message, its call line too: whom it waits
        for now (a seat handed over, a pause ended, an AI seat's turn), as the turn's message
        would be posted, but pinging no one (an edit never notifies).

        A move may be made on the message while the picture is drawn or the edit is on its way
        (a click answers on the message itself, without waiting for this): a redraw that finds
        the game moved on before its edit leaves the message to the move's answer, and one
        whose edit may have landed over a click's answer shows the game again (`_show_again`),
        so the message never keeps a decision the game has left."""
        post = presenter.turn_post(view, ping=True)
        content = await self._turn_content(view, post)
        files = await self._files(post)
        if (await self._play.look(view.id)).seq != view.seq:
            return  # moved on while the picture was drawn: the move's answer shows it
        await bounded(
            self._edit(
                view,
                message_id,
                content=content,
                embed=post.embed,
                attachments=files,
                view=decision_buttons(view),
                allowed_mentions=discord.AllowedMentions.none(),
            )
        )
        await self._play.set_board_message(view.id, message_id, view.seq)
        now = await self._play.look(view.id)
        if now.seq != view.seq:
            await self._show_again(now, message_id, shown_seq=view.seq)

    async def _show_again(self, view: GameView, message_id: int, *, shown_seq: int) -> None:
        """Bring a message a late redraw left at `shown_seq` to the game as it is now, when a
        click already showed a newer state on it (the redraw may have landed over that): the
        turn's current decision while that turn goes on, else, once the click moved the game
        to a new message, the turn's one line. A change shown in turn after this redraw (an
        AI turn, a timeout) has not been shown yet and shows itself."""
        game = view.game
        if game.board_message_id == message_id:
            if game.board_message_seq is not None and game.board_message_seq > shown_seq:
                await self._redraw_turn(view, message_id)
            return
        await self._retire(view, message_id, shown_seq)

    async def post_current(self, view: GameView, *, replacing: int | None = None) -> bool:
        """Post the game's current message and record it; True if it did.

        Discord may refuse (403), fail (5xx after discord.py's own retries), cut the connection
        or not answer at all (discord.py has no timeout of its own): then the game is left
        behind on display and caught up in the background, which adopts the message if Discord
        did take it after all, so it is never shown twice. A refusal is also reported to the
        user who acted, naming the missing permissions. `replacing`: the game's message at the
        same seq, which is gone; the post takes a nonce of its own (for a few minutes Discord
        answers a nonce it has seen with the message it made for it, here the deleted one).
        """
        try:
            fields = await self._current_message(view)
            if fields is None:
                return False
            if replacing is not None and "nonce" in fields:
                fields["nonce"] = f"{fields['nonce']}-{replacing % 100_000}"
            message = await asyncio.wait_for(self._post(view, **fields), DISCORD_TIMEOUT_SECONDS)
        except discord.Forbidden as error:
            self.retry_display(view.id)
            raise MissingPermissionsError(self._missing_in(view) or GAME_PERMISSIONS) from error
        except DatabaseUnavailableError as error:  # drawing it read the database: no line
            # per game (the outage is logged by its watch); shown once the database is back
            log.debug("game %s: posted once the database is back (%s)", view.id, why(error))
            self.retry_display(view.id)
            return False
        except Exception as error:  # a timeout, a cut connection (aiohttp.ClientError),
            # a 5xx after discord.py's retries: the move is stored whatever happened, and
            # showing it again is safe (the catch-up adopts what Discord did take)
            log.log(
                failure_level(error),
                "game %s: its current message was not posted (%s); trying again",
                view.id,
                why(error),
            )
            self.retry_display(view.id)
            return False
        crashpoints.reach("turn.posted")
        with_ratings = view.status is GameStatus.OVER and bool(view.ratings)
        linked = await self._lead_lobby_to(view, message.id)
        await self._play.set_board_message(
            view.id, message.id, view.seq, end_shown=with_ratings, lobby_linked=linked
        )
        if view.status is GameStatus.RUNNING:
            for listener in self._turn_listeners:
                listener(view, message.id)
        for listener in self._shown_listeners:
            listener(view, message.id)
        return True

    async def post_first_turn(self, view: GameView) -> bool:
        """Post the first turn of the game just started, and record it (`post_current`); a
        change made meanwhile (a hand-over, a resignation) is shown after it, on it, never on
        the lobby the game was shown by until then."""
        async with self._showing.holding(view.id):
            if self._play.ended_in_memory(view.id):
                return False  # ended meanwhile (an abort): its end is shown instead
            return await self.post_current(view)

    async def after_abort_elsewhere(self, view: GameView) -> None:
        """`after_abort` for a game ended away from its own messages (a tournament's end), in
        turn with its first turn being posted (`post_first_turn`): the message retired is the
        one recorded by then, not the one `view` was read with."""
        async with self._showing.holding(view.id):
            await self.after_abort(await self._play.look(view.id))

    async def post_if_gone(self, view: GameView) -> bool:
        """Post the running game's current turn again if its recorded message is gone (a
        moderator deleted it: the bot reads no message events, so it asks Discord, one request
        for that message), as its turn is posted, pinging its player; True if it did. A post
        Discord refuses raises MissingPermissionsError, as `post_current`."""
        known = view.game.board_message_id
        if view.status is not GameStatus.RUNNING or known in (None, view.game.lobby_message_id):
            return False
        try:
            await bounded(self._message(view, known).fetch())
            return False  # it is there
        except discord.NotFound as error:
            if error.code != UNKNOWN_MESSAGE:  # the channel is gone, say
                return False
        except DISCORD_FAILURES as error:
            log.log(
                failure_level(error, logging.INFO),
                "game %s: message %s not looked up: %s",
                view.id,
                known,
                why(error),
            )
            return False
        async with self._showing.holding(view.id):  # no change is shown meanwhile
            now = await self._play.look(view.id)
            if now.status is not GameStatus.RUNNING or now.game.board_message_id != known:
                return False  # shown on a new message since
            log.info("game %s: its message %s is gone; posting the turn again", view.id, known)
            return await self.post_current(now, replacing=known)

    def _missing_in(self, view: GameView) -> tuple[str, ...]:
        """The game permissions the bot lacks in the game's channel, as far as the cache knows."""
        channel = self._client.get_channel(view.game.channel_id)
        if not isinstance(channel, discord.abc.GuildChannel | discord.Thread):
            return ()
        permissions = channel.permissions_for(channel.guild.me)
        return missing_for_game(permissions, in_thread=isinstance(channel, discord.Thread))

    def retry_display(self, game_id: int) -> None:
        """Keep trying to show the game as it is now (after a post Discord did not take). A
        game already being tried again after a failed try is tried again at once, and its
        pauses start over from the shortest (a new failure says nothing of how long the last
        one lasts); a request during the first pause is answered by the try that ends it. The
        try's own failure (its post asks for this too) is no new failure: it waits its pause."""
        if game_id in self._retrying:
            if _RETRYING.get() != game_id:
                self._retry_soon[game_id].set()
            return
        self._retry_soon[game_id] = asyncio.Event()
        task = asyncio.create_task(self._redisplay(game_id), name=f"redisplay-{game_id}")
        self._retrying[game_id] = task

        def done(_: asyncio.Task[None]) -> None:
            self._retrying.pop(game_id, None)
            self._retry_soon.pop(game_id, None)

        task.add_done_callback(done)

    async def _redisplay(self, game_id: int) -> None:
        _RETRYING.set(game_id)  # in this task's context, which its tries' tasks copy
        attempt = 0
        cut_off = False  # whether a Discord outage cut a try off (its end says so, not each game)
        while attempt < len(REDISPLAY_DELAYS_SECONDS):
            soon = self._retry_soon[game_id]
            delay = REDISPLAY_DELAYS_SECONDS[attempt]
            if attempt == 0:
                await asyncio.sleep(delay)
            else:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await _first(soon.wait(), _discord_back())
            attempt = 0 if attempt and soon.is_set() else attempt + 1
            soon.clear()
            with faults_met() as faults:
                shown = await self._try_showing(game_id)
            if shown:
                level = logging.DEBUG if cut_off else logging.INFO
                log.log(level, "game %s: its current message is shown", game_id)
                return
            if faults or not DISCORD.availability.up:  # Discord cut the try off: it spends
                # none (the pauses still grow), and Discord's return ends the pause; the
                # try's own faults count though another request found Discord back meanwhile
                cut_off = True
                attempt = min(attempt, len(REDISPLAY_DELAYS_SECONDS) - 1)
        log.error("game %s: gave up showing its current message until a restart", game_id)

    async def _try_showing(self, game_id: int) -> bool:
        """One try at showing the game as it is now; whether it shows it. A failure is one
        WARNING line (DEBUG for Discord's own, whose outage is logged once). A database
        outage is no failure of the try: it is waited out and the try made again, with no line
        per game (the outage is logged by its watch)."""
        while True:
            if self._availability is not None:
                await self._availability.back()  # at once if it is up
            try:
                view = await self._play.look(game_id)
                if view.game.board_message_seq != view.seq:
                    await asyncio.wait_for(self._catch_up(view), DISCORD_TIMEOUT_SECONDS * 2)
                    view = await self._play.look(game_id)
            except DatabaseUnavailableError as error:
                if self._availability is None:
                    log.warning("game %s: showing it again failed (%s)", game_id, why(error))
                    return False
                log.debug(
                    "game %s: shown again once the database is back (%s)", game_id, why(error)
                )
                continue
            except Exception as error:  # logged, and tried again after the next pause
                log.log(
                    failure_level(error),
                    "game %s: showing it again failed (%s)",
                    game_id,
                    why(error),
                )
                return False
            return view.game.board_message_seq == view.seq

    async def _current_message(self, view: GameView) -> dict[str, Any] | None:
        """What the game's current message says: the next turn (pinging its player), the
        end, or (when catching up after a crash) the lobby; None for a game with none. Its
        picture is drawn here, before Discord is asked (the workers bound that time)."""
        if view.status is GameStatus.LOBBY:
            return self._lobby_message(view)
        if view.status is GameStatus.OVER:
            return await self._end_message(view)
        if view.status is GameStatus.RUNNING:
            return await self._turn_message(view)
        return None

    def _lobby_message(self, view: GameView) -> dict[str, Any]:
        lobby = presenter.lobby_post(view)
        return {
            "embed": lobby.embed,
            "view": or_missing(lobby_buttons(view)),
            "allowed_mentions": discord.AllowedMentions.none(),
        }

    async def _end_message(self, view: GameView) -> dict[str, Any]:
        """The final ranking, with the game record attached and a Rematch button."""
        post = presenter.final_post(view)
        files = await self._files(post)
        record = await self._play.record(view.id)
        files.append(presenter.record_file(record, view.id))
        return {
            "embed": post.embed,
            "files": files,
            "view": or_missing(final_buttons(view)),
            "allowed_mentions": discord.AllowedMentions.none(),
            "nonce": game_nonce(view),
        }

    async def _turn_message(self, view: GameView) -> dict[str, Any]:
        """The next turn's message with its buttons, pinging (only) the player to move."""
        post = presenter.turn_post(view, ping=True)
        pings = post.pings
        if pings and self._reachable is not None:
            pings = await self._reachable(view.game, view.seq, pings)
        content = await self._turn_content(view, post)
        files = await self._files(post)
        mentions = discord.AllowedMentions(
            everyone=False,
            roles=False,
            replied_user=False,
            users=[discord.Object(user) for user in pings] if pings else False,
        )
        return {
            "content": content,
            "embed": post.embed,
            "files": files,
            "view": or_missing(decision_buttons(view)),
            "allowed_mentions": mentions,
            # discord.py sends it enforced: Discord answers a resend within a few minutes with
            # the first message. A catch-up after a restart, later than that, reads the
            # history instead. A follow-up takes none.
            "nonce": game_nonce(view),
        }

    async def _turn_content(self, view: GameView, post: Post) -> str | None:
        """A turn message's text above its embed: the call to its player (`post`), and, while
        that person is away, until when their clock stands still (not on a turn the AI plays
        for them, nor on a paused game's: neither waits for them)."""
        content = post.content
        mover = view.user_to_move
        waits = not view.ai_to_move and view.paused_until is None
        if content and waits and mover is not None and self._away_until is not None:
            until = await self._away_until(view.game.guild_id, mover)
            if until is not None:
                timed = view.game.turn_limit_seconds is not None
                line = away_words.on_turn(until, view.game.locale, timed=timed)
                content = f"{content}\n{line}"
        return content

    async def redraw(self, game_id: int, waiting_for: int | None = None) -> None:
        """Draw the game's turn message again as the game stands, its call line too: what it
        says of its player changed (away, or back from days away) though the game did not
        move; only if it waits for the move of `waiting_for`, when given. A reminder of a
        player now away goes: the moment it gave no longer holds, their clock having stopped
        (back, the channel is told the time left). Best effort: a failure is logged, the next
        change draws it anyway; a database outage is no line per game: the game is drawn again
        once the database is back (the outage is logged by its watch)."""
        try:
            view = await self._play.look(game_id)
            if view.status is not GameStatus.RUNNING:
                return
            mover = view.user_to_move
            if waiting_for is not None and mover != waiting_for:
                return
            await self.after_change_elsewhere(view, view)
            reminder = view.game.reminder_message_id
            away = self._away_until
            if (
                reminder is not None
                and mover is not None
                and away is not None
                and await away(view.game.guild_id, mover) is not None
            ):
                await self._delete_ping(view, "reminder", reminder, story.reminder_over(view))
                await self._play.set_reminder_message(view.id, None)
        except DatabaseUnavailableError as error:
            if self._availability is None:
                log.info(
                    "game %s: its turn was not drawn again (%s)",
                    game_id,
                    why(error),
                )
                return
            log.debug("game %s: drawn again once the database is back (%s)", game_id, why(error))
            task = asyncio.create_task(
                self._redraw_once_back(game_id, waiting_for), name=f"redraw-{game_id}"
            )
            self._notices.add(task)
            task.add_done_callback(self._notices.discard)
        except Exception as error:
            log.log(
                failure_level(error, logging.INFO),
                "game %s: its turn was not drawn again (%s)",
                game_id,
                why(error),
            )

    async def _redraw_once_back(self, game_id: int, waiting_for: int | None) -> None:
        assert self._availability is not None
        await self._availability.back()
        await self.redraw(game_id, waiting_for)

    async def seat_handed_over(self, view: GameView, newcomer: int) -> None:
        """A seat of the running game (`view`, as the hand-over left it) went to `newcomer`: if
        it is the seat to move, the turn's reminder goes (deleted, or edited to its line where
        Discord will not delete it), as for a player gone away: it called the person who left,
        by a moment that no longer holds (the newcomer's clock starts anew, with a reminder of
        its own). Best effort: a failure is logged, and the reminder still goes once its turn
        is over, or when the next one is sent."""
        reminder = view.game.reminder_message_id
        if reminder is None or view.status is not GameStatus.RUNNING:
            return
        if view.user_to_move != newcomer:
            return  # the reminder calls another seat's player, to a turn still theirs
        try:
            await self._delete_ping(view, "reminder", reminder, story.reminder_over(view))
            if (await self._play.look(view.id)).game.reminder_message_id == reminder:
                await self._play.set_reminder_message(view.id, None)
        except Exception as error:
            log.log(
                failure_level(error, logging.INFO),
                "game %s: reminder %s not retired (%s)",
                view.id,
                reminder,
                why(error),
            )

    async def after_abort(self, view: GameView, skip: set[int] | None = None) -> None:
        """An aborted game: its last message is retired (a turn down to its line, which says the
        game was aborted; a lobby closed), unless it is among `skip` (retired already), and
        its lobby says so; its end is then recorded as shown."""
        message_id = view.game.board_message_id
        if message_id is not None and message_id not in (skip or set()):
            await self._retire(view, message_id, _shown_seq(view))
        if view.game.lobby_message_id not in (None, message_id):
            self._point_lobby(view, None)
        await self._retire_pings(view)
        await self._play.mark_end_shown(view.id)
        for listener in self._shown_listeners:  # the spectators are told the end too
            listener(view, message_id or 0)

    async def _retire_pings(self, view: GameView) -> None:
        """The turn a reminder to play, or a ping of a player (a nudge, the call of a seat's
        new player), was about is over. If it ran out of time, the reminder (else the ping)
        becomes the line that says what the AI did, for the player who follows it too late;
        every other one is deleted: it called someone to a turn whose own line now tells how
        it went, and a line per ping would bury the game in a short-limit channel."""
        reminder, ping = view.game.reminder_message_id, view.game.nudge_message_id
        if reminder is None and ping is None:
            return
        ran_out = story.ran_out(view)
        if reminder is not None:
            if ran_out is not None:
                await self.retire_message(view, "reminder", reminder, ran_out)
            else:
                await self._delete_ping(view, "reminder", reminder, story.reminder_over(view))
            await self._play.set_reminder_message(view.id, None)
        if ping is not None:
            if ran_out is not None and reminder is None:
                await self.retire_message(view, "nudge", ping, ran_out)
            else:
                await self._delete_ping(view, "nudge", ping, story.nudge_over(view))
            await self._play.set_nudge_message(view.id, None)

    async def _delete_ping(self, view: GameView, kind: str, message_id: int, over: str) -> None:
        """Delete a ping whose turn is over; one Discord will not delete is edited to `over`
        instead, so that it never goes on calling (best effort, as every retirement)."""
        if not await self.delete(view, kind, message_id):
            await self.retire_message(view, kind, message_id, over)

    async def post(self, view: GameView, /, **fields: Any) -> discord.Message:
        """Post a message of the game (a seat request) in its channel, through a fresh
        interaction of the game else with the bot token, waiting DISCORD_TIMEOUT_SECONDS at
        most (TimeoutError after that)."""
        return await asyncio.wait_for(self._post(view, **fields), DISCORD_TIMEOUT_SECONDS)

    async def delete(self, view: GameView, kind: str, message_id: int) -> bool:
        """Delete a message of the game's channel (a `kind` of message); True if it is gone
        (now, or before). Best effort: a refusal is logged."""
        try:
            await bounded(self._delivery.delete(view.id, self._message(view, message_id)))
        except discord.NotFound:
            return True
        except DISCORD_FAILURES as error:
            log.log(
                failure_level(error, logging.INFO),
                "%s %s of game %s not deleted: %s",
                kind,
                message_id,
                view.id,
                why(error),
            )
            return False
        return True

    async def retire_message(
        self, view: GameView, kind: str, message_id: int, line: str, *, buttons: bool = False
    ) -> None:
        """Edit a message of the game's channel (a `kind` of message: a ping, a request) down to
        `line`, pinging no one, and without its `buttons` if it has some. Best effort: a refusal
        is logged, the message may be gone."""
        fields: dict[str, Any] = {"content": line}
        if buttons:
            fields["view"] = None
        try:
            await bounded(
                self._edit(
                    view, message_id, allowed_mentions=discord.AllowedMentions.none(), **fields
                )
            )
        except DISCORD_FAILURES as error:
            log.log(
                failure_level(error, logging.INFO),
                "%s %s of game %s not retired: %s",
                kind,
                message_id,
                view.id,
                why(error),
            )

    async def nudge_posted(
        self, nudge: Nudge, interaction: Interaction, sent: replies.Sent
    ) -> None:
        """A player's nudge pinged, in `sent`, the answer to their command (`ping_posted`)."""
        await self.ping_posted(nudge.game_id, nudge.turn, interaction, sent)

    async def ping_posted(
        self, game_id: int, turn: int, interaction: Interaction, sent: replies.Sent
    ) -> None:
        """A ping of a player to play `turn` (a nudge, the call of a seat's new player) went
        out as `sent`, an answer to `interaction`: remembered as the game's ping, so that it
        goes once its turn is over (at once, if that turn ended meanwhile); a ping of the game
        it replaces goes now. Best effort: the ping was made, so a failure is logged, never
        answered."""
        if sent.message_id is None:
            return
        if sent.original:  # edited through the command while it is fresh
            self.opened(game_id, interaction, original=sent.message_id)
        try:
            replaced = (await self._play.look(game_id)).game.nudge_message_id
            await self._play.set_nudge_message(game_id, sent.message_id)
            view = await self._play.look(game_id)
            if replaced is not None and replaced != sent.message_id:
                await self._delete_ping(view, "nudge", replaced, story.nudge_over(view))
            if (
                view.state is None
                or view.status is not GameStatus.RUNNING
                or view.state.turn != turn
            ):
                await self._retire_pings(view)
        except Exception as error:  # the database away, say: the ping stays as it is
            log.info(
                "game %s: ping %s not kept, it will not go when its turn is over (%s)",
                game_id,
                sent.message_id,
                why(error),
            )

    async def _retire(self, view: GameView, message_id: int, shown_seq: int | None) -> None:
        """Edit a message that showed the game at `shown_seq` into what it says now that the
        game moved on from it: a turn's message becomes that turn's one line, with no picture,
        no button and no call to play; the lobby (`shown_seq` None) is closed, saying where the
        game went. Best effort: a refusal is logged (the message may be gone)."""
        lobby = shown_seq is None or message_id == view.game.lobby_message_id
        if lobby and message_id == view.game.lobby_message_id and view.state is not None:
            self._point_lobby(view, None)  # in turn with the links it gets
            return
        try:
            if lobby or view.state is None or shown_seq is None:
                embed = presenter.lobby_post(view).embed if lobby else discord.utils.MISSING
                await bounded(self._edit(view, message_id, embed=embed, view=None))
                return
            line = story.turn_line(view, view.turn_at(shown_seq))
            await bounded(
                self._edit(
                    view,
                    message_id,
                    content=line,
                    embeds=[],
                    attachments=[],
                    view=None,
                    allowed_mentions=discord.AllowedMentions.none(),
                )
            )
        except DISCORD_FAILURES as error:
            log.log(
                failure_level(error, logging.INFO),
                "message %s of game %s not retired: %s",
                message_id,
                view.id,
                why(error),
            )

    async def _lead_lobby_to(self, view: GameView, message_id: int) -> bool | None:
        """The game's message `message_id` was posted (or adopted), not recorded yet: the lobby
        links to it if it is the first turn or the result, and this waits for that edit, so
        that the message is recorded only once the lobby leads to it (a process killed before
        leaves it unrecorded, to the catch-up that adopts it). Whether the edit went through
        (True too with no lobby message to edit); None for a turn between, which leaves the
        lobby as it is, so that a turn costs no edit of it."""
        state = view.state
        first_turn = view.status is GameStatus.RUNNING and state is not None and state.turn == 1
        if not first_turn and view.status is not GameStatus.OVER:
            return None
        editing = self._point_lobby(view, message_id)
        if editing is None:
            return True
        try:
            return await asyncio.shield(editing)
        except Exception as error:  # the message is recorded all the same; a start tries again
            log.log(
                failure_level(error),
                "lobby message of game %s not updated (%s)",
                view.id,
                why(error),
            )
            return False

    def seats_changed(self, view: GameView) -> None:
        """A seat of the running game changed hands: its first message lists who holds the
        seats now, and leads to the game's current message (in the background)."""
        if view.status is GameStatus.RUNNING:
            self._point_lobby(view, view.game.board_message_id)

    def _point_lobby(self, view: GameView, current: int | None) -> asyncio.Task[bool] | None:
        """Have the game's lobby message say where the game is (`current`: the message that
        shows it now, None: no link), in the background; only the newest wish is written, so
        a slow edit never overwrites a later one. The task that writes it, which tells whether
        the last edit it made went through (None: the game has no lobby message to edit)."""
        if view.game.lobby_message_id is None or view.state is None:
            return None
        self._lobby_wanted[view.id] = (view, current)
        editor = self._lobby_editors.get(view.id)
        if editor is None or editor.done():
            editor = asyncio.create_task(self._edit_lobby_links(view.id), name=f"lobby-{view.id}")
            self._lobby_editors[view.id] = editor

            def done(task: asyncio.Task[bool], game_id: int = view.id) -> None:
                if self._lobby_editors.get(game_id) is task:
                    del self._lobby_editors[game_id]

            editor.add_done_callback(done)
        return editor

    async def _edit_lobby_links(self, game_id: int) -> bool:
        """Write the game's lobby wishes, the newest last; whether the last edit went through
        (a lobby message that is gone has nothing left to show)."""
        through = True
        while (wanted := self._lobby_wanted.pop(game_id, None)) is not None:
            view, current = wanted
            lobby_id = view.game.lobby_message_id
            assert lobby_id is not None
            link = None
            if current is not None:
                link = message_link(view.game.guild_id, view.game.channel_id, current)
            post = presenter.lobby_post(view, link=link)
            try:
                buttons = self._lobby_buttons(view) if self._lobby_buttons else None
                await bounded(self._edit(view, lobby_id, embed=post.embed, view=buttons))
                through = True
            except discord.NotFound:
                through = True  # deleted: nothing left to lead anywhere
            except DISCORD_FAILURES as error:
                # a later change edits the lobby again, else a start (`lobbies_behind`)
                log.log(
                    failure_level(error, logging.INFO),
                    "lobby message of game %s not updated: %s",
                    game_id,
                    why(error),
                )
                through = False
        return through

    async def _files(self, post: Post) -> list[discord.File]:
        if post.image is None:
            return []
        return [images.as_file(await self._pictures.png(post.image))]

    async def _respond_line(self, interaction: Interaction, line: str) -> None:
        """Answer a click by editing its message down to one line of text (a finished turn):
        no picture to draw, so no deferral."""
        kwargs: dict[str, Any] = {
            "content": line,
            "embeds": [],
            "attachments": [],
            "view": None,
            "allowed_mentions": discord.AllowedMentions.none(),
        }
        await replies.edit(interaction, **kwargs)

    async def edit_response(
        self, interaction: Interaction, post: Post, buttons: discord.ui.View | None
    ) -> None:
        """Answer a click by editing its message (a private one too) to `post`."""
        await self._respond_edit(interaction, post, buttons)

    async def _respond_edit(
        self, interaction: Interaction, post: Post, buttons: discord.ui.View | None
    ) -> None:
        """Answer a click by editing its message; defer first if the image is slow to draw."""
        files = await self._files_in_time(interaction, post)
        await replies.edit(
            interaction, content=post.content, embed=post.embed, attachments=files, view=buttons
        )

    async def send_response(
        self,
        interaction: Interaction,
        post: Post,
        *,
        ephemeral: bool,
        buttons: discord.ui.View | None = None,
        note: str | None = None,
    ) -> None:
        """Answer with `post` (and its `buttons`), a `note` above it if given."""
        files = await self._files_in_time(interaction, post, ephemeral=ephemeral)
        view = or_missing(buttons)
        content = note if note is not None else discord.utils.MISSING
        await replies.send(
            interaction,
            content=content,
            embed=post.embed,
            files=files,
            ephemeral=ephemeral,
            view=view,
        )

    async def _files_in_time(
        self, interaction: Interaction, post: Post, *, ephemeral: bool = False
    ) -> list[discord.File]:
        """Draw the post's picture; if it is not ready within ANSWER_PATIENCE_SECONDS of the
        interaction's arrival (or every worker is busy), defer the interaction meanwhile."""
        # The interaction may have waited before its handler ran: count from its creation.
        patience = ANSWER_PATIENCE_SECONDS - replies.elapsed(interaction, received_at())
        if post.image is not None and self._pictures.busy:
            patience = 0.0
        return await replies.in_time(interaction, self._files(post), patience, ephemeral=ephemeral)

    def _channel(self, view: GameView) -> discord.PartialMessageable:
        return self._client.get_partial_messageable(
            view.game.channel_id, guild_id=view.game.guild_id
        )

    def _message(self, view: GameView, message_id: int) -> discord.PartialMessage:
        return self._channel(view).get_partial_message(message_id)

    async def _post(self, game: GameView, /, **fields: Any) -> discord.Message:
        """Post one of the game's messages in its channel (bot.edge.delivery)."""
        return await self._delivery.post(game.id, self._channel(game), **fields)

    async def _edit(self, game: GameView, message_id: int, /, **fields: Any) -> None:
        """Edit one of the game's messages (bot.edge.delivery)."""
        await self._delivery.edit(game.id, self._message(game, message_id), **fields)


def _shown_seq(view: GameView) -> int | None:
    """The seq the game's recorded message shows (None: its lobby, or no message). A hand-over
    marks the turn's message as not showing the game (bot.storage.substitutes) but moves no
    seq: that message still shows the game's seq, with the seat's player who left."""
    game = view.game
    if (
        game.board_message_seq is None
        and view.state is not None
        and game.board_message_id not in (None, game.lobby_message_id)
    ):
        return view.seq
    return game.board_message_seq


async def _discord_back() -> None:
    """Return once Discord answers again, if it was failing: never while it answers (a
    pause waits for this only to end sooner)."""
    availability = DISCORD.availability
    if availability.up:
        await asyncio.Event().wait()
    await availability.back()


async def _first(*waits: Awaitable[object]) -> None:
    """Wait for the first of `waits` to return, and cancel the others."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
