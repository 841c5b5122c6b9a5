"""Interactions the fake dispatches: payloads from the command tree, and handles to await."""

from __future__ import annotations

import dataclasses
import secrets
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import commands as cmd
from . import permissions as perms
from .limits import ATTACHMENT_SIZE_LIMIT
from .model import FakeChannel, FakeMessage, FakeRole, FakeUser
from .world import World

Json = dict[str, Any]

APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3

PONG = 1
CHANNEL_MESSAGE = 4
DEFERRED_CHANNEL_MESSAGE = 5
DEFERRED_UPDATE_MESSAGE = 6
UPDATE_MESSAGE = 7
AUTOCOMPLETE_RESULT = 8
MODAL = 9

INTERACTION_TOKEN_LIFETIME = 15 * 60


class InteractionInputError(ValueError):
    """A test asked for an interaction no Discord client could send (unknown option, ...)."""


@dataclass(frozen=True, slots=True)
class InteractionEvent:
    """Something the bot did with an interaction: its callback, a follow-up, an edit, ..."""

    kind: str
    """"callback", "followup", "edit_original", "edit_followup", "delete"."""
    at: float
    response_type: int | None = None
    message: FakeMessage | None = None
    """The live message (later edits show); ``snapshot`` is how it looked at this event."""
    data: Json | None = None
    snapshot: Json | None = None


@dataclass(slots=True)
class InteractionHandle:
    """One dispatched interaction; await its answer with ``response()`` / ``answer()``."""

    id: int
    token: str
    type: int
    user: FakeUser
    channel: FakeChannel
    payload: Json
    world: World = field(repr=False)
    created_at: float = field(default_factory=time.perf_counter)
    dispatched_at: float | None = None
    """perf_counter time the INTERACTION_CREATE frame was written to the bot's socket."""
    responded_at: float | None = None
    """perf_counter time the first accepted callback request reached the fake."""
    callback_type: int | None = None
    original_message_id: int | None = None
    source_message_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    events: list[InteractionEvent] = field(default_factory=list)
    callback_attempts: int = 0
    refusals: list[int] = field(default_factory=list)
    """Discord error codes the fake answered callbacks with (10062 late, 40060 twice, ...)."""

    @property
    def acknowledged(self) -> bool:
        return self.callback_type is not None

    @property
    def latency(self) -> float | None:
        """Seconds from dispatch to the first accepted callback (None if not answered)."""
        if self.dispatched_at is None or self.responded_at is None:
            return None
        return self.responded_at - self.dispatched_at

    def mark_dispatched(self, at: float) -> None:
        self.dispatched_at = at
        self.world.notify()

    def record(self, event: InteractionEvent) -> None:
        if event.message is not None and event.snapshot is None:
            event = dataclasses.replace(event, snapshot=event.message.to_payload())
        self.events.append(event)
        self.world.notify()

    async def response(self, timeout: float = 5.0) -> InteractionEvent:
        """The initial callback (any type), once it has arrived."""
        return await self.world.wait_for(
            lambda: next((e for e in self.events if e.kind == "callback"), None),
            timeout=timeout,
            what=f"a callback for interaction {self.id}",
        )

    async def answer(self, timeout: float = 5.0) -> FakeMessage:
        """The message the user finally sees in answer: the reply, or the deferred one's edit."""
        return await self.world.wait_for(
            self._visible_answer, timeout=timeout, what=f"an answer to interaction {self.id}"
        )

    def _visible_answer(self) -> FakeMessage | None:
        callback = next((e for e in self.events if e.kind == "callback"), None)
        if callback is None:
            return None
        if callback.response_type in (CHANNEL_MESSAGE, UPDATE_MESSAGE):
            return callback.message
        for event in self.events:
            if event.kind in ("edit_original", "followup") and event.message is not None:
                return event.message
        return None

    async def followups(self, count: int = 1, timeout: float = 5.0) -> list[FakeMessage]:
        """The first ``count`` follow-up messages (a follow-up replacing a deferral counts)."""

        def probe() -> list[FakeMessage] | None:
            found = [e.message for e in self.events if e.kind == "followup" and e.message]
            return found[:count] if len(found) >= count else None

        return await self.world.wait_for(probe, timeout=timeout, what=f"{count} follow-ups")

    async def wait_for(
        self, predicate: Callable[[InteractionHandle], bool], timeout: float = 5.0
    ) -> InteractionHandle:
        """Wait until ``predicate(self)`` holds (for example, two edits have arrived)."""
        return await self.world.wait_for(
            lambda: self if predicate(self) else None, timeout=timeout, what="interaction predicate"
        )

    def original_message(self) -> FakeMessage | None:
        if self.original_message_id is None:
            return None
        return self.world.messages.get(self.original_message_id)


@dataclass(frozen=True, slots=True)
class LatencyStats:
    """Dispatch-to-callback latency over answered interactions, in seconds."""

    count: int
    unanswered: int
    median: float
    worst: float
    p99: float

    def describe(self) -> str:
        return (
            f"{self.count} answered ({self.unanswered} unanswered): median "
            f"{self.median * 1000:.1f} ms, p99 {self.p99 * 1000:.1f} ms, worst "
            f"{self.worst * 1000:.1f} ms"
        )


def latency_stats(handles: list[InteractionHandle]) -> LatencyStats:
    latencies = sorted(h.latency for h in handles if h.latency is not None)
    unanswered = sum(1 for h in handles if h.latency is None)
    if not latencies:
        return LatencyStats(0, unanswered, 0.0, 0.0, 0.0)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return LatencyStats(
        len(latencies), unanswered, statistics.median(latencies), latencies[-1], p99
    )


def new_handle(
    world: World,
    kind: int,
    user: FakeUser,
    channel: FakeChannel,
    data: Json,
    *,
    message: FakeMessage | None = None,
) -> InteractionHandle:
    """Build the INTERACTION_CREATE payload Discord would send, wrapped in a handle."""
    interaction_id = world.snowflakes.next()
    token = "fakecord." + secrets.token_urlsafe(48)
    guild = channel.guild
    payload: Json = {
        "id": str(interaction_id),
        "application_id": str(world.application_id),
        "type": kind,
        "data": data,
        "token": token,
        "version": 1,
        "app_permissions": str(world.bot_permissions(channel)),
        "locale": user.locale,
        "entitlements": [],
        "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        "channel_id": str(channel.id),
    }
    channel_payload = channel.to_payload()
    if guild is not None:
        member = guild.members.get(user.id)
        if member is None:
            raise InteractionInputError(f"user {user.name} is not a member of guild {guild.name}")
        member_permissions = guild.permissions_in(channel, user.id)
        channel_payload["permissions"] = str(member_permissions)
        payload.update(
            {
                "guild_id": str(guild.id),
                "guild": {"id": str(guild.id), "locale": guild.preferred_locale, "features": []},
                "guild_locale": guild.preferred_locale,
                "member": member.to_payload(permissions=member_permissions),
                "authorizing_integration_owners": {"0": str(guild.id)},
                "context": 0,
            }
        )
    else:
        payload.update(
            {
                "user": user.to_payload(),
                "authorizing_integration_owners": {"1": str(user.id)},
                "context": 1,
            }
        )
    payload["channel"] = channel_payload
    if message is not None:
        payload["message"] = message.to_payload()
    return InteractionHandle(
        id=interaction_id,
        token=token,
        type=kind,
        user=user,
        channel=channel,
        payload=payload,
        world=world,
        source_message_id=message.id if message is not None else None,
    )


def check_command_visible(command: Json, user: FakeUser, channel: FakeChannel) -> None:
    """Refuse what Discord's client would not offer: a command hidden by its default member
    permissions, or a guild-only command in a DM (server admins can override the former:
    send with ``validate=False`` to act as such an override)."""
    guild = channel.guild
    if guild is None:
        contexts = command.get("contexts")
        if command.get("dm_permission") is False or (contexts is not None and 1 not in contexts):
            raise InteractionInputError(f"/{command['name']} is not available in DMs")
        return
    required = command.get("default_member_permissions")
    if required is None:
        return
    granted = guild.permissions_in(channel, user.id)
    needed = int(required)
    if granted & perms.ADMINISTRATOR or (needed and granted & needed == needed):
        return
    raise InteractionInputError(
        f"/{command['name']} is hidden from {user.name}: needs {perms.describe(needed) or 'admin'}"
    )


def command_data(
    world: World,
    channel: FakeChannel,
    command: Json,
    path: list[str],
    values: Mapping[str, Any],
    *,
    validate: bool,
) -> Json:
    """The ``data`` of an APPLICATION_COMMAND interaction for ``/command path... values``."""
    resolved: dict[str, dict[str, Json]] = {}
    options_schema: list[Json] = command.get("options") or []
    wrappers: list[Json] = []
    for name in path:
        option = next((o for o in options_schema if o["name"] == name), None)
        if option is None or option["type"] not in (cmd.SUB_COMMAND, cmd.SUB_COMMAND_GROUP):
            raise InteractionInputError(f"/{command['name']} has no subcommand {name!r}")
        wrappers.append({"type": option["type"], "name": name, "options": []})
        options_schema = option.get("options") or []
    if validate and any(
        o["type"] in (cmd.SUB_COMMAND, cmd.SUB_COMMAND_GROUP) for o in options_schema
    ):
        raise InteractionInputError(f"/{command['name']} {' '.join(path)} needs a subcommand")
    leaves = [
        _option_value(world, channel, options_schema, name, value, resolved, validate=validate)
        for name, value in values.items()
    ]
    if validate:
        missing = [
            o["name"] for o in options_schema if o.get("required") and o["name"] not in values
        ]
        if missing:
            raise InteractionInputError(f"missing required options {missing}")
    inner = leaves
    for wrapper in reversed(wrappers):
        wrapper["options"] = inner
        inner = [wrapper]
    data: Json = {"id": command["id"], "name": command["name"], "type": cmd.CHAT_INPUT}
    if inner:
        data["options"] = inner
    if resolved:
        data["resolved"] = resolved
    if command.get("guild_id") is not None:
        data["guild_id"] = command["guild_id"]
    return data


def _option_value(
    world: World,
    channel: FakeChannel,
    schema: list[Json],
    name: str,
    value: Any,
    resolved: dict[str, dict[str, Json]],
    *,
    validate: bool,
) -> Json:
    option = next((o for o in schema if o["name"] == name), None)
    if option is None:
        if validate:
            raise InteractionInputError(f"no option {name!r}; known: {[o['name'] for o in schema]}")
        return {"name": name, "type": cmd.STRING, "value": value}
    kind = option["type"]
    if kind in (cmd.USER, cmd.MENTIONABLE) and isinstance(value, FakeUser):
        _resolve_user(channel, value, resolved)
        value = str(value.id)
    elif kind in (cmd.CHANNEL, cmd.MENTIONABLE) and isinstance(value, FakeChannel):
        entry = value.to_payload()
        entry["permissions"] = str(world.bot_permissions(value))
        resolved.setdefault("channels", {})[str(value.id)] = entry
        value = str(value.id)
    elif kind in (cmd.ROLE, cmd.MENTIONABLE) and isinstance(value, FakeRole):
        resolved.setdefault("roles", {})[str(value.id)] = value.to_payload()
        value = str(value.id)
    elif validate:
        value = _checked_scalar(option, value)
    return {"name": name, "type": kind, "value": value}


def _resolve_user(
    channel: FakeChannel, user: FakeUser, resolved: dict[str, dict[str, Json]]
) -> None:
    resolved.setdefault("users", {})[str(user.id)] = user.to_payload()
    guild = channel.guild
    if guild is not None and user.id in guild.members:
        member = guild.members[user.id]
        entry = member.to_payload(
            with_user=False, permissions=guild.permissions_in(channel, user.id)
        )
        resolved.setdefault("members", {})[str(user.id)] = entry


def _checked_scalar(option: Json, value: Any) -> Any:
    kind = option["type"]
    expected: dict[int, tuple[type, ...]] = {
        cmd.STRING: (str,),
        cmd.INTEGER: (int,),
        cmd.BOOLEAN: (bool,),
        cmd.NUMBER: (int, float),
    }
    types = expected.get(kind)
    if types is None:
        raise InteractionInputError(f"option {option['name']!r} of type {kind} needs a fake object")
    if not isinstance(value, types) or (kind != cmd.BOOLEAN and isinstance(value, bool)):
        raise InteractionInputError(f"option {option['name']!r} wants type {kind}, got {value!r}")
    choices = option.get("choices")
    if choices and value not in [c["value"] for c in choices]:
        raise InteractionInputError(f"{value!r} is not a choice of {option['name']!r}")
    low = option.get("min_value")
    high = option.get("max_value")
    if (low is not None and value < low) or (high is not None and value > high):
        raise InteractionInputError(f"{value!r} is outside {option['name']!r} range")
    length = len(str(value))
    too_short = kind == cmd.STRING and length < option.get("min_length", 0)
    too_long = kind == cmd.STRING and length > option.get("max_length", 6000)
    if too_short or too_long:
        raise InteractionInputError(f"{value!r} has a bad length for {option['name']!r}")
    return value


def component_data(
    message: FakeMessage, custom_id: str, values: list[str] | None, *, validate: bool
) -> Json:
    """The ``data`` of a MESSAGE_COMPONENT interaction for a click on ``custom_id``."""
    component = message.find_component(custom_id)
    if validate:
        if message.deleted:
            raise InteractionInputError(f"message {message.id} was deleted")
        if component is None:
            known = [b.custom_id for b in message.buttons()]
            raise InteractionInputError(f"message {message.id} has no {custom_id!r}; has {known}")
        if component.get("disabled"):
            raise InteractionInputError(f"{custom_id!r} on message {message.id} is disabled")
    component_type = int(component.get("type", 2)) if component is not None else 2
    data: Json = {"custom_id": custom_id, "component_type": component_type}
    if component_type != 2:
        data["values"] = list(values or [])
    return data
