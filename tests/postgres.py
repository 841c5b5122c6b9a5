"""A real PostgreSQL server for the tests, and a fresh database on it for each test.

`postgres_server` starts one server per test session with the `pgserver` package (PostgreSQL
binaries shipped in a wheel, run from a temporary folder and removed at the end), unless
`MARRAKECH_TEST_POSTGRES` holds the URL of a server to use instead (its user must be allowed
to create databases). `postgres_url` gives one test an empty database of its own on it, and
drops it afterwards: a schema of its own in one database the test process keeps on the
server, which its URL names (`create_database` says why).

`backend` and `database_target` run a test on both back ends. Import the fixtures into the
conftest.py of the tests that need them. `open_new` opens a test's own new database: an SQLite
file starts as a copy of one migrated once per test process.

`stoppable_server()` starts a server of a test's own, always with pgserver, which the test may
stop and start again (the same data, the same socket) under a running bot.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import secrets
import shutil
import tempfile
import threading
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import asyncpg  # type: ignore[import-untyped]
import pytest

from bot.storage import Database, open_database
from bot.storage.database import BACKENDS, Backend
from bot.storage.open import parse_target

if TYPE_CHECKING:
    from pgserver.postgres_server import PostgresServer

POSTGRES_VAR = "MARRAKECH_TEST_POSTGRES"
"""A URL (postgresql://user:password@host/database) of a server to test against."""
THROWAWAY_SETTINGS = """
ALTER SYSTEM SET fsync = off;
ALTER SYSTEM SET synchronous_commit = off;
ALTER SYSTEM SET full_page_writes = off;
SELECT pg_reload_conf();
"""
"""What a server started here for the tests' databases runs with: nothing it writes has to
outlive a crash of the machine (it is removed at the end), so a commit does not wait for the
disk. A test's migrations are 31 commits, and those waits would be a third of their time. A
server a test stops and starts (`stoppable_server`) keeps PostgreSQL's defaults."""


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
    server.psql(THROWAWAY_SETTINGS)
    try:
        yield server.get_uri()
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server.cleanup()


class StoppableServer:
    """A PostgreSQL server of one test's own (pgserver), stopped and started at will."""

    def __init__(self, server: PostgresServer) -> None:
        self._server = server
        self.url: str = self._server.get_uri()
        self.running = True

    def stop(self) -> None:
        """Stop the server at once (`pg_ctl stop -m fast`: open sessions are ended)."""
        from pgserver._commands import pg_ctl  # type: ignore[attr-defined]  # made at import

        server = self._server
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=server.pgdata, user=server.system_user)
        self.running = False

    def start(self) -> None:
        """Start it again on the same data and socket (its URL is unchanged)."""
        self._server.ensure_postgres_running()
        self.running = True
        assert self._server.get_uri() == self.url

    def remove(self) -> None:
        """Stop it for good and remove its data (started first: pgserver stops it itself)."""
        if not self.running:
            self.start()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self._server.cleanup()


@contextlib.contextmanager
def stoppable_server() -> Iterator[StoppableServer]:
    """A server of its own, removed at the end (started first if the test left it stopped)."""
    folder = tempfile.mkdtemp(prefix="marrakech-pgf-")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgserver.postgres_server import get_server

        server = StoppableServer(get_server(folder, cleanup_mode="delete"))
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server on which the tests may create databases."""
    with postgres_server_url() as url:
        yield url
        asyncio.run(drop_shared_database(url))  # no loop runs between tests


@contextlib.asynccontextmanager
async def scratch_database() -> AsyncIterator[str]:
    """An empty database of its own on `postgres_server_url()`'s server, dropped at the end."""
    with postgres_server_url() as server_url:
        url = await create_database(server_url)
        try:
            yield url
        finally:
            await drop_database(server_url, url)
            await drop_shared_database(server_url)


def database_url(server_url: str, name: str) -> str:
    """The server's URL with its database replaced by `name`."""
    parts = urlsplit(server_url)
    return urlunsplit(parts._replace(path=f"/{name}"))


TEST_SCHEMA_PREFIX = "marrakech_test_"
LOCK_WAIT_BOUND = "60s"
"""The longest a statement of a test's database waits for a lock (a row, a table, the
migrations' advisory lock) before it fails: far more than any wait the bot's work makes, so
only a lock never let go (a migration that keeps it, a transaction left open) reaches it, and
the test fails there instead of waiting for ever (the suite has no time limit of its own)."""

_shared_databases: dict[str, str] = {}
"""Server URL -> the database this test process keeps on it for the tests' schemas."""


async def create_database(server_url: str) -> str:
    """An empty database of its own for a test or a benchmark; the URL that reaches it.

    It is a fresh schema in one database this process keeps on the server, named in the
    URL's `search_path` (asyncpg sends the query's other parameters as server settings), not a
    database of its own: PostgreSQL copies a whole template to create a database (a third of a
    second each on a small machine, the most of what a PostgreSQL test took), while a schema
    costs a millisecond. What the bot sees is the same: it names no schema, so its tables,
    its migrations and its LISTEN and NOTIFY land where the URL points."""
    shared = await _shared_database(server_url)
    schema = f"{TEST_SCHEMA_PREFIX}{secrets.token_hex(6)}"
    admin = await asyncpg.connect(database_url(server_url, shared))
    try:
        await admin.execute(f"CREATE SCHEMA {schema}")
    finally:
        await admin.close()
    return with_search_path(database_url(server_url, shared), schema)


async def _shared_database(server_url: str) -> str:
    """This process's database on the server, created on first use, where a wait for a lock
    ends in an error after `LOCK_WAIT_BOUND` (`lock_timeout` for every session on it)."""
    name = _shared_databases.get(server_url)
    if name is None:
        name = f"marrakech_tests_{os.getpid()}_{secrets.token_hex(3)}"
        admin = await asyncpg.connect(server_url)
        try:
            await admin.execute(f"CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8'")
            await admin.execute(f"ALTER DATABASE {name} SET lock_timeout = '{LOCK_WAIT_BOUND}'")
        finally:
            await admin.close()
        _shared_databases[server_url] = name
    return name


def with_search_path(url: str, schema: str) -> str:
    """`url` with `search_path=schema` added to its query."""
    parts = urlsplit(url)
    query = f"{parts.query}&search_path={schema}" if parts.query else f"search_path={schema}"
    return urlunsplit(parts._replace(query=query))


def search_path_of(url: str) -> str:
    """The schema a URL made by `create_database` names."""
    found = dict(parse_qsl(urlsplit(url).query)).get("search_path", "")
    if not found.startswith(TEST_SCHEMA_PREFIX):
        raise ValueError(f"not a test database's URL: {url}")
    return found


async def drop_database(server_url: str, url: str) -> None:
    """Drop what `create_database` made, ending whatever is still connected to it first (the
    tests of one process run one at a time: what is connected to the shared database now is
    the ending test's own)."""
    schema = search_path_of(url)
    shared = urlsplit(url).path.lstrip("/")
    admin = await asyncpg.connect(database_url(server_url, shared))
    try:
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        await admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    finally:
        await admin.close()


async def drop_shared_database(server_url: str) -> None:
    """Drop this process's database on the server, if it made one."""
    name = _shared_databases.pop(server_url, None)
    if name is None:
        return
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


_migrated_sqlite: list[Path] = []
"""The SQLite file this test process migrated once, for `open_new` to copy."""
_migrating = threading.Lock()


def _migrated_sqlite_file() -> Path:
    """An SQLite database the bot's migrations brought up to date, made at the first call in
    this process (in a folder removed at its exit) and never opened again."""
    with _migrating:
        if not _migrated_sqlite:
            folder = Path(tempfile.mkdtemp(prefix="marrakech-migrated-"))
            atexit.register(shutil.rmtree, folder, ignore_errors=True)
            path = folder / "migrated.sqlite3"

            async def migrate() -> None:
                await (await open_database(path)).close()

            asyncio.run(migrate())  # in a thread of its own: no loop runs there
            _migrated_sqlite.append(path)
        return _migrated_sqlite[0]


async def open_new(target: str | Path) -> Database:
    """`open_database(target)` for a test's own database, new or made by the test. An SQLite
    file not there yet starts as a copy of one the bot's migrations brought up to date once in
    this process: migrating a new file (a transaction per migration) costs 30 ms of CPU, most
    of what a short storage test costs, and a copy a millisecond; the schema is the same (the
    tests of the migrations themselves open empty files with `open_database`)."""
    backend, location = parse_target(target)
    if backend == "sqlite":
        await asyncio.to_thread(_start_from_migrated, Path(location))
    return await open_database(target)


def _start_from_migrated(path: Path) -> None:
    """A copy of the migrated SQLite file at `path`, unless a file is there already."""
    if not path.exists():
        migrated = _migrated_sqlite_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(migrated, path)


@pytest.fixture
def database_target(backend: Backend, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """Where the test's database lives (what MARRAKECH_DB takes): an SQLite file in its
    temporary folder, or an empty database of its own on the test server."""
    if backend == "sqlite":
        return str(tmp_path / "bot.sqlite3")
    url: str = request.getfixturevalue("postgres_url")
    return url
