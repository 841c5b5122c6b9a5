"""Waiting in a test for something the code under test does in the background: look again
every few milliseconds until it holds, and fail after a generous bound (no timing is asserted).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable

WAIT_SECONDS = 30.0
"""How long `until` waits at most: far more than what it waits for takes, even on a busy
machine."""


async def until(
    condition: Callable[[], bool | Awaitable[bool]], what: str, *, timeout: float = WAIT_SECONDS
) -> None:
    """Return once `condition()` (a function, or a coroutine function) is true; AssertionError
    naming `what` after `timeout` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        held = condition()
        if inspect.isawaitable(held):
            held = await held
        if held:
            return
        assert loop.time() < deadline, f"timed out after {timeout:.0f} s waiting for {what}"
        await asyncio.sleep(0.01)
