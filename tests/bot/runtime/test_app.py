"""The runtime's stop: a stop signal closes the client and ends the run with exit code 0,
even while discord.py is asleep in a reconnect's back-off (Discord unreachable for long),
which closing the client does not end; a gateway that ends by itself gives the exit code
docs/deployment.md documents for the way it ended."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace, TracebackType
from typing import Any, cast

import discord
import pytest

from bot.runtime import app
from bot.runtime.settings import Settings, load_settings
from bot.runtime.test_hooks import TestHooks


class AsleepInBackOff:
    """A client whose gateway task waits out an hour-long reconnect back-off, as discord.py's
    sharded client does after many failed reconnects; closing it does not wake the task."""

    def __init__(self) -> None:
        self.closed = False

    async def __aenter__(self) -> AsleepInBackOff:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.close()

    async def start(self, token: str) -> None:
        await asyncio.sleep(3600)

    async def close(self) -> None:
        self.closed = True


async def test_a_stop_signal_ends_the_run_during_a_reconnect_back_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(app, "STOP_GRACE_SECONDS", 0.01)
    client = AsleepInBackOff()
    stop = asyncio.Event()
    stop.set()

    code = await asyncio.wait_for(app._run_client(cast(Any, client), "token", stop), 10)

    assert code == app.EXIT_OK
    assert client.closed


class EndsOnItsOwn(AsleepInBackOff):
    """A client whose gateway task ends by itself: with `error`, or cleanly when it is None."""

    def __init__(self, error: BaseException | None) -> None:
        super().__init__()
        self.error = error

    async def start(self, token: str) -> None:
        if self.error is not None:
            raise self.error


@pytest.mark.parametrize(
    ("error", "code", "said"),
    [
        (None, 0, None),
        (discord.LoginFailure("Improper token has been passed."), 3, "Discord refused the token"),
        (OSError("Temporary failure in name resolution"), 4, "cannot reach Discord"),
        (discord.GatewayNotFound(), 4, "cannot reach Discord"),  # type: ignore[no-untyped-call]
        (
            discord.ConnectionClosed(
                cast(Any, SimpleNamespace(close_code=4011)), shard_id=0, code=4011
            ),
            1,
            "Discord refused shard 0 (close code 4011, sharding required)",
        ),
        (RuntimeError("a bug"), 1, "the gateway connection failed"),
    ],
)
async def test_the_way_the_gateway_ends_gives_the_documented_exit_code(
    error: BaseException | None,
    code: int,
    said: str | None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """docs/deployment.md: 0 a clean stop, 1 any other failure, 3 the token refused, 4 Discord
    not reached."""
    stop = asyncio.Event()

    with caplog.at_level(logging.ERROR, logger="bot.runtime.app"):
        ended = await asyncio.wait_for(
            app._run_client(cast(Any, EndsOnItsOwn(error)), "token", stop), 10
        )

    assert ended == code
    messages = [record.getMessage() for record in caplog.records]
    if said is None:
        assert messages == []
    else:
        (message,) = messages
        assert message.startswith(said)


def test_ctrl_c_is_a_clean_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    async def interrupted(settings: Settings, hooks: TestHooks) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(app, "_serve", interrupted)
    monkeypatch.setattr(discord.VoiceClient, "warn_nacl", discord.VoiceClient.warn_nacl)
    monkeypatch.setattr(discord.VoiceClient, "warn_dave", discord.VoiceClient.warn_dave)
    settings = load_settings({"DISCORD_TOKEN": "token"})

    assert app.run(settings) == 0
