"""SeatController: substitutes and nudges at the edge (docs/async.md#substitutes), thin
handlers over bot.services.substitutes and bot.services.nudges.

`/marrakech-mod substitute` hands a seat over at once (the channel's game, or `game:` of this
server); `/marrakech substitute` is the host's request, posted in the game's channel with Agree
and Refuse buttons (`mk:seat:...`, bot.edge.buttons) for the others: the request is stored, so
its buttons answer after a restart, and its message is kept: when its game ends first it is
edited to say the request is closed (at once, or at the next start; a database outage that cuts
the closing off is waited out), and a press on one that can no longer be answered edits it so
too. A hand-over is told in the game's channel, pinging the substitute. `/marrakech nudge` pings
the person the channel's game waits for, in the channel.
Refusals are short private answers (bot.edge.errors).

A person in their quiet hours is named without being pinged (bot.services.away): by the
hand-over, and by a request calling them; the call of a seat's new player to the turn under
way is held for the end of those hours, as the turn message's ping is.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Iterable
from dataclasses import replace
from typing import Any, Protocol

import discord

import engine
from bot.edge import interactions, replies
from bot.edge.answers import bounded, guarded
from bot.edge.buttons import SeatAnswer, SeatButton
from bot.edge.display import GameDisplay
from bot.edge.errors import ModeratorsOnlyError
from bot.edge.incidents import DISCORD_FAILURES, failure_level, why
from bot.edge.interactions import Interaction
from bot.presentation.links import mention
from bot.presentation.messages import listed, text
from bot.services.availability import Availability, DatabaseUnavailableError
from bot.services.away import AwayService
from bot.services.errors import GameError, GameNotFoundError
from bot.services.nudges import NudgeService
from bot.services.play import PlayService
from bot.services.seat_errors import SubstituteError
from bot.services.substitutes import (
    REQUEST_HOURS,
    Handover,
    HandoverRequest,
    SubstituteService,
)
from bot.services.views import GameStatus, GameView
from bot.supervisor import cancel_and_wait

log = logging.getLogger(__name__)


class OpenGames(Protocol):
    async def open_game_id(self, channel_id: int) -> int: ...


class SeatController:
    """Handles the substitute and nudge commands and the seat request buttons."""

    def __init__(
        self,
        games: OpenGames,
        play: PlayService,
        substitutes: SubstituteService,
        nudges: NudgeService,
        display: GameDisplay,
        away: AwayService,
        availability: Availability | None = None,
    ) -> None:
        """`away` says who is in their quiet hours, named then without a ping. `availability`
        is the database's: requests an outage kept from closing are closed once it is back
        (None: by the next start, or a press)."""
        self._availability = availability
        self._games = games
        self._away = away
        self._display = display
        self._play = play
        self._substitutes = substitutes
        self._nudges = nudges
        self._tasks: set[asyncio.Task[None]] = set()

    async def substitute(
        self,
        interaction: Interaction,
        out: discord.User | discord.Member,
        incoming: discord.User | discord.Member,
        game: int | None = None,
        *,
        moderator: bool,
    ) -> None:
        """A moderator's hand-over (at once), or the host's request (once the others agree)."""

        async def work() -> None:
            guild_id = interactions.guild_id(interaction)
            if moderator and game is None and not interaction.permissions.manage_channels:
                raise ModeratorsOnlyError()  # the channel's own game: its permissions are these
            game_id = game
            if game_id is None:
                game_id = await self._games.open_game_id(interactions.channel_id(interaction))
            view = await self._play.look(game_id)
            if view.game.guild_id != guild_id:
                raise GameNotFoundError(game_id)
            if moderator and not interactions.moderates(interaction, view.game.channel_id):
                raise ModeratorsOnlyError()  # a moderator of the channel typed in only
            if not incoming.bot and not isinstance(incoming, discord.Member):
                raise SubstituteError("not_member", incoming.id)  # can neither see nor play
            name = incoming.display_name
            if moderator:
                handover = await self._substitutes.substitute(
                    game_id, out.id, incoming.id, name, in_bot=incoming.bot
                )
                try:
                    await self._tell_handover(interaction, handover)
                finally:  # stored: drawn though Discord refused the answer (too late)
                    await self._redraw(view, handover)
                return
            answer = await self._substitutes.ask(
                game_id, interaction.user.id, out.id, incoming.id, name, in_bot=incoming.bot
            )
            if answer.handover is not None:
                try:
                    await self._tell_handover(interaction, answer.handover)
                finally:  # stored: drawn though Discord refused the answer (too late)
                    await self._redraw(view, answer.handover)
                return
            language = view.game.locale
            sent = await replies.send(
                interaction,
                content=_asked(answer.request, language),
                view=_request_buttons(answer.request.id, language),
                allowed_mentions=await self._calling(answer.request),
            )
            await self._remember(answer.request, sent)

        await guarded(interaction, "handing a seat over", work, public=True)

    async def _remember(self, request: HandoverRequest, sent: replies.Sent) -> None:
        """Keep the request's message, so that it can say when the request is closed without
        an answer (its game ended). A request closed while it was being posted (its game ended,
        or the person leaving or the host no longer plays, and what closed it found no message
        to edit) is shown closed now, saying why; one posted again meanwhile, as the people
        it waits for changed, is answered by that message, so this one, naming whom it waited
        for before, goes. Best effort: the request was made, so a failure is logged, never
        answered; its buttons then answer as usual, and a press edits it as closed."""
        if sent.message_id is None:
            return
        try:
            if not await self._substitutes.replace_message(
                request.id, sent.message_id, request.waiting_for, None
            ):  # posted again meanwhile
                view = await self._play.look(request.game_id)
                await self._display.delete(view, "seat request", sent.message_id)
                return
            closed = await self._substitutes.close_for_ended_games(request.game_id)
            because = None
            if not closed:  # closed by another before its message was known, or still open
                stored = await self._substitutes.request(request.id)
                if stored.status == "failed":
                    closed = [stored]
                    because = await self._substitutes.closed_because(stored)
        except (DatabaseUnavailableError, GameError, SubstituteError) as error:
            log.info(
                "seat request %s: message not kept (%s)",
                request.id,
                why(error),
            )
            return
        await self._show_closed(closed, because)  # closed while the request was being posted

    async def stop(self) -> None:
        """Stop closing requests in the background (before the database closes); never
        raises. What is left open is closed by the next start."""
        await cancel_and_wait(list(self._tasks))

    def game_closed(self, game_id: int) -> None:
        """A game ended (the loader says so, right after the write): its open requests are
        closed, and their messages say so, in the background."""
        self._in_background(self._logged_close(game_id), f"requests-{game_id}")

    def seat_left(self, game_id: int) -> None:
        """A person resigned from a game that goes on (the loader says so, right after the
        write): its open requests are shown as they stand now, in the background: one that
        waited for them alone, or that would hand their seat over, is closed."""
        self._in_background(self._logged_requests_after(game_id), f"requests-left-{game_id}")

    def _in_background(self, work: Coroutine[Any, Any, None], name: str) -> None:
        task = asyncio.create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _logged_requests_after(self, game_id: int) -> None:
        try:
            await self._requests_after(game_id)
        except Exception:  # a task of its own: nobody else would see it
            log.exception("showing the seat requests of game %s anew failed", game_id)

    async def _logged_close(self, game_id: int | None) -> None:
        try:
            await self.close_for_ended_games(game_id)
        except Exception:  # a task of its own: nobody else would see it
            which = "ended games" if game_id is None else f"game {game_id}"
            log.exception("closing the seat requests of %s failed", which)

    async def close_for_ended_games(self, game_id: int | None = None) -> None:
        """Close the open requests of games that no longer run (of `game_id`, or all, as at a
        start, for a process that ended a game and died before this), and show them closed.
        A database outage is one INFO line (the outage itself is logged by its watch): the
        closing is made again in the background once the database is back, so a start goes
        on meanwhile. Discord's refusals are one INFO line too (the edit is best effort): a
        message they leave as it was is closed by a press."""
        try:
            closed = await self._substitutes.close_for_ended_games(game_id)
        except DatabaseUnavailableError as error:
            if self._availability is None:
                log.info(
                    "seat requests of ended games not closed (%s)",
                    why(error),
                )
                return
            log.info(
                "seat requests of ended games are closed once the database is back (%s)",
                why(error),
            )
            self._in_background(self._close_once_back(game_id), "requests-once-back")
            return
        await self._show_closed(closed)

    async def _close_once_back(self, game_id: int | None) -> None:
        assert self._availability is not None
        await self._availability.back()
        await self._logged_close(game_id)

    async def _show_closed(
        self, requests: list[HandoverRequest], because: str | None = None
    ) -> None:
        """Edit the requests' messages to say they are closed, and why (`because`: see
        `Answer.closed_because`). Just after a start, the run before may have filled the
        channel's window of a game from before it: the edit, with the bot token, waits it out."""
        for request in requests:
            if request.message_id is None:
                continue
            await self._display.wait_out_last_run(request.game_id)
            try:
                view = await self._play.look(request.game_id)
            except (GameError, DatabaseUnavailableError) as error:
                log.info(
                    "seat request %s: not shown closed (%s)",
                    request.id,
                    why(error),
                )
                continue
            await self._display.retire_message(
                view,
                "seat request",
                request.message_id,
                _closed(request, view, because),
                buttons=True,
            )

    async def on_seat_answer(
        self, interaction: discord.Interaction[Any], request_id: int, answer: SeatAnswer
    ) -> None:
        """A player's Agree or Refuse on a host's request."""

        async def work() -> None:
            request = await self._substitutes.request(request_id)
            before = await self._play.look(request.game_id)
            try:
                done = await self._substitutes.answer(
                    request_id, interaction.user.id, agree=answer is SeatAnswer.AGREE
                )
            except SubstituteError as error:
                if error.code in ("request_expired", "request_failed"):  # nothing to press
                    closed = replace(request, status=error.code.removeprefix("request_"))
                    because = None
                    if error.code == "request_failed":
                        because = await self._substitutes.closed_because(closed)
                    await self._edit_closed(interaction, closed, before, because)
                else:
                    await self._if_failed_now(interaction, request)
                raise
            except GameError:
                await self._if_failed_now(interaction, request)
                raise
            language = before.game.locale
            if done.handover is not None:
                await replies.edit(
                    interaction, content=_handover_text(done.handover, language), view=None
                )
                try:
                    await self._redraw(before, done.handover)
                finally:  # stored: its new player is called though Discord failed the redraw
                    await self._call_if_to_move(interaction, done.handover)
                return
            if done.request.status == "done":  # carried out by another press meanwhile
                raise SubstituteError("request_done")
            if done.request.status == "failed":  # the seats changed: it can no longer be
                await self._edit_closed(interaction, done.request, before, done.closed_because)
                raise SubstituteError("request_failed")
            if done.request.status != "refused":  # still waiting: who for, now
                await replies.edit(interaction, content=_asked(done.request, language))
                return
            withdrawn = interaction.user.id == done.request.asked_by
            refused = text(
                "substitute.withdrawn" if withdrawn else "substitute.refused",
                language,
                user=mention(interaction.user.id),
                outgoing=mention(done.request.out_user_id),
                game_id=done.request.game_id,
            )
            await replies.edit(interaction, content=refused, view=None)

        await guarded(interaction, "answering a seat request", work)

    async def _if_failed_now(self, interaction: Interaction, request: HandoverRequest) -> None:
        """A press whose hand-over the game refused (it ended, or its seat changed, as the
        press carried the request out) closed the request as failed: nobody else shows it
        closed, so its message says so here, and why (the person leaving or the host no longer
        plays, say), offering nothing more to press."""
        stored = await self._substitutes.request(request.id)
        if stored.status == "failed":
            because = await self._substitutes.closed_because(stored)
            view = await self._play.look(request.game_id)
            await self._edit_closed(interaction, stored, view, because)

    async def _edit_closed(
        self,
        interaction: Interaction,
        request: HandoverRequest,
        view: GameView,
        because: str | None = None,
    ) -> None:
        """Edit the pressed request's message to say it is closed, and why (`because`: see
        `Answer.closed_because`)."""
        await replies.edit(
            interaction,
            content=_closed(request, view, because),
            view=None,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def nudge(self, interaction: Interaction) -> None:
        """Ping, in the channel, the person the channel's game waits for."""

        async def work() -> None:
            interactions.guild_id(interaction)
            game_id = await self._games.open_game_id(interactions.channel_id(interaction))
            nudge = await self._nudges.nudge(game_id, interaction.user.id)
            ping: dict[str, Any] = {
                "content": text(
                    "nudge.ping",
                    nudge.locale,
                    user=mention(nudge.user_id),
                    by=mention(nudge.by),
                    game_id=nudge.game_id,
                ),
                "allowed_mentions": discord.AllowedMentions(users=[discord.Object(nudge.user_id)]),
            }
            try:
                sent = await replies.send(interaction, **ping)
            except discord.NotFound:  # answered too late: the nudge is spent, so it goes out
                posted = await self._display.post(await self._play.look(game_id), **ping)
                sent = replies.Sent(posted.id, original=False)
                await self._display.nudge_posted(nudge, interaction, sent)
                raise
            await self._display.nudge_posted(nudge, interaction, sent)

        await guarded(interaction, "nudging", work, public=True)

    async def _redraw(self, before: GameView, handover: Handover) -> None:
        """Redraw the game's turn message for its new player (again in the background, if
        Discord fails now: the hand-over is stored), and its first message's list of players;
        retire the turn's reminder if it called the person who left; then show the game's
        other open requests as they stand now (`_requests_after`)."""
        self._display.seats_changed(handover.view)
        await self._display.seat_handed_over(handover.view, handover.in_user_id)
        try:
            await self._display.after_change_elsewhere(before, handover.view)
        except Exception:
            self._display.retry_display(handover.view.id)
            raise
        await self._requests_after(handover.view.id)

    async def _requests_after(self, game_id: int) -> None:
        """The game's open requests once a seat changed hands: one that now waits for someone
        else is posted again, calling whom it waits for (its old message goes); one closed is
        shown closed; one carried out says so. Best effort: a failure is logged, and the
        buttons answer by the game as it stands whatever the message says."""
        try:
            answers = await self._substitutes.after_seats_changed(game_id)
            if not answers:
                return
            view = await self._play.look(game_id)
        except (GameError, DatabaseUnavailableError) as error:
            log.info(
                "game %s: open seat requests not shown anew (%s)",
                game_id,
                why(error),
            )
            return
        for answer in answers:
            request = answer.request
            try:
                if answer.handover is None and request.status == "open":
                    await self._post_again(view, request)
                    continue
                if request.message_id is not None:  # the hand-over, or why it is closed
                    line = (
                        _closed(request, view, answer.closed_because)
                        if answer.handover is None
                        else _handover_text(answer.handover, view.game.locale)
                    )
                    await self._display.retire_message(
                        view, "seat request", request.message_id, line, buttons=True
                    )
                if answer.handover is not None:
                    await self._redraw(view, answer.handover)
            except DISCORD_FAILURES as error:
                log.log(
                    failure_level(error, logging.INFO),
                    "seat request %s: not shown anew (%s)",
                    request.id,
                    why(error),
                )

    async def _post_again(self, view: GameView, request: HandoverRequest) -> None:
        """Post the request again in its game's channel, calling whom it waits for now; its
        old message, which named others, goes (the host's answer too, when it came to be known
        only as this was posted)."""
        language = view.game.locale
        sent = await self._display.post(
            view,
            content=_asked(request, language),
            view=_request_buttons(request.id, language),
            allowed_mentions=await self._calling(request),
        )
        old = request.message_id
        if not await self._substitutes.replace_message(
            request.id, sent.id, request.waiting_for, old
        ):  # another message was remembered meanwhile: this one, posted last, replaces it
            old = (await self._substitutes.request(request.id)).message_id
            if not await self._substitutes.replace_message(
                request.id, sent.id, request.waiting_for, old
            ):
                await self._display.delete(view, "seat request", sent.id)
                return
        if old is not None:
            await self._display.delete(view, "seat request", old)

    async def _call_if_to_move(self, interaction: Interaction, handover: Handover) -> None:
        """The seat handed over by agreement is the one to move: ping its new player, in the
        game's channel (the request's message, edited into the hand-over, pings no one), in a
        ping that goes once the turn is over, as a nudge does."""
        view = handover.view
        if view.state is None or view.user_to_move != handover.in_user_id:
            return
        incoming = handover.in_user_id
        sent = await replies.send(
            interaction,
            content=text("turn.ping", view.game.locale, user=mention(incoming), game_id=view.id),
            allowed_mentions=await self._pinging((incoming,), view),
        )
        await self._display.ping_posted(view.id, view.state.turn, interaction, sent)

    async def _tell_handover(self, interaction: Interaction, handover: Handover) -> None:
        """Tell the hand-over in the game's channel (pinging the substitute, out of their
        quiet hours): as the answer when the command was used there, else posted there with
        a private answer here."""
        game = handover.view.game
        content = _handover_text(handover, game.locale)
        pinged = await self._pinging((handover.in_user_id,), handover.view)
        if interactions.channel_id(interaction) == game.channel_id:
            try:
                await replies.send(interaction, content=content, allowed_mentions=pinged)
            except discord.NotFound:  # answered too late: told in the channel all the same
                await self._display.post(handover.view, content=content, allowed_mentions=pinged)
                raise
            return
        told = "substitute.done_elsewhere"
        try:
            channel = interaction.client.get_channel(game.channel_id)
            if channel is None:
                channel = await bounded(interaction.client.fetch_channel(game.channel_id))
            if isinstance(channel, discord.abc.Messageable):
                await bounded(channel.send(content, allowed_mentions=pinged))
        except DISCORD_FAILURES as error:  # the hand-over is stored: the game's message shows it
            log.log(
                failure_level(error),
                "game %s: hand-over not told in its channel (%s)",
                game.id,
                why(error),
            )
            told = "substitute.done_untold"
        language = interactions.user_language(interaction)
        await replies.send(
            interaction, content=text(told, language, game_id=game.id), ephemeral=True
        )

    async def _calling(self, request: HandoverRequest) -> discord.AllowedMentions:
        """Whom a request's message pings: whom it waits for, and the person leaving (who may
        refuse)."""
        return await self._pinging((*request.missing, request.out_user_id))

    async def _pinging(
        self, users: Iterable[int], view: GameView | None = None
    ) -> discord.AllowedMentions:
        """The pings of a message naming `users`: not of those in their quiet hours, whom it
        names only; the call of the player to move in `view` is then held for the end of
        those hours, as the turn message's ping is (bot.services.away)."""
        pinged: list[int] = []
        for user in users:
            if view is not None and view.user_to_move == user:
                pinged.extend(await self._away.reachable(view.game, view.seq, (user,)))
            elif await self._away.quiet_until(user) is None:
                pinged.append(user)
        return discord.AllowedMentions(users=[discord.Object(user) for user in pinged])


def _handover_text(handover: Handover, language: str) -> str:
    """The hand-over, as told in the game's channel: who takes the seat, and who is rated for
    it (nobody, in a casual or coached game)."""
    game = handover.view.game
    return text(
        "substitute.done_unrated" if game.casual or game.coach else "substitute.done",
        language,
        incoming=mention(handover.in_user_id),
        outgoing=mention(handover.out_user_id),
        color=_seat_colors(handover, language),
        game_id=handover.view.game.id,
    )


def _seat_colors(handover: Handover, language: str) -> str:
    """The colours of the seat handed over, in words: "red", or in a duel "red and blue"."""
    state = handover.view.state
    assert state is not None
    colors = engine.seat_colors(state.players, handover.seat)
    return listed([text(f"color.{color.value}", language) for color in colors], language)


def _closed(request: HandoverRequest, view: GameView, because: str | None = None) -> str:
    """A request that can no longer be answered, as its message says it once it is closed:
    its time ran out, or its game ended (or changed, `because`: see `Answer.closed_because`)
    before it was carried out."""
    if request.status == "expired":
        key = "substitute.closed.expired"
    elif view.status is not GameStatus.RUNNING:
        key = "substitute.closed.ended"
    elif because is not None:
        key = f"substitute.closed.{because}"
    else:
        key = "substitute.closed.failed"
    return text(
        key,
        view.game.locale,
        host=mention(request.asked_by),
        outgoing=mention(request.out_user_id),
        incoming=mention(request.in_user_id),
        game_id=request.game_id,
    )


def _request_buttons(request_id: int, language: str) -> discord.ui.View:
    """A request's Agree and Refuse."""
    buttons = discord.ui.View(timeout=None)
    for answer, key, style in (
        (SeatAnswer.AGREE, "substitute.agree.button", discord.ButtonStyle.success),
        (SeatAnswer.REFUSE, "substitute.refuse.button", discord.ButtonStyle.danger),
    ):
        buttons.add_item(SeatButton(request_id, answer, label=text(key, language), style=style))
    return buttons


def _asked(request: HandoverRequest, language: str) -> str:
    return text(
        "substitute.asked",
        language,
        host=mention(request.asked_by),
        outgoing=mention(request.out_user_id),
        incoming=mention(request.in_user_id),
        game_id=request.game_id,
        waiting=", ".join(mention(user) for user in request.missing),
        hours=REQUEST_HOURS,
    )
