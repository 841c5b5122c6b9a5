"""Creating, editing and deleting messages: bodies, files, limits, mentions and events."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiohttp import web

from . import errors
from . import permissions as perms
from .attachment_links import missing_attachments, uploaded_name
from .gateway import DIRECT_MESSAGES_INTENT, GUILD_MESSAGES_INTENT, Gateway
from .limits import check_message, form_error_body, is_empty, too_large
from .mentions import resolve_mentions
from .model import (
    COMPONENTS_V2,
    EPHEMERAL,
    LOADING,
    SUPPRESS_EMBEDS,
    FakeAttachment,
    FakeChannel,
    FakeMessage,
    FakeUser,
)
from .multipart import parse_form
from .snowflakes import iso_now
from .world import World

if TYPE_CHECKING:
    from .interactions import InteractionHandle

Json = dict[str, Any]

EDITABLE_FLAGS = SUPPRESS_EMBEDS


@dataclass(frozen=True, slots=True)
class Upload:
    """A file sent in a multipart body as ``files[index]``."""

    index: int
    filename: str
    content_type: str | None
    data: bytes


async def read_body(request: web.Request) -> tuple[Any, list[Upload]]:
    """A JSON body, or a multipart one (payload_json plus files[n]); empty bodies give {}.

    A body that cannot be parsed gets Discord's 400 (code 50109, invalid JSON).
    """
    try:
        return await _parse_body(request)
    except (ValueError, KeyError) as error:
        raise errors.DiscordError(
            400, errors.INVALID_JSON, "The request body contains invalid JSON.", fakecord=str(error)
        ) from error


async def _parse_body(request: web.Request) -> tuple[Any, list[Upload]]:
    if request.content_type.startswith("multipart/"):
        payload: Any = {}
        uploads: list[Upload] = []
        for part in parse_form(await request.read(), request.headers["Content-Type"]):
            if part.name == "payload_json":
                payload = json.loads(part.data)
            elif part.filename is not None:
                index = int(part.name[6:-1]) if part.name.startswith("files[") else len(uploads)
                uploads.append(Upload(index, part.filename, part.content_type, part.data))
        return payload, uploads
    if not request.can_read_body:
        return {}, []
    text = await request.text()
    return (json.loads(text) if text else {}), []


class MessageStore:
    """Applies message writes to the world, as Discord would, and emits gateway events."""

    def __init__(self, world: World, gateway: Gateway) -> None:
        self.world = world
        self.gateway = gateway

    def require_send_permissions(
        self, channel: FakeChannel, body: Json, uploads: list[Upload]
    ) -> None:
        """Raise 403 when the bot may not post this in the channel (REST channel routes)."""
        if channel.recipient is not None and not channel.recipient.accepts_dms:
            raise errors.DiscordError(
                403, errors.CANNOT_SEND_TO_USER, "Cannot send messages to this user"
            )
        granted = self.world.bot_permissions(channel)
        needed = perms.VIEW_CHANNEL | (
            perms.SEND_MESSAGES_IN_THREADS if channel.is_thread else perms.SEND_MESSAGES
        )
        if not granted & perms.VIEW_CHANNEL:
            raise errors.DiscordError(403, errors.MISSING_ACCESS, "Missing Access")
        if uploads:
            needed |= perms.ATTACH_FILES
        missing = needed & ~granted
        if missing:
            raise errors.missing_permissions(perms.describe(missing))

    def create(
        self,
        channel: FakeChannel,
        body: Json,
        uploads: list[Upload],
        *,
        visible_to: int | None = None,
        interaction: InteractionHandle | None = None,
        message_type: int = 0,
        loading: bool = False,
        system_mentions: list[FakeUser] | None = None,
    ) -> FakeMessage:
        """Store a new message from the bot (a channel post, a reply or a follow-up), or, given
        `system_mentions`, one Discord itself writes (a thread's notices), which mentions and
        notifies exactly those users."""
        system = system_mentions is not None
        if not loading and not system:
            self._check(body, uploads, creating=True)
        flags = int(body.get("flags") or 0)
        if visible_to is not None:
            flags |= EPHEMERAL
        if loading:
            flags |= LOADING
        message = FakeMessage(
            id=self.world.snowflakes.next(),
            channel_id=channel.id,
            guild_id=channel.guild.id if channel.guild else None,
            author=self.world.bot_user,
            flags=flags,
            type=message_type,
            visible_to=visible_to,
        )
        if interaction is not None:
            message.webhook_id = self.world.application_id
            message.application_id = self.world.application_id
            message.interaction_id = interaction.id
            message.interaction_metadata = {
                "id": str(interaction.id),
                "type": interaction.type,
                "user": interaction.user.to_payload(),
                "authorizing_integration_owners": interaction.payload.get(
                    "authorizing_integration_owners", {}
                ),
            }
        self._apply(message, channel, body, uploads)
        reference = body.get("message_reference")
        if system and isinstance(reference, dict):  # a notice points at what it is about
            message.message_reference = dict(reference)
        elif isinstance(reference, dict) and reference.get("message_id"):
            message.message_reference = {
                "message_id": str(reference["message_id"]),
                "channel_id": str(channel.id),
                "type": 0,
            }
        if system_mentions is not None:
            message.mentions = list(system_mentions)
            message.pinged_user_ids = frozenset(user.id for user in system_mentions)
        elif not loading:
            self._ping(message, channel, body)
        self.world.messages[message.id] = message
        channel.message_ids.append(message.id)
        self.world.missing_attachments.extend(missing_attachments(message, "create"))
        if not message.ephemeral:
            self._emit("MESSAGE_CREATE", message, channel)
        self.world.notify()
        return message

    def edit(
        self,
        message: FakeMessage,
        body: Json,
        uploads: list[Upload],
        *,
        finishes_loading: bool = False,
    ) -> FakeMessage:
        """Apply a PATCH; the first edit of a deferred (loading) reply is its real sending."""
        channel = self.world.channels[message.channel_id]
        was_loading = message.loading
        checked = {**body, "flags": body.get("flags", message.flags & COMPONENTS_V2)}
        self._check(checked, uploads, creating=was_loading)
        self._apply(message, channel, body, uploads)
        if "flags" in body:
            keep = message.flags & ~EDITABLE_FLAGS
            message.flags = keep | (int(body["flags"] or 0) & EDITABLE_FLAGS)
        if was_loading or finishes_loading:
            message.flags &= ~LOADING
            self._ping(message, channel, body)
        else:
            message.edited_timestamp = iso_now(self.world.clock_offset)
            message.edit_count += 1
        self.world.missing_attachments.extend(missing_attachments(message, "edit"))
        if not message.ephemeral:
            self._emit("MESSAGE_UPDATE", message, channel)
        self.world.notify()
        return message

    def delete(self, message: FakeMessage) -> None:
        message.deleted = True
        channel = self.world.channels[message.channel_id]
        if not message.ephemeral:
            data: Json = {"id": str(message.id), "channel_id": str(channel.id)}
            if channel.guild is not None:
                data["guild_id"] = str(channel.guild.id)
            self.gateway.dispatch_if_session(
                "MESSAGE_DELETE", data, self._intent(channel), guild_id=self._guild_id(channel)
            )
        self.world.notify()

    def _check(self, body: Json, uploads: list[Upload], *, creating: bool) -> None:
        sizes = [len(u.data) for u in uploads]
        if too_large(sizes):
            raise errors.DiscordError(
                413, errors.REQUEST_ENTITY_TOO_LARGE, "Request entity too large"
            )
        problems = check_message(body, sizes)
        if problems:
            detail = form_error_body(problems)
            raise errors.DiscordError(
                400, errors.INVALID_FORM_BODY, "Invalid Form Body", errors=detail["errors"]
            )
        if creating and is_empty(body, len(uploads)):
            raise errors.DiscordError(400, errors.EMPTY_MESSAGE, "Cannot send an empty message")

    def _apply(
        self, message: FakeMessage, channel: FakeChannel, body: Json, uploads: list[Upload]
    ) -> None:
        if "content" in body:
            message.content = body["content"] or ""
        if "embeds" in body:
            message.embeds = list(body["embeds"] or [])
        elif "embed" in body:
            message.embeds = [body["embed"]] if body["embed"] else []
        if "components" in body:
            message.components = list(body["components"] or [])
        message.attachments = self._attachments(message, channel, body, uploads)
        if channel.guild is not None and message.embeds:
            message.embeds_dropped = not self.world.bot_permissions(channel) & perms.EMBED_LINKS
        else:
            message.embeds_dropped = False

    def _attachments(
        self, message: FakeMessage, channel: FakeChannel, body: Json, uploads: list[Upload]
    ) -> list[FakeAttachment]:
        by_index = {u.index: u for u in uploads}
        existing = {a.id: a for a in message.attachments}
        described = body.get("attachments")
        if described is None:
            kept = list(message.attachments)
            fresh = [self._stored(channel, u, None) for u in uploads]
            return kept + fresh
        result: list[FakeAttachment] = []
        used: set[int] = set()
        for entry in described:
            entry_id = int(entry["id"])
            if entry_id in existing:
                result.append(existing[entry_id])
            elif entry_id in by_index:
                used.add(entry_id)
                result.append(self._stored(channel, by_index[entry_id], entry))
            else:
                raise errors.DiscordError(
                    400,
                    errors.INVALID_FORM_BODY,
                    f"Unknown attachment id {entry_id} in attachments",
                )
        result.extend(self._stored(channel, u, None) for u in uploads if u.index not in used)
        return result

    def _stored(self, channel: FakeChannel, upload: Upload, entry: Json | None) -> FakeAttachment:
        attachment_id = self.world.snowflakes.next()
        filename = uploaded_name((entry or {}).get("filename") or upload.filename)
        return FakeAttachment(
            id=attachment_id,
            filename=filename,
            data=upload.data,
            url=self.world.attachment_url(channel.id, attachment_id, filename),
            content_type=upload.content_type,
            description=(entry or {}).get("description"),
        )

    def _ping(self, message: FakeMessage, channel: FakeChannel, body: Json) -> None:
        replied_user_id = None
        if message.message_reference is not None:
            referenced = self.world.messages.get(int(message.message_reference["message_id"]))
            if referenced is not None and referenced.author.id != self.world.bot_user.id:
                replied_user_id = referenced.author.id
        allowed = body.get("allowed_mentions")
        mentions = resolve_mentions(
            message.content,
            allowed if isinstance(allowed, dict) else None,
            replied_user_id=replied_user_id,
            can_mention_everyone=bool(self.world.bot_permissions(channel) & perms.MENTION_EVERYONE),
        )
        message.mentions = [self.world.users[u] for u in mentions.user_ids if u in self.world.users]
        message.mention_roles = list(mentions.role_ids)
        message.mention_everyone = mentions.everyone
        if not message.ephemeral:
            message.pinged_user_ids = frozenset(u.id for u in message.mentions)
            if channel.is_thread:  # a mention in a thread makes the person a member of it
                channel.members.update(message.pinged_user_ids)

    def _intent(self, channel: FakeChannel) -> int:
        return GUILD_MESSAGES_INTENT if channel.guild is not None else DIRECT_MESSAGES_INTENT

    def _guild_id(self, channel: FakeChannel) -> int | None:
        """The guild whose shard gets the channel's events (None: a DM, shard 0)."""
        return channel.guild.id if channel.guild is not None else None

    def _emit(self, event: str, message: FakeMessage, channel: FakeChannel) -> None:
        self.gateway.dispatch_if_session(
            event, message.to_payload(), self._intent(channel), guild_id=self._guild_id(channel)
        )
