"""The harness itself: a real discord.py bot subprocess (fakecord/sample_bot.py) against fakecord.

It logs in, syncs commands, answers slash commands and clicks, is rate limited, hits server
errors and missing permissions, survives a gateway drop with RESUME and a SIGKILL + restart.
The last tests check the fake's own Discord rules over plain HTTP, without discord.py.
"""

from __future__ import annotations

import asyncio
import json
import sys
import zlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from tests.e2e.fake_checks import check_refused_requests
from tests.e2e.fakecord import (
    ErrorResponse,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeUser,
    InteractionInputError,
    NoGatewaySessionError,
    permissions,
)
from tests.e2e.fakecord.interactions import APPLICATION_COMMAND
from tests.e2e.fakecord.model import FakeMessage
from tests.e2e.fakecord.process import BotExitedError, BotProcess

pytestmark = pytest.mark.e2e

SAMPLE_BOT = Path(__file__).parent / "fakecord" / "sample_bot.py"
CHANNEL_MESSAGES = "/channels/{channel_id}/messages"


@dataclass
class Scene:
    guild: FakeGuild
    channel: FakeChannel
    alice: FakeUser
    bob: FakeUser


@pytest.fixture
def bot_command() -> Sequence[str]:
    return [sys.executable, str(SAMPLE_BOT)]


@pytest.fixture
def bot_ready_commands() -> Sequence[str]:
    return ("sample", "sample-mod")


@pytest.fixture
def scene(fake: FakeDiscord) -> Scene:
    guild = fake.add_guild("Souk", preferred_locale="fr")
    channel = fake.add_text_channel(guild, "games")
    alice = fake.add_user("alice", locale="de")
    bob = fake.add_user("bob")
    fake.add_member(guild, alice)
    fake.add_member(guild, bob, permissions=permissions.MANAGE_CHANNELS)
    return Scene(guild, channel, alice, bob)


@pytest_asyncio.fixture
async def sample(fake: FakeDiscord, scene: Scene, bot: BotProcess) -> BotProcess:
    return bot


async def test_bot_logs_in_syncs_commands_and_answers_a_slash_command(
    fake: FakeDiscord, scene: Scene, sample: BotProcess
) -> None:
    command = fake.world.commands.find(scene.guild.id, "sample")
    assert command is not None
    hello = next(o for o in command["options"] if o["name"] == "hello")
    assert [(o["name"], o["type"], o.get("required", False)) for o in hello["options"]] == [
        ("name", 3, True),
        ("times", 4, False),
        ("who", 6, False),
    ]

    handle = await fake.slash(
        scene.alice, scene.channel, "sample", "hello", name="you", times=2, who=scene.bob
    )
    response = await handle.response()
    message = await handle.answer()

    assert response.response_type == 4
    assert message.content == f"hello hello you {scene.bob.mention}"
    assert message.author.id == fake.bot_user.id
    assert [b.custom_id for b in message.buttons()] == ["sample:count:0"]
    assert fake.pings(scene.channel) == [(message, frozenset({scene.bob.id}))]
    assert handle.latency is not None
    assert handle.latency >= 0
    assert fake.latency().count == 1
    assert fake.unhandled_requests == []
    assert fake.session is not None
    assert fake.session.privileged_intents == 0
    await sample.wait_for_log(r"READY as Marrakech")


async def test_a_click_on_a_dynamic_button_updates_its_message(
    fake: FakeDiscord, scene: Scene, sample: BotProcess
) -> None:
    hello = await fake.slash(scene.alice, scene.channel, "sample", "hello", name="x")
    message = await hello.answer()

    click = await fake.click(scene.bob, message, "sample:count:0")
    updated = await click.answer()

    assert (await click.response()).response_type == 7
    assert updated.id == message.id
    assert updated.content == "count is 1"
    assert fake.latest_with_components(scene.channel).button(label="Count 1").custom_id == (
        "sample:count:1"
    )
    with pytest.raises(InteractionInputError):
        await fake.click(scene.bob, message, "sample:count:0")


async def test_ephemeral_deferred_follow_up_with_file_and_edited_original(
    fake: FakeDiscord, scene: Scene, sample: BotProcess, http: aiohttp.ClientSession
) -> None:
    secret = await fake.slash(scene.alice, scene.channel, "sample", "secret")
    hidden = await secret.answer()
    assert hidden.ephemeral
    assert hidden.visible_to == scene.alice.id
    assert hidden.content == "only you can see this (de)"
    assert hidden.file("secret.txt") == b"psst"
    assert hidden not in fake.messages(scene.channel)
    base = f"/api/v10/channels/{scene.channel.id}/messages"
    async with http.get(f"{base}/{hidden.id}") as response:
        fetched = (response.status, (await response.json()).get("code"))
    async with http.get(base) as response:
        listed = await response.json()
    assert fetched == (404, 10008), "the channel's routes do not see an ephemeral message"
    assert listed == []

    report = await fake.slash(scene.alice, scene.channel, "sample", "report")
    await report.wait_for(lambda h: sum(e.kind == "edit_original" for e in h.events) == 2)

    assert (await report.response()).response_type == 5
    assert [e.kind for e in report.events] == [
        "callback",
        "edit_original",
        "followup",
        "followup",
        "delete",
        "edit_followup",
        "edit_original",
    ]
    attached, temporary = await report.followups(2)
    assert attached.file("report.txt") == b"report for alice\n"
    assert temporary.deleted
    original = report.original_message()
    assert original is not None
    assert not original.loading
    assert original.content == "report ready (was: building report...)"
    assert [m.content for m in fake.messages(scene.channel)] == [
        original.content,
        "here is the file (checked)",
    ]


async def test_rate_limits_and_bad_gateways_are_retried_and_sent_once(
    fake: FakeDiscord, scene: Scene, sample: BotProcess
) -> None:
    limited = fake.faults.rate_limit("POST", CHANNEL_MESSAGES, retry_after=0.05)
    handle = await fake.slash(scene.alice, scene.channel, "sample", "post", text="after 429")
    first = await handle.answer()
    bad_gateway = fake.faults.server_error("POST", CHANNEL_MESSAGES, status=502)
    handle = await fake.slash(scene.alice, scene.channel, "sample", "post", text="after 502")
    second = await handle.answer()

    assert (limited.hits, bad_gateway.hits) == (1, 1)
    posted = fake.messages(scene.channel)
    assert [m.content for m in posted] == ["after 429", "after 502"]
    assert [first.content, second.content] == [f"posted {m.id}" for m in posted]
    statuses = [r.status for r in fake.requests_to("POST", f"/channels/{scene.channel.id}/")]
    assert statuses == [429, 200, 502, 200]


@pytest.mark.invalid_requests(403)
async def test_missing_permissions_come_back_as_403_the_bot_can_report(
    fake: FakeDiscord, scene: Scene, sample: BotProcess
) -> None:
    fake.deny_bot(scene.channel, permissions.SEND_MESSAGES)
    denied = await fake.slash(scene.alice, scene.channel, "sample", "post", text="nope")
    assert (await denied.answer()).content == "cannot post: Missing Permissions (50013)"
    assert int(denied.payload["app_permissions"]) & permissions.SEND_MESSAGES == 0

    fake.allow_bot(scene.channel)
    fake.faults.forbidden("POST", CHANNEL_MESSAGES, code=50001, message="Missing Access")
    injected = await fake.slash(scene.alice, scene.channel, "sample", "post", text="nope again")
    assert (await injected.answer()).content == "cannot post: Missing Access (50001)"
    assert fake.messages(scene.channel, include_ephemeral=False) == []


async def test_gateway_drops_resume_the_session_and_replay_the_missed_interaction(
    fake: FakeDiscord, scene: Scene, sample: BotProcess
) -> None:
    session = fake.session
    assert session is not None

    answers = []
    for resumes, close_code in enumerate([4000, None], start=1):
        await fake.drop_gateway(code=close_code)
        missed = await fake.slash(scene.alice, scene.channel, "sample", "hello", name="later")
        await fake.wait_for_resume(resumes=resumes)
        answers.append((await missed.answer(timeout=10)).content)
    replayed_before_reconnect = session.replayed
    fake.gateway.send_reconnect()
    await fake.wait_for_resume(resumes=3)
    live = await fake.slash(scene.alice, scene.channel, "sample", "hello", name="again")
    answers.append((await live.answer()).content)

    assert fake.session is session
    assert fake.gateway.identifies == 1
    assert replayed_before_reconnect >= 2
    assert answers == ["hello later", "hello later", "hello again"]
    await sample.wait_for_log("RESUMED")


async def test_a_killed_bot_restarts_and_old_buttons_still_work(
    fake: FakeDiscord, scene: Scene, sample: BotProcess
) -> None:
    hello = await fake.slash(scene.alice, scene.channel, "sample", "hello", name="before")
    message = await hello.answer()

    assert await sample.kill() == -9
    await sample.restart(fake, commands=("sample",), sync=False)
    click = await fake.click(scene.alice, message, "sample:count:0")

    assert (await click.answer()).content == "count is 1"
    assert fake.gateway.identifies == 2
    assert sample.runs == 2
    transcript = fake.transcript(scene.channel)
    assert f"[{message.id}] edited x1" in transcript
    assert "button: 'Count 1' -> sample:count:1" in transcript


# -- the fake's own Discord rules, over plain HTTP


@pytest_asyncio.fixture
async def http(fake: FakeDiscord) -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(
        base_url=fake.world.base_url, headers={"Authorization": "Bot t"}
    ) as session:
        yield session


@pytest.mark.refused_requests(50035, 50006)
async def test_messages_over_discord_limits_are_refused_like_discord(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    path = f"/api/v10/channels/{scene.channel.id}/messages"
    row = {"type": 1, "components": [{"type": 2, "style": 1, "label": "a", "custom_id": "a"}]}
    cases = {
        "too long": {"content": "x" * 2001},
        "six rows": {"content": "x", "components": [row] * 6},
        "duplicate ids": {"content": "x", "components": [row, row]},
        "empty": {},
    }
    codes = {}
    for name, body in cases.items():
        async with http.post(path, json=body) as response:
            codes[name] = (response.status, (await response.json())["code"])

    assert codes == {
        "too long": (400, 50035),
        "six rows": (400, 50035),
        "duplicate ids": (400, 50035),
        "empty": (400, 50006),
    }
    assert fake.messages(scene.channel) == []

    layout = {"flags": 1 << 15, "components": [{"type": 10, "content": "a text display"}]}
    async with http.post(path, json=layout) as response:
        v2 = await response.json()
    async with http.patch(f"{path}/{v2['id']}", json={"content": "legacy"}) as response:
        assert (response.status, (await response.json())["code"]) == (400, 50035)


async def test_mentions_follow_allowed_mentions(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    path = f"/api/v10/channels/{scene.channel.id}/messages"
    content = f"{scene.alice.mention} {scene.bob.mention}"
    bodies = [
        {"content": content},
        {"content": content, "allowed_mentions": {"parse": [], "users": [str(scene.bob.id)]}},
        {"content": content, "allowed_mentions": {"parse": []}},
    ]
    for body in bodies:
        async with http.post(path, json=body) as response:
            assert response.status == 200
    pinged = [m.pinged_user_ids for m in fake.messages(scene.channel)]
    assert pinged == [
        frozenset({scene.alice.id, scene.bob.id}),
        frozenset({scene.bob.id}),
        frozenset(),
    ]


async def test_a_reply_pings_the_replied_to_author_unless_allowed_mentions_leave_out_replied_user(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """A reply pings the author of the message it answers when it sends no `allowed_mentions`,
    or `replied_user: true`; `allowed_mentions` without `replied_user` mean false, as on
    Discord. The fake makes no messages of users, so alice's is put in the channel by hand."""
    hers = FakeMessage(
        id=fake.world.snowflakes.next(),
        channel_id=scene.channel.id,
        guild_id=scene.guild.id,
        author=scene.alice,
        content="my move?",
    )
    fake.world.messages[hers.id] = hers
    scene.channel.message_ids.append(hers.id)
    reply = {"content": "yes", "message_reference": {"message_id": str(hers.id)}}
    path = f"/api/v10/channels/{scene.channel.id}/messages"
    bodies = [
        reply,
        {**reply, "allowed_mentions": {"parse": []}},
        {**reply, "allowed_mentions": {"parse": [], "replied_user": True}},
    ]
    pinged = []
    for body in bodies:
        async with http.post(path, json=body) as response:
            assert response.status == 200
            sent = await response.json()
        pinged.append(fake.world.messages[int(sent["id"])].pinged_user_ids)
    assert pinged == [frozenset({scene.alice.id}), frozenset(), frozenset({scene.alice.id})]


def _form_errors(tree: dict[str, Any], where: str = "") -> set[tuple[str, str]]:
    """The (path, code) pairs of Discord's nested 50035 errors."""
    found = {(where, e["code"]) for e in tree.get("_errors", [])}
    for key, child in tree.items():
        if key != "_errors":
            found |= _form_errors(child, f"{where}.{key}" if where else key)
    return found


@pytest.mark.refused_requests(50035)
async def test_embeds_components_files_and_allowed_mentions_over_their_limits_get_50035(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    channels: list[FakeChannel] = []

    def fresh_path() -> str:
        """A channel per body: each gets its own bucket of 5 posts in 5 s, as on Discord."""
        channels.append(fake.add_text_channel(scene.guild, f"limits-{len(channels)}"))
        return f"/api/v10/channels/{channels[-1].id}/messages"

    def row(*children: dict[str, Any]) -> dict[str, Any]:
        return {"type": 1, "components": list(children)}

    def button(custom_id: str, label: str = "a") -> dict[str, Any]:
        return {"type": 2, "style": 1, "label": label, "custom_id": custom_id}

    select = {"type": 3, "custom_id": "pick"}
    options = [{"label": str(n), "value": str(n)} for n in range(26)]
    link = {"type": 2, "style": 5, "label": "a", "url": "https://x.test", "custom_id": "l"}
    field = {"name": "n", "value": "v"}
    texts = [{"type": 10, "content": str(n)} for n in range(41)]
    ids = [str(scene.alice.id + n) for n in range(101)]
    bodies: dict[str, dict[str, Any]] = {
        "11 embeds": {"embeds": [{"title": "t"}] * 11},
        "long title": {"embeds": [{"title": "t" * 257}]},
        "long description": {"embeds": [{"description": "d" * 4097}]},
        "long footer": {"embeds": [{"footer": {"text": "f" * 2049}}]},
        "long author": {"embeds": [{"author": {"name": "a" * 257}}]},
        "6001 in all": {"embeds": [{"description": "d" * 3001}, {"description": "d" * 3000}]},
        "26 fields": {"embeds": [{"fields": [field] * 26}]},
        "empty field": {"embeds": [{"fields": [{"name": "n", "value": ""}]}]},
        "empty field name": {"embeds": [{"fields": [{"name": "", "value": "v"}]}]},
        "long field": {"embeds": [{"fields": [{"name": "n", "value": "v" * 1025}]}]},
        "long field name": {"embeds": [{"fields": [{"name": "n" * 257, "value": "v"}]}]},
        "six rows": {"components": [row(button(str(n))) for n in range(6)]},
        "six buttons": {"components": [row(*(button(str(n)) for n in range(6)))]},
        "select and button": {"components": [row({**select, "options": options[:1]}, button("b"))]},
        "26 options": {"components": [row({**select, "options": options})]},
        "long label": {"components": [row(button("b", "l" * 81))]},
        "long custom id": {"components": [row(button("b" * 101))]},
        "link with id": {"components": [row(link)]},
        "no custom id": {"components": [row({"type": 2, "style": 1, "label": "a"})]},
        "41 in v2": {"flags": 1 << 15, "components": texts},
        "parse and ids": {
            "content": "x",
            "allowed_mentions": {"parse": ["users"], "users": [str(scene.alice.id)]},
        },
        "101 users to ping": {"content": "x", "allowed_mentions": {"users": ids[:101]}},
        "101 roles to ping": {"content": "x", "allowed_mentions": {"roles": ids[:101]}},
        "long nonce": {"content": "x", "nonce": "n" * 26},
    }
    refused: dict[str, tuple[int, set[tuple[str, str]]]] = {}
    for name, body in bodies.items():
        async with http.post(fresh_path(), json=body) as response:
            answer = await response.json()
            refused[name] = (response.status, _form_errors(answer.get("errors", {})))
    async with http.post(fresh_path(), data=_files_form([1] * 11)) as response:
        answer = await response.json()
        refused["11 files"] = (response.status, _form_errors(answer.get("errors", {})))

    too_long = "BASE_TYPE_MAX_LENGTH"
    inside = "components.0.components"
    assert refused == {
        "11 embeds": (400, {("embeds", too_long)}),
        "long title": (400, {("embeds.0.title", too_long)}),
        "long description": (400, {("embeds.0.description", too_long)}),
        "long footer": (400, {("embeds.0.footer.text", too_long)}),
        "long author": (400, {("embeds.0.author.name", too_long)}),
        "6001 in all": (400, {("embeds", "MAX_EMBED_SIZE_EXCEEDED")}),
        "26 fields": (400, {("embeds.0.fields", too_long)}),
        "empty field": (400, {("embeds.0.fields.0.value", "BASE_TYPE_REQUIRED")}),
        "empty field name": (400, {("embeds.0.fields.0.name", "BASE_TYPE_REQUIRED")}),
        "long field": (400, {("embeds.0.fields.0.value", too_long)}),
        "long field name": (400, {("embeds.0.fields.0.name", too_long)}),
        "six rows": (400, {("components", too_long)}),
        "six buttons": (400, {(inside, "BASE_TYPE_BAD_LENGTH")}),
        "select and button": (400, {(inside, "BASE_TYPE_BAD_LENGTH")}),
        "26 options": (400, {(f"{inside}.0.options", "BASE_TYPE_BAD_LENGTH")}),
        "long label": (400, {(f"{inside}.0.label", too_long)}),
        "long custom id": (400, {(f"{inside}.0.custom_id", too_long)}),
        "link with id": (400, {(f"{inside}.0", "BUTTON_COMPONENT_INVALID")}),
        "no custom id": (400, {(f"{inside}.0.custom_id", "BASE_TYPE_REQUIRED")}),
        "41 in v2": (400, {("components", too_long)}),
        "parse and ids": (
            400,
            {("allowed_mentions.users", "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE")},
        ),
        "101 users to ping": (400, {("allowed_mentions.users", too_long)}),
        "101 roles to ping": (400, {("allowed_mentions.roles", too_long)}),
        "long nonce": (400, {("nonce", too_long)}),
        "11 files": (400, {("files", too_long)}),
    }
    assert [m for channel in channels for m in fake.messages(channel)] == []


def _files_form(sizes: list[int]) -> aiohttp.FormData:
    """A multipart message body with one file of each size."""
    form = aiohttp.FormData(quote_fields=False)
    form.add_field("payload_json", json.dumps({"content": "files"}))
    for index, size in enumerate(sizes):
        form.add_field(f"files[{index}]", b"x" * size, filename=f"{index}.txt")
    return form


@pytest.mark.refused_requests(40005)
async def test_a_file_over_10_mib_gets_413_request_entity_too_large_and_one_of_10_mib_is_taken(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """Discord takes files of up to 10 MiB where a server has no boosts (the
    `attachment_size_limit` each interaction carries) and refuses a bigger one, in a post or an
    edit, with 413 and code 40005, Request entity too large, not with a form error."""
    path = f"/api/v10/channels/{scene.channel.id}/messages"
    limit = 10 * 1024 * 1024
    async with http.post(path, data=_files_form([1, limit + 1])) as response:
        refused = (response.status, await response.json())
    async with http.post(path, data=_files_form([limit])) as response:
        assert response.status == 200, await response.text()
        taken = await response.json()
    async with http.patch(f"{path}/{taken['id']}", data=_files_form([limit + 1])) as response:
        edit_refused = (response.status, await response.json())

    too_large = (413, {"message": "Request entity too large", "code": 40005})
    assert (refused, edit_refused) == (too_large, too_large)
    (posted,) = fake.messages(scene.channel)
    assert [a.size for a in posted.attachments] == [limit]


@pytest.mark.refused_requests(50035)
async def test_a_select_s_option_texts_over_100_characters_and_placeholder_over_150_get_50035(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """Discord takes a select option's label, value and description of up to 100 characters
    and a placeholder of up to 150: one more gets 400 / 50035 naming the field, and nothing
    is posted; at the caps the message is posted."""

    def select(option: dict[str, str], placeholder: str = "p") -> dict[str, Any]:
        menu = {"type": 3, "custom_id": "pick", "placeholder": placeholder, "options": [option]}
        return {"content": "x", "components": [{"type": 1, "components": [menu]}]}

    fine = {"label": "l" * 100, "value": "v" * 100, "description": "d" * 100}
    bodies = {
        "label": select({**fine, "label": "l" * 101}),
        "value": select({**fine, "value": "v" * 101}),
        "description": select({**fine, "description": "d" * 101}),
        "placeholder": select(fine, "p" * 151),
    }
    refused = {}
    for name, body in bodies.items():
        channel = fake.add_text_channel(scene.guild, f"select-{name}")
        async with http.post(f"/api/v10/channels/{channel.id}/messages", json=body) as response:
            answer = await response.json()
            refused[name] = (response.status, _form_errors(answer.get("errors", {})))
        assert fake.messages(channel) == []
    path = f"/api/v10/channels/{scene.channel.id}/messages"
    async with http.post(path, json=select(fine, "p" * 150)) as response:
        assert response.status == 200, await response.text()

    where = "components.0.components.0"
    too_long = "BASE_TYPE_MAX_LENGTH"
    assert refused == {
        "label": (400, {(f"{where}.options.0.label", too_long)}),
        "value": (400, {(f"{where}.options.0.value", too_long)}),
        "description": (400, {(f"{where}.options.0.description", too_long)}),
        "placeholder": (400, {(f"{where}.placeholder", too_long)}),
    }


async def test_a_message_at_every_cap_of_discord_is_posted(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """Discord's caps on a message are inclusive: 2000 characters of content, 10 embeds, 25
    fields in one, 5 rows of 5 buttons, labels of 80 and custom_ids of 100 characters, and 10
    files are posted in one message (one more of any is refused, above)."""
    buttons = [
        {"type": 2, "style": 1, "label": "l" * 80, "custom_id": f"{n:02d}" + "c" * 98}
        for n in range(25)
    ]
    fields = [{"name": "n", "value": "v"}] * 25
    body = {
        "content": "x" * 2000,
        "embeds": [{"title": "t", "fields": fields}] + [{"title": "t"}] * 9,
        "components": [{"type": 1, "components": buttons[n : n + 5]} for n in range(0, 25, 5)],
    }
    form = aiohttp.FormData(quote_fields=False)
    form.add_field("payload_json", json.dumps(body))
    for index in range(10):
        form.add_field(f"files[{index}]", b"x", filename=f"{index}.txt")
    path = f"/api/v10/channels/{scene.channel.id}/messages"
    async with http.post(path, data=form) as response:
        assert response.status == 200, await response.text()

    (posted,) = fake.messages(scene.channel)
    assert (len(posted.content), len(posted.embeds), len(posted.attachments)) == (2000, 10, 10)
    assert len(posted.buttons()) == 25


async def test_an_edit_neither_hides_a_message_nor_shows_an_ephemeral_one_to_everyone(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """Whether a message is ephemeral is fixed when it is sent: an edit's flags change only
    whether its embeds are suppressed, as on Discord, through the channel's routes or the
    interaction's webhook."""
    path = f"/api/v10/channels/{scene.channel.id}/messages"
    async with http.post(path, json={"content": "public"}) as response:
        public = await response.json()
    async with http.patch(f"{path}/{public['id']}", json={"flags": 64 | 4}) as response:
        assert response.status == 200, await response.text()
    handle = fake.interaction_from_payload(
        APPLICATION_COMMAND, scene.alice, scene.channel, {"name": "x"}
    )
    fake.world.register_interaction(handle)
    callback = f"/api/v10/interactions/{handle.id}/{handle.token}/callback"
    hidden = {"type": 4, "data": {"content": "hidden", "flags": 64}}
    async with http.post(callback, json=hidden) as response:
        assert response.status == 204, await response.text()
    original = f"/api/v10/webhooks/{fake.application_id}/{handle.token}/messages/@original"
    async with http.patch(original, json={"flags": 0}) as response:
        assert response.status == 200, await response.text()

    edited = fake.world.messages[int(public["id"])]
    assert (edited.ephemeral, edited.flags & 4) == (False, 4)
    reply = handle.original_message()
    assert reply is not None
    assert (reply.ephemeral, reply.visible_to) == (True, scene.alice.id)
    assert [m.content for m in fake.messages(scene.channel)] == ["public"]


async def test_a_nonce_of_25_characters_and_100_ids_to_ping_of_each_kind_are_taken(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """Discord's caps on a nonce and on `allowed_mentions` are inclusive: at the cap, the
    message is posted (one over is refused, above)."""
    path = f"/api/v10/channels/{scene.channel.id}/messages"
    ids = [str(scene.alice.id + n) for n in range(100)]
    body = {
        "content": "x",
        "nonce": "n" * 25,
        "allowed_mentions": {"users": ids, "roles": ids},
    }
    async with http.post(path, json=body) as response:
        assert response.status == 200, await response.text()
    (posted,) = fake.messages(scene.channel)
    assert posted.nonce == "n" * 25


@pytest.mark.refused_requests(50035)
async def test_every_embed_text_counts_toward_the_6000_characters_footer_and_author_too(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """Discord counts the titles, descriptions, field names and values, footer texts and author
    names of all a message's embeds toward 6000: a footer or an author's name left out would
    let a message the bot sends near the cap pass here and fail on Discord."""
    path = f"/api/v10/channels/{scene.channel.id}/messages"
    description = {"description": "d" * 4096}
    bodies: dict[str, dict[str, Any]] = {
        "footer": {"embeds": [{**description, "footer": {"text": "f" * 1905}}]},
        "author": {
            "embeds": [description, {"description": "d" * 1700, "author": {"name": "a" * 205}}]
        },
        "footer at 6000": {"embeds": [{**description, "footer": {"text": "f" * 1904}}]},
    }
    answers: dict[str, tuple[int, set[tuple[str, str]]]] = {}
    for name, body in bodies.items():
        async with http.post(path, json=body) as response:
            answer = await response.json()
            answers[name] = (response.status, _form_errors(answer.get("errors", {})))
    too_big = {("embeds", "MAX_EMBED_SIZE_EXCEEDED")}
    assert answers == {
        "footer": (400, too_big),
        "author": (400, too_big),
        "footer at 6000": (200, set()),
    }
    assert len(fake.messages(scene.channel)) == 1


@pytest.mark.refused_requests(50035)
async def test_embed_field_names_and_values_count_toward_the_6000_characters(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """A description of 4096 and fields of 1 + 1000 and 3 + 900 characters make 6000: taken;
    one character more in a field's value makes 6001: refused, as on Discord."""
    path = f"/api/v10/channels/{scene.channel.id}/messages"

    def embed(extra: int) -> dict[str, Any]:
        fields = [{"name": "n", "value": "v" * 1000}, {"name": "abc", "value": "w" * (900 + extra)}]
        return {"embeds": [{"description": "d" * 4096, "fields": fields}]}

    answers: dict[str, tuple[int, set[tuple[str, str]]]] = {}
    for name, body in {"6000": embed(0), "6001": embed(1)}.items():
        async with http.post(path, json=body) as response:
            answer = await response.json()
            answers[name] = (response.status, _form_errors(answer.get("errors", {})))
    assert answers == {
        "6000": (200, set()),
        "6001": (400, {("embeds", "MAX_EMBED_SIZE_EXCEEDED")}),
    }
    assert len(fake.messages(scene.channel)) == 1


@pytest.mark.refused_requests(50035, 50006)
async def test_an_interaction_s_reply_and_follow_ups_over_discord_limits_are_refused_too(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """Discord checks an interaction's reply (callback type 4) and its follow-ups as it checks
    a channel post: a reply of 2001 characters gets 400 / 50035 and acknowledges nothing;
    after a good reply, a follow-up of 11 embeds gets 50035 and an empty one 50006."""
    handle = fake.interaction_from_payload(
        APPLICATION_COMMAND, scene.alice, scene.channel, {"name": "x"}
    )
    fake.world.register_interaction(handle)
    callback = f"/api/v10/interactions/{handle.id}/{handle.token}/callback"
    too_long = {"type": 4, "data": {"content": "x" * 2001}}
    async with http.post(callback, json=too_long) as response:
        code = (await response.json())["code"] if response.status != 204 else None
        assert (response.status, code) == (400, 50035), "the reply was taken"
    assert (handle.acknowledged, handle.refusals) == (False, [50035])
    async with http.post(callback, json={"type": 4, "data": {"content": "ok"}}) as response:
        assert response.status == 204

    webhook = f"/api/v10/webhooks/{fake.application_id}/{handle.token}"
    refused = []
    for body in ({"embeds": [{"title": "t"}] * 11}, {}):
        async with http.post(webhook, json=body) as response:
            code = (await response.json())["code"] if response.status != 204 else None
            refused.append((response.status, code))
    assert refused == [(400, 50035), (400, 50006)]
    assert [m.content for m in fake.messages(scene.channel, include_ephemeral=True)] == ["ok"]


@pytest.mark.refused_requests(50035)
async def test_a_deferred_answer_s_first_follow_up_over_discord_limits_is_refused_still_loading(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """After a type 5 deferral, the first follow-up is the answer itself (it fills in the
    loading message), and Discord checks it like any message: 2001 characters, or an edit of
    `@original` with 11 embeds, get 400 / 50035, and the answer is still loading; a good
    follow-up then fills it in."""
    handle = fake.interaction_from_payload(
        APPLICATION_COMMAND, scene.alice, scene.channel, {"name": "x"}
    )
    fake.world.register_interaction(handle)
    callback = f"/api/v10/interactions/{handle.id}/{handle.token}/callback"
    async with http.post(callback, json={"type": 5}) as response:
        assert response.status == 204
    webhook = f"/api/v10/webhooks/{fake.application_id}/{handle.token}"
    refused = []
    for method, path, body in (
        ("POST", webhook, {"content": "x" * 2001}),
        ("PATCH", f"{webhook}/messages/@original", {"embeds": [{"title": "t"}] * 11}),
    ):
        async with http.request(method, path, json=body) as response:
            code = (await response.json())["code"] if response.status != 204 else None
            refused.append((response.status, code))
    assert refused == [(400, 50035), (400, 50035)], "an answer Discord refuses was taken"
    original = handle.original_message()
    assert original is not None
    assert (original.loading, original.content) == (True, "")

    async with http.post(webhook, json={"content": "done"}) as response:
        assert response.status == 204
    assert (original.loading, original.content) == (False, "done")


@pytest.mark.refused_requests(50035)
async def test_command_registrations_discord_refuses_get_50035_down_to_a_subcommand_s_options(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    """Names (1 to 32 characters, lower case), descriptions (1 to 100 characters), their
    translations, choices, option order and counts are checked at every level: in a subcommand,
    and in a subcommand of a group, where every option of the bot's commands lies. Unchecked
    there, a tree Discord refuses would sync here."""
    fake.rest.limits.enabled = False  # a sync is limited to 2 a minute; this is about the checks
    path = f"/api/v10/applications/{fake.application_id}/commands"
    optional = {"type": 4, "name": "seats", "description": "seats"}
    required = {"type": 3, "name": "name", "description": "name", "required": True}

    def command(*options: dict[str, Any], group: bool = False) -> list[dict[str, Any]]:
        """`/game new` with `options` (or `/game mod new`: in a group)."""
        sub = {"type": 1, "name": "new", "description": "open", "options": list(options)}
        if group:
            sub = {"type": 2, "name": "mod", "description": "moderate", "options": [sub]}
        return [{"name": "game", "description": "play", "type": 1, "options": [sub]}]

    inside = "0.options.0.options"
    longest = {**optional, "name": "s" * 32, "name_localizations": {"de": "p" * 32}}
    bodies = {
        "required after optional": command(optional, required),
        "long description": command({**optional, "description": "d" * 101}),
        "no description": command({**optional, "description": ""}),
        "upper-case name": command({**optional, "name": "Seats"}),
        "26 options": command(*({**optional, "name": f"o{n}"} for n in range(26))),
        "upper-case translated name": command(
            {**optional, "name_localizations": {"fr": "places", "uk": "Місця"}}
        ),
        "long translated description": command(
            {**optional, "description_localizations": {"fr": "d" * 101}}
        ),
        "upper-case translated command name": [
            {**command(required)[0], "name_localizations": {"fr": "Jeu"}}
        ],
        "long choice": command({**optional, "choices": [{"name": "c" * 101, "value": 1}]}),
        "empty translated choice": command(
            {**optional, "choices": [{"name": "two", "value": 2, "name_localizations": {"fr": ""}}]}
        ),
        "in a group": command(optional, required, group=True),
        "33-character command name": [{**command(required)[0], "name": "g" * 33}],
        "33-character name": command({**optional, "name": "s" * 33}),
        "33-character translated name": command(
            {**optional, "name_localizations": {"de": "p" * 33}}
        ),
        "32 characters": [{**command(longest)[0], "name": "g" * 32}],
        "good": command(required, optional),
    }
    answers: dict[str, tuple[int, set[tuple[str, str]]]] = {}
    for name, body in bodies.items():
        async with http.put(path, json=body) as response:
            answer = await response.json()
            errors = answer.get("errors", {}) if isinstance(answer, dict) else {}
            answers[name] = (response.status, _form_errors(errors))
    assert answers == {
        "required after optional": (
            400,
            {(f"{inside}.1", "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID")},
        ),
        "long description": (400, {(f"{inside}.0.description", "BASE_TYPE_BAD_LENGTH")}),
        "no description": (400, {(f"{inside}.0.description", "BASE_TYPE_BAD_LENGTH")}),
        "upper-case name": (400, {(f"{inside}.0.name", "APPLICATION_COMMAND_INVALID_NAME")}),
        "26 options": (400, {(inside, "BASE_TYPE_MAX_LENGTH")}),
        "upper-case translated name": (
            400,
            {(f"{inside}.0.name_localizations.uk", "APPLICATION_COMMAND_INVALID_NAME")},
        ),
        "long translated description": (
            400,
            {(f"{inside}.0.description_localizations.fr", "BASE_TYPE_BAD_LENGTH")},
        ),
        "upper-case translated command name": (
            400,
            {("0.name_localizations", "APPLICATION_COMMAND_INVALID_NAME")},
        ),
        "long choice": (400, {(f"{inside}.0.choices.0.name", "BASE_TYPE_BAD_LENGTH")}),
        "empty translated choice": (
            400,
            {(f"{inside}.0.choices.0.name_localizations.fr", "BASE_TYPE_BAD_LENGTH")},
        ),
        "in a group": (
            400,
            {(f"{inside}.0.options.1", "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID")},
        ),
        "33-character command name": (400, {("0.name", "APPLICATION_COMMAND_INVALID_NAME")}),
        "33-character name": (400, {(f"{inside}.0.name", "APPLICATION_COMMAND_INVALID_NAME")}),
        "33-character translated name": (
            400,
            {(f"{inside}.0.name_localizations.de", "APPLICATION_COMMAND_INVALID_NAME")},
        ),
        "32 characters": (200, set()),
        "good": (200, set()),
    }
    assert fake.world.commands.find(None, "game") is not None, "the good tree is registered"


async def test_everyone_pings_only_with_mention_everyone_and_allowed_mentions(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    path = f"/api/v10/channels/{scene.channel.id}/messages"
    body = {"content": "@everyone the final starts", "allowed_mentions": {"parse": ["everyone"]}}
    refused = {"content": "@here the final starts", "allowed_mentions": {"parse": []}}
    flags = []
    async with http.post(path, json=body) as response:
        flags.append((await response.json())["mention_everyone"])
    fake.set_overwrite(scene.channel, fake.bot_user, allow=permissions.MENTION_EVERYONE)
    for allowed in (body, refused):
        async with http.post(path, json=allowed) as response:
            flags.append((await response.json())["mention_everyone"])
    assert flags == [False, True, False]
    assert [m.mention_everyone for m in fake.messages(scene.channel)] == flags


@pytest.mark.invalid_requests(403)
async def test_a_channel_the_bot_cannot_view_or_read_is_refused_or_listed_empty(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    channel = f"/api/v10/channels/{scene.channel.id}"
    async with http.post(f"{channel}/messages", json={"content": "seen"}) as response:
        assert response.status == 200
    fake.deny_bot(scene.channel, permissions.READ_MESSAGE_HISTORY)
    async with http.get(f"{channel}/messages") as response:
        unread = (response.status, await response.json())
    fake.deny_bot(scene.channel, permissions.VIEW_CHANNEL)
    hidden = []
    for method, path in (("GET", channel), ("GET", f"{channel}/messages")):
        async with http.request(method, path) as response:
            body = await response.json()
            hidden.append((response.status, body.get("code") if isinstance(body, dict) else body))
    assert unread == (200, [])
    assert hidden == [(403, 50001), (403, 50001)]


@pytest.mark.invalid_requests(403)
async def test_a_post_refused_for_a_missing_permission_counts_as_an_invalid_request(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """A 403 is one of the answers Discord counts toward its ban on invalid requests, so the
    fake lists it in `invalid_requests` (what the check after every test reads); a 404 is not
    listed."""
    path = f"/api/v10/channels/{scene.channel.id}/messages"
    fake.deny_bot(scene.channel, permissions.SEND_MESSAGES)
    async with http.post(path, json={"content": "denied"}) as response:
        assert (response.status, (await response.json())["code"]) == (403, 50013)
    async with http.get(f"{path}/1") as response:
        assert response.status == 404
    invalid = [(r.method, r.path, r.status, r.fault) for r in fake.invalid_requests]
    assert invalid == [("POST", path.removeprefix("/api/v10"), 403, None)]


@pytest.mark.refused_requests(50035)
async def test_a_message_refused_as_over_a_limit_fails_the_check_naming_its_code_and_field(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession, request: pytest.FixtureRequest
) -> None:
    """A content of 2001 characters is refused with 400 / 50035 naming `content`: the check
    after the test fails on it, saying which request, code and field, unless the test's
    `refused_requests` marker names its status or code. A 404 Unknown Message and an injected
    fault's 400 are not counted."""
    path = f"/api/v10/channels/{scene.channel.id}/messages"
    async with http.post(path, json={"content": "x" * 2001}) as response:
        assert response.status == 400
    async with http.delete(f"{path}/1") as response:
        assert response.status == 404
    fake.faults.add("POST", CHANNEL_MESSAGES, ErrorResponse(400, 50035, "Invalid Form Body"))
    async with http.post(path, json={"content": "refused by a fault"}) as response:
        assert response.status == 400

    with pytest.raises(AssertionError) as caught:
        check_refused_requests(fake, None)

    relative = path.removeprefix("/api/v10")
    assert str(caught.value).splitlines()[:2] == [
        "requests Discord refuses as sent (400, 413):",
        f"POST {relative} -> 400 50035 (content)",
    ]
    assert [(r.status, r.code, r.fault) for r in fake.refused_requests] == [
        (400, 50035, None),
        (400, 50035, "ErrorResponse"),
    ]
    check_refused_requests(fake, request.node)


@pytest.mark.invalid_requests(403)
async def test_a_post_to_the_dm_channel_of_someone_who_closed_their_dms_gets_403_50007(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """Discord refuses the bot's message to someone who takes no DMs with 403 / 50007 and
    delivers nothing; once they take them again, the same post goes through."""
    dm = fake.dm_channel(scene.alice)
    path = f"/api/v10/channels/{dm.id}/messages"
    scene.alice.accepts_dms = False
    async with http.post(path, json={"content": "closed"}) as response:
        refused = (response.status, (await response.json()).get("code"))
    scene.alice.accepts_dms = True
    async with http.post(path, json={"content": "open"}) as response:
        sent = response.status
    assert refused == (403, 50007)
    assert sent == 200
    assert [m.content for m in fake.messages(dm)] == ["open"]


@pytest.mark.invalid_requests(403)
async def test_files_need_attach_files_and_embeds_need_embed_links(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    path = f"/api/v10/channels/{scene.channel.id}/messages"

    def with_file(content: str) -> aiohttp.FormData:
        form = aiohttp.FormData(quote_fields=False)
        form.add_field("payload_json", json.dumps({"content": content}))
        form.add_field("files[0]", b"png", filename="board.png", content_type="image/png")
        return form

    fake.deny_bot(scene.channel, permissions.ATTACH_FILES)
    async with http.post(path, data=with_file("a file")) as response:
        refused_post = (response.status, (await response.json()).get("code"))
    async with http.post(path, json={"content": "words only"}) as response:
        sent = await response.json()
    async with http.patch(f"{path}/{sent['id']}", data=with_file("a file later")) as response:
        refused_edit = (response.status, (await response.json()).get("code"))
    assert refused_post == refused_edit == (403, 50013)
    assert [(m.content, m.attachments) for m in fake.messages(scene.channel)] == [
        ("words only", [])
    ]

    fake.deny_bot(scene.channel, permissions.EMBED_LINKS)
    embed = {"title": "Standings", "description": "alice 3, bob 1"}
    async with http.post(path, json={"content": "a table", "embeds": [embed]}) as response:
        hidden = (response.status, (await response.json())["embeds"])
    fake.allow_bot(scene.channel)
    async with http.post(path, json={"content": "a table", "embeds": [embed]}) as response:
        shown = (response.status, (await response.json())["embeds"])
    assert hidden == (200, [])
    assert shown[0] == 200
    assert [e["title"] for e in shown[1]] == ["Standings"]


async def test_role_mentions_follow_allowed_mentions(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    path = f"/api/v10/channels/{scene.channel.id}/messages"
    judges, players = 7001, 7002
    content = f"<@&{judges}> <@&{players}>"
    bodies = [
        {"content": content},
        {"content": content, "allowed_mentions": {"parse": ["roles"]}},
        {"content": content, "allowed_mentions": {"parse": [], "roles": [str(players)]}},
        {"content": content, "allowed_mentions": {"parse": ["users"]}},
    ]
    for body in bodies:
        async with http.post(path, json=body) as response:
            assert response.status == 200
    assert [m.mention_roles for m in fake.messages(scene.channel)] == [
        [judges, players],
        [judges, players],
        [players],
        [],
    ]


async def test_an_ephemeral_follow_up_is_seen_only_by_the_one_who_asked(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    handle = fake.interaction_from_payload(
        APPLICATION_COMMAND, scene.alice, scene.channel, {"name": "x"}
    )
    fake.world.register_interaction(handle)
    callback = f"/api/v10/interactions/{handle.id}/{handle.token}/callback"
    async with http.post(callback, json={"type": 4, "data": {"content": "public"}}) as response:
        assert response.status == 204
    webhook = f"/api/v10/webhooks/{fake.application_id}/{handle.token}?wait=true"
    for body in ({"content": "for alice", "flags": 64}, {"content": "for all"}):
        async with http.post(webhook, json=body) as response:
            assert response.status == 200

    hidden, shown = await handle.followups(2)
    assert (hidden.ephemeral, hidden.visible_to) == (True, scene.alice.id)
    assert (shown.ephemeral, shown.visible_to) == (False, None)
    visible = [m.content for m in fake.messages(scene.channel, include_ephemeral=False)]
    assert visible == ["public", "for all"]


async def test_the_first_follow_up_after_a_deferral_replaces_the_loading_message(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """After a type 5 deferral, with no edit of `@original` in between, the first follow-up is
    the "thinking..." message itself, filled in and no longer loading; the next one is a new
    message."""
    handle = fake.interaction_from_payload(
        APPLICATION_COMMAND, scene.alice, scene.channel, {"name": "x"}
    )
    fake.world.register_interaction(handle)
    callback = f"/api/v10/interactions/{handle.id}/{handle.token}/callback"
    async with http.post(callback, json={"type": 5}) as response:
        assert response.status == 204
    webhook = f"/api/v10/webhooks/{fake.application_id}/{handle.token}?wait=true"
    sent = []
    for content in ("done", "more"):
        async with http.post(webhook, json={"content": content}) as response:
            assert response.status == 200
            sent.append((await response.json())["id"])

    original = handle.original_message()
    assert original is not None
    assert sent[0] == str(original.id), "the first follow-up is the deferred answer"
    assert sent[1] != sent[0]
    assert (original.loading, original.content) == (False, "done")
    assert [m.content for m in fake.messages(scene.channel)] == ["done", "more"]


async def test_an_interaction_s_webhook_reaches_only_the_messages_it_sent(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """An interaction's token is a webhook: it reads its reply by id, and a message the bot
    posted with its bot token (a game's board) is Unknown Message (404 / 10008) through it, to
    read, edit or delete, and is left as it was."""
    path = f"/api/v10/channels/{scene.channel.id}/messages"
    async with http.post(path, json={"content": "board"}) as response:
        board = fake.world.messages[int((await response.json())["id"])]
    handle = fake.interaction_from_payload(
        APPLICATION_COMMAND, scene.alice, scene.channel, {"name": "x"}
    )
    fake.world.register_interaction(handle)
    callback = f"/api/v10/interactions/{handle.id}/{handle.token}/callback"
    async with http.post(callback, json={"type": 4, "data": {"content": "reply"}}) as response:
        assert response.status == 204
    reply = handle.original_message()
    assert reply is not None

    messages = f"/api/v10/webhooks/{fake.application_id}/{handle.token}/messages"
    async with http.get(f"{messages}/{reply.id}") as response:
        assert (response.status, (await response.json())["content"]) == (200, "reply")
    answers = []
    for method, body in (("GET", None), ("PATCH", {"content": "edited"}), ("DELETE", None)):
        async with http.request(method, f"{messages}/{board.id}", json=body) as response:
            answer = await response.json() if response.status != 204 else {}
            answers.append((response.status, answer.get("code")))
    assert answers == [(404, 10008)] * 3
    assert (board.content, board.edit_count, board.deleted) == ("board", 0, False)


async def test_an_ephemeral_reply_pings_no_one_and_no_one_else_may_click_it(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """A reply with flag 64 that mentions bob pings no one, where the same reply made public
    pings him; and a click by bob on the ephemeral reply's button is refused, as no Discord
    client could send it."""
    go = {"type": 1, "components": [{"type": 2, "style": 1, "label": "Go", "custom_id": "go"}]}
    replies = []
    for flags in (64, 0):
        handle = fake.interaction_from_payload(
            APPLICATION_COMMAND, scene.alice, scene.channel, {"name": "x"}
        )
        fake.world.register_interaction(handle)
        callback = f"/api/v10/interactions/{handle.id}/{handle.token}/callback"
        data = {"content": f"<@{scene.bob.id}> look", "flags": flags, "components": [go]}
        async with http.post(callback, json={"type": 4, "data": data}) as response:
            assert response.status == 204
        replies.append(await handle.answer())

    hidden, shown = replies
    assert (hidden.ephemeral, hidden.pinged_user_ids) == (True, frozenset())
    assert (shown.ephemeral, shown.pinged_user_ids) == (False, frozenset({scene.bob.id}))
    with pytest.raises(InteractionInputError, match="cannot see ephemeral"):
        await fake.click(scene.bob, hidden, "go")


async def test_a_click_on_a_disabled_button_is_refused(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """No Discord client can press a disabled button, so `fake.click` refuses it before
    sending anything (no bot is needed to see it)."""
    row = {
        "type": 1,
        "components": [
            {"type": 2, "style": 1, "label": "Go", "custom_id": "go", "disabled": True},
        ],
    }
    path = f"/api/v10/channels/{scene.channel.id}/messages"
    async with http.post(path, json={"content": "over", "components": [row]}) as response:
        message = fake.world.messages[int((await response.json())["id"])]
    with pytest.raises(InteractionInputError, match="disabled"):
        await fake.click(scene.alice, message, "go")


@pytest.mark.invalid_requests(401)
async def test_unknown_routes_and_missing_auth_are_recorded(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    async with http.get("/api/v10/stickers/1") as unknown:
        assert unknown.status == 404
    async with (
        aiohttp.ClientSession(base_url=fake.world.base_url) as anonymous,
        anonymous.get("/api/v10/users/@me") as response,
    ):
        assert response.status == 401
    fake.expected_token = "the-right-token"
    async with http.get("/api/v10/users/@me") as wrong_token:
        assert wrong_token.status == 401
    assert [(r.method, r.path) for r in fake.unhandled_requests] == [("GET", "/stickers/1")]


async def test_a_hanging_route_waits_until_released(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    rule = fake.faults.hang("POST", CHANNEL_MESSAGES)
    path = f"/api/v10/channels/{scene.channel.id}/messages"

    async def post() -> int:
        async with http.post(path, json={"content": "late"}) as response:
            return response.status

    request = asyncio.ensure_future(post())
    await rule.wait_fired()
    assert not request.done()
    assert fake.messages(scene.channel) == []
    fake.faults.release_hangs()
    assert await request == 200
    assert [m.content for m in fake.messages(scene.channel)] == ["late"]


@pytest.mark.invalid_requests(403)
async def test_threads_use_their_parent_permissions_and_dms_work(
    fake: FakeDiscord, scene: Scene, sample: BotProcess
) -> None:
    thread = fake.add_thread(scene.channel, "side game")
    posted = await fake.slash(scene.alice, thread, "sample", "post", text="in thread")
    assert (await posted.answer()).content.startswith("posted ")
    assert [m.content for m in fake.messages(thread)] == ["in thread"]

    fake.deny_bot(thread, permissions.SEND_MESSAGES_IN_THREADS)
    denied = await fake.slash(scene.alice, thread, "sample", "post", text="not here")
    assert (await denied.answer()).content == "cannot post: Missing Permissions (50013)"

    dm = fake.dm_channel(scene.bob)
    private = await fake.slash(scene.bob, dm, "sample", "secret")
    assert (await private.answer()).content == "only you can see this (en-US)"
    assert "member" not in private.payload
    assert private.payload["user"]["id"] == str(scene.bob.id)


async def test_default_member_permissions_hide_a_command_the_bot_checks_again(
    fake: FakeDiscord, scene: Scene, sample: BotProcess
) -> None:
    command = fake.world.commands.find(scene.guild.id, "sample-mod")
    assert command is not None
    assert command["default_member_permissions"] == str(permissions.MANAGE_CHANNELS)

    with pytest.raises(InteractionInputError, match="hidden from alice"):
        await fake.slash(scene.alice, scene.channel, "sample-mod", "wipe")
    with pytest.raises(InteractionInputError, match="not available in DMs"):
        await fake.slash(scene.bob, fake.dm_channel(scene.bob), "sample-mod", "wipe")
    overridden = await fake.slash(scene.alice, scene.channel, "sample-mod", "wipe", validate=False)
    allowed = await fake.slash(scene.bob, scene.channel, "sample-mod", "wipe")

    assert (await overridden.answer()).content == "you need Manage Channels"
    assert (await allowed.answer()).content == "wiped"


async def test_an_interaction_carries_the_user_s_permissions_in_its_channel_overwrites_included(
    fake: FakeDiscord, scene: Scene
) -> None:
    """bob has Manage Channels through a role, and a member overwrite denies it to him in one
    channel: his interaction there says he lacks it (in `member.permissions` and the channel's
    `permissions`, which discord.py's `interaction.permissions` reads); one elsewhere says he
    has it."""
    locked = fake.add_text_channel(scene.guild, "locked")
    fake.set_overwrite(locked, scene.bob, deny=permissions.MANAGE_CHANNELS)

    def manages_channels(channel: FakeChannel) -> tuple[bool, bool]:
        handle = fake.interaction_from_payload(
            APPLICATION_COMMAND, scene.bob, channel, {"name": "x"}
        )
        member, where = handle.payload["member"], handle.payload["channel"]
        return (
            bool(int(member["permissions"]) & permissions.MANAGE_CHANNELS),
            bool(int(where["permissions"]) & permissions.MANAGE_CHANNELS),
        )

    assert manages_channels(locked) == (False, False)
    assert manages_channels(scene.channel) == (True, True)


async def _register(
    fake: FakeDiscord, http: aiohttp.ClientSession, command: dict[str, Any]
) -> None:
    """Sync `command` as the bot's only global command."""
    path = f"/api/v10/applications/{fake.application_id}/commands"
    async with http.put(path, json=[command]) as response:
        assert response.status == 200, await response.text()


async def test_default_member_permissions_0_hide_a_command_from_all_but_administrators(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """A command whose `default_member_permissions` are "0" is offered to administrators only
    (until a server admin says otherwise): alice, and bob who has Manage Channels, are refused;
    an administrator's command goes past the checks, and finds no bot to send it to."""
    await _register(
        fake, http, {"name": "wipe", "description": "wipe", "default_member_permissions": "0"}
    )
    for user in (scene.alice, scene.bob):
        with pytest.raises(InteractionInputError, match="hidden"):
            await fake.slash(user, scene.channel, "wipe")
    admin = fake.add_user("admin")
    fake.add_member(scene.guild, admin, permissions=permissions.ADMINISTRATOR)
    with pytest.raises(NoGatewaySessionError):
        await fake.slash(admin, scene.channel, "wipe")


async def test_a_slash_value_outside_its_option_s_choices_or_range_is_refused(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """A Discord client offers only an option's choices and takes only a number in its range,
    so `fake.slash` refuses any other value before sending anything."""
    players = {
        "type": 4,
        "name": "players",
        "description": "seats",
        "choices": [{"name": str(n), "value": n} for n in (2, 3, 4)],
    }
    minutes = {
        "type": 4,
        "name": "minutes",
        "description": "clock",
        "min_value": 1,
        "max_value": 60,
    }
    await _register(
        fake, http, {"name": "game", "description": "play", "options": [players, minutes]}
    )
    with pytest.raises(InteractionInputError, match="not a choice"):
        await fake.slash(scene.alice, scene.channel, "game", players=5)
    for outside in (0, 61):
        with pytest.raises(InteractionInputError, match="outside"):
            await fake.slash(scene.alice, scene.channel, "game", players=3, minutes=outside)


async def test_a_callback_after_the_deadline_is_refused_as_unknown_interaction(
    fake: FakeDiscord, scene: Scene, sample: BotProcess
) -> None:
    fake.rest.callback_deadline = 0.0

    handle = await fake.slash(scene.alice, scene.channel, "sample", "hello", name="late")
    await handle.wait_for(lambda h: bool(h.refusals))

    assert handle.refusals == [10062]
    assert handle.responded_at is None
    assert fake.latency().unanswered == 1
    await sample.wait_for_log("Unknown interaction")


@pytest.mark.refused_requests(40060)
async def test_a_second_callback_is_refused_as_already_acknowledged(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    handle = fake.interaction_from_payload(2, scene.alice, scene.channel, {"name": "x"})
    fake.world.register_interaction(handle)
    path = f"/api/v10/interactions/{handle.id}/{handle.token}/callback"
    reply = {"type": 4, "data": {"content": "first"}}

    async with http.post(path, json=reply) as first:
        assert first.status == 204
    async with http.post(path, json=reply) as second:
        assert (second.status, (await second.json())["code"]) == (400, 40060)
    assert handle.refusals == [40060]
    assert [m.content for m in fake.messages(scene.channel)] == ["first"]


@pytest.mark.parametrize(("first", "second"), [(5, 4), (4, 5)])
@pytest.mark.refused_requests(40060)
async def test_a_second_callback_of_another_type_is_refused_as_already_acknowledged(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession, first: int, second: int
) -> None:
    """A deferral then a reply, or a reply then a deferral (a watchdog and its handler both
    answering): Discord refuses the second whatever its type, and so must the fake, or a bot
    answering twice would pass here."""
    handle = fake.interaction_from_payload(2, scene.alice, scene.channel, {"name": "x"})
    fake.world.register_interaction(handle)
    path = f"/api/v10/interactions/{handle.id}/{handle.token}/callback"

    def callback(kind: int) -> dict[str, Any]:
        return {"type": kind, "data": {"content": "reply"}} if kind == 4 else {"type": kind}

    async with http.post(path, json=callback(first)) as answer:
        assert answer.status == 204
    async with http.post(path, json=callback(second)) as answer:
        code = (await answer.json())["code"] if answer.status != 204 else None
        assert (answer.status, code) == (400, 40060), "the second callback was taken"
    assert handle.refusals == [40060]
    assert handle.callback_type == first
    assert len(fake.messages(scene.channel)) == 1


@pytest.mark.refused_requests(50035)
async def test_an_autocomplete_answer_over_discord_s_limits_is_refused(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    """Discord shows at most 25 choices, each named in 1 to 100 characters with a text value
    of at most 100: an answer past that is refused (400 / 50035) and answers nothing, so a bot
    offering too much fails here as it would on Discord."""
    handle = fake.interaction_from_payload(4, scene.alice, scene.channel, {"name": "x"})
    fake.world.register_interaction(handle)  # 4: an option typed into, asking for choices
    path = f"/api/v10/interactions/{handle.id}/{handle.token}/callback"

    def answer(*choices: tuple[str, str]) -> dict[str, Any]:
        return {"type": 8, "data": {"choices": [{"name": n, "value": v} for n, v in choices]}}

    refused = []
    for wrong in (
        answer(*((f"zone {n}", f"Zone/{n}") for n in range(26))),
        answer(("", "UTC")),
        answer(("UTC", "U" * 101)),
    ):
        async with http.post(path, json=wrong) as response:
            body = await response.json()
            refused.append((response.status, body["code"], json.dumps(body["errors"])))
    assert [(status, code) for status, code, _ in refused] == [(400, 50035)] * 3
    assert '"choices": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH"' in refused[0][2]
    assert '"name": {"_errors": [{"code": "BASE_TYPE_BAD_LENGTH"' in refused[1][2]
    assert '"value": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH"' in refused[2][2]
    assert handle.refusals == [50035] * 3
    assert handle.callback_type is None, "a refused answer answers nothing"

    async with http.post(path, json=answer(*((f"zone {n}", "Z" * 100) for n in range(25)))) as ok:
        assert ok.status == 204, await ok.text()
    assert handle.callback_type == 8


async def test_raw_gateway_zlib_stream_identify_invalidate_and_refused_resume(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    inflater = zlib.decompressobj()

    async def receive(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
        message = await ws.receive(timeout=5)
        assert message.type is aiohttp.WSMsgType.BINARY
        assert message.data.endswith(b"\x00\x00\xff\xff")
        return dict(json.loads(inflater.decompress(message.data)))

    async with http.ws_connect("/gateway?v=10&encoding=json&compress=zlib-stream") as ws:
        assert (await receive(ws))["op"] == 10
        identify = {"token": "t", "intents": 1, "properties": {}, "shard": [0, 1]}
        await ws.send_json({"op": 2, "d": identify})
        ready = await receive(ws)
        guild_create = await receive(ws)
        await ws.send_json({"op": 1, "d": ready["s"]})
        ack = await receive(ws)
        fake.gateway.invalidate()
        invalid = await receive(ws)

    assert (ready["t"], ready["s"], ready["d"]["shard"]) == ("READY", 1, [0, 1])
    assert ready["d"]["guilds"] == [{"id": str(scene.guild.id), "unavailable": True}]
    assert (guild_create["t"], guild_create["d"]["preferred_locale"]) == ("GUILD_CREATE", "fr")
    assert ack["op"] == 11
    assert invalid == {"op": 9, "d": False}

    async with http.ws_connect("/gateway?v=10&encoding=json") as ws:
        assert (await ws.receive_json(timeout=5))["op"] == 10
        resume = {"session_id": ready["d"]["session_id"], "seq": 2, "token": "t"}
        await ws.send_json({"op": 6, "d": resume})
        assert await ws.receive_json(timeout=5) == {"op": 9, "d": False}


async def test_a_cut_connection_or_a_dropped_hang_applies_nothing(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    path = f"/api/v10/channels/{scene.channel.id}/messages"
    fake.faults.disconnect("POST", CHANNEL_MESSAGES)
    with pytest.raises(aiohttp.ClientError):
        await http.post(path, json={"content": "cut"})

    rule = fake.faults.hang("POST", CHANNEL_MESSAGES)
    request = asyncio.ensure_future(http.post(path, json={"content": "dropped"}))
    await rule.wait_fired()
    fake.faults.release_hangs(apply=False)
    with pytest.raises(aiohttp.ClientError):
        await request

    assert fake.messages(scene.channel) == []
    assert [(r.status, r.fault) for r in fake.requests_to("POST", "/messages")] == [
        (0, "Disconnect"),
        (0, "Hang"),
    ]


@pytest.mark.invalid_requests(403)
async def test_channel_message_routes_edit_list_pin_and_delete_like_discord(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    base = f"/api/v10/channels/{scene.channel.id}/messages"
    async with http.post(base, json={"content": f"turn of {scene.alice.mention}"}) as response:
        first = await response.json()
    async with http.post(base, json={"content": "second"}) as response:
        second = await response.json()
    edit = {"content": f"now {scene.bob.mention}", "components": []}
    async with http.patch(f"{base}/{first['id']}", json=edit) as response:
        edited = await response.json()
    async with http.get(base, params={"limit": "10"}) as response:
        listed = [m["id"] for m in await response.json()]
    pin = f"/api/v10/channels/{scene.channel.id}/messages/pins/{second['id']}"
    async with http.put(pin) as response:
        assert response.status == 403
    fake.set_overwrite(scene.channel, fake.bot_user, allow=permissions.PIN_MESSAGES)
    async with http.put(pin) as response:
        assert response.status == 204
    async with http.delete(f"{base}/{second['id']}") as response:
        assert response.status == 204
    async with http.get(f"{base}/{second['id']}") as response:
        gone = (response.status, (await response.json())["code"])

    message = fake.world.messages[int(first["id"])]
    assert edited["edited_timestamp"] is not None
    assert message.edit_count == 1
    assert message.pinged_user_ids == frozenset({scene.alice.id})
    assert listed == [second["id"], first["id"]]
    assert fake.world.messages[int(second["id"])].pinned
    assert gone == (404, 10008)
    assert fake.messages(scene.channel) == [message]


def test_overwrites_apply_in_discords_order() -> None:
    guild_id, member_id, role_id = 1, 2, 3
    base = permissions.DEFAULT_EVERYONE

    def compute(*overwrites: permissions.Overwrite, thread: bool = False) -> int:
        return permissions.channel_permissions(
            base,
            guild_id=guild_id,
            member_id=member_id,
            role_ids=[role_id],
            overwrites=overwrites,
            is_thread=thread,
        )

    everyone_denies = permissions.Overwrite(
        guild_id, permissions.ROLE, deny=permissions.SEND_MESSAGES
    )
    role_allows = permissions.Overwrite(role_id, permissions.ROLE, allow=permissions.SEND_MESSAGES)
    member_denies = permissions.Overwrite(
        member_id, permissions.MEMBER, deny=permissions.SEND_MESSAGES
    )
    hidden = permissions.Overwrite(guild_id, permissions.ROLE, deny=permissions.VIEW_CHANNEL)

    assert not compute(everyone_denies) & permissions.SEND_MESSAGES
    assert not compute(everyone_denies) & permissions.ATTACH_FILES
    assert not compute(everyone_denies) & permissions.EMBED_LINKS
    loud = permissions.channel_permissions(
        base | permissions.MENTION_EVERYONE,
        guild_id=guild_id,
        member_id=member_id,
        role_ids=[role_id],
        overwrites=[everyone_denies],
        is_thread=False,
    )
    assert not loud & permissions.MENTION_EVERYONE, "no pinging where one may not send"
    assert compute(everyone_denies, role_allows) & permissions.SEND_MESSAGES
    assert not compute(everyone_denies, role_allows, member_denies) & permissions.SEND_MESSAGES
    assert compute(member_denies, thread=True) & permissions.ATTACH_FILES
    assert compute(hidden) == 0
    admin = permissions.base_permissions(0, [permissions.ADMINISTRATOR], is_owner=False)
    assert admin == permissions.ALL_PERMISSIONS
    assert permissions.base_permissions(0, [], is_owner=True) == permissions.ALL_PERMISSIONS
    locked_out = permissions.channel_permissions(
        admin,
        guild_id=guild_id,
        member_id=member_id,
        role_ids=[role_id],
        overwrites=[hidden, member_denies],
        is_thread=False,
    )
    assert locked_out == permissions.ALL_PERMISSIONS, "overwrites do not bind an administrator"


@pytest.mark.parametrize("order", ["deny-role-first", "allow-role-first"])
def test_one_role_s_overwrite_allowing_beats_another_role_s_denial_in_either_order(
    order: str,
) -> None:
    """Discord applies the denials of all a member's role overwrites together, then all their
    allowances: a role allowing Send Messages wins over another role denying it, whatever the
    order of the member's roles."""
    guild_id, member_id, denying, allowing = 1, 2, 3, 4
    overwrites = [
        permissions.Overwrite(denying, permissions.ROLE, deny=permissions.SEND_MESSAGES),
        permissions.Overwrite(allowing, permissions.ROLE, allow=permissions.SEND_MESSAGES),
    ]
    value = permissions.channel_permissions(
        permissions.DEFAULT_EVERYONE,
        guild_id=guild_id,
        member_id=member_id,
        role_ids=[denying, allowing] if order == "deny-role-first" else [allowing, denying],
        overwrites=overwrites,
        is_thread=False,
    )
    assert value & permissions.SEND_MESSAGES


async def test_identify_with_a_wrong_token_is_closed_with_4004(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    fake.expected_token = "the-right-token"
    async with http.ws_connect("/gateway?v=10&encoding=json") as ws:
        assert (await ws.receive_json(timeout=5))["op"] == 10
        await ws.send_json({"op": 2, "d": {"token": "wrong", "intents": 1, "properties": {}}})
        closing = await ws.receive(timeout=5)

    assert closing.type is aiohttp.WSMsgType.CLOSE
    assert closing.data == 4004
    assert fake.session is None
    assert fake.gateway.identifies == 0


async def test_bot_process_reads_long_lines_and_reports_an_early_exit(tmp_path: Path) -> None:
    talks = "import sys, time; print('x' * 300_000); print('READY', flush=True); time.sleep(60)"
    talker = BotProcess([sys.executable, "-c", talks], {}, log_path=tmp_path / "talker.log")
    await talker.start()
    assert await talker.wait_for_log("^READY$") == "READY"
    assert await talker.kill() == -9
    assert len(talker.lines[1]) == 300_000

    crashes = "import sys; print('boom'); sys.exit(3)"
    crasher = BotProcess([sys.executable, "-c", crashes], {}, log_path=tmp_path / "crasher.log")
    await crasher.start()
    with pytest.raises(BotExitedError, match=r"exited with 3(.|\n)*boom"):
        await crasher.wait_for_log("never printed")
    assert "boom" in (tmp_path / "crasher.log").read_text()


@pytest.mark.refused_requests(50109)
async def test_multipart_files_keep_their_exact_bytes_and_bad_bodies_get_400(
    fake: FakeDiscord, scene: Scene, http: aiohttp.ClientSession
) -> None:
    path = f"/api/v10/channels/{scene.channel.id}/messages"
    awkward = b"\x89PNG\r\n\x1a\n\r\n--not-the-boundary\r\n\r\n" + bytes(range(256))
    form = aiohttp.FormData(quote_fields=False)
    payload = {"content": "files", "attachments": [{"id": 0, "filename": "board.png"}]}
    form.add_field("payload_json", json.dumps(payload))
    form.add_field("files[0]", awkward, filename="board.png", content_type="image/png")
    form.add_field("files[1]", b"{}", filename="r\u00e9cord.json")
    async with http.post(path, data=form) as response:
        sent = await response.json()
    async with http.post(
        path, data=b"{not json", headers={"Content-Type": "application/json"}
    ) as bad:
        refused = (bad.status, (await bad.json())["code"])

    message = fake.world.messages[int(sent["id"])]
    assert [a["filename"] for a in sent["attachments"]] == ["board.png", "record.json"]
    assert message.file("board.png") == awkward
    assert message.attachments[0].content_type == "image/png"
    assert refused == (400, 50109)
    async with http.get(message.attachments[0].url) as download:
        assert await download.read() == awkward


async def test_a_wait_wakes_at_the_change_of_the_fake_that_fulfils_it(fake: FakeDiscord) -> None:
    held = [False]

    def change() -> None:
        held[0] = True
        fake.world.notify()

    asyncio.get_running_loop().call_later(0.05, change)
    assert await fake.wait_until(lambda: held[0], timeout=10, what="a flag set with a change")


async def test_a_wait_for_what_the_fake_does_not_hold_is_refused(fake: FakeDiscord) -> None:
    """A condition that comes true with no change of the fake (a flag here; the database or a
    file in a real test) would be found only as the wait ran out: the wait says so instead of
    passing late."""
    held = [False]
    asyncio.get_running_loop().call_later(0.05, held.__setitem__, 0, True)
    with pytest.raises(AssertionError, match="came true with no change of the fake"):
        await fake.wait_until(lambda: held[0], timeout=0.5, what="a flag")
