"""The fake's record of embeds linking to a file their message lacks (`attachment://NAME`,
fakecord/attachment_links.py), over plain HTTP: Discord takes such a message and shows it
without its picture, so every e2e test fails on one (tests/e2e/conftest.py). On an edit the
message's files are those it keeps plus those sent, as on Discord."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from tests.e2e.fakecord import FakeChannel, FakeDiscord
from tests.e2e.fakecord.interactions import APPLICATION_COMMAND

pytestmark = [pytest.mark.e2e, pytest.mark.missing_attachments]

PNG = b"\x89PNG\r\n\x1a\n" + bytes(32)


@pytest_asyncio.fixture
async def http(fake: FakeDiscord) -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(
        base_url=fake.world.base_url, headers={"Authorization": "Bot t"}
    ) as session:
        yield session


@pytest.fixture
def channel(fake: FakeDiscord) -> FakeChannel:
    return fake.add_text_channel(fake.add_guild("Souk"), "games")


def pictured(name: str, *, where: str = "image") -> dict[str, Any]:
    return {"title": "standings", where: {"url": f"attachment://{name}"}}


def form(payload: dict[str, Any], *names: str) -> aiohttp.FormData:
    """A multipart body: `payload` and one small PNG per name, as discord.py sends files."""
    data = aiohttp.FormData(quote_fields=False)
    described = [{"id": index, "filename": name} for index, name in enumerate(names)]
    data.add_field("payload_json", json.dumps({**payload, "attachments": described}))
    for index, name in enumerate(names):
        data.add_field(f"files[{index}]", PNG, filename=name, content_type="image/png")
    return data


async def sent(response: aiohttp.ClientResponse) -> dict[str, Any]:
    assert response.status == 200, await response.text()
    body: dict[str, Any] = await response.json()
    return body


def links(fake: FakeDiscord) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(link.write, link.url, link.files) for link in fake.missing_attachments]


async def test_a_create_naming_a_file_it_sends_is_fine_one_it_lacks_is_recorded(
    fake: FakeDiscord, channel: FakeChannel, http: aiohttp.ClientSession
) -> None:
    path = f"/api/v10/channels/{channel.id}/messages"
    async with http.post(path, data=form({"embeds": [pictured("a.png")]}, "a.png")) as response:
        await sent(response)
    assert fake.missing_attachments == []

    async with http.post(path, json={"embeds": [pictured("a.png")]}) as response:
        bare = await sent(response)
    thumbnail = {"embeds": [pictured("b.png", where="thumbnail")]}
    async with http.post(path, data=form(thumbnail, "a.png")) as response:
        await sent(response)

    assert links(fake) == [
        ("create", "attachment://a.png", ()),
        ("create", "attachment://b.png", ("a.png",)),
    ]
    (first, _) = fake.missing_attachments
    assert first.message_id == int(bare["id"])
    assert first.where == "embeds.0.image.url"
    assert "names no attachment" in first.describe()


async def test_a_file_keeps_the_name_discord_gives_it_which_a_link_must_name(
    fake: FakeDiscord, channel: FakeChannel, http: aiohttp.ClientSession
) -> None:
    """Discord keeps an uploaded file's name in ASCII letters, digits, `_`, `.` and `-` (a
    space becomes `_`, other characters go, and so does a leading `_`): an embed linking to
    the name as it was sent shows no picture, and the fake records the link."""
    path = f"/api/v10/channels/{channel.id}/messages"
    renamed = []
    for name in ("hello (world).png", "_board.png", "r\u00e9cord 2.png", "marrakech-7.png"):
        async with http.post(path, data=form({"embeds": [pictured(name)]}, name)) as response:
            renamed.append((await sent(response))["attachments"][0]["filename"])
    assert renamed == ["hello_world.png", "board.png", "record_2.png", "marrakech-7.png"]
    assert links(fake) == [
        ("create", "attachment://hello (world).png", ("hello_world.png",)),
        ("create", "attachment://_board.png", ("board.png",)),
        ("create", "attachment://r\u00e9cord 2.png", ("record_2.png",)),
    ]

    async with http.post(path, data=form({"embeds": [pictured("a_b.png")]}, "a b.png")) as response:
        await sent(response)
    assert len(fake.missing_attachments) == 3, "a link to the name as kept finds its file"


async def test_an_edit_counts_the_files_it_keeps_and_those_it_sends(
    fake: FakeDiscord, channel: FakeChannel, http: aiohttp.ClientSession
) -> None:
    path = f"/api/v10/channels/{channel.id}/messages"
    async with http.post(path, data=form({"content": "signed up"}, "a.png")) as response:
        message = await sent(response)
    edit = f"{path}/{message['id']}"
    kept = message["attachments"][0]["id"]

    async with http.patch(edit, json={"embeds": [pictured("a.png")]}) as response:
        await sent(response)  # no word of attachments: all are kept
    replaced = {
        "embeds": [pictured("c.png")],
        "attachments": [{"id": kept}, {"id": 0, "filename": "c.png"}],
    }
    data = aiohttp.FormData(quote_fields=False)
    data.add_field("payload_json", json.dumps(replaced))
    data.add_field("files[0]", PNG, filename="c.png", content_type="image/png")
    async with http.patch(edit, data=data) as response:
        await sent(response)  # one kept, one sent: the embed names the one sent
    assert fake.missing_attachments == []

    async with http.patch(edit, json={"attachments": []}) as response:
        await sent(response)  # the embed stays, its file goes
    async with http.patch(edit, json={"embeds": [pictured("a.png")]}) as response:
        await sent(response)

    assert links(fake) == [
        ("edit", "attachment://c.png", ()),
        ("edit", "attachment://a.png", ()),
    ]


async def test_an_interaction_s_answer_is_checked_too(
    fake: FakeDiscord, channel: FakeChannel, http: aiohttp.ClientSession
) -> None:
    user = fake.add_user("alice")
    assert channel.guild is not None
    fake.add_member(channel.guild, user)
    handle = fake.interaction_from_payload(APPLICATION_COMMAND, user, channel, {"name": "x"})
    fake.world.register_interaction(handle)
    callback = f"/api/v10/interactions/{handle.id}/{handle.token}/callback"
    answer = {"type": 4, "data": {"embeds": [pictured("chart.png")]}}

    async with http.post(callback, json=answer) as response:
        assert response.status == 204, await response.text()

    assert links(fake) == [("create", "attachment://chart.png", ())]


async def test_an_author_or_footer_icon_naming_a_file_it_lacks_is_recorded(
    fake: FakeDiscord, channel: FakeChannel, http: aiohttp.ClientSession
) -> None:
    path = f"/api/v10/channels/{channel.id}/messages"
    embed = {
        **pictured("board.png"),
        "author": {"name": "Souk", "icon_url": "attachment://crest.png"},
        "footer": {"text": "round 2", "icon_url": "attachment://dice.png"},
    }
    async with http.post(path, data=form({"embeds": [embed]}, "board.png")) as response:
        await sent(response)

    assert [(link.where, link.url) for link in fake.missing_attachments] == [
        ("embeds.0.author.icon_url", "attachment://crest.png"),
        ("embeds.0.footer.icon_url", "attachment://dice.png"),
    ]
