"""The real bot, sharded, against a fake Discord that shards as Discord does.

The fake recommends two shards and sends each guild's events only to the connection of its
shard, `(guild_id >> 22) % 2`. A process holding one shard answers that shard's guilds, and the
other guild's interactions reach nobody; a process holding both shards (by setting, or at
Discord's recommendation) answers both. Too few shards are refused as Discord refuses them.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import pytest_asyncio

from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeGuild, FakeUser, GatewaySession
from tests.e2e.fakecord.process import BotProcess

pytestmark = pytest.mark.e2e

COMMANDS = ("marrakech", "marrakech-mod")
SHARDS = 2


@dataclass
class Place:
    """A guild on a known shard, with a channel and two members."""

    guild: FakeGuild
    channel: FakeChannel
    host: FakeUser
    guest: FakeUser


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(bot_name="Marrakech", shard_count=SHARDS) as server:
        yield server


@pytest.fixture
def places(fake: FakeDiscord) -> list[Place]:
    """One guild on each shard: places[n] is on shard n."""
    found = []
    for shard_id, name in enumerate(("Medina", "Souk")):
        guild = fake.add_guild(name, shard=shard_id)
        channel = fake.add_text_channel(guild, "games")
        host, guest = fake.add_user(f"{name} host"), fake.add_user(f"{name} guest")
        fake.add_member(guild, host)
        fake.add_member(guild, guest)
        found.append(Place(guild, channel, host, guest))
    assert [fake.shard_of(place.guild, SHARDS) for place in found] == [0, 1]
    return found


async def start(fake: FakeDiscord, bot: BotProcess, shards: dict[str, str]) -> None:
    bot.env.update(shards)
    await bot.start_and_wait_ready(fake, commands=COMMANDS)


async def open_a_lobby_and_join(fake: FakeDiscord, place: Place) -> None:
    """A slash command and a click in the place's guild, both answered."""
    new = await fake.slash(place.host, place.channel, "marrakech", "new", seats=2)
    lobby = await new.answer()
    assert not new.undelivered
    custom_id = next(b.custom_id for b in lobby.enabled_buttons() if b.custom_id)
    click = await fake.click(place.guest, lobby, custom_id)
    await click.response()
    assert not click.undelivered


def guilds_sent(session: GatewaySession) -> tuple[set[str], set[str]]:
    """The guild ids READY listed and those GUILD_CREATE announced on the session."""
    ready: set[str] = set()
    created: set[str] = set()
    for frame in session.frames:
        data = json.loads(frame.text)["d"]
        if frame.event == "READY":
            ready |= {guild["id"] for guild in data["guilds"]}
        elif frame.event == "GUILD_CREATE":
            created.add(data["id"])
    return ready, created


async def test_a_process_with_one_shard_serves_only_its_guilds(
    fake: FakeDiscord, places: list[Place], bot_process: BotProcess
) -> None:
    medina, souk = places
    await start(fake, bot_process, {"MARRAKECH_SHARD_COUNT": "2", "MARRAKECH_SHARD_IDS": "1"})
    session = await fake.wait_until_connected(shards=[1])

    assert session.shard == (1, SHARDS)
    assert fake.shard_session(0) is None
    assert fake.gateway.identifies == 1
    assert guilds_sent(session) == ({str(souk.guild.id)}, {str(souk.guild.id)})
    await open_a_lobby_and_join(fake, souk)

    lost = await fake.slash(medina.host, medina.channel, "marrakech", "new", seats=2)

    assert lost.undelivered
    assert lost.dispatched_at is None
    assert ("INTERACTION_CREATE", medina.guild.id) in fake.gateway.undelivered
    assert all(
        json.loads(f.text)["d"].get("guild_id") != str(medina.guild.id) for f in session.frames
    )
    assert fake.messages(medina.channel) == []
    assert fake.unhandled_requests == []


@pytest.mark.parametrize(
    "shards",
    [{"MARRAKECH_SHARD_COUNT": "2"}, {}],
    ids=["count-set", "discord-recommends"],
)
async def test_a_process_with_every_shard_serves_every_guild(
    fake: FakeDiscord, places: list[Place], bot_process: BotProcess, shards: dict[str, str]
) -> None:
    await start(fake, bot_process, shards)
    await fake.wait_until_connected(shards=range(SHARDS))

    for shard_id, place in enumerate(places):
        session = fake.shard_session(shard_id)
        assert session is not None
        assert session.shard == (shard_id, SHARDS)
        assert guilds_sent(session) == ({str(place.guild.id)}, {str(place.guild.id)})
    for place in places:
        await open_a_lobby_and_join(fake, place)
    assert fake.gateway.undelivered == []
    assert fake.gateway.rejected == []
    await bot_process.wait_for_log(r"shard 1 of 2 ready")


async def test_too_few_shards_are_refused_and_the_bot_says_why(
    fake: FakeDiscord, places: list[Place], bot_process: BotProcess
) -> None:
    bot_process.env.update({"MARRAKECH_SHARD_COUNT": "1"})
    await bot_process.start()

    line = await bot_process.wait_for_log(r"Discord refused shard", timeout=20)

    assert "4011" in line
    assert "MARRAKECH_SHARD_COUNT" in line
    assert await bot_process.wait_exit() == 2, "a bad setting: a supervisor must not restart it"
    assert set(fake.gateway.rejected) == {4011}  # discord.py may try once more first
    assert fake.session is None
