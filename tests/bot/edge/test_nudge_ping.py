"""A nudge's ping in the channel goes once the turn it was about is over (deleted: the turn's
own line tells how it went): when the turn is played on its message, when the bot catches up
after a restart, and at once when the turn ended while the nudge was being posted; so does the
reminder of a turn played in time, at once too when the turn ended as it was posted (one a
moderator deleted already counts as gone, and is not edited; one Discord will not delete says
its turn is over). Both go with an aborted game, and a new reminder never leaves the one the
game still names in the channel. A nudge speaks the game's language, whoever nudges; in a game
played in a thread it is posted in that thread; a person away or in their quiet hours is not
pinged. A database that fails once the ping is out costs the nudger no error. Through real
discord.py interactions on the fake Discord (tests/bot/edge/test_edge.py)."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import engine
from bot.edge.inflight import HANDLERS
from bot.services.nudges import Nudge, NudgeService
from bot.services.play import PlayService
from bot.services.views import GameStatus, GameView, Reminder
from bot.storage.errors import DatabaseUnavailableError
from tests.bot.edge.test_away_turns import duel
from tests.bot.edge.test_edge import (
    Edge,
    a_window_later,
    clock_moving_waits,
    confirm,
    edge,
    late_command,
    mover_of,
    running_edge,
    started,
)
from tests.bot.edge.test_edge_languages import french_game, french_server
from tests.bot.edge.test_notices import press
from tests.bot.edge.test_substitute_answers import played_by
from tests.bot.edge.test_watch_buttons import play_turn
from tests.e2e.fakecord import FakeMessage, FakeUser

__all__ = ["edge"]


async def nudged(edge: Edge, turn: FakeMessage) -> FakeMessage:
    """The player not to move nudges the one who is; their ping, answered in the channel."""
    mover = await mover_of(edge, turn)
    other = edge.guest if mover is edge.host else edge.host
    ping = await edge.slash(other, "marrakech", "nudge").answer()
    assert not ping.ephemeral
    assert ping.pinged_user_ids == {mover.id}
    return ping


def says_its_turn_is_over(edge: Edge, ping: FakeMessage) -> bool:
    """The ping no longer calls anyone: deleted, its turn being over."""
    return edge.fake.world.messages[ping.id].deleted


@pytest.mark.parametrize(("why", "said"), [("away", "is away"), ("quiet", "quiet hours")])
async def test_a_nudge_of_a_person_away_or_in_quiet_hours_pings_no_one_and_says_why(
    edge: Edge, why: str, said: str
) -> None:
    """The bot as it is built asks whether the person the game waits for can be reached before
    it pings them."""
    _, mover, other = await duel(edge, turn_limit=3600)
    if why == "away":
        await edge.slash(mover, "marrakech", "away", days=2).answer()
    else:
        now = edge.service.loader.clock()
        hours: dict[str, Any] = {
            "from": f"{now - timedelta(hours=1):%H:%M}",
            "to": f"{now + timedelta(hours=2):%H:%M}",
            "timezone": "UTC",
        }
        await edge.slash(mover, "marrakech", "quiet-hours", **hours).answer()
    answer = await edge.slash(other, "marrakech", "nudge").answer()
    assert answer.ephemeral, answer.content
    assert not answer.pinged_user_ids
    assert said in answer.content, answer.content


async def test_a_nudge_says_its_turn_is_over_once_it_is_played(edge: Edge) -> None:
    turn = await started(edge)
    ping = await nudged(edge, turn)
    assert not says_its_turn_is_over(edge, ping)
    await play_turn(edge, turn)
    await edge.fake.wait_until(
        lambda: says_its_turn_is_over(edge, ping), what="the nudge saying its turn is over"
    )
    assert await HANDLERS.drained(30.0), "a click's handler is still running"
    game = await edge.store.get(1)
    assert game is not None
    assert game.nudge_message_id is None, "nothing left to retire"


@pytest.mark.invalid_requests(403)
async def test_a_nudge_discord_will_not_delete_says_its_turn_is_over_instead(edge: Edge) -> None:
    """Deleting the ping is refused once its turn is played: it is edited to say the turn is
    over, so that it no longer calls the player."""
    turn = await started(edge)
    ping = await nudged(edge, turn)
    refused = edge.fake.faults.forbidden(
        "DELETE", r"/(channels|webhooks)/.+/messages/.+", times=None
    )
    await play_turn(edge, turn)
    await refused.wait_fired()
    assert await HANDLERS.drained(30.0), "a click's handler is still running"
    shown = edge.fake.world.messages[ping.id]
    assert not shown.deleted
    assert shown.content == "⏰ Game #1: the turn this nudge was about is over."
    game = await edge.store.get(1)
    assert game is not None
    assert game.nudge_message_id is None, "nothing left to retire"


async def test_a_nudge_pings_in_the_game_s_language_whoever_nudges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """On a French server the Ukrainian host or the British guest nudges the other: the ping
    in the game's channel is French."""
    async with french_server(tmp_path, monkeypatch, test=request.node) as edge:
        ping = await nudged(edge, await french_game(edge))
        (mover_id,) = ping.pinged_user_ids
        nudger = edge.guest if mover_id == edge.host.id else edge.host
        assert ping.content == (
            f"<@{mover_id}>, la partie n° 1 vous attend (relance de <@{nudger.id}>)."
        )


@pytest.mark.parametrize(("server_locale", "language"), [("fr", "fr"), ("uk", "uk")])
async def test_a_restart_retires_a_nudge_whose_turn_ended_unshown(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    server_locale: str,
    language: str,
) -> None:
    """The turn is played and the bot stops before showing it: catching up after the restart
    deletes the nudge, whatever the game's language."""
    async with running_edge(
        tmp_path, monkeypatch, server_locale=server_locale, test=request.node
    ) as edge:
        lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
        await press(edge, edge.guest, lobby, "join")
        await press(edge, edge.host, lobby, "start")
        turn = await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
        ping = await nudged(edge, turn)
        await play_unshown(edge, await mover_of(edge, turn))
        assert not says_its_turn_is_over(edge, ping)
        a_window_later(edge, monkeypatch)
        await edge.bot.display.resume_displays()
        assert says_its_turn_is_over(edge, ping)


async def test_a_restart_retires_the_nudge_of_a_game_that_ended_unshown_within_its_turn(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The nudged player resigns, which ends the game of two within the turn its message
    shows, and the bot stops before showing it: catching up after the restart shows the
    result and deletes the nudge, though the turn the message shows is still the game's."""
    turn = await started(edge)
    ping = await nudged(edge, turn)
    mover = await mover_of(edge, turn)
    assert await HANDLERS.drained(30.0), "the nudge's handler is still running"
    game = await edge.store.get(1)
    assert game is not None
    assert game.nudge_message_id == ping.id, "the nudge is the game's ping"
    view = await edge.service.play.resign(1, mover.id)  # stored, shown by nothing
    assert view.status is GameStatus.OVER
    a_window_later(edge, monkeypatch)
    await edge.bot.display.resume_displays()
    assert await edge.service.play.behind_on_display() == []
    assert says_its_turn_is_over(edge, ping), edge.fake.transcript(edge.channel)
    game = await edge.store.get(1)
    assert game is not None
    assert game.nudge_message_id is None, "nothing left to retire"


async def test_a_restart_killed_while_it_deletes_a_nudge_leaves_it_to_the_next_start(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game's end is stored and shown by nothing; the catch-up after a restart is killed
    as it deletes the nudge (the deletion raises). The game names the nudge as its ping until
    the nudge is gone, so the next start deletes it."""
    turn = await started(edge)
    ping = await nudged(edge, turn)
    mover = await mover_of(edge, turn)
    assert await HANDLERS.drained(30.0), "the nudge's handler is still running"
    view = await edge.service.play.resign(1, mover.id)  # stored, shown by nothing
    assert view.status is GameStatus.OVER
    display = edge.bot.display
    delete = display.delete

    async def killed(view: GameView, kind: str, message_id: int) -> bool:
        raise RuntimeError("killed while deleting the nudge")

    monkeypatch.setattr(display, "delete", killed)
    a_window_later(edge, monkeypatch)
    with pytest.raises(RuntimeError, match="killed"):
        await display.resume_displays()
    assert not says_its_turn_is_over(edge, ping)
    monkeypatch.setattr(display, "delete", delete)
    a_window_later(edge, monkeypatch)
    await display.resume_displays()  # the next start
    assert says_its_turn_is_over(edge, ping), "forgotten before it was deleted"


async def test_a_restart_mid_turn_keeps_the_nudge_of_the_turn_still_under_way(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mover makes a decision within their turn and the bot stops before showing it: the
    catch-up after the restart finds the message behind, but the turn not over, and the nudge
    stays (and is still the one to go once the turn is over)."""
    turn = await started(edge)
    ping = await nudged(edge, turn)
    mover = await mover_of(edge, turn)
    view = await edge.service.play.look(1)
    assert view.state is not None
    first = view.state.turn
    view = await edge.service.play.act(1, mover.id, view.seq, engine.legal_actions(view.state)[0])
    assert view.state is not None
    assert view.state.turn == first, "the turn goes on"
    a_window_later(edge, monkeypatch)
    await edge.bot.display.resume_displays()
    assert not says_its_turn_is_over(edge, ping), "its turn is not over: the nudge stays"
    game = await edge.store.get(1)
    assert game is not None
    assert game.nudge_message_id == ping.id


@pytest.mark.parametrize("ended_by", ["a move", "an abort"])
async def test_a_nudge_whose_turn_ended_while_it_was_posted_is_retired_at_once(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, ended_by: str
) -> None:
    """The turn ends between the nudge taken and its ping recorded: the turn's end, shown
    meanwhile, found no ping to retire, so the nudge retires its own. An abort ends the turn
    too, though the game's turn count stays as it was."""
    real = NudgeService.nudge

    async def nudge_of_a_turn_ended(self: NudgeService, game_id: int, user_id: int) -> Nudge:
        taken = await real(self, game_id, user_id)
        if ended_by == "an abort":
            await edge.service.play.abort(game_id, edge.host.id)
            return taken
        return replace(taken, turn=taken.turn - 1)

    monkeypatch.setattr(NudgeService, "nudge", nudge_of_a_turn_ended)
    turn = await started(edge)
    ping = await nudged(edge, turn)
    await edge.fake.wait_until(
        lambda: says_its_turn_is_over(edge, ping), what="the nudge saying its turn is over"
    )


async def play_unshown(edge: Edge, mover: FakeUser) -> None:
    """`mover` plays the whole turn of game 1 through the service: stored, shown by nothing, as
    when the bot stops before showing it."""
    view = await edge.service.play.look(1)
    assert view.state is not None
    first = view.state.turn
    while view.state is not None and view.state.turn == first:
        action = engine.legal_actions(view.state)[0]
        view = await edge.service.play.act(1, mover.id, view.seq, action)


@pytest.mark.parametrize("shown_by", ["its message", "a catch-up after a restart"])
async def test_a_reminder_whose_turn_was_played_in_time_is_deleted_once_it_is_over(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, shown_by: str
) -> None:
    """The turn's own line tells how it went: a line per reminder would bury a short-limit
    game."""
    await edge.bot.scheduler.stop()  # the test sends the reminder itself
    turn, mover, _ = await duel(edge, turn_limit=3600)
    view = await edge.service.play.look(1)
    await edge.bot.display.send_reminder(Reminder(view, mover.id, datetime.now(UTC)))
    (reminder,) = [m for m in edge.fake.messages(edge.channel) if "half of your time" in m.content]
    if shown_by == "its message":
        await play_turn(edge, turn)
    else:
        await play_unshown(edge, mover)
        assert not edge.fake.world.messages[reminder.id].deleted
        a_window_later(edge, monkeypatch)
        await edge.bot.display.resume_displays()
    await edge.fake.wait_until(
        lambda: edge.fake.world.messages[reminder.id].deleted, what="the reminder gone"
    )
    assert await HANDLERS.drained(30.0), "a click's handler is still running"
    game = await edge.store.get(1)
    assert game is not None
    assert game.reminder_message_id is None, "nothing left to retire"


@pytest.mark.parametrize("ended_by", ["a move", "an abort"])
async def test_a_reminder_whose_turn_ended_while_it_was_posted_is_retired_at_once(
    edge: Edge, ended_by: str
) -> None:
    """The reminder is taken (marked sent) under the game's lock and posted after it: a click
    ending the turn in between found no reminder to retire, so the reminder retires its own,
    rather than calling the player to a turn already played until the next one ends (or to a
    game aborted, whose turn count stays as it was)."""
    await edge.bot.scheduler.stop()  # the test sends the reminder itself
    turn, mover, _ = await duel(edge, turn_limit=3600)
    view = await edge.service.play.look(1)  # the game as the reminder was taken
    if ended_by == "a move":
        await play_turn(edge, turn)  # the turn ends before the reminder is posted
    else:
        await (await confirm(edge, edge.host, "marrakech", "abort", button="Abort")).answer()
    assert await HANDLERS.drained(30.0), "a click's handler is still running"
    await edge.bot.display.send_reminder(Reminder(view, mover.id, datetime.now(UTC)))
    world = edge.fake.world.messages
    (reminder,) = [m for m in world.values() if "half of your time" in m.content]
    assert world[reminder.id].deleted, "a reminder calling the player to a turn already played"
    game = await edge.store.get(1)
    assert game is not None
    assert game.reminder_message_id is None, "nothing left to retire"


async def test_a_reminder_sent_while_the_game_still_names_another_retires_that_one(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game names one reminder, the one retired once its turn is over: a reminder recorded
    over another still in the channel would leave that one calling for good. Here the seat to
    move changed hands and the process stopped before showing it, so nothing retired the
    reminder of the one who left before the newcomer's, at half their fresh clock."""
    await edge.bot.scheduler.stop()  # the test sends the reminders itself
    turn, mover, _ = await duel(edge, turn_limit=3600)
    view = await edge.service.play.look(1)
    await edge.bot.display.send_reminder(Reminder(view, mover.id, datetime.now(UTC)))
    (first,) = [m for m in edge.fake.messages(edge.channel) if "half of your time" in m.content]
    newcomer = edge.outsider
    await edge.service.substitutes.substitute(  # stored, shown by nothing
        1, mover.id, newcomer.id, None, in_bot=False
    )
    a_window_later(edge, monkeypatch)
    await edge.bot.display.resume_displays()  # the next start calls the newcomer on the turn
    view = await edge.service.play.look(1)
    await edge.bot.display.send_reminder(Reminder(view, newcomer.id, datetime.now(UTC)))
    left = [m for m in edge.fake.messages(edge.channel) if "half of your time" in m.content]
    assert [m.content for m in left if m.id == first.id] == [], "the first one still calls"
    (second,) = left
    game = await edge.store.get(1)
    assert game is not None
    assert game.reminder_message_id == second.id
    await played_by(edge, newcomer, turn)
    assert edge.fake.world.messages[second.id].deleted, "the newcomer's goes once they played"


@pytest.mark.parametrize("shown_by", ["the abort's answer", "a catch-up after a restart"])
async def test_an_aborted_game_leaves_no_reminder_or_nudge_calling_anyone(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, shown_by: str
) -> None:
    """The turn the reminder and the nudge called its player to will never be played: both go
    with the abort, as with any end of their turn, also when the process that committed the
    abort stopped before showing it, so that the channel read the next day calls no one to
    play under a game that says it was aborted."""
    await edge.bot.scheduler.stop()  # the test sends the reminder itself
    turn, mover, _ = await duel(edge, turn_limit=3600)
    view = await edge.service.play.look(1)
    await edge.bot.display.send_reminder(Reminder(view, mover.id, datetime.now(UTC)))
    (reminder,) = [m for m in edge.fake.messages(edge.channel) if "half of your time" in m.content]
    ping = await nudged(edge, turn)
    assert await HANDLERS.drained(30.0), "the nudge's handler is still running"
    if shown_by == "the abort's answer":
        await (await confirm(edge, edge.host, "marrakech", "abort", button="Abort")).answer()
        assert await HANDLERS.drained(30.0), "the abort's handler is still running"
    else:
        await edge.service.play.abort(1, edge.host.id)  # committed, shown by nothing
        a_window_later(edge, monkeypatch)
        clock_moving_waits(edge, monkeypatch)  # the start's wait for the channel's window
        await edge.bot.display.resume_displays()
    calling = [
        edge.fake.world.messages[m.id].content
        for m in (reminder, ping)
        if not edge.fake.world.messages[m.id].deleted
    ]
    assert calling == [], edge.fake.transcript(edge.channel)
    game = await edge.store.get(1)
    assert game is not None
    assert (game.reminder_message_id, game.nudge_message_id) == (None, None), "nothing left"


async def test_a_reminder_a_moderator_deleted_already_is_gone_once_its_turn_is_over(
    edge: Edge, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord answers its delete that the message is unknown: that is the reminder gone, not a
    refusal to make up for by editing it (a second request, to a message that is not there)."""
    await edge.bot.scheduler.stop()  # the test sends the reminder itself
    turn, mover, _ = await duel(edge, turn_limit=3600)
    view = await edge.service.play.look(1)
    await edge.bot.display.send_reminder(Reminder(view, mover.id, datetime.now(UTC)))
    (reminder,) = [m for m in edge.fake.messages(edge.channel) if "half of your time" in m.content]
    edge.fake.world.messages[reminder.id].deleted = True
    with caplog.at_level(logging.INFO, logger="bot.edge.display"):
        await play_turn(edge, turn)
        assert await HANDLERS.drained(30.0), "a click's handler is still running"
    game = await edge.store.get(1)
    assert game is not None
    assert game.reminder_message_id is None, "nothing left to retire"
    assert edge.fake.requests_to("PATCH", f"/messages/{reminder.id}") == [], "no edit tried"
    said = [r.getMessage() for r in caplog.records if str(reminder.id) in r.getMessage()]
    assert said == [], said


@pytest.mark.invalid_requests(403)
async def test_a_reminder_discord_will_not_delete_says_its_turn_is_over_instead(
    edge: Edge,
) -> None:
    """Deleting the reminder is refused once its turn is played in time: it is edited to say
    the turn it was about is over, so that it no longer calls the player."""
    await edge.bot.scheduler.stop()  # the test sends the reminder itself
    turn, mover, _ = await duel(edge, turn_limit=3600)
    view = await edge.service.play.look(1)
    await edge.bot.display.send_reminder(Reminder(view, mover.id, datetime.now(UTC)))
    (reminder,) = [m for m in edge.fake.messages(edge.channel) if "half of your time" in m.content]
    refused = edge.fake.faults.forbidden(
        "DELETE", r"/(channels|webhooks)/.+/messages/.+", times=None
    )
    await play_turn(edge, turn)
    await refused.wait_fired()
    assert await HANDLERS.drained(30.0), "a click's handler is still running"
    shown = edge.fake.world.messages[reminder.id]
    assert not shown.deleted
    assert shown.content == "⏰ Game #1: the turn this reminder was about is over."
    game = await edge.store.get(1)
    assert game is not None
    assert game.reminder_message_id is None, "nothing left to retire"


async def test_a_nudge_in_a_game_played_in_a_thread_is_posted_in_that_thread(
    edge: Edge,
) -> None:
    thread = edge.fake.add_thread(edge.channel, "side game")
    lobby = await edge.slash(edge.host, "marrakech", "new", channel=thread, seats=2).answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    turn = await edge.fake.wait_for_message(thread, lambda m: bool(m.pinged_user_ids))
    mover = await mover_of(edge, turn)
    other = edge.guest if mover is edge.host else edge.host
    ping = await edge.slash(other, "marrakech", "nudge", channel=thread).answer()
    assert not ping.ephemeral, ping.content
    assert ping.channel_id == thread.id
    assert ping.pinged_user_ids == {mover.id}
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    assert not [m for m in edge.fake.messages(edge.channel) if "nudged" in m.content]


async def test_a_nudge_not_remembered_is_still_only_a_ping_for_the_nudger(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The database fails after the ping went out: the nudger is told nothing more (no error
    for a nudge that was made), and the bot logs one line."""

    async def unavailable(self: PlayService, game_id: int, message_id: int | None) -> None:
        raise DatabaseUnavailableError("the database is away")

    monkeypatch.setattr(PlayService, "set_nudge_message", unavailable)
    caplog.set_level(logging.INFO, logger="bot.edge.display")
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    other = edge.guest if mover is edge.host else edge.host
    nudging = edge.slash(other, "marrakech", "nudge")
    ping = await nudging.answer()
    assert not ping.ephemeral
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    assert nudging.followups_besides_answer() == [], "nothing more for the nudger"
    said = [r.getMessage() for r in caplog.records if r.name == "bot.edge.display"]
    one_line = (
        f"game 1: ping {ping.id} not kept, it will not go when its turn is over "
        "(DatabaseUnavailableError('the database is away'))"
    )
    assert [line for line in said if f"ping {ping.id}" in line] == [one_line]
    assert not [r for r in caplog.records if r.exc_info], "no traceback"


async def test_a_nudge_answered_too_late_still_pings_the_player_to_move(edge: Edge) -> None:
    """A nudge that reaches the bot after Discord's 3 s: the game's nudge is spent (one every
    4 hours), so its ping goes out in the channel all the same, calling the player to move,
    and is kept as the game's nudge, to go once the turn is over."""
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    other = edge.guest if mover is edge.host else edge.host
    late = late_command(edge, other, "marrakech", "nudge")
    await late.wait_for(lambda handle: bool(handle.refusals))  # its handler is under way
    assert await HANDLERS.drained(30.0), "the nudge's handler is still running"
    assert late.refusals[0] == 10062, "Discord refused the nudge's answer"
    pings = [m for m in edge.fake.messages(edge.channel) if m.id > turn.id]
    assert [m.pinged_user_ids for m in pings] == [{mover.id}], edge.fake.transcript(edge.channel)
    game = await edge.store.get(1)
    assert game is not None
    assert game.nudge_message_id == pings[0].id
