"""REST routes of channels: the channel, its messages (post, list, edit, delete) and pins."""

from __future__ import annotations

from aiohttp import web

from . import errors
from . import permissions as perms
from .messages import MessageStore, read_body
from .model import FakeChannel, FakeMessage
from .responses import Route, json_response, no_content
from .world import World

NONCE_SECONDS = 300.0
"""How long Discord remembers a message's nonce for `enforce_nonce` ("the past few minutes"):
a post with the same nonce by the same author within it creates nothing and answers with the
first message."""


class ChannelRoutes:
    """Channel message routes; these, unlike interaction replies, check the bot's permissions."""

    def __init__(self, world: World, store: MessageStore) -> None:
        self.world = world
        self.store = store

    def routes(self) -> list[Route]:
        messages = "/channels/{channel_id}/messages"
        return [
            ("GET", "/channels/{channel_id}", self.get_channel),
            ("GET", messages + "/pins", self.list_pins),
            ("PUT", messages + "/pins/{message_id}", self.pin),
            ("DELETE", messages + "/pins/{message_id}", self.unpin),
            ("GET", "/channels/{channel_id}/pins", self.list_pins_legacy),
            ("PUT", "/channels/{channel_id}/pins/{message_id}", self.pin),
            ("DELETE", "/channels/{channel_id}/pins/{message_id}", self.unpin),
            ("GET", messages, self.list_messages),
            ("POST", messages, self.post_message),
            ("GET", messages + "/{message_id}", self.get_message),
            ("PATCH", messages + "/{message_id}", self.edit_message),
            ("DELETE", messages + "/{message_id}", self.delete_message),
            ("POST", "/channels/{channel_id}/typing", self.typing),
        ]

    def _channel(self, request: web.Request) -> FakeChannel:
        channel = self.world.channels.get(int(request.match_info["channel_id"]))
        if channel is None:
            raise errors.unknown("Channel", errors.UNKNOWN_CHANNEL)
        if not self.world.bot_permissions(channel) & perms.VIEW_CHANNEL:
            raise errors.DiscordError(403, errors.MISSING_ACCESS, "Missing Access")
        return channel

    def _channel_message(self, request: web.Request, channel: FakeChannel) -> FakeMessage:
        message = self.world.messages.get(int(request.match_info["message_id"]))
        if (
            message is None
            or message.deleted
            or message.ephemeral
            or message.channel_id != channel.id
        ):
            raise errors.unknown("Message", errors.UNKNOWN_MESSAGE)
        return message

    async def get_channel(self, request: web.Request) -> web.Response:
        return json_response(self._channel(request).to_payload())

    async def list_messages(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        if not self.world.bot_permissions(channel) & perms.READ_MESSAGE_HISTORY:
            return json_response([])
        visible = [m for m in self.world.channel_messages(channel.id) if not m.ephemeral]
        limit = max(1, min(100, int(request.query.get("limit", "50"))))
        before = request.query.get("before")
        after = request.query.get("after")
        if before is not None:
            visible = [m for m in visible if m.id < int(before)]
        if after is not None:
            visible = [m for m in visible if m.id > int(after)][:limit]
        newest_first = list(reversed(visible))[:limit]
        return json_response([m.to_payload() for m in newest_first])

    async def post_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        body, uploads = await read_body(request)
        self.store.require_send_permissions(channel, body, uploads)
        if channel.archived:  # a message in an archived thread brings it back
            channel.archived = False
            guild_id = channel.guild.id if channel.guild is not None else None
            self.store.gateway.dispatch_if_session(
                "THREAD_UPDATE", channel.to_payload(), guild_id=guild_id
            )
        nonce = body.get("nonce")
        if nonce is not None and body.get("enforce_nonce"):
            earlier = self._sent_with(channel, str(nonce))
            if earlier is not None:  # Discord answers with the message made the first time
                return json_response(earlier.to_payload())
        message = self.store.create(channel, body, uploads)
        if nonce is not None:
            message.nonce = str(nonce)
        message.created_at = self.world.now()
        return json_response(message.to_payload())

    def _sent_with(self, channel: FakeChannel, nonce: str) -> FakeMessage | None:
        """The bot's message of `channel` sent with `nonce` within NONCE_SECONDS, if any."""
        for message in self.world.channel_messages(channel.id):
            if (
                message.nonce == nonce
                and message.author.id == self.world.bot_user.id
                and self.world.now() - message.created_at <= NONCE_SECONDS
            ):
                return message
        return None

    async def get_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        return json_response(self._channel_message(request, channel).to_payload())

    async def edit_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        message = self._channel_message(request, channel)
        if message.author.id != self.world.bot_user.id:
            raise errors.DiscordError(
                403,
                errors.CANNOT_EDIT_OTHERS_MESSAGE,
                "Cannot edit a message authored by another user",
            )
        body, uploads = await read_body(request)
        if uploads and not self.world.bot_permissions(channel) & perms.ATTACH_FILES:
            raise errors.missing_permissions(["Attach Files"])
        return json_response(self.store.edit(message, body, uploads).to_payload())

    async def delete_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        message = self._channel_message(request, channel)
        own = message.author.id == self.world.bot_user.id
        if not own and not self.world.bot_permissions(channel) & perms.MANAGE_MESSAGES:
            raise errors.missing_permissions(["Manage Messages"])
        self.store.delete(message)
        return no_content()

    async def typing(self, request: web.Request) -> web.Response:
        self._channel(request)
        return no_content()

    def _pinned(self, channel: FakeChannel) -> list[FakeMessage]:
        return [m for m in self.world.channel_messages(channel.id) if m.pinned]

    async def list_pins(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        items = [
            {"pinned_at": m.timestamp, "message": m.to_payload()}
            for m in reversed(self._pinned(channel))
        ]
        return json_response({"items": items, "has_more": False})

    async def list_pins_legacy(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        return json_response([m.to_payload() for m in reversed(self._pinned(channel))])

    async def pin(self, request: web.Request) -> web.Response:
        return self._set_pinned(request, pinned=True)

    async def unpin(self, request: web.Request) -> web.Response:
        return self._set_pinned(request, pinned=False)

    def _set_pinned(self, request: web.Request, *, pinned: bool) -> web.Response:
        channel = self._channel(request)
        message = self._channel_message(request, channel)
        if not self.world.bot_permissions(channel) & (perms.PIN_MESSAGES | perms.MANAGE_MESSAGES):
            raise errors.missing_permissions(["Pin Messages"])
        message.pinned = pinned
        self.world.notify()
        return no_content()
