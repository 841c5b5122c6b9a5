"""FakeDiscord: the in-process fake Discord (REST + gateway) and its test-facing control API."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterable, Mapping
from types import TracebackType
from typing import Any, TypeVar

from aiohttp import web

from . import permissions as perms
from .attachment_links import MissingAttachment
from .faults import FaultInjector
from .gateway import GUILDS_INTENT, Gateway, GatewaySession, NoGatewaySessionError, shard_of
from .interaction_payloads import (
    check_command_visible,
    command_data,
    component_data,
    new_handle,
)
from .interactions import (
    APPLICATION_COMMAND,
    MESSAGE_COMPONENT,
    InteractionHandle,
    InteractionInputError,
    LatencyStats,
    latency_stats,
)
from .messages import MessageStore
from .model import (
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
)
from .rest import API_PREFIX, RestApi
from .world import WAIT_SECONDS, RecordedRequest, World

T = TypeVar("T")

Json = dict[str, Any]

DEFAULT_BOT_PERMISSIONS = perms.DEFAULT_EVERYONE
"""The bot role's permissions: what an invite link asking for the usual set grants."""


class FakeDiscord:
    """A fake Discord on 127.0.0.1 that real discord.py clients log in to and run against."""

    def __init__(
        self,
        *,
        bot_name: str = "Fakecord Bot",
        heartbeat_interval_ms: int = 41_250,
        shard_count: int = 1,
        rate_limits: bool = True,
    ):
        """``shard_count`` is what ``GET /gateway/bot`` recommends and the fewest shards an
        IDENTIFY may use (see gateway.py). ``rate_limits`` applies Discord's (ratelimits.py)."""
        if shard_count < 1:
            raise ValueError("shard_count must be at least 1")
        self.world = World(bot_user=FakeUser(id=0, name=bot_name, bot=True))
        self.world.bot_user.id = self.world.snowflakes.next()
        self.world.users[self.world.bot_user.id] = self.world.bot_user
        self.faults = FaultInjector()
        self.gateway = Gateway(
            self._ready_payloads,
            self.world.notify,
            heartbeat_interval_ms=heartbeat_interval_ms,
            shard_count=shard_count,
        )
        self.store = MessageStore(self.world, self.gateway)
        self.rest = RestApi(self.world, self.gateway, self.faults, self.store)
        self.rest.limits.enabled = rate_limits
        self._runner: web.AppRunner | None = None
        self.port = 0

    # -- lifecycle

    async def start(self) -> None:
        """Listen on a free loopback port."""
        self._runner = web.AppRunner(
            self.rest.application(), handle_signals=False, shutdown_timeout=0.5
        )
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        site = web.SockSite(self._runner, sock)
        await site.start()
        self.world.base_url = f"http://127.0.0.1:{self.port}"
        self.gateway.url = f"ws://127.0.0.1:{self.port}/gateway"

    async def stop(self) -> None:
        self.faults.clear()
        await self.gateway.close_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @property
    def api_base_url(self) -> str:
        """What to put in DISCORD_API_BASE_URL (discord.http.Route.BASE)."""
        return self.world.base_url + API_PREFIX

    @property
    def gateway_url(self) -> str:
        return self.gateway.url

    @property
    def expected_token(self) -> str | None:
        """The only token accepted (REST 401, gateway close 4004); None accepts any."""
        return self.rest.expected_token

    @expected_token.setter
    def expected_token(self, token: str | None) -> None:
        self.rest.expected_token = token
        self.gateway.expected_token = token

    @property
    def bot_user(self) -> FakeUser:
        return self.world.bot_user

    @property
    def shard_count(self) -> int:
        """The shard count Discord recommends for the bot (``GET /gateway/bot``)."""
        return self.gateway.shard_count

    @staticmethod
    def shard_of(guild: FakeGuild | int, shard_count: int) -> int:
        """The shard that gets ``guild``'s events: ``(guild_id >> 22) % shard_count``."""
        return shard_of(guild if isinstance(guild, int) else guild.id, shard_count)

    @property
    def application_id(self) -> int:
        return self.world.application_id

    # -- building the world

    def add_user(self, name: str, *, locale: str = "en-US") -> FakeUser:
        user = FakeUser(id=self.world.snowflakes.next(), name=name, locale=locale)
        self.world.users[user.id] = user
        return user

    def add_guild(
        self,
        name: str = "Fakecord guild",
        *,
        preferred_locale: str = "en-US",
        owner: FakeUser | None = None,
        bot_permissions: int = DEFAULT_BOT_PERMISSIONS,
        everyone_permissions: int = perms.DEFAULT_EVERYONE,
        shard: int | None = None,
    ) -> FakeGuild:
        """A guild the bot is in (with its own managed role); announced if the bot is online.
        With ``shard``, its id falls on that shard of ``shard_count``."""
        if shard is not None and not 0 <= shard < self.shard_count:
            raise ValueError(f"shard {shard} is not within 0..{self.shard_count - 1}")
        owner = owner or self.add_user(f"{name} owner")
        guild_id = (
            self.world.snowflakes.next()
            if shard is None
            else self.world.snowflakes.next_on_shard(shard, self.shard_count)
        )
        guild = FakeGuild(
            id=guild_id,
            name=name,
            owner_id=owner.id,
            preferred_locale=preferred_locale,
        )
        guild.roles[guild.id] = FakeRole(guild.id, "@everyone", everyone_permissions)
        bot_role = FakeRole(
            self.world.snowflakes.next(), self.bot_user.name, bot_permissions, 1, True
        )
        guild.roles[bot_role.id] = bot_role
        guild.members[owner.id] = FakeMember(owner)
        guild.members[self.bot_user.id] = FakeMember(self.bot_user, [bot_role.id])
        self.world.guilds[guild.id] = guild
        self.gateway.dispatch_if_session(
            "GUILD_CREATE", guild.to_payload(self.bot_user.id), guild_id=guild.id
        )
        self.world.notify()
        return guild

    def add_member(
        self, guild: FakeGuild, user: FakeUser, *, permissions: int = 0, nick: str | None = None
    ) -> FakeMember:
        """Make ``user`` a member; extra ``permissions`` come through a role of their own."""
        member = FakeMember(user, nick=nick)
        if permissions:
            role = FakeRole(self.world.snowflakes.next(), f"{user.name} role", permissions, 1)
            guild.roles[role.id] = role
            member.role_ids.append(role.id)
            self.gateway.dispatch_if_session(
                "GUILD_ROLE_CREATE",
                {"guild_id": str(guild.id), "role": role.to_payload()},
                guild_id=guild.id,
            )
        guild.members[user.id] = member
        self.world.notify()
        return member

    def add_role(self, guild: FakeGuild, name: str, *, permissions: int = 0) -> FakeRole:
        """A role of the guild that no member holds yet; announced if the bot is online."""
        role = FakeRole(self.world.snowflakes.next(), name, permissions, 1)
        guild.roles[role.id] = role
        self.gateway.dispatch_if_session(
            "GUILD_ROLE_CREATE",
            {"guild_id": str(guild.id), "role": role.to_payload()},
            guild_id=guild.id,
        )
        self.world.notify()
        return role

    def remove_member(self, guild: FakeGuild, user: FakeUser) -> None:
        """``user`` leaves the guild (Discord tells the bot only with the privileged Server
        Members intent, so nothing is announced)."""
        del guild.members[user.id]
        self.world.notify()

    def add_text_channel(self, guild: FakeGuild, name: str = "general") -> FakeChannel:
        channel = FakeChannel(
            id=self.world.snowflakes.next(), name=name, guild=guild, position=len(guild.channels)
        )
        return self._add_channel(guild, channel, "CHANNEL_CREATE")

    def add_thread(
        self,
        parent: FakeChannel,
        name: str = "thread",
        *,
        private: bool = False,
        owner: FakeUser | None = None,
    ) -> FakeChannel:
        """A thread under ``parent``; its permissions come from the parent's overwrites."""
        guild = parent.guild
        if guild is None:
            raise ValueError("threads live in guild channels")
        thread = FakeChannel(
            id=self.world.snowflakes.next(),
            name=name,
            type=PRIVATE_THREAD if private else PUBLIC_THREAD,
            guild=guild,
            parent_id=parent.id,
            owner_id=(owner or self.bot_user).id,
        )
        thread.members.add(thread.owner_id or self.bot_user.id)
        return self._add_channel(guild, thread, "THREAD_CREATE")

    def threads(self, parent: FakeChannel) -> list[FakeChannel]:
        """The threads under ``parent``, oldest first (made by tests or by the bot)."""
        return sorted(
            (c for c in self.world.channels.values() if c.parent_id == parent.id),
            key=lambda channel: channel.id,
        )

    def archive(self, thread: FakeChannel) -> None:
        """Archive a thread, as Discord does after its inactivity; sends THREAD_UPDATE. A
        message posted in it (by someone allowed to) unarchives it."""
        thread.archived = True
        guild = thread.guild
        self.gateway.dispatch_if_session(
            "THREAD_UPDATE", thread.to_payload(), guild_id=guild.id if guild else None
        )
        self.world.notify()

    def _add_channel(self, guild: FakeGuild, channel: FakeChannel, event: str) -> FakeChannel:
        guild.channels[channel.id] = channel
        self.world.channels[channel.id] = channel
        self.gateway.dispatch_if_session(event, channel.to_payload(), guild_id=guild.id)
        self.world.notify()
        return channel

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel between ``user`` and the bot."""
        return self.world.dm_channel(user)

    def set_overwrite(
        self,
        channel: FakeChannel,
        target: FakeUser | FakeRole | FakeGuild,
        *,
        allow: int = 0,
        deny: int = 0,
    ) -> None:
        """Set a permission overwrite (a thread's is set on its parent); sends CHANNEL_UPDATE."""
        guild = channel.guild
        if guild is None:
            raise ValueError("DM channels have no overwrites")
        if channel.is_thread and channel.parent_id is not None:
            channel = guild.channels[channel.parent_id]
        kind = perms.MEMBER if isinstance(target, FakeUser) else perms.ROLE
        target_id = target.id
        channel.overwrites = [o for o in channel.overwrites if o.target_id != target_id]
        if allow or deny:
            channel.overwrites.append(perms.Overwrite(target_id, kind, allow, deny))
        self.gateway.dispatch_if_session(
            "CHANNEL_UPDATE", channel.to_payload(), GUILDS_INTENT, guild_id=guild.id
        )
        self.world.notify()

    def deny_bot(self, channel: FakeChannel, permissions: int) -> None:
        """Deny the bot ``permissions`` in ``channel`` (e.g. perms.ATTACH_FILES)."""
        self.set_overwrite(channel, self.bot_user, deny=permissions)

    def allow_bot(self, channel: FakeChannel) -> None:
        """Remove the bot's overwrite in ``channel``."""
        self.set_overwrite(channel, self.bot_user)

    # -- interactions

    async def slash(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        *path: str,
        options: Mapping[str, Any] | None = None,
        validate: bool = True,
        **values: Any,
    ) -> InteractionHandle:
        """Dispatch ``/command path... option=value`` from ``user`` in ``channel``.

        Options may be given as keywords or in ``options`` (for names that are not
        identifiers). Users, channels and roles are passed as FakeUser/FakeChannel/FakeRole and
        are added to ``resolved``. With ``validate`` (the default) the call must match the
        registered command as a Discord client would enforce it.
        """
        guild_id = channel.guild.id if channel.guild is not None else None
        registered = self.world.commands.find(guild_id, command)
        if registered is None:
            raise InteractionInputError(
                f"/{command} is not registered (have {sorted(self.world.commands.names())})"
            )
        if validate:
            check_command_visible(registered, user, channel)
        merged = {**values, **(options or {})}
        data = command_data(self.world, channel, registered, list(path), merged, validate=validate)
        return self.dispatch_interaction(
            new_handle(self.world, APPLICATION_COMMAND, user, channel, data)
        )

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage | int,
        custom_id: str,
        *,
        values: list[str] | None = None,
        validate: bool = True,
    ) -> InteractionHandle:
        """Dispatch a button click (or a select with ``values``) on ``message`` by ``user``."""
        message = self.world.messages[message if isinstance(message, int) else message.id]
        if validate and message.visible_to is not None and message.visible_to != user.id:
            raise InteractionInputError(f"{user.name} cannot see ephemeral message {message.id}")
        channel = self.world.channels[message.channel_id]
        data = component_data(message, custom_id, values, validate=validate)
        return self.dispatch_interaction(
            new_handle(self.world, MESSAGE_COMPONENT, user, channel, data, message=message)
        )

    def interaction_from_payload(
        self,
        kind: int,
        user: FakeUser,
        channel: FakeChannel,
        data: Json,
        *,
        message: FakeMessage | None = None,
    ) -> InteractionHandle:
        """A handle for any hand-made ``data`` (for malformed input); dispatch it yourself."""
        return new_handle(self.world, kind, user, channel, data, message=message)

    def dispatch_interaction(self, handle: InteractionHandle) -> InteractionHandle:
        """Send INTERACTION_CREATE now (or on RESUME if the connection is down) to the session
        of the guild's shard. When no session holds that shard, the interaction is lost, as on
        Discord: ``handle.undelivered`` is set and nothing ever answers it."""
        self.world.register_interaction(handle)
        handle.queued_at = time.perf_counter()
        guild = handle.channel.guild
        frame = self.gateway.dispatch(
            "INTERACTION_CREATE",
            handle.payload,
            guild_id=guild.id if guild is not None else None,
            on_sent=handle.mark_dispatched,
        )
        handle.undelivered = frame is None
        return handle

    def latency(self) -> LatencyStats:
        """Dispatch-to-first-callback latency over every interaction so far."""
        return latency_stats(list(self.world.interactions.values()))

    # -- reading what the bot did

    def messages(
        self, channel: FakeChannel, *, include_ephemeral: bool = False
    ) -> list[FakeMessage]:
        """The channel's messages, oldest first (deleted ones left out)."""
        found = self.world.channel_messages(channel.id)
        return found if include_ephemeral else [m for m in found if not m.ephemeral]

    def latest_with_components(
        self, channel: FakeChannel, *, include_ephemeral: bool = False
    ) -> FakeMessage:
        """The newest message in ``channel`` that has live buttons or selects."""
        for message in reversed(self.messages(channel, include_ephemeral=include_ephemeral)):
            if message.enabled_buttons():
                return message
        raise LookupError(f"no message with enabled components in #{channel.name}")

    async def wait_for_message(
        self,
        channel: FakeChannel,
        predicate: Callable[[FakeMessage], bool] | None = None,
        *,
        timeout: float = WAIT_SECONDS,
        include_ephemeral: bool = False,
    ) -> FakeMessage:
        """The newest message in ``channel`` for which ``predicate(message)`` holds, once there."""

        def probe() -> FakeMessage | None:
            for message in reversed(self.messages(channel, include_ephemeral=include_ephemeral)):
                if predicate is None or predicate(message):
                    return message
            return None

        return await self.world.wait_for(
            probe, timeout=timeout, what=f"a message in #{channel.name}"
        )

    def observe(self, observer: Callable[[], None]) -> None:
        """Call `observer()` right after every change the fake makes (a message created, edited
        or deleted, an interaction answered, ...), before anything waiting wakes: it sees every
        state the world goes through, which `wait_until` may skip. It must not raise."""
        self.world.observers.append(observer)

    def transcript(self, channel: FakeChannel, *, include_ephemeral: bool = True) -> str:
        """A readable dump of the channel (for assertion messages when a test fails)."""
        lines = []
        for message in self.messages(channel, include_ephemeral=include_ephemeral):
            marks = [
                mark
                for mark, present in (
                    ("ephemeral", message.ephemeral),
                    ("loading", message.loading),
                    (f"edited x{message.edit_count}", message.edit_count),
                    ("embeds hidden", message.embeds_dropped),
                )
                if present
            ]
            lines.append(f"[{message.id}] {' '.join(marks)}".rstrip())
            if message.content:
                lines.append(f"  content: {message.content}")
            lines.extend(f"  embed: {text}" for text in message.embed_text().splitlines() if text)
            for button in message.buttons():
                state = " (disabled)" if button.disabled else ""
                lines.append(f"  button: {button.label!r} -> {button.custom_id}{state}")
            lines.extend(
                f"  file: {attachment.filename} ({attachment.size} bytes)"
                for attachment in message.attachments
            )
            if message.pinged_user_ids:
                names = sorted(self.world.users[u].name for u in message.pinged_user_ids)
                lines.append(f"  pinged: {', '.join(names)}")
        return "\n".join(lines)

    def pings(self, channel: FakeChannel) -> list[tuple[FakeMessage, frozenset[int]]]:
        """Every message in ``channel`` that notified someone, with who."""
        return [(m, m.pinged_user_ids) for m in self.messages(channel) if m.pinged_user_ids]

    def requests_to(self, method: str, path_fragment: str) -> list[RecordedRequest]:
        """Recorded REST requests whose method matches and path contains the fragment."""
        return [
            r for r in self.world.requests if r.method == method.upper() and path_fragment in r.path
        ]

    @property
    def invalid_requests(self) -> list[RecordedRequest]:
        """Requests answered 401, 403 or 429 (not of scope "shared"): what Discord counts toward
        banning the bot's address. Those an injected fault answered have ``fault`` set."""
        return self.world.invalid_requests

    @property
    def refused_requests(self) -> list[RecordedRequest]:
        """Requests Discord refuses as sent (`RecordedRequest.refused`: 400, 413, a 404 of an
        interaction's answer, 10062 or 10015), with their `code` and the `field` a 50035 names:
        a message no player sees. Those an injected fault answered have ``fault`` set."""
        return self.world.refused_requests

    def bot_token_requests(self, since: int = 0) -> list[RecordedRequest]:
        """Requests that counted toward the global limit (made with the bot token, outside any
        interaction), from the ``since``-th request recorded on."""
        return [r for r in self.world.requests[since:] if r.bot_token]

    def shift_clock(self, seconds: float) -> None:
        """Move the fake's clock to ``seconds`` ahead of real time: interaction tokens age (they
        last 15 minutes), rate-limit windows pass, and new snowflakes and edit times carry the
        shifted time. Shift the bot's clock as much (tests/e2e/shifted_clock.py) to keep both in
        step."""
        self.world.clock_offset = seconds
        self.world.snowflakes.offset = seconds
        self.world.notify()

    @property
    def missing_attachments(self) -> list[MissingAttachment]:
        """Every embed's `attachment://NAME` link to a file its message did not have after a
        create or an edit (Discord accepts it and shows no picture; tests keep this empty)."""
        return list(self.world.missing_attachments)

    @property
    def unhandled_requests(self) -> list[RecordedRequest]:
        """Requests to routes the fake does not know (tests should keep this empty)."""
        return list(self.world.unhandled)

    # -- gateway control and waiting

    @property
    def session(self) -> GatewaySession | None:
        """The session identified last (with one shard: the bot's only session)."""
        return self.gateway.current

    def shard_session(self, shard_id: int) -> GatewaySession | None:
        """The session of shard ``shard_id``, or None when no connection identified as it."""
        return self.gateway.shard_session(shard_id)

    async def wait_until_connected(
        self, *, timeout: float = 10.0, identifies: int = 1, shards: Iterable[int] = ()
    ) -> GatewaySession:
        """Wait until ``identifies`` IDENTIFYs happened in total and a session is live, and
        each of ``shards`` has a live session of its own."""
        wanted = tuple(shards)

        def probe() -> GatewaySession | None:
            current = self.gateway.current
            live = (
                current is not None and current.connected and self.gateway.identifies >= identifies
            )
            for shard_id in wanted:
                session = self.gateway.shard_session(shard_id)
                live = live and session is not None and session.connected
            return current if live else None

        return await self.world.wait_for(probe, timeout=timeout, what="a gateway session")

    async def wait_for_commands(self, *names: str, timeout: float = 10.0, syncs: int = 1) -> None:
        """Wait until ``syncs`` command bulk-overwrites happened and ``names`` are registered."""
        await self.world.wait_for(
            lambda: (
                self.world.commands.syncs >= syncs and set(names) <= self.world.commands.names()
            ),
            timeout=timeout,
            what=f"commands {names} (sync #{syncs})",
        )

    async def wait_for_resume(self, *, resumes: int = 1, timeout: float = 15.0) -> GatewaySession:
        """Wait until the current session has resumed ``resumes`` times and is connected."""

        def probe() -> GatewaySession | None:
            current = self.gateway.current
            ok = current is not None and current.connected and current.resumes >= resumes
            return current if ok else None

        return await self.world.wait_for(probe, timeout=timeout, what="a RESUME")

    async def drop_gateway(self, *, code: int | None = 4000, shard_id: int | None = None) -> None:
        """Drop the bot's websocket (code None: abort TCP); discord.py then RESUMEs.
        ``shard_id`` picks the shard's websocket (default: the one identified last)."""
        await self.gateway.drop(code, shard_id=shard_id)

    async def wait_until(
        self,
        probe: Callable[[], T | None],
        *,
        timeout: float = WAIT_SECONDS,
        what: str = "condition",
    ) -> T:
        """Wait until ``probe()`` returns a truthy value, re-checking on every change."""
        return await self.world.wait_for(probe, timeout=timeout, what=what)

    # -- READY

    def _ready_payloads(self, session: GatewaySession) -> tuple[Json, list[Json]]:
        """READY and the GUILD_CREATEs of the guilds on the session's shard."""
        guild_ids = [g for g in self.world.guilds if session.holds(g)]
        user = self.bot_user.to_payload()
        user.update({"verified": True, "mfa_enabled": False, "email": None})
        ready = {
            "v": 10,
            "user": user,
            "guilds": [{"id": str(g), "unavailable": True} for g in guild_ids],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway.url,
            "application": {"id": str(self.application_id), "flags": self.world.application_flags},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "user_settings": {},
            "_trace": ["fakecord"],
        }
        guilds = [self.world.guilds[g].to_payload(self.bot_user.id) for g in guild_ids]
        return ready, guilds


__all__ = ["FakeDiscord", "NoGatewaySessionError"]
