"""A whole 3-player game through the real bot process and the fake Discord API.

Only slash commands and button clicks drive it. Midway the bot is killed with SIGKILL and
started again on the same database; the game then finishes. Every message the bot sent is
checked, and the click-to-response latency the fake measured is printed. Last, a player asks
for a rematch from the result: a new lobby pings the others to join; and after one more restart
another presses Analysis on the result and gets the game's analysis to herself.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest

import engine
from bot.edge.display import CHANNEL_WINDOW_SECONDS
from tests.e2e.conftest import told_its_shards
from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, InteractionHandle
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.players import is_watch, score_said
from tests.e2e.quiet import (
    ChannelWatch,
    check_turn_line,
    has_picture,
    read_turn_line,
    turn_lines,
)
from tests.e2e.shifted_clock import pass_while_down, with_clock

pytestmark = pytest.mark.e2e

COMMANDS = ("marrakech", "marrakech-mod")
EPHEMERAL = 1 << 6
UPDATE_MESSAGE = 7
DEFERRED_UPDATE_MESSAGE = 6
MAX_CLICKS = 400
KILL_BETWEEN_TURNS = 8
KILL_MID_CLICK = 20
CHANNEL_MESSAGE = 4
SHA256 = re.compile(r"`([0-9a-f]{64})`")


@dataclass
class Table:
    """The test's world: the fake, the bot, a channel and four people."""

    fake: FakeDiscord
    bot: BotProcess
    clock_file: Path
    channel: FakeChannel
    alice: FakeUser
    bob: FakeUser
    carol: FakeUser
    dave: FakeUser

    def user(self, user_id: int) -> FakeUser:
        for person in (self.alice, self.bob, self.carol, self.dave):
            if person.id == user_id:
                return person
        raise LookupError(user_id)


@pytest.fixture
def bot_env(bot_env: dict[str, str], clock_file: Path) -> dict[str, str]:
    return with_clock(told_its_shards(bot_env), clock_file)  # it is restarted


@pytest.fixture
def bot_ready_commands() -> tuple[str, ...]:
    return COMMANDS


async def private_text(fake: FakeDiscord, handle: InteractionHandle) -> str:
    answer = await handle.answer()
    assert answer.ephemeral, f"expected a private answer, got {answer.content!r}"
    return str(answer.content)


async def restart(table: Table) -> None:
    """SIGKILL the bot and start it again, its clock moved on by Discord's window on a
    channel's posts as if the restart had taken that long; commands are unchanged, so it does
    not re-sync."""
    fake = table.fake
    await table.bot.kill()
    await pass_while_down(table.clock_file, CHANNEL_WINDOW_SECONDS, fake)
    identifies = fake.gateway.identifies
    await table.bot.start()
    await table.bot.wait_ready(
        fake, identifies=identifies + 1, syncs=fake.world.commands.syncs, commands=COMMANDS
    )


def is_placement(label: str) -> bool:
    """Whether a button lays a rug: its number on the picture and its squares ("3 · c2-c3")."""
    number, _, squares = label.partition(" · ")
    return number.isdigit() and bool(squares)


def choose(message: FakeMessage, turn: int) -> str:
    """A deterministic player: varies the orientation, lays the last numbered placement."""
    labels = [button.label or "" for button in message.enabled_buttons()]
    if any(label.endswith("(straight on)") for label in labels):
        # the directions Assam may face, straight on in the middle: straight, one turn, the other
        return labels[[1, 0, 2][turn % 3]]
    if set(labels) <= {"North", "East", "South", "West"}:
        return labels[0]  # the variant's quarter turn after laying
    numbered = [label for label in labels if is_placement(label)]
    assert numbered, f"no decision on the turn message: {labels}"
    return numbered[-1]


async def click(
    table: Table, user: FakeUser, message: FakeMessage, label: str
) -> InteractionHandle:
    button = message.button(label=label)
    assert button.custom_id is not None
    assert len(button.custom_id) <= 100
    return await table.fake.click(user, message, button.custom_id)


async def open_lobby(table: Table) -> FakeMessage:
    fake = table.fake
    handle = await fake.slash(table.alice, table.channel, "marrakech", "new", seats=3)
    lobby = await handle.answer()
    assert not lobby.ephemeral
    assert "lobby" in lobby.embed_text()
    assert f"<@{table.alice.id}>" in lobby.embed_text()
    assert SHA256.search(lobby.embed_text()), "the lobby shows the seed commitment"

    again = await fake.slash(table.bob, table.channel, "marrakech", "new")
    assert "already has a game" in await private_text(fake, again)

    joined = await click(table, table.bob, lobby, "Join")
    assert (await joined.response()).response_type == UPDATE_MESSAGE
    assert f"<@{table.bob.id}>" in fake.world.messages[lobby.id].embed_text()

    early = await click(table, table.bob, lobby, "Start")
    assert "Only the host" in await private_text(fake, early)

    carol = await fake.slash(table.carol, table.channel, "marrakech", "join")
    assert "You joined" in await private_text(fake, carol)
    await fake.wait_until(
        lambda: f"<@{table.carol.id}>" in fake.world.messages[lobby.id].embed_text(),
        what="carol listed in the lobby",
    )
    full = await click(table, table.dave, fake.world.messages[lobby.id], "Join")
    assert "full" in await private_text(fake, full)

    start = await click(table, table.alice, fake.world.messages[lobby.id], "Start")
    await start.response()
    return lobby


async def test_a_whole_game_with_kills_and_restarts(
    fake: FakeDiscord, bot: BotProcess, clock_file: Path, tmp_path: Path, bot_token: str
) -> None:
    guild = fake.add_guild("Souk")
    channel = fake.add_text_channel(guild, "marrakech")
    people = [fake.add_user(name) for name in ("alice", "bob", "carol", "dave")]
    for person in people:
        fake.add_member(guild, person)
    table = Table(fake, bot, clock_file, channel, *people)
    database = tmp_path / "marrakech.sqlite3"
    watch = ChannelWatch(fake, channel)

    lobby = await open_lobby(table)
    commitment = SHA256.search(lobby.embed_text())
    assert commitment is not None
    await table.fake.wait_for_message(channel, lambda m: bool(m.pinged_user_ids), timeout=10)
    closed = fake.world.messages[lobby.id].enabled_buttons()
    assert all(is_watch(b.custom_id) for b in closed), "the lobby is closed (Watch aside)"

    placements = 0
    checks: set[str] = set()
    for _ in range(MAX_CLICKS):
        final = next((m for m in fake.messages(channel) if is_final(m)), None)
        if final is not None:
            break
        current = fake.latest_with_components(channel)
        mover = table.user(one(pinged_messages(table)[-1].pinged_user_ids))
        label = choose(current, placements)
        edits_before = current.edit_count

        if "outsider" not in checks:
            other = table.bob if mover is not table.bob else table.carol
            refused = await click(table, other, current, label)
            assert "not your turn" in await private_text(fake, refused)
            checks.add("outsider")

        if is_placement(label) and placements == KILL_MID_CLICK:
            # SIGKILL right after a click is dispatched: wherever the bot was (before the
            # commit, between the commit and the answer, posting the next turn), the restart
            # must neither lose an acknowledged move nor apply it twice.
            log_lines = len(table.bot.lines)
            await click(table, mover, current, label)
            await table.bot.wait_for_log(
                r"mk:\d+:\d+:" + label_action(current, label), after=log_lines
            )
            await restart(table)
            checks.add("killed mid-click")
            placements += 1  # the move may or may not have been applied; either is fine
            continue

        if is_placement(label) and "stale" not in checks:
            # two clicks dispatched before the bot answers either: one applies, one is told
            first = await click(table, mover, current, label)
            second = await click(table, mover, current, label)
            answers = [await h.response() for h in (first, second)]
            kinds = sorted(kind for answer in answers if (kind := answer.response_type) is not None)
            assert kinds == [CHANNEL_MESSAGE, UPDATE_MESSAGE], kinds
            private = next(a for a in answers if a.response_type == CHANNEL_MESSAGE).message
            assert private is not None
            assert private.ephemeral
            assert "moved on" in private.content
            assert f"/{current.id}" not in private.content, "never sent back to the tap's message"
            checks.add("stale")
        else:
            handle = await click(table, mover, current, label)
            answer = await handle.response()
            assert answer.response_type in (UPDATE_MESSAGE, DEFERRED_UPDATE_MESSAGE), (
                answer.message.content if answer.message else answer
            )
        await settled(table, current.id, edits_before)
        if is_placement(label):
            placements += 1
        if placements == KILL_BETWEEN_TURNS and "killed between turns" not in checks:
            now = fake.latest_with_components(channel)
            await displayed(database, now.id)
            await restart(table)
            # nothing was behind, so nothing was re-posted: the same buttons keep working
            assert fake.latest_with_components(channel).id == now.id
            checks.add("killed between turns")
    else:
        raise AssertionError("the game did not end")

    assert checks == {"outsider", "stale", "killed mid-click", "killed between turns"}
    check_final(table, final, commitment.group(1))
    check_every_message(table, final)
    watch.check()
    await check_rematch(table, final)
    before_analysis = await check_analysis(table, final)
    stats = fake.latency()
    print(f"\nclick-to-response latency over the game: {stats.describe()}")
    assert stats.unanswered <= 1, "only the click the bot was killed on may go unanswered"

    assert (tmp_path / "heartbeat").exists(), "the heartbeat is kept while connected"
    assert await bot.stop() == 0, "SIGTERM closes the bot cleanly"
    # A clean stop waits for the interactions being handled: carol's Analysis press is done.
    quiet = [message.id for message in fake.messages(channel)] == before_analysis
    assert quiet, "the Analysis press added nothing to the channel"
    assert bot_token not in bot.log_text()


def is_final(message: FakeMessage) -> bool:
    return any(str(embed.get("title", "")).endswith("is over") for embed in message.embeds)


def one(users: frozenset[int]) -> int:
    assert len(users) == 1, f"a turn message pings exactly its player, not {set(users)}"
    return next(iter(users))


def pinged_messages(table: Table) -> list[FakeMessage]:
    return [message for message, _ in table.fake.pings(table.channel)]


def label_action(message: FakeMessage, label: str) -> str:
    custom_id = message.button(label=label).custom_id
    assert custom_id is not None
    return custom_id.rsplit(":", 1)[1]


async def settled(table: Table, message_id: int, edits_before: int) -> None:
    """Wait until the clicked message changed and, if its turn ended, the next one is up."""
    fake = table.fake

    def done() -> bool:
        message = fake.world.messages[message_id]
        if message.edit_count <= edits_before:
            return False
        if message.enabled_buttons():
            return True
        return any(
            m.id > message_id and (m.pinged_user_ids or is_final(m))
            for m in fake.messages(table.channel)
        )

    await fake.wait_until(done, timeout=10, what="the bot's answer to a move")


async def displayed(database: Path, message_id: int) -> None:
    """Wait until the bot has recorded `message_id` as showing its game's current state."""
    for _ in range(500):
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
            row = connection.execute(
                "SELECT board_message_id, board_message_seq, seq FROM games WHERE id = 1"
            ).fetchone()
        if row == (message_id, row[2], row[2]):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the bot never recorded message {message_id} as the game's display")


def check_final(table: Table, final: FakeMessage, commitment: str) -> None:
    """The end message: ranking with scores, tie-break, and a record that replays."""
    record_name = next(a.filename for a in final.attachments if a.filename.endswith(".json"))
    record = json.loads(final.file(record_name))
    assert hashlib.sha256(record["seed"].encode()).hexdigest() == commitment
    assert record["seed_sha256"] == commitment
    state = engine.replay_record(engine.record_from_json(record))
    assert state.is_over
    assert state.outcome is not None
    text = final.embed_text()
    for seat, score in enumerate(engine.scores(state)):
        user_id = record["user_ids"][seat]
        if not state.is_eliminated(seat):
            assert score_said(user_id, score) in text, text
    # What decided first place, as the rules say (R11) and the message tells it.
    told = {"dirhams": "ahead on dirhams", "shared": "share the win"}
    if state.outcome.tie_break in told:
        assert told[state.outcome.tie_break] in text, text
    elif len(state.seats_in()) > 1:
        assert "Decided by score" in text or "tied on" in text, text
    assert any(a.filename == "board.png" for a in final.attachments)
    assert [button.label for button in final.enabled_buttons()] == [
        "Rematch",
        "Analysis",
        "Learn from your mistakes",
    ]


async def check_rematch(table: Table, final: FakeMessage) -> None:
    """Bob clicks Rematch on the result: a new lobby, hosted by him, pings alice and carol (and
    no one else) to join; the result stays as it was, and a second Rematch is refused."""
    fake = table.fake
    edits = fake.world.messages[final.id].edit_count
    rematch = await (await click(table, table.bob, final, "Rematch")).answer()
    assert not rematch.ephemeral
    assert rematch.id > final.id
    assert rematch.content.startswith(f"🔁 <@{table.bob.id}> wants a rematch of game #1: ")
    assert rematch.pinged_user_ids == frozenset({table.alice.id, table.carol.id})
    assert f"<@{table.bob.id}>" in rematch.embed_text(), "bob hosts and is seated"
    assert "Join" in [button.label for button in rematch.enabled_buttons()]
    shown = fake.world.messages[final.id]
    assert shown.edit_count == edits
    assert [button.label for button in shown.enabled_buttons()] == [
        "Rematch",
        "Analysis",
        "Learn from your mistakes",
    ]
    again = await click(table, table.alice, shown, "Rematch")
    assert "already has a game" in await private_text(fake, again)
    joined = await click(table, table.alice, fake.world.messages[rematch.id], "Join")
    assert (await joined.response()).response_type == UPDATE_MESSAGE
    await fake.wait_until(
        lambda: f"<@{table.alice.id}>" in fake.world.messages[rematch.id].embed_text(),
        what="alice seated in the rematch",
    )


async def check_analysis(table: Table, final: FakeMessage) -> list[int]:
    """After one more restart, carol presses Analysis on the result: the game's analysis comes
    to her alone, as a picture. Returns the ids of the channel's public messages before her
    press, which the channel must still hold, and nothing more, once her press is handled."""
    fake = table.fake
    await restart(table)
    public = [message.id for message in fake.messages(table.channel)]
    handle = await click(table, table.carol, fake.world.messages[final.id], "Analysis")
    answer = await handle.answer(timeout=30.0)
    assert answer.ephemeral
    assert answer.visible_to == table.carol.id
    assert answer.content.startswith("Game #1: each player's chance of winning")
    (picture,) = answer.attachments
    assert picture.filename == "marrakech-analysis-1.png"
    assert picture.data.startswith(b"\x89PNG")
    return public


def check_every_message(table: Table, final: FakeMessage) -> None:
    fake = table.fake
    public = fake.messages(table.channel)
    assert all(len(message.content) <= 2000 for message in public)
    for message in public:
        for button in message.buttons():
            assert button.custom_id is None or len(button.custom_id) <= 100
        assert len(message.buttons()) <= 25
    pings = fake.pings(table.channel)
    assert pings, "turn messages ping their player"
    for pinged_message, users in pings:
        assert len(users) == 1, "only the player to move is pinged"
        (user_id,) = users
        line = read_turn_line(pinged_message.content)
        assert line is not None, f"a finished turn is one line: {pinged_message.content!r}"
        who = line.story.split(" ", 1)[1]
        assert who.startswith(f"<@{user_id}>"), "the pinged user is the mover"
        check_turn_line(pinged_message)
    assert final.id == public[-1].id
    left = [
        b.custom_id
        for m in public
        if m.id != final.id
        for b in m.enabled_buttons()
        if not is_watch(b.custom_id)  # a lobby's, which the end takes off in the background
    ]
    assert left == [], "only Rematch"
    turns = {turn for _, turn, _ in turn_lines(fake, table.channel)}
    assert len(turns) >= 15, "every turn got its own message"
    assert turns == set(range(1, max(turns) + 1)), "each turn by its own number"
    assert [m.id for m in public if has_picture(m)] == [final.id], "only the result has a picture"
