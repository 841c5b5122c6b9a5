"""A real PostgreSQL server for the tests, and a fresh database on it for each test.

`postgres_server` starts one server per test session with the `pgserver` package (PostgreSQL
binaries shipped in a wheel, run from a temporary folder and removed at the end), unless
`MARRAKECH_TEST_POSTGRES` holds the URL of a server to use instead (its user must be allowed
to create databases). `postgres_url` creates an empty database on it for one test, with a name
of its own, and drops it afterwards.

`backend` and `database_target` run a test on both back ends. Import the fixtures into the
conftest.py of the tests that need them.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg  # type: ignore[import-untyped]
import pytest

from bot.storage.database import BACKENDS, Backend

POSTGRES_VAR = "MARRAKECH_TEST_POSTGRES"
"""A URL (postgresql://user:password@host/database) of a server to test against."""


@contextlib.contextmanager
def postgres_server_url() -> Iterator[str]:
    """The URL of a PostgreSQL server on which databases may be created: the one
    MARRAKECH_TEST_POSTGRES names, else one started here with pgserver and removed at the end
    (for the test session, or for a benchmark command run on its own)."""
    given = os.environ.get(POSTGRES_VAR, "").strip()
    if given:
        yield given
        return
    # A short folder: the server's Unix socket lives there, and socket paths are short.
    folder = tempfile.mkdtemp(prefix="marrakech-pg-")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns that XDG_RUNTIME_DIR is unset
        from pgserver.postgres_server import get_server

        server = get_server(folder, cleanup_mode="delete")
    try:
        yield server.get_uri()
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server.cleanup()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server on which the tests may create databases."""
    with postgres_server_url() as url:
        yield url


@contextlib.asynccontextmanager
async def scratch_database() -> AsyncIterator[str]:
    """An empty database of its own on `postgres_server_url()`'s server, dropped at the end."""
    with postgres_server_url() as server_url:
        url = await create_database(server_url)
        try:
            yield url
        finally:
            await drop_database(server_url, url)


def database_url(server_url: str, name: str) -> str:
    """The server's URL with its database replaced by `name`."""
    parts = urlsplit(server_url)
    return urlunsplit(parts._replace(path=f"/{name}"))


async def create_database(server_url: str) -> str:
    """Create an empty database with a fresh name; its URL."""
    name = f"marrakech_test_{secrets.token_hex(6)}"
    admin = await asyncpg.connect(server_url)
    try:
        await admin.execute(f"CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8'")
    finally:
        await admin.close()
    return database_url(server_url, name)


async def drop_database(server_url: str, url: str) -> None:
    """Drop a database made by `create_database`, closing what is still connected to it."""
    name = urlsplit(url).path.lstrip("/")
    admin = await asyncpg.connect(server_url)
    try:
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    finally:
        await admin.close()


@pytest.fixture
async def postgres_url(postgres_server: str) -> AsyncIterator[str]:
    """The URL of an empty database of its own for one test, dropped after it."""
    url = await create_database(postgres_server)
    yield url
    await drop_database(postgres_server, url)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    """The back end a test runs on: each test asking for it runs on SQLite and PostgreSQL."""
    name: Backend = request.param
    return name


@pytest.fixture
def database_target(backend: Backend, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """Where the test's database lives (what MARRAKECH_DB takes): an SQLite file in its
    temporary folder, or an empty database of its own on the test server."""
    if backend == "sqlite":
        return str(tmp_path / "bot.sqlite3")
    url: str = request.getfixturevalue("postgres_url")
    return url
