"""A player's own games at the edge: /marrakech mygames lists them privately, in the asker's
language, with links and until when the person a game waits for is away, and /marrakech
notify sends a direct message when the player's turn begins, in the language they asked in,
held in their quiet hours; a player whose direct messages are closed is told once in the
game's channel and the messages stop."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from datetime import UTC, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import discord
import pytest

from bot.edge import player_games as edge_player_games
from bot.edge.away import HeldMessages
from bot.edge.direct import deliver_direct
from bot.edge.inflight import HANDLERS
from bot.presentation.links import message_link
from bot.presentation.messages import text
from bot.services.time_rules import QuietHours
from bot.storage.players import PlayerStore
from tests.bot.edge.test_edge import Edge, lobby_with_guest, private, running_edge, started
from tests.bot.edge.test_edge_faults import Outage, away, only_the_outage_s_warning
from tests.bot.edge.test_edge_languages import french_game, french_server
from tests.e2e.fakecord import FakeMessage, FakeUser
from tests.polling import until

__all__ = ["away"]


@pytest.fixture
async def edge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> AsyncIterator[Edge]:
    async with running_edge(tmp_path, monkeypatch, test=request.node) as running:
        yield running


def link(edge: Edge, message_id: int) -> str:
    guild = edge.channel.guild
    assert guild is not None
    return message_link(guild.id, edge.channel.id, message_id)


def mover_of(edge: Edge, user_id: int) -> FakeUser:
    return edge.host if user_id == edge.host.id else edge.guest


async def shown(edge: Edge, message_id: int) -> bool:
    """Wait until the game records `message_id` as the message that shows it."""
    for _ in range(100):
        game = await edge.store.get(1)
        if game is not None and game.board_message_id == message_id:
            return True
        await asyncio.sleep(0.02)
    return False


async def my_games(edge: Edge, user: FakeUser) -> str:
    answer = await edge.slash(user, "marrakech", "mygames").answer()
    assert answer.ephemeral
    return answer.embed_text()


async def test_mygames_lists_lobbies_and_games_with_whose_turn_and_a_link(edge: Edge) -> None:
    assert "no open game" in await my_games(edge, edge.host)
    lobby = await lobby_with_guest(edge)
    listed = await my_games(edge, edge.guest)
    assert "lobby" in listed
    assert f"<#{edge.channel.id}>" in listed
    assert link(edge, lobby.id) in listed
    assert "no open game" in await my_games(edge, edge.outsider)

    await edge.click(edge.host, lobby, "Start").answer()
    turn = await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    (mover_id,) = turn.pinged_user_ids
    mover = mover_of(edge, mover_id)
    other = edge.guest if mover is edge.host else edge.host
    assert await shown(edge, turn.id)
    assert "your turn" in (mine := await my_games(edge, mover))
    assert link(edge, turn.id) in mine
    assert f"waiting for <@{mover.id}>" in await my_games(edge, other)


async def test_mygames_answers_in_the_asker_s_language_not_the_server_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """On a French server, the Ukrainian host and the British guest each get their list, an
    empty one too, in their own language."""
    async with french_server(tmp_path, monkeypatch, test=request.node) as edge:
        empty = f"{text('mygames.title', 'uk')}\n{text('mygames.empty', 'uk')}"
        assert await my_games(edge, edge.host) == empty
        await french_game(edge)
        for user, language in ((edge.host, "uk"), (edge.guest, "en")):
            listed = await my_games(edge, user)
            assert listed.startswith(text("mygames.title", language)), (user.name, listed)


async def test_mygames_says_until_when_the_player_a_game_waits_for_is_away(edge: Edge) -> None:
    """Beside the person whose move a game waits for, `mygames` says until when they are
    away: to that person as their own turn, to the others beside their name."""
    turn = await started(edge)
    (mover_id,) = turn.pinged_user_ids
    mover = mover_of(edge, mover_id)
    other = edge.guest if mover is edge.host else edge.host
    assert "away until" not in await my_games(edge, mover)
    await private(edge.slash(mover, "marrakech", "away", days=2))
    assert "your turn; you are away until <t:" in (mine := await my_games(edge, mover)), mine
    theirs = await my_games(edge, other)
    assert f"waiting for <@{mover.id}>, away until <t:" in theirs, theirs


async def test_notify_sends_a_direct_message_with_a_link_when_the_turn_begins(
    edge: Edge,
) -> None:
    for user in (edge.host, edge.guest):
        assert "direct message when it is your turn" in await private(
            edge.slash(user, "marrakech", "notify", state="on")
        )
    turn = await started(edge)
    (mover_id,) = turn.pinged_user_ids
    mover = mover_of(edge, mover_id)
    dm = await edge.fake.wait_for_message(edge.fake.dm_channel(mover))
    assert dm.content.startswith("It is your turn in Marrakech game #1")
    assert link(edge, turn.id) in dm.content
    assert "Since your last turn" not in dm.content, "nothing happened before a first turn"
    other = edge.guest if mover is edge.host else edge.host
    assert not edge.fake.messages(edge.fake.dm_channel(other))

    assert "no longer" in await private(edge.slash(mover, "marrakech", "notify", state="off"))
    assert not await PlayerStore(edge.store.database).turn_dms(mover.id)


async def test_a_turn_s_direct_message_an_outage_cuts_off_goes_once_it_is_back_unlogged(
    edge: Edge, away: Outage, caplog: pytest.LogCaptureFixture
) -> None:
    """The database goes away as a posted turn's direct message is read: the log says
    nothing of the game (the outage's own lines say the database was away), and once it is
    back the player is told their turn, which still waits for them."""
    for user in (edge.host, edge.guest):
        await private(edge.slash(user, "marrakech", "notify", state="on"))
    away.fail_in(PlayerStore, "choices")
    with caplog.at_level(logging.INFO, logger="bot.edge.player_games"):
        away.fail()
        turn = await started(edge)
        await until(lambda: not edge.store.database.availability.up, "the outage")
        (mover_id,) = turn.pinged_user_ids
        dm_channel = edge.fake.dm_channel(mover_of(edge, mover_id))
        assert edge.fake.messages(dm_channel) == []
        away.end()
        dm = await edge.fake.wait_for_message(dm_channel)
    assert dm.content.startswith("It is your turn in Marrakech game #1"), dm.content
    only_the_outage_s_warning(caplog)


async def test_a_turn_s_direct_message_waiting_for_the_database_ends_with_a_stop(
    edge: Edge, away: Outage
) -> None:
    """A stop during the outage ends the direct message that waits for the database, before
    the database closes: nothing of it is left running."""
    await private(edge.slash(edge.host, "marrakech", "notify", state="on"))
    away.fail_in(PlayerStore, "choices")
    messages = edge.bot.turn_messages
    assert messages is not None
    away.fail()
    await started(edge)
    await until(lambda: bool(messages._outages), "the message waiting for the database")
    await messages.stop()
    await asyncio.wait_for(messages.idle(), 5.0)
    assert not messages._outages


async def test_a_stop_lets_the_direct_message_of_a_turn_just_posted_go(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clean stop (SIGTERM) that comes while the direct message of a turn just posted is on
    its way waits for it, as it waits for the handlers still running: the player is told it
    is their turn, rather than the message being dropped on a closed connection (it is
    never sent again)."""
    await private(edge.slash(edge.host, "marrakech", "notify", state="on"))
    await private(edge.slash(edge.guest, "marrakech", "notify", state="on"))
    messages = edge.bot.turn_messages
    assert messages is not None
    players = messages._players
    notices = players.turn_notices
    reading, read, stopping = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def held(*args: Any) -> Any:
        reading.set()
        await read.wait()
        return await notices(*args)

    waiting = HANDLERS.drained

    async def drained(within: float) -> bool:
        stopping.set()
        return await waiting(within)

    monkeypatch.setattr(players, "turn_notices", held)
    await edge.click(edge.host, await lobby_with_guest(edge), "Start").answer()
    turn = await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    (mover_id,) = turn.pinged_user_ids
    await asyncio.wait_for(reading.wait(), timeout=30.0)
    monkeypatch.setattr(HANDLERS, "drained", drained)
    closing = asyncio.create_task(edge.client.close())
    await asyncio.wait_for(stopping.wait(), timeout=30.0)  # the stop got to the handlers
    read.set()
    await asyncio.wait_for(closing, timeout=30.0)
    (dm,) = edge.fake.messages(edge.fake.dm_channel(mover_of(edge, mover_id)))
    assert dm.content.startswith("It is your turn in Marrakech game #1"), dm.content


async def test_direct_messages_speak_the_language_notify_was_asked_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """On a French server, the Ukrainian host and the British guest ask to be told at their
    turn and when they are next: each direct message comes in the language its reader asked
    in, not in the game's French."""
    async with french_server(tmp_path, monkeypatch, test=request.node) as edge:
        for user in (edge.host, edge.guest):
            await private(edge.slash(user, "marrakech", "notify", state="next"))
        turn = await french_game(edge)
        (mover_id,) = turn.pinged_user_ids
        mover = mover_of(edge, mover_id)
        other = edge.guest if mover is edge.host else edge.host
        language = {edge.host.id: "uk", edge.guest.id: "en"}
        url = link(edge, turn.id)
        yours = await edge.fake.wait_for_message(edge.fake.dm_channel(mover))
        assert yours.content.startswith(
            text("turn_dm.text", language[mover.id], game_id=1, url=url)
        ), yours.content
        up_next = await edge.fake.wait_for_message(edge.fake.dm_channel(other))
        assert up_next.content.startswith(
            text("up_next_dm.text", language[other.id], game_id=1, url=url)
        ), up_next.content


@pytest.mark.invalid_requests(403)  # Discord refuses a message to closed direct messages
async def test_closed_direct_messages_are_told_once_in_the_channel_and_turned_off(
    edge: Edge, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.edge.player_games")
    for user in (edge.host, edge.guest):
        user.accepts_dms = False
        await private(edge.slash(user, "marrakech", "notify", state="on"))
    turn = await started(edge)
    (mover_id,) = turn.pinged_user_ids
    told = await edge.fake.wait_for_message(
        edge.channel, lambda m: "direct messages are closed" in m.content
    )
    assert told.content.startswith(f"<@{mover_id}>")
    assert told.pinged_user_ids == frozenset({mover_id})
    assert any(
        record.levelno == logging.INFO and "does not accept direct messages" in record.message
        for record in caplog.records
    )
    messages = edge.bot.turn_messages
    assert messages is not None
    await messages.idle()
    said = [
        m.id for m in edge.fake.messages(edge.channel) if "direct messages are closed" in m.content
    ]
    assert said == [told.id], "told once"
    assert not await PlayerStore(edge.store.database).turn_dms(mover_id)
    assert not edge.fake.messages(edge.fake.dm_channel(mover_of(edge, mover_id)))


@pytest.mark.invalid_requests(403)  # Discord refuses a message to closed direct messages
async def test_closed_direct_messages_refusing_a_you_are_next_message_are_told_and_turned_off(
    edge: Edge,
) -> None:
    """Both players asked to be told at their turn and when they are next, and both closed
    their direct messages: the refusal of the "you are next" message, not only that of the
    mover's turn message, turns its person's messages off and says so once in the channel."""
    for user in (edge.host, edge.guest):
        user.accepts_dms = False
        await private(edge.slash(user, "marrakech", "notify", state="next"))
    turn = await started(edge)
    (mover_id,) = turn.pinged_user_ids
    following = edge.guest if mover_id == edge.host.id else edge.host
    await edge.fake.wait_for_message(
        edge.channel,
        lambda m: "direct messages are closed" in m.content and following.id in m.pinged_user_ids,
    )
    messages = edge.bot.turn_messages
    assert messages is not None
    await messages.idle()
    told = [
        sorted(m.pinged_user_ids)
        for m in edge.fake.messages(edge.channel)
        if "direct messages are closed" in m.content
    ]
    assert sorted(told) == sorted([[mover_id], [following.id]]), "each told once"
    store = PlayerStore(edge.store.database)
    assert not await store.turn_dms(following.id)
    assert not await store.turn_dms(mover_id)


@pytest.mark.invalid_requests(403)  # Discord refuses a message to closed direct messages
async def test_two_refusals_of_one_person_at_once_are_told_once_in_the_channel(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two direct messages to a person whose direct messages are closed go out together (the
    turn's message posted again while the first one's is on its way): both read the choice on
    and are refused, and the channel is told once."""
    turn = await started(edge)
    (mover_id,) = turn.pinged_user_ids
    assert await shown(edge, turn.id)
    messages = edge.bot.turn_messages
    assert messages is not None
    await messages.idle()
    mover = mover_of(edge, mover_id)
    mover.accepts_dms = False
    await private(edge.slash(mover, "marrakech", "notify", state="on"))

    sending: list[int] = []
    both = asyncio.Event()

    async def together(client: discord.Client, user_id: int, content: str) -> None:
        """Discord's answer to each waits until both messages are on their way."""
        sending.append(user_id)
        if len(sending) == 2:
            both.set()
        await asyncio.wait_for(both.wait(), timeout=30.0)
        await deliver_direct(client, user_id, content)

    monkeypatch.setattr(edge_player_games, "deliver_direct", together)
    view = await edge.service.play.look(1)
    messages.turn_posted(view, turn.id)
    messages.turn_posted(view, turn.id)
    await messages.idle()
    assert sending == [mover_id, mover_id], "both read the choice on and were sent"
    told = [
        m.id for m in edge.fake.messages(edge.channel) if "direct messages are closed" in m.content
    ]
    assert len(told) == 1, "told once"
    assert not await PlayerStore(edge.store.database).turn_dms(mover_id)


async def test_another_refusal_of_a_turn_message_leaves_it_on_and_the_channel_quiet(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only Discord's 50007 says the player's direct messages are closed: after another 403
    their turn messages stay on and nobody is told in the channel."""
    refused = asyncio.Event()

    async def forbidden(*args: object, **kwargs: object) -> None:
        refused.set()
        response = SimpleNamespace(status=403, reason="Forbidden")
        raise discord.Forbidden(cast(Any, response), {"code": 50001, "message": "Missing Access"})

    monkeypatch.setattr(edge_player_games, "deliver_direct", forbidden)
    for user in (edge.host, edge.guest):
        await private(edge.slash(user, "marrakech", "notify", state="on"))
    turn = await started(edge)
    (mover_id,) = turn.pinged_user_ids
    await asyncio.wait_for(refused.wait(), timeout=30.0)
    messages = edge.bot.turn_messages
    assert messages is not None
    await messages.idle()
    assert await PlayerStore(edge.store.database).turn_dms(mover_id), "still on"
    closed = [
        m for m in edge.fake.messages(edge.channel) if "direct messages are closed" in m.content
    ]
    assert not closed


@pytest.mark.invalid_requests(403)  # Discord's refusals of the two direct messages
async def test_another_refusal_of_a_you_are_next_message_leaves_it_on_and_the_channel_quiet(
    edge: Edge,
) -> None:
    """As for the turn's message, only Discord's 50007 says the person's direct messages are
    closed: after another 403 to their "you are next" message, their messages stay on and
    nobody is told in the channel."""
    rules = []
    for user in (edge.host, edge.guest):
        await private(edge.slash(user, "marrakech", "notify", state="next"))
        dm = edge.fake.dm_channel(user)
        rules.append(
            edge.fake.faults.forbidden(
                "POST",
                f"/channels/{dm.id}/messages",
                code=50001,
                message="Missing Access",
                times=None,
            )
        )
    posted = asyncio.Event()
    edge.bot.display.on_turn_posted(lambda view, message_id: posted.set())  # after the DM's
    lobby = await lobby_with_guest(edge)
    await edge.click(edge.host, lobby, "Start").answer()
    turn = await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    await posted.wait()
    messages = edge.bot.turn_messages
    assert messages is not None
    await messages.idle()
    (mover_id,) = turn.pinged_user_ids
    following = edge.guest if mover_id == edge.host.id else edge.host
    assert sum(rule.hits for rule in rules) == 2, "the turn's message and the next's refused"
    assert await PlayerStore(edge.store.database).turn_dms(following.id), "still on"
    closed = [
        m for m in edge.fake.messages(edge.channel) if "direct messages are closed" in m.content
    ]
    assert not closed


async def started_in_both_s_quiet_hours(edge: Edge, state: str) -> FakeMessage:
    """The host and the guest ask for their direct messages (`state`) and are in their quiet
    hours as a game of theirs starts: its first turn, once its direct messages were dealt
    with."""
    now = edge.service.loader.now().astimezone(UTC)
    quiet = QuietHours.parse(
        (now - timedelta(hours=1)).strftime("%H:%M"),
        (now + timedelta(hours=2)).strftime("%H:%M"),
        "UTC",
    )
    for user in (edge.host, edge.guest):
        await private(edge.slash(user, "marrakech", "notify", state=state))
        await edge.service.away.set_quiet_hours(user.id, quiet)
    posted = asyncio.Event()
    edge.bot.display.on_turn_posted(lambda view, message_id: posted.set())  # after the DM's
    lobby = await lobby_with_guest(edge)
    await edge.click(edge.host, lobby, "Start").answer()
    turn = await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.enabled_buttons()))
    await posted.wait()
    messages = edge.bot.turn_messages
    assert messages is not None
    await messages.idle()
    return turn


@pytest.mark.parametrize("state", ["on", "next"])
async def test_no_turn_message_reaches_a_player_in_their_quiet_hours(
    edge: Edge, state: str
) -> None:
    """Their turn's direct message is held with its ping for the end of those hours, and so
    is the "you are next" message of those who asked for it."""
    turn = await started_in_both_s_quiet_hours(edge, state)
    assert not turn.pinged_user_ids, "the turn names its player without pinging them"
    for user in (edge.host, edge.guest):
        sent = [m.content for m in edge.fake.messages(edge.fake.dm_channel(user))]
        assert not sent, (user.name, sent)


async def test_a_you_are_next_message_held_in_quiet_hours_is_told_when_they_end(
    edge: Edge,
) -> None:
    """Both players asked to be told at their turn and when they are next, and both are in
    their quiet hours as the game starts: what the hours hold for the one who plays next
    tells, as they end, that their turn is next."""
    await started_in_both_s_quiet_hours(edge, "next")
    now = edge.service.loader.now().astimezone(UTC)
    mover_id = (await edge.service.play.look(1)).user_to_move
    following = edge.guest if mover_id == edge.host.id else edge.host
    later = now + timedelta(days=1)
    claimed = await edge.service.away.store.claim_held(later, "test", later + timedelta(minutes=1))
    theirs = [notice for notice in claimed if notice.user_id == following.id]
    await HeldMessages(edge.client, edge.service.away).send(following.id, theirs)
    (told,) = edge.fake.messages(edge.fake.dm_channel(following))
    assert "Game #1: your turn is next" in told.content, told.content
