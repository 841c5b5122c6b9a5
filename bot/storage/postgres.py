"""The PostgreSQL back end: an asyncpg pool, migrations tracked in `schema_migrations`.

Several bot processes may share one server. Migrations are applied one per transaction under
a transaction-scoped advisory lock, so exactly one process applies each and the others wait,
then find it applied. Write transactions run at READ COMMITTED: the stores' optimistic checks
are single guarded UPDATEs (`... WHERE seq = $n`), which PostgreSQL re-evaluates on the row's
newest version after waiting for a concurrent writer. Reads run in a read-only REPEATABLE READ
transaction, one snapshot for the block. A block of one statement (`single_write`,
`single_read`) runs outside any transaction: PostgreSQL makes the statement its own.

`listen` keeps one connection of its own, outside the pool, LISTENing on a channel: the
stores NOTIFY it inside their writes, so the other processes hear of a change once it is
committed (and never of one rolled back). A process is not told of its own changes (it knows
them already): notifications sent by the connections of its own pool are not passed on. A
listening connection that is lost is opened again, with pauses that grow while the server is
away.

The pool's connections never change their session (no SET, LISTEN, cursor or session-level
advisory lock: the migrations' lock is transaction-scoped), so a connection going back to the
pool is not reset: asyncpg's reset query would cost a round trip each time for nothing.

A failure that says the server cannot be used now (it is down, starting or shutting down, out
of connections or of disk, or the connection to it was lost) is raised as
DatabaseUnavailableError and noted in `availability`. The pool keeps no connection open by
itself (min_size 0), so while the server is away nothing reconnects in the background: the
next use does.

asyncpg has no type hints; this module is the only one that touches it, with `Any` at the seam.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, ClassVar

import asyncpg  # type: ignore[import-untyped]

from bot import crashpoints
from bot.storage.availability import Availability
from bot.storage.database import (
    Backend,
    CheckViolation,
    Database,
    ForeignKeyViolation,
    IntegrityError,
    NotNullViolation,
    Row,
    SingleStatement,
    UniqueViolation,
    load_migrations,
    newer_schema_error,
)

log = logging.getLogger(__name__)

MIGRATION_LOCK = 0x4D61_7272_616B_6563
"""The advisory lock key held while a migration is applied (the bytes of "Marrakec")."""
POOL_MAX_SIZE = 10
CONNECT_TIMEOUT_SECONDS = 2.0
"""The longest wait for a new connection: a click that finds the server unreachable is still
answered within Discord's 3 s."""
CLOSE_TIMEOUT_SECONDS = 5.0
"""The longest wait for the pool to close cleanly before its connections are cut."""
LISTEN_RETRY_SECONDS = 0.5
"""The first pause before opening a lost listening connection again; each failed try doubles
it, up to LISTEN_RETRY_MAX_SECONDS."""
LISTEN_RETRY_MAX_SECONDS = 5.0
_UNAVAILABLE = (
    OSError,  # refused, reset, no such socket, host unreachable
    TimeoutError,  # no answer within CONNECT_TIMEOUT_SECONDS
    asyncpg.PostgresConnectionError,  # class 08: the connection failed or was lost
    asyncpg.OperatorInterventionError,  # class 57: shutting down, starting up
    asyncpg.InsufficientResourcesError,  # class 53: disk full, too many connections
    asyncpg.InternalClientError,  # a connection caught in the middle of its server's shutdown
)
_ERRORS: dict[str, type[IntegrityError]] = {
    "23505": UniqueViolation,
    "23514": CheckViolation,
    "23502": NotNullViolation,
    "23503": ForeignKeyViolation,
}
_KEY_DETAIL = re.compile(r"^Key \((?P<columns>[^)]*)\)=")
_MIGRATIONS_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    "version integer PRIMARY KEY, name text NOT NULL, "
    "applied_at timestamptz NOT NULL DEFAULT now())"
)

_CURRENT_VERSION = "SELECT coalesce(max(version), 0) FROM schema_migrations"


def translated(error: Any) -> IntegrityError:
    """The back-end-neutral form of asyncpg's IntegrityConstraintViolationError (its SQLSTATE
    picks the class; `Key (a, b)=(...)` in the detail names the columns of a key)."""
    kind = _ERRORS.get(str(getattr(error, "sqlstate", "")), IntegrityError)
    columns: tuple[str, ...] = ()
    if column := getattr(error, "column_name", None):
        columns = (str(column),)
    elif match := _KEY_DETAIL.match(str(getattr(error, "detail", None) or "")):
        columns = tuple(name.strip() for name in match["columns"].split(","))
    return kind(
        str(error),
        table=getattr(error, "table_name", None),
        columns=columns,
        constraint=getattr(error, "constraint_name", None),
    )


async def _keep_session(_connection: Any) -> None:
    """What a connection going back to the pool needs besides asyncpg's own ROLLBACK of an
    unfinished transaction: nothing (see the module's text)."""


def affected(status: str) -> int:
    """The row count at the end of a command status (`UPDATE 2`, `INSERT 0 1`, `SELECT 3`)."""
    last = status.rpartition(" ")[2]
    return int(last) if last.isdigit() else 0


def unavailable(error: BaseException) -> bool:
    """Whether the error says the server cannot be used now (rather than that the SQL or its
    values are wrong)."""
    if isinstance(error, _UNAVAILABLE):
        return True
    # asyncpg's own errors for a connection or pool that is closed (the server went away)
    return isinstance(error, asyncpg.InterfaceError) and "closed" in str(error)


class PostgresConnection:
    """The stores' `Connection` on one pooled asyncpg connection."""

    __slots__ = ("_raw",)

    def __init__(self, raw: Any) -> None:
        self._raw = raw

    async def execute(self, sql: str, *args: object) -> int:
        try:
            status = await self._raw.execute(sql, *args)
        except asyncpg.IntegrityConstraintViolationError as error:
            raise translated(error) from error
        return affected(str(status))

    async def executemany(self, sql: str, args: Iterable[Sequence[object]]) -> None:
        batch = list(args)
        if not batch:  # asyncpg would still prepare the statement
            return
        try:
            await self._raw.executemany(sql, batch)
        except asyncpg.IntegrityConstraintViolationError as error:
            raise translated(error) from error

    async def fetch(self, sql: str, *args: object) -> list[Row]:
        try:
            rows: list[Row] = await self._raw.fetch(sql, *args)
        except asyncpg.IntegrityConstraintViolationError as error:
            raise translated(error) from error
        return rows

    async def fetchrow(self, sql: str, *args: object) -> Row | None:
        try:
            row: Row | None = await self._raw.fetchrow(sql, *args)
        except asyncpg.IntegrityConstraintViolationError as error:
            raise translated(error) from error
        return row

    async def fetchval(self, sql: str, *args: object) -> Any:
        try:
            return await self._raw.fetchval(sql, *args)
        except asyncpg.IntegrityConstraintViolationError as error:
            raise translated(error) from error


class PostgresDatabase(Database):
    """The bot's PostgreSQL database, reached through a pool of connections."""

    backend: ClassVar[Backend] = "postgres"

    def __init__(self, pool: Any, url: str, pool_pids: set[int] | None = None) -> None:
        """`pool_pids` holds the server process ids of the pool's open connections (kept up to
        date as they open and close), whose notifications `listen` does not pass on."""
        self._pool = pool
        self.url = url
        self._pool_pids = pool_pids if pool_pids is not None else set()
        self._listening: set[str] = set()
        self.availability = Availability()

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        schema_version: int | None = None,
        max_size: int = POOL_MAX_SIZE,
        read_only: bool = False,
    ) -> PostgresDatabase:
        """Open a pool on the server named by the URL and bring the schema up to date; or,
        `read_only`, write nothing (no migration, and every transaction read-only)."""
        pids: set[int] = set()

        async def opened(connection: Any) -> None:
            pid = connection.get_server_pid()
            pids.add(pid)
            connection.add_termination_listener(lambda _connection: pids.discard(pid))

        pool = await asyncpg.create_pool(
            url,
            min_size=0,
            max_size=max_size,
            timeout=CONNECT_TIMEOUT_SECONDS,
            init=opened,
            reset=_keep_session,
            server_settings={"default_transaction_read_only": "on"} if read_only else None,
        )
        database = cls(pool, url, pids)
        try:
            if not read_only:
                await database.migrate(schema_version)
        except BaseException:
            await pool.close()
            raise
        return database

    async def close(self) -> None:
        """Close the pool; connections that do not close in time (a server gone) are cut."""
        try:
            await asyncio.wait_for(self._pool.close(), CLOSE_TIMEOUT_SECONDS)
        except Exception as error:
            log.info("the database connections were cut, not closed: %r", error)
            self._pool.terminate()

    async def listen(self, channel: str, callback: Callable[[], None]) -> None:
        """Call `callback` on every notification sent on `channel` by another process (this
        database's own connections are left out), on a connection of its own; run until
        cancelled. Once the connection listens, and again whenever it is lost, `callback` is
        called too, so that whatever was missed meanwhile is looked at; a lost connection is
        opened again after a pause (LISTEN_RETRY_SECONDS, doubling up to
        LISTEN_RETRY_MAX_SECONDS while the server stays away)."""

        def notified(_connection: Any, pid: int, _channel: str, _payload: str) -> None:
            if pid not in self._pool_pids:
                callback()

        delay = LISTEN_RETRY_SECONDS
        lost_once = False
        while True:
            lost = asyncio.Event()
            try:
                connection = await asyncpg.connect(self.url, timeout=CONNECT_TIMEOUT_SECONDS)
            except Exception as error:
                if not unavailable(error):
                    raise
                await asyncio.sleep(delay)
                delay = min(delay * 2, LISTEN_RETRY_MAX_SECONDS)
                continue
            try:
                connection.add_termination_listener(lambda _connection, gone=lost: gone.set())
                await connection.add_listener(channel, notified)
                if lost_once:
                    log.info("listening on %s again", channel)
                delay = LISTEN_RETRY_SECONDS
                callback()
                self._listening.add(channel)
                await lost.wait()
                log.info("the connection listening on %s was lost; opening it again", channel)
                lost_once = True
                callback()
            except Exception as error:
                if not unavailable(error):
                    raise
            finally:
                self._listening.discard(channel)
                await _hang_up(connection)

    @property
    def listening(self) -> frozenset[str]:
        """The channels `listen` listens on now, each once its callback was first called: what
        the listening connection may have missed is looked at by then."""
        return frozenset(self._listening)

    async def schema_version(self) -> int:
        async with self._pool.acquire() as raw:
            if await raw.fetchval("SELECT to_regclass('schema_migrations')") is None:
                return 0
            return int(await raw.fetchval(_CURRENT_VERSION))

    async def migrate(self, target: int | None = None) -> int:
        """Apply the migrations not yet in `schema_migrations`, each in its own transaction
        under the advisory lock (another process applying one makes this one wait)."""
        migrations = load_migrations("postgres")
        goal = len(migrations) if target is None else min(target, len(migrations))
        async with self._pool.acquire() as raw:
            while True:
                async with raw.transaction():
                    await raw.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
                    await raw.execute(_MIGRATIONS_TABLE)
                    current = int(await raw.fetchval(_CURRENT_VERSION))
                    if current > len(migrations):
                        raise newer_schema_error(current, len(migrations))
                    if current >= goal:
                        return current
                    migration = migrations[current]
                    await raw.execute(migration.sql)  # no arguments: the whole script at once
                    await raw.execute(
                        "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                        migration.version,
                        migration.name,
                    )

    @contextlib.contextmanager
    def _reporting(self) -> Iterator[None]:
        """Raise a failure that says the server cannot be used now as DatabaseUnavailableError,
        noted in `availability`."""
        try:
            yield
        except Exception as error:
            if not unavailable(error):
                raise
            raise self.availability.failed(error) from error

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PostgresConnection]:
        """Run the block in one transaction on a pooled connection: committed on success,
        rolled back on error."""
        with self._reporting():
            async with self._pool.acquire() as raw, raw.transaction():
                crashpoints.reach("db.begun")
                yield PostgresConnection(raw)
                crashpoints.reach("db.committing")
        crashpoints.reach("db.committed")

    @asynccontextmanager
    async def single_write(self) -> AsyncIterator[SingleStatement]:
        """Run the block's one statement on a pooled connection outside any transaction:
        PostgreSQL runs it as its own transaction, committed as it completes."""
        with self._reporting():
            async with self._pool.acquire() as raw:
                crashpoints.reach("db.begun")
                crashpoints.reach("db.committing")
                yield SingleStatement(PostgresConnection(raw))
        crashpoints.reach("db.committed")

    @asynccontextmanager
    async def single_read(self) -> AsyncIterator[SingleStatement]:
        """Run the block's one statement on a pooled connection outside any transaction (one
        statement sees one snapshot)."""
        with self._reporting():
            async with self._pool.acquire() as raw:
                yield SingleStatement(PostgresConnection(raw))

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[PostgresConnection]:
        """Read in a read-only snapshot (REPEATABLE READ) on a pooled connection."""
        with self._reporting():
            async with (
                self._pool.acquire() as raw,
                raw.transaction(isolation="repeatable_read", readonly=True),
            ):
                yield PostgresConnection(raw)


async def _hang_up(connection: Any) -> None:
    """Close a connection of its own; cut it if it does not close in time (a server gone)."""
    try:
        await connection.close(timeout=CLOSE_TIMEOUT_SECONDS)
    except Exception:
        connection.terminate()
