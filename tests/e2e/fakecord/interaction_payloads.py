"""INTERACTION_CREATE payloads as Discord builds them: from the command tree, or a click."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from . import commands as cmd
from . import permissions as perms
from .interactions import InteractionHandle, InteractionInputError
from .limits import ATTACHMENT_SIZE_LIMIT
from .model import FakeChannel, FakeMessage, FakeRole, FakeUser
from .world import World

Json = dict[str, Any]


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
        created_at=world.now(),
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
