"""Threads as Discord has them: made in a channel or from a message, their members, and the
system messages Discord posts about them.

- `POST /channels/{id}/threads`: a thread in a text or announcement channel. Its `type` is 11
  (public) or 12 (private); left out, Discord makes it private (what discord.py's
  `TextChannel.create_thread` asks for when no type is given). A public thread needs Create
  Public Threads, a private one Create Private Threads. Discord posts "started a thread"
  (type 18, THREAD_CREATED) in the parent, naming the thread in its content and pointing at it
  in its `message_reference`.
- `POST /channels/{id}/messages/{message_id}/threads`: a public thread started from a
  message; the thread's id is the message's, the message gets the thread and the HAS_THREAD
  flag, and a second thread from the same message is refused (160004). No system message.
- `PUT /channels/{thread}/thread-members/{user or @me}`: adds a member; adding someone else
  posts "added to the thread" (type 7, RECIPIENT_ADD) in the thread, mentioning (and
  notifying) the person added. `GET .../thread-members`, `DELETE .../thread-members/{...}`.
- `GET /guilds/{id}/threads/active`: the guild's threads that are not archived.

The creator (the bot) is a member of each thread it makes. A message that mentions someone in
a thread makes them a member, with no system message, as on Discord. Every new thread reaches
the gateway as THREAD_CREATE (with `newly_created`), the system messages as MESSAGE_CREATE.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from . import errors
from . import permissions as perms
from .messages import MessageStore, read_body
from .model import (
    ANNOUNCEMENT_CHANNEL,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    RECIPIENT_ADD,
    TEXT_CHANNEL,
    THREAD_CREATED,
    FakeChannel,
    FakeMessage,
)
from .responses import Route, json_response, no_content
from .world import World

Json = dict[str, Any]

ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)
"""The minutes of inactivity after which Discord may archive a thread."""
NAME_LIMIT = 100
HAS_THREAD = 1 << 5
"""The message flag of a message a thread was started from."""
THREAD_ALREADY_CREATED = 160004
INVALID_CHANNEL_TYPE = 50024


class ThreadRoutes:
    """The thread routes; they check the bot's permissions in the parent channel."""

    def __init__(self, world: World, store: MessageStore) -> None:
        self.world = world
        self.store = store

    def routes(self) -> list[Route]:
        members = "/channels/{channel_id}/thread-members"
        return [
            ("POST", "/channels/{channel_id}/threads", self.start_in_channel),
            ("POST", "/channels/{channel_id}/messages/{message_id}/threads", self.start_from),
            ("GET", members, self.list_members),
            ("PUT", members + "/{user_id}", self.add_member),
            ("DELETE", members + "/{user_id}", self.remove_member),
            ("GET", "/guilds/{guild_id}/threads/active", self.active),
        ]

    def _parent(self, request: web.Request) -> FakeChannel:
        channel = self.world.channels.get(int(request.match_info["channel_id"]))
        if channel is None:
            raise errors.unknown("Channel", errors.UNKNOWN_CHANNEL)
        if not self.world.bot_permissions(channel) & perms.VIEW_CHANNEL:
            raise errors.DiscordError(403, errors.MISSING_ACCESS, "Missing Access")
        if channel.type not in (TEXT_CHANNEL, ANNOUNCEMENT_CHANNEL):
            raise errors.DiscordError(
                400, INVALID_CHANNEL_TYPE, "Cannot execute action on this channel type"
            )
        return channel

    def _thread(self, request: web.Request) -> FakeChannel:
        channel = self.world.channels.get(int(request.match_info["channel_id"]))
        if channel is None or not channel.is_thread:
            raise errors.unknown("Channel", errors.UNKNOWN_CHANNEL)
        if not self.world.bot_permissions(channel) & perms.VIEW_CHANNEL:
            raise errors.DiscordError(403, errors.MISSING_ACCESS, "Missing Access")
        return channel

    async def start_in_channel(self, request: web.Request) -> web.Response:
        parent = self._parent(request)
        body, _ = await read_body(request)
        given = body.get("type")
        kind = PRIVATE_THREAD if given is None else int(given)
        if kind not in (PUBLIC_THREAD, PRIVATE_THREAD):
            raise _invalid("type", "Value must be one of {11, 12}.")
        needed = perms.CREATE_PRIVATE_THREADS
        if kind == PUBLIC_THREAD:
            needed = perms.CREATE_PUBLIC_THREADS
        if not self.world.bot_permissions(parent) & needed:
            raise errors.missing_permissions(perms.describe(needed))
        thread = self._new_thread(parent, body, kind, self.world.snowflakes.next())
        thread.invitable = bool(body.get("invitable", True))
        guild = parent.guild
        assert guild is not None
        reference = {"channel_id": str(thread.id), "guild_id": str(guild.id)}
        self.store.create(
            parent,
            {"content": thread.name, "message_reference": reference},
            [],
            message_type=THREAD_CREATED,
            system_mentions=[],
        )
        return json_response(thread.to_payload(member_id=self.world.bot_user.id))

    async def start_from(self, request: web.Request) -> web.Response:
        parent = self._parent(request)
        message = self.world.messages.get(int(request.match_info["message_id"]))
        if message is None or message.deleted or message.channel_id != parent.id:
            raise errors.unknown("Message", errors.UNKNOWN_MESSAGE)
        if not self.world.bot_permissions(parent) & perms.CREATE_PUBLIC_THREADS:
            raise errors.missing_permissions(perms.describe(perms.CREATE_PUBLIC_THREADS))
        if message.id in self.world.channels:
            raise errors.DiscordError(
                400, THREAD_ALREADY_CREATED, "A thread has already been created for this message"
            )
        body, _ = await read_body(request)
        thread = self._new_thread(parent, body, PUBLIC_THREAD, message.id)
        message.flags |= HAS_THREAD
        message.thread = thread.to_payload()
        self.world.notify()
        return json_response(thread.to_payload(member_id=self.world.bot_user.id))

    def _new_thread(
        self, parent: FakeChannel, body: Json, kind: int, thread_id: int
    ) -> FakeChannel:
        name = str(body.get("name") or "")
        if not 1 <= len(name) <= NAME_LIMIT:
            raise _invalid("name", f"Must be between 1 and {NAME_LIMIT} in length.")
        archive = int(body.get("auto_archive_duration") or 1440)
        if archive not in ARCHIVE_DURATIONS:
            raise _invalid("auto_archive_duration", "Value must be one of (60, 1440, 4320, 10080).")
        guild = parent.guild
        assert guild is not None
        thread = FakeChannel(
            id=thread_id,
            name=name,
            type=kind,
            guild=guild,
            parent_id=parent.id,
            owner_id=self.world.bot_user.id,
            auto_archive_duration=archive,
        )
        thread.members.add(self.world.bot_user.id)
        guild.channels[thread.id] = thread
        self.world.channels[thread.id] = thread
        payload = thread.to_payload()
        payload["newly_created"] = True
        self.store.gateway.dispatch_if_session("THREAD_CREATE", payload, guild_id=guild.id)
        self.world.notify()
        return thread

    async def list_members(self, request: web.Request) -> web.Response:
        thread = self._thread(request)
        return json_response([thread.member_payload(user) for user in sorted(thread.members)])

    async def add_member(self, request: web.Request) -> web.Response:
        thread = self._thread(request)
        user_id = self._user_id(request)
        guild = thread.guild
        assert guild is not None
        if user_id not in guild.members:
            raise errors.unknown("Member", errors.UNKNOWN_MEMBER)
        if thread.archived or (
            user_id != self.world.bot_user.id
            and not self.world.bot_permissions(thread) & perms.SEND_MESSAGES_IN_THREADS
        ):
            raise errors.missing_permissions(["Send Messages in Threads"])
        if user_id in thread.members:
            return no_content()
        thread.members.add(user_id)
        if user_id != self.world.bot_user.id:
            added = self.world.users[user_id]
            self.store.create(
                thread, {"content": ""}, [], message_type=RECIPIENT_ADD, system_mentions=[added]
            )
        self.world.notify()
        return no_content()

    async def remove_member(self, request: web.Request) -> web.Response:
        thread = self._thread(request)
        thread.members.discard(self._user_id(request))
        self.world.notify()
        return no_content()

    async def active(self, request: web.Request) -> web.Response:
        guild = self.world.guilds.get(int(request.match_info["guild_id"]))
        if guild is None:
            raise errors.unknown("Guild", errors.UNKNOWN_GUILD)
        threads = [
            channel
            for channel in guild.channels.values()
            if channel.is_thread
            and not channel.archived
            and self.world.bot_permissions(channel) & perms.VIEW_CHANNEL
        ]
        members = [
            thread.member_payload(self.world.bot_user.id)
            for thread in threads
            if self.world.bot_user.id in thread.members
        ]
        return json_response({"threads": [t.to_payload() for t in threads], "members": members})

    def _user_id(self, request: web.Request) -> int:
        raw = request.match_info["user_id"]
        return self.world.bot_user.id if raw == "@me" else int(raw)


def _invalid(field: str, message: str) -> errors.DiscordError:
    return errors.DiscordError(
        400,
        errors.INVALID_FORM_BODY,
        "Invalid Form Body",
        errors={field: {"_errors": [{"code": "BASE_TYPE_BAD", "message": message}]}},
    )


def is_system(message: FakeMessage) -> bool:
    """A message Discord itself wrote about a thread (not one the bot sent)."""
    return message.type in (THREAD_CREATED, RECIPIENT_ADD)
