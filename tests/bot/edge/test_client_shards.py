"""The sharded client in process against the fake Discord: it opens only the shards it holds,
and its heartbeat counts the gateway as up only while every one of them is open and beats only
then; its bot-token requests keep to the share of the global limit its shards make; it asks
Discord for the guilds intent alone; and its close (`docker stop`) waits, for a bounded time,
for the interaction handlers still running."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import discord
import pytest

from bot.edge import client as client_module
from bot.edge.inflight import HANDLERS
from bot.runtime.composition import build_bot
from bot.runtime.health import Heartbeat, check_health, read_heartbeat
from bot.storage import open_database
from bot.storage.games import ShardSet
from tests.bot.edge.test_edge import gateway_ready, ready_soon
from tests.e2e.fakecord import FakeDiscord
from tests.polling import WAIT_SECONDS


async def test_the_client_holds_only_its_shards_and_beats_while_they_are_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process holding shards 1 and 2 of 3 opens those two alone, and counts the gateway as
    up while both are open, not once one of them is disconnected (the other still open)."""
    async with FakeDiscord(bot_name="Marrakech", shard_count=3) as fake:
        monkeypatch.setattr(discord.http.Route, "BASE", fake.api_base_url)
        held = [fake.add_guild("Souk", shard=1), fake.add_guild("Kasbah", shard=2)]
        fake.add_guild("Medina", shard=0)
        database = await open_database(tmp_path / "shards.sqlite3")
        client = build_bot(
            database,
            heartbeat=Heartbeat(tmp_path / "heartbeat"),
            gateway_from_api=True,
            shards=ShardSet(3, (1, 2)),
        ).client

        async def identify_at_once(shard_id: int | None, *, initial: bool = False) -> None:
            """discord.py waits 5 s before each shard's IDENTIFY but the first (Discord's
            limit on starting sessions), which the fake does not hold it to."""

        monkeypatch.setattr(client, "before_identify_hook", identify_at_once)
        runner: asyncio.Task[None] | None = None
        try:
            assert not client.gateway_open()
            await client.login("fake-token")
            ready_soon(client, monkeypatch)
            runner = asyncio.create_task(client.connect())
            await gateway_ready(client)

            assert client.gateway_open()
            assert sorted(client.shards) == [1, 2]
            assert sorted(guild.id for guild in client.guilds) == sorted(g.id for g in held)
            for shard_id in (1, 2):
                session = fake.shard_session(shard_id)
                assert session is not None
                assert session.shard == (shard_id, 3)
            assert fake.shard_session(0) is None

            await client.shards[2].disconnect()
            assert client.shards[2].is_closed()
            assert not client.shards[1].is_closed()
            assert not client.gateway_open(), "one held shard down: the gateway is not up"
        finally:
            await client.close()
            await database.close()
            if runner is not None:
                await runner
        assert not client.gateway_open()


async def test_a_client_holding_some_shards_paces_itself_to_their_share_of_the_global_limit(
    tmp_path: Path,
) -> None:
    """Discord's 50 requests a second are shared by every process of the bot: one holding 2 of
    4 shards starts at most 22 bot-token requests a second (its half, at 90 %), one holding them
    all 45. Two processes each pacing to the whole limit would send up to 90 a second."""
    database = await open_database(tmp_path / "pace.sqlite3")
    try:
        half = build_bot(
            database, heartbeat=Heartbeat(tmp_path / "half"), shards=ShardSet(4, (0, 1))
        ).client
        one = build_bot(
            database, heartbeat=Heartbeat(tmp_path / "one"), shards=ShardSet(3, (2,))
        ).client
        alone = build_bot(database, heartbeat=Heartbeat(tmp_path / "alone")).client
        assert [half.pace.per_second, one.pace.per_second, alone.pace.per_second] == [22, 15, 45]
    finally:
        await database.close()


async def test_every_request_the_client_makes_with_the_bot_token_waits_for_its_pace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pace is hooked on the HTTP session discord.py sends with, not merely built beside
    it: each bot-token request of the client's login and start-up (the command sync among them)
    waits for the pace first, one wait a request."""
    async with FakeDiscord(bot_name="Marrakech") as fake:
        monkeypatch.setattr(discord.http.Route, "BASE", fake.api_base_url)
        database = await open_database(tmp_path / "paced.sqlite3")
        client = build_bot(database, heartbeat=Heartbeat(tmp_path / "heartbeat")).client
        waits: list[None] = []

        async def wait() -> None:
            waits.append(None)

        monkeypatch.setattr(client.pace, "wait", wait)
        try:
            await client.login("fake-token")  # runs setup_hook: the command sync
        finally:
            await client.close()
            await database.close()
        sent = fake.bot_token_requests()
        assert sent, "the login asks Discord with the bot token"
        assert len(waits) == len(sent), [f"{r.method} {r.path}" for r in sent]


async def test_the_client_asks_discord_for_the_guilds_intent_alone(tmp_path: Path) -> None:
    """Interactions need no intent, and permission checks read the guilds' channels and roles:
    no messages, reactions or typing, privileged or not. Every event not asked for is one the
    gateway does not send and the bot does not decode under load (docs/performance.md)."""
    database = await open_database(tmp_path / "intents.sqlite3")
    try:
        client = build_bot(database, heartbeat=Heartbeat(tmp_path / "heartbeat")).client
        assert client.intents == discord.Intents(guilds=True)
    finally:
        await database.close()


async def test_the_client_mentions_nobody_by_default_whatever_shards_it_holds(
    tmp_path: Path,
) -> None:
    """A message that says nothing of its mentions pings nobody, not the people it names nor an
    `@everyone` typed into a display name: in a process holding every shard as in one holding
    some."""
    database = await open_database(tmp_path / "mentions.sqlite3")
    try:
        every = build_bot(database, heartbeat=Heartbeat(tmp_path / "every")).client
        some = build_bot(
            database, heartbeat=Heartbeat(tmp_path / "some"), shards=ShardSet(3, (1,))
        ).client
        for client in (every, some):
            mentions = client.allowed_mentions
            assert mentions is not None
            said = dict(mentions.to_dict())
            assert said == {"parse": []}, "nobody: no users, roles or @everyone to parse"
    finally:
        await database.close()


async def test_the_heartbeat_beats_in_each_period_the_gateway_is_open_and_in_no_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every 30 s the client writes a gateway beat if every shard it holds is open, and none
    while one is down, so the file goes stale and `healthcheck` fails 90 s after Discord was
    lost, however long the event loop runs on. The periods go by on a fake clock: the loop asks
    whether the client is closed before each one, and the test closes it after the last."""
    open_in = (True, False, True, False, False, False, False)
    period = 0

    def is_closed() -> bool:
        nonlocal period
        period += 1
        return period > len(open_in)

    def gateway_open() -> bool:
        return open_in[period - 1]

    monkeypatch.setattr(client_module, "HEARTBEAT_INTERVAL_SECONDS", 0.0)
    path = tmp_path / "heartbeat"
    heartbeat = Heartbeat(path, clock=lambda: 30.0 * period)
    database = await open_database(tmp_path / "beat.sqlite3")
    try:
        client = build_bot(database, heartbeat=heartbeat).client
        monkeypatch.setattr(client, "is_closed", is_closed)
        monkeypatch.setattr(client, "gateway_open", gateway_open)
        await asyncio.wait_for(client._beat_forever(), WAIT_SECONDS)
    finally:
        await database.close()

    record = read_heartbeat(path)
    assert record is not None
    assert record.beaten_at == 90.0, "the last beat is of the last period the gateway was open"
    # A beat written while the gateway is down would keep the bot healthy.
    assert check_health(path, now=30.0 * len(open_in)) == (
        False,
        "unhealthy: last heartbeat 120 s ago (limit 90 s)",
    )


async def test_a_stop_lets_a_running_handler_finish_before_the_client_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM closes the client, then the database: a click still being handled is waited
    for, so that its move is not committed with its message unrecorded, nor its handler cut
    off by a closed database. The handler is let go only once the close has got to the
    handlers (waiting for them, or gone past them)."""
    closed_with: list[int] = []
    reached = asyncio.Event()

    async def discord_close(self: discord.Client) -> None:
        closed_with.append(HANDLERS.count)
        reached.set()

    waiting = HANDLERS.drained

    async def drained(within: float) -> bool:
        reached.set()
        return await waiting(within)

    monkeypatch.setattr(discord.AutoShardedClient, "close", discord_close)
    monkeypatch.setattr(HANDLERS, "drained", drained)
    release = asyncio.Event()

    async def handler() -> None:
        with HANDLERS.track():
            await release.wait()

    database = await open_database(tmp_path / "stop.sqlite3")
    try:
        client = build_bot(database, heartbeat=Heartbeat(tmp_path / "heartbeat")).client
        running = asyncio.create_task(handler())
        await asyncio.sleep(0)
        assert HANDLERS.count == 1, "the handler runs"
        closing = asyncio.create_task(client.close())
        await asyncio.wait_for(reached.wait(), WAIT_SECONDS)
        release.set()
        await asyncio.wait_for(asyncio.gather(running, closing), WAIT_SECONDS)
    finally:
        await database.close()
    assert closed_with == [0], "the client closed once the handler had returned"


async def test_a_handler_that_never_returns_is_given_up_on_after_the_grace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The wait is bounded (SHUTDOWN_GRACE_SECONDS): a handler stuck for good does not keep the
    process from stopping, and the log says how many were cut off."""
    closed_with: list[int] = []

    async def discord_close(self: discord.Client) -> None:
        closed_with.append(HANDLERS.count)

    monkeypatch.setattr(discord.AutoShardedClient, "close", discord_close)
    monkeypatch.setattr(client_module, "SHUTDOWN_GRACE_SECONDS", 0.01)
    stuck = asyncio.Event()

    async def handler() -> None:
        with HANDLERS.track():
            await stuck.wait()

    database = await open_database(tmp_path / "stuck.sqlite3")
    running = asyncio.create_task(handler())
    try:
        client = build_bot(database, heartbeat=Heartbeat(tmp_path / "heartbeat")).client
        await asyncio.sleep(0)
        with caplog.at_level(logging.WARNING, logger=client_module.__name__):
            await asyncio.wait_for(client.close(), WAIT_SECONDS)
    finally:
        stuck.set()
        await running
        await database.close()
    assert closed_with == [1]
    said = [r.getMessage() for r in caplog.records if r.name == client_module.__name__]
    assert said == ["closing with 1 interactions still being handled"]
