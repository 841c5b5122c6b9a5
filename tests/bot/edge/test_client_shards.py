"""The sharded client in process against the fake Discord: it opens only the shards it holds,
and its heartbeat counts the gateway as up only while every one of them is open."""

from __future__ import annotations

import asyncio
from pathlib import Path

import discord
import pytest

from bot.runtime.composition import build_bot
from bot.runtime.health import Heartbeat
from bot.storage import open_database
from bot.storage.games import ShardSet
from tests.e2e.fakecord import FakeDiscord


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
            runner = asyncio.create_task(client.connect())
            await asyncio.wait_for(client.wait_until_ready(), 10)

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
