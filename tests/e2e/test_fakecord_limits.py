"""The fake's rate limits (fakecord/ratelimits.py), as real Discord applies them: per-route
buckets with the headers discord.py reads, 429s that are not executed, the global limit of the
bot token that interaction endpoints are exempt from, invalid requests counted, windows and
interaction tokens that age with the fake's clock, and the 3 s of an interaction's first
callback, which run from the click. Over plain HTTP and a raw gateway connection, through
discord.py's own HTTP client, which waits on the headers instead of being refused, and on the
rate limiter's own clock for the count and window of every limited route."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
import pytest_asyncio

from tests.e2e.fakecord import FakeChannel, FakeDiscord, RateLimit
from tests.e2e.fakecord.interactions import APPLICATION_COMMAND, InteractionHandle
from tests.e2e.fakecord.ratelimits import RateLimiter, Verdict

pytestmark = pytest.mark.e2e


SCALE = 10.0
"""The windows of the tests over plain HTTP are 10 times Discord's, so that a slow machine
never sees one pass by itself; the tests move the fake's clock past them."""


@pytest_asyncio.fixture
async def http(fake: FakeDiscord) -> AsyncIterator[aiohttp.ClientSession]:
    fake.rest.limits.time_scale = SCALE
    async with aiohttp.ClientSession(
        base_url=fake.api_base_url + "/", headers={"Authorization": "Bot t"}
    ) as session:
        yield session


@pytest.fixture
def channels(fake: FakeDiscord) -> list[FakeChannel]:
    guild = fake.add_guild("Souk")
    return [fake.add_text_channel(guild, f"games-{n}") for n in range(3)]


async def call(
    http: aiohttp.ClientSession, method: str, path: str, body: Any = None
) -> tuple[int, dict[str, str], Any]:
    async with http.request(method, path.lstrip("/"), json=body) as response:
        payload = await response.json() if response.status != 204 else None
        return response.status, dict(response.headers), payload


def interaction(fake: FakeDiscord, channel: FakeChannel) -> InteractionHandle:
    """A slash command's interaction the fake knows, as if it had been sent to a bot."""
    user = fake.add_user("alice")
    assert channel.guild is not None
    fake.add_member(channel.guild, user)
    handle = fake.interaction_from_payload(APPLICATION_COMMAND, user, channel, {"name": "x"})
    fake.world.register_interaction(handle)
    return handle


@pytest.mark.invalid_requests(429)
async def test_a_channel_takes_five_posts_and_five_edits_in_5_s_counted_apart(
    fake: FakeDiscord, channels: list[FakeChannel], http: aiohttp.ClientSession
) -> None:
    path = f"/channels/{channels[0].id}/messages"
    posts = [await call(http, "POST", path, {"content": f"m{n}"}) for n in range(6)]
    assert [status for status, _, _ in posts] == [200] * 5 + [429]
    first, last = posts[0][1], posts[4][1]
    assert (first["X-RateLimit-Limit"], first["X-RateLimit-Remaining"]) == ("5", "4")
    assert last["X-RateLimit-Remaining"] == "0"
    assert 0 < float(last["X-RateLimit-Reset-After"]) <= 5 * SCALE
    _status, headers, body = posts[5]
    assert headers["X-RateLimit-Scope"] == "user"
    assert body["global"] is False
    assert 0 < body["retry_after"] <= 5 * SCALE
    assert headers["Via"]
    assert int(headers["Retry-After"]) >= 1
    assert len(fake.messages(channels[0])) == 5, "a refused request is not executed"

    message_id = posts[0][2]["id"]
    edits = [await call(http, "PATCH", f"{path}/{message_id}", {"content": "e"}) for _ in range(6)]
    assert [status for status, _, _ in edits] == [200] * 5 + [429]
    assert edits[0][1]["X-RateLimit-Bucket"] == first["X-RateLimit-Bucket"], "one bucket hash"
    assert (await call(http, "POST", f"/channels/{channels[1].id}/messages", {"content": "x"}))[
        0
    ] == 200, "another channel has buckets of its own"

    fake.shift_clock(5.0 * SCALE)
    assert (await call(http, "POST", path, {"content": "later"}))[0] == 200
    assert [(r.method, r.status, r.scope) for r in fake.invalid_requests] == [
        ("POST", 429, "user"),
        ("PATCH", 429, "user"),
    ]


# Discord's per-route limits, from docs/discord-limits.md (shared/DISCORD-LIMITS.md): method,
# path, requests per window, window in seconds, a path with another top-level resource (None:
# the route has one bucket), and the age of the message a DELETE names.
ROUTE_TABLE: list[tuple[str, str, int, float, str | None, float | None]] = [
    ("POST", "/webhooks/1/tok", 5, 2.0, "/webhooks/1/other", None),
    ("PATCH", "/webhooks/1/tok/messages/@original", 5, 2.0, "/webhooks/1/other/messages/2", None),
    ("POST", "/channels/10/messages", 5, 5.0, "/channels/11/messages", None),
    ("PATCH", "/channels/10/messages/12", 5, 5.0, "/channels/11/messages/12", None),
    ("DELETE", "/channels/10/messages/12", 5, 1.0, "/channels/11/messages/12", 0.0),
    ("DELETE", "/channels/10/messages/12", 3, 1.0, "/channels/11/messages/12", 10.0),
    ("GET", "/channels/10/messages", 5, 5.0, "/channels/11/messages", None),
    ("GET", "/channels/10/messages/12", 5, 5.0, "/channels/11/messages/12", None),
    ("POST", "/channels/10/typing", 5, 5.0, "/channels/11/typing", None),
    (
        "PUT",
        "/channels/10/messages/12/reactions/x/@me",
        1,
        0.25,
        "/channels/11/messages/12/reactions/x/@me",
        None,
    ),
    (
        "DELETE",
        "/channels/10/messages/12/reactions/x/@me",
        1,
        0.25,
        "/channels/11/messages/12/reactions/x/@me",
        None,
    ),
    ("PUT", "/channels/10/pins/12", 5, 4.0, "/channels/11/pins/12", None),
    ("GET", "/channels/10/messages/pins", 5, 4.0, "/channels/11/messages/pins", None),
    ("GET", "/guilds/20/members", 10, 10.0, "/guilds/21/members", None),
    ("GET", "/guilds/20/members/30", 5, 1.0, "/guilds/21/members/30", None),
    ("GET", "/users/30", 30, 30.0, None, None),
    ("GET", "/users/@me/guilds", 1, 1.0, None, None),
    ("GET", "/gateway/bot", 2, 5.0, None, None),
    ("PUT", "/applications/1/commands", 2, 60.0, None, None),
    (
        "PUT",
        "/applications/1/guilds/20/commands",
        2,
        60.0,
        "/applications/1/guilds/21/commands",
        None,
    ),
    ("POST", "/applications/1/commands", 5, 20.0, None, None),
    (
        "PATCH",
        "/applications/1/guilds/20/commands/40",
        5,
        20.0,
        "/applications/1/guilds/21/commands/40",
        None,
    ),
    ("DELETE", "/applications/1/commands/40", 5, 20.0, None, None),
]


@pytest.mark.parametrize(
    ("method", "path", "limit", "period", "other", "age"),
    ROUTE_TABLE,
    ids=[
        f"{method} {path} {limit}/{period}s" + (f" age {age}" if age is not None else "")
        for method, path, limit, period, _, age in ROUTE_TABLE
    ],
)
def test_each_limited_route_takes_discord_s_count_for_all_of_discord_s_window(
    method: str, path: str, limit: int, period: float, other: str | None, age: float | None
) -> None:
    """On the limiter's own clock: a route's bucket takes its count, refuses the next request
    until a moment before the window ends (with `retry_after` the whole window), takes requests
    again once it has, and another top-level resource has a bucket of its own."""
    now = [0.0]
    limiter = RateLimiter(lambda: now[0])

    def check(route: str = path) -> Verdict:
        return limiter.check(method, route, None, lambda: age)

    taken = [check() for _ in range(limit)]
    assert [verdict.refused for verdict in taken] == [False] * limit
    assert taken[0].headers["X-RateLimit-Limit"] == str(limit)
    refused = check()
    assert (refused.refused, refused.retry_after) == (True, period)
    if other is not None:
        assert not check(other).refused, "another resource has a bucket of its own"
    now[0] = period - 0.001
    assert check().refused, "the window is not over yet"
    now[0] = period
    assert not check().refused, "a new window"


async def fill_then_log_in_again(http: aiohttp.ClientSession, path: str) -> None:
    """A process fills a channel's bucket of posts and is killed; a new one logs in."""
    filled = [await call(http, "POST", path, {"content": f"m{n}"}) for n in range(5)]
    assert [status for status, _, _ in filled] == [200] * 5
    assert (await call(http, "GET", "/users/@me"))[0] == 200, "a new process logs in"


async def test_a_process_logging_in_may_meet_once_a_bucket_its_predecessor_filled(
    fake: FakeDiscord, channels: list[FakeChannel], http: aiohttp.ClientSession
) -> None:
    """A process restarted after a kill cannot know what the killed one spent: its first
    request in a full bucket is refused, as inherited, and the check after every test lets it
    pass (this test provokes no other)."""
    path = f"/channels/{channels[0].id}/messages"
    await fill_then_log_in_again(http, path)
    status, headers, _ = await call(http, "POST", path, {"content": "again"})
    assert (status, headers["X-RateLimit-Remaining"]) == (429, "0")
    assert [(r.status, r.inherited) for r in fake.invalid_requests] == [(429, True)]


@pytest.mark.invalid_requests(429)
async def test_a_second_429_in_a_bucket_after_logging_in_is_the_process_s_own(
    fake: FakeDiscord, channels: list[FakeChannel], http: aiohttp.ClientSession
) -> None:
    """Once refused, the new process knows the bucket: another 429 there is its own."""
    path = f"/channels/{channels[0].id}/messages"
    await fill_then_log_in_again(http, path)
    assert [(await call(http, "POST", path, {"content": "x"}))[0] for _ in range(2)] == [429] * 2
    assert [(r.status, r.inherited) for r in fake.invalid_requests] == [(429, True), (429, False)]


@pytest.mark.invalid_requests(429)
async def test_the_bot_token_has_50_requests_a_second_that_interactions_do_not_use(
    fake: FakeDiscord, channels: list[FakeChannel], http: aiohttp.ClientSession
) -> None:
    handle = interaction(fake, channels[0])
    webhook = f"/webhooks/{fake.application_id}/{handle.token}"
    callback = f"/interactions/{handle.id}/{handle.token}/callback"
    reply = {"type": 4, "data": {"content": "hi"}}
    assert (await call(http, "POST", callback, reply))[0] == 204

    statuses = [(await call(http, "GET", f"/channels/{channels[n % 3].id}"))[0] for n in range(50)]
    assert statuses == [200] * 50
    status, headers, body = await call(http, "GET", f"/channels/{channels[0].id}")
    assert status == 429
    assert body["global"] is True
    assert headers["X-RateLimit-Global"] == "true"
    assert headers["X-RateLimit-Scope"] == "global"
    assert "X-RateLimit-Bucket" not in headers
    assert (await call(http, "POST", webhook + "?wait=true", {"content": "follow-up"}))[0] == 200
    assert (await call(http, "PATCH", webhook + "/messages/@original", {"content": "x"}))[0] == 200

    async with aiohttp.ClientSession(
        base_url=fake.api_base_url + "/", headers={"Authorization": "Bot another-bot"}
    ) as other:
        assert (await call(other, "GET", f"/channels/{channels[0].id}"))[0] == 200
    counted = fake.bot_token_requests()
    assert len(counted) == 52, "the global count has the bot token's requests only"
    assert not any(r.path.startswith(("/interactions/", "/webhooks/")) for r in counted)
    fake.shift_clock(1.0 * SCALE)
    assert (await call(http, "GET", f"/channels/{channels[0].id}"))[0] == 200


def test_the_global_limit_refuses_the_51st_request_until_its_second_is_over() -> None:
    """On the limiter's own clock: one bot token takes 50 requests a second on a route with no
    limit of its own; the 51st is refused as global, with retry_after the whole second, and so
    is one a moment before the second ends; once it has, requests pass again."""
    now = [0.0]
    limiter = RateLimiter(lambda: now[0])

    def check() -> Verdict:
        return limiter.check("GET", "/channels/10", "token", lambda: None)

    assert [check().refused for _ in range(50)] == [False] * 50
    refused = check()
    assert (refused.refused, refused.is_global, refused.retry_after) == (True, True, 1.0)
    now[0] = 0.999
    assert check().is_global, "the second is not over yet"
    now[0] = 1.0
    assert not check().refused, "a new second"


def test_a_global_refusal_in_a_second_begun_before_a_login_is_inherited() -> None:
    """On the limiter's own clock: a process spends the bot token's second and is killed; its
    successor logs in within that second, and its refusal there is inherited. In a second begun
    after the login, a refusal is the processes' own."""
    now = [0.0]
    limiter = RateLimiter(lambda: now[0])

    def check(path: str = "/channels/10") -> Verdict:
        return limiter.check("GET", path, "token", lambda: None)

    assert [check().refused for _ in range(49)] == [False] * 49
    now[0] = 0.5
    assert not check("/users/@me").refused, "a new process logs in"
    refused = check()
    assert (refused.is_global, refused.inherited) == (True, True)
    now[0] = 1.0
    assert [check().refused for _ in range(50)] == [False] * 50
    own = check()
    assert (own.is_global, own.inherited) == (True, False)


def test_reset_after_and_retry_after_say_what_is_left_of_the_window() -> None:
    """On the limiter's own clock: a channel's posts (5 in 5 s) from 0 s are told at 1 s that
    the window resets in 4 s, and a post refused at 2 s gets `retry_after` 3 s, not a whole
    window; the global limit refuses a 51st request at 0.4 s of its second with 0.6 s."""
    now = [0.0]
    limiter = RateLimiter(lambda: now[0])

    def post() -> Verdict:
        return limiter.check("POST", "/channels/10/messages", None, lambda: None)

    assert post().headers["X-RateLimit-Reset-After"] == "5.000"
    now[0] = 1.0
    assert post().headers["X-RateLimit-Reset-After"] == "4.000"
    assert [post().refused for _ in range(3)] == [False] * 3
    now[0] = 2.0
    refused = post()
    assert (refused.refused, refused.retry_after) == (True, 3.0)
    assert refused.headers["X-RateLimit-Reset-After"] == "3.000"

    now[0] = 10.0
    for _ in range(50):
        assert not limiter.check("GET", "/channels/10", "token", lambda: None).refused
    now[0] = 10.4
    late = limiter.check("GET", "/channels/10", "token", lambda: None)
    assert (late.refused, late.is_global) == (True, True)
    assert late.retry_after == pytest.approx(0.6)


async def test_a_shifted_fake_tells_the_reset_moment_in_its_own_time(
    fake: FakeDiscord, channels: list[FakeChannel], http: aiohttp.ClientSession
) -> None:
    """With the fake's clock a day ahead, a window's reset is a day ahead too: its
    `X-RateLimit-Reset` agrees with the time its messages' snowflakes carry."""
    day = 86_400.0
    fake.shift_clock(day)
    before = time.time()
    _status, headers, _body = await call(
        http, "POST", f"/channels/{channels[0].id}/messages", {"content": "m"}
    )
    reset_after = float(headers["X-RateLimit-Reset-After"])
    assert float(headers["X-RateLimit-Reset"]) >= before + day + reset_after - 0.001
    assert float(headers["X-RateLimit-Reset"]) <= time.time() + day + reset_after + 0.001


def test_the_reset_moment_is_on_the_fake_s_wall_clock() -> None:
    """`X-RateLimit-Reset` is the epoch second the window resets at, read on the fake's wall
    clock (a day ahead here), not the machine's."""
    day = 86_400.0
    limiter = RateLimiter(lambda: 0.0, lambda: 1_800_000_000.0 + day)
    first = limiter.check("POST", "/channels/10/messages", None, lambda: None)
    assert first.headers["X-RateLimit-Reset"] == f"{1_800_000_000.0 + day + 5:.3f}"


@pytest.mark.invalid_requests(401, 429)
async def test_an_interaction_webhook_takes_five_requests_in_2_s_for_15_minutes(
    fake: FakeDiscord, channels: list[FakeChannel], http: aiohttp.ClientSession
) -> None:
    handle = interaction(fake, channels[0])
    callback = f"/interactions/{handle.id}/{handle.token}/callback"
    assert (await call(http, "POST", callback, {"type": 5}))[0] == 204
    webhook = f"/webhooks/{fake.application_id}/{handle.token}"
    statuses = [(await call(http, "POST", webhook, {"content": f"f{n}"}))[0] for n in range(3)] + [
        (await call(http, "PATCH", webhook + "/messages/@original", {"content": "e"}))[0]
    ]
    status, headers, _ = await call(http, "GET", webhook + "/messages/@original")
    assert [*statuses, status] == [204, 204, 204, 200, 200]
    assert headers["X-RateLimit-Remaining"] == "0"
    assert (await call(http, "POST", webhook, {"content": "sixth"}))[0] == 429
    other = interaction(fake, channels[0])
    other_callback = f"/interactions/{other.id}/{other.token}/callback"
    assert (await call(http, "POST", other_callback, {"type": 5}))[0] == 204
    other_webhook = f"/webhooks/{fake.application_id}/{other.token}"
    assert (await call(http, "POST", other_webhook, {"content": "x"}))[0] == 204

    fake.shift_clock(2.0 * SCALE)
    assert (await call(http, "POST", webhook, {"content": "again"}))[0] == 204
    fake.shift_clock(2.0 * SCALE + 15 * 60)
    status, _, body = await call(http, "POST", webhook, {"content": "too late"})
    assert (status, body["code"]) == (401, 50027)
    assert [r.status for r in fake.invalid_requests] == [429, 401]


async def test_a_shared_limit_is_no_invalid_request(
    fake: FakeDiscord, channels: list[FakeChannel], http: aiohttp.ClientSession
) -> None:
    fake.faults.add("POST", "/channels/{channel_id}/messages", RateLimit(0.01, shared=True))
    status, headers, _ = await call(http, "POST", f"/channels/{channels[0].id}/messages", {})
    assert (status, headers["X-RateLimit-Scope"]) == (429, "shared")
    assert fake.invalid_requests == []


async def test_a_busy_channel_s_shared_write_limit_answers_code_20028(
    fake: FakeDiscord, channels: list[FakeChannel], http: aiohttp.ClientSession
) -> None:
    """Discord tells its shared write limit of a busy channel apart from a bucket's with code
    20028 in the 429's body, beside the scope `shared`."""
    fake.faults.add("POST", "/channels/{channel_id}/messages", RateLimit(0.01, shared=True))
    path = f"/channels/{channels[0].id}/messages"
    status, headers, body = await call(http, "POST", path, {"content": "x"})
    assert (status, headers["X-RateLimit-Scope"], body["code"]) == (429, "shared", 20028)
    assert body["global"] is False
    assert fake.messages(channels[0]) == [], "a refused request is not executed"


@pytest.mark.invalid_requests(429)
async def test_a_429_s_retry_after_header_is_its_retry_after_rounded_up_to_whole_seconds(
    fake: FakeDiscord, channels: list[FakeChannel], http: aiohttp.ClientSession
) -> None:
    """`Retry-After` has whole seconds, the body's `retry_after` the fraction: the header is
    never earlier than the body, so a client that follows it is not refused again. So says a
    full bucket's 429, and an injected one of 1.5 s says 2."""
    path = f"/channels/{channels[0].id}/messages"
    posts = [await call(http, "POST", path, {"content": f"m{n}"}) for n in range(6)]
    assert [status for status, _, _ in posts] == [200] * 5 + [429]
    _, headers, body = posts[5]
    assert int(headers["Retry-After"]) == math.ceil(body["retry_after"])

    fake.faults.rate_limit("POST", "/channels/{channel_id}/messages", retry_after=1.5)
    other = f"/channels/{channels[1].id}/messages"
    status, headers, body = await call(http, "POST", other, {"content": "x"})
    assert (status, body["retry_after"], headers["Retry-After"]) == (429, 1.5, "2")


@pytest.mark.invalid_requests(429)
async def test_deleting_a_message_takes_3_a_second_once_it_is_10_s_old_on_the_fake_s_clock(
    fake: FakeDiscord, channels: list[FakeChannel], http: aiohttp.ClientSession
) -> None:
    """A message's age for the delete limit is read on the fake's clock: four messages aged a
    minute with `shift_clock` are deleted 3 a second, the fourth refused, where four made after
    the shift (fresh on that clock) are deleted 5 a second."""
    old, fresh = (f"/channels/{channel.id}/messages" for channel in channels[:2])

    async def post_four(path: str) -> list[str]:
        return [(await call(http, "POST", path, {"content": f"m{n}"}))[2]["id"] for n in range(4)]

    aged = await post_four(old)
    fake.shift_clock(60.0)
    made_later = await post_four(fresh)
    deleted_old = [(await call(http, "DELETE", f"{old}/{i}"))[0] for i in aged]
    deleted_fresh = [(await call(http, "DELETE", f"{fresh}/{i}"))[0] for i in made_later]
    assert deleted_old == [204, 204, 204, 429]
    assert deleted_fresh == [204] * 4
    assert [m.content for m in fake.messages(channels[0])] == ["m3"]
    assert fake.messages(channels[1]) == []


async def test_discord_py_waits_on_the_headers_and_is_never_refused(
    fake: FakeDiscord, channels: list[FakeChannel]
) -> None:
    """Seven posts and seven edits at once in one channel through discord.py's HTTP client:
    it learns the bucket from the first answer and waits for the window instead of sending
    what would be refused (the windows are shortened here, to 1/50 of Discord's)."""
    fake.rest.limits.time_scale = 0.02
    client = discord.http.HTTPClient(asyncio.get_running_loop())
    previous = discord.http.Route.BASE
    discord.http.Route.BASE = fake.api_base_url
    try:
        await client.static_login("t")
        channel_id = channels[0].id
        posted = await asyncio.gather(
            *(client.send_message(channel_id, params=_content(f"m{n}")) for n in range(7))
        )
        await asyncio.gather(
            *(
                client.edit_message(channel_id, message["id"], params=_content("e"))
                for message in posted
            )
        )
    finally:
        discord.http.Route.BASE = previous
        await client.close()
    assert len(fake.messages(channels[0])) == 7
    assert all(message.edit_count == 1 for message in fake.messages(channels[0]))
    assert fake.invalid_requests == []


def _content(text: str) -> Any:
    return discord.http.handle_message_parameters(content=text)


async def test_the_callback_deadline_runs_from_the_click_even_when_the_bot_gets_it_later(
    fake: FakeDiscord, channels: list[FakeChannel]
) -> None:
    """Discord's 3 s for the first callback start when it makes the interaction: one made while
    the bot's gateway is down and replayed on RESUME after the deadline is already too late
    (shortened here to 0.3 s)."""
    fake.rest.callback_deadline = 0.3
    async with aiohttp.ClientSession(headers={"Authorization": "Bot t"}) as http:
        ws = await http.ws_connect(fake.gateway_url + "?v=10&encoding=json")
        assert (await ws.receive_json(timeout=5))["op"] == 10
        await ws.send_json({"op": 2, "d": {"token": "t", "intents": 1, "properties": {}}})
        seen = [await ws.receive_json(timeout=5) for _ in range(2)]  # READY, GUILD_CREATE
        assert [frame["t"] for frame in seen] == ["READY", "GUILD_CREATE"]
        await ws.close()
        await fake.wait_until(lambda: not fake.gateway.connected, timeout=5)

        user = fake.add_user("alice")
        assert channels[0].guild is not None
        fake.add_member(channels[0].guild, user)
        made = fake.interaction_from_payload(APPLICATION_COMMAND, user, channels[0], {"name": "x"})
        handle = fake.dispatch_interaction(made)
        await asyncio.sleep(0.4)

        ws = await http.ws_connect(fake.gateway_url + "?v=10&encoding=json")
        assert (await ws.receive_json(timeout=5))["op"] == 10
        session_id = seen[0]["d"]["session_id"]
        resume = {"token": "t", "session_id": session_id, "seq": seen[-1]["s"]}
        await ws.send_json({"op": 6, "d": resume})
        while (await ws.receive_json(timeout=5)).get("t") != "INTERACTION_CREATE":
            pass
        callback = f"{fake.api_base_url}/interactions/{handle.id}/{handle.token}/callback"
        async with http.post(callback, json={"type": 5}) as response:
            body = await response.json() if response.status != 204 else {}
            answer = (response.status, body.get("code"))
        await ws.close()
    assert answer == (404, 10062), "the 3 s ran out while the bot was away"
    assert handle.refusals == [10062]


async def test_a_first_callback_3_s_after_the_click_is_refused_unless_a_test_says_otherwise(
    fake: FakeDiscord, channels: list[FakeChannel], http: aiohttp.ClientSession
) -> None:
    """The fake's deadline for the first callback is Discord's 3 s by default: a callback for an
    interaction made 3.5 s ago (its `queued_at` set back) is refused with 404 / 10062."""
    assert fake.rest.callback_deadline == 3.0
    handle = interaction(fake, channels[0])
    handle.queued_at = time.perf_counter() - 3.5
    callback = f"/interactions/{handle.id}/{handle.token}/callback"
    status, _, body = await call(http, "POST", callback, {"type": 5})
    assert (status, body["code"]) == (404, 10062)
    assert (handle.refusals, handle.acknowledged) == ([10062], False)


@pytest.mark.invalid_requests(401)
async def test_an_interaction_token_works_until_15_minutes_and_not_after(
    fake: FakeDiscord, channels: list[FakeChannel], http: aiohttp.ClientSession
) -> None:
    """An acknowledged interaction's token takes a follow-up 10 s before its 15 minutes are
    over, on the fake's clock, and refuses one 10 s after with 401 / 50027."""
    handle = interaction(fake, channels[0])
    callback = f"/interactions/{handle.id}/{handle.token}/callback"
    assert (await call(http, "POST", callback, {"type": 5}))[0] == 204
    webhook = f"/webhooks/{fake.application_id}/{handle.token}"
    fake.shift_clock(15 * 60 - 10)
    assert (await call(http, "POST", webhook, {"content": "in time"}))[0] == 204
    fake.shift_clock(15 * 60 + 10)
    status, _, body = await call(http, "POST", webhook, {"content": "too late"})
    assert (status, body["code"]) == (401, 50027)
    assert [m.content for m in fake.messages(channels[0])] == ["in time"]


@pytest.mark.invalid_requests(401)
async def test_an_interaction_s_15_minutes_run_from_when_it_is_made_on_the_fake_s_clock(
    fake: FakeDiscord, channels: list[FakeChannel], http: aiohttp.ClientSession
) -> None:
    """An interaction made once the clock is 20 minutes ahead (as tests of async play move it)
    has a fresh token: a follow-up goes through, and one 15 minutes after the click gets
    401 / 50027."""
    fake.shift_clock(20 * 60)
    handle = interaction(fake, channels[0])
    callback = f"/interactions/{handle.id}/{handle.token}/callback"
    assert (await call(http, "POST", callback, {"type": 5}))[0] == 204
    webhook = f"/webhooks/{fake.application_id}/{handle.token}"
    status, _, body = await call(http, "POST", webhook, {"content": "in time"})
    assert (status, (body or {}).get("code")) == (204, None), "a fresh token was refused"
    fake.shift_clock(20 * 60 + 15 * 60 + 10)
    status, _, body = await call(http, "POST", webhook, {"content": "too late"})
    assert (status, body["code"]) == (401, 50027)
    assert [m.content for m in fake.messages(channels[0])] == ["in time"]


async def test_a_follow_up_before_the_interaction_is_acknowledged_is_refused(
    fake: FakeDiscord, channels: list[FakeChannel], http: aiohttp.ClientSession
) -> None:
    """An interaction's webhook exists only once its callback was taken: a follow-up, or an
    edit of @original, sent before gets 404 / 10015 (Unknown Webhook) and posts nothing."""
    handle = interaction(fake, channels[0])
    webhook = f"/webhooks/{fake.application_id}/{handle.token}"
    early = [
        await call(http, "POST", webhook, {"content": "too early"}),
        await call(http, "PATCH", webhook + "/messages/@original", {"content": "too early"}),
    ]
    assert [(status, body["code"]) for status, _, body in early] == [(404, 10015)] * 2
    assert fake.messages(channels[0], include_ephemeral=True) == []
