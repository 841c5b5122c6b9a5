"""Rematch: the button on a finished game's result opens a new lobby in its channel with the
game's settings and AI seats, the presser as host, pinging the other players (only them) to
join. Anyone else, and any press once the channel has an open game, gets a short refusal.

Through real discord.py interactions on the fake Discord (tests/bot/edge/test_edge.py)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest

from bot.edge import display as controller
from bot.edge import replies
from bot.edge.inflight import HANDLERS
from bot.edge.layout import final_buttons
from bot.services.errors import NoGameHereError
from bot.storage import GameRow, GameStatus, NewGame
from tests.bot.edge.test_edge import (
    Edge,
    a_window_later,
    confirm,
    edge,
    late_click,
    private,
    running_edge,
    started,
)
from tests.bot.edge.test_replies import Gate, acknowledged
from tests.e2e.fakecord import FakeMessage, FakeUser
from tests.e2e.fakecord.interactions import DEFERRED_UPDATE_MESSAGE
from tests.polling import until

__all__ = ["edge"]

PRIMARY = 1


def is_result(message: FakeMessage) -> bool:
    return any(a.filename.endswith(".json") for a in message.attachments)


async def resign(edge: Edge, user: FakeUser) -> None:
    await (await confirm(edge, user, "marrakech", "resign", button="Resign")).answer()


async def result(edge: Edge) -> FakeMessage:
    return await edge.fake.wait_for_message(edge.channel, is_result)


async def finished_with_an_ai(edge: Edge) -> FakeMessage:
    """Game 1 (3 seats, rotate-after, an hour a turn): host, guest and a hard AI; both people
    resign, so it is over. Its result message."""
    lobby = await edge.slash(
        edge.host, "marrakech", "new", seats=3, variant="rotate-after", turn_limit=3600
    ).answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Add AI: hard").answer()
    await edge.click(edge.host, edge.fake.world.messages[lobby.id], "Start").answer()
    await resign(edge, edge.guest)
    await resign(edge, edge.host)
    return await result(edge)


def rematch_buttons(message: FakeMessage) -> list[str]:
    return [
        button.custom_id
        for button in message.buttons()
        if button.custom_id is not None and button.custom_id.endswith(":rematch")
    ]


async def test_the_result_carries_one_rematch_button_then_the_analysis(edge: Edge) -> None:
    await started(edge)
    await resign(edge, edge.guest)
    final = await result(edge)
    view = await edge.service.play.look(1)
    assert view.status is GameStatus.OVER
    button, analysis, drill = final.enabled_buttons()
    assert (button.label, button.emoji, button.style) == ("Rematch", "🔁", PRIMARY)
    assert (analysis.label, analysis.custom_id) == ("Analysis", "mk:analysis:1")
    assert (drill.label, drill.custom_id) == ("Learn from your mistakes", "mk:drill:1:0:open")
    assert button.custom_id == f"mk:1:{view.seq}:rematch"
    assert any(a.filename == "board.png" for a in final.attachments)


async def test_an_aborted_game_offers_no_rematch(edge: Edge) -> None:
    await started(edge)
    aborting = await confirm(edge, edge.host, "marrakech", "abort", button="Abort")
    await aborting.answer()
    await aborting.followups(1)
    view = await edge.service.play.look(1)
    assert view.status is GameStatus.ABORTED
    assert final_buttons(view) is None
    assert not any(rematch_buttons(m) for m in edge.fake.messages(edge.channel))


async def test_only_a_player_of_the_game_may_ask_for_a_rematch(edge: Edge) -> None:
    await started(edge)
    await resign(edge, edge.guest)
    final = await result(edge)
    refused = await private(edge.click(edge.outsider, final, "Rematch"))
    assert refused == "You are not playing in this game."
    with pytest.raises(NoGameHereError):
        await edge.service.open_game_id(edge.channel.id)


async def test_no_rematch_in_a_channel_games_are_no_longer_allowed_in(edge: Edge) -> None:
    await started(edge)
    await resign(edge, edge.guest)
    final = await result(edge)
    elsewhere = edge.fake.add_text_channel(edge.channel.guild, "tables")  # type: ignore[arg-type]
    assert edge.channel.guild is not None
    await edge.bot.handlers._guilds.allow_channel(edge.channel.guild.id, elsewhere.id)
    posted = len(edge.fake.messages(edge.channel))
    refused = await private(edge.click(edge.host, final, "Rematch"))
    assert refused == (
        f"Games are not allowed in this channel. This server plays Marrakech in <#{elsewhere.id}>."
    )
    assert len(edge.fake.messages(edge.channel)) == posted
    with pytest.raises(NoGameHereError):
        await edge.service.open_game_id(edge.channel.id)


async def test_a_rematch_in_a_thread_of_an_allowed_channel_opens_in_the_thread(
    edge: Edge,
) -> None:
    """A thread follows its parent among the allowed channels for the Rematch button too, as it
    does for `/marrakech new`."""
    assert edge.channel.guild is not None
    await edge.bot.handlers._guilds.allow_channel(edge.channel.guild.id, edge.channel.id)
    thread = edge.fake.add_thread(edge.channel, "side game")
    lobby = await edge.slash(edge.host, "marrakech", "new", channel=thread, seats=2).answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    await edge.fake.wait_for_message(thread, lambda m: bool(m.pinged_user_ids))
    question = await edge.slash(edge.guest, "marrakech", "resign", channel=thread).answer()
    await edge.click(edge.guest, question, "Resign").answer()
    final = await edge.fake.wait_for_message(thread, is_result)

    rematch = await edge.click(edge.host, final, "Rematch").answer()
    assert not rematch.ephemeral, rematch.content
    assert rematch.channel_id == thread.id
    assert rematch.content == (
        f"🔁 <@{edge.host.id}> wants a rematch of game #1: <@{edge.guest.id}>, press Join."
    )
    game = await edge.store.open_in_channel(thread.id)
    assert game is not None
    assert (game.id, game.status) == (2, GameStatus.LOBBY)


async def test_a_rematch_opens_the_same_lobby_and_pings_the_other_players(edge: Edge) -> None:
    final = await finished_with_an_ai(edge)
    edits = edge.fake.world.messages[final.id].edit_count
    lobby = await edge.click(edge.guest, final, "Rematch").answer()
    assert not lobby.ephemeral
    assert lobby.channel_id == edge.channel.id
    assert lobby.content == (
        f"🔁 <@{edge.guest.id}> wants a rematch of game #1: <@{edge.host.id}>, press Join."
    )
    assert lobby.pinged_user_ids == frozenset({edge.host.id}), "the presser is not pinged"
    assert "lobby" in lobby.embed_text()
    assert [b.label for b in lobby.enabled_buttons()][:4] == ["Join", "Leave", "Start", "Cancel"]

    game = await edge.store.open_in_channel(edge.channel.id)
    assert game is not None
    assert game.id == 2
    assert game.status is GameStatus.LOBBY
    assert (game.host_id, game.seats_wanted, game.variant) == (edge.guest.id, 3, "rotate-after")
    assert (game.turn_limit_seconds, game.locale) == (3600, "en")
    assert game.board_message_id == lobby.id, "recorded like any lobby"
    seats = await edge.store.seats(2)
    assert [(seat.user_id, seat.ai_level) for seat in seats] == [
        (edge.guest.id, None),
        (None, "hard"),
    ]

    shown = edge.fake.world.messages[final.id]
    assert shown.edit_count == edits, "the result is left as it was"
    assert is_result(shown)
    assert any(a.filename == "board.png" for a in shown.attachments)

    await edge.click(edge.host, lobby, "Join").answer()
    assert f"<@{edge.host.id}>" in edge.fake.world.messages[lobby.id].embed_text()


async def test_the_rematch_s_host_keeps_the_name_their_seat_had_in_the_game_before(
    edge: Edge,
) -> None:
    """The picture's panel names the host of the rematch as it named them in the finished game,
    as it names a player who joins: by the name the server showed them (their server nickname),
    not a seat label nor their username."""
    guild = edge.channel.guild
    assert guild is not None
    guild.members[edge.guest.id].nick = "La Invitée"
    final = await finished_with_an_ai(edge)
    before = {seat.user_id: seat.display_name for seat in await edge.store.seats(1)}
    assert before[edge.guest.id] == "La Invitée", "seated with a name in the finished game"
    await edge.click(edge.guest, final, "Rematch").answer()
    after = {seat.user_id: seat.display_name for seat in await edge.store.seats(2)}
    assert after[edge.guest.id] == "La Invitée"


async def test_a_second_press_points_at_the_rematch_already_open(edge: Edge) -> None:
    final = await finished_with_an_ai(edge)
    lobby = await edge.click(edge.host, final, "Rematch").answer()
    posted = len(edge.fake.messages(edge.channel))
    guild = edge.channel.guild
    assert guild is not None
    link = f"https://discord.com/channels/{guild.id}/{edge.channel.id}/{lobby.id}"
    refused = await private(edge.click(edge.guest, final, "Rematch"))
    assert refused == (
        f"This channel already has a game waiting for players: [game #2]({link}). "
        "Press Join there to play."
    )
    refused = await private(edge.click(edge.host, final, "Rematch"))
    assert refused == (
        f"This channel already has a game waiting for players, and you are in it: "
        f"[game #2]({link})."
    ), "its host, seated there, is not told to join"
    assert len(edge.fake.messages(edge.channel)) == posted
    assert await edge.store.get(3) is None


async def test_a_rematch_with_only_ais_left_to_invite_pings_nobody(edge: Edge) -> None:
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
    await edge.click(edge.host, lobby, "Add AI: easy").answer()
    await edge.click(edge.host, edge.fake.world.messages[lobby.id], "Start").answer()
    await resign(edge, edge.host)
    final = await result(edge)
    rematch = await edge.click(edge.host, final, "Rematch").answer()
    assert rematch.content == f"🔁 <@{edge.host.id}> opened a rematch of game #1."
    assert not rematch.pinged_user_ids


async def test_the_rematch_speaks_the_games_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: a rematch keeps its game's language, though the server changed its own since
    (here to Ukrainian, after the French game began)."""
    async with running_edge(tmp_path, monkeypatch, server_locale="fr") as edge:
        lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
        await edge.click(edge.guest, lobby, "Rejoindre").answer()
        await edge.click(edge.host, lobby, "Commencer").answer()
        await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
        guild = edge.channel.guild
        assert guild is not None
        guild.preferred_locale = "uk"
        await (await confirm(edge, edge.guest, "marrakech", "resign", button="Resign")).answer()
        final = await result(edge)
        rematch = await edge.click(edge.host, final, "Revanche").answer()
        assert rematch.content.startswith(f"🔁 <@{edge.host.id}> propose une revanche")
        assert rematch.pinged_user_ids == frozenset({edge.guest.id})
        assert "Rejoindre" in [b.label for b in rematch.enabled_buttons()]
        second = await edge.store.open_in_channel(edge.channel.id)
        assert second is not None
        assert second.locale == "fr"


async def test_a_tournament_game_s_result_offers_no_rematch(edge: Edge) -> None:
    """The tournament pairs the next round: its games' results carry Analysis and the drill,
    no Rematch."""
    await started(edge)
    await resign(edge, edge.guest)
    await result(edge)
    view = await edge.service.play.look(1)
    buttons = final_buttons(replace(view, game=replace(view.game, tournament_id=7)))
    assert buttons is not None
    ids = [getattr(item, "custom_id", None) for item in buttons.children]
    assert ids == ["mk:analysis:1", "mk:drill:1:0:open"]


class Killed(BaseException):
    """Stands for a SIGKILL: nothing after it runs, not even an answer to the click."""


async def test_a_rematch_killed_once_its_lobby_is_stored_opens_with_its_ai_seats_after_a_restart(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process dies as soon as the rematch's lobby is written: the next start shows that
    lobby with the finished game's AI seat, written with it in one transaction, so no one has
    to seat the AI again by hand (a second press only points at this lobby)."""
    await edge.bot.scheduler.stop()  # nothing but the restart's catch-up shows the lobby
    final = await finished_with_an_ai(edge)
    assert await HANDLERS.drained(30.0), "a handler is still running"
    create = edge.store.create
    killed = asyncio.Event()

    async def stored_then_killed(new: NewGame, now: datetime) -> GameRow:
        await create(new, now)
        killed.set()
        raise Killed()

    with monkeypatch.context() as dying:
        dying.setattr(edge.store, "create", stored_then_killed)
        edge.click(edge.guest, final, "Rematch")
        await asyncio.wait_for(killed.wait(), 30.0)
        assert await HANDLERS.drained(30.0), "the rematch's handler is still running"
    a_window_later(edge, monkeypatch)

    await edge.bot.display.resume_displays()

    game = await edge.store.get(2)
    assert game is not None
    assert game.board_message_id is not None, "the rematch's lobby is posted by the start"
    shown = edge.fake.world.messages[game.board_message_id].embed_text()
    assert f"Players (2/3): <@{edge.guest.id}>\n🤖 AI (hard)\n" in shown, shown
    seats = await edge.store.seats(2)
    assert [(seat.user_id, seat.ai_level) for seat in seats] == [
        (edge.guest.id, None),
        (None, "hard"),
    ]


async def test_a_rematch_acknowledged_late_draws_its_lobby_and_leaves_the_result_as_it_was(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Rematch press whose handler is held past the watchdog is acknowledged without a
    visible change, and its lobby comes as a follow-up of the press. That press's token may
    edit the message it was pressed on (the result), not the lobby: a player who joins by the
    command sees the lobby drawn with them, and the finished game's result stays as it was."""
    final = await finished_with_an_ai(edge)
    assert await HANDLERS.drained(30.0), "a handler is still running"
    edits = edge.fake.world.messages[final.id].edit_count
    monkeypatch.setattr(replies, "ACKNOWLEDGE_AFTER_SECONDS", 0.0)  # held: it is late
    gate = Gate()
    monkeypatch.setattr(edge.service.lobby, "rematch", gate.hold(edge.service.lobby.rematch))

    clicking = edge.click(edge.guest, final, "Rematch")
    await gate.reached.wait()
    await acknowledged(edge, clicking, DEFERRED_UPDATE_MESSAGE)
    gate.opened.set()
    assert await HANDLERS.drained(30.0), "the rematch's handler is still running"
    game = await edge.store.open_in_channel(edge.channel.id)
    assert game is not None
    assert game.board_message_id is not None
    lobby = edge.fake.world.messages[game.board_message_id]
    assert lobby.id in clicking.followup_ids, "the lobby is a follow-up of the late press"

    await private(edge.slash(edge.host, "marrakech", "join"))
    assert await HANDLERS.drained(30.0), "the join's handler is still running"
    assert f"<@{edge.host.id}>" in edge.fake.world.messages[lobby.id].embed_text()
    shown = edge.fake.world.messages[final.id]
    assert shown.edit_count == edits, "the result was edited into the rematch's lobby"
    assert is_result(shown)


async def test_a_rematch_pressed_too_late_is_posted_all_the_same(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Rematch press that reaches the bot after Discord's 3 s: Discord refuses its answer,
    but the rematch's lobby is stored, so it is posted in the channel in the background,
    with its Join button, rather than holding the channel with a lobby no one can see."""
    monkeypatch.setattr(controller, "REDISPLAY_DELAYS_SECONDS", (0.0, 3600.0, 3600.0))
    final = await finished_with_an_ai(edge)
    assert await HANDLERS.drained(30.0), "a handler is still running"
    late = late_click(edge, edge.guest, final, "Rematch")
    await late.wait_for(lambda handle: bool(handle.refusals))  # its handler is under way
    assert await HANDLERS.drained(30.0), "the press's handler is still running"
    assert late.refusals[0] == 10062, "Discord refused the press's answer"
    await until(lambda: 2 not in edge.bot.display._retrying, "the background try ended")
    game = await edge.store.get(2)
    assert game is not None
    assert game.status is GameStatus.LOBBY
    assert game.board_message_id is not None, "the rematch's lobby was never posted"
    lobby = edge.fake.world.messages[game.board_message_id]
    assert "Join" in [button.label for button in lobby.enabled_buttons()]
