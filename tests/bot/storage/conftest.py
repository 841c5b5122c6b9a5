"""Every storage test runs on both back ends: the `backend` fixture is parametrized over SQLite
and PostgreSQL, `database_target` names an empty database of that back end for the test (a file
in its temporary folder, or a database of its own on the test server), and `db` is that
database opened and migrated (an SQLite file starts as a copy of one migrated once:
`tests.postgres.open_new`).

A test written for one back end only parametrizes `backend` itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.storage import Database
from tests.postgres import backend, database_target, open_new, postgres_server, postgres_url

__all__ = ["backend", "database_target", "db", "postgres_server", "postgres_url"]


@pytest.fixture
async def db(database_target: str) -> AsyncIterator[Database]:
    database = await open_new(database_target)
    yield database
    await database.close()
