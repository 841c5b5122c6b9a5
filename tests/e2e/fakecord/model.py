"""The fake's world: users, guilds, roles, channels, messages and their Discord payloads."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from . import permissions as perms
from .snowflakes import iso_now

Json = dict[str, Any]

TEXT_CHANNEL = 0
DM_CHANNEL = 1
VOICE_CHANNEL = 2
"""A voice channel; its text chat takes commands as a text channel does."""
ANNOUNCEMENT_CHANNEL = 5
FORUM_CHANNEL = 15
"""A forum: its posts are threads."""
ANNOUNCEMENT_THREAD = 10
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12

DEFAULT_MESSAGE = 0
RECIPIENT_ADD = 7
"""Discord's system message "added <user> to the thread", in the thread."""
THREAD_CREATED = 18
"""Discord's system message "started a thread", in the thread's parent channel."""

EPHEMERAL = 1 << 6
LOADING = 1 << 7
SUPPRESS_EMBEDS = 1 << 2
COMPONENTS_V2 = 1 << 15


@dataclass(slots=True)
class FakeUser:
    """A Discord user (a player, a moderator or the bot itself)."""

    id: int
    name: str
    locale: str = "en-US"
    bot: bool = False
    accepts_dms: bool = True
    """False: a message to the user's DM channel gets 403, code 50007."""

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def to_payload(self) -> Json:
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.name,
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
            "flags": 0,
        }


@dataclass(slots=True)
class FakeRole:
    """A guild role; the role whose id equals the guild id is @everyone."""

    id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False

    def to_payload(self) -> Json:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
        }


@dataclass(slots=True)
class FakeMember:
    """A user's membership of a guild, with the roles that give it permissions."""

    user: FakeUser
    role_ids: list[int] = field(default_factory=list)
    joined_at: str = field(default_factory=iso_now)
    nick: str | None = None

    def to_payload(self, *, with_user: bool = True, permissions: int | None = None) -> Json:
        payload: Json = {
            "roles": [str(r) for r in self.role_ids],
            "joined_at": self.joined_at,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "nick": self.nick,
            "avatar": None,
            "premium_since": None,
            "communication_disabled_until": None,
        }
        if with_user:
            payload["user"] = self.user.to_payload()
        if permissions is not None:
            payload["permissions"] = str(permissions)
        return payload


@dataclass(slots=True)
class FakeAttachment:
    """A file attached to a message; ``data`` keeps the uploaded bytes."""

    id: int
    filename: str
    data: bytes
    url: str
    content_type: str | None = None
    description: str | None = None

    @property
    def size(self) -> int:
        return len(self.data)

    def to_payload(self) -> Json:
        payload: Json = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
        }
        if self.content_type is not None:
            payload["content_type"] = self.content_type
        if self.description is not None:
            payload["description"] = self.description
        return payload


@dataclass(frozen=True, slots=True)
class Button:
    """A button found in a message's components (any nesting depth)."""

    custom_id: str | None
    label: str | None
    style: int
    disabled: bool
    url: str | None
    emoji: str | None
    component_type: int = 2


def iter_components(components: list[Json]) -> Iterator[Json]:
    """Every component in a (possibly nested, components v2) component list."""
    for component in components:
        yield component
        yield from iter_components(component.get("components", []))
        accessory = component.get("accessory")
        if accessory is not None:
            yield from iter_components([accessory])


@dataclass(slots=True)
class FakeMessage:
    """A message in a channel, as the fake stores it (payload fields plus bookkeeping)."""

    id: int
    channel_id: int
    guild_id: int | None
    author: FakeUser
    content: str = ""
    embeds: list[Json] = field(default_factory=list)
    components: list[Json] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    timestamp: str = field(default_factory=iso_now)
    edited_timestamp: str | None = None
    pinned: bool = False
    thread: Json | None = None
    """The thread started from this message (its payload when it was made), if any."""
    mentions: list[FakeUser] = field(default_factory=list)
    mention_roles: list[int] = field(default_factory=list)
    mention_everyone: bool = False
    webhook_id: int | None = None
    application_id: int | None = None
    interaction_metadata: Json | None = None
    message_reference: Json | None = None
    visible_to: int | None = None
    """For an ephemeral message, the only user who sees it."""
    pinged_user_ids: frozenset[int] = frozenset()
    """Users notified when the message was created (edits never ping)."""
    embeds_dropped: bool = False
    """True when Discord would have hidden the embeds (no Embed Links permission)."""
    deleted: bool = False
    edit_count: int = 0
    interaction_id: int | None = None
    nonce: str | None = None
    """The nonce the bot sent it with (`enforce_nonce`: a second post with it is this one)."""
    created_at: float = 0.0
    """When it was created, on the fake's clock (World.now)."""

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING)

    def buttons(self) -> list[Button]:
        """The message's buttons and selects, in display order."""
        found = []
        for component in iter_components(self.components):
            kind = component.get("type")
            if kind in (2, 3, 5, 6, 7, 8):
                emoji = component.get("emoji")
                found.append(
                    Button(
                        custom_id=component.get("custom_id"),
                        label=component.get("label") or component.get("placeholder"),
                        style=int(component.get("style", 0)),
                        disabled=bool(component.get("disabled", False)),
                        url=component.get("url"),
                        emoji=emoji.get("name") if isinstance(emoji, dict) else None,
                        component_type=int(kind),
                    )
                )
        return found

    def enabled_buttons(self) -> list[Button]:
        return [b for b in self.buttons() if not b.disabled and b.custom_id is not None]

    def find_component(self, custom_id: str) -> Json | None:
        for component in iter_components(self.components):
            if component.get("custom_id") == custom_id:
                return component
        return None

    def button(self, *, label: str | None = None, custom_id_prefix: str | None = None) -> Button:
        """The one button whose label equals ``label`` or whose custom_id starts with a prefix."""
        matches = [
            b
            for b in self.buttons()
            if (label is None or b.label == label)
            and (custom_id_prefix is None or (b.custom_id or "").startswith(custom_id_prefix))
        ]
        if len(matches) != 1:
            described = [(b.label, b.custom_id) for b in self.buttons()]
            raise LookupError(f"{len(matches)} buttons match on message {self.id}: {described}")
        return matches[0]

    def file(self, filename: str) -> bytes:
        for attachment in self.attachments:
            if attachment.filename == filename:
                return attachment.data
        raise LookupError(f"message {self.id} has no attachment {filename!r}")

    def embed_text(self) -> str:
        """All text of the embeds (title, description, fields, footer), one line each."""
        lines: list[str] = []
        for embed in self.embeds:
            lines.extend(str(embed[key]) for key in ("title", "description") if embed.get(key))
            lines.extend(
                f"{field.get('name', '')}: {field.get('value', '')}"
                for field in embed.get("fields", [])
            )
            footer = embed.get("footer")
            if footer and footer.get("text"):
                lines.append(str(footer["text"]))
        return "\n".join(lines)

    def to_payload(self) -> Json:
        payload: Json = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": self.author.to_payload(),
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": False,
            "mention_everyone": self.mention_everyone,
            "mentions": [u.to_payload() for u in self.mentions],
            "mention_roles": [str(r) for r in self.mention_roles],
            "attachments": [a.to_payload() for a in self.attachments],
            "embeds": [] if self.embeds_dropped else copy.deepcopy(self.embeds),
            "components": copy.deepcopy(self.components),
            "pinned": self.pinned,
            "type": self.type,
            "flags": self.flags,
        }
        if self.guild_id is not None:
            payload["guild_id"] = str(self.guild_id)
        if self.webhook_id is not None:
            payload["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            payload["application_id"] = str(self.application_id)
        if self.interaction_metadata is not None:
            payload["interaction_metadata"] = copy.deepcopy(self.interaction_metadata)
        if self.message_reference is not None:
            payload["message_reference"] = copy.deepcopy(self.message_reference)
        if self.thread is not None:
            payload["thread"] = copy.deepcopy(self.thread)
        if self.nonce is not None:
            payload["nonce"] = self.nonce
        return payload


@dataclass(slots=True)
class FakeChannel:
    """A guild text channel, a thread (parent_id set) or a DM channel (recipient set)."""

    id: int
    name: str
    type: int = TEXT_CHANNEL
    guild: FakeGuild | None = None
    parent_id: int | None = None
    overwrites: list[perms.Overwrite] = field(default_factory=list)
    position: int = 0
    recipient: FakeUser | None = None
    owner_id: int | None = None
    message_ids: list[int] = field(default_factory=list)
    members: set[int] = field(default_factory=set)
    """A thread's members (user ids): its creator, whoever was added or mentioned in it."""
    archived: bool = False
    auto_archive_duration: int = 1440
    invitable: bool = True
    created_at: str = field(default_factory=iso_now)

    @property
    def is_thread(self) -> bool:
        return self.type in (PUBLIC_THREAD, PRIVATE_THREAD, ANNOUNCEMENT_THREAD)

    def member_payload(self, user_id: int) -> Json:
        """A thread member object (the thread and one of its members)."""
        return {
            "id": str(self.id),
            "user_id": str(user_id),
            "join_timestamp": self.created_at,
            "flags": 0,
        }

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def to_payload(self, *, member_id: int | None = None) -> Json:
        """The channel object; a thread's includes `member` when `member_id` is one of its
        members (what Discord answers the member who made or joined it)."""
        if self.type == DM_CHANNEL:
            recipients = [self.recipient.to_payload()] if self.recipient else []
            return {
                "id": str(self.id),
                "type": DM_CHANNEL,
                "last_message_id": None,
                "recipients": recipients,
                "flags": 0,
            }
        payload: Json = {
            "id": str(self.id),
            "type": self.type,
            "name": self.name,
            "position": self.position,
            "flags": 0,
            "nsfw": False,
            "parent_id": str(self.parent_id) if self.parent_id is not None else None,
            "last_message_id": str(self.message_ids[-1]) if self.message_ids else None,
            "rate_limit_per_user": 0,
        }
        if self.guild is not None:
            payload["guild_id"] = str(self.guild.id)
        if self.type == VOICE_CHANNEL:
            payload.update({"bitrate": 64_000, "user_limit": 0})
        if self.is_thread:
            payload.update(
                {
                    "owner_id": str(self.owner_id or 0),
                    "member_count": max(1, len(self.members)),
                    "message_count": len(self.message_ids),
                    "total_message_sent": len(self.message_ids),
                    "thread_metadata": {
                        "archived": self.archived,
                        "auto_archive_duration": self.auto_archive_duration,
                        "archive_timestamp": self.created_at,
                        "locked": False,
                        "invitable": self.invitable,
                        "create_timestamp": self.created_at,
                    },
                }
            )
            if member_id is not None and member_id in self.members:
                payload["member"] = self.member_payload(member_id)
        else:
            payload.update(
                {
                    "topic": None,
                    "permission_overwrites": [o.to_payload() for o in self.overwrites],
                    "default_auto_archive_duration": 1440,
                    "default_thread_rate_limit_per_user": 0,
                }
            )
        return payload


@dataclass(slots=True)
class FakeGuild:
    """A guild with its roles, members and channels (threads included)."""

    id: int
    name: str
    owner_id: int
    preferred_locale: str = "en-US"
    roles: dict[int, FakeRole] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    joined_at: str = field(default_factory=iso_now)

    @property
    def everyone(self) -> FakeRole:
        return self.roles[self.id]

    def member_base_permissions(self, user_id: int) -> int:
        member = self.members[user_id]
        role_permissions = [self.roles[r].permissions for r in member.role_ids if r in self.roles]
        return perms.base_permissions(
            self.everyone.permissions, role_permissions, is_owner=user_id == self.owner_id
        )

    def permissions_in(self, channel: FakeChannel, user_id: int) -> int:
        """The member's computed permissions in a channel (threads use their parent's)."""
        base = self.member_base_permissions(user_id)
        source = channel
        if channel.is_thread and channel.parent_id is not None:
            source = self.channels[channel.parent_id]
        return perms.channel_permissions(
            base,
            guild_id=self.id,
            member_id=user_id,
            role_ids=self.members[user_id].role_ids,
            overwrites=source.overwrites,
            is_thread=channel.is_thread,
        )

    def to_payload(self, bot_user_id: int) -> Json:
        """The GUILD_CREATE payload: only the bot's member is included (no members intent)."""
        me = self.members.get(bot_user_id)
        channels = [c for c in self.channels.values() if not c.is_thread]
        threads = [c for c in self.channels.values() if c.is_thread]
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "region": None,
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [r.to_payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "preferred_locale": self.preferred_locale,
            "max_members": 500000,
            "max_video_channel_users": 25,
            "nsfw_level": 0,
            "nsfw": False,
            "joined_at": self.joined_at,
            "large": False,
            "unavailable": False,
            "member_count": len(self.members),
            "voice_states": [],
            "members": [me.to_payload()] if me is not None else [],
            "channels": [c.to_payload() for c in channels],
            "threads": [c.to_payload() for c in threads],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }
