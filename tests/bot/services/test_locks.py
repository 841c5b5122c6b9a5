"""The per-key lock: one holder of a key at a time, other keys free, nothing left behind."""

from __future__ import annotations

import asyncio

from bot.services.locks import KeyedLocks


async def test_a_key_s_lock_lets_one_holder_in_at_a_time_and_is_dropped_after() -> None:
    locks = KeyedLocks()
    inside = 0
    most = 0

    async def hold() -> None:
        nonlocal inside, most
        async with locks.holding(7):
            inside += 1
            most = max(most, inside)
            await asyncio.sleep(0)  # let the others run while this one holds the lock
            await asyncio.sleep(0)
            inside -= 1

    await asyncio.gather(*(hold() for _ in range(5)))
    assert most == 1
    assert len(locks) == 0
