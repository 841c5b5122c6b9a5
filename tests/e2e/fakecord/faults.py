"""Fault injection: rules that make chosen REST routes answer 429, 5xx, 4xx or hang, N times."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field

from .world import WAIT_SECONDS


@dataclass(frozen=True, slots=True)
class RateLimit:
    """Answer 429 with ``retry_after`` seconds (discord.py sleeps that long, then retries).

    Its scope (``X-RateLimit-Scope``) is "global" when ``is_global``, else ``scope``: "user" (a
    route's bucket), or "shared" (a busy channel's shared limit, which is no invalid request).
    """

    retry_after: float = 0.05
    is_global: bool = False
    shared: bool = False

    @property
    def scope(self) -> str:
        return "global" if self.is_global else "shared" if self.shared else "user"


@dataclass(frozen=True, slots=True)
class ServerError:
    """Answer a 5xx (discord.py retries 500/502/504 after 1 s, 3 s, ... up to 5 tries)."""

    status: int = 500


@dataclass(frozen=True, slots=True)
class ErrorResponse:
    """Answer a Discord error JSON; the default is 403 Missing Permissions (code 50013)."""

    status: int = 403
    code: int = 50013
    message: str = "Missing Permissions"


@dataclass(frozen=True, slots=True)
class Hang:
    """Hold the request ``seconds`` (None: until released), then process it normally.

    ``release_hangs(apply=False)`` instead drops the held requests unapplied (the connection is
    cut), as if they never reached Discord.
    """

    seconds: float | None = None


@dataclass(frozen=True, slots=True)
class Disconnect:
    """Cut the connection without answering; the request is not applied."""


Fault = RateLimit | ServerError | ErrorResponse | Hang | Disconnect


def compile_route(pattern: str) -> re.Pattern[str]:
    """A route pattern: a regex, or a template with ``{name}`` placeholders for one segment."""
    if "{" in pattern:
        escaped = re.sub(r"\{[^}/]+\}", "\0", pattern)
        pattern = "[^/]+".join(re.escape(part) for part in escaped.split("\0"))
    return re.compile(pattern)


@dataclass(slots=True)
class FaultRule:
    """One injected fault on requests whose method and path match, applied ``times`` times."""

    method: str | None
    route: re.Pattern[str]
    fault: Fault
    times: int | None
    hits: int = 0
    fired: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def exhausted(self) -> bool:
        return self.times is not None and self.hits >= self.times

    def matches(self, method: str, path: str) -> bool:
        if self.exhausted:
            return False
        if self.method is not None and self.method.upper() != method.upper():
            return False
        return self.route.fullmatch(path) is not None

    async def wait_fired(self, timeout: float = WAIT_SECONDS) -> None:
        """Wait until the rule has been applied at least once."""
        await asyncio.wait_for(self.fired.wait(), timeout)


class FaultInjector:
    """The active fault rules; the first matching rule is consumed by each request."""

    def __init__(self) -> None:
        self.rules: list[FaultRule] = []
        self._release = asyncio.Event()
        self._apply = True
        self.held = 0
        """Requests held by a Hang right now."""

    def add(
        self, method: str | None, route: str, fault: Fault, *, times: int | None = 1
    ) -> FaultRule:
        """Inject ``fault`` on ``method route`` (route relative to /api/v10), ``times`` times."""
        rule = FaultRule(method, compile_route(route), fault, times)
        self.rules.append(rule)
        return rule

    def rate_limit(
        self, method: str | None, route: str, *, retry_after: float = 0.05, times: int = 1
    ) -> FaultRule:
        return self.add(method, route, RateLimit(retry_after), times=times)

    def server_error(
        self, method: str | None, route: str, *, status: int = 500, times: int = 1
    ) -> FaultRule:
        return self.add(method, route, ServerError(status), times=times)

    def forbidden(
        self,
        method: str | None,
        route: str,
        *,
        code: int = 50013,
        message: str = "Missing Permissions",
        times: int | None = 1,
    ) -> FaultRule:
        return self.add(method, route, ErrorResponse(403, code, message), times=times)

    def hang(
        self, method: str | None, route: str, *, seconds: float | None = None, times: int = 1
    ) -> FaultRule:
        return self.add(method, route, Hang(seconds), times=times)

    def disconnect(self, method: str | None, route: str, *, times: int = 1) -> FaultRule:
        return self.add(method, route, Disconnect(), times=times)

    def take(self, method: str, path: str) -> FaultRule | None:
        """The rule to apply to this request, counted as a hit, or None."""
        for rule in self.rules:
            if rule.matches(method, path):
                rule.hits += 1
                rule.fired.set()
                return rule
        return None

    def clear(self) -> None:
        """Remove every rule and let hanging requests go on."""
        self.rules.clear()
        self.release_hangs()

    def release_hangs(self, *, apply: bool = True) -> None:
        """End every hang holding a request now: process them, or drop them unapplied."""
        self._apply = apply
        self._release.set()
        self._release = asyncio.Event()

    async def hold(self, hang: Hang) -> bool:
        """Wait as the Hang says (its seconds, or until released); True: process the request."""
        release = self._release
        self.held += 1
        try:
            if hang.seconds is None:
                await release.wait()
            else:
                await asyncio.wait_for(release.wait(), hang.seconds)
        except TimeoutError:
            return True
        finally:
            self.held -= 1
        return self._apply
