"""The REST API under /api/v10: the routes discord.py calls, with auth, faults and limits."""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from . import errors
from . import permissions as perms
from .commands import check_commands
from .faults import Disconnect, ErrorResponse, FaultInjector, Hang, RateLimit, ServerError
from .gateway import Gateway
from .interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE_RESULT,
    CHANNEL_MESSAGE,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE_MESSAGE,
    INTERACTION_TOKEN_LIFETIME,
    MESSAGE_COMPONENT,
    MODAL,
    PONG,
    UPDATE_MESSAGE,
    InteractionEvent,
    InteractionHandle,
)
from .limits import form_error_body
from .messages import MessageStore, read_body
from .model import FakeChannel, FakeMessage
from .world import RecordedRequest, World

Json = dict[str, Any]
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

API_PREFIX = "/api/v10"
CHAT_INPUT_REPLY = 20
UNAUTHENTICATED_PREFIXES = ("/interactions/", "/webhooks/")


def json_response(body: Any, status: int = 200) -> web.Response:
    """JSON with Content-Type exactly application/json (discord.py compares it verbatim)."""
    return web.Response(
        body=json.dumps(body).encode(), status=status, content_type="application/json"
    )


def no_content() -> web.Response:
    return web.Response(status=204)


class RestApi:
    """Builds the aiohttp application serving the fake's REST API and attachment files."""

    def __init__(
        self, world: World, gateway: Gateway, faults: FaultInjector, store: MessageStore
    ) -> None:
        self.world = world
        self.gateway = gateway
        self.faults = faults
        self.store = store
        self.expected_token: str | None = None
        self.callback_deadline: float | None = 3.0
        """Seconds within which the first callback must arrive (Discord: 3 s); None: no limit."""

    def application(self) -> web.Application:
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        api = API_PREFIX
        routes: list[tuple[str, str, Handler]] = [
            ("GET", "/gateway", self.get_gateway),
            ("GET", "/gateway/bot", self.get_gateway_bot),
            ("GET", "/users/@me", self.get_me),
            ("GET", "/users/{user_id}", self.get_user),
            ("GET", "/oauth2/applications/@me", self.get_application),
            ("GET", "/applications/@me", self.get_application),
            ("GET", "/applications/{app_id}/commands", self.list_commands),
            ("PUT", "/applications/{app_id}/commands", self.overwrite_commands),
            ("POST", "/applications/{app_id}/commands", self.upsert_command),
            ("GET", "/applications/{app_id}/commands/{command_id}", self.get_command),
            ("DELETE", "/applications/{app_id}/commands/{command_id}", self.delete_command),
            ("GET", "/applications/{app_id}/guilds/{guild_id}/commands", self.list_commands),
            ("PUT", "/applications/{app_id}/guilds/{guild_id}/commands", self.overwrite_commands),
            ("POST", "/applications/{app_id}/guilds/{guild_id}/commands", self.upsert_command),
            (
                "GET",
                "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}",
                self.get_command,
            ),
            (
                "DELETE",
                "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}",
                self.delete_command,
            ),
            ("POST", "/interactions/{interaction_id}/{token}/callback", self.callback),
            ("POST", "/webhooks/{app_id}/{token}", self.followup),
            ("GET", "/webhooks/{app_id}/{token}/messages/{message_id}", self.get_webhook_message),
            (
                "PATCH",
                "/webhooks/{app_id}/{token}/messages/{message_id}",
                self.edit_webhook_message,
            ),
            (
                "DELETE",
                "/webhooks/{app_id}/{token}/messages/{message_id}",
                self.delete_webhook_message,
            ),
            ("GET", "/channels/{channel_id}", self.get_channel),
            ("GET", "/channels/{channel_id}/messages/pins", self.list_pins),
            ("PUT", "/channels/{channel_id}/messages/pins/{message_id}", self.pin),
            ("DELETE", "/channels/{channel_id}/messages/pins/{message_id}", self.unpin),
            ("GET", "/channels/{channel_id}/pins", self.list_pins_legacy),
            ("PUT", "/channels/{channel_id}/pins/{message_id}", self.pin),
            ("DELETE", "/channels/{channel_id}/pins/{message_id}", self.unpin),
            ("GET", "/channels/{channel_id}/messages", self.list_messages),
            ("POST", "/channels/{channel_id}/messages", self.post_message),
            ("GET", "/channels/{channel_id}/messages/{message_id}", self.get_message),
            ("PATCH", "/channels/{channel_id}/messages/{message_id}", self.edit_message),
            ("DELETE", "/channels/{channel_id}/messages/{message_id}", self.delete_message),
            ("POST", "/channels/{channel_id}/typing", self.typing),
            ("GET", "/guilds/{guild_id}", self.get_guild),
            ("GET", "/guilds/{guild_id}/channels", self.get_guild_channels),
            ("GET", "/guilds/{guild_id}/roles", self.get_roles),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self.get_member),
        ]
        for method, path, handler in routes:
            app.router.add_route(method, api + path, handler)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self.cdn)
        app.router.add_get("/gateway", self.gateway.handle)
        return app

    # -- middleware: auth, faults, rate-limit headers, errors, request log

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        started = time.perf_counter()
        path = request.path
        if path == "/gateway" or path.startswith("/attachments/"):
            return await handler(request)
        relative = path[len(API_PREFIX) :] if path.startswith(API_PREFIX) else path
        fault_name: str | None = None
        response: web.StreamResponse
        try:
            self._authenticate(request, relative)
            rule = self.faults.take(request.method, relative)
            if rule is not None:
                fault_name = type(rule.fault).__name__
                if isinstance(rule.fault, Hang | Disconnect):
                    go_on = isinstance(rule.fault, Hang) and await self.faults.hold(rule.fault)
                    if not go_on:
                        return self._cut(request, relative, started, fault_name)
                else:
                    response = self._fault_response(rule.fault, relative)
                    self._log(request, relative, response.status, started, fault_name)
                    return response
            response = await handler(request)
        except errors.DiscordError as error:
            response = json_response(error.body, error.status)
        except web.HTTPMethodNotAllowed:
            response = json_response({"message": "405: Method Not Allowed", "code": 0}, 405)
            self.world.unhandled.append(RecordedRequest(request.method, relative, 405, started))
        except web.HTTPNotFound:
            response = json_response({"message": "404: Not Found", "code": 0}, 404)
            self.world.unhandled.append(RecordedRequest(request.method, relative, 404, started))
        self._add_ratelimit_headers(response, relative)
        self._log(request, relative, response.status, started, fault_name)
        return response

    def _cut(
        self, request: web.Request, relative: str, started: float, fault_name: str
    ) -> web.StreamResponse:
        """Close the connection without an answer; the request is not applied."""
        if request.transport is not None:
            request.transport.abort()
        self._log(request, relative, 0, started, fault_name)
        return web.Response(status=499)

    def _authenticate(self, request: web.Request, relative: str) -> None:
        if relative.startswith(UNAUTHENTICATED_PREFIXES):
            return
        header = request.headers.get("Authorization", "")
        token = header.removeprefix("Bot ")
        if not header.startswith("Bot ") or not token:
            raise errors.DiscordError(401, 0, "401: Unauthorized")
        if self.expected_token is not None and token != self.expected_token:
            raise errors.DiscordError(401, 0, "401: Unauthorized")

    def _fault_response(self, fault: Any, relative: str) -> web.Response:
        if isinstance(fault, RateLimit):
            body = {
                "message": "You are being rate limited.",
                "retry_after": fault.retry_after,
                "global": fault.is_global,
                "code": 0,
            }
            response = json_response(body, 429)
            response.headers["Via"] = "1.1 google"
            response.headers["Retry-After"] = str(max(1, math.ceil(fault.retry_after)))
            response.headers["X-RateLimit-Scope"] = "global" if fault.is_global else "user"
            if fault.is_global:
                response.headers["X-RateLimit-Global"] = "true"
            else:
                self._add_ratelimit_headers(response, relative, remaining=0)
            return response
        if isinstance(fault, ServerError):
            if fault.status == 502:
                return web.Response(
                    status=502, text="<html>502 Bad Gateway</html>", content_type="text/html"
                )
            return json_response(
                {"message": f"{fault.status}: Server Error", "code": 0}, fault.status
            )
        if isinstance(fault, ErrorResponse):
            return json_response({"message": fault.message, "code": fault.code}, fault.status)
        raise TypeError(f"unknown fault {fault!r}")

    def _add_ratelimit_headers(
        self, response: web.StreamResponse, relative: str, remaining: int = 49
    ) -> None:
        bucket = hashlib.md5(relative.split("/")[1].encode(), usedforsecurity=False).hexdigest()
        response.headers["X-RateLimit-Limit"] = "50"
        response.headers["X-RateLimit-Remaining"] = str(remaining)
        response.headers["X-RateLimit-Reset"] = f"{time.time() + 1:.3f}"
        response.headers["X-RateLimit-Reset-After"] = "1.000"
        response.headers["X-RateLimit-Bucket"] = bucket

    def _log(
        self, request: web.Request, relative: str, status: int, started: float, fault: str | None
    ) -> None:
        self.world.requests.append(
            RecordedRequest(request.method, relative, status, started, fault=fault)
        )
        self.world.notify()

    # -- lookups

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

    def _interaction(self, request: web.Request) -> InteractionHandle:
        if int(request.match_info["app_id"]) != self.world.application_id:
            raise errors.unknown("Webhook", errors.UNKNOWN_WEBHOOK)
        token = request.match_info["token"]
        handle = self.world.interactions_by_token.get(token)
        if handle is None or not handle.acknowledged:
            raise errors.unknown("Webhook", errors.UNKNOWN_WEBHOOK)
        if time.perf_counter() - handle.created_at > INTERACTION_TOKEN_LIFETIME:
            raise errors.DiscordError(401, errors.INVALID_WEBHOOK_TOKEN, "Invalid Webhook Token")
        return handle

    def _webhook_message(self, request: web.Request, handle: InteractionHandle) -> FakeMessage:
        raw = request.match_info["message_id"]
        message_id = handle.original_message_id if raw == "@original" else int(raw)
        owned = {handle.original_message_id, *handle.followup_ids}
        message = self.world.messages.get(message_id or 0) if message_id in owned else None
        if message is None or message.deleted:
            raise errors.unknown("Message", errors.UNKNOWN_MESSAGE)
        return message

    # -- gateway, users, application

    async def get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self.gateway.url})

    async def get_gateway_bot(self, request: web.Request) -> web.Response:
        limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
        return json_response({"url": self.gateway.url, "shards": 1, "session_start_limit": limit})

    async def get_me(self, request: web.Request) -> web.Response:
        payload = self.world.bot_user.to_payload()
        payload.update({"verified": True, "mfa_enabled": False, "email": None, "locale": "en-US"})
        return json_response(payload)

    async def get_user(self, request: web.Request) -> web.Response:
        user = self.world.users.get(int(request.match_info["user_id"]))
        if user is None:
            raise errors.unknown("User", errors.UNKNOWN_USER)
        return json_response(user.to_payload())

    async def get_application(self, request: web.Request) -> web.Response:
        bot = self.world.bot_user
        owner = next((u for u in self.world.users.values() if not u.bot), bot)
        return json_response(
            {
                "id": str(self.world.application_id),
                "name": bot.name,
                "icon": None,
                "description": "fakecord application",
                "rpc_origins": [],
                "bot_public": False,
                "bot_require_code_grant": False,
                "bot": bot.to_payload(),
                "owner": owner.to_payload(),
                "team": None,
                "verify_key": "0" * 64,
                "flags": self.world.application_flags,
                "summary": "",
                "tags": [],
                "interactions_endpoint_url": None,
                "approximate_guild_count": len(self.world.guilds),
                "redirect_uris": [],
                "integration_types_config": {"0": {}},
            }
        )

    # -- application commands

    def _scope(self, request: web.Request) -> int | None:
        if int(request.match_info["app_id"]) != self.world.application_id:
            raise errors.DiscordError(
                403, 20012, "You are not authorized to perform this action on this application"
            )
        guild_id = request.match_info.get("guild_id")
        if guild_id is None:
            return None
        if int(guild_id) not in self.world.guilds:
            raise errors.DiscordError(403, errors.MISSING_ACCESS, "Missing Access")
        return int(guild_id)

    async def list_commands(self, request: web.Request) -> web.Response:
        return json_response(self.world.commands.commands_in(self._scope(request)))

    async def overwrite_commands(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        body, _ = await read_body(request)
        problems = check_commands(body)
        if problems:
            detail = form_error_body(problems)
            raise errors.DiscordError(
                400, errors.INVALID_FORM_BODY, "Invalid Form Body", errors=detail["errors"]
            )
        stored = self.world.commands.overwrite(
            self.world.application_id, scope, body, self.world.snowflakes.next
        )
        self.world.notify()
        return json_response(stored)

    async def upsert_command(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        body, _ = await read_body(request)
        problems = check_commands([body])
        if problems:
            detail = form_error_body(problems)
            raise errors.DiscordError(
                400, errors.INVALID_FORM_BODY, "Invalid Form Body", errors=detail["errors"]
            )
        stored = self.world.commands.upsert(
            self.world.application_id, scope, body, self.world.snowflakes.next
        )
        self.world.notify()
        return json_response(stored, 201)

    async def get_command(self, request: web.Request) -> web.Response:
        command = self.world.commands.get(
            self._scope(request), int(request.match_info["command_id"])
        )
        if command is None:
            raise errors.unknown("application command", errors.UNKNOWN_APPLICATION_COMMAND)
        return json_response(command)

    async def delete_command(self, request: web.Request) -> web.Response:
        if not self.world.commands.delete(
            self._scope(request), int(request.match_info["command_id"])
        ):
            raise errors.unknown("application command", errors.UNKNOWN_APPLICATION_COMMAND)
        self.world.notify()
        return no_content()

    # -- interactions

    async def callback(self, request: web.Request) -> web.Response:
        arrived = time.perf_counter()
        handle = self.world.interactions.get(int(request.match_info["interaction_id"]))
        if handle is None or handle.token != request.match_info["token"]:
            raise errors.unknown("interaction", errors.UNKNOWN_INTERACTION)
        handle.callback_attempts += 1
        body, uploads = await read_body(request)
        if handle.acknowledged:
            handle.refusals.append(errors.ALREADY_ACKNOWLEDGED)
            raise errors.DiscordError(
                400, errors.ALREADY_ACKNOWLEDGED, "Interaction has already been acknowledged."
            )
        if (
            self.callback_deadline is not None
            and handle.dispatched_at is not None
            and arrived - handle.dispatched_at > self.callback_deadline
        ):
            handle.refusals.append(errors.UNKNOWN_INTERACTION)
            self.world.notify()
            raise errors.unknown("interaction", errors.UNKNOWN_INTERACTION)
        response_type = int(body.get("type", 0))
        data: Json = body.get("data") or {}
        try:
            message = self._apply_callback(handle, response_type, data, uploads)
        except errors.DiscordError as error:
            handle.refusals.append(int(error.body["code"]))
            self.world.notify()
            raise
        handle.callback_type = response_type
        handle.responded_at = arrived
        handle.record(InteractionEvent("callback", arrived, response_type, message, body))
        if request.query.get("with_response") not in ("1", "true", "True"):
            return no_content()
        original = handle.original_message()
        interaction: Json = {"id": str(handle.id), "type": handle.type}
        if original is not None and response_type != DEFERRED_UPDATE_MESSAGE:
            interaction["response_message_id"] = str(original.id)
            interaction["response_message_loading"] = original.loading
            interaction["response_message_ephemeral"] = original.ephemeral
        result: Json = {"interaction": interaction}
        if message is not None:
            result["resource"] = {"type": response_type, "message": message.to_payload()}
        elif response_type != DEFERRED_UPDATE_MESSAGE:
            result["resource"] = {"type": response_type}
        return json_response(result)

    def _apply_callback(
        self, handle: InteractionHandle, response_type: int, data: Json, uploads: list[Any]
    ) -> FakeMessage | None:
        ephemeral = bool(int(data.get("flags") or 0) & 64)
        visible_to = handle.user.id if ephemeral else None
        is_component = handle.type == MESSAGE_COMPONENT
        source = self.world.messages.get(handle.source_message_id or 0)
        if response_type == CHANNEL_MESSAGE:
            kind = CHAT_INPUT_REPLY if handle.type == APPLICATION_COMMAND else 0
            message = self.store.create(
                handle.channel,
                data,
                uploads,
                visible_to=visible_to,
                interaction=handle,
                message_type=kind,
            )
            handle.original_message_id = message.id
            return message
        if response_type == DEFERRED_CHANNEL_MESSAGE:
            kind = CHAT_INPUT_REPLY if handle.type == APPLICATION_COMMAND else 0
            message = self.store.create(
                handle.channel,
                {},
                [],
                visible_to=visible_to,
                interaction=handle,
                message_type=kind,
                loading=True,
            )
            handle.original_message_id = message.id
            return message
        if response_type in (DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE):
            if not is_component or source is None:
                raise errors.DiscordError(400, 40004, "Interaction response type needs a message")
            handle.original_message_id = source.id
            if response_type == UPDATE_MESSAGE:
                return self.store.edit(source, data, uploads)
            return None
        if response_type == PONG and handle.type == 1:
            return None
        if response_type in (AUTOCOMPLETE_RESULT, MODAL):
            return None
        raise errors.DiscordError(
            400, errors.INVALID_FORM_BODY, f"Invalid response type {response_type}"
        )

    async def followup(self, request: web.Request) -> web.Response:
        handle = self._interaction(request)
        body, uploads = await read_body(request)
        original = handle.original_message()
        if original is not None and original.loading and original.interaction_id == handle.id:
            message = self.store.edit(original, body, uploads, finishes_loading=True)
        else:
            ephemeral = bool(int(body.get("flags") or 0) & 64)
            message = self.store.create(
                handle.channel,
                body,
                uploads,
                visible_to=handle.user.id if ephemeral else None,
                interaction=handle,
            )
            handle.followup_ids.append(message.id)
        handle.record(InteractionEvent("followup", time.perf_counter(), None, message, body))
        if request.query.get("wait") in ("1", "true", "True"):
            return json_response(message.to_payload())
        return no_content()

    async def get_webhook_message(self, request: web.Request) -> web.Response:
        handle = self._interaction(request)
        return json_response(self._webhook_message(request, handle).to_payload())

    async def edit_webhook_message(self, request: web.Request) -> web.Response:
        handle = self._interaction(request)
        message = self._webhook_message(request, handle)
        body, uploads = await read_body(request)
        message = self.store.edit(message, body, uploads)
        kind = "edit_original" if message.id == handle.original_message_id else "edit_followup"
        handle.record(InteractionEvent(kind, time.perf_counter(), None, message, body))
        return json_response(message.to_payload())

    async def delete_webhook_message(self, request: web.Request) -> web.Response:
        handle = self._interaction(request)
        message = self._webhook_message(request, handle)
        self.store.delete(message)
        handle.record(InteractionEvent("delete", time.perf_counter(), None, message, None))
        return no_content()

    # -- channels and messages

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
        message = self.store.create(channel, body, uploads)
        return json_response(message.to_payload())

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

    # -- guilds

    def _guild(self, request: web.Request) -> Any:
        guild = self.world.guilds.get(int(request.match_info["guild_id"]))
        if guild is None:
            raise errors.unknown("Guild", errors.UNKNOWN_GUILD)
        return guild

    async def get_guild(self, request: web.Request) -> web.Response:
        return json_response(self._guild(request).to_payload(self.world.bot_user.id))

    async def get_guild_channels(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        return json_response([c.to_payload() for c in guild.channels.values() if not c.is_thread])

    async def get_roles(self, request: web.Request) -> web.Response:
        return json_response([r.to_payload() for r in self._guild(request).roles.values()])

    async def get_member(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        member = guild.members.get(int(request.match_info["user_id"]))
        if member is None:
            raise errors.DiscordError(404, 10007, "Unknown Member")
        return json_response(member.to_payload())

    # -- CDN

    async def cdn(self, request: web.Request) -> web.Response:
        attachment_id = int(request.match_info["attachment_id"])
        for message in self.world.messages.values():
            for attachment in message.attachments:
                if attachment.id == attachment_id:
                    return web.Response(
                        body=attachment.data,
                        content_type=attachment.content_type or "application/octet-stream",
                    )
        raise web.HTTPNotFound()
