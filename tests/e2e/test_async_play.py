"""Asynchronous play through the real bot process and the fake Discord API.

- One human and three AIs (easy, medium, hard) play a whole game; the AI turns play themselves
  and are shown through the human's clicks, not with the bot token.
- Turn time limits with the clock moved through the test-only MARRAKECH_TEST_CLOCK_FILE (read
  again on SIGUSR1): the half-time reminder, the medium AI playing a timed-out turn, and a
  deadline that passed while the bot was down handled at start-up. A timed-out turn's own line
  tells the timeout (and the handover, after three in a row).
"""

from __future__ import annotations

import asyncio
import sqlite3
import statistics
from datetime import datetime
from pathlib import Path

import pytest

from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.quiet import turn_lines
from tests.e2e.shifted_clock import shift_clock, with_clock
from tests.e2e.test_game import displayed

pytestmark = pytest.mark.e2e

COMMANDS = ("marrakech", "marrakech-mod", "marrakech-admin")
TURN_LIMIT = 300


@pytest.fixture
def bot_env(bot_env: dict[str, str], clock_file: Path) -> dict[str, str]:
    return with_clock(bot_env, clock_file)


@pytest.fixture
def bot_ready_commands() -> tuple[str, ...]:
    return COMMANDS


def is_final(message: FakeMessage) -> bool:
    return any(str(embed.get("title", "")).endswith("is over") for embed in message.embeds)


def choose(message: FakeMessage) -> str:
    labels = [button.label or "" for button in message.enabled_buttons()]
    straight = [label for label in labels if label.endswith("(straight on)")]
    if straight:
        return straight[0]
    numbered = [label for label in labels if label.startswith("1 · ")]
    assert numbered, labels
    return numbered[0]


def straight_on(message: FakeMessage) -> str:
    """The custom_id of the button that keeps Assam facing his way ("North (straight on)")."""
    (custom_id,) = [
        button.custom_id
        for button in message.enabled_buttons()
        if (button.label or "").endswith("(straight on)") and button.custom_id
    ]
    return custom_id


def seconds_between(start: str, end: str) -> float:
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


async def test_one_human_and_three_ais_play_to_the_end(fake: FakeDiscord, bot: BotProcess) -> None:
    guild = fake.add_guild("Souk")
    channel = fake.add_text_channel(guild, "ai-table")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    fake.add_member(guild, alice)
    fake.add_member(guild, bob)

    lobby = await (await fake.slash(alice, channel, "marrakech", "new", seats=4)).answer()
    add_hard = lobby.button(label="Add AI: hard").custom_id
    assert add_hard is not None
    refused = await (await fake.click(bob, lobby, add_hard)).answer()
    assert refused.ephemeral
    assert "Only the host" in refused.content
    for label in ("Add AI: easy", "Add AI: medium", "Add AI: hard"):
        current = fake.world.messages[lobby.id]
        add = current.button(label=label).custom_id
        assert add is not None
        await (await fake.click(alice, current, add)).response()
    text = fake.world.messages[lobby.id].embed_text()
    assert "AI (easy)" in text
    assert "AI (medium)" in text
    assert "AI (hard)" in text
    current = fake.world.messages[lobby.id]
    started = len(fake.world.requests)
    start = current.button(label="Start").custom_id
    assert start is not None
    await (await fake.click(alice, current, start)).response()

    for _ in range(200):
        await fake.wait_until(
            lambda: (
                any(is_final(m) for m in fake.messages(channel))
                or bool(alice_to_move(fake, channel, alice))
            ),
            timeout=30,
            what="alice's turn or the end",
        )
        if any(is_final(m) for m in fake.messages(channel)):
            break
        turn = alice_to_move(fake, channel, alice)
        assert turn is not None
        edits = turn.edit_count
        chosen = turn.button(label=choose(turn)).custom_id
        assert chosen is not None
        handle = await fake.click(alice, turn, chosen)
        await handle.response()

        def answered(t: FakeMessage = turn, e: int = edits) -> bool:
            return fake.world.messages[t.id].edit_count > e

        await fake.wait_until(answered, what="the click answered")
    else:
        raise AssertionError("the game did not end")

    final = next(m for m in fake.messages(channel) if is_final(m))
    await fake.wait_until(lambda: f"/{final.id})" in fake.world.messages[lobby.id].embed_text())
    assert any(a.filename.endswith(".json") for a in final.attachments)
    turns = len(turn_lines(fake, channel))
    token_requests = [f"{r.method} {r.path}" for r in fake.bot_token_requests(started)]
    print(f"\nbot-token requests: {len(token_requests)} in {turns} turns")
    # Every turn, the AIs' too, goes out through alice's clicks (their answers and follow-ups
    # are not bound to the bot token's global limit): at most the lobby's last edit is not.
    assert len(token_requests) <= 1, token_requests
    pings = fake.pings(channel)
    assert pings
    assert all(users == frozenset({alice.id}) for _, users in pings), "AIs ping nobody"
    ai_turns = [
        message
        for message, _, told in turn_lines(fake, channel)
        if told.split(" ", 1)[1].startswith("🤖") and not message.pinged_user_ids
    ]
    assert len(ai_turns) >= 30, "every AI turn got its own message, one line once played"
    assert not any(m.enabled_buttons() for m in ai_turns), "nobody clicks for an AI"
    latencies = [seconds_between(m.timestamp, m.edited_timestamp or "") for m in ai_turns]
    print(
        f"\nAI turn latency (turn posted -> turn played and shown), {len(latencies)} turns: "
        f"median {statistics.median(latencies) * 1000:.0f} ms, "
        f"worst {max(latencies) * 1000:.0f} ms"
    )
    assert max(latencies) < 10, "an AI turn plays within a few seconds"

    stats = await (await fake.slash(alice, channel, "marrakech", "stats")).answer()
    assert "Games played: **1**" in stats.embed_text()
    board = await (await fake.slash(bob, channel, "marrakech", "leaderboard")).answer()
    assert f"<@{alice.id}>" in board.embed_text()
    assert "AI" not in str(board.embeds[0].get("description")), "no AI among the players"
    assert "AI reference players here: " in board.embed_text(), "AI levels rated apart"
    history = await (await fake.slash(bob, channel, "marrakech", "history")).answer()
    assert "**#1**" in history.embed_text()
    replay = await fake.slash(bob, channel, "marrakech", "replay", game=1)
    posted = await replay.answer(timeout=30)
    names = {a.filename for a in posted.attachments}
    assert names == {"marrakech-game-1.gif", "marrakech-analysis-1.png", "marrakech-game-1.json"}
    assert posted.file("marrakech-game-1.gif")[:6] == b"GIF89a"
    assert posted.file("marrakech-analysis-1.png")[:4] == b"\x89PNG"


def alice_to_move(fake: FakeDiscord, channel: FakeChannel, alice: FakeUser) -> FakeMessage | None:
    messages = [m for m in fake.messages(channel) if m.enabled_buttons() and m.pinged_user_ids]
    if messages and messages[-1].pinged_user_ids == frozenset({alice.id}):
        return fake.world.messages[messages[-1].id]
    return None


async def slow_table(
    fake: FakeDiscord,
) -> tuple[FakeChannel, dict[int, FakeUser], FakeMessage, FakeMessage]:
    """A game of alice and bob with a turn limit, started: its channel, the people, the lobby
    and the first turn's message."""
    guild = fake.add_guild("Souk")
    channel = fake.add_text_channel(guild, "slow-table")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    for person in (alice, bob):
        fake.add_member(guild, person)
    lobby = await (
        await fake.slash(alice, channel, "marrakech", "new", seats=2, turn_limit=TURN_LIMIT)
    ).answer()
    assert "5 min per turn" in lobby.embed_text()
    join = lobby.button(label="Join").custom_id
    assert join is not None
    await (await fake.click(bob, lobby, join)).response()
    current = fake.world.messages[lobby.id]
    start = current.button(label="Start").custom_id
    assert start is not None
    await (await fake.click(alice, current, start)).response()
    first = await fake.wait_for_message(channel, lambda m: bool(m.pinged_user_ids))
    return channel, {alice.id: alice, bob.id: bob}, lobby, first


async def test_time_limits_remind_time_out_and_survive_a_restart(
    fake: FakeDiscord, bot: BotProcess, clock_file: Path, tmp_path: Path
) -> None:
    channel, people, _, first = await slow_table(fake)
    (mover_id,) = first.pinged_user_ids
    (other,) = (person for person in people.values() if person.id != mover_id)

    await shift_clock(bot, clock_file, TURN_LIMIT / 2 + 1, fake)
    reminder = await fake.wait_for_message(channel, lambda m: "half of your time" in m.content)
    assert reminder.pinged_user_ids == frozenset({mover_id})

    await shift_clock(bot, clock_file, TURN_LIMIT + 2, fake)
    notice = await fake.wait_for_message(channel, lambda m: "ran out of time" in m.content)
    assert notice.id == first.id, "the timed-out turn's own line tells it"
    assert f"<@{mover_id}>" in notice.content
    nxt = await fake.wait_for_message(
        channel, lambda m: m.id > notice.id and m.pinged_user_ids == frozenset({other.id})
    )
    assert not fake.world.messages[first.id].enabled_buttons(), "the timed-out turn is final"
    assert nxt.enabled_buttons()
    ran_out = f"⏰ Game #1: time ran out on turn 1, and the AI played it for <@{mover_id}>."
    await fake.wait_until(
        lambda: fake.world.messages[reminder.id].content == ran_out,
        what="the reminder saying the AI played its turn",
    )

    # The bot is down while the other player's deadline passes: handled at start-up.
    database = tmp_path / "marrakech.sqlite3"
    await displayed(database, nxt.id)
    await bot.kill()
    await asyncio.to_thread(clock_file.write_text, str(3 * TURN_LIMIT), encoding="ascii")
    identifies = fake.gateway.identifies
    await bot.start()
    await bot.wait_ready(
        fake, identifies=identifies + 1, syncs=fake.world.commands.syncs, commands=COMMANDS
    )
    second = await fake.wait_for_message(
        channel, lambda m: "ran out of time" in m.content and f"<@{other.id}>" in m.content
    )
    assert second.id == nxt.id, "told in its own line, by the run that caught up"
    back = await fake.wait_for_message(
        channel, lambda m: m.id > second.id and m.pinged_user_ids == frozenset({mover_id})
    )
    assert not fake.world.messages[nxt.id].enabled_buttons()

    # The player turns Assam: a turn only begun would still count as a timeout...
    mover = people[mover_id]
    click = await fake.click(mover, back, straight_on(back))
    await click.response()
    with sqlite3.connect(database) as db:
        counts = dict(db.execute("SELECT user_id, timeouts FROM seats WHERE game_id = 1"))
    assert counts == {mover_id: 1, other.id: 1}
    # ...but they end it in time: their count of timeouts in a row starts over.
    waiting = await place_first(fake, mover, back, other)
    with sqlite3.connect(database) as db:
        counts = dict(db.execute("SELECT user_id, timeouts FROM seats WHERE game_id = 1"))
    assert counts == {mover_id: 0, other.id: 1}

    # The other player times out twice more: the AI takes their seat until they rejoin.
    offset = 3 * TURN_LIMIT
    for in_a_row in (2, 3):
        await displayed(database, waiting.id)
        offset += TURN_LIMIT + 2
        await shift_clock(bot, clock_file, offset, fake)

        def timed_out(m: FakeMessage, w: FakeMessage = waiting) -> bool:
            return m.id >= w.id and "ran out of time" in m.content

        notice = await fake.wait_for_message(channel, timed_out)
        assert notice.id == waiting.id, "the timed-out turn's own line tells it"

        def to_me(m: FakeMessage, n: FakeMessage = notice) -> bool:
            return m.id > n.id and m.pinged_user_ids == {mover_id}

        mine = await fake.wait_for_message(channel, to_me)
        if in_a_row == 3:
            assert "3 turns in a row" in notice.content
            assert "rejoin" in notice.content
            break
        waiting = await play_turn(fake, mover, mine, other)
    # handed over: the AI plays the seat at once, without pinging anybody
    mine = await play_turn(fake, mover, mine, mover)
    auto = [
        message
        for message, _, told in turn_lines(fake, channel)
        if message.id > notice.id and told.split(" ", 1)[1].startswith(f"🤖 AI for <@{other.id}>")
    ]
    assert auto, "the turns the AI played for them once handed over"
    assert not any(m.pinged_user_ids for m in auto)
    rejoined = await (await fake.slash(other, channel, "marrakech", "rejoin")).answer()
    assert "is back" in rejoined.content
    assert not rejoined.ephemeral
    yours = await play_turn(fake, mover, mine, other)
    assert yours.enabled_buttons(), "their own turn again, with buttons"
    assert await bot.stop() == 0


async def place_first(
    fake: FakeDiscord, user: FakeUser, message: FakeMessage, next_user: FakeUser
) -> FakeMessage:
    """Lay the first numbered rug on `message` (oriented already); return the next turn, which
    pings `next_user` (when the AI plays in between, the next human turn)."""
    current = await fake.wait_until(
        lambda: next(
            (
                fake.world.messages[message.id]
                for b in fake.world.messages[message.id].enabled_buttons()
                if (b.label or "").startswith("1 · ")
            ),
            None,
        ),
        what="the placements",
    )
    first = next(b for b in current.enabled_buttons() if (b.label or "").startswith("1 · "))
    assert first.custom_id is not None
    handle = await fake.click(user, current, first.custom_id)
    await handle.response()
    return await fake.wait_for_message(
        fake.world.channels[message.channel_id],
        lambda m: (
            m.id > message.id and m.pinged_user_ids == {next_user.id} and bool(m.enabled_buttons())
        ),
    )


async def play_turn(
    fake: FakeDiscord, user: FakeUser, message: FakeMessage, next_user: FakeUser
) -> FakeMessage:
    """Play a whole turn on `message` (straight on, first placement)."""
    handle = await fake.click(user, message, straight_on(message))
    await handle.response()
    return await place_first(fake, user, message, next_user)


async def test_turns_go_out_through_the_clicks_then_with_the_bot_token_once_they_expire(
    fake: FakeDiscord, bot: BotProcess, clock_file: Path
) -> None:
    """A click's interaction may post and edit for 15 minutes: the turns go out through the
    players' clicks, and a turn that times out after that (the bot's and Discord's clocks moved
    16 minutes on) is retired and followed with the bot token, never with a token Discord would
    refuse; the next click's interaction posts the turn after it."""
    since = len(fake.world.requests)
    channel, people, lobby, first = await slow_table(fake)
    (mover_id,) = first.pinged_user_ids
    (other,) = (person for person in people.values() if person.id != mover_id)
    await fake.wait_until(lambda: f"/{first.id})" in fake.world.messages[lobby.id].embed_text())
    assert fake.bot_token_requests(since) == [], "the lobby and the first turn: by the clicks"

    since = len(fake.world.requests)
    await shift_clock(bot, clock_file, 16 * 60, fake)
    nxt = await fake.wait_for_message(
        channel, lambda m: m.id > first.id and m.pinged_user_ids == frozenset({other.id})
    )
    assert not fake.world.messages[first.id].enabled_buttons(), "the timed-out turn is retired"
    used = {(r.method, r.path) for r in fake.bot_token_requests(since)}
    assert ("PATCH", f"/channels/{channel.id}/messages/{first.id}") in used, used
    assert ("POST", f"/channels/{channel.id}/messages") in used, used

    since = len(fake.world.requests)
    await play_turn(fake, people[other.id], nxt, people[mover_id])
    assert fake.bot_token_requests(since) == [], "the next turn is the click's follow-up"
