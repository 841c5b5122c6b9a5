"""How a Discord request that failed reads in the operator's log: a few words, not a repr.

Discord's own answers already read well (`403 Forbidden (error code: 50013): Missing
Permissions`); a cut connection names its cause. A wait the bot gave up on is the case that
misleads: discord.py tries a 500, 502, 504 or 524 again after 1, 3, 5, ... seconds without a
word, so the bot's own bound on the wait (bot.edge.answers.bounded) ends it with a bare
`TimeoutError()` while Discord was in fact answering with errors. `ServerErrors` watches the
client's HTTP session (discord.py's `http_trace`) for such answers, so that `why` can say
"Discord answered 502 Bad Gateway 3 times and did not answer in time" instead.

The record is the process's: one client, one HTTP session. A line may count a 5xx another
request met in the same seconds, which tells the operator the same thing: Discord was failing.

`DISCORD` keeps whether Discord answers, as the database's `Availability` does for the
database: the first request Discord fails of its own fault (a 5xx, a cut connection, no answer
in time) marks it gone, and its next answer of any kind marks it back. The runtime's watch
(bot.runtime.outage) logs the outage once as it starts and once as it ends, so the line about
each request Discord fails is a DEBUG one (`failure_level`); a refusal (4xx) is about its own
request, and keeps its WARNING. Whether Discord is up says little of one piece of work, though:
a request sent before an outage may come back answered in the middle of it. `faults_met()`
keeps the Discord faults a piece of work met itself (the tasks it starts meanwhile included).
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Final

import aiohttp
import discord

from bot.edge.permissions import MissingPermissionsError

if TYPE_CHECKING:
    from bot.services.availability import Availability

RECENT_SECONDS: Final = 15.0
"""How far back a wait that ran out looks for Discord's 5xx answers: longer than any wait the
bot bounds, shorter than the pause after which a new incident is told apart."""
TOO_MANY_REQUESTS: Final = 429
"""A rate limit's answer (the limits sit before Discord's servers)."""
KEPT: Final = 64
"""The most answers remembered (a burst of 5xx beyond this is counted from its latest)."""


@dataclass(frozen=True, slots=True)
class ServerError:
    """One 5xx answer from Discord: when (monotonic seconds), its status and reason."""

    at: float
    status: int
    reason: str


class ServerErrors:
    """Discord's recent 5xx answers to this process, as its HTTP session saw them."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._answers: deque[ServerError] = deque(maxlen=KEPT)

    def watch(self, config: aiohttp.TraceConfig) -> None:
        """Record each 5xx answer of the session `config` traces."""
        config.on_request_end.append(self._on_request_end)

    async def _on_request_end(
        self,
        session: aiohttp.ClientSession,
        context: SimpleNamespace,
        params: aiohttp.TraceRequestEndParams,
    ) -> None:
        self.record(params.response.status, params.response.reason or "")
        if params.response.status < 500 and params.response.status != TOO_MANY_REQUESTS:
            DISCORD.answered()  # a rate limit says nothing of whether Discord serves

    def record(self, status: int, reason: str) -> None:
        """Note an answer (kept only if it is a 5xx)."""
        if status >= 500:
            self._answers.append(ServerError(self._clock(), status, reason))

    def recent(self) -> list[ServerError]:
        """The 5xx answers of the last RECENT_SECONDS, oldest first."""
        since = self._clock() - RECENT_SECONDS
        return [answer for answer in self._answers if answer.at >= since]


SERVER_ERRORS = ServerErrors()
"""The process's record, fed by the client (bot.edge.client) and read by `why`."""


def _up() -> Availability:
    """A new availability, up (imported here: the database's kind serves Discord too, and
    the edge's modules load no chain of the storage's)."""
    from bot.services.availability import Availability

    return Availability()


class DiscordOutages:
    """Whether Discord answers this process (see the module), and how many requests it failed
    since the count was last taken."""

    def __init__(self) -> None:
        self.availability = _up()
        self._failed = 0

    def renew(self) -> Availability:
        """Start afresh, up, for a new client (its event loop)."""
        self.availability = _up()
        self._failed = 0
        return self.availability

    def failure_level(self, error: BaseException, otherwise: int = logging.WARNING) -> int:
        """The level of the line about a request that failed with `error`: DEBUG for
        Discord's own fault, which marks Discord gone (its watch logs the outage once),
        `otherwise` for anything else."""
        if not isinstance(error, DISCORD_FAULTS):
            return otherwise
        reason = why(error)
        if (met := _FAULTS_MET.get()) is not None:
            met.append(reason)
        self._failed += 1
        self.availability.went(reason)
        return logging.DEBUG

    def answered(self) -> None:
        """Discord answered a request (whatever it said): it is back."""
        self.availability.restored()

    def take_failed(self) -> int:
        """The requests Discord failed since this was last asked; the count starts afresh."""
        failed, self._failed = self._failed, 0
        return failed


DISCORD_FAILURES: tuple[type[Exception], ...] = (
    discord.HTTPException,
    aiohttp.ClientError,
    TimeoutError,
)
"""How a request to Discord fails: refused or failed (an answer), a connection cut (aiohttp
retries an idempotent request once, not twice), or no answer in time. `why` says each in one
line."""


DISCORD_FAULTS: tuple[type[Exception], ...] = (
    discord.DiscordServerError,
    aiohttp.ClientError,
    TimeoutError,
)
"""Discord's own faults, which no change to the bot would mend: a 5xx answer (after
discord.py's retries), a connection cut, no answer in time. A refusal (4xx) is the request's."""


def why(error: BaseException, server_errors: ServerErrors = SERVER_ERRORS) -> str:
    """Why a Discord request failed, in words for a log line."""
    if isinstance(error, TimeoutError):
        answers = server_errors.recent()
        if not answers:
            return "Discord did not answer in time"
        latest = answers[-1]
        same = sum(1 for answer in answers if answer.status == latest.status)
        times = "once" if same == 1 else f"{same} times"
        return (
            f"Discord answered {latest.status} {latest.reason} {times} and did not answer in time"
        ).replace("  ", " ")
    if isinstance(error, discord.HTTPException):  # a form's refusal has a line per field
        return "Discord answered " + "; ".join(str(error).splitlines())
    if isinstance(error, MissingPermissionsError):
        return f"the channel refuses the bot (it needs {error.label('en')} there)"
    if isinstance(error, aiohttp.ClientError):
        detail = str(error)
        name = type(error).__name__
        return (
            f"the connection to Discord failed ({name}: {detail})"
            if detail
            else (f"the connection to Discord failed ({name})")
        )
    return repr(error)


_FAULTS_MET: ContextVar[list[str] | None] = ContextVar("discord_faults_met", default=None)


@contextmanager
def faults_met() -> Iterator[list[str]]:
    """The Discord faults (`why` each) that the work within the block meets, in the tasks it
    starts meanwhile too (they copy the context, and with it this list): a failure of the
    work's own that was Discord's, whatever other requests found of Discord meanwhile."""
    met: list[str] = []
    token = _FAULTS_MET.set(met)
    try:
        yield met
    finally:
        _FAULTS_MET.reset(token)


DISCORD = DiscordOutages()
"""The process's: renewed by its client (bot.edge.client), watched by the runtime."""


def failure_level(error: BaseException, otherwise: int = logging.WARNING) -> int:
    """`DISCORD.failure_level`: the level of the line about a request `error` failed."""
    return DISCORD.failure_level(error, otherwise)
