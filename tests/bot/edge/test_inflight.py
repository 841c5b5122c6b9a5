"""What a clean stop waits for: a task followed as in flight counts until it ends, except
while it waits for the database to come back, which the stop cancels rather than waits for."""

from __future__ import annotations

import asyncio

from bot.edge.inflight import InFlight


async def test_a_followed_task_waiting_for_the_database_does_not_hold_a_stop() -> None:
    handlers = InFlight()
    back, sent = asyncio.Event(), asyncio.Event()

    async def message() -> None:
        with handlers.aside():  # as while the database is away
            await back.wait()
        await sent.wait()  # then on its way to Discord

    task = asyncio.create_task(message())
    handlers.follow(task)
    await asyncio.sleep(0)
    assert await handlers.drained(0.01), "waiting for the database: not in flight"
    back.set()
    await asyncio.sleep(0)
    assert handlers.count == 1
    assert not await handlers.drained(0.01), "on its way again: in flight"
    sent.set()
    await task
    assert await handlers.drained(0.01)
    assert handlers.count == 0
