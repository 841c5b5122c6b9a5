"""Away days and quiet hours through the real bot process and the fake Discord API, the bot's
clock moved forward (tests/e2e/shifted_clock.py).

One game of alice and bob with a five-minute turn limit goes through it all: away days stop the
mover's clock (no reminder, no timeout) and coming back starts it again with the time it had
left, said in the channel, its reminder and timeout coming when that time says; with the
server's clocks running in quiet hours, the turn ping and the reminder of a player in quiet
hours are held, and after a restart past the hours' end they come as one direct message, once,
saying the turn's time ran out in the night and the AI played it;
with the default (clocks pause), a quiet player's clock stands still; a turn that begins while
its player is away, and `mygames`, say until when, and when the days run out the channel is
told, once, that the clock runs again with the time the turn has left. A second test runs two
processes on PostgreSQL: a held reminder goes out once.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.storage import open_database
from tests.e2e.fake_checks import check_fake_after_test
from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.multiprocess import Cluster
from tests.e2e.shifted_clock import shift_clock, with_clock
from tests.e2e.test_async_play import play_turn
from tests.e2e.test_game import displayed
from tests.polling import until
from tests.postgres import create_database, drop_database, postgres_server

pytestmark = pytest.mark.e2e
__all__ = ["postgres_server"]

COMMANDS = ("marrakech", "marrakech-mod", "marrakech-admin")
TURN_LIMIT = 300
HELD_REQUESTS = 2
"""Discord requests that bring a person what was held for them, however much: opening the
direct message channel and the message."""
PASS_DONE = r"turn clock: [1-9]\d* done"
"""The scheduler's log line after a pass that handled something."""
INTO_TURN = 90
"""Seconds of the first turn gone when its player goes away: before its reminder (at half the
limit), and far enough from a whole turn that the time it had left is not a new turn's.
The few seconds the test itself takes run on the clock too, so that a turn's time left is
always a little under what these numbers give: the checks leave it half a minute."""
BACK = TURN_LIMIT + 2
"""The clock's shift when the away player comes back: past the turn's first deadline."""


@pytest.fixture
def bot_env(bot_env: dict[str, str], clock_file: Path) -> dict[str, str]:
    return with_clock(bot_env, clock_file)


@pytest.fixture
def bot_ready_commands() -> tuple[str, ...]:
    return COMMANDS


async def table_of_two(
    fake: FakeDiscord,
) -> tuple[FakeChannel, FakeUser, FakeUser, FakeMessage]:
    """A started game of alice (the server's owner) and bob with a turn limit: its channel,
    the person to move, the other, and the first turn's message."""
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    guild = fake.add_guild("Souk", owner=alice)
    channel = fake.add_text_channel(guild, "slow-table")
    for person in (alice, bob):
        fake.add_member(guild, person)
    lobby = await (
        await fake.slash(alice, channel, "marrakech", "new", seats=2, turn_limit=TURN_LIMIT)
    ).answer()
    join = lobby.button(label="Join").custom_id
    assert join is not None
    await (await fake.click(bob, lobby, join)).response()
    current = fake.world.messages[lobby.id]
    start = current.button(label="Start").custom_id
    assert start is not None
    await (await fake.click(alice, current, start)).response()
    first = await fake.wait_for_message(channel, lambda m: bool(m.pinged_user_ids))
    (mover_id,) = first.pinged_user_ids
    mover, other = (alice, bob) if mover_id == alice.id else (bob, alice)
    return channel, mover, other, first


def quiet_now(offset: float) -> dict[str, str]:
    """Quiet hours in UTC from an hour before the bot's now to two hours after it."""
    now = datetime.now(UTC) + timedelta(seconds=offset)
    start, end = now - timedelta(hours=1), now + timedelta(hours=2)
    return {"from": start.strftime("%H:%M"), "to": end.strftime("%H:%M"), "timezone": "UTC"}


async def say(
    fake: FakeDiscord, user: FakeUser, channel: FakeChannel, *path: str, **options: object
) -> str:
    """The private answer to a slash command, its embeds' text after its content."""
    answer = await (await fake.slash(user, channel, *path, options=options)).answer()
    assert answer.ephemeral
    return f"{answer.content}\n{answer.embed_text()}"


async def shift_and_pass(
    bot: BotProcess, clock_file: Path, offset: float, fake: FakeDiscord, kind: str
) -> None:
    """Move the bot's clock to `offset` and wait until the turn clock has handled the `kind`
    ('play' or 'remind') that fell due with it."""
    await shift_clock(bot, clock_file, offset, fake)
    shifted = max(i for i, line in enumerate(bot.lines) if "clock is now shifted" in line)
    await bot.wait_for_log(rf"game \d+: {kind} due", after=shifted)
    began = next(
        i
        for i in range(shifted, len(bot.lines))
        if re.search(rf"game \d+: {kind} due", bot.lines[i])
    )
    await bot.wait_for_log(PASS_DONE, after=began)


def held_rows(database: Path) -> list[tuple[int, str, bool]]:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        rows = connection.execute(
            "SELECT user_id, kind, sent_at IS NOT NULL FROM held_notices "
            "WHERE kind <> 'back' ORDER BY id"
        ).fetchall()
    return [(int(user), str(kind), bool(sent)) for user, kind, sent in rows]


def back_notices(database: Path) -> list[tuple[int, bool]]:
    """The held notices that a person's days away ran out: whose, and whether sent."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        rows = connection.execute(
            "SELECT user_id, sent_at IS NOT NULL FROM held_notices WHERE kind = 'back' ORDER BY id"
        ).fetchall()
    return [(int(user), bool(sent)) for user, sent in rows]


def turn_ends(database: Path, channel: FakeChannel) -> datetime:
    """When the running game of the channel is to be played by the AI, as stored."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        (due_at,) = connection.execute(
            "SELECT due_at FROM games WHERE channel_id = ? AND status = 'running'", (channel.id,)
        ).fetchone()
    return datetime.fromisoformat(str(due_at))


async def test_away_days_and_quiet_hours_stop_clocks_and_hold_pings_across_a_restart(
    fake: FakeDiscord, bot: BotProcess, clock_file: Path, tmp_path: Path
) -> None:
    database = tmp_path / "marrakech.sqlite3"
    channel, mover, other, first = await table_of_two(fake)
    owner = fake.world.users[min(mover.id, other.id)]  # alice, added first
    await displayed(database, first.id)

    # Away: the clock stops; back: it runs again with the time it had left, and the reminder
    # and the timeout come when that time says, not a whole new turn after.
    await shift_clock(bot, clock_file, INTO_TURN, fake)
    assert "until" in await say(fake, mover, channel, "marrakech", "away", days=1)
    away_line = await fake.wait_for_message(channel, lambda m: m.content.startswith("💤"))
    assert f"<@{mover.id}>" in away_line.content
    assert not away_line.pinged_user_ids, "the line names them without pinging"
    await shift_and_pass(bot, clock_file, BACK, fake, "play")
    assert not any("half of your time" in m.content for m in fake.messages(channel))
    assert fake.world.messages[first.id].enabled_buttons(), "no timeout while away"
    assert "Welcome back" in await say(fake, mover, channel, "marrakech", "back")
    back_line = await fake.wait_for_message(channel, lambda m: m.content.startswith("▶️"))
    left = TURN_LIMIT - INTO_TURN  # 3 min 30 s, less the test's own seconds: "3 min"
    assert f" {left // 60} min left" in back_line.content, back_line.content
    await shift_clock(bot, clock_file, BACK + TURN_LIMIT / 2 - INTO_TURN + 5, fake)
    reminder = await fake.wait_for_message(channel, lambda m: "half of your time" in m.content)
    assert reminder.pinged_user_ids == {mover.id}

    # Clocks run in quiet hours (a server setting): the other player's turn ping and reminder
    # are held while their hours last. The mover's time left runs out first.
    offset = BACK + left + 5
    assert "running" in await say(
        fake, owner, channel, "marrakech-admin", "quiet-clocks", state="run"
    )
    assert "Europe/Kyiv" not in await say(
        fake, other, channel, "marrakech", "quiet-hours", **quiet_now(offset)
    )
    await shift_clock(bot, clock_file, offset, fake)
    timed_out = await fake.wait_for_message(channel, lambda m: "ran out of time" in m.content)
    assert timed_out.id == first.id
    quiet_turn = await fake.wait_for_message(
        channel, lambda m: m.id > reminder.id and bool(m.enabled_buttons())
    )
    assert quiet_turn.pinged_user_ids == frozenset(), "no ping in quiet hours"
    await displayed(database, quiet_turn.id)
    await shift_and_pass(bot, clock_file, offset + TURN_LIMIT / 2 + 5, fake, "remind")
    assert held_rows(database) == [(other.id, "turn", False), (other.id, "remind", False)]
    # The pass that handled the reminder is over: a reminder in the channel would be there.
    pings = [
        m for m in fake.messages(channel) if m.id > quiet_turn.id and other.id in m.pinged_user_ids
    ]
    assert not pings, f"pinged in their quiet hours: {[m.content for m in pings]}"
    dm = fake.dm_channel(other)
    assert fake.messages(dm) == []

    # Down past the end of the quiet hours: the run after sends what was held, once.
    await bot.kill()
    offset += 3 * 3600
    await asyncio.to_thread(clock_file.write_text, str(offset), encoding="ascii")
    fake.shift_clock(offset)
    identifies = fake.gateway.identifies
    since = len(fake.world.requests)
    await bot.start()
    await bot.wait_ready(
        fake, identifies=identifies + 1, syncs=fake.world.commands.syncs, commands=COMMANDS
    )
    held = await fake.wait_for_message(dm, lambda m: "quiet hours are over" in m.content)
    # Their five minutes ran out in the night: what was held of that turn is no longer true,
    # and the message says, once, that its time ran out and the AI played it.
    assert "your turn began" not in held.content, held.content
    assert "half of your turn's time" not in held.content, held.content
    assert held.content.count("your turn's time ran out, and the AI played it") == 1, held.content
    await until(  # the database, not Discord: the fake has nothing to say when it changes
        lambda: all(sent for _, _, sent in held_rows(database)), "the notices marked sent"
    )
    assert len(fake.messages(dm)) == 1, "one message, once"
    sending = [
        f"{r.method} {r.path}"
        for r in fake.bot_token_requests(since)
        if r.path.endswith("/users/@me/channels") or f"/channels/{dm.id}/" in r.path
    ]
    print(f"\nrequests to Discord for 2 held notices of one person: {sending}")
    assert len(sending) == HELD_REQUESTS

    # The default: clocks pause in quiet hours.
    await say(fake, owner, channel, "marrakech-admin", "quiet-clocks", state="pause")
    settings = await say(fake, owner, channel, "marrakech-admin", "show")
    assert "Turn clocks in a player's quiet hours: paused" in settings
    mine = await fake.wait_for_message(
        channel, lambda m: m.pinged_user_ids == {mover.id} and bool(m.enabled_buttons())
    )
    await displayed(database, mine.id)
    await say(fake, mover, channel, "marrakech", "quiet-hours", **quiet_now(offset))
    # Quiet from now for two hours (the hour before counts for nothing: it ran): the turn's
    # end moves past them at once, and its time limit passes with its buttons live.
    quiet_ends = datetime.now(UTC) + timedelta(seconds=offset, hours=2, minutes=-1)
    assert turn_ends(database, channel) > quiet_ends, "the quiet player's clock pauses"
    await shift_clock(bot, clock_file, offset + TURN_LIMIT + 5, fake)
    assert fake.world.messages[mine.id].enabled_buttons(), "the quiet player's clock paused"

    # A turn that begins while its player is away says so, and so does `mygames`.
    await say(fake, other, channel, "marrakech", "away", days=1)
    waiting = await play_turn(fake, mover, fake.world.messages[mine.id], other)
    assert "💤 Away until" in waiting.content
    assert "away until" in await say(fake, mover, channel, "marrakech", "mygames")

    # The days run out: the channel is told, once, that the clock runs again, with the whole
    # turn but the seconds since they ran out (4 min 30 s, less the test's own seconds).
    await displayed(database, waiting.id)
    marks = len(bot.lines)
    over_by = 30
    await shift_clock(bot, clock_file, offset + TURN_LIMIT + 5 + 86400 + over_by, fake)
    over = await fake.wait_for_message(channel, lambda m: "days away are over" in m.content)
    assert f"<@{other.id}>" in over.content
    assert f" {(TURN_LIMIT - over_by) // 60} min left" in over.content, over.content
    assert not over.pinged_user_ids
    await bot.wait_for_log(PASS_DONE, after=marks)
    assert sum("days away are over" in m.content for m in fake.messages(channel)) == 1
    # Told, it is done with: a notice left unsent would be told again by a later pass, which
    # Discord's memory of the post's nonce hides for a few minutes only.
    backs = back_notices(database)
    assert (other.id, True) in backs, backs
    assert all(sent for _, sent in backs), backs


# --- two processes on PostgreSQL ----------------------------------------------------------------


@pytest.fixture
async def postgres(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """An empty PostgreSQL database of its own, dropped after the test."""
    server: str = request.getfixturevalue("postgres_server")
    url = await create_database(server)
    yield url
    await drop_database(server, url)


async def held_in(url: str) -> list[tuple[int, str, bool]]:
    database = await open_database(url)
    try:
        async with database.reading() as conn:
            rows = await conn.fetch(
                "SELECT user_id, kind, sent_at IS NOT NULL FROM held_notices ORDER BY id"
            )
    finally:
        await database.close()
    return [(int(row[0]), str(row[1]), bool(row[2])) for row in rows]


async def test_two_processes_send_a_held_reminder_once(
    postgres: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    clock_file = tmp_path / "clock-offset"
    clock_file.write_text("0", encoding="ascii")
    async with FakeDiscord(bot_name="Marrakech", shard_count=2) as fake:
        cluster = Cluster(
            fake, postgres, tmp_path, processes=2, clock_file=clock_file, log_level="DEBUG"
        )
        try:
            await cluster.start_all()
            channel, mover, other, _ = await table_of_two(fake)
            owner = fake.world.users[min(mover.id, other.id)]
            await say(fake, owner, channel, "marrakech-admin", "quiet-clocks", state="run")
            await say(fake, mover, channel, "marrakech", "quiet-hours", **quiet_now(0))
            await cluster.shift_clock(TURN_LIMIT / 2 + 5)

            async def held() -> bool:
                return await held_in(postgres) == [(mover.id, "remind", False)]

            await until(held, "the reminder held")
            assert not any("half of your time" in m.content for m in fake.messages(channel))
            marks = [len(process.lines) for process in cluster.processes]
            await cluster.shift_clock(3 * 3600)
            dm = fake.dm_channel(mover)
            await fake.wait_for_message(
                dm, lambda m: "quiet hours are over" in m.content, timeout=30
            )

            async def sent() -> bool:
                return await held_in(postgres) == [(mover.id, "remind", True)]

            await until(sent, "the held reminder marked sent")
            for process, mark in zip(cluster.processes, marks, strict=True):
                await process.wait_for_log(r"turn clock: \d+ done", after=mark, timeout=30)
            assert len(fake.messages(dm)) == 1, "sent once, by one of the two processes"
            # Both processes sending would still show one message (the nonce): count the posts.
            posts = [
                request
                for request in fake.bot_token_requests()
                if request.method == "POST" and request.path.endswith(f"/channels/{dm.id}/messages")
            ]
            assert len(posts) == 1, f"sent by both processes: {posts}"
        finally:
            await cluster.close()
        check_fake_after_test(fake, request.node)
