"""How a failed Discord request reads in the log (bot.edge.incidents)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import aiohttp
import discord
import pytest

from bot.edge.incidents import RECENT_SECONDS, ServerErrors, why


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def http_error(kind: type[discord.HTTPException], status: int, reason: str, text: str) -> Any:
    response = SimpleNamespace(status=status, reason=reason)
    return kind(cast(Any, response), {"code": 50013, "message": text})


def test_a_wait_that_ran_out_names_the_5xx_answers_discord_gave_meanwhile() -> None:
    clock = Clock()
    errors = ServerErrors(clock)
    for _ in range(3):
        errors.record(502, "Bad Gateway")
        clock.now += 1
    assert why(TimeoutError(), errors) == (
        "Discord answered 502 Bad Gateway 3 times and did not answer in time"
    )
    errors.record(503, "Service Unavailable")
    assert why(TimeoutError(), errors) == (
        "Discord answered 503 Service Unavailable once and did not answer in time"
    )


def test_a_500_is_a_5xx_answer_like_502_504_and_524() -> None:
    """discord.py waits through a 500 Internal Server Error without a word, as through the
    other 5xx: left out, a wait that ran out through 500s would say only that Discord did not
    answer, or name some other status."""
    clock = Clock()
    errors = ServerErrors(clock)
    errors.record(499, "Client Closed Request")
    assert why(TimeoutError(), errors) == "Discord did not answer in time", "not a 5xx"
    for status, reason in (
        (500, "Internal Server Error"),
        (504, "Gateway Timeout"),
        (524, "A Timeout Occurred"),
        (500, "Internal Server Error"),
    ):
        errors.record(status, reason)
        clock.now += 1
    kept = [answer.status for answer in errors.recent()]
    assert kept == [500, 504, 524, 500], "every 5xx kept, 500 included"
    assert why(TimeoutError(), errors) == (
        "Discord answered 500 Internal Server Error 2 times and did not answer in time"
    )


def test_a_wait_that_ran_out_without_5xx_answers_says_only_that() -> None:
    clock = Clock()
    errors = ServerErrors(clock)
    errors.record(200, "OK")
    errors.record(429, "Too Many Requests")
    assert why(TimeoutError(), errors) == "Discord did not answer in time"
    errors.record(502, "Bad Gateway")
    clock.now += RECENT_SECONDS + 1
    assert why(TimeoutError(), errors) == "Discord did not answer in time", "an old incident"


def test_discord_s_own_refusals_and_cut_connections_read_as_words() -> None:
    refused = http_error(discord.Forbidden, 403, "Forbidden", "Missing Permissions")
    assert why(refused) == "Discord answered 403 Forbidden (error code: 50013): Missing Permissions"
    cut = aiohttp.ServerDisconnectedError("Server disconnected")
    assert why(cut) == (
        "the connection to Discord failed (ServerDisconnectedError: Server disconnected)"
    )
    assert why(aiohttp.ClientOSError()) == "the connection to Discord failed (ClientOSError)"
    assert why(ValueError("x")) == "ValueError('x')"


def test_a_refusal_discord_explains_field_by_field_reads_in_one_line() -> None:
    """Discord answers a request it refuses as malformed with one line per field
    (discord.py joins them with newlines): a log line is one line, so they are joined
    with '; ', every field still named."""
    response = SimpleNamespace(status=400, reason="Bad Request")
    fields = {
        "content": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Too long."}]},
        "embeds": {
            "0": {"title": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Long."}]}}
        },
    }
    refused = discord.HTTPException(
        cast(Any, response), {"code": 50035, "message": "Invalid Form Body", "errors": fields}
    )

    assert why(refused) == (
        "Discord answered 400 Bad Request (error code: 50035): Invalid Form Body; "
        "In content: Too long.; In embeds.0.title: Long."
    )


@pytest.mark.asyncio
async def test_the_session_s_trace_feeds_the_record() -> None:
    errors = ServerErrors(Clock())
    config = aiohttp.TraceConfig()
    errors.watch(config)
    (hook,) = config.on_request_end
    for status, reason in ((502, "Bad Gateway"), (204, "No Content")):
        params = SimpleNamespace(response=SimpleNamespace(status=status, reason=reason))
        await hook(cast(Any, None), cast(Any, None), cast(Any, params))
    assert [(e.status, e.reason) for e in errors.recent()] == [(502, "Bad Gateway")]
