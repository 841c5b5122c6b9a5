"""Every service test that stores something runs on both back ends.

The `backend` fixture is parametrized over SQLite and PostgreSQL. `database_target` names an
empty database of that back end for the test (a file in its temporary folder, or a database of
its own on the test server; tests/postgres.py), which a test may open again to play a restart
or a second process; `database` is that database opened and migrated (an SQLite file starts as
a copy of one migrated once: `tests.postgres.open_new`). `fresh_targets` makes more empty
databases of the same back end when a test needs several apart (two replays of one game, a
reference run).

A test that only makes sense on one back end (it reaches past bot.storage into the SQLite
file, say) parametrizes `backend` itself, `@pytest.mark.parametrize("backend", ["sqlite"])`,
and says why.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage import Database
from bot.storage.database import Backend
from tests.postgres import (
    backend,
    create_database,
    database_target,
    drop_database,
    open_new,
    postgres_server,
    postgres_url,
)

__all__ = [
    "FreshTargets",
    "backend",
    "database",
    "database_target",
    "fresh_targets",
    "postgres_server",
    "postgres_url",
]


@pytest.fixture
async def database(database_target: str) -> AsyncIterator[Database]:
    db = await open_new(database_target)
    yield db
    await db.close()


class FreshTargets:
    """Makes empty databases of one back end on demand; `drop` removes the PostgreSQL ones."""

    def __init__(self, backend: Backend, folder: Path, server: str | None) -> None:
        self.backend = backend
        self.folder = folder
        self.server = server
        self.made: list[str] = []

    async def new(self) -> str:
        """The target of one more empty database."""
        if self.server is None:
            target = str(self.folder / f"fresh-{len(self.made)}.sqlite3")
        else:
            target = await create_database(self.server)
        self.made.append(target)
        return target

    async def drop(self) -> None:
        if self.server is not None:
            for url in self.made:
                await drop_database(self.server, url)
        self.made.clear()


@pytest.fixture
async def fresh_targets(
    backend: Backend, tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[FreshTargets]:
    server: str | None = None
    if backend == "postgres":
        server = request.getfixturevalue("postgres_server")
    targets = FreshTargets(backend, tmp_path, server)
    yield targets
    await targets.drop()
