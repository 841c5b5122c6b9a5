"""The SQLite back end: one aiosqlite connection with WAL, foreign keys, migrations tracked by
PRAGMA user_version, and serialised transactions.

The stores' SQL uses numbered parameters (`$1`); they reach SQLite as its own numbered form
(`?1`). Constraint failures are raised as bot.storage.database's IntegrityError family, and the
failures that say the file cannot be used now (a full disk, an I/O error, a file that cannot be
opened or written, a lock held too long) as DatabaseUnavailableError, noted in `availability`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
import sqlite3
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, ClassVar

import aiosqlite

from bot import crashpoints
from bot.storage.availability import Availability, disk_full
from bot.storage.database import (
    Backend,
    CheckViolation,
    Database,
    ForeignKeyViolation,
    IntegrityError,
    NotNullViolation,
    Row,
    SingleStatement,
    StorageError,
    UniqueViolation,
    load_migrations,
    newer_schema_error,
)
from bot.storage.errors import DatabaseUnavailableError

BUSY_TIMEOUT_MS = 5000
_PARAMETER = re.compile(r"'(?:[^']|'')*'|\$(\d+)")
"""A string literal (left alone) or a numbered parameter `$n`."""
_ERRORS: dict[str, type[IntegrityError]] = {
    "SQLITE_CONSTRAINT_UNIQUE": UniqueViolation,
    "SQLITE_CONSTRAINT_PRIMARYKEY": UniqueViolation,
    "SQLITE_CONSTRAINT_CHECK": CheckViolation,
    "SQLITE_CONSTRAINT_NOTNULL": NotNullViolation,
    "SQLITE_CONSTRAINT_FOREIGNKEY": ForeignKeyViolation,
}
_UNAVAILABLE = {
    sqlite3.SQLITE_BUSY,
    sqlite3.SQLITE_NOMEM,
    sqlite3.SQLITE_READONLY,
    sqlite3.SQLITE_IOERR,
    sqlite3.SQLITE_FULL,
    sqlite3.SQLITE_CANTOPEN,
    sqlite3.SQLITE_PROTOCOL,
}
"""The primary result codes that say the file cannot be used now, whatever the SQL."""


@functools.lru_cache(maxsize=1024)
def numbered(sql: str) -> str:
    """The statement with each `$n` parameter written as SQLite's `?n`."""
    return _PARAMETER.sub(lambda match: f"?{match[1]}" if match[1] else match[0], sql)


def translated(error: sqlite3.IntegrityError) -> IntegrityError:
    """The back-end-neutral form of a constraint failure (`UNIQUE constraint failed: t.a, t.b`
    names the table and columns)."""
    message = str(error)
    kind = _ERRORS.get(getattr(error, "sqlite_errorname", ""), IntegrityError)
    table: str | None = None
    columns: list[str] = []
    _, colon, names = message.partition(" constraint failed: ")
    if colon and kind in (UniqueViolation, NotNullViolation):
        for name in names.split(","):
            owner, dot, column = name.strip().rpartition(".")
            if dot:
                table = owner
                columns.append(column)
    return kind(message, table=table, columns=tuple(columns))


def unavailable(error: sqlite3.Error) -> bool:
    """Whether the error says the database cannot be used now (rather than that the SQL or its
    values are wrong)."""
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in _UNAVAILABLE


class SqliteConnection:
    """The stores' `Connection` on the shared aiosqlite connection."""

    __slots__ = ("_raw",)

    def __init__(self, raw: aiosqlite.Connection) -> None:
        self._raw = raw

    async def execute(self, sql: str, *args: object) -> int:
        try:
            cursor = await self._raw.execute(numbered(sql), args)
        except sqlite3.IntegrityError as error:
            raise translated(error) from error
        return max(cursor.rowcount, 0)

    async def executemany(self, sql: str, args: Iterable[Sequence[object]]) -> None:
        try:
            await self._raw.executemany(numbered(sql), args)
        except sqlite3.IntegrityError as error:
            raise translated(error) from error

    async def fetch(self, sql: str, *args: object) -> list[Row]:
        try:
            rows: Iterable[sqlite3.Row] = await self._raw.execute_fetchall(numbered(sql), args)
        except sqlite3.IntegrityError as error:
            raise translated(error) from error
        return list(rows)

    async def fetchrow(self, sql: str, *args: object) -> Row | None:
        rows = await self.fetch(sql, *args)
        return rows[0] if rows else None

    async def fetchval(self, sql: str, *args: object) -> Any:
        row = await self.fetchrow(sql, *args)
        return None if row is None else row[0]


class SqliteDatabase(Database):
    """The bot's SQLite database file.

    One connection in autocommit mode. Every use of it holds an asyncio lock, so coroutines never
    interleave statements on the shared connection; a write of several statements goes through
    `transaction()`, a `BEGIN IMMEDIATE` SQLite transaction (so other processes wait on the file
    lock), and a write of one statement through `single_write()`, which SQLite runs as its own
    transaction.
    """

    backend: ClassVar[Backend] = "sqlite"

    def __init__(self, connection: aiosqlite.Connection, path: Path) -> None:
        self._connection = connection
        self._wrapped = SqliteConnection(connection)
        self._lock = asyncio.Lock()
        self.path = path
        self.availability = Availability()

    @classmethod
    async def connect(
        cls, path: Path, *, schema_version: int | None = None, read_only: bool = False
    ) -> SqliteDatabase:
        """Open (creating if needed) the database file and bring its schema up to date; or,
        `read_only`, open a file that is there and write nothing (no migration, its journal
        mode as it is, and SQLite refusing any statement that writes)."""
        if read_only:
            if not await asyncio.to_thread(path.exists):
                raise StorageError(f"{path}: no such database file")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
        await asyncio.to_thread(_check_opens, path, writes=not read_only)
        connection = await aiosqlite.connect(path, isolation_level=None)
        try:
            connection.row_factory = aiosqlite.Row
            await connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if read_only:
                await connection.execute("PRAGMA query_only = ON")
            else:
                await connection.execute("PRAGMA journal_mode = WAL")
            # In WAL mode NORMAL survives a killed process (only a power cut can lose the
            # last commits), which is the failure this bot has to survive.
            await connection.execute("PRAGMA synchronous = NORMAL")
            await connection.execute("PRAGMA foreign_keys = ON")
            database = cls(connection, path)
            if not read_only:
                await database.migrate(schema_version)
        except sqlite3.Error as error:
            await connection.close()
            if _on_a_full_disk(error, path):
                raise _full_disk_error(path, error) from None
            raise
        except BaseException:
            await connection.close()
            raise
        return database

    async def close(self) -> None:
        await self._connection.close()

    async def schema_version(self) -> int:
        async with self._lock:
            return await self._user_version()

    async def _user_version(self) -> int:
        async with self._connection.execute("PRAGMA user_version") as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row is not None else 0

    async def migrate(self, target: int | None = None) -> int:
        """Apply the migrations newer than PRAGMA user_version, each in its own transaction."""
        migrations = load_migrations("sqlite")
        async with self._lock:
            current = await self._user_version()
            if current > len(migrations):
                raise newer_schema_error(current, len(migrations))
            for migration in migrations[current:target]:
                await self._connection.execute("BEGIN IMMEDIATE")
                try:
                    for statement in _statements(migration.sql):
                        await self._connection.execute(statement)
                    await self._connection.execute(f"PRAGMA user_version = {migration.version}")
                except BaseException:
                    await self._connection.rollback()
                    raise
                await self._connection.commit()
            return await self._user_version()

    @contextlib.contextmanager
    def _reporting(self) -> Iterator[None]:
        """Raise a failure that says the file cannot be used now as DatabaseUnavailableError,
        noted in `availability`."""
        try:
            yield
        except sqlite3.Error as error:
            if not unavailable(error):
                raise
            raise self.availability.failed(error) from error

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[SqliteConnection]:
        """Run the block in one SQLite transaction: committed on success, rolled back on error
        (a failed COMMIT too: SQLite may have rolled it back already, which does no harm)."""
        async with self._lock:
            with self._reporting():
                write_hook = crashpoints.write_hook  # None unless a crash test armed one
                try:
                    # Inside the try: a task cancelled while BEGIN is on its way still has it
                    # run on the connection's thread, and must roll it back like any other error.
                    await self._connection.execute("BEGIN IMMEDIATE")
                    crashpoints.reach("db.begun")
                    if write_hook is not None:
                        await self._connection.set_progress_handler(
                            write_hook, crashpoints.WRITE_STEPS
                        )
                    yield self._wrapped
                    crashpoints.reach("db.committing")
                except BaseException:
                    await self._connection.rollback()
                    raise
                finally:
                    if write_hook is not None:
                        await self._connection.set_progress_handler(None, 0)  # type: ignore[arg-type]
                try:
                    await self._connection.commit()
                except BaseException:
                    await self._connection.rollback()
                    raise
            crashpoints.reach("db.committed")

    @asynccontextmanager
    async def single_write(self) -> AsyncIterator[SingleStatement]:
        """Run the block's one statement in autocommit mode: SQLite takes the write lock for it
        (waiting as for BEGIN IMMEDIATE) and commits it as it completes. A statement with
        RETURNING is read with `fetch`, `fetchrow` or `fetchval`, which run it to its end."""
        async with self._lock:
            with self._reporting():
                write_hook = crashpoints.write_hook  # None unless a crash test armed one
                crashpoints.reach("db.begun")
                crashpoints.reach("db.committing")
                if write_hook is not None:
                    await self._connection.set_progress_handler(write_hook, crashpoints.WRITE_STEPS)
                try:
                    yield SingleStatement(self._wrapped)
                finally:
                    if write_hook is not None:
                        await self._connection.set_progress_handler(None, 0)  # type: ignore[arg-type]
            crashpoints.reach("db.committed")

    @asynccontextmanager
    async def single_read(self) -> AsyncIterator[SingleStatement]:
        """Run the block's one statement in autocommit mode (its own read snapshot)."""
        async with self._lock:
            with self._reporting():
                yield SingleStatement(self._wrapped)

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[SqliteConnection]:
        """Read outside any write transaction (a consistent snapshot for the block)."""
        async with self._lock:
            with self._reporting():
                try:
                    await self._connection.execute("BEGIN")  # inside the try, as in `transaction`
                    yield self._wrapped
                finally:
                    await self._connection.rollback()


def _statements(script: str) -> list[str]:
    """Split a migration script into complete statements (triggers keep their bodies)."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        if line.lstrip().startswith("--") and not pending.strip():
            continue
        pending += line
        if sqlite3.complete_statement(pending):
            if pending.strip():
                statements.append(pending.strip())
            pending = ""
    if pending.strip():
        raise StorageError(f"incomplete SQL statement at the end of a migration: {pending[:60]!r}")
    return statements


def _check_opens(path: Path, *, writes: bool) -> None:
    """Open the file once with sqlite3 itself and read its schema version: a folder, a file
    that is not a database or one that cannot be opened fails here, in one StorageError,
    before aiosqlite starts a thread that would outlive the failed start.

    With `writes`, also try a write and undo it: SQLite opens a file it may only read (a backup
    restored with another owner or mode) as it opens any, and only its first write fails, long
    after a start that looked sound, at every start again."""
    try:
        with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as probe:
            probe.execute("PRAGMA user_version").fetchone()
            if writes:
                probe.execute("BEGIN")
                try:
                    probe.execute("CREATE TABLE IF NOT EXISTS write_check (x INTEGER)")
                finally:
                    probe.execute("ROLLBACK")
    except sqlite3.Error as error:
        if getattr(error, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_READONLY:
            raise StorageError(
                f"{path}: the file can be read but not written (check its owner and mode)"
            ) from None
        if _on_a_full_disk(error, path):
            raise _full_disk_error(path, error) from None
        raise StorageError(f"{path}: {error}") from None


def _on_a_full_disk(error: sqlite3.Error, path: Path) -> bool:
    """Whether the error is the disk holding the file being full: SQLite says so, or fails to
    grow the file, its -wal or its -shm (an I/O error) where the disk has no room."""
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF
    if code == sqlite3.SQLITE_FULL:
        return True
    return code == sqlite3.SQLITE_IOERR and disk_full(path.parent)


def _full_disk_error(path: Path, error: sqlite3.Error) -> DatabaseUnavailableError:
    """A full disk at opening: unavailable for a while, as under the running bot."""
    return DatabaseUnavailableError(f"{path}: the disk is full ({error})")
