"""A real PostgreSQL server for the tests, and a fresh database on it for each test.

`postgres_server` starts one server per test session with the `pgserver` package (PostgreSQL
binaries shipped in a wheel, run from a temporary folder and removed at the end), unless
`MARRAKECH_TEST_POSTGRES` holds the URL of a server to use instead (its user must be allowed
to create databases). `postgres_url` gives one test an empty database of its own on it, and
drops it afterwards: a schema of its own in one database the test process keeps on the
server, which its URL names (`create_database` says why).

`backend` and `database_target` run a test on both back ends. Import the fixtures into the
conftest.py of the tests that need them. `open_new` opens a test's own new database: an SQLite
file starts as a copy of one migrated once per test process, a PostgreSQL schema as one that
an earlier test left migrated and that was emptied again (`keep_emptied`).

`stoppable_server()` starts a server of a test's own, always with pgserver, which the test may
stop and start again (the same data, the same socket) under a running bot.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import graphlib
import os
import secrets
import shutil
import tempfile
import threading
import warnings
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import asyncpg  # type: ignore[import-untyped]
import pytest

from bot.storage import Database, open_database
from bot.storage.database import BACKENDS, Backend, load_migrations
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


_END_OTHER_SESSIONS = (
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
)


async def drop_database(server_url: str, url: str) -> None:
    """Drop what `create_database` made, ending whatever is still connected to it first (the
    tests of one process run one at a time: what is connected to the shared database now is
    the ending test's own); or, a schema the migrations brought up to date and the test left
    as they made it, keep it emptied for a later test (`keep_emptied`)."""
    schema = search_path_of(url)
    shared = urlsplit(url).path.lstrip("/")
    admin = await asyncpg.connect(database_url(server_url, shared))
    try:
        await admin.execute(_END_OTHER_SESSIONS)
        if not await keep_emptied(admin, shared, schema):
            await admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    finally:
        await admin.close()


# --- migrated schemas handed on from test to test ---------------------------------------------

SPARES_KEPT = 4
"""The most emptied schemas a test process keeps for the next tests (more are dropped)."""
SPARE_BYTES = 4 * 1024 * 1024
"""A schema whose tables and indexes take more than this (a load test's) is dropped, not
emptied: emptying it row by row would cost more than migrating a new one."""

SHAPE = """
SELECT md5(coalesce(string_agg(replace(item, $1 || '.', ''), ' | ' ORDER BY item), '')) FROM (
    SELECT format('schema %s', n.nspacl) FROM pg_namespace n WHERE n.oid = $1::text::regnamespace
    UNION ALL
    SELECT format('relation %s %s %s %s %s %s', c.relname, c.relkind, c.relpersistence,
                  c.relrowsecurity, c.reloptions, c.relacl)
    FROM pg_class c WHERE c.relnamespace = $1::text::regnamespace
    UNION ALL
    SELECT format('column %s %s %s %s %s %s %s', c.relname, a.attnum, a.attname,
                  format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attisdropped,
                  pg_get_expr(d.adbin, d.adrelid))
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE c.relnamespace = $1::text::regnamespace AND a.attnum > 0
    UNION ALL
    SELECT format('constraint %s %s %s', k.conrelid::regclass, k.conname,
                  pg_get_constraintdef(k.oid))
    FROM pg_constraint k WHERE k.connamespace = $1::text::regnamespace
    UNION ALL
    SELECT format('index %s', pg_get_indexdef(i.indexrelid))
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    WHERE c.relnamespace = $1::text::regnamespace
    UNION ALL
    SELECT format('trigger %s %s', t.tgenabled, pg_get_triggerdef(t.oid))
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    WHERE c.relnamespace = $1::text::regnamespace AND NOT t.tgisinternal
    UNION ALL
    SELECT format('rule %s', pg_get_ruledef(r.oid))
    FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class
    WHERE c.relnamespace = $1::text::regnamespace
    UNION ALL
    SELECT format('policy %s %s %s %s', p.polrelid::regclass, p.polname,
                  pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid))
    FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
    WHERE c.relnamespace = $1::text::regnamespace
    UNION ALL
    SELECT format('routine %s %s %s %s', p.proname, p.prokind,
                  pg_get_function_identity_arguments(p.oid), p.prosrc)
    FROM pg_proc p WHERE p.pronamespace = $1::text::regnamespace
    UNION ALL
    SELECT format('type %s %s', t.typname, t.typtype)
    FROM pg_type t WHERE t.typnamespace = $1::text::regnamespace
    UNION ALL
    SELECT format('label %s %s %s', t.typname, e.enumsortorder, e.enumlabel)
    FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid
    WHERE t.typnamespace = $1::text::regnamespace
    UNION ALL
    SELECT format('sequence %s %s %s %s %s %s %s', c.relname, s.seqtypid::regtype, s.seqstart,
                  s.seqincrement, s.seqmin, s.seqmax, s.seqcycle)
    FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid
    WHERE c.relnamespace = $1::text::regnamespace
) AS items (item)
"""
"""A digest of everything a schema defines, with the schema's own name left out (it is first
in `search_path`, and an index's definition, which names it anyway, has it taken out): two
schemas with the same digest differ in their rows alone."""

_DIGEST_AND_SIZE = f"""
SELECT ({SHAPE}), (
    SELECT coalesce(sum(pg_total_relation_size(oid)), 0) FROM pg_class
    WHERE relnamespace = $1::text::regnamespace AND relkind = 'r'
)
"""

_RELATIONS = """
SELECT c.relname, c.relkind::text, (
    SELECT coalesce(array_agg(DISTINCT r.relname), '{}') FROM pg_constraint k
    JOIN pg_class r ON r.oid = k.confrelid
    WHERE k.conrelid = c.oid AND k.contype = 'f' AND k.confrelid <> c.oid
) FROM pg_class c WHERE c.relnamespace = $1::text::regnamespace AND c.relkind IN ('r', 'p', 'S')
"""


@dataclass(frozen=True)
class MigratedShape:
    """What the bot's migrations make of a new schema: the digest of its definitions (`SHAPE`),
    its tables, each after every table whose rows refer to it (the order their rows can be
    deleted in), and its sequences."""

    digest: str
    tables: tuple[str, ...]
    sequences: tuple[str, ...]


_migrated_shapes: dict[str, MigratedShape] = {}
"""Shared database name -> the shape of a schema that `open_new` saw the migrations make."""
_spares: dict[str, list[str]] = {}
"""Shared database name -> the emptied migrated schemas kept in it, for `open_new`."""


MIGRATIONS_TABLE = "schema_migrations"


async def _migrated(connection: asyncpg.Connection) -> bool:
    """Whether the `schema_migrations` of the schema first in `search_path` holds each of this
    bot's migrations and nothing more."""
    applied = await connection.fetch(f"SELECT version, name FROM {MIGRATIONS_TABLE} ORDER BY 1")
    known = [(migration.version, migration.name) for migration in load_migrations("postgres")]
    return [(row["version"], row["name"]) for row in applied] == known


async def _shape_of(connection: asyncpg.Connection, schema: str) -> MigratedShape | None:
    """The shape of `schema`, if it is one the bot's migrations brought up to date (its
    `schema_migrations` holds each of this bot's migrations); run in a transaction."""
    await connection.execute(f"SET LOCAL search_path = {schema}")
    relations = await connection.fetch(_RELATIONS, schema)
    if MIGRATIONS_TABLE not in {name for name, _, _ in relations}:
        return None
    if not await _migrated(connection):
        return None
    referring: dict[str, set[str]] = {name: set() for name, kind, _ in relations if kind != "S"}
    for name, _, referred in relations:
        for other in referred:
            referring.setdefault(other, set()).add(name)
    try:
        tables = tuple(graphlib.TopologicalSorter(referring).static_order())
    except graphlib.CycleError:
        return None
    return MigratedShape(
        await connection.fetchval(SHAPE, schema),
        tables,
        tuple(sorted(name for name, kind, _ in relations if kind == "S")),
    )


async def keep_emptied(admin: asyncpg.Connection, shared: str, schema: str) -> bool:
    """Keep `schema` for a later test, its rows deleted and its sequences restarted, if its
    definitions are those `open_new` saw the migrations make (nothing a test added, dropped
    or altered) and it is small; whether it was kept.

    Migrating a new schema is a transaction of DDL per migration, a fifth of a second of the
    server's time on a small machine and most of what a short PostgreSQL test costs; deleting
    the few rows a test leaves takes a hundredth. The schema is renamed first, so that no one
    reaches it by its name any more, and whatever connected to the database meanwhile is ended
    after (a bot process the test left behind): the tables a later test gets are reached by it
    alone. `open_new` checks again that they are empty before it hands them on."""
    reference = _migrated_shapes.get(shared)
    if reference is None or len(_spares.get(shared, [])) >= SPARES_KEPT:
        return False
    spare = f"{TEST_SCHEMA_PREFIX}spare_{secrets.token_hex(6)}"
    emptying = "".join(
        [
            f"ALTER SCHEMA {schema} RENAME TO {spare}; SET LOCAL search_path = {spare};",
            *(f"DELETE FROM {table};" for table in reference.tables if table != MIGRATIONS_TABLE),
            *(f"ALTER SEQUENCE {sequence} RESTART;" for sequence in reference.sequences),
        ]
    )
    async with admin.transaction():
        await admin.execute(f"SET LOCAL search_path = {schema}")
        digest, size = await admin.fetchrow(_DIGEST_AND_SIZE, schema)
        if digest != reference.digest or size > SPARE_BYTES or not await _migrated(admin):
            return False
        await admin.execute(emptying)
    await admin.execute(_END_OTHER_SESSIONS)
    _spares.setdefault(shared, []).append(spare)
    return True


async def _take_spare(url: str) -> str:
    """Make the test schema `url` names, if it is empty, a migrated one an earlier test left
    (`keep_emptied`), checked empty. What the schema was: "taken" (a spare now), "empty" (no
    spare to take), or "made" (by the test, or not a test schema): left as it was."""
    try:
        schema = search_path_of(url)
    except ValueError:
        return "made"
    shared = urlsplit(url).path.lstrip("/")
    spares = _spares.get(shared, [])
    if not spares and shared in _migrated_shapes:
        return "made"  # nothing to take, and the shape is noted: no need to look
    connection = await asyncpg.connect(url)
    try:
        async with connection.transaction():
            if not await _is_empty_schema(connection, schema):
                return "made"
            while spares:
                spare = spares.pop()
                if await _holds_nothing(connection, spare, _migrated_shapes[shared]):
                    await connection.execute(f"DROP SCHEMA {schema}")
                    await connection.execute(f"ALTER SCHEMA {spare} RENAME TO {schema}")
                    return "taken"
                await connection.execute(f"DROP SCHEMA {spare} CASCADE")
            return "empty"
    finally:
        await connection.close()


async def _is_empty_schema(connection: asyncpg.Connection, schema: str) -> bool:
    found = await connection.fetchval(
        "SELECT EXISTS (SELECT FROM pg_class WHERE relnamespace = $1::text::regnamespace) "
        "OR EXISTS (SELECT FROM pg_proc WHERE pronamespace = $1::text::regnamespace) "
        "OR EXISTS (SELECT FROM pg_type WHERE typnamespace = $1::text::regnamespace)",
        schema,
    )
    return not found


async def _holds_nothing(connection: asyncpg.Connection, spare: str, shape: MigratedShape) -> bool:
    """Whether the kept schema `spare` has no row (but its migrations') and no sequence used."""
    rows = [f"EXISTS (SELECT FROM {spare}.{t})" for t in shape.tables if t != MIGRATIONS_TABLE]
    used = [f"(SELECT is_called FROM {spare}.{sequence})" for sequence in shape.sequences]
    return not await connection.fetchval(f"SELECT {' OR '.join([*rows, *used]) or 'false'}")


async def _note_the_shape(url: str) -> None:
    """Note the shape of the test schema `url` names, which the migrations made just now in
    an empty one, if none is noted for its database yet (`keep_emptied` keeps only schemas of
    that shape)."""
    schema = search_path_of(url)
    shared = urlsplit(url).path.lstrip("/")
    if shared in _migrated_shapes:
        return
    connection = await asyncpg.connect(url)
    try:
        async with connection.transaction():
            shape = await _shape_of(connection, schema)
    finally:
        await connection.close()
    if shape is not None:
        _migrated_shapes[shared] = shape


async def drop_shared_database(server_url: str) -> None:
    """Drop this process's database on the server, if it made one."""
    name = _shared_databases.pop(server_url, None)
    if name is None:
        return
    _spares.pop(name, None)
    _migrated_shapes.pop(name, None)
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
    of what a short storage test costs, and a copy a millisecond. An empty PostgreSQL schema
    becomes one an earlier test left migrated, emptied (`keep_emptied`), where there is one.
    The schema is the same (the tests of the migrations themselves open empty files and
    schemas with `open_database`)."""
    backend, location = parse_target(target)
    if backend == "sqlite":
        await asyncio.to_thread(_start_from_migrated, Path(location))
        return await open_database(target)
    was = await _take_spare(location)
    database = await open_database(target)
    if was == "empty":  # migrated just now: the shape a kept schema must have
        try:
            await _note_the_shape(location)
        except BaseException:
            await database.close()
            raise
    return database


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
