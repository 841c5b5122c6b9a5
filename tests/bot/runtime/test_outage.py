"""The watch on the database: an outage is logged once when it starts (with its reason) and
once when it ends (how long, how many clicks were turned away), never in between, however many
probes fail; the listeners hear when the database is back."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from bot.runtime import outage
from bot.runtime.outage import DatabaseWatch
from bot.storage import GameStore, open_database
from bot.storage.database import PROBE_KEY

WAIT_SECONDS = 30.0
"""How long a test waits at most for what happens within a second (this is no timing)."""


async def test_an_outage_is_logged_once_as_it_starts_and_once_as_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(outage, "PROBE_SECONDS", 0.001)
    monkeypatch.setattr(outage, "PROBE_MAX_SECONDS", 0.002)
    database = await open_database(tmp_path / "watched.sqlite3")
    probe = database.probe
    probes = 0
    room = asyncio.Event()
    enough = asyncio.Event()

    async def probed(now: str) -> None:
        nonlocal probes
        probes += 1
        if probes == 5:
            enough.set()
        if not room.is_set():
            raise database.availability.failed(OSError(28, "No space left on device"))
        await probe(now)

    monkeypatch.setattr(database, "probe", probed)
    back = asyncio.Event()
    watch = DatabaseWatch(database, lambda: 3, clock=lambda: 52.25)
    watch.on_back(back.set)
    watching = asyncio.create_task(watch.run())
    try:
        with caplog.at_level(logging.INFO, logger="bot.runtime.outage"):
            database.availability.failed(OSError(28, "No space left on device"))
            database.availability.gone_since = 10.0
            await asyncio.wait_for(enough.wait(), WAIT_SECONDS)
            assert not back.is_set()
            room.set()
            await asyncio.wait_for(back.wait(), WAIT_SECONDS)
        assert database.availability.up
        assert [(record.levelno, record.getMessage()) for record in caplog.records] == [
            (
                logging.WARNING,
                (
                    "the database is unavailable (OSError: [Errno 28] No space left on device); "
                    "games are paused until it is back"
                ),
            ),
            (
                logging.INFO,
                "the database is back after 42.2 s; 3 clicks and commands were turned away",
            ),
        ]
        assert await GameStore(database).get_meta(PROBE_KEY) is not None
    finally:
        watching.cancel()
        await asyncio.wait({watching})
        await database.close()
