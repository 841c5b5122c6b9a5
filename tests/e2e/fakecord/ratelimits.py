"""Discord's rate limits, as observed on real Discord (docs/discord-limits.md, with sources).

Every route with a limit of its own has buckets: one per top-level resource (a channel, a
guild, an application, an interaction's webhook), each counting the requests of a fixed window
that starts with its first request. A request that finds its bucket full is refused with 429
and not executed; one that passes gets the `X-RateLimit-*` headers discord.py reads. Above the
routes, every request made with the bot token counts toward the global limit of 50 a second
(for every process and shard of the bot together: the token is what counts); the interaction
endpoints (the callback, and the interaction's webhook: follow-ups and its messages) do not.

Answers of 401, 403 and 429 (but a 429 of scope `shared`) are invalid requests: Discord bans an
address for an hour after 10,000 of them in 10 minutes, so the fake counts them
(`RecordedRequest.invalid`).

A bot process learns a bucket's count only from the answers it gets. One started while a
bucket's window still holds its predecessor's requests (a restart after a kill) cannot know
them: the first request it makes there may be refused, and only then does it wait. Such a 429
is `inherited` (`Verdict.inherited`): the bucket's last request came before the latest login
(`GET /users/@me`, the first request of every discord.py client). The fake cannot tell bot
processes apart (they share the token), so with several of them a login excuses the first 429
of every bucket not used since, whichever process meets it. The global limit is the same: each
process paces itself to its share of it, but the second a process is killed in still holds its
requests, which its successor cannot know of; a global 429 in a second that began before the
latest login is `inherited` too.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

GLOBAL_LIMIT = 50
"""Requests a second per bot token, every process and shard together."""
GLOBAL_PERIOD = 1.0
INTERACTION_PREFIXES = ("/interactions/", "/webhooks/")
"""Routes answered through an interaction's token: not bound to the global limit."""
LOGIN = "/users/@me"
"""The first request of every discord.py client (`Client.login`): a bot process starting."""
FRESH_MESSAGE_SECONDS = 10.0
"""Deleting a message younger than this has a limit of its own (5 / 1 s, older: 3 / 1 s)."""


@dataclass(frozen=True, slots=True)
class RouteLimit:
    """The limit of one route: `limit` requests per `period` seconds in each bucket.

    Routes with the same `bucket` share a bucket hash (what `X-RateLimit-Bucket` says), but each
    `counter` keeps its own count: a channel's POST and PATCH of messages are counted apart under
    one hash, as on Discord. `keys` names the path parts that pick the bucket (the top-level
    resource)."""

    method: str
    route: re.Pattern[str]
    bucket: str
    limit: int
    period: float
    keys: tuple[str, ...]
    counter: str = ""

    def key(self, path: str) -> str | None:
        match = self.route.fullmatch(path)
        if match is None:
            return None
        return ":".join([self.bucket, self.counter, *(match[name] for name in self.keys)])


def _route(
    method: str,
    template: str,
    bucket: str,
    limit: int,
    period: float,
    *keys: str,
    counter: str = "",
) -> RouteLimit:
    escaped = re.escape(template)
    route = re.compile(re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", escaped))
    return RouteLimit(method, route, bucket, limit, period, keys, counter)


CHANNEL_MESSAGES = "/channels/{channel_id}/messages"
WEBHOOK = "/webhooks/{app_id}/{token}"
APP_COMMANDS = "/applications/{app_id}/commands"
GUILD_COMMANDS = "/applications/{app_id}/guilds/{guild_id}/commands"
REACTIONS = CHANNEL_MESSAGES + "/{message_id}/reactions/{emoji}/{user}"

ROUTE_LIMITS: tuple[RouteLimit, ...] = (
    _route("POST", WEBHOOK, "interaction-webhook", 5, 2.0, "app_id", "token"),
    *(
        _route(
            method,
            WEBHOOK + "/messages/{message_id}",
            "interaction-webhook",
            5,
            2.0,
            "app_id",
            "token",
        )
        for method in ("GET", "PATCH", "DELETE")
    ),
    _route("POST", CHANNEL_MESSAGES, "messages", 5, 5.0, "channel_id", counter="post"),
    _route(
        "PATCH",
        CHANNEL_MESSAGES + "/{message_id}",
        "messages",
        5,
        5.0,
        "channel_id",
        counter="patch",
    ),
    _route("GET", CHANNEL_MESSAGES, "history", 5, 5.0, "channel_id"),
    _route("POST", "/channels/{channel_id}/typing", "typing", 5, 5.0, "channel_id"),
    *(
        _route(method, template, "reactions", 1, 0.25, "channel_id")
        for method in ("PUT", "DELETE")
        for template in (REACTIONS, CHANNEL_MESSAGES + "/{message_id}/reactions/{emoji}")
    ),
    *(
        _route(method, template, "pins", 5, 4.0, "channel_id")
        for method, template in (
            ("GET", CHANNEL_MESSAGES + "/pins"),
            ("PUT", CHANNEL_MESSAGES + "/pins/{message_id}"),
            ("DELETE", CHANNEL_MESSAGES + "/pins/{message_id}"),
            ("GET", "/channels/{channel_id}/pins"),
            ("PUT", "/channels/{channel_id}/pins/{message_id}"),
            ("DELETE", "/channels/{channel_id}/pins/{message_id}"),
        )
    ),
    # After the pins: `{message_id}` would also match `/messages/pins`.
    _route("GET", CHANNEL_MESSAGES + "/{message_id}", "message", 5, 5.0, "channel_id"),
    _route("GET", "/guilds/{guild_id}/members", "members", 10, 10.0, "guild_id"),
    _route("GET", "/guilds/{guild_id}/members/{user_id}", "member", 5, 1.0, "guild_id"),
    _route("GET", "/users/@me/guilds", "my-guilds", 1, 1.0),
    _route("GET", "/users/{user_id}", "user", 30, 30.0),
    _route("GET", "/gateway/bot", "gateway-bot", 2, 5.0),
    _route("PUT", APP_COMMANDS, "commands-bulk", 2, 60.0, "app_id"),
    _route("PUT", GUILD_COMMANDS, "commands-bulk", 2, 60.0, "app_id", "guild_id"),
    *(
        _route(method, template, "command", 5, 20.0, *keys)
        for method, template, keys in (
            ("POST", APP_COMMANDS, ("app_id",)),
            ("PATCH", APP_COMMANDS + "/{command_id}", ("app_id",)),
            ("DELETE", APP_COMMANDS + "/{command_id}", ("app_id",)),
            ("POST", GUILD_COMMANDS, ("app_id", "guild_id")),
            ("PATCH", GUILD_COMMANDS + "/{command_id}", ("app_id", "guild_id")),
            ("DELETE", GUILD_COMMANDS + "/{command_id}", ("app_id", "guild_id")),
        )
    ),
)
"""The per-route limits of docs/discord-limits.md; any other route has none (the global one
counts it). Deleting a channel's message is decided apart (`RateLimiter._limit_of`): its limit
depends on the message's age."""

DELETE_MESSAGE = _route(
    "DELETE", CHANNEL_MESSAGES + "/{message_id}", "delete-message", 5, 1.0, "channel_id"
)
DELETE_OLD_MESSAGE = RouteLimit(
    DELETE_MESSAGE.method,
    DELETE_MESSAGE.route,
    DELETE_MESSAGE.bucket,
    3,
    1.0,
    DELETE_MESSAGE.keys,
    counter="old",
)


@dataclass(slots=True)
class Window:
    """One bucket's count in its current window."""

    limit: int
    period: float
    count: int = 0
    resets_at: float = 0.0
    last_request: float = -math.inf
    """When the bucket last had a request, refused or not."""

    def roll(self, now: float) -> None:
        if now >= self.resets_at:
            self.count = 0
            self.resets_at = now + self.period

    def reset_after(self, now: float) -> float:
        return max(0.0, self.resets_at - now)


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the limits say of one request: go on (with these headers), or 429."""

    headers: dict[str, str]
    refused: bool = False
    retry_after: float = 0.0
    is_global: bool = False
    counts_globally: bool = False
    inherited: bool = False
    """Refused in a bucket with no request since the latest login, whose count was spent
    before it, or by the global limit in a second that began before it (see the module)."""


@dataclass(slots=True)
class RateLimiter:
    """The buckets and the global count of one fake Discord; `clock` is its monotonic time,
    `wall_clock` its epoch time (both shifted with the fake's clock)."""

    clock: Callable[[], float]
    wall_clock: Callable[[], float] = time.time
    """The fake's epoch seconds (shifted with its clock): `X-RateLimit-Reset` is a moment in
    them, as Discord's is in real time."""
    enabled: bool = True
    global_limit: int = GLOBAL_LIMIT
    time_scale: float = 1.0
    """Every window's length is multiplied by it (a test of waiting on the headers may
    shorten them); the counts stay Discord's."""
    logged_in_at: float = -math.inf
    """When the latest bot process logged in (`GET /users/@me`)."""
    _buckets: dict[str, Window] = field(default_factory=dict)
    _global: dict[str, Window] = field(default_factory=dict)

    def check(
        self, method: str, path: str, token: str | None, message_age: Callable[[], float | None]
    ) -> Verdict:
        """Count a request (`path` relative to /api/v10, `token` the bot token it carries, if
        any) and say whether it may go on. `message_age` gives the age of the message a DELETE
        of a channel message is about (None: unknown)."""
        counts_globally = token is not None and not path.startswith(INTERACTION_PREFIXES)
        if not self.enabled:
            return Verdict({}, counts_globally=counts_globally)
        now = self.clock()
        if method == "GET" and path == LOGIN:
            self.logged_in_at = now
        if counts_globally:
            assert token is not None
            window = self._global.setdefault(
                token, Window(self.global_limit, GLOBAL_PERIOD * self.time_scale)
            )
            window.roll(now)
            if window.count >= window.limit:
                retry = math.ceil(window.reset_after(now) * 1000) / 1000
                headers = {"X-RateLimit-Global": "true", "X-RateLimit-Scope": "global"}
                began = window.resets_at - window.period
                return Verdict(
                    headers,
                    True,
                    retry,
                    is_global=True,
                    counts_globally=True,
                    inherited=began < self.logged_in_at,
                )
            window.count += 1
        limit = self._limit_of(method, path, message_age)
        if limit is None:
            return Verdict({}, counts_globally=counts_globally)
        key = limit.key(path)
        assert key is not None
        window = self._buckets.setdefault(key, Window(limit.limit, limit.period * self.time_scale))
        window.roll(now)
        refused = window.count >= window.limit
        inherited = refused and window.last_request < self.logged_in_at
        window.last_request = now
        if not refused:
            window.count += 1
        reset_after = math.ceil(window.reset_after(now) * 1000) / 1000  # never early
        headers = {
            "X-RateLimit-Limit": str(window.limit),
            "X-RateLimit-Remaining": str(window.limit - window.count),
            "X-RateLimit-Reset": f"{self.wall_clock() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": bucket_hash(limit.bucket),
        }
        if refused:
            headers["X-RateLimit-Scope"] = "user"
        return Verdict(
            headers, refused, reset_after, counts_globally=counts_globally, inherited=inherited
        )

    def _limit_of(
        self, method: str, path: str, message_age: Callable[[], float | None]
    ) -> RouteLimit | None:
        if method == "DELETE" and DELETE_MESSAGE.key(path) is not None:
            age = message_age()
            fresh = age is not None and age < FRESH_MESSAGE_SECONDS
            return DELETE_MESSAGE if fresh else DELETE_OLD_MESSAGE
        for limit in ROUTE_LIMITS:
            if limit.method == method and limit.route.fullmatch(path) is not None:
                return limit
        return None


def bucket_hash(bucket: str) -> str:
    """A bucket's opaque hash, as Discord names it in `X-RateLimit-Bucket`."""
    return hashlib.md5(bucket.encode(), usedforsecurity=False).hexdigest()[:16]


def retry_after_header(seconds: float) -> str:
    """`Retry-After` is whole seconds (the body's `retry_after` has the fraction)."""
    return str(max(1, math.ceil(seconds)))
