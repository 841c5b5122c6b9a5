"""The fake's threads, over plain HTTP and through discord.py's own gateway code: made in a
channel or from a message, their permissions, members and Discord's own notices about them.
The tournament tests (test_tournaments.py) make threads through the bot."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeGuild, FakeUser, permissions
from tests.e2e.fakecord.model import PRIVATE_THREAD, PUBLIC_THREAD, RECIPIENT_ADD, THREAD_CREATED
from tests.e2e.fakecord.threads import HAS_THREAD, is_system

pytestmark = pytest.mark.e2e


@pytest_asyncio.fixture
async def http(fake: FakeDiscord) -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(
        base_url=fake.world.base_url, headers={"Authorization": "Bot t"}
    ) as session:
        yield session


@pytest.fixture
def world(fake: FakeDiscord) -> tuple[FakeGuild, FakeChannel, FakeUser]:
    guild = fake.add_guild("Souk")
    channel = fake.add_text_channel(guild, "tournament")
    alice = fake.add_user("alice")
    fake.add_member(guild, alice)
    return guild, channel, alice


async def answer(response: aiohttp.ClientResponse) -> tuple[int, Any]:
    return response.status, await response.json() if response.status != 204 else None


@pytest.mark.invalid_requests(403)  # the fake refusing what Discord refuses
async def test_a_thread_without_a_type_is_private_like_discord_makes_it(
    fake: FakeDiscord, world: tuple[FakeGuild, FakeChannel, FakeUser], http: aiohttp.ClientSession
) -> None:
    _, channel, _ = world
    path = f"/api/v10/channels/{channel.id}/threads"
    status, body = await answer(await http.post(path, json={"name": "no type"}))
    assert (status, body["code"]) == (403, 50013), "the bot may make public threads only"
    assert body["fakecord_missing"] == ["Create Private Threads"]

    fake.set_overwrite(channel, fake.bot_user, allow=permissions.CREATE_PRIVATE_THREADS)
    status, body = await answer(await http.post(path, json={"name": "no type"}))
    assert (status, body["type"]) == (200, PRIVATE_THREAD)


@pytest.mark.invalid_requests(403)  # the fake refusing what Discord refuses
@pytest.mark.refused_requests(50035, 50024)
async def test_a_public_thread_in_a_channel_and_discord_s_notice_about_it(
    fake: FakeDiscord, world: tuple[FakeGuild, FakeChannel, FakeUser], http: aiohttp.ClientSession
) -> None:
    guild, channel, _ = world
    path = f"/api/v10/channels/{channel.id}/threads"
    body = {"name": "Round 1 · Table 1", "type": 11, "auto_archive_duration": 10080}
    status, thread = await answer(await http.post(path, json=body))
    assert status == 200
    assert (thread["type"], thread["parent_id"], thread["name"]) == (
        PUBLIC_THREAD,
        str(channel.id),
        "Round 1 · Table 1",
    )
    assert thread["thread_metadata"]["auto_archive_duration"] == 10080
    assert thread["member"]["user_id"] == str(fake.bot_user.id), "its maker is a member"
    (made,) = fake.threads(channel)
    assert made.id == int(thread["id"])
    (notice,) = fake.messages(channel)
    assert notice.type == THREAD_CREATED
    assert is_system(notice)
    assert notice.content == "Round 1 · Table 1"
    assert notice.message_reference == {"channel_id": thread["id"], "guild_id": str(guild.id)}
    assert notice.pinged_user_ids == frozenset()

    status, body = await answer(
        await http.post(f"/api/v10/channels/{made.id}/threads", json={"name": "x", "type": 11})
    )
    assert (status, body["code"]) == (400, 50024), "no thread in a thread"
    for bad in (
        {"name": "", "type": 11},
        {"name": "x", "type": 0},
        {"name": "x", "type": 11, "auto_archive_duration": 5},
    ):
        status, body = await answer(await http.post(path, json=bad))
        assert (status, body["code"]) == (400, 50035)

    fake.deny_bot(channel, permissions.CREATE_PUBLIC_THREADS)
    status, body = await answer(await http.post(path, json={"name": "denied", "type": 11}))
    assert (status, body["fakecord_missing"]) == (403, ["Create Public Threads"])
    assert len(fake.threads(channel)) == 1


@pytest.mark.refused_requests(50035)
async def test_a_thread_name_over_100_characters_is_refused_in_a_channel_and_from_a_message(
    fake: FakeDiscord, world: tuple[FakeGuild, FakeChannel, FakeUser], http: aiohttp.ClientSession
) -> None:
    """Discord takes thread names of 1 to 100 characters: 101 get 400 / 50035 whether the thread
    is made in a channel or from a message, and nothing is made; 100 are taken."""
    _, channel, _ = world
    path = f"/api/v10/channels/{channel.id}/threads"
    messages = f"/api/v10/channels/{channel.id}/messages"
    status, message = await answer(await http.post(messages, json={"content": "Table 1"}))
    from_message = f"{messages}/{message['id']}/threads"
    refused = []
    for where, body in (
        (path, {"name": "n" * 101, "type": 11}),
        (from_message, {"name": "n" * 101}),
    ):
        status, answered = await answer(await http.post(where, json=body))
        refused.append((status, answered.get("code")))
    assert refused == [(400, 50035), (400, 50035)]
    assert fake.threads(channel) == []
    status, _ = await answer(await http.post(path, json={"name": "n" * 100, "type": 11}))
    assert status == 200
    assert [thread.name for thread in fake.threads(channel)] == ["n" * 100]


@pytest.mark.invalid_requests(403)  # the fake refusing what Discord refuses
@pytest.mark.refused_requests(160004)
async def test_a_thread_from_a_message_takes_its_id_once(
    fake: FakeDiscord, world: tuple[FakeGuild, FakeChannel, FakeUser], http: aiohttp.ClientSession
) -> None:
    _, channel, _ = world
    messages = f"/api/v10/channels/{channel.id}/messages"
    status, message = await answer(await http.post(messages, json={"content": "Table 1"}))
    path = f"{messages}/{message['id']}/threads"
    fake.deny_bot(channel, permissions.CREATE_PUBLIC_THREADS)
    status, body = await answer(await http.post(path, json={"name": "Table 1"}))
    assert (status, body.get("fakecord_missing")) == (403, ["Create Public Threads"])
    assert fake.threads(channel) == []
    fake.allow_bot(channel)
    status, thread = await answer(await http.post(path, json={"name": "Table 1"}))
    assert (status, thread["id"], thread["type"]) == (200, message["id"], PUBLIC_THREAD)
    starter = fake.world.messages[int(message["id"])]
    assert starter.flags & HAS_THREAD
    assert starter.to_payload()["thread"]["id"] == message["id"]
    assert [m.id for m in fake.messages(channel)] == [starter.id], "no notice for this one"
    status, body = await answer(await http.post(path, json={"name": "again"}))
    assert (status, body["code"]) == (400, 160004)


@pytest.mark.invalid_requests(403)  # the fake refusing what Discord refuses
async def test_members_sending_and_archiving(
    fake: FakeDiscord, world: tuple[FakeGuild, FakeChannel, FakeUser], http: aiohttp.ClientSession
) -> None:
    guild, channel, alice = world
    bob = fake.add_user("bob")
    fake.add_member(guild, bob)
    thread = fake.add_thread(channel, "side")
    messages = f"/api/v10/channels/{thread.id}/messages"
    members = f"/api/v10/channels/{thread.id}/thread-members"

    status, _ = await answer(await http.post(messages, json={"content": f"hi {alice.mention}"}))
    assert status == 200
    assert alice.id in thread.members, "a mention makes a member"
    assert [m.type for m in fake.messages(thread)] == [0], "without a notice"

    assert (await http.put(f"{members}/{bob.id}")).status == 204
    assert (await http.put(f"{members}/{bob.id}")).status == 204
    added = [m for m in fake.messages(thread) if m.type == RECIPIENT_ADD]
    assert len(added) == 1, "added once, told once"
    assert [user.id for user in added[0].mentions] == [bob.id]
    assert added[0].pinged_user_ids == frozenset({bob.id})
    status, listed = await answer(await http.get(members))
    assert sorted(int(m["user_id"]) for m in listed) == sorted({fake.bot_user.id, alice.id, bob.id})

    status, active = await answer(await http.get(f"/api/v10/guilds/{guild.id}/threads/active"))
    assert [t["id"] for t in active["threads"]] == [str(thread.id)]
    fake.archive(thread)
    status, active = await answer(await http.get(f"/api/v10/guilds/{guild.id}/threads/active"))
    assert active["threads"] == []
    assert (await http.put(f"{members}/{bob.id}")).status == 403, "no adding to an archived one"
    assert (await http.post(messages, json={"content": "back"})).status == 200
    assert not thread.archived, "a message brings an archived thread back"

    fake.deny_bot(channel, permissions.SEND_MESSAGES_IN_THREADS)
    status, body = await answer(await http.post(messages, json={"content": "denied"}))
    assert (status, body["fakecord_missing"]) == (403, ["Send Messages in Threads"])
    carol = fake.add_user("carol")
    fake.add_member(guild, carol)
    status, body = await answer(await http.put(f"{members}/{carol.id}"))
    assert (status, body and body["fakecord_missing"]) == (403, ["Send Messages in Threads"])
    assert carol.id not in thread.members
    channel_post = f"/api/v10/channels/{channel.id}/messages"
    assert (await http.post(channel_post, json={"content": "parent"})).status == 200

    active_path = f"/api/v10/guilds/{guild.id}/threads/active"
    status, active = await answer(await http.get(active_path))
    assert [t["id"] for t in active["threads"]] == [str(thread.id)]
    fake.deny_bot(channel, permissions.VIEW_CHANNEL)
    status, active = await answer(await http.get(active_path))
    assert active["threads"] == [], "a thread the bot cannot see is not listed"
