"""The fake's sharding, over raw websockets (no discord.py): what `GET /gateway/bot` recommends,
which IDENTIFYs are refused (4010 invalid shard, 4011 sharding required), and which connection
gets READY's guilds, each guild's events and its interactions."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeGuild, NoGatewaySessionError
from tests.e2e.fakecord.snowflakes import SnowflakeGenerator

pytestmark = pytest.mark.e2e

Json = dict[str, Any]
SHARDS = 4


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(bot_name="Marrakech", shard_count=SHARDS) as server:
        yield server


@pytest_asyncio.fixture
async def http(fake: FakeDiscord) -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(
        base_url=fake.world.base_url, headers={"Authorization": "Bot t"}
    ) as session:
        yield session


async def identify(http: aiohttp.ClientSession, shard: object) -> aiohttp.ClientWebSocketResponse:
    """A plain-JSON gateway connection that said HELLO and was sent IDENTIFY for ``shard``."""
    ws = await http.ws_connect("/gateway?v=10&encoding=json")
    assert (await ws.receive_json(timeout=5))["op"] == 10
    data: Json = {"token": "t", "intents": 1, "properties": {}}
    if shard is not None:
        data["shard"] = shard
    await ws.send_json({"op": 2, "d": data})
    return ws


async def dispatches(ws: aiohttp.ClientWebSocketResponse, until: str) -> list[Json]:
    """The dispatches received up to and including the first ``until`` event."""
    received = []
    while True:
        payload = await ws.receive_json(timeout=5)
        received.append(payload)
        if payload.get("t") == until:
            return received


def channel_of(guild: FakeGuild) -> FakeChannel:
    return next(iter(guild.channels.values()))


def test_snowflakes_fall_on_the_shard_asked_for() -> None:
    snowflakes = SnowflakeGenerator()
    last = 0
    for shard_count in (1, 2, 3, 4, 16):
        for shard_id in [*range(shard_count), *range(shard_count)]:
            snowflake = snowflakes.next_on_shard(shard_id, shard_count)
            assert (snowflake >> 22) % shard_count == shard_id
            assert snowflake > last
            last = snowflake
        assert snowflakes.next() > last
    with pytest.raises(ValueError, match="not within"):
        snowflakes.next_on_shard(4, 4)


async def test_gateway_bot_recommends_the_shard_count(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    async with http.get("/api/v10/gateway/bot") as response:
        body = await response.json()

    assert body["shards"] == SHARDS
    assert body["url"] == fake.gateway_url
    with pytest.raises(ValueError, match="not within"):
        fake.add_guild("Nowhere", shard=SHARDS)


@pytest.mark.parametrize(
    ("shard", "code"),
    [
        (None, 4011),
        ([0, 1], 4011),
        ([0, 2], 4011),
        ([4, 4], 4010),
        ([-1, 4], 4010),
        ([0, 0], 4010),
        ([0], 4010),
        ("0,4", 4010),
        ([True, 4], 4010),
    ],
)
async def test_a_wrong_shard_is_refused_as_discord_does(
    fake: FakeDiscord, http: aiohttp.ClientSession, shard: object, code: int
) -> None:
    ws = await identify(http, shard)
    closing = await ws.receive(timeout=5)
    await ws.close()

    assert closing.type is aiohttp.WSMsgType.CLOSE
    assert closing.data == code
    assert fake.gateway.rejected == [code]
    assert fake.gateway.identifies == 0
    assert fake.session is None


async def test_each_guild_reaches_only_the_connection_of_its_shard(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    guilds: list[FakeGuild] = []
    for shard_id in (0, 1, 3, 3):
        guild = fake.add_guild(f"on {shard_id}", shard=shard_id)
        fake.add_text_channel(guild, "games")
        guilds.append(guild)
    zero, one, three, three_too = guilds
    alice = fake.add_user("alice")
    for guild in guilds:
        fake.add_member(guild, alice)
    with pytest.raises(NoGatewaySessionError):
        fake.dispatch_interaction(
            fake.interaction_from_payload(2, alice, channel_of(one), {"id": "1", "name": "x"})
        )

    sockets = {shard_id: await identify(http, [shard_id, SHARDS]) for shard_id in (1, 3)}
    readies = {}
    for shard_id, ws in sockets.items():
        received = await dispatches(ws, "READY")
        readies[shard_id] = received[-1]["d"]
    await fake.wait_until_connected(identifies=2, shards=(1, 3))

    assert readies[1]["shard"] == [1, SHARDS]
    assert [g["id"] for g in readies[1]["guilds"]] == [str(one.id)]
    assert readies[3]["shard"] == [3, SHARDS]
    assert [g["id"] for g in readies[3]["guilds"]] == [str(three.id), str(three_too.id)]
    created = await dispatches(sockets[3], "GUILD_CREATE")
    created += await dispatches(sockets[3], "GUILD_CREATE")
    assert [p["d"]["id"] for p in created] == [str(three.id), str(three_too.id)]
    assert (await dispatches(sockets[1], "GUILD_CREATE"))[0]["d"]["id"] == str(one.id)

    later = fake.add_guild("later on 1", shard=1)
    channel = fake.add_text_channel(later, "games")
    fake.add_member(later, alice)
    handle = fake.dispatch_interaction(
        fake.interaction_from_payload(2, alice, channel, {"id": "1", "name": "x", "type": 1})
    )
    events = await dispatches(sockets[1], "INTERACTION_CREATE")
    assert [p["t"] for p in events] == ["GUILD_CREATE", "CHANNEL_CREATE", "INTERACTION_CREATE"]
    assert events[-1]["d"]["guild_id"] == str(later.id)
    assert not handle.undelivered

    lost = fake.dispatch_interaction(
        fake.interaction_from_payload(
            2, alice, channel_of(zero), {"id": "1", "name": "x", "type": 1}
        )
    )
    assert lost.undelivered
    assert fake.gateway.undelivered == [("INTERACTION_CREATE", zero.id)]
    dm = fake.dispatch_interaction(
        fake.interaction_from_payload(2, alice, fake.dm_channel(alice), {"id": "1", "name": "x"})
    )
    assert dm.undelivered  # DMs go to shard 0, which nobody holds

    for ws in sockets.values():
        await ws.send_json({"op": 1, "d": None})
        ack = await ws.receive_json(timeout=5)
        assert ack["op"] == 11, json.dumps(ack)  # nothing else was queued for either shard
        await ws.close()
