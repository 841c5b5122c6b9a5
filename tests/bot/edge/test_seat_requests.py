"""A host's request to hand a seat over never keeps live Agree and Refuse buttons once it can no
longer be answered: carried out, its message tells the hand-over and offers nothing; when its
game ends, the request's message says it is closed and offers nothing (at once, or in the
catch-up at the next start when the process that ended the game died first); a press on a
request that ran out of time edits its message down the same way, besides the private answer.
A request, and the call of a seat's new player, name a person in their quiet hours without
pinging them. Through real discord.py interactions on the fake Discord
(tests/bot/edge/test_edge.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.edge.display import CHANNEL_WINDOW_SECONDS
from bot.edge.inflight import HANDLERS
from bot.edge.substitutes import _asked
from bot.services.substitutes import HandoverRequest
from bot.services.time_rules import QuietHours
from bot.storage.away import HeldNotice
from bot.storage.substitutes import SubstituteStore
from tests.bot.edge.test_edge import Edge, clock_moving_waits, confirm, edge
from tests.bot.edge.test_edge_faults import Outage, away
from tests.bot.edge.test_notices import filled_by_the_last_run, refused_by_limits
from tests.bot.edge.test_watch_buttons import play_turn
from tests.e2e.fakecord import FakeMessage, FakeUser
from tests.polling import until

__all__ = ["away", "edge"]

ENDED = (
    "<@{host}>'s request to hand <@{out}>'s seat in game #1 to <@{incoming}> is closed: the "
    "game ended first."
)
EXPIRED = (
    "<@{host}>'s request to hand <@{out}>'s seat in game #1 to <@{incoming}> ran out of time: "
    "nothing changed."
)
LEFT = (
    "<@{host}>'s request to hand <@{out}>'s seat in game #1 to <@{incoming}> is closed: <@{out}> "
    "no longer plays in it."
)
HOST_LEFT = (
    "<@{host}>'s request to hand <@{out}>'s seat in game #1 to <@{incoming}> is closed: <@{host}> "
    "no longer plays in it."
)
NOBODY = (
    "<@{host}>'s request to hand <@{out}>'s seat in game #1 to <@{incoming}> is closed: nobody "
    "else still plays the game to agree, so a moderator decides: `/marrakech-mod substitute`."
)
REFUSED = "<@{user}> refused: <@{out}> keeps their seat in game #1."
WITHDRAWN = "<@{host}> withdrew the request: <@{out}> keeps their seat in game #1."
FAILED = (
    "<@{host}>'s request to hand <@{out}>'s seat in game #1 to <@{incoming}> could not be "
    "carried out: the game changed."
)


async def in_quiet_hours(edge: Edge, *users: FakeUser) -> None:
    """Quiet hours under way for `users`: from an hour ago to two hours on (UTC)."""
    now = edge.service.loader.now().astimezone(UTC)
    quiet = QuietHours.parse(
        (now - timedelta(hours=1)).strftime("%H:%M"),
        (now + timedelta(hours=2)).strftime("%H:%M"),
        "UTC",
    )
    for user in users:
        await edge.service.away.set_quiet_hours(user.id, quiet)


async def held_by_tomorrow(edge: Edge) -> list[HeldNotice]:
    """Every notice held for the end of someone's quiet hours (claimed by the test)."""
    later = edge.service.loader.now() + timedelta(days=1)
    return await edge.service.away.store.claim_held(later, "test", later + timedelta(minutes=1))


async def three_playing(edge: Edge) -> FakeMessage:
    """A game of the host, the guest and the outsider, started: its first turn."""
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=3).answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.click(edge.outsider, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    return await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))


async def guest_or_outsider_to_move(edge: Edge, turn: FakeMessage) -> FakeMessage:
    """The turns of a game of three played on from `turn` until the guest or the outsider is
    to move: their turn's message."""
    while edge.host.id in turn.pinged_user_ids:
        turn = await play_turn(edge, turn)
    return turn


async def hand_over_by_agreement(edge: Edge, turn: FakeMessage) -> FakeMessage:
    """The host asks to hand the seat to move at `turn` (not theirs) to the moderator, and the
    other player agrees: the call of its new player."""
    people = {user.id: user for user in (edge.guest, edge.outsider)}
    mover = people[next(iter(turn.pinged_user_ids))]
    request = await edge.slash(
        edge.host,
        "marrakech",
        "substitute",
        channel=edge.channel,
        out=mover,
        **{"in": edge.moderator},
    ).answer()
    other = edge.outsider if mover is edge.guest else edge.guest
    await edge.click(other, request, "Agree").answer()
    return await edge.fake.wait_for_message(
        edge.channel, lambda m: m.id > request.id and m.pinged_user_ids == {edge.moderator.id}
    )


async def ask_for_the_guest_s_seat(edge: Edge) -> FakeMessage:
    """The host's /marrakech substitute in the game's channel, to hand the guest's seat to the
    moderator: its answer, the request."""
    return await edge.slash(
        edge.host,
        "marrakech",
        "substitute",
        channel=edge.channel,
        out=edge.guest,
        **{"in": edge.moderator},
    ).answer()


async def asked(edge: Edge) -> FakeMessage:
    """A game of three, where the host asks to hand the guest's seat to the moderator: the
    request, waiting for the outsider's agreement."""
    await play_turn(edge, await three_playing(edge))
    request = await ask_for_the_guest_s_seat(edge)
    assert [b.label for b in request.enabled_buttons()] == ["Agree", "Refuse"]
    return request


def closed_as(edge: Edge, request: FakeMessage, line: str) -> bool:
    shown = edge.fake.world.messages[request.id]
    expected = line.format(host=edge.host.id, out=edge.guest.id, incoming=edge.moderator.id)
    return shown.content == expected and not shown.buttons()


async def test_a_request_is_closed_when_its_game_ends(edge: Edge) -> None:
    request = await asked(edge)
    await (await confirm(edge, edge.host, "marrakech", "abort", button="Abort")).answer()
    await edge.fake.wait_until(
        lambda: closed_as(edge, request, ENDED), what="the request closed by the game's end"
    )
    async with edge.store.database.reading() as conn:
        assert await conn.fetchval("SELECT status FROM seat_requests") == "failed"


async def test_a_request_whose_game_ended_while_it_was_posted_is_closed_at_once(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game ends between the request stored and its message posted, and the game's end
    closes the request before that message is known: the message is shown closed all the
    same, with no live Agree or Refuse, without waiting for a press or the next start."""
    await play_turn(edge, await three_playing(edge))
    seats = edge.bot.seats
    assert seats is not None
    ask = edge.service.substitutes.ask

    async def asked_as_the_game_ends(*args: Any, **kwargs: Any) -> Any:
        answer = await ask(*args, **kwargs)
        await edge.service.play.abort(1, edge.host.id)
        await until(lambda: not seats._tasks, "the game's end closing its requests")
        async with edge.store.database.reading() as conn:
            assert await conn.fetchval("SELECT status FROM seat_requests") == "failed"
        return answer

    monkeypatch.setattr(edge.service.substitutes, "ask", asked_as_the_game_ends)
    request = await ask_for_the_guest_s_seat(edge)
    assert await HANDLERS.drained(30.0), "the request's handler is still running"
    await until(lambda: not seats._tasks, "the requests closed in the background")
    assert closed_as(edge, request, ENDED), edge.fake.world.messages[request.id].content


async def test_a_request_left_open_by_a_game_ended_unseen_is_closed_at_the_next_start(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process that ended the game died before closing the request: the next start's
    catch-up closes it. The request's handler is done first: one still posting it would find
    the game ended and close the request itself."""
    request = await asked(edge)
    assert await HANDLERS.drained(30.0), "the request's handler is still running"
    async with edge.store.database.transaction() as conn:
        await conn.execute("UPDATE games SET status = 'aborted', rev = rev + 1 WHERE id = 1")
    assert not closed_as(edge, request, ENDED)
    clock_moving_waits(edge, monkeypatch)  # the start's wait for the channel's window
    await edge.bot.before_connect()
    assert closed_as(edge, request, ENDED), "the request left open by the start"


async def test_a_start_closes_a_request_left_open_once_the_last_run_s_window_is_over(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last run showed the end of the game in full, having edited the channel's messages
    as much as Discord's window takes, and was killed before it closed the game's request: no
    game is behind on display. The next start's edit of the request waits out that window
    first, so that Discord does not refuse it (a 429 counts toward its ban on invalid
    requests)."""
    request = await asked(edge)
    assert await HANDLERS.drained(30.0), "the request's handler is still running"
    async with edge.store.database.transaction() as conn:
        await conn.execute("UPDATE games SET status = 'aborted', rev = rev + 1 WHERE id = 1")
    edge.service.loader.forget(1)
    await edge.bot.display.show_end(await edge.service.play.look(1))
    assert await edge.service.play.behind_on_display() == []
    assert not closed_as(edge, request, ENDED)
    channel = f"/channels/{edge.channel.id}/messages"
    filled_by_the_last_run(edge, ("PATCH", f"{channel}/{request.id}"))
    waits = clock_moving_waits(edge, monkeypatch)
    seats = edge.bot.seats
    assert seats is not None

    await edge.bot.display.resume_displays()
    await seats.close_for_ended_games()

    assert closed_as(edge, request, ENDED), "the request left open by the start"
    assert refused_by_limits(edge) == []
    assert 0 < sum(waits) <= CHANNEL_WINDOW_SECONDS, "waited for the rest of the window"


async def test_the_requests_an_outage_kept_from_closing_are_closed_once_the_database_is_back(
    edge: Edge, away: Outage, caplog: pytest.LogCaptureFixture
) -> None:
    """The database is away when a start closes the requests of ended games, and when a game's
    end closes its own in the background: each is one INFO line without a traceback, the start
    goes on, and once the database is back the request is closed with no new start or press."""
    request = await asked(edge)
    assert await HANDLERS.drained(30.0), "the request's handler is still running"
    async with edge.store.database.transaction() as conn:
        await conn.execute("UPDATE games SET status = 'aborted', rev = rev + 1 WHERE id = 1")
    away.fail_in(SubstituteStore, "close_requests_of_ended_games")
    seats = edge.bot.seats
    assert seats is not None

    def said() -> list[logging.LogRecord]:
        return [r for r in caplog.records if r.name == "bot.edge.substitutes"]

    with caplog.at_level(logging.INFO, logger="bot.edge.substitutes"):
        away.fail()
        await asyncio.wait_for(seats.close_for_ended_games(), 5.0)  # as a start: it goes on
        seats.game_closed(1)  # as right after the game ended
        await until(lambda: len(said()) == 2, "a line from the background close")
        assert not closed_as(edge, request, ENDED)
        away.end()
        await edge.fake.wait_until(
            lambda: closed_as(edge, request, ENDED), what="the request closed once it is back"
        )
    line = (
        "seat requests of ended games are closed once the database is back "
        '(DatabaseUnavailableError("the database is unavailable '
        "(ConnectionRefusedError(111, 'Connect call failed'))\"))"
    )
    assert [(r.levelno, r.getMessage()) for r in said()] == [(logging.INFO, line)] * 2
    assert all(r.exc_info is None for r in said()), "no traceback"


async def test_a_closing_waiting_for_the_database_ends_with_a_stop(
    edge: Edge, away: Outage
) -> None:
    """A stop during the outage ends the closing that waits for the database, before the
    database closes: nothing of it is left running, and the next start closes the requests."""
    away.fail_in(SubstituteStore, "close_requests_of_ended_games")
    seats = edge.bot.seats
    assert seats is not None
    away.fail()
    await seats.close_for_ended_games()
    assert seats._tasks, "the closing waits for the database"
    await seats.stop()
    assert not seats._tasks


@pytest.mark.parametrize(
    ("change", "private", "line"),
    [
        (
            "UPDATE seat_requests SET expires_at = '2020-01-01T00:00:00.000+00:00'",
            "That request ran out of time: nothing changed.",
            EXPIRED,
        ),
        (
            "UPDATE seat_requests SET status = 'failed'",
            "That request could not be carried out: the game changed.",
            FAILED,
        ),
    ],
)
async def test_a_press_on_a_request_that_can_no_longer_be_answered_closes_its_message(
    edge: Edge, change: str, private: str, line: str
) -> None:
    """Its time ran out, or carrying it out failed: the presser is told why, privately, and
    the message offers nothing more to press."""
    request = await asked(edge)
    async with edge.store.database.transaction() as conn:
        await conn.execute(change)
    pressed = edge.click(edge.outsider, edge.fake.world.messages[request.id], "Agree")
    (answer,) = await pressed.followups()
    assert answer.ephemeral
    assert answer.content == private
    assert closed_as(edge, request, line)


@pytest.mark.parametrize(
    ("leaving", "line"),
    [("outsider", NOBODY), ("guest", LEFT), ("host", HOST_LEFT)],
    ids=["the-one-asked", "the-one-out", "the-host"],
)
async def test_a_request_closes_when_a_resignation_leaves_it_nobody_to_wait_for(
    edge: Edge, leaving: str, line: str
) -> None:
    """The request waits for the outsider alone. If the outsider resigns, nobody still playing
    is left to agree; if the guest, whose seat it would hand over, resigns, there is no seat
    left to hand; if the host who asked resigns, nobody in the game stands behind it. Each way
    it closes at once, saying why, and offers nothing to press, where it would otherwise wait
    a day with live buttons (or, its host gone, still move a seat)."""
    request = await asked(edge)
    user = getattr(edge, leaving)
    await (await confirm(edge, user, "marrakech", "resign", button="Resign")).answer()
    await edge.fake.wait_until(
        lambda: closed_as(edge, request, line), what="the request closed by the resignation"
    )
    async with edge.store.database.reading() as conn:
        assert await conn.fetchval("SELECT status FROM seat_requests") == "failed"


async def test_a_request_carried_out_by_the_last_agreement_offers_nothing_more_to_press(
    edge: Edge,
) -> None:
    """The outsider's Agree is the last the request waits for: its message tells the
    hand-over, without Agree and Refuse."""
    await three_playing(edge)
    request = await ask_for_the_guest_s_seat(edge)
    assert [b.label for b in request.enabled_buttons()] == ["Agree", "Refuse"]
    await edge.click(edge.outsider, request, "Agree").answer()
    await edge.fake.wait_until(
        lambda: "takes over" in edge.fake.world.messages[request.id].content, what="carried out"
    )
    shown = edge.fake.world.messages[request.id]
    assert shown.buttons() == [], [b.label for b in shown.buttons()]


async def guest_s_seat_asked_in_a_game_of_four(edge: Edge) -> tuple[FakeMessage, FakeUser]:
    """A started game of the host, the guest, the outsider and the moderator, and the host's
    request to hand the guest's seat to erin, a member of the server: the request's message
    (it waits for the outsider and the moderator) and erin."""
    guild = edge.channel.guild
    assert guild is not None
    erin = edge.fake.add_user("erin")
    edge.fake.add_member(guild, erin)
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=4).answer()
    for joining in (edge.guest, edge.outsider, edge.moderator):
        await edge.click(joining, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    request = await edge.slash(
        edge.host, "marrakech", "substitute", channel=edge.channel, out=edge.guest, **{"in": erin}
    ).answer()
    return request, erin


async def test_an_agreement_that_leaves_others_to_ask_shows_whom_the_request_still_waits_for(
    edge: Edge,
) -> None:
    """A game of four: the request to hand the guest's seat over waits for the outsider and
    the moderator. The outsider agrees: the message now waits for the moderator alone, its
    Agree and Refuse still live, and the seat is the guest's until the moderator agrees."""
    request, _ = await guest_s_seat_asked_in_a_game_of_four(edge)
    assert f"<@{edge.outsider.id}>" in request.content, request.content
    assert f"<@{edge.moderator.id}>" in request.content, request.content
    await edge.click(edge.outsider, request, "Agree").answer()
    assert await HANDLERS.drained(30.0), "the agreement's handler is still running"
    shown = edge.fake.world.messages[request.id]
    assert f"Waiting for <@{edge.moderator.id}> " in shown.content, shown.content
    assert f"<@{edge.outsider.id}>" not in shown.content, "one who agreed is still waited for"
    assert [b.label for b in shown.enabled_buttons()] == ["Agree", "Refuse"]
    assert edge.guest.id in {seat.user_id for seat in await edge.store.seats(1)}


async def test_a_refused_request_says_who_refused_and_that_the_person_leaving_keeps_their_seat(
    edge: Edge,
) -> None:
    """The outsider refuses the request for the guest's seat: its message, in front of every
    player, names who refused and the guest, who keeps their seat, and offers nothing to
    press."""
    request = await asked(edge)
    await edge.click(edge.outsider, request, "Refuse").answer()
    assert await HANDLERS.drained(30.0), "the press's handler is still running"
    shown = edge.fake.world.messages[request.id]
    assert shown.content == REFUSED.format(user=edge.outsider.id, out=edge.guest.id), (
        "the guest keeps their seat, not the outsider who refused"
    )
    assert shown.buttons() == [], [b.label for b in shown.buttons()]


async def test_the_host_withdraws_their_request_with_refuse(edge: Edge) -> None:
    """The host presses Refuse on their own request: it is withdrawn, its message says so in
    front of every player, the guest keeping their seat, and offers nothing to press."""
    request = await asked(edge)
    await edge.click(edge.host, request, "Refuse").response()
    assert await HANDLERS.drained(30.0), "the press's handler is still running"
    shown = edge.fake.world.messages[request.id]
    assert shown.content == WITHDRAWN.format(host=edge.host.id, out=edge.guest.id)
    assert shown.buttons() == [], [b.label for b in shown.buttons()]


async def test_the_last_agreement_pressed_as_the_person_leaving_refuses_leaves_the_refusal_shown(
    edge: Edge,
) -> None:
    """The outsider, the last one asked, presses Agree as the guest presses Refuse, the
    Refuse closing the request between the agreement and its close: the request's message
    goes on saying who refused, never that it waits (for nobody), and the outsider is told
    privately that it was refused."""
    request = await asked(edge)
    store = edge.service.substitutes._store
    plain = store.agree
    agreed, refused = asyncio.Event(), asyncio.Event()

    async def agree(request_id: int, user_id: int) -> None:
        await plain(request_id, user_id)
        agreed.set()
        await refused.wait()  # the guest's Refuse lands between the agreement and its close

    store.agree = agree  # type: ignore[method-assign]
    agreeing = edge.click(edge.outsider, request, "Agree")
    await agreed.wait()
    await edge.click(edge.guest, request, "Refuse").answer()
    refused.set()
    answer = await agreeing.answer()
    assert answer.ephemeral
    assert answer.content == "That request was refused.", answer.content
    assert await HANDLERS.drained(30.0), "the press's handler is still running"
    shown = edge.fake.world.messages[request.id]
    assert shown.content == REFUSED.format(user=edge.guest.id, out=edge.guest.id), shown.content
    assert shown.buttons() == [], [b.label for b in shown.buttons()]


async def test_the_call_of_a_seat_s_new_player_goes_once_their_turn_is_over(edge: Edge) -> None:
    """The seat handed over by agreement is the one to move: its new player is called in a
    message of its own, which must not go on calling once that turn is played."""
    turn = await guest_or_outsider_to_move(edge, await three_playing(edge))
    call = await hand_over_by_agreement(edge, turn)
    assert call.content == f"<@{edge.moderator.id}>, it is your turn (game #1)."
    while buttons := edge.fake.world.messages[turn.id].enabled_buttons():
        label = buttons[0].label
        assert label is not None
        await edge.click(edge.moderator, edge.fake.world.messages[turn.id], label).answer()
    await edge.fake.wait_until(
        lambda: edge.fake.world.messages[call.id].deleted, what="the call gone with its turn"
    )


async def test_the_call_of_a_seat_s_new_player_deletes_the_nudge_it_replaces(edge: Edge) -> None:
    """The player to move is nudged, then their seat is handed over by agreement: the call of
    its new player is the game's ping now, and the nudge, which calls the one who left, goes
    at once."""
    turn = await guest_or_outsider_to_move(edge, await three_playing(edge))
    nudge = await edge.slash(edge.host, "marrakech", "nudge").answer()
    assert nudge.pinged_user_ids == turn.pinged_user_ids
    call = await hand_over_by_agreement(edge, turn)
    assert await HANDLERS.drained(30.0), "the agreement's handler is still running"
    assert edge.fake.world.messages[nudge.id].deleted, edge.fake.transcript(edge.channel)
    game = await edge.store.get(1)
    assert game is not None
    assert game.nudge_message_id == call.id, "the call goes once its turn is over"


async def test_a_request_and_its_call_name_people_in_their_quiet_hours_without_a_ping(
    edge: Edge,
) -> None:
    """The request calls whom it waits for and the person leaving, and, once agreed, the
    seat's new player to its turn: each in their quiet hours is named only, and the call to
    the turn is held for the message that comes as their hours end."""
    turn = await guest_or_outsider_to_move(edge, await three_playing(edge))
    people = {user.id: user for user in (edge.guest, edge.outsider)}
    mover = people[next(iter(turn.pinged_user_ids))]
    other = edge.outsider if mover is edge.guest else edge.guest
    await in_quiet_hours(edge, other, edge.moderator)
    request = await edge.slash(
        edge.host,
        "marrakech",
        "substitute",
        channel=edge.channel,
        out=mover,
        **{"in": edge.moderator},
    ).answer()
    assert f"<@{other.id}>" in request.content, "it names whom it waits for"
    assert request.pinged_user_ids == {mover.id}, "only the person leaving is awake"
    await edge.click(other, request, "Agree").answer()
    call = await edge.fake.wait_for_message(
        edge.channel, lambda m: m.id > request.id and "it is your turn" in m.content
    )
    assert call.content == f"<@{edge.moderator.id}>, it is your turn (game #1)."
    assert not call.pinged_user_ids
    held = [(notice.user_id, notice.kind) for notice in await held_by_tomorrow(edge)]
    assert held == [(edge.moderator.id, "turn")]


def test_a_request_waiting_for_several_reads_well_for_any_number() -> None:
    """Ukrainian names whom the request waits for without a verb agreeing with one of them."""
    request = HandoverRequest(
        1, 1, 10, 11, None, 12, (13, 14), frozenset(), "open", datetime(2027, 1, 1, tzinfo=UTC)
    )
    assert "«Погоджуюсь» від <@13>, <@14> (" in _asked(request, "uk")
    assert "натисне" not in _asked(request, "uk")
    one = dataclasses.replace(request, agreed=frozenset({14}))
    assert "«Погоджуюсь» від <@13> (" in _asked(one, "uk")


async def posted_again_for_the_moderator(
    edge: Edge, *, quiet: bool = False
) -> tuple[FakeMessage, FakeMessage]:
    """The host asks to hand the guest's seat to a newcomer, and the request waits for the
    outsider, whose seat a moderator (in their quiet hours if `quiet`) then takes over: the
    request, and the one posted again in its place."""
    guild = edge.channel.guild
    assert guild is not None
    erin = edge.fake.add_user("erin")
    edge.fake.add_member(guild, erin)
    await three_playing(edge)
    request = await edge.slash(
        edge.host, "marrakech", "substitute", channel=edge.channel, out=edge.guest, **{"in": erin}
    ).answer()
    assert f"Waiting for <@{edge.outsider.id}> " in request.content
    if quiet:
        await in_quiet_hours(edge, edge.moderator)
    await edge.slash(
        edge.moderator,
        "marrakech-mod",
        "substitute",
        channel=edge.channel,
        out=edge.outsider,
        **{"in": edge.moderator},
    ).answer()
    again = await edge.fake.wait_for_message(
        edge.channel,
        lambda m: m.id > request.id and "asks to hand" in m.content,
    )
    return request, again


async def test_a_request_calls_who_came_in_once_a_seat_changed_hands(edge: Edge) -> None:
    """The request waits for the outsider; a moderator hands the outsider's seat to someone
    else: the request, which now waits for that person, is posted again calling them (the old
    message, naming someone who can no longer answer, goes)."""
    request, again = await posted_again_for_the_moderator(edge)
    assert f"Waiting for <@{edge.moderator.id}> " in again.content
    assert again.pinged_user_ids == {edge.moderator.id, edge.guest.id}
    assert [b.label for b in again.enabled_buttons()] == ["Agree", "Refuse"]
    await edge.fake.wait_until(
        lambda: edge.fake.world.messages[request.id].deleted, what="the old request gone"
    )
    await edge.click(edge.moderator, again, "Agree").answer()
    await edge.fake.wait_until(
        lambda: "takes over" in edge.fake.world.messages[again.id].content, what="carried out"
    )


async def test_a_request_posted_again_names_a_newcomer_in_their_quiet_hours_without_a_ping(
    edge: Edge,
) -> None:
    """The request waits for the outsider, whose seat a moderator then takes over while in
    their quiet hours: the request posted again names the moderator, and pings only the person
    leaving."""
    _, again = await posted_again_for_the_moderator(edge, quiet=True)
    assert f"Waiting for <@{edge.moderator.id}> " in again.content, "it names whom it waits for"
    assert again.pinged_user_ids == {edge.guest.id}, "only the person leaving is awake"


@pytest.mark.parametrize(
    ("change", "line", "private"),
    [
        ("abort", ENDED, "This game is not running."),
        ("resign", LEFT, "<@{out}> holds no seat still in this game."),
    ],
    ids=["the-game-ends", "the-one-out-resigns"],
)
async def test_a_last_agreement_pressed_as_the_game_changes_leaves_the_request_shown_closed(
    edge: Edge, change: str, line: str, private: str
) -> None:
    """The outsider's Agree is the last the request waits for, and the game ends (the host
    aborts it), or the guest whose seat it hands over resigns, between that agreement closing
    the request as done and the hand-over: what the change closes finds no open request, and
    the hand-over is refused. The outsider is told privately, and the request's message says
    it is closed and why, with no live Agree or Refuse."""
    request = await asked(edge)
    seats = edge.bot.seats
    assert seats is not None
    store = edge.service.substitutes._store
    plain = store.close_request

    async def closed_as_the_game_changes(request_id: int, status: str, was: str = "open") -> bool:
        closed = await plain(request_id, status, was)
        if status == "done":
            if change == "abort":
                await edge.service.play.abort(1, edge.host.id)
            else:
                await edge.service.play.resign(1, edge.guest.id)
            await until(lambda: not seats._tasks, "the change closing the requests")
        return closed

    store.close_request = closed_as_the_game_changes  # type: ignore[method-assign]
    pressed = edge.click(edge.outsider, request, "Agree")
    assert await HANDLERS.drained(30.0), "the press's handler is still running"
    await until(lambda: not seats._tasks, "the requests closed in the background")
    async with edge.store.database.reading() as conn:
        assert await conn.fetchval("SELECT status FROM seat_requests") == "failed"
    shown = edge.fake.world.messages[request.id]
    assert closed_as(edge, request, line), (shown.content, [b.label for b in shown.buttons()])
    (answer,) = await pressed.followups()
    assert answer.ephemeral
    assert answer.content == private.format(out=edge.guest.id)


@pytest.mark.parametrize(
    ("change", "line", "private"),
    [
        (
            "UPDATE games SET status = 'aborted', rev = rev + 1 WHERE id = 1",
            ENDED,
            "This game is not running.",
        ),
        (
            "UPDATE seats SET resigned = 1 WHERE game_id = 1 AND user_id = {out}",
            LEFT,
            "That request could not be carried out: the game changed.",
        ),
    ],
    ids=["game-ended", "seat-left"],
)
async def test_a_press_short_of_the_last_agreement_on_a_request_left_open_shows_it_closed(
    edge: Edge, change: str, line: str, private: str
) -> None:
    """A game of four: the request to hand the guest's seat to a newcomer waits for the
    outsider and the moderator. The game ends, or the guest leaves it, and what would close
    the request then is cut off (a crash before the next start), leaving it open. The
    outsider's Agree, which is not the last the request waits for, shows its message closed,
    saying why, with no live Agree or Refuse, where it would say it still waits for the
    moderator; the outsider is told privately, and the request is stored as failed."""
    request, erin = await guest_s_seat_asked_in_a_game_of_four(edge)
    assert await HANDLERS.drained(30.0), "the request's handler is still running"
    async with edge.store.database.transaction() as conn:
        await conn.execute(change.format(out=edge.guest.id))
        await conn.execute("UPDATE games SET rev = rev + 1 WHERE id = 1")
    pressed = edge.click(edge.outsider, edge.fake.world.messages[request.id], "Agree")
    await pressed.answer()
    assert await HANDLERS.drained(30.0), "the press's handler is still running"
    shown = edge.fake.world.messages[request.id]
    expected = line.format(host=edge.host.id, out=edge.guest.id, incoming=erin.id)
    assert shown.content == expected, shown.content
    assert shown.buttons() == [], [b.label for b in shown.buttons()]
    (answer,) = await pressed.followups()
    assert answer.ephemeral
    assert answer.content == private
    async with edge.store.database.reading() as conn:
        assert await conn.fetchval("SELECT status FROM seat_requests") == "failed"


@pytest.mark.parametrize(
    ("change", "line"),
    [("the-one-out-resigns", LEFT), ("the-host-resigns", HOST_LEFT), ("a-moderator", LEFT)],
)
@pytest.mark.parametrize("when", ["stored", "posted"])
async def test_a_request_whose_person_leaves_while_it_is_posted_says_why_it_is_closed(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, change: str, line: str, when: str
) -> None:
    """The guest, whose seat the request would hand over, resigns (or a moderator hands the
    guest's seat elsewhere), or the host who asks resigns, between the request stored and its
    message known: what the change closes finds no message to edit. The host's answer, the
    request's message, says plainly that it is closed and why, with no live Agree or Refuse,
    and never a vague line that the game changed."""
    guild = edge.channel.guild
    assert guild is not None
    erin = edge.fake.add_user("erin")
    edge.fake.add_member(guild, erin)
    await play_turn(edge, await three_playing(edge))
    seats = edge.bot.seats
    assert seats is not None

    async def the_change() -> None:
        if change == "a-moderator":  # as /marrakech-mod substitute does, its answer aside
            await edge.service.substitutes.substitute(
                1, edge.guest.id, erin.id, "erin", in_bot=False
            )
            await seats._requests_after(1)
        else:
            leaving = edge.guest if change == "the-one-out-resigns" else edge.host
            await edge.service.play.resign(1, leaving.id)
        await until(lambda: not seats._tasks, "the change closing the requests")
        async with edge.store.database.reading() as conn:
            assert await conn.fetchval("SELECT status FROM seat_requests") == "failed"

    if when == "stored":
        ask = edge.service.substitutes.ask

        async def asked_as_the_seat_changes(*args: Any, **kwargs: Any) -> Any:
            answer = await ask(*args, **kwargs)
            await the_change()
            return answer

        monkeypatch.setattr(edge.service.substitutes, "ask", asked_as_the_seat_changes)
    else:
        remember = edge.service.substitutes.replace_message

        changes = [the_change]

        async def remembered_as_the_seat_changes(*args: Any, **kwargs: Any) -> bool:
            while changes:  # the first message remembered: the host's answer
                await changes.pop()()
            return await remember(*args, **kwargs)

        monkeypatch.setattr(
            edge.service.substitutes, "replace_message", remembered_as_the_seat_changes
        )
    request = await ask_for_the_guest_s_seat(edge)
    assert await HANDLERS.drained(30.0), "the request's handler is still running"
    await until(lambda: not seats._tasks, "the requests closed in the background")
    shown = edge.fake.world.messages[request.id]
    assert closed_as(edge, request, line), (shown.content, [b.label for b in shown.buttons()])


async def test_a_press_on_a_request_closed_as_its_person_left_says_why_it_is_closed(
    edge: Edge,
) -> None:
    """The guest resigned and the request was closed then, but its message was left as it was
    (Discord refused the edit): a press on it edits it to say that the guest no longer plays,
    not merely that the game changed."""
    request = await asked(edge)
    assert await HANDLERS.drained(30.0), "the request's handler is still running"
    async with edge.store.database.transaction() as conn:
        await conn.execute("UPDATE seats SET resigned = 1 WHERE user_id = $1", edge.guest.id)
        await conn.execute("UPDATE games SET rev = rev + 1 WHERE id = 1")
        await conn.execute("UPDATE seat_requests SET status = 'failed'")
    pressed = edge.click(edge.outsider, edge.fake.world.messages[request.id], "Agree")
    (answer,) = await pressed.followups()
    assert answer.ephemeral
    shown = edge.fake.world.messages[request.id]
    assert closed_as(edge, request, LEFT), (shown.content, [b.label for b in shown.buttons()])


async def test_a_request_whose_asked_person_leaves_while_it_is_posted_has_one_live_message(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game of four: the request for the guest's seat waits for the outsider and the
    moderator, and the moderator resigns between the request stored and its message posted:
    the resignation posts the request again, waiting for the outsider alone. The host's answer,
    which still waits for the moderator, goes; one message answers the request, and once the
    outsider refuses no message of it keeps live Agree or Refuse."""
    seats = edge.bot.seats
    assert seats is not None
    ask = edge.service.substitutes.ask

    async def asked_as_the_moderator_resigns(*args: Any, **kwargs: Any) -> Any:
        answer = await ask(*args, **kwargs)
        await edge.service.play.resign(1, edge.moderator.id)
        await until(lambda: not seats._tasks, "the resignation posting the request again")
        return answer

    monkeypatch.setattr(edge.service.substitutes, "ask", asked_as_the_moderator_resigns)
    request, _ = await guest_s_seat_asked_in_a_game_of_four(edge)
    assert await HANDLERS.drained(30.0), "the request's handler is still running"
    await until(lambda: not seats._tasks, "the requests shown anew in the background")

    def live() -> list[FakeMessage]:
        return [
            m
            for m in edge.fake.world.messages.values()
            if m.channel_id == edge.channel.id and not m.deleted and "asks to hand" in m.content
        ]

    (shown,) = live()
    assert f"Waiting for <@{edge.outsider.id}> " in shown.content, shown.content
    assert [b.label for b in shown.enabled_buttons()] == ["Agree", "Refuse"]
    assert edge.fake.world.messages[request.id].deleted or shown.id == request.id
    await edge.click(edge.outsider, shown, "Refuse").answer()
    assert await HANDLERS.drained(30.0), "the press's handler is still running"
    assert not [m for m in live() if m.enabled_buttons()], "a request's message still live"
