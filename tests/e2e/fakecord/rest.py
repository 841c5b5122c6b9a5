"""The REST API under /api/v10: routing, auth, injected faults, rate-limit headers, request log."""

from __future__ import annotations

import hashlib
import math
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
from .messages import MessageStore
from .responses import Handler, json_response
from .routes_app import ApplicationRoutes
from .routes_channels import ChannelRoutes
from .routes_interactions import InteractionRoutes
from .threads import ThreadRoutes
from .world import RecordedRequest, World

API_PREFIX = "/api/v10"
UNAUTHENTICATED_PREFIXES = ("/interactions/", "/webhooks/")


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

    # -- middleware: auth, faults, rate-limit headers, errors, request log

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        started = time.perf_counter()
        path = request.path
        if path == "/gateway" or path.startswith("/attachments/"):
            return await handler(request)
        relative = path.removeprefix(API_PREFIX)
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

    def _fault_response(self, fault: Fault, relative: str) -> web.Response:
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
