"""The REST API under /api/v10: routing, auth, rate limits, injected faults, request log."""

from __future__ import annotations

import time

from aiohttp import web

from . import errors
from .faults import (
    Disconnect,
    ErrorResponse,
    Fault,
    FaultInjector,
    Hang,
    RateLimit,
    ServerError,
)
from .gateway import Gateway
from .limits import form_error_fields
from .messages import MessageStore
from .ratelimits import RateLimiter, Verdict, retry_after_header
from .responses import Handler, json_response
from .routes_app import ApplicationRoutes
from .routes_channels import ChannelRoutes
from .routes_interactions import InteractionRoutes
from .snowflakes import unix_time
from .threads import ThreadRoutes
from .world import RecordedRequest, World

API_PREFIX = "/api/v10"
UNAUTHENTICATED_PREFIXES = ("/interactions/", "/webhooks/")
UNLIMITED_HEADERS = {
    "X-RateLimit-Limit": "50",
    "X-RateLimit-Remaining": "49",
    "X-RateLimit-Reset-After": "1.000",
    "X-RateLimit-Bucket": "fakecord-unlimited",
}
"""What every answer says when the fake's limits are off: room for many more requests."""
SHARED_LIMIT_MESSAGE = "The channel you are writing has hit the write rate limit."
"""Discord's message for code 20028, a busy channel's shared write limit."""


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
        """When set, REST calls with another token get 401 (see FakeDiscord.expected_token)."""
        self.app_routes = ApplicationRoutes(world, gateway)
        self.interaction_routes = InteractionRoutes(world, store)
        self.channel_routes = ChannelRoutes(world, store)
        self.limits = RateLimiter(world.now, world.wall_time)
        """Discord's rate limits (ratelimits.py); `limits.enabled = False` turns them off."""
        self.thread_routes = ThreadRoutes(world, store)

    @property
    def callback_deadline(self) -> float | None:
        """Seconds within which the first callback must arrive (Discord: 3 s); None: no limit."""
        return self.interaction_routes.callback_deadline

    @callback_deadline.setter
    def callback_deadline(self, seconds: float | None) -> None:
        self.interaction_routes.callback_deadline = seconds

    def application(self) -> web.Application:
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        api = API_PREFIX
        routes = [
            *self.app_routes.routes(),
            *self.interaction_routes.routes(),
            *self.channel_routes.routes(),
            *self.thread_routes.routes(),
        ]
        for method, path, handler in routes:
            app.router.add_route(method, api + path, handler)
        app.router.add_get(
            "/attachments/{channel_id}/{attachment_id}/{filename}", self.app_routes.cdn
        )
        app.router.add_get("/gateway", self.gateway.handle)
        return app

    # -- middleware: auth, rate limits, faults, errors, request log

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        started = time.perf_counter()
        path = request.path
        if path == "/gateway" or path.startswith("/attachments/"):
            return await handler(request)
        relative = path.removeprefix(API_PREFIX)
        fault_name: str | None = None
        refusal: errors.DiscordError | None = None
        verdict = Verdict({})
        response: web.StreamResponse
        try:
            token = self._authenticate(request, relative)
            verdict = self.limits.check(
                request.method, relative, token, lambda: self._message_age(relative)
            )
            if verdict.refused:
                response = self._limited(verdict.retry_after, verdict.headers, verdict.is_global)
                self._log(request, relative, response, started, None, verdict)
                return response
            rule = self.faults.take(request.method, relative)
            if rule is not None:
                fault_name = type(rule.fault).__name__
                if isinstance(rule.fault, Hang | Disconnect):
                    go_on = isinstance(rule.fault, Hang) and await self.faults.hold(rule.fault)
                    if not go_on:
                        return self._cut(request, relative, started, fault_name, verdict)
                else:
                    response = self._fault_response(rule.fault, verdict)
                    if isinstance(rule.fault, ErrorResponse):
                        fault = rule.fault
                        refusal = errors.DiscordError(fault.status, fault.code, fault.message)
                    self._log(request, relative, response, started, fault_name, verdict, refusal)
                    return response
            response = await handler(request)
        except errors.DiscordError as error:
            response = json_response(error.body, error.status)
            refusal = error
        except web.HTTPMethodNotAllowed:
            response = json_response({"message": "405: Method Not Allowed", "code": 0}, 405)
            self.world.unhandled.append(RecordedRequest(request.method, relative, 405, started))
        except web.HTTPNotFound:
            response = json_response({"message": "404: Not Found", "code": 0}, 404)
            self.world.unhandled.append(RecordedRequest(request.method, relative, 404, started))
        response.headers.update(verdict.headers if self.limits.enabled else UNLIMITED_HEADERS)
        self._log(request, relative, response, started, fault_name, verdict, refusal)
        return response

    def _cut(
        self,
        request: web.Request,
        relative: str,
        started: float,
        fault_name: str,
        verdict: Verdict,
    ) -> web.StreamResponse:
        """Close the connection without an answer; the request is not applied."""
        if request.transport is not None:
            request.transport.abort()
        self.world.requests.append(
            RecordedRequest(
                request.method, relative, 0, started, fault_name, verdict.counts_globally
            )
        )
        self.world.notify()
        return web.Response(status=499)

    def _authenticate(self, request: web.Request, relative: str) -> str | None:
        """The bot token the request carries (None on the interaction routes, which need none);
        401 for a request that needs one and has none, or not the expected one."""
        header = request.headers.get("Authorization", "")
        token = header.removeprefix("Bot ") if header.startswith("Bot ") else ""
        if relative.startswith(UNAUTHENTICATED_PREFIXES):
            return token or None
        if not token:
            raise errors.DiscordError(401, 0, "401: Unauthorized")
        if self.expected_token is not None and token != self.expected_token:
            raise errors.DiscordError(401, 0, "401: Unauthorized")
        return token

    def _message_age(self, relative: str) -> float | None:
        """The age of the message a channel message route names, on the fake's clock."""
        message_id = relative.rsplit("/", 1)[-1]
        if not message_id.isdigit():
            return None
        return time.time() + self.world.snowflakes.offset - unix_time(int(message_id))

    @staticmethod
    def _limited(
        retry_after: float, headers: dict[str, str], is_global: bool, *, shared: bool = False
    ) -> web.Response:
        """Discord's 429: not executed; retry after `retry_after` seconds. A busy channel's
        shared write limit says so with its own code and message."""
        body = {
            "message": SHARED_LIMIT_MESSAGE if shared else "You are being rate limited.",
            "retry_after": round(retry_after, 3),
            "global": is_global,
            "code": errors.CHANNEL_WRITE_RATE_LIMITED if shared else 0,
        }
        response = json_response(body, 429)
        response.headers.update(headers)
        response.headers["Via"] = "1.1 google"
        response.headers["Retry-After"] = retry_after_header(retry_after)
        return response

    def _fault_response(self, fault: Fault, verdict: Verdict) -> web.Response:
        if isinstance(fault, RateLimit):
            headers = {"X-RateLimit-Scope": fault.scope}
            if fault.is_global:
                headers["X-RateLimit-Global"] = "true"
            else:
                headers = {**verdict.headers, **headers, "X-RateLimit-Remaining": "0"}
            shared = fault.scope == "shared"
            return self._limited(fault.retry_after, headers, fault.is_global, shared=shared)
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

    def _log(
        self,
        request: web.Request,
        relative: str,
        response: web.StreamResponse,
        started: float,
        fault: str | None,
        verdict: Verdict,
        refusal: errors.DiscordError | None = None,
    ) -> None:
        """Record the request with its answer; `refusal` is the error a handler answered with
        (its Discord code, and the fields a 50035 names)."""
        scope = response.headers.get("X-RateLimit-Scope") if response.status == 429 else None
        code = refusal.body.get("code") if refusal is not None else None
        fields = form_error_fields(refusal.body.get("errors") or {}) if refusal else []
        self.world.requests.append(
            RecordedRequest(
                request.method,
                relative,
                response.status,
                started,
                fault=fault,
                bot_token=verdict.counts_globally,
                scope=scope,
                inherited=verdict.inherited and fault is None,
                code=code,
                field=", ".join(fields) or None,
            )
        )
        self.world.notify()
