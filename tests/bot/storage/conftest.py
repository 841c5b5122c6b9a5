"""Every storage test runs on both back ends: the `backend` fixture is parametrized over SQLite
and PostgreSQL, `database_url` names an empty database of that back end for the test (a file
in its temporary folder, or a database of its own on the test server), and `db` is that
database opened and migrated.

A test written for one back end only parametrizes `backend` itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage import Database
from bot.storage.database import BACKENDS, Backend
from tests.postgres import postgres_server, postgres_url

__all__ = ["backend", "database_url", "db", "postgres_server", "postgres_url"]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    name: Backend = request.param
    return name


@pytest.fixture
def database_url(backend: Backend, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """Where the test's database lives: an SQLite file path, or a PostgreSQL URL."""
    if backend == "sqlite":
        return str(tmp_path / "bot.sqlite3")
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    database = await Database.open(database_url)
    yield database
    await database.close()
