"""The runtime's stop: a stop signal closes the client and ends the run with exit code 0,
even while discord.py is asleep in a reconnect's back-off (Discord unreachable for long),
which closing the client does not end."""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import Any, cast

import pytest

from bot.runtime import app


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
