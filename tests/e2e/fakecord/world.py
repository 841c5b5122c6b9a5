"""The fake's shared state: everything REST, the gateway and tests see, plus change waiting."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from . import permissions as perms
from .attachment_links import MissingAttachment
from .commands import CommandRegistry
from .model import DM_CHANNEL, FakeChannel, FakeGuild, FakeMessage, FakeUser
from .snowflakes import SnowflakeGenerator

INVALID_STATUSES = (401, 403, 429)
REFUSED_STATUSES = (400, 413)
"""Answers to a request Discord refuses as malformed: a body over a limit or against a rule
(400: 50035 Invalid Form Body, 50006 empty message, 40060 already acknowledged, ...), a file
too large (413 / 40005)."""
REFUSED_NOT_FOUND_CODES = (10062, 10015)
"""The 404s that refuse an interaction's answer: 10062 Unknown interaction (its callback came
after Discord's 3 s, or was never its own), 10015 Unknown Webhook (a follow-up or edit of an
interaction never acknowledged). Other 404s (10008 Unknown Message: a message someone else
deleted) are things a bot meets without fault."""

WAIT_SECONDS = 15.0
"""How long a test's wait for the bot (an answer, a message, a condition) lasts unless it says
otherwise: a bound for a failing test, not a deadline the bot must meet. On a busy machine (two
test processes, several bots and a PostgreSQL server on two cores) an answer may come after
Discord's 3 s; how fast the bot answers is measured by the load benchmarks
(docs/performance.md), never by a test's wait."""

if TYPE_CHECKING:
    from .interactions import InteractionHandle

T = TypeVar("T")

DM_APP_PERMISSIONS = (
    perms.VIEW_CHANNEL
    | perms.SEND_MESSAGES
    | perms.EMBED_LINKS
    | perms.ATTACH_FILES
    | perms.READ_MESSAGE_HISTORY
    | perms.ADD_REACTIONS
    | perms.USE_EXTERNAL_EMOJIS
)


@dataclass(slots=True)
class RecordedRequest:
    """A REST request the fake received, with the status it answered."""

    method: str
    path: str
    status: int
    at: float
    fault: str | None = None
    """The injected fault that answered it (faults.py), if one did."""
    bot_token: bool = False
    """Made with the bot token, outside an interaction: it counts toward the global limit."""
    scope: str | None = None
    """A 429's X-RateLimit-Scope: "user" (a route's bucket), "global" or "shared"."""
    inherited: bool = False
    """A 429 of a bucket spent by an earlier bot process that this one could not know of
    (ratelimits.py): the first request a process started since made there."""
    code: int | None = None
    """The Discord error code its answer carried (50035, 10062, ...), if it was an error."""
    field: str | None = None
    """The fields a 50035 Invalid Form Body names ("content", "components.0.components.1.label",
    several joined by ", "), if it named any."""

    @property
    def invalid(self) -> bool:
        """An answer Discord counts toward its ban on invalid requests: 401, 403, or a 429 that
        is not of scope "shared"."""
        return self.status in INVALID_STATUSES and self.scope != "shared"

    @property
    def refused(self) -> bool:
        """An answer refusing a request Discord would not take as sent: 400 or 413, or a 404
        refusing an interaction's answer (10062, 10015). The player never sees what it
        carried."""
        if self.status == 404:
            return self.code in REFUSED_NOT_FOUND_CODES
        return self.status in REFUSED_STATUSES

    def describe(self) -> str:
        """The line a failed check shows of it: POST /channels/1/messages -> 400 50035 (content)."""
        code = f" {self.code}" if self.code is not None else ""
        field = f" ({self.field})" if self.field else ""
        return f"{self.method} {self.path} -> {self.status}{code}{field}"


@dataclass(slots=True)
class World:
    """Users, guilds, channels, messages, commands and interactions of one fake Discord."""

    bot_user: FakeUser
    snowflakes: SnowflakeGenerator = field(default_factory=SnowflakeGenerator)
    users: dict[int, FakeUser] = field(default_factory=dict)
    guilds: dict[int, FakeGuild] = field(default_factory=dict)
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    messages: dict[int, FakeMessage] = field(default_factory=dict)
    commands: CommandRegistry = field(default_factory=CommandRegistry)
    interactions: dict[int, InteractionHandle] = field(default_factory=dict)
    interactions_by_token: dict[str, InteractionHandle] = field(default_factory=dict)
    requests: list[RecordedRequest] = field(default_factory=list)
    unhandled: list[RecordedRequest] = field(default_factory=list)
    missing_attachments: list[MissingAttachment] = field(default_factory=list)
    """Every embed link to a file its message did not have (attachment_links.py)."""
    base_url: str = ""
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    application_flags: int = 0
    observers: list[Callable[[], None]] = field(default_factory=list)
    """Called at once after every change, before any waiter wakes (see `notify`)."""
    clock_offset: float = 0.0
    """Seconds the fake's clock is ahead of real time (FakeDiscord.shift_clock)."""

    def now(self) -> float:
        """The fake's monotonic time: `time.perf_counter()` moved by the clock's shift; token
        lifetimes and rate-limit windows are measured on it."""
        return time.perf_counter() + self.clock_offset

    def wall_time(self) -> float:
        """The fake's epoch seconds: `time.time()` moved by the clock's shift, as its
        snowflakes carry it."""
        return time.time() + self.snowflakes.offset

    @property
    def invalid_requests(self) -> list[RecordedRequest]:
        """Every request answered 401, 403 or 429 (not "shared"), injected faults included."""
        return [request for request in self.requests if request.invalid]

    @property
    def refused_requests(self) -> list[RecordedRequest]:
        """Every request refused as malformed or answered too late (`RecordedRequest.refused`),
        injected faults included."""
        return [request for request in self.requests if request.refused]

    @property
    def application_id(self) -> int:
        return self.bot_user.id

    def notify(self) -> None:
        """Call every observer, then wake every waiter so it re-checks its predicate (call after
        any change). Observers see each change as it is made: waiters may wake only after
        several."""
        for observer in self.observers:
            observer()
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_for(
        self,
        probe: Callable[[], T | None],
        *,
        timeout: float = WAIT_SECONDS,
        what: str = "condition",
    ) -> T:
        """Wait until ``probe()`` returns something other than None/False, and return it.

        The probe is looked at again on every change of the fake, and only then: a probe that
        comes true with no change of the fake (it reads the database, a file, the clock) would
        pass only as the wait runs out, so that is refused with an AssertionError saying to
        wait for it with `tests.polling.until`."""
        deadline = time.monotonic() + timeout
        while True:
            value = probe()
            if value is not None and value is not False:
                return value
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"fakecord: timed out after {timeout} s waiting for {what}")
            changed = self._changed
            try:
                await asyncio.wait_for(changed.wait(), remaining)
            except TimeoutError:
                value = probe()
                if not changed.is_set() and value is not None and value is not False:
                    raise AssertionError(
                        f"fakecord: {what} came true with no change of the fake, found only "
                        f"when the {timeout} s wait ran out: wait for what the fake does not "
                        "hold (the database, a file, a log) with tests.polling.until"
                    ) from None
                continue

    def register_interaction(self, handle: InteractionHandle) -> None:
        """Make an interaction known to the REST API (callback and webhook routes)."""
        self.interactions[handle.id] = handle
        self.interactions_by_token[handle.token] = handle

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel between ``user`` and the bot (made on first use)."""
        for channel in self.channels.values():
            if channel.type == DM_CHANNEL and channel.recipient is user:
                return channel
        channel = FakeChannel(id=self.snowflakes.next(), name="", type=DM_CHANNEL, recipient=user)
        self.channels[channel.id] = channel
        return channel

    def bot_permissions(self, channel: FakeChannel) -> int:
        """The bot's computed permissions in a channel (its app_permissions)."""
        if channel.guild is None:
            return DM_APP_PERMISSIONS
        return channel.guild.permissions_in(channel, self.bot_user.id)

    def channel_messages(self, channel_id: int) -> list[FakeMessage]:
        channel = self.channels[channel_id]
        return [self.messages[m] for m in channel.message_ids if not self.messages[m].deleted]

    def attachment_url(self, channel_id: int, attachment_id: int, filename: str) -> str:
        return f"{self.base_url}/attachments/{channel_id}/{attachment_id}/{filename}"
