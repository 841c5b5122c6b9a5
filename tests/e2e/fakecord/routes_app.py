"""REST routes about the bot itself: gateway URL, users, application, commands, guilds, files."""

from __future__ import annotations

from aiohttp import web

from . import errors
from .commands import check_commands
from .gateway import Gateway
from .limits import form_error_body
from .messages import read_body
from .model import FakeGuild
from .responses import Route, json_response, no_content
from .world import World


class ApplicationRoutes:
    """Login, gateway discovery, application info, command registration, guilds and the CDN."""

    def __init__(self, world: World, gateway: Gateway) -> None:
        self.world = world
        self.gateway = gateway

    def routes(self) -> list[Route]:
        return [
            ("GET", "/gateway", self.get_gateway),
            ("GET", "/gateway/bot", self.get_gateway_bot),
            ("GET", "/users/@me", self.get_me),
            ("GET", "/users/{user_id}", self.get_user),
            ("POST", "/users/@me/channels", self.create_dm),
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
            ("GET", "/guilds/{guild_id}", self.get_guild),
            ("GET", "/guilds/{guild_id}/channels", self.get_guild_channels),
            ("GET", "/guilds/{guild_id}/roles", self.get_roles),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self.get_member),
        ]

    async def get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self.gateway.url})

    async def get_gateway_bot(self, request: web.Request) -> web.Response:
        limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
        return json_response(
            {
                "url": self.gateway.url,
                "shards": self.gateway.shard_count,
                "session_start_limit": limit,
            }
        )

    async def get_me(self, request: web.Request) -> web.Response:
        payload = self.world.bot_user.to_payload()
        payload.update({"verified": True, "mfa_enabled": False, "email": None, "locale": "en-US"})
        return json_response(payload)

    async def get_user(self, request: web.Request) -> web.Response:
        user = self.world.users.get(int(request.match_info["user_id"]))
        if user is None:
            raise errors.unknown("User", errors.UNKNOWN_USER)
        return json_response(user.to_payload())

    async def create_dm(self, request: web.Request) -> web.Response:
        """The DM channel with `recipient_id` (the same one on every call)."""
        body, _ = await read_body(request)
        user = self.world.users.get(int(body.get("recipient_id", 0)))
        if user is None:
            raise errors.unknown("User", errors.UNKNOWN_USER)
        return json_response(self.world.dm_channel(user).to_payload())

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

    def _guild(self, request: web.Request) -> FakeGuild:
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
