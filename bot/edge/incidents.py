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
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Final

import aiohttp
import discord

from bot.edge.permissions import MissingPermissionsError

RECENT_SECONDS: Final = 15.0
"""How far back a wait that ran out looks for Discord's 5xx answers: longer than any wait the
bot bounds, shorter than the pause after which a new incident is told apart."""
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
