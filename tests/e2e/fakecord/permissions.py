"""Discord permission bits and the channel permission computation Discord applies."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

CREATE_INSTANT_INVITE = 1 << 0
KICK_MEMBERS = 1 << 1
BAN_MEMBERS = 1 << 2
ADMINISTRATOR = 1 << 3
MANAGE_CHANNELS = 1 << 4
MANAGE_GUILD = 1 << 5
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
SEND_TTS_MESSAGES = 1 << 12
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
MENTION_EVERYONE = 1 << 17
USE_EXTERNAL_EMOJIS = 1 << 18
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
PIN_MESSAGES = 1 << 51

ALL_PERMISSIONS = (1 << 52) - 1

DEFAULT_EVERYONE = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | ADD_REACTIONS
    | USE_EXTERNAL_EMOJIS
    | USE_APPLICATION_COMMANDS
    | CREATE_PUBLIC_THREADS
    | SEND_MESSAGES_IN_THREADS
)
"""What a fresh guild's @everyone role may do."""

NAMES = {
    VIEW_CHANNEL: "View Channel",
    SEND_MESSAGES: "Send Messages",
    EMBED_LINKS: "Embed Links",
    ATTACH_FILES: "Attach Files",
    MANAGE_MESSAGES: "Manage Messages",
    MANAGE_CHANNELS: "Manage Channels",
    MANAGE_GUILD: "Manage Server",
    SEND_MESSAGES_IN_THREADS: "Send Messages in Threads",
    CREATE_PUBLIC_THREADS: "Create Public Threads",
    CREATE_PRIVATE_THREADS: "Create Private Threads",
    PIN_MESSAGES: "Pin Messages",
    READ_MESSAGE_HISTORY: "Read Message History",
}

ROLE = 0
MEMBER = 1


@dataclass(slots=True)
class Overwrite:
    """A channel permission overwrite for a role (kind 0) or a member (kind 1)."""

    target_id: int
    kind: int
    allow: int = 0
    deny: int = 0

    def to_payload(self) -> dict[str, object]:
        return {
            "id": str(self.target_id),
            "type": self.kind,
            "allow": str(self.allow),
            "deny": str(self.deny),
        }


def base_permissions(everyone: int, role_permissions: Iterable[int], *, is_owner: bool) -> int:
    """Guild-level permissions: @everyone OR the member's roles; owners and admins get all."""
    if is_owner:
        return ALL_PERMISSIONS
    value = everyone
    for permissions in role_permissions:
        value |= permissions
    return ALL_PERMISSIONS if value & ADMINISTRATOR else value


def channel_permissions(
    base: int,
    *,
    guild_id: int,
    member_id: int,
    role_ids: Iterable[int],
    overwrites: Iterable[Overwrite],
    is_thread: bool,
) -> int:
    """Apply overwrites in Discord's order (@everyone, roles, member) and implicit denials."""
    if base & ADMINISTRATOR:
        return ALL_PERMISSIONS
    by_target = {(o.kind, o.target_id): o for o in overwrites}
    value = base
    everyone = by_target.get((ROLE, guild_id))
    if everyone is not None:
        value = (value & ~everyone.deny) | everyone.allow
    allow = deny = 0
    for role_id in role_ids:
        overwrite = by_target.get((ROLE, role_id))
        if overwrite is not None:
            allow |= overwrite.allow
            deny |= overwrite.deny
    value = (value & ~deny) | allow
    member = by_target.get((MEMBER, member_id))
    if member is not None:
        value = (value & ~member.deny) | member.allow
    if not value & VIEW_CHANNEL:
        return 0
    send = SEND_MESSAGES_IN_THREADS if is_thread else SEND_MESSAGES
    if not value & send:
        value &= ~(SEND_TTS_MESSAGES | MENTION_EVERYONE | EMBED_LINKS | ATTACH_FILES)
    return value


def describe(bits: int) -> list[str]:
    """Human names of the known permissions in ``bits`` (for error messages)."""
    return [name for bit, name in NAMES.items() if bits & bit]
