"""The Discord edge with real discord.py objects: interactions built from Discord's payloads.

The bot's own client runs in-process and logs in (REST only, no gateway) to the fake Discord
API. Each interaction is the INTERACTION_CREATE payload Discord would send, handed to
discord.py's ConnectionState, which builds the real Interaction and dispatches it through the
command tree or the DynamicItem buttons, exactly as from the gateway. Answers go over HTTP to
the fake, which records them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, cast

import aiohttp
import discord
import pytest
import yarl
from discord.gateway import DiscordWebSocket

import engine
from bot.edge import answers, commands, delivery, errors, guide, recovery, replies
from bot.edge import display as controller
from bot.edge.buttons import CUSTOM_ID_TEMPLATE
from bot.edge.client import MarrakechClient
from bot.edge.game_handlers import GameHandlers
from bot.edge.inflight import HANDLERS
from bot.edge.sync import sync_commands
from bot.presentation import images, messages
from bot.presentation.links import message_link
from bot.runtime import app
from bot.runtime.composition import Bot, build_bot
from bot.runtime.health import Heartbeat
from bot.services import GameService
from bot.services.errors import LobbyClosedError, NoGameHereError
from bot.services.reliability import ENOUGH_TURNS, Reliability
from bot.services.views import GameView
from bot.storage import GameStatus, GameStore
from tests.e2e.fake_checks import check_fake_after_test
from tests.e2e.fakecord import (
    Button,
    ErrorResponse,
    FakeChannel,
    FakeDiscord,
    FakeMessage,
    FakeUser,
    permissions,
)
from tests.e2e.fakecord.commands import CommandRegistry
from tests.e2e.fakecord.errors import UNKNOWN_GUILD
from tests.e2e.fakecord.interaction_payloads import (
    check_command_visible,
    command_data,
    component_data,
)
from tests.e2e.fakecord.interactions import (
    APPLICATION_COMMAND,
    DEFERRED_CHANNEL_MESSAGE,
    MESSAGE_COMPONENT,
    InteractionHandle,
    InteractionInputError,
)
from tests.e2e.fakecord.routes_channels import NONCE_SECONDS
from tests.e2e.fakecord.world import World
from tests.polling import WAIT_SECONDS, until
from tests.postgres import open_new


def id_of(button: Button) -> str:
    """A button's custom id, which every button these tests read from a game's turn has."""
    assert button.custom_id is not None
    return button.custom_id


EPHEMERAL_REPLY = 4
UPDATE_MESSAGE = 7
DEFERRED_UPDATE_MESSAGE = 6
LATE_SECONDS = 3.5
"""How long before it reaches the bot a late interaction was made (Discord allows 3 s)."""
LOADED_MACHINE_PATIENCE_SECONDS = 1.0
"""How long a click's answer waits for its picture in these tests (the bot's own patience is a
tenth of a second; Discord's limit is 3 s)."""


@dataclass
class Edge:
    fake: FakeDiscord
    bot: Bot
    client: MarrakechClient
    service: GameService
    store: GameStore
    channel: FakeChannel
    host: FakeUser
    guest: FakeUser
    outsider: FakeUser
    moderator: FakeUser

    def dispatch(self, handle: InteractionHandle) -> InteractionHandle:
        """Hand the payload to discord.py as the gateway reader would."""
        self.fake.world.register_interaction(handle)
        self.client._connection.parse_interaction_create(handle.payload)  # type: ignore[arg-type]
        return handle

    def slash(
        self, user: FakeUser, *path: str, channel: FakeChannel | None = None, **options: Any
    ) -> InteractionHandle:
        return self.command(user, path, channel or self.channel, options, validate=True)

    def command(
        self,
        user: FakeUser,
        path: tuple[str, ...],
        channel: FakeChannel,
        options: dict[str, Any],
        *,
        validate: bool,
        late: bool = False,
    ) -> InteractionHandle:
        """`/path options` from `user` in `channel`; `validate=False` sends it whatever
        Discord's checks (default permissions, contexts, option ranges) would say, as a forged
        payload or a server's override of the default permissions may. `late`: it reaches the
        bot once Discord's 3 s are over (a stalled loop, a replayed gateway event)."""
        guild = channel.guild
        assert guild is not None
        name, *sub = path
        registered = self.fake.world.commands.find(guild.id, name)
        assert registered is not None, name
        if validate:
            check_command_visible(registered, user, channel)
        data = command_data(self.fake.world, channel, registered, sub, options, validate=validate)
        handle = self.fake.interaction_from_payload(APPLICATION_COMMAND, user, channel, data)
        if late:
            handle.queued_at = time.perf_counter() - LATE_SECONDS
        return self.dispatch(handle)

    def click(self, user: FakeUser, message: FakeMessage, label: str) -> InteractionHandle:
        message = self.fake.world.messages[message.id]
        channel = self.fake.world.channels[message.channel_id]
        button = message.button(label=label)
        assert button.custom_id is not None
        data = component_data(message, button.custom_id, None, validate=True)
        return self.dispatch(
            self.fake.interaction_from_payload(
                MESSAGE_COMPONENT, user, channel, data, message=message
            )
        )


@asynccontextmanager
async def running_edge(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    server_locale: str = "en-US",
    channel_name: str = "games",
    user_locales: tuple[str, str, str, str] = ("en-US",) * 4,
    database_target: str | None = None,
    test: pytest.Item | None = None,
) -> AsyncIterator[Edge]:
    """The bot's client, in process, on a fake Discord API with one server and one channel.

    Its people are host, guest, outsider (members) and moderator (Manage Channels), speaking
    `user_locales` in that order. Its database is `database_target` (what MARRAKECH_DB takes),
    by default an SQLite file in `tmp_path`. A click's answer waits up to
    `LOADED_MACHINE_PATIENCE_SECONDS` for its picture before it is deferred: on a test machine
    busy with other tests, drawing in-process can take longer than the bot's own patience, and
    the tests of deferral set that to nothing themselves.
    """
    monkeypatch.setattr(controller, "ANSWER_PATIENCE_SECONDS", LOADED_MACHINE_PATIENCE_SECONDS)
    monkeypatch.setattr(guide, "PICTURE_PATIENCE_SECONDS", LOADED_MACHINE_PATIENCE_SECONDS)
    async with FakeDiscord(bot_name="Marrakech") as fake:
        monkeypatch.setattr(discord.http.Route, "BASE", fake.api_base_url)
        guild = fake.add_guild("Souk", preferred_locale=server_locale)
        channel = fake.add_text_channel(guild, channel_name)
        names = ("host", "guest", "outsider", "moderator")
        host, guest, outsider, moderator = (
            fake.add_user(name, locale=locale)
            for name, locale in zip(names, user_locales, strict=True)
        )
        for user in (host, guest, outsider):
            fake.add_member(guild, user)
        fake.add_member(guild, moderator, permissions=permissions.MANAGE_CHANNELS)
        database = await open_new(database_target or tmp_path / "edge.sqlite3")
        bot = build_bot(
            database, heartbeat=Heartbeat(tmp_path / "heartbeat"), seeds=lambda: "5eed" * 8
        )
        client = bot.client
        await client.login("fake-token")  # runs setup_hook: buttons, command sync
        # A first start, on a new database: no run before it used a channel, so its posts
        # wait for no window (a restart's wait: tests/bot/edge/test_notices.py).
        bot.display._restarted_at = None
        try:
            yield Edge(
                fake, bot, client, bot.service, bot.store, channel, host, guest, outsider, moderator
            )
        finally:
            await client.close()
            await database.close()
        check_fake_after_test(fake, test)


@pytest.fixture
async def edge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> AsyncIterator[Edge]:
    async with running_edge(tmp_path, monkeypatch, test=request.node) as running:
        yield running


async def private(handle: InteractionHandle) -> str:
    answer = await handle.answer()
    assert answer.ephemeral, answer.content
    return answer.content


async def only_private_answer(handle: InteractionHandle) -> str:
    """The private answer to `handle`, checked once every handler has returned to be all its
    person was shown: no message follows it."""
    answer = await private(handle)
    assert await HANDLERS.drained(30.0), "a handler is still running"
    later = [message.content for message in handle.followups_besides_answer()]
    assert later == [], later
    return answer


async def thinking_privately_once(handle: InteractionHandle, reached: asyncio.Event) -> None:
    """Once the test's held slow work is `reached`, the click must already be deferred
    privately (the bot thinking, the channel seeing nothing), and answered in no other way:
    a handler that defers only after that work fails here."""
    await asyncio.wait_for(reached.wait(), timeout=30.0)
    callbacks = [event for event in handle.events if event.kind == "callback"]
    assert [event.response_type for event in callbacks] == [DEFERRED_CHANNEL_MESSAGE], (
        "not deferred before the slow work"
    )
    assert callbacks[0].message is not None
    assert callbacks[0].message.ephemeral, "the bot thinks privately: the channel sees nothing"


async def lobby_with_guest(edge: Edge) -> FakeMessage:
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    return lobby


async def confirm(edge: Edge, user: FakeUser, *command: str, button: str) -> InteractionHandle:
    """Run a command that asks first (resign, abort), then click `button` on its private
    question; the click's handle."""
    question = await edge.slash(user, *command).answer()
    assert question.ephemeral, question.content
    return edge.click(user, question, button)


async def started(edge: Edge) -> FakeMessage:
    """Game 1, of host and guest, started: its first turn's message, posted and recorded (the
    lobby leads to it first)."""
    lobby = await lobby_with_guest(edge)
    await edge.click(edge.host, lobby, "Start").answer()
    turn = await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    assert await HANDLERS.drained(30.0), "the start's handler is still running"
    return turn


async def test_new_opens_a_lobby_with_persistent_buttons(edge: Edge) -> None:
    lobby = await edge.slash(
        edge.host, "marrakech", "new", seats=3, variant="rotate-after"
    ).answer()
    assert not lobby.ephemeral
    assert [button.label for button in lobby.buttons()] == [
        "Join",
        "Leave",
        "Start",
        "Cancel",
        "Add AI: easy",
        "Add AI: medium",
        "Add AI: hard",
        "Remove AI",
    ]
    for button in lobby.buttons():
        assert button.custom_id is not None
        assert CUSTOM_ID_TEMPLATE.fullmatch(button.custom_id)
    assert "Assam turns after the rug" in lobby.embed_text()
    game = await edge.store.open_in_channel(edge.channel.id)
    assert game is not None
    assert game.board_message_id == lobby.id
    assert (game.seats_wanted, game.variant, game.host_id) == (3, "rotate-after", edge.host.id)


async def test_new_with_no_options_opens_a_rated_lobby_for_four_of_the_standard_rules(
    edge: Edge,
) -> None:
    """`/marrakech new` with every option left out, on a server with no defaults of its own:
    four seats, the standard rules, no turn limit, rated and without the coach."""
    lobby = await edge.slash(edge.host, "marrakech", "new").answer()
    shown = lobby.embed_text()
    assert "Players (1/4)" in shown, shown
    assert "4 seats · standard rules · no turn time limit · rated" in shown, shown
    game = await edge.store.open_in_channel(edge.channel.id)
    assert game is not None
    assert (game.seats_wanted, game.variant, game.turn_limit_seconds) == (4, "standard", None)
    assert (game.casual, game.coach) == (False, False)


@pytest.mark.parametrize(
    ("denied", "name"),
    [
        (permissions.SEND_MESSAGES, "Send Messages"),
        (permissions.EMBED_LINKS, "Embed Links"),
        (permissions.ATTACH_FILES, "Attach Files"),
    ],
    ids=["send_messages", "embed_links", "attach_files"],
)
async def test_a_missing_permission_is_named_and_nothing_is_created(
    edge: Edge, denied: int, name: str
) -> None:
    edge.fake.deny_bot(edge.channel, denied)
    answer = await private(edge.slash(edge.host, "marrakech", "new"))
    assert f"missing the {name} permission in" in answer, "it alone, what is to be granted"
    with pytest.raises(NoGameHereError):
        await edge.service.open_game_id(edge.channel.id)


async def test_the_lobby_s_commands_name_a_missing_permission_and_change_nothing(
    edge: Edge,
) -> None:
    """As its buttons do, `/marrakech join`, `leave`, `start`, `add-ai` and `remove-ai` check
    the channel first: in one where the bot may not attach the board, each is refused, naming
    the permission, and the lobby seats the same people."""
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=4).answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Add AI: easy").answer()
    assert await HANDLERS.drained(30.0), "a click's handler is still running"
    edge.fake.deny_bot(edge.channel, permissions.ATTACH_FILES)
    for user, command, options in (
        (edge.outsider, "join", {}),
        (edge.guest, "leave", {}),
        (edge.host, "add-ai", {"level": "hard"}),
        (edge.host, "remove-ai", {}),
        (edge.host, "start", {}),
    ):
        handle = edge.command(user, ("marrakech", command), edge.channel, options, validate=True)
        answer = await private(handle)
        assert "missing the Attach Files permission in" in answer, (command, answer)
    assert await HANDLERS.drained(30.0), "a handler is still running"
    view = await edge.service.play.look(1)
    assert view.status is GameStatus.LOBBY
    seated = [(player.user_id, player.ai_level) for player in view.players]
    assert seated == [(edge.host.id, None), (edge.guest.id, None), (None, "easy")]


async def test_in_a_thread_send_messages_in_threads_is_named_without_the_two_it_takes_away(
    edge: Edge,
) -> None:
    """Discord takes Embed Links and Attach Files away with Send Messages in Threads: a thread
    whose channel denies that one alone is refused naming it alone, all a moderator has to
    grant."""
    thread = edge.fake.add_thread(edge.channel, "side game")
    edge.fake.deny_bot(edge.channel, permissions.SEND_MESSAGES_IN_THREADS)
    answer = await private(edge.slash(edge.host, "marrakech", "new", channel=thread))
    assert "missing the Send Messages in Threads permission in" in answer, answer
    with pytest.raises(NoGameHereError):
        await edge.service.open_game_id(thread.id)


async def test_leave_on_a_running_game_points_its_player_to_resign(edge: Edge) -> None:
    """`/marrakech leave` once the game runs: its player learns that resigning leaves it, one
    who is not in it that the game takes no more players; the game goes on unchanged."""
    await started(edge)
    before = (await edge.service.play.look(1)).seq
    said = await private(edge.slash(edge.guest, "marrakech", "leave"))
    assert said == "This game has started: to leave it, resign with `/marrakech resign`."
    said = await private(edge.slash(edge.outsider, "marrakech", "leave"))
    assert said == "This game is no longer taking players."
    view = await edge.service.play.look(1)
    assert (view.status, view.seq) == (GameStatus.RUNNING, before)


async def test_lobby_buttons_and_commands_agree(edge: Edge) -> None:
    lobby = await lobby_with_guest(edge)
    assert f"<@{edge.guest.id}>" in edge.fake.world.messages[lobby.id].embed_text()
    assert "Only the host" in await private(edge.click(edge.guest, lobby, "Start"))
    assert "full" in await private(edge.slash(edge.outsider, "marrakech", "join"))
    assert "You left" in await private(edge.slash(edge.guest, "marrakech", "leave"))
    await edge.fake.wait_until(
        lambda: f"<@{edge.guest.id}>" not in edge.fake.world.messages[lobby.id].embed_text(),
        what="the lobby message updated by the command",
    )
    assert "At least 2" in await private(edge.slash(edge.host, "marrakech", "start"))
    cancelled = await edge.click(edge.host, lobby, "Cancel").answer()
    assert "cancelled" in cancelled.embed_text()
    assert not cancelled.enabled_buttons()
    game = await edge.store.get(1)
    assert game is not None
    assert game.status is GameStatus.ABORTED


async def test_the_start_command_answers_privately_and_posts_the_first_turn_at_once(
    edge: Edge,
) -> None:
    """`/marrakech start` does what the Start button does: by the time its handler returns,
    the first turn is posted calling its mover, and the lobby, its own buttons gone, leads to
    it. The turn clock is stopped, so the command alone shows the game."""
    await edge.bot.scheduler.stop()
    lobby = await lobby_with_guest(edge)
    answer = await private(edge.slash(edge.host, "marrakech", "start"))
    assert answer == "Game #1 has started."
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    turns = [m for m in edge.fake.messages(edge.channel) if m.pinged_user_ids]
    assert len(turns) == 1, "the first turn, calling its mover, is posted once"
    (turn,) = turns
    assert turn.pinged_user_ids in ({edge.host.id}, {edge.guest.id}), "its mover alone"
    assert turn.enabled_buttons()
    game = await edge.store.get(1)
    assert game is not None
    link = message_link(game.guild_id, game.channel_id, turn.id)
    await edge.fake.wait_until(
        lambda: (
            f"[go to its first turn]({link})" in edge.fake.world.messages[lobby.id].embed_text()
        ),
        what="the lobby linking to the first turn",
    )
    left = {button.label for button in edge.fake.world.messages[lobby.id].enabled_buttons()}
    assert not left & {"Join", "Leave", "Start", "Cancel"}, "the lobby's own buttons are gone"


async def test_joining_a_lobby_one_is_in_already_is_refused_privately_and_changes_nothing(
    edge: Edge,
) -> None:
    """By command or by the Join button, the host and a guest who joined are told they are in
    already, and the lobby still seats the same two."""
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=3).answer()
    assert "You joined" in await private(edge.slash(edge.guest, "marrakech", "join"))
    await edge.fake.wait_until(
        lambda: f"<@{edge.guest.id}>" in edge.fake.world.messages[lobby.id].embed_text(),
        what="the lobby message updated by the command",
    )
    assert await HANDLERS.drained(30.0), "a handler is still running"
    shown = edge.fake.world.messages[lobby.id].to_payload()
    already = "You are already in this game."
    assert await only_private_answer(edge.slash(edge.guest, "marrakech", "join")) == already
    assert await only_private_answer(edge.click(edge.guest, lobby, "Join")) == already
    assert await only_private_answer(edge.click(edge.host, lobby, "Join")) == already
    view = await edge.service.play.look(1)
    assert view.status is GameStatus.LOBBY
    assert [player.user_id for player in view.players] == [edge.host.id, edge.guest.id]
    assert edge.fake.world.messages[lobby.id].to_payload() == shown, "the lobby is as it was"


async def test_two_joins_at_once_leave_the_lobby_showing_both_whichever_is_drawn_last(
    edge: Edge,
) -> None:
    """The guest and the outsider press Join at the same moment, and the guest's redraw of the
    lobby (its one read of the notes slow this once) lands after the outsider's: the lobby,
    then recorded as shown, still lists everyone seated, never one person fewer."""
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=4).answer()
    reading, outsider_answered = asyncio.Event(), asyncio.Event()

    async def look(guild_id: int, people: Sequence[int]) -> Sequence[Reliability]:
        if len(people) == 2:  # the guest's join, drawn before the outsider's is stored
            reading.set()
            await outsider_answered.wait()
        return []

    edge.bot.display.lobby_reliability(look)
    guest = edge.click(edge.guest, lobby, "Join")
    await reading.wait()
    await edge.click(edge.outsider, lobby, "Join").answer()
    outsider_answered.set()
    await guest.answer()
    assert await HANDLERS.drained(30.0), "a click's handler is still running"
    assert len((await edge.service.play.look(1)).players) == 3
    shown = edge.fake.world.messages[lobby.id].embed_text()
    assert "Players (3/4)" in shown, shown
    assert f"<@{edge.guest.id}>" in shown, shown
    assert f"<@{edge.outsider.id}>" in shown, shown


async def test_a_leave_redraws_the_lobby_with_each_person_s_note_as_it_is_now(
    edge: Edge,
) -> None:
    """The note beside each name (how fast they usually play) is read again when someone
    leaves, by the Leave button or by /marrakech leave: the lobby shows it as it is then."""
    median: dict[int, float] = {}

    async def look(guild_id: int, people: Sequence[int]) -> Sequence[Reliability]:
        return [
            Reliability(user, ENOUGH_TURNS if user in median else 0, 0, median.get(user), 0, 0, 0)
            for user in people
        ]

    edge.bot.display.lobby_reliability(look)
    lobby = await lobby_with_guest(edge)
    host = f"<@{edge.host.id}>"
    assert f"{host} ·" not in edge.fake.world.messages[lobby.id].embed_text(), "too few turns"

    median[edge.host.id] = 600.0
    left = await edge.click(edge.guest, lobby, "Leave").answer()
    assert f"{host} · usually plays within 10 min" in left.embed_text()
    assert f"<@{edge.guest.id}>" not in left.embed_text()

    await edge.click(edge.guest, lobby, "Join").answer()
    median[edge.host.id] = 7200.0
    assert "You left" in await private(edge.slash(edge.guest, "marrakech", "leave"))
    await edge.fake.wait_until(
        lambda: (
            f"{host} · usually plays within 2 h" in edge.fake.world.messages[lobby.id].embed_text()
        ),
        what="the lobby redrawn by the command with the note as it is now",
    )


async def test_a_turn_is_played_with_buttons_and_only_by_the_mover(edge: Edge) -> None:
    turn = await started(edge)
    (mover_id,) = turn.pinged_user_ids
    mover = edge.host if mover_id == edge.host.id else edge.guest
    other = edge.guest if mover is edge.host else edge.host
    # Assam starts facing north: the buttons name where he will look, west to east on screen.
    assert [b.label for b in turn.buttons()] == ["West", "North (straight on)", "East"]
    assert [b.emoji for b in turn.buttons()] == ["⬅️", "⬆️", "➡️"]
    assert [id_of(b).rsplit(":", 1)[1] for b in turn.buttons()] == ["L", "S", "R"]
    assert "must lay a" in turn.embed_text(), "2 players: the colour to lay is shown"
    assert any(a.filename == "board.png" for a in turn.attachments)

    refused = await private(edge.click(other, turn, "North (straight on)"))
    assert f"not your turn: <@{mover.id}>" in refused
    assert "not playing" in await private(edge.click(edge.outsider, turn, "North (straight on)"))

    answer = await edge.click(mover, turn, "North (straight on)").answer()
    assert answer.id == turn.id, "the click's answer is its own message, edited"
    shown = edge.fake.world.messages[turn.id]
    view = await edge.service.play.look(1)
    assert view.state is not None
    labels = [b.label for b in shown.buttons()]
    assert labels == [
        f"{number} · {notation[:2]}-{notation[2:]}"
        for number, notation in enumerate(engine.legal_actions(view.state), start=1)
    ]
    assert len(labels) <= 25
    assert "The die shows" in shown.embed_text()

    first = labels[0]
    assert first is not None
    placed = await edge.click(mover, shown, first).answer()
    assert placed.id == turn.id
    assert not edge.fake.world.messages[turn.id].enabled_buttons(), "the turn is finalised"
    nxt = await edge.fake.wait_for_message(
        edge.channel, lambda m: m.id > turn.id and bool(m.pinged_user_ids)
    )
    assert nxt.pinged_user_ids == frozenset({other.id}), "the next player alone is pinged"


async def test_board_and_rules_are_private(edge: Edge) -> None:
    assert "no Marrakech game" in await private(edge.slash(edge.host, "marrakech", "board"))
    await started(edge)
    board = await edge.slash(edge.outsider, "marrakech", "board").answer()
    assert board.ephemeral
    assert any(a.filename == "board.png" for a in board.attachments)
    rules = await edge.slash(edge.outsider, "marrakech", "rules").answer()
    assert rules.ephemeral
    assert "1, 2, 2, 3, 3 and 4" in rules.embed_text()


async def test_a_board_whose_picture_is_slow_thinks_privately(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The picture not ready in time, `/marrakech board` is deferred while it is drawn: the
    bot thinks privately, so the channel never sees who asked."""
    await started(edge)
    assert await HANDLERS.drained(30.0), "the start's handler is still running"
    public = [m.id for m in edge.fake.messages(edge.channel) if not m.ephemeral]
    monkeypatch.setattr(controller, "ANSWER_PATIENCE_SECONDS", 0.0)
    monkeypatch.setattr(replies, "ACKNOWLEDGE_AFTER_SECONDS", 3600.0)  # the handler's deferral
    handle = edge.slash(edge.outsider, "marrakech", "board")
    board = await handle.answer()
    assert board.ephemeral
    assert any(a.filename == "board.png" for a in board.attachments)
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    callbacks = [event for event in handle.events if event.kind == "callback"]
    assert [event.response_type for event in callbacks] == [DEFERRED_CHANNEL_MESSAGE]
    assert callbacks[0].message is not None
    assert callbacks[0].message.ephemeral, "thinking… shows only to the one who asked"
    assert [event.kind for event in handle.events if event.kind == "delete"] == []
    assert [m.id for m in edge.fake.messages(edge.channel) if not m.ephemeral] == public


async def test_resign_in_two_players_ends_the_game_with_the_record(edge: Edge) -> None:
    turn = await started(edge)
    resigning = await confirm(edge, edge.guest, "marrakech", "resign", button="Resign")
    assert (await resigning.answer()).content == "You resigned from game #1."
    final = await edge.fake.wait_for_message(
        edge.channel, lambda m: any(a.filename.endswith(".json") for a in m.attachments)
    )
    assert f"<@{edge.guest.id}> resigned" in edge.fake.world.messages[turn.id].content, (
        "the last turn's line tells the resignation"
    )
    assert f"<@{edge.host.id}>" in final.embed_text()
    assert "over" in final.embed_text()
    assert not edge.fake.world.messages[turn.id].enabled_buttons()
    game = await edge.store.get(1)
    assert game is not None
    assert game.status is GameStatus.OVER


async def test_moderator_abort_checks_manage_channels_at_run_time(edge: Edge) -> None:
    mod_command = edge.client.tree.get_command("marrakech-mod")
    assert mod_command is not None
    payload = mod_command.to_dict(edge.client.tree)
    assert int(payload["default_member_permissions"]) == permissions.MANAGE_CHANNELS

    turn = await started(edge)
    # Discord hides the command from members without the permission, but a server can
    # override that (or a client forge the call): the bot checks again at run time.
    with pytest.raises(InteractionInputError, match="hidden from outsider"):
        edge.slash(edge.outsider, "marrakech-mod", "abort")
    abort = ("marrakech-mod", "abort")
    refused = await private(edge.command(edge.outsider, abort, edge.channel, {}, validate=False))
    assert "Manage Channels" in refused
    assert "Only the host" in await private(edge.slash(edge.guest, "marrakech", "abort"))
    aborting = await confirm(edge, edge.moderator, "marrakech-mod", "abort", button="Abort")
    assert (await aborting.answer()).content == "Game #1 is aborted."
    (answer,) = await aborting.followups(1)
    assert "aborted" in answer.embed_text()
    assert not answer.ephemeral
    await edge.fake.wait_until(
        lambda: not edge.fake.world.messages[turn.id].enabled_buttons(), what="buttons removed"
    )
    game = await edge.store.get(1)
    assert game is not None
    assert game.status is GameStatus.ABORTED
    assert game.ended_by == edge.moderator.id


async def test_the_channel_is_told_a_moderator_aborted_the_game_not_its_host(edge: Edge) -> None:
    """The public notice names whoever ended the game: a moderator's abort is not laid at the
    host's door."""
    await started(edge)
    aborting = await confirm(edge, edge.moderator, "marrakech-mod", "abort", button="Abort")
    await aborting.answer()
    (notice,) = await aborting.followups(1)
    assert not notice.ephemeral
    assert notice.embed_text() == (
        f"Game #1 was aborted by <@{edge.moderator.id}>. It is kept in the records."
    )


async def test_a_second_new_points_at_the_open_game(edge: Edge) -> None:
    lobby = await edge.slash(edge.host, "marrakech", "new").answer()
    answer = await private(edge.slash(edge.guest, "marrakech", "new"))
    assert f"/{edge.channel.id}/{lobby.id}" in answer


async def test_a_second_new_beside_a_game_being_played_points_at_it_and_offers_no_join(
    edge: Edge,
) -> None:
    turn = await started(edge)
    answer = await private(edge.slash(edge.outsider, "marrakech", "new"))
    assert answer.startswith("This channel already has a game: "), answer
    assert f"/{edge.channel.id}/{turn.id}" in answer
    assert "Press Join" not in answer, "a game being played is not offered to join"


def several_syncs_a_minute(edge: Edge) -> None:
    """Lift the fake's limit of 2 command syncs a minute per place, which discord.py would
    wait out after the second, for a test of what is synced when, not how often."""
    edge.fake.rest.limits.enabled = False


async def test_commands_sync_only_when_they_change(edge: Edge, tmp_path: Path) -> None:
    several_syncs_a_minute(edge)
    syncs = edge.fake.world.commands.syncs
    assert syncs >= 1
    assert {"marrakech", "marrakech-mod"} <= edge.fake.world.commands.names()
    assert not await sync_commands(edge.client.tree, edge.store, ())
    assert edge.fake.world.commands.syncs == syncs
    guild = edge.channel.guild
    assert guild is not None
    assert await sync_commands(edge.client.tree, edge.store, (guild.id,))
    assert edge.fake.world.commands.syncs == syncs + 1
    # Dev guilds dropped after testing: the commands go global again, not "unchanged", and
    # the server's own copy is cleared.
    assert await sync_commands(edge.client.tree, edge.store, ())
    assert edge.fake.world.commands.syncs == syncs + 3
    with sqlite3.connect(tmp_path / "edge.sqlite3") as raw:
        (stored,) = raw.execute("SELECT count(*) FROM bot_meta").fetchone()
    assert stored == 1


async def test_a_dev_guild_is_given_every_command_at_once(edge: Edge) -> None:
    """With dev guilds set, each gets the bot's commands as a guild's own, which Discord
    shows there at once."""
    guild = edge.channel.guild
    assert guild is not None
    assert await sync_commands(edge.client.tree, edge.store, (guild.id,))
    commands = edge.fake.world.commands
    in_guild = {command["name"] for command in commands.commands_in(guild.id)}
    assert {"marrakech", "marrakech-mod", "marrakech-admin"} <= in_guild
    assert in_guild == {command["name"] for command in commands.commands_in(None)}


async def test_a_server_dropped_from_the_dev_guilds_keeps_no_copy_of_the_commands(
    edge: Edge,
) -> None:
    """Dev guilds dropped after testing: the commands go global, and the test server's own
    copy, which its members would see beside the global one, frozen at its version, is
    cleared, once."""
    several_syncs_a_minute(edge)
    guild = edge.channel.guild
    assert guild is not None
    commands = edge.fake.world.commands
    assert await sync_commands(edge.client.tree, edge.store, (guild.id,))
    assert await sync_commands(edge.client.tree, edge.store, ())
    assert [command["name"] for command in commands.commands_in(guild.id)] == []
    everywhere = {command["name"] for command in commands.commands_in(None)}
    assert everywhere == {"marrakech", "marrakech-mod", "marrakech-admin"}
    syncs = commands.syncs
    assert not await sync_commands(edge.client.tree, edge.store, ())
    assert commands.syncs == syncs, "cleared once"


@pytest.mark.invalid_requests(403)
async def test_a_former_dev_guild_the_bot_has_left_does_not_stop_the_sync(edge: Edge) -> None:
    """Discord refuses to clear the commands of a server the bot is no longer in (and has
    nothing left to clear there): the bot syncs all the same, starts, and does not ask again."""
    several_syncs_a_minute(edge)
    lab = edge.fake.add_guild("Lab")
    assert await sync_commands(edge.client.tree, edge.store, (lab.id,))
    del edge.fake.world.guilds[lab.id]  # the bot was removed from it
    assert await sync_commands(edge.client.tree, edge.store, ())
    asked = len(edge.fake.requests_to("PUT", f"/guilds/{lab.id}/commands"))
    assert not await sync_commands(edge.client.tree, edge.store, ())
    assert len(edge.fake.requests_to("PUT", f"/guilds/{lab.id}/commands")) == asked


class SyncsOnStart:
    """A client whose gateway task ends as the start's sync of the commands does."""

    def __init__(self, edge: Edge, dev_guilds: tuple[int, ...]) -> None:
        self.edge = edge
        self.dev_guilds = dev_guilds

    async def __aenter__(self) -> SyncsOnStart:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        pass

    async def start(self, token: str) -> None:
        await sync_commands(self.edge.client.tree, self.edge.store, self.dev_guilds)


@pytest.mark.invalid_requests(403)
@pytest.mark.parametrize("unknown_guild", [False, True], ids=["not-in-it", "unknown-guild"])
async def test_a_dev_guild_discord_refuses_stops_the_start_as_a_bad_setting_in_one_line(
    edge: Edge, caplog: pytest.LogCaptureFixture, unknown_guild: bool
) -> None:
    """A server in MARRAKECH_DEV_GUILDS that the bot is not in (or was invited to without the
    applications.commands scope), or an id Discord knows no server by (404 Unknown Guild), is
    a setting a person must fix: the start stops with exit code 2 and one line naming the
    server and the setting, not a traceback and exit 1 that a supervisor would restart for
    ever."""
    several_syncs_a_minute(edge)
    elsewhere = 987654321098765432
    assert elsewhere not in edge.fake.world.guilds
    if unknown_guild:
        edge.fake.faults.add(
            "PUT",
            "/applications/{app_id}/guilds/{guild_id}/commands",
            ErrorResponse(404, UNKNOWN_GUILD, "Unknown Guild"),
            times=None,
        )
    start = SyncsOnStart(edge, (elsewhere,))

    with caplog.at_level(logging.ERROR, logger="bot.runtime.app"):
        code = await app._run_client(cast(Any, start), "token", asyncio.Event())

    assert code == app.EXIT_BAD_SETTINGS
    (record,) = caplog.records
    assert record.exc_info is None, "one line, no traceback"
    said = record.getMessage()
    assert str(elsewhere) in said
    assert "MARRAKECH_DEV_GUILDS" in said
    assert "applications.commands" in said


async def test_commands_deleted_on_discord_s_side_are_synced_again_at_the_next_start(
    edge: Edge,
) -> None:
    """Someone deletes a command in the Developer Portal, or with another tool: the next start
    sees that Discord lacks it (one listing of the commands) and syncs them again, though
    nothing changed in the bot."""
    several_syncs_a_minute(edge)
    commands = edge.fake.world.commands
    (moderators,) = [c for c in commands.commands_in(None) if c["name"] == "marrakech-mod"]
    assert commands.delete(None, int(moderators["id"]))
    assert await sync_commands(edge.client.tree, edge.store, ())
    everywhere = {command["name"] for command in commands.commands_in(None)}
    assert everywhere == {"marrakech", "marrakech-mod", "marrakech-admin"}


async def test_another_application_on_the_same_database_syncs_its_own_commands(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second bot application started on this database (a staging bot on a copy of it, a
    new application in place of a deleted one) gets the bot's commands as they are now, even
    where it holds commands of the same names from an older version: what was synced is kept
    for each application."""
    other = edge.fake.world.application_id + 1
    monkeypatch.setattr(World, "application_id", property(lambda world: other))
    monkeypatch.setattr(edge.client._connection, "application_id", other)
    older: list[dict[str, Any]] = [
        {"name": name, "description": "An older version", "options": []}
        for name in ("marrakech", "marrakech-mod", "marrakech-admin")
    ]
    theirs = CommandRegistry()
    theirs.overwrite(other, None, older, edge.fake.world.snowflakes.next)
    monkeypatch.setattr(edge.fake.world, "commands", theirs)
    assert await sync_commands(edge.client.tree, edge.store, ())
    game = theirs.find(None, "marrakech")
    assert game is not None
    assert game["description"] == messages.text("command.marrakech", "en")


async def test_commands_discord_failed_to_take_are_synced_at_the_next_start(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upgrade changes a command's French text and Discord fails the sync (a 503): that
    start fails, and the next one syncs, though Discord holds commands of the same names (the
    test server's, synced at once)."""
    several_syncs_a_minute(edge)
    guild = edge.channel.guild
    assert guild is not None
    assert await sync_commands(edge.client.tree, edge.store, (guild.id,))
    french = dict(messages.catalogue("fr"))
    french["command.rules"] = "Les règles, autrement dit"
    real = messages.translation
    monkeypatch.setattr(
        "bot.edge.translator.translation",
        lambda key, language: french.get(key) if language == "fr" else real(key, language),
    )
    route = f"/applications/{edge.fake.application_id}/guilds/{guild.id}/commands"
    edge.fake.faults.server_error("PUT", route, status=503)
    with pytest.raises(discord.DiscordServerError):
        await sync_commands(edge.client.tree, edge.store, (guild.id,))
    assert await sync_commands(edge.client.tree, edge.store, (guild.id,))
    game = edge.fake.world.commands.find(guild.id, "marrakech")
    assert game is not None
    (rules,) = [option for option in game["options"] if option["name"] == "rules"]
    assert rules["description_localizations"]["fr"] == "Les règles, autrement dit"


async def test_a_slow_image_defers_the_click_then_edits(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    turn = await started(edge)
    (mover_id,) = turn.pinged_user_ids
    mover = edge.host if mover_id == edge.host.id else edge.guest
    monkeypatch.setattr(controller, "ANSWER_PATIENCE_SECONDS", 0.0)
    monkeypatch.setattr(replies, "ACKNOWLEDGE_AFTER_SECONDS", 3600.0)  # the handler's deferral
    handle = edge.click(mover, turn, "West")
    assert (await handle.response()).response_type == DEFERRED_UPDATE_MESSAGE
    edited = await handle.answer()
    assert edited.id == turn.id
    assert "The die shows" in edited.embed_text()
    assert edited.enabled_buttons()
    assert (edited.buttons()[0].label or "").startswith("1 · ")


async def test_a_click_is_deferred_at_once_while_every_worker_is_busy(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    turn = await started(edge)
    (mover_id,) = turn.pinged_user_ids
    mover = edge.host if mover_id == edge.host.id else edge.guest
    monkeypatch.setattr(controller, "ANSWER_PATIENCE_SECONDS", 3600.0)
    monkeypatch.setattr(images.Pictures, "busy", property(lambda self: True))
    monkeypatch.setattr(replies, "ACKNOWLEDGE_AFTER_SECONDS", 3600.0)  # the handler's deferral
    handle = edge.click(mover, turn, "West")
    assert (await handle.response()).response_type == DEFERRED_UPDATE_MESSAGE
    edited = await handle.answer()
    assert edited.id == turn.id
    assert "The die shows" in edited.embed_text()


async def test_a_click_whose_patience_was_spent_before_its_handler_ran_is_deferred_at_once(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A click waits for its picture ANSWER_PATIENCE_SECONDS counted from when Discord made it,
    not from when its handler began: a click that spent its wait before (in a queue, behind a
    busy loop) is deferred at once, however soon the picture is ready. Here the patience is an
    hour, and an hour and half a second had gone when the handler ran (the watchdog, due two
    hours after, stays out of it)."""
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    monkeypatch.setattr(controller, "ANSWER_PATIENCE_SECONDS", 3600.0)
    monkeypatch.setattr(replies, "ACKNOWLEDGE_AFTER_SECONDS", 7200.0)
    monkeypatch.setattr(replies, "elapsed", lambda interaction, received: 3600.5)
    handle = edge.click(mover, turn, "West")
    assert (await handle.response()).response_type == DEFERRED_UPDATE_MESSAGE
    edited = await handle.answer()
    assert edited.id == turn.id
    assert "The die shows" in edited.embed_text()


async def test_a_move_whose_click_was_answered_too_late_is_shown_in_the_channel_all_the_same(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord refuses the answer to a click the bot took up after Discord's 3 s (10062: a
    stalled loop, a replayed gateway event). The move is stored, so the game is shown anew in
    the background (after the display's first pause, none here), not left as it was until the
    turn clock looks at it a minute later."""
    monkeypatch.setattr(controller, "REDISPLAY_DELAYS_SECONDS", (0.0, 3600.0, 3600.0))
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    data = component_data(turn, id_of(turn.button(label="West")), None, validate=True)
    late = edge.fake.interaction_from_payload(
        MESSAGE_COMPONENT, mover, edge.channel, data, message=turn
    )
    late.queued_at = time.perf_counter() - 3.5  # Discord's 3 s are over as it reaches the bot
    edge.dispatch(late)
    await late.wait_for(lambda handle: bool(handle.refusals))  # its handler is under way
    assert await HANDLERS.drained(30.0), "the click's handler is still running"
    assert late.refusals, "Discord refused the click's answer"
    assert set(late.refusals) == {10062}, late.refusals
    view = await edge.service.play.look(1)
    assert view.seq > 0, "the move is stored"
    display = edge.bot.display
    await until(lambda: 1 not in display._retrying, "the background try ended")
    shown = edge.fake.world.messages[turn.id]
    assert "The die shows" in shown.embed_text(), shown.embed_text()
    assert await edge.service.play.behind_on_display() == []


def late_click(edge: Edge, user: FakeUser, message: FakeMessage, label: str) -> InteractionHandle:
    """A click on `label` that reaches the bot once Discord's 3 s are over (a stalled loop, a
    replayed gateway event), handed to discord.py: Discord refuses its answer (10062)."""
    message = edge.fake.world.messages[message.id]
    data = component_data(message, id_of(message.button(label=label)), None, validate=True)
    late = edge.fake.interaction_from_payload(
        MESSAGE_COMPONENT, user, edge.channel, data, message=message
    )
    late.queued_at = time.perf_counter() - LATE_SECONDS
    return edge.dispatch(late)


def late_command(edge: Edge, user: FakeUser, *path: str, **options: Any) -> InteractionHandle:
    """`/path options` from `user` in the edge's channel, reaching the bot once Discord's 3 s
    are over: Discord refuses its answer (10062)."""
    return edge.command(user, path, edge.channel, options, validate=True, late=True)


@pytest.mark.parametrize("label", ["Join", "Start"])
async def test_a_lobby_click_answered_too_late_is_shown_in_the_channel_all_the_same(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, label: str
) -> None:
    """Discord refuses the answer to a lobby click the bot took up after its 3 s: the join or
    the start is stored, so the game is shown anew in the background, as a move is: the lobby
    lists the player who joined; a started game's first turn is posted, calling its player,
    and the lobby offers only to watch the game."""
    monkeypatch.setattr(controller, "REDISPLAY_DELAYS_SECONDS", (0.0, 3600.0, 3600.0))
    if label == "Join":
        lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
        late = late_click(edge, edge.guest, lobby, label)
    else:
        lobby = await lobby_with_guest(edge)
        late = late_click(edge, edge.host, lobby, label)
    await late.wait_for(lambda handle: bool(handle.refusals))  # its handler is under way
    assert await HANDLERS.drained(30.0), "the click's handler is still running"
    assert late.refusals[0] == 10062, "Discord refused the click's answer"
    display = edge.bot.display
    await until(lambda: 1 not in display._retrying, "the background try ended")
    shown = edge.fake.world.messages[lobby.id]
    assert f"<@{edge.guest.id}>" in shown.embed_text(), edge.fake.transcript(edge.channel)
    assert await edge.service.play.behind_on_display() == []
    if label == "Start":
        labels = [button.label for button in shown.enabled_buttons()]
        assert labels == ["Watch"], "the started game's lobby still offers to join or start"
        called = [m for m in edge.fake.messages(edge.channel) if m.id > lobby.id]
        assert [bool(m.pinged_user_ids and m.enabled_buttons()) for m in called] == [True]


async def test_a_resignation_confirmed_too_late_is_shown_in_the_channel_all_the_same(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guest's Resign, pressed on the private question, reaches the bot after Discord's
    3 s: the resignation is stored and ends the duel, so the result is posted in the
    background though the press could not be answered."""
    monkeypatch.setattr(controller, "REDISPLAY_DELAYS_SECONDS", (0.0, 3600.0, 3600.0))
    await started(edge)
    question = await edge.slash(edge.guest, "marrakech", "resign").answer()
    late = late_click(edge, edge.guest, question, "Resign")
    await late.wait_for(lambda handle: bool(handle.refusals))  # its handler is under way
    assert await HANDLERS.drained(30.0), "the click's handler is still running"
    assert late.refusals[0] == 10062, "Discord refused the click's answer"
    assert (await edge.service.play.look(1)).status is GameStatus.OVER
    display = edge.bot.display
    await until(lambda: 1 not in display._retrying, "the background try ended")
    assert await edge.service.play.behind_on_display() == []
    results = [
        message
        for message in edge.fake.messages(edge.channel)
        if any(a.filename == "marrakech-game-1.json" for a in message.attachments)
    ]
    assert len(results) == 1, edge.fake.transcript(edge.channel)


async def test_a_game_runs_in_a_thread(edge: Edge) -> None:
    thread = edge.fake.add_thread(edge.channel, "side game")
    lobby = await edge.slash(edge.host, "marrakech", "new", channel=thread, seats=2).answer()
    assert lobby.channel_id == thread.id
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    turn = await edge.fake.wait_for_message(thread, lambda m: bool(m.pinged_user_ids))
    assert turn.enabled_buttons()
    edge.fake.deny_bot(edge.channel, permissions.SEND_MESSAGES_IN_THREADS)
    refused = await private(edge.click(edge.host, turn, "West"))
    assert "Send Messages in Threads" in refused


async def test_resigning_out_of_turn_redraws_the_current_turn(edge: Edge) -> None:
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=3).answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.click(edge.outsider, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    turn = await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    (mover_id,) = turn.pinged_user_ids
    quitter = next(u for u in (edge.host, edge.guest, edge.outsider) if u.id != mover_id)
    before = {b.custom_id for b in turn.buttons()}
    await (await confirm(edge, quitter, "marrakech", "resign", button="Resign")).answer()
    await edge.fake.wait_until(
        lambda: bool({b.custom_id for b in edge.fake.world.messages[turn.id].buttons()} - before),
        what="the turn message's buttons moved to the new seq",
    )
    redrawn = edge.fake.world.messages[turn.id]
    assert "out" in redrawn.embed_text()
    assert redrawn.enabled_buttons()
    view = await edge.service.play.look(1)
    assert all(id_of(b).startswith(f"mk:1:{view.seq}:") for b in redrawn.enabled_buttons())


async def mover_of(edge: Edge, turn: FakeMessage) -> FakeUser:
    (mover_id,) = turn.pinged_user_ids
    return edge.host if mover_id == edge.host.id else edge.guest


async def showing_the_move(edge: Edge, turn: FakeMessage) -> FakeMessage:
    """Wait until the first turn's message of game 1 offers the decision after its facing (the
    step after the move "S", step 2) and nothing else."""

    def showing() -> FakeMessage | None:
        m = edge.fake.world.messages[turn.id]
        if m.enabled_buttons() and all(id_of(b).startswith("mk:1:2:") for b in m.enabled_buttons()):
            return m
        return None

    return await edge.fake.wait_until(showing, what="the turn's message showing the move")


async def test_a_click_on_a_message_left_behind_by_a_crash_brings_it_up_to_date(
    edge: Edge,
) -> None:
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    # as if the bot had committed this move and died before answering the click
    await edge.service.play.act(1, mover.id, 0, "S")
    posted = [m.id for m in edge.fake.messages(edge.channel)]
    answer = await edge.click(mover, turn, "North (straight on)").response()
    assert answer.response_type in (UPDATE_MESSAGE, DEFERRED_UPDATE_MESSAGE)
    # the move did not end the turn: the turn's own message shows it, and nothing is posted

    current = await showing_the_move(edge, turn)
    assert await HANDLERS.drained(30.0), "the click's handler is still running"
    assert [m.id for m in edge.fake.messages(edge.channel)] == posted, "nothing is posted"
    assert edge.fake.latest_with_components(edge.channel).id == turn.id
    game = await edge.store.get(1)
    assert game is not None
    assert (game.board_message_id, game.board_message_seq) == (current.id, 2)


async def test_a_click_on_a_turn_that_ended_unshown_cuts_it_to_its_line_and_calls_the_next_player(
    edge: Edge,
) -> None:
    """The mover's whole turn is committed and the bot stops before answering; the mover then
    clicks the turn's message again, before anything showed the game: the message becomes its
    turn's line, and the next turn is posted, pinging its player."""
    await edge.bot.scheduler.stop()  # only the click shows the game
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    other = edge.guest if mover is edge.host else edge.host
    # as if the bot had committed the whole turn and died before answering the click
    view = await edge.service.play.act(1, mover.id, 0, "S")
    assert view.state is not None
    first = view.state.turn
    while view.state.turn == first:
        view = await edge.service.play.act(
            1, mover.id, view.seq, engine.legal_actions(view.state)[0]
        )
        assert view.state is not None
    assert view.user_to_move == other.id

    await edge.click(mover, turn, "North (straight on)").answer()
    assert await HANDLERS.drained(30.0), "the click's handler is still running"

    retired = edge.fake.world.messages[turn.id]
    assert not retired.enabled_buttons(), [id_of(b) for b in retired.enabled_buttons()]
    assert retired.content.startswith(f"**Game #1 · turn {first}** · "), retired.content
    called = [m for m in edge.fake.messages(edge.channel) if m.id > turn.id and m.enabled_buttons()]
    assert [m.pinged_user_ids for m in called] == [{other.id}], edge.fake.transcript(edge.channel)


async def test_a_click_that_ends_the_turn_posts_the_next_turn_itself(edge: Edge) -> None:
    """The click that ends a turn posts the next turn as its own follow-up, even when it is
    the game's only fresh interaction (the turn's first click, made long ago, no longer
    kept): the bot token is not used for it."""
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    await edge.click(mover, turn, "North (straight on)").answer()
    moved = await showing_the_move(edge, turn)
    assert await HANDLERS.drained(30.0), "the facing's handler is still running"
    edge.bot.display._delivery._tokens.clear()  # the facing's interaction no longer usable
    placing = edge.click(mover, moved, moved.enabled_buttons()[0].label or "")
    await placing.answer()
    assert await HANDLERS.drained(30.0), "the placing's handler is still running"
    following = [m for m in edge.fake.messages(edge.channel) if m.id > turn.id]
    assert [m.id for m in following] == placing.followup_ids, edge.fake.transcript(edge.channel)
    (following_turn,) = following
    assert following_turn.pinged_user_ids, "the next turn, calling its player"


def click_made_now(
    edge: Edge, user: FakeUser, message: FakeMessage, label: str
) -> InteractionHandle:
    """A click of `label` on `message` as `user` sees it now, for `edge.dispatch` to hand to the
    bot later (a click Discord took before the message changed)."""
    button = id_of(message.button(label=label))
    data = component_data(message, button, None, validate=True)
    return edge.fake.interaction_from_payload(
        MESSAGE_COMPONENT, user, edge.channel, data, message=message
    )


LOBBY_STARTED = {
    "en": "This game has already started: play it from its turn messages; `/marrakech abort` "
    "ends it early.",
    "fr": "Cette partie a déjà commencé : jouez-la depuis ses messages de tour ; "
    "`/marrakech arrêter` l'arrête avant la fin.",
    "uk": "Ця гра вже почалася: грайте через повідомлення ходів; `/марракеш зупинити` "  # noqa: RUF001
    "завершує її достроково.",
}


async def test_start_pressed_twice_says_the_game_has_started_not_that_it_takes_no_players(
    edge: Edge,
) -> None:
    """A double press of Start (or a second device) whose second press reaches the bot once
    the game runs: the host is told privately that it has started already, and where it is
    played, not that it takes no more players (which reads as if their Start had failed). The
    game was started once: one first turn."""
    lobby = await lobby_with_guest(edge)
    second = click_made_now(edge, edge.host, lobby, "Start")
    await edge.click(edge.host, lobby, "Start").answer()
    await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    assert await HANDLERS.drained(30.0), "the start's handler is still running"
    answer = await edge.dispatch(second).answer()
    assert answer.ephemeral, answer.content
    assert answer.content == LOBBY_STARTED["en"], answer.content
    assert await HANDLERS.drained(30.0), "the second press's handler is still running"
    turns = [m for m in edge.fake.messages(edge.channel) if m.pinged_user_ids]
    assert len(turns) == 1, "one first turn"


@pytest.mark.parametrize("language", ["en", "fr", "uk"])
def test_a_host_s_lobby_button_on_a_started_game_is_answered_in_every_language(
    language: str,
) -> None:
    said = errors.describe(LobbyClosedError(started=True), language)
    assert said == LOBBY_STARTED[language]


async def test_a_second_click_made_before_the_first_was_shown_is_refused_and_changes_nothing(
    edge: Edge,
) -> None:
    """Two clicks of the same decision on the same message (a double click, or a second
    device) that reach the bot one after the other: the second, handled once the first's move
    is shown and recorded, is told privately that the board moved on; the message is not drawn
    again and the game stays where it was."""
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    second = click_made_now(edge, mover, turn, "North (straight on)")
    answer = await edge.click(mover, turn, "North (straight on)").answer()
    assert answer.id == turn.id

    async def recorded() -> bool:
        game = await edge.store.get(1)
        return game is not None and (game.board_message_id, game.board_message_seq) == (
            turn.id,
            game.seq,
        )

    await until(recorded, "the move's message recorded as showing it")
    before = await edge.store.get(1)
    edits = edge.fake.world.messages[turn.id].edit_count
    refused = await private(edge.dispatch(second))
    assert refused.startswith("This board has moved on"), refused
    assert await edge.store.get(1) == before, "the game and its message's record stay as they were"
    assert edge.fake.world.messages[turn.id].edit_count == edits, "the message is not drawn again"


async def test_a_second_click_while_the_first_is_being_shown_is_refused_and_leaves_it_the_message(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two clicks of the same decision, the second handled while the first's move is committed
    but not yet shown: the second is told privately that the board moved on and leaves the
    message to the first, which then shows the move on it."""
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    second = click_made_now(edge, mover, turn, "North (straight on)")
    reached, release = asyncio.Event(), asyncio.Event()
    show_move = GameHandlers._show_move

    async def held_show_move(self: GameHandlers, interaction: Any, view: Any) -> None:
        reached.set()
        await release.wait()
        await show_move(self, interaction, view)

    monkeypatch.setattr(GameHandlers, "_show_move", held_show_move)
    posted = [m.id for m in edge.fake.messages(edge.channel)]
    first = edge.click(mover, turn, "North (straight on)")
    await reached.wait()  # the first click's move is committed, its answer not yet given
    refused = await private(edge.dispatch(second))
    assert refused.startswith("This board has moved on"), refused
    release.set()
    answer = await first.response()
    assert answer.response_type in (UPDATE_MESSAGE, DEFERRED_UPDATE_MESSAGE)

    await showing_the_move(edge, turn)
    assert await HANDLERS.drained(30.0), "a click's handler is still running"
    assert [m.id for m in edge.fake.messages(edge.channel)] == posted, "nothing else posted"


async def test_a_redraw_that_finds_the_game_moved_on_while_its_picture_was_drawn_leaves_the_message(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A redraw of the turn (what it says of its player changed) whose picture is still being
    drawn when the mover clicks: the click's answer shows the move, and the redraw, finding the
    game moved on, leaves the message to it (no edit back to the decision before the move)."""
    turn = await started(edge)
    mover = await mover_of(edge, turn)

    async def recorded() -> bool:
        game = await edge.store.get(1)
        return game is not None and (game.board_message_id, game.board_message_seq) == (
            turn.id,
            game.seq,
        )

    await until(recorded, "the first turn's message recorded")
    display = edge.bot.display
    files = display._files
    drawing, drawn = asyncio.Event(), asyncio.Event()

    async def redraw_s_picture_held(post: Any) -> list[discord.File]:
        if not drawing.is_set():  # the redraw's, the first picture asked for
            drawing.set()
            await drawn.wait()
        return await files(post)

    monkeypatch.setattr(display, "_files", redraw_s_picture_held)
    redrawing = asyncio.create_task(display.redraw(1))
    await asyncio.wait_for(drawing.wait(), 30)
    assert (await edge.click(mover, turn, "North (straight on)").response()).response_type in (
        UPDATE_MESSAGE,
        DEFERRED_UPDATE_MESSAGE,
    )
    await showing_the_move(edge, turn)
    assert await HANDLERS.drained(30.0), "the click's handler is still running"
    edits = edge.fake.world.messages[turn.id].edit_count
    drawn.set()
    await asyncio.wait_for(redrawing, 30)
    assert edge.fake.world.messages[turn.id].edit_count == edits, "the redraw edited the message"
    await showing_the_move(edge, turn)


async def test_a_stale_click_on_the_turn_s_message_not_yet_recorded_leaves_it_as_it_is(
    edge: Edge,
) -> None:
    """A stale click on a message of the turn being played that the game does not record yet
    as its message (a click may race the recording of a message just posted): the click is
    refused privately and the message keeps its buttons, never cut down to its turn's line."""
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    game = await edge.store.get(1)
    assert game is not None
    assert game.lobby_message_id is not None
    # the move is committed elsewhere, and the game still records the lobby as its message
    await edge.service.play.act(1, mover.id, 0, "S")
    await edge.service.play.set_board_message(1, game.lobby_message_id, 0)
    refused = await private(edge.click(mover, turn, "North (straight on)"))
    assert refused.startswith("This board has moved on"), refused


def a_window_later(edge: Edge, monkeypatch: pytest.MonkeyPatch) -> None:
    """Move the display's clock and the fake's past Discord's window on a channel, as for a
    restart that took that long: the catch-up after it need not wait for the window."""
    seconds = controller.CHANNEL_WINDOW_SECONDS + 1
    later = edge.bot.display._clock() + timedelta(seconds=seconds)
    monkeypatch.setattr(edge.bot.display, "_clock", lambda: later)
    edge.fake.shift_clock(seconds)


def clock_moving_waits(edge: Edge, monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Each wait of the display for a channel's window, in seconds: the display's clock and
    Discord's move on by as much, instead of the test sleeping."""
    waits: list[float] = []
    clock = edge.bot.display._clock

    async def wait(seconds: float) -> None:
        waits.append(seconds)
        edge.fake.shift_clock(edge.fake.world.clock_offset + seconds)
        later = clock() + timedelta(seconds=sum(waits))
        monkeypatch.setattr(edge.bot.display, "_clock", lambda: later)

    monkeypatch.setattr(edge.bot.display, "_sleep", wait)
    return waits


async def test_start_up_catches_up_games_whose_message_fell_behind(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    await edge.service.play.act(1, mover.id, 0, "L")
    a_window_later(edge, monkeypatch)
    await edge.bot.display.resume_displays()
    latest = edge.fake.latest_with_components(edge.channel)
    assert latest.id == turn.id, "a move within the turn: the turn's message is redrawn"
    view = await edge.service.play.look(1)
    assert view.state is not None
    assert len(latest.enabled_buttons()) == len(engine.legal_actions(view.state))
    assert all(id_of(b).startswith(f"mk:1:{view.seq}:") for b in latest.enabled_buttons())
    assert await edge.service.play.behind_on_display() == []


async def test_a_move_within_a_turn_is_drawn_on_its_message_at_start_up_however_slow_its_picture(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord's bound counts from the edit, not from the picture drawn before it (the workers
    bound that): a picture slower than the bound still draws the turn again on its own message,
    rather than the turn posted anew and its player pinged a second time."""
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    await edge.service.play.act(1, mover.id, 0, "L")  # stored, not shown: the run died
    a_window_later(edge, monkeypatch)
    display = edge.bot.display
    files, bound = display._files, answers.DISCORD_TIMEOUT_SECONDS

    async def drawn_slower_than_discord_s_bound(post: Any) -> list[discord.File]:
        await asyncio.sleep(0.05)
        monkeypatch.setattr(answers, "DISCORD_TIMEOUT_SECONDS", bound)  # drawn: the full bound
        return await files(post)

    monkeypatch.setattr(answers, "DISCORD_TIMEOUT_SECONDS", 0.01)  # while it is drawn
    monkeypatch.setattr(display, "_files", drawn_slower_than_discord_s_bound)
    pinged = sum(1 for m in edge.fake.messages(edge.channel) if m.pinged_user_ids)

    await display.resume_displays()

    latest = edge.fake.latest_with_components(edge.channel)
    assert latest.id == turn.id, "the turn's own message drawn again, not a new one posted"
    assert sum(1 for m in edge.fake.messages(edge.channel) if m.pinged_user_ids) == pinged
    view = await edge.service.play.look(1)
    assert all(id_of(b).startswith(f"mk:1:{view.seq}:") for b in latest.enabled_buttons())


async def test_a_turn_drawn_again_in_place_that_discord_never_answers_is_given_up_in_time(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Drawing the turn again on its message (its player gone away, or back: the turn clock's
    end of days away does it for each game waiting for them) waits for Discord's edit
    DISCORD_TIMEOUT_SECONDS at most (shortened here), as for any post, and says so in one line
    (DEBUG: the outage's WARNING tells Discord failing once): the turn clock's pass goes on,
    and the game's later changes do not wait for it."""
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    await edge.click(mover, turn, "West").answer()  # a move within the turn
    monkeypatch.setattr(answers, "DISCORD_TIMEOUT_SECONDS", 0.2)
    hung = edge.fake.faults.hang("PATCH", r".*")  # the edit, wherever it goes
    redrawing = asyncio.create_task(edge.bot.display.redraw(1))
    try:
        with caplog.at_level(logging.DEBUG, logger="bot.edge.display"):
            done, _ = await asyncio.wait({redrawing}, timeout=WAIT_SECONDS)
    finally:
        redrawing.cancel()
        edge.fake.faults.release_hangs(apply=False)
    assert done, "the redraw still waits on Discord"
    assert hung.hits == 1, "the edit was made, and never answered"
    (said,) = [r.getMessage() for r in caplog.records if "not drawn again" in r.getMessage()]
    assert said.startswith("game 1: its turn was not drawn again ("), said
    assert said.endswith("did not answer in time)"), said


async def test_a_move_within_a_turn_whose_message_is_gone_is_shown_on_a_new_one_at_start_up(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turn's message, to be drawn again in place, was deleted meanwhile (a moderator):
    the catch-up posts the turn anew, so the game keeps a message offering its decision."""
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    await edge.service.play.act(1, mover.id, 0, "L")
    edge.fake.world.messages[turn.id].deleted = True
    a_window_later(edge, monkeypatch)
    await edge.bot.display.resume_displays()
    latest = edge.fake.latest_with_components(edge.channel)
    view = await edge.service.play.look(1)
    assert view.state is not None
    assert latest.id > turn.id, "posted anew"
    assert len(latest.enabled_buttons()) == len(engine.legal_actions(view.state))
    assert all(id_of(b).startswith(f"mk:1:{view.seq}:") for b in latest.enabled_buttons())
    game = await edge.store.get(1)
    assert game is not None
    assert (game.board_message_id, game.board_message_seq) == (latest.id, view.seq)


async def test_a_join_the_last_run_never_showed_is_shown_on_the_lobby_by_the_next_start(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A join is committed and the process dies before editing the lobby: the next start
    draws the lobby with its new player on its one message, so the host does not start, or
    wait, by a lobby that lacks someone."""
    await edge.bot.scheduler.stop()  # nothing but the restart's catch-up shows the lobby
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    await edge.service.lobby.join(1, edge.guest.id, name="guest")  # the process died here
    assert f"<@{edge.guest.id}>" not in edge.fake.world.messages[lobby.id].embed_text()
    a_window_later(edge, monkeypatch)

    await edge.bot.display.resume_displays()

    shown = edge.fake.world.messages[lobby.id].embed_text()
    assert f"<@{edge.guest.id}>" in shown, shown
    live = [m.id for m in edge.fake.messages(edge.channel) if m.enabled_buttons()]
    assert live == [lobby.id], "the lobby is drawn again in place, not posted again"
    assert await edge.service.play.behind_on_display() == []


async def test_a_first_turn_sent_but_not_recorded_is_adopted_and_linked_from_the_lobby(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game is started and its first turn posted, and the process dies before storing
    the message's id: the catch-up after the restart adopts that message rather than posting
    the turn again, and the lobby links to it."""
    await edge.bot.scheduler.stop()  # nothing but the restart's catch-up shows the game
    lobby = await lobby_with_guest(edge)
    assert await HANDLERS.drained(30.0), "the join's handler is still running"
    view = await edge.service.lobby.start(1, edge.host.id)  # the Start click's commit
    display = edge.bot.display
    fields = await display._current_message(view)
    assert fields is not None
    sent = await display._post(view, **fields)  # Discord took it; the process died here
    a_window_later(edge, monkeypatch)

    await display.resume_displays()

    game = await edge.store.get(1)
    assert game is not None
    assert game.board_message_id == sent.id, "the first turn is adopted, not posted again"
    link = message_link(game.guild_id, game.channel_id, sent.id)
    await edge.fake.wait_until(
        lambda: (
            f"[go to its first turn]({link})" in edge.fake.world.messages[lobby.id].embed_text()
        ),
        what="the lobby linking to the adopted first turn",
    )


async def test_a_result_sent_but_not_recorded_is_adopted_by_a_restart_after_the_nonce_ran_out(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game ends and its result is posted, and the process dies before storing the
    message's id; the restart comes after Discord forgot the post's nonce, so only the
    channel's history can tell the result went out: it is adopted, not posted a second time
    with its picture, its record and its buttons. The game's seq and its id differ, as a
    result found by the one where the other was meant would be missed."""
    await edge.bot.scheduler.stop()  # nothing but the restart's catch-up shows the game
    turn = await started(edge)
    assert await HANDLERS.drained(30.0), "the start's handler is still running"
    mover = await mover_of(edge, turn)
    await edge.service.play.act(1, mover.id, 0, "L")
    await edge.service.play.resign(1, edge.guest.id)  # the game ends, shown by nothing
    view = await edge.service.play.look(1)
    assert view.status is GameStatus.OVER
    assert view.seq != view.id
    display = edge.bot.display
    fields = await display._current_message(view)
    assert fields is not None
    sent = await display._post(view, **fields)  # Discord took it; the process died here
    seconds = NONCE_SECONDS + controller.CHANNEL_WINDOW_SECONDS + 1
    later = display._clock() + timedelta(seconds=seconds)
    monkeypatch.setattr(display, "_clock", lambda: later)
    edge.fake.shift_clock(seconds)

    await display.resume_displays()

    results = [
        m.id
        for m in edge.fake.messages(edge.channel)
        if any(a.filename == "marrakech-game-1.json" for a in m.attachments)
    ]
    assert results == [sent.id], "one result: adopted, not posted again"
    game = await edge.store.get(1)
    assert game is not None
    assert game.board_message_id == sent.id, "the result is adopted"


class Killed(BaseException):
    """Stands for a SIGKILL: nothing after it runs."""


async def over_and_unshown(edge: Edge) -> tuple[FakeMessage, GameView]:
    """Game 1, of host and guest, whose lobby leads to its first turn, then resigned by the
    guest through the service, so that nothing has shown its end yet: its lobby, and the game
    as it stands."""
    await edge.bot.scheduler.stop()  # nothing but the test and the restart shows the game
    lobby = await lobby_with_guest(edge)
    await edge.click(edge.host, lobby, "Start").answer()
    await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    assert await HANDLERS.drained(30.0), "the start's handler is still running"
    await edge.fake.wait_until(
        lambda: "go to its first turn" in edge.fake.world.messages[lobby.id].embed_text(),
        what="the lobby leading to the first turn",
    )
    await edge.service.play.resign(1, edge.guest.id)
    return lobby, await edge.service.play.look(1)


def result_ids(edge: Edge) -> list[int]:
    return [
        m.id
        for m in edge.fake.messages(edge.channel)
        if any(a.filename == "marrakech-game-1.json" for a in m.attachments)
    ]


async def test_a_lobby_a_kill_left_leading_to_the_first_turn_leads_to_the_result_after_a_restart(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The result is posted and the process dies before the lobby's edit to lead to it goes
    out: the next start brings the lobby up to date, so the game's first message does not say
    for good that the game is being played, leading to its first turn."""
    lobby, view = await over_and_unshown(edge)
    display = edge.bot.display
    reached = asyncio.Event()

    async def killed(game_id: int) -> bool:
        reached.set()
        raise Killed()

    with monkeypatch.context() as dying:
        dying.setattr(display, "_edit_lobby_links", killed)
        with contextlib.suppress(Killed):
            await display.post_current(view)
        await asyncio.wait_for(reached.wait(), 30.0)  # the lobby's edit, as the process died
    (result,) = result_ids(edge)
    a_window_later(edge, monkeypatch)

    await display.resume_displays()

    link = message_link(view.game.guild_id, view.game.channel_id, result)
    shown = edge.fake.world.messages[lobby.id].embed_text()
    assert f"The game is over: [see the result]({link})" in shown, shown
    assert result_ids(edge) == [result], "the result is not posted again"
    game = await edge.store.get(1)
    assert game is not None
    assert game.board_message_id == result


@pytest.mark.invalid_requests(403)
async def test_a_lobby_whose_edit_discord_refused_leads_to_the_result_after_the_next_start(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord refuses the lobby's edit to lead to the result (a 403 for a moment): the
    result is recorded all the same, with the lobby due to lead to it, and the next start
    edits the lobby, once."""
    lobby, view = await over_and_unshown(edge)
    # the one edit posting the result makes (with the bot's token, or through the Start
    # click's interaction, whose message the lobby is)
    failing = edge.fake.faults.forbidden("PATCH", ".*")
    assert await edge.bot.display.post_current(view)
    await failing.wait_fired()
    assert "go to its first turn" in edge.fake.world.messages[lobby.id].embed_text()
    a_window_later(edge, monkeypatch)
    clock_moving_waits(edge, monkeypatch)  # the start's wait for the channel's window

    await edge.bot.display.resume_displays()

    (result,) = result_ids(edge)
    link = message_link(view.game.guild_id, view.game.channel_id, result)
    shown = edge.fake.world.messages[lobby.id]
    assert f"The game is over: [see the result]({link})" in shown.embed_text()
    edits = shown.edit_count
    await edge.bot.display.resume_displays()  # a second start: nothing left to do
    assert edge.fake.world.messages[lobby.id].edit_count == edits


async def test_a_restart_without_read_message_history_posts_the_turn_again_and_shows_no_turn_twice(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catch-up cannot adopt a message it cannot read, so it posts the next turn; the turn
    the game knew is retired all the same, so no turn shows twice."""
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    # the mover's whole turn committed, the process killed before showing it
    view = await edge.service.play.act(1, mover.id, 0, "S")
    assert view.state is not None
    while view.state.to_move is not None and view.user_at(view.state.to_move) == mover.id:
        view = await edge.service.play.act(
            1, mover.id, view.seq, engine.legal_actions(view.state)[0]
        )
        assert view.state is not None
    edge.fake.deny_bot(edge.channel, permissions.READ_MESSAGE_HISTORY)
    a_window_later(edge, monkeypatch)

    await edge.bot.display.resume_displays()

    live = [  # the messages offering a decision of game 1 (the lobby's Watch button is none)
        m
        for m in edge.fake.messages(edge.channel)
        if any(id_of(b).startswith("mk:1:") for b in m.enabled_buttons())
    ]
    assert len(live) == 1, [[id_of(b) for b in m.enabled_buttons()] for m in live]
    assert live[0].id != turn.id, "the next turn is posted again"
    assert await edge.service.play.behind_on_display() == []


async def whole_turn_unshown(edge: Edge, game_id: int) -> None:
    """The mover of `game_id` plays their whole turn through the service: stored, shown by
    nothing, as when the process is killed before showing it."""
    view = await edge.service.play.look(game_id)
    assert view.state is not None
    first, seat = view.state.turn, view.state.to_move
    assert seat is not None
    mover = view.user_at(seat)
    assert mover is not None
    while view.state is not None and view.state.turn == first:
        action = engine.legal_actions(view.state)[0]
        view = await edge.service.play.act(game_id, mover, view.seq, action)


def a_new_run_s_display(edge: Edge) -> controller.GameDisplay:
    """The display of a new run of the bot on the same client and database, started a window
    after the last run changed its channels: it holds none of the last run's interactions, so
    it posts with the bot's own token, under the channel's permissions."""
    seconds = controller.CHANNEL_WINDOW_SECONDS + 1
    later = edge.service.loader.clock() + timedelta(seconds=seconds)
    edge.fake.shift_clock(seconds)
    return controller.GameDisplay(
        edge.client,
        edge.service.play,
        edge.bot.display._pictures,
        lambda: later,
        edge.service.catch_ups,
    )


GUILD_READY_SECONDS = 0.2
"""How long discord.py waits after a shard's last GUILD_CREATE before it fires READY, in these
tests. Its default, 2 s, is for a real Discord whose guilds stream in; the fake sends a session's
GUILD_CREATEs at once, and `gateway_ready` waits for the guilds themselves, not for the gap, so
a machine slow enough to outlast this gap still finds every guild in the cache."""


def ready_soon(client: discord.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    """`client`, before it connects, fires READY `GUILD_READY_SECONDS` after its shards' last
    GUILD_CREATE."""
    monkeypatch.setattr(client._connection, "guild_ready_timeout", GUILD_READY_SECONDS)


async def gateway_ready(client: discord.Client) -> None:
    """Return once `client`'s gateway is ready and every guild of its shards has come in whole
    (its GUILD_CREATE read: the guild, its channels, threads and roles, the bot's member)."""
    await asyncio.wait_for(client.wait_until_ready(), WAIT_SECONDS)
    await until(
        lambda: all(not guild.unavailable for guild in client.guilds),
        "every guild of the client's shards in its cache",
    )


@contextlib.asynccontextmanager
async def on_the_gateway(edge: Edge, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    """The edge's client connected to the fake Discord's gateway, as in production: its cache
    knows the server, its channels and the bot's permissions there, and follows their changes
    (the in-process edge alone logs in without a gateway, and knows no channel)."""
    client = edge.client
    found = await client.http.request(discord.http.Route("GET", "/gateway"))
    monkeypatch.setattr(DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(found["url"]))
    ready_soon(client, monkeypatch)
    runner = asyncio.create_task(client.connect())
    try:
        await gateway_ready(client)
        assert {guild.id for guild in client.guilds} == set(edge.fake.world.guilds)
        yield
    finally:
        await client.close()
        await runner


async def two_games_behind(edge: Edge) -> FakeChannel:
    """Game 1 in the edge's channel and game 2 in another, each a whole turn behind on
    display, as a restart finds them: the other channel."""
    await started(edge)
    guild = edge.channel.guild
    assert guild is not None
    other = edge.fake.add_text_channel(guild, "more-games")
    lobby = await edge.slash(edge.host, "marrakech", "new", channel=other, seats=2).answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    await edge.fake.wait_for_message(other, lambda m: bool(m.pinged_user_ids))
    assert await HANDLERS.drained(30.0), "a click's handler is still running"
    for game_id in (1, 2):
        await whole_turn_unshown(edge, game_id)
    return other


@pytest.mark.invalid_requests(403)
async def test_a_restart_catches_up_every_game_though_one_s_channel_refuses_the_bot(
    edge: Edge, caplog: pytest.LogCaptureFixture
) -> None:
    """Two games fell behind; the channel of the first now refuses the bot Send Messages. The
    catch-up, which runs before the gateway connects, goes on: the other game is brought up to
    date, and the refused one is one WARNING line naming it and the permissions, no traceback,
    and left to be shown again in the background."""
    other = await two_games_behind(edge)
    edge.fake.deny_bot(edge.channel, permissions.SEND_MESSAGES)
    display = a_new_run_s_display(edge)
    try:
        with caplog.at_level(logging.WARNING, logger="bot.edge.display"):
            await display.resume_displays()
        assert 1 in display._retrying, "the refused game is shown again once it may be"
    finally:
        for task in display._retrying.values():
            task.cancel()
    shown = [await edge.store.get(game_id) for game_id in (1, 2)]
    assert [g is not None and g.board_message_seq == g.seq for g in shown] == [False, True]
    latest = edge.fake.latest_with_components(other)
    view = await edge.service.play.look(2)
    assert latest.enabled_buttons()
    assert all(id_of(b).startswith(f"mk:2:{view.seq}:") for b in latest.enabled_buttons())
    (line,) = [r for r in caplog.records if r.name == "bot.edge.display"]
    assert line.levelno == logging.WARNING
    assert line.exc_info is None, "no traceback"
    assert line.getMessage().startswith("could not bring game 1's message up to date: ")
    assert "Send Messages" in line.getMessage()


async def test_a_restart_catches_up_every_game_though_discord_cuts_one_s_history_read(
    edge: Edge, caplog: pytest.LogCaptureFixture
) -> None:
    """Two games fell behind; Discord cuts the connection under the first channel's history
    read (aiohttp asks twice, then gives up). The restart's catch-up goes on: the other game
    is brought up to date, and nothing escapes to stop the start."""
    await two_games_behind(edge)
    cut = edge.fake.faults.disconnect("GET", rf"/channels/{edge.channel.id}/messages", times=5)
    display = a_new_run_s_display(edge)
    try:
        with caplog.at_level(logging.INFO, logger="bot.edge"):
            await display.resume_displays()
    finally:
        for task in display._retrying.values():
            task.cancel()
    assert cut.hits >= 2, "the history read was cut"
    game = await edge.store.get(2)
    assert game is not None
    assert game.board_message_seq == game.seq, "the other game is shown"
    assert [r.getMessage() for r in caplog.records if r.exc_info] == [], "no traceback"


async def test_a_restart_posts_a_game_whose_history_read_discord_never_answers(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A game fell behind, and Discord never answers the read of its channel's history
    (discord.py waits for ever): the restart's catch-up waits HISTORY_TIMEOUT_SECONDS (shortened
    here), counts the history unreadable, says so in one line (DEBUG, under the outage's
    WARNING) and posts the turn, rather than stopping the start."""
    monkeypatch.setattr(recovery, "HISTORY_TIMEOUT_SECONDS", 0.2)
    await started(edge)
    assert await HANDLERS.drained(30.0), "a click's handler is still running"
    await whole_turn_unshown(edge, 1)
    hung = edge.fake.faults.hang("GET", rf"/channels/{edge.channel.id}/messages")
    display = a_new_run_s_display(edge)
    try:
        with caplog.at_level(logging.DEBUG, logger="bot.edge"):
            await asyncio.wait_for(display.resume_displays(), 30.0)
    finally:
        edge.fake.faults.release_hangs(apply=False)
        for task in display._retrying.values():
            task.cancel()
    assert hung.hits == 1, "the history read was made, and never answered"
    view = await edge.service.play.look(1)
    live = [id_of(b) for b in edge.fake.latest_with_components(edge.channel).enabled_buttons()]
    assert live, "the turn is posted"
    assert all(i.startswith(f"mk:1:{view.seq}:") for i in live), (view.seq, live)
    assert await edge.service.play.behind_on_display() == []
    (said,) = [r.getMessage() for r in caplog.records if "not readable" in r.getMessage()]
    assert said.startswith(f"history of channel {edge.channel.id} not readable: "), said
    assert said.endswith("did not answer in time"), said  # naming any 5xx it met lately
    assert [r.getMessage() for r in caplog.records if r.exc_info] == [], "no traceback"


@pytest.mark.parametrize(
    "custom_id", ["mk:1:0:nope!", "mk:99:0:join", "other:thing", "mk:1:0:" + "x" * 200]
)
async def test_clicks_no_button_takes_are_still_answered(edge: Edge, custom_id: str) -> None:
    lobby = await edge.slash(edge.host, "marrakech", "new").answer()
    data = component_data(edge.fake.world.messages[lobby.id], custom_id, None, validate=False)
    handle = edge.dispatch(
        edge.fake.interaction_from_payload(
            MESSAGE_COMPONENT, edge.guest, edge.channel, data, message=lobby
        )
    )
    assert "no longer does anything" in await private(handle)
    game = await edge.store.get(1)
    assert game is not None
    assert game.status is GameStatus.LOBBY


async def test_a_command_whose_option_cannot_be_read_gets_the_short_bad_command_answer(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """An option discord.py fails to convert is the user's bad value, not the bot's fault: a
    private "bad command" line, and no ERROR with an error code in the log."""

    async def unreadable(self: object, interaction: object, value: object, /) -> object:
        raise ValueError("no such channel")  # discord.py raises it as a TransformerError

    monkeypatch.setattr(commands.GameChannel, "transform", unreadable)
    with caplog.at_level(logging.INFO):
        answer = await private(
            edge.command(
                edge.moderator,
                ("marrakech-admin", "allow-channel"),
                edge.channel,
                {"channel": edge.channel.id},
                validate=False,
            )
        )
    assert answer == "I do not know that command, or one of its values is not allowed."
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


async def test_the_variant_asks_for_the_roll_then_the_rug_then_the_turn(edge: Edge) -> None:
    lobby = await edge.slash(
        edge.host, "marrakech", "new", seats=2, variant="rotate-after"
    ).answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    turn = await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    mover = await mover_of(edge, turn)
    assert [b.label for b in turn.buttons()] == ["Roll the die"]
    await edge.click(mover, turn, "Roll the die").answer()
    placing = edge.fake.world.messages[turn.id]
    first = placing.buttons()[0].label or ""
    assert first.startswith("1 · ")
    assert "The die shows" in placing.embed_text()
    await edge.click(mover, placing, first).answer()
    rotating = edge.fake.world.messages[turn.id]
    # a quarter turn either way, named by where Assam will face ("West", "East" facing north)
    view = await edge.service.play.look(1)
    assert view.state is not None
    quarter_turns = [engine.orient(view.state.facing, rotation).name for rotation in "LR"]
    directions = {"N": "North", "E": "East", "S": "South", "W": "West"}
    labels = [b.label or "" for b in rotating.buttons()]
    assert sorted(labels) == sorted(directions[facing] for facing in quarter_turns)
    await edge.click(mover, rotating, labels[1]).answer()
    assert not edge.fake.world.messages[turn.id].enabled_buttons()
    nxt = await edge.fake.wait_for_message(
        edge.channel, lambda m: m.id > turn.id and bool(m.pinged_user_ids)
    )
    assert nxt.pinged_user_ids != turn.pinged_user_ids
    assert [b.label for b in nxt.buttons()] == ["Roll the die"]


async def test_players_are_shown_by_their_server_nickname_else_their_name(edge: Edge) -> None:
    """The host by `new`, the others by the Join button or `/marrakech join`."""
    guild = edge.channel.guild
    assert guild is not None
    guild.members[edge.host.id].nick = "Le Patron"
    guild.members[edge.guest.id].nick = "La Invitée"
    guild.members[edge.outsider.id].nick = "L'Étranger"
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=4).answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.slash(edge.outsider, "marrakech", "join").answer()
    await edge.click(edge.moderator, lobby, "Join").answer()
    seats = await edge.store.seats(1)
    assert [(seat.user_id, seat.display_name) for seat in seats] == [
        (edge.host.id, "Le Patron"),
        (edge.guest.id, "La Invitée"),
        (edge.outsider.id, "L'Étranger"),
        (edge.moderator.id, "moderator"),
    ]
    await edge.click(edge.host, lobby, "Start").answer()
    view = await edge.service.play.look(1)
    assert {player.user_id: player.name for player in view.players} == {
        edge.host.id: "Le Patron",
        edge.guest.id: "La Invitée",
        edge.outsider.id: "L'Étranger",
        edge.moderator.id: "moderator",
    }


async def test_the_direction_clicked_is_the_one_the_story_tells_and_the_game_holds(
    edge: Edge,
) -> None:
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    shown = await edge.click(mover, turn, "West").answer()
    assert f"<@{mover.id}> faced Assam west." in shown.embed_text()
    view = await edge.service.play.look(1)
    turned = [event for event in view.turn_events if isinstance(event, engine.AssamTurned)]
    assert [(event.rotation, event.facing) for event in turned] == [("L", engine.Facing.W)]
    (moved,) = [event for event in view.turn_events if isinstance(event, engine.AssamMoved)]
    assert moved.start_facing is engine.Facing.W, "he walked the way the button said"


async def test_the_board_in_a_lobby_shows_the_lobby_privately(edge: Edge) -> None:
    """Before the game starts there is no board yet: the asker alone gets the lobby's card,
    and the channel gets nothing new."""
    await lobby_with_guest(edge)
    posted = len(edge.fake.messages(edge.channel))
    board = await edge.slash(edge.outsider, "marrakech", "board").answer()
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    assert board.ephemeral, "the lobby's card goes to the asker alone"
    assert "Marrakech: game #1 (lobby)" in board.embed_text()
    assert len(edge.fake.messages(edge.channel)) == posted, "nothing new in the channel"


async def test_the_board_after_the_end_shows_the_final_board_privately(edge: Edge) -> None:
    await started(edge)
    resigning = await confirm(edge, edge.guest, "marrakech", "resign", button="Resign")
    await resigning.answer()
    await edge.fake.wait_for_message(
        edge.channel, lambda m: any(a.filename.endswith(".json") for a in m.attachments)
    )
    board = await edge.slash(edge.outsider, "marrakech", "board").answer()
    assert board.ephemeral
    assert "Game #1 is over: its final board" in board.embed_text()
    assert any(a.filename == "board.png" for a in board.attachments)


@pytest.mark.parametrize(("locale", "language"), [("en-US", "en"), ("fr", "fr"), ("uk", "uk")])
async def test_the_board_of_a_game_whose_turn_message_was_deleted_posts_the_turn_again(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    locale: str,
    language: str,
) -> None:
    """A moderator deleted the turn's message while nothing was pending: the bot, which reads
    no message events, learns it when someone asks for the board there (one request for that
    message, no history read). The turn is posted again as a turn is posted, calling its
    player, and the asker is told so in their language; the next board finds it there."""
    user_locales = ("en-US", "en-US", locale, "en-US")  # the outsider asks
    async with running_edge(
        tmp_path, monkeypatch, user_locales=user_locales, test=request.node
    ) as edge:
        monkeypatch.setattr(delivery, "TOKEN_USE_SECONDS", 0)  # posted with the bot's token
        turn = await started(edge)
        assert await HANDLERS.drained(30.0), "the start's handler is still running"
        edge.fake.world.messages[turn.id].deleted = True
        looked = len(edge.fake.requests_to("GET", "/messages"))

        board = await edge.slash(edge.outsider, "marrakech", "board").answer()
        assert await HANDLERS.drained(30.0), "the command's handler is still running"

        assert board.ephemeral
        assert board.content == messages.text("board.posted_again", language)
        assert any(a.filename == "board.png" for a in board.attachments)
        asked = [r.path for r in edge.fake.requests_to("GET", "/messages")[looked:]]
        assert asked == [f"/channels/{edge.channel.id}/messages/{turn.id}"]
        view = await edge.service.play.look(1)
        assert view.state is not None
        posted = edge.fake.latest_with_components(edge.channel)
        assert posted.id > turn.id
        assert not posted.ephemeral
        assert posted.pinged_user_ids == turn.pinged_user_ids, "it calls the turn's player"
        assert len(posted.enabled_buttons()) == len(engine.legal_actions(view.state))
        assert all(id_of(b).startswith(f"mk:1:{view.seq}:") for b in posted.enabled_buttons())
        assert posted.nonce != turn.nonce, "Discord refuses a deleted message's nonce"
        game = await edge.store.get(1)
        assert game is not None
        assert (game.board_message_id, game.board_message_seq) == (posted.id, view.seq)

        again = await edge.slash(edge.outsider, "marrakech", "board").answer()
        assert await HANDLERS.drained(30.0), "the command's handler is still running"
        assert not again.content, "the turn's message is there"
        assert edge.fake.latest_with_components(edge.channel).id == posted.id, "nothing posted"


async def test_a_turn_posted_again_in_a_game_numbered_with_19_digits_has_a_nonce_discord_takes(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord refuses a nonce over 25 characters, and a refused post would leave the game
    unshown: the turn of a game whose number is as long as a number the database keeps, posted
    again after its message was deleted, goes out with a nonce of its own within 25."""
    game_id = 4_611_686_018_427_387_904  # 2**62
    async with edge.store.database.transaction() as conn:
        await conn.execute("DELETE FROM sqlite_sequence WHERE name = 'games'")
        await conn.execute(
            f"INSERT INTO sqlite_sequence (name, seq) VALUES ('games', {game_id - 1})"
        )
    monkeypatch.setattr(delivery, "TOKEN_USE_SECONDS", 0)  # posted with the bot's token
    turn = await started(edge)
    assert turn.nonce is not None
    assert len(turn.nonce) <= 25
    edge.fake.world.messages[turn.id].deleted = True

    board = await edge.slash(edge.outsider, "marrakech", "board").answer()
    assert await HANDLERS.drained(30.0), "the command's handler is still running"

    assert board.content == messages.text("board.posted_again", "en")
    posted = edge.fake.latest_with_components(edge.channel)
    assert posted.id > turn.id
    assert posted.nonce is not None
    assert len(posted.nonce) <= 25, posted.nonce
    assert posted.nonce != turn.nonce, "Discord refuses a deleted message's nonce"
    game = await edge.store.get(game_id)
    assert game is not None
    assert game.board_message_id == posted.id


async def test_the_board_asks_after_no_message_without_read_message_history(edge: Edge) -> None:
    """Discord refuses a message to a bot that may not read the channel's history (a 403,
    which counts against the bot): the board is shown, and nothing is asked or posted."""
    turn = await started(edge)
    assert await HANDLERS.drained(30.0), "the start's handler is still running"
    edge.fake.world.messages[turn.id].deleted = True
    edge.fake.deny_bot(edge.channel, permissions.READ_MESSAGE_HISTORY)
    looked = len(edge.fake.requests_to("GET", "/messages"))
    shown = len(edge.fake.messages(edge.channel))
    board = await edge.slash(edge.outsider, "marrakech", "board").answer()
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    assert board.ephemeral
    assert not board.content
    assert any(a.filename == "board.png" for a in board.attachments)
    assert len(edge.fake.requests_to("GET", "/messages")) == looked, "nothing asked"
    assert len(edge.fake.messages(edge.channel)) == shown, "nothing posted"


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        ("refused", "Discord answered 403 "),
        ("failed", "Discord answered 503 "),
        ("cut", "the connection to Discord failed (ServerDisconnectedError"),
        ("no answer", "did not answer in time"),
    ],
    ids=["refused", "failed", "cut", "no-answer"],
)
async def test_the_board_is_shown_when_discord_refuses_or_fails_the_look_up_of_the_turn_message(
    edge: Edge,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    fault: str,
    said: str,
) -> None:
    """The one request for the turn's message, which Discord refuses, fails, cuts (aiohttp asks
    twice, then gives up) or never answers: the asker gets the board all the same, nothing is
    posted, and one line says the message was not looked up, and why: an INFO one for a
    refusal, a DEBUG one for Discord's own failure (its outage's WARNING tells it once)."""
    turn = await started(edge)
    assert await HANDLERS.drained(30.0), "the start's handler is still running"
    route = f"/channels/{edge.channel.id}/messages/{turn.id}"
    faults = edge.fake.faults
    if fault == "refused":
        rule = faults.forbidden("GET", route)
    elif fault == "failed":
        rule = faults.server_error("GET", route, status=503)
    elif fault == "cut":
        rule = faults.disconnect("GET", route, times=3)
    else:
        monkeypatch.setattr(answers, "DISCORD_TIMEOUT_SECONDS", 0.2)
        rule = faults.hang("GET", route)
    shown = len(edge.fake.messages(edge.channel))
    try:
        with caplog.at_level(logging.DEBUG, logger="bot.edge.display"):
            board = await edge.slash(edge.outsider, "marrakech", "board").answer()
            assert await HANDLERS.drained(30.0), "the command's handler is still running"
    finally:
        faults.release_hangs(apply=False)
    assert rule.hits == (2 if fault == "cut" else 1), "the look-up was made, and met the fault"
    assert board.ephemeral
    assert not board.content, board.content
    assert any(a.filename == "board.png" for a in board.attachments), "the board is shown"
    assert len(edge.fake.messages(edge.channel)) == shown, "nothing posted"
    (line,) = [r for r in caplog.records if "not looked up" in r.getMessage()]
    assert line.levelno == (logging.INFO if fault == "refused" else logging.DEBUG)
    assert line.getMessage().startswith(f"game 1: message {turn.id} not looked up: "), (
        line.getMessage()
    )
    assert said in line.getMessage(), line.getMessage()


REFUSALS = {
    "invalid": (pytest.mark.invalid_requests(401), r"GET /users/@me -> 401"),
    "malformed": (pytest.mark.refused_requests(50035), r"/messages -> 400 50035 \(content\)"),
}
"""A request of each kind the harness's checks count, with the marker that lets it through and
what the failed check says of it."""


@pytest.mark.parametrize("marked", [False, True])
@pytest.mark.parametrize("kind", REFUSALS)
async def test_a_request_discord_refuses_fails_the_edge_s_test_unless_it_is_marked(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    kind: str,
    marked: bool,
) -> None:
    """The harness ends each test with the fake Discord's checks: a request answered 401 (no
    token), or a message of 2001 characters refused with 400 / 50035, fails the test, unless
    the test is marked as provoking that answer on purpose."""
    marker, said = REFUSALS[kind]
    if marked:
        request.node.add_marker(marker)
    closing = running_edge(tmp_path, monkeypatch, test=request.node)
    with contextlib.ExitStack() as expected:
        if not marked:
            expected.enter_context(pytest.raises(AssertionError, match=said))
        async with closing as edge, aiohttp.ClientSession() as session:
            api = edge.fake.api_base_url
            if kind == "invalid":
                answer = await session.get(f"{api}/users/@me")
            else:
                answer = await session.post(
                    f"{api}/channels/{edge.channel.id}/messages",
                    json={"content": "x" * 2001},
                    headers={"Authorization": "Bot fake-token"},
                )
            assert answer.status == (401 if kind == "invalid" else 400)
            answer.release()


async def test_a_click_answered_too_late_is_one_warning_line_for_the_operator(
    edge: Edge, caplog: pytest.LogCaptureFixture
) -> None:
    """A click the bot takes up after Discord's 3 s cannot be answered, nor told why: the
    operator reads one WARNING line saying so, with no traceback, no ERROR and no second line
    about the private answer that could not go either."""
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
    with caplog.at_level(logging.INFO, logger="bot"):
        late = late_click(edge, edge.guest, lobby, "Join")
        await late.wait_for(lambda handle: bool(handle.refusals))
        assert await HANDLERS.drained(30.0), "the click's handler is still running"
    told = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.getMessage() for r in told if r.exc_info] == [], "no traceback"
    assert [r.levelno for r in told] == [logging.WARNING], [r.getMessage() for r in told]
    assert "too late" in told[0].getMessage(), told[0].getMessage()
