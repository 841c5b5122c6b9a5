"""The test-only crash hook: off (a no-op) unless MARRAKECH_CRASH_AT names a point; then a real
SIGKILL on the n-th pass. Also the in-flight counter a clean stop waits on, until every
handler has returned."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bot import crashpoints
from bot.edge.inflight import InFlight


def test_unset_means_nothing_is_armed() -> None:
    crashpoints.configure({})
    assert crashpoints.reach is crashpoints._nothing  # the no-op itself
    assert crashpoints.write_hook is None
    crashpoints.reach("db.committed")  # and passing a point does nothing


@pytest.mark.parametrize("value", ["db.committed", "nowhere:1", "db.committed:0", "db.write:x"])
def test_a_bad_setting_is_refused_in_one_line(value: str) -> None:
    with pytest.raises(crashpoints.CrashSettingError, match="testing only") as raised:
        crashpoints.configure({crashpoints.CRASH_VAR: value})
    crashpoints.configure({})
    assert "\n" not in str(raised.value)
    assert repr(value) in str(raised.value)


def test_the_nth_pass_kills_the_process_with_sigkill() -> None:
    program = (
        "from bot import crashpoints\n"
        "crashpoints.configure({'MARRAKECH_CRASH_AT': 'click.responded:3'})\n"
        "for n in range(1, 6):\n"
        "    crashpoints.reach('turn.posted')\n"
        "    print(n, flush=True)\n"
        "    crashpoints.reach('click.responded')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == -signal.SIGKILL
    assert done.stdout.split() == ["1", "2", "3"]
    assert "crash point click.responded:3 reached" in done.stderr


WRITES_UNTIL_KILLED = """
import asyncio, sys
from bot import crashpoints
from bot.storage import open_database

async def main():
    database = await open_database(sys.argv[1])
    crashpoints.configure({'MARRAKECH_CRASH_AT': 'db.write:2'})
    async with database.transaction() as conn:
        await conn.execute("CREATE TABLE written (n INTEGER)")
        for n in range(200):
            await conn.execute("INSERT INTO written VALUES ($1)", n)
    print("committed", flush=True)
    await database.close()

asyncio.run(main())
"""
"""A program that arms `db.write:2`, then writes one transaction on the SQLite database named
by its argument: it prints "committed" unless it was killed in the middle."""


def test_db_write_kills_the_process_inside_a_write_statement(tmp_path: Path) -> None:
    """`db.write` is passed on SQLite's progress callback only: with it unarmed there, the
    crash-safety run would never kill the bot in the middle of a statement."""
    done = subprocess.run(
        [sys.executable, "-c", WRITES_UNTIL_KILLED, str(tmp_path / "crash.sqlite3")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stdout + done.stderr
    assert "committed" not in done.stdout
    assert "crash point db.write:2 reached" in done.stderr


def test_only_db_write_installs_the_sqlite_progress_callback() -> None:
    try:
        crashpoints.configure({crashpoints.CRASH_VAR: "db.write:5"})
        assert crashpoints.write_hook is not None
        crashpoints.configure({crashpoints.CRASH_VAR: "db.committed:5"})
        assert crashpoints.write_hook is None, "no callback on every write for other points"
    finally:
        crashpoints.configure({})


async def test_a_stop_waits_for_running_handlers() -> None:
    handlers = InFlight()
    assert await handlers.drained(0.01)
    release = asyncio.Event()

    async def handler() -> None:
        with handlers.track():
            await release.wait()

    running = asyncio.create_task(handler())
    await asyncio.sleep(0)
    assert not await handlers.drained(0.01)
    waiting = asyncio.create_task(handlers.drained(5))
    release.set()
    assert await waiting
    await running


async def test_a_stop_waits_until_the_last_of_several_handlers_has_returned() -> None:
    """Woken by the first handler to return, the stop would close the database under the
    others, still running."""
    handlers = InFlight()
    first, second = asyncio.Event(), asyncio.Event()

    async def handler(release: asyncio.Event) -> None:
        with handlers.track():
            await release.wait()

    running = [asyncio.create_task(handler(first)), asyncio.create_task(handler(second))]
    await asyncio.sleep(0)
    assert handlers.count == 2
    waiting = asyncio.create_task(handlers.drained(5))
    await asyncio.sleep(0)
    first.set()
    await running[0]
    for _ in range(20):  # turns of the loop enough for a woken stop to return
        await asyncio.sleep(0)
    assert handlers.count == 1
    assert not waiting.done(), "one handler still runs: the stop must go on waiting"
    second.set()
    assert await waiting
    await running[1]
