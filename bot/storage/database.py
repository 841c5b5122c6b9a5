"""One aiosqlite connection with WAL, foreign keys, migrations and serialised transactions."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import aiosqlite

from bot import crashpoints

MIGRATIONS_PACKAGE = "bot.storage.migrations"
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
BUSY_TIMEOUT_MS = 5000


class StorageError(Exception):
    """The database cannot be used as it is (bad migrations, newer schema, ...)."""


@dataclass(frozen=True, slots=True)
class Migration:
    """A numbered SQL script from bot/storage/migrations/."""

    version: int
    name: str
    sql: str


def load_migrations() -> list[Migration]:
    """Read the numbered migration scripts in order; numbers must run 1, 2, 3, ... without gaps."""
    found: list[Migration] = []
    for entry in resources.files(MIGRATIONS_PACKAGE).iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text("utf-8")))
    found.sort(key=lambda migration: migration.version)
    for expected, migration in enumerate(found, start=1):
        if migration.version != expected:
            raise StorageError(f"migration {migration.name} is out of sequence (want {expected})")
    return found


class Database:
    """The bot's SQLite database.

    One connection in autocommit mode; every write goes through `transaction()`, which holds an
    asyncio lock (so coroutines never interleave statements on the shared connection) and a
    `BEGIN IMMEDIATE` SQLite transaction (so other processes wait on the file lock).
    """

    def __init__(self, connection: aiosqlite.Connection, path: Path) -> None:
        self._connection = connection
        self._lock = asyncio.Lock()
        self.path = path

    @classmethod
    async def open(cls, path: Path) -> Database:
        """Open (creating if needed) the database file and bring its schema up to date."""
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = await aiosqlite.connect(path, isolation_level=None)
        try:
            connection.row_factory = aiosqlite.Row
            await connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            await connection.execute("PRAGMA journal_mode = WAL")
            # In WAL mode NORMAL survives a killed process (only a power cut can lose the
            # last commits), which is the failure this bot has to survive.
            await connection.execute("PRAGMA synchronous = NORMAL")
            await connection.execute("PRAGMA foreign_keys = ON")
            database = cls(connection, path)
            await database.migrate()
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

    async def migrate(self) -> int:
        """Apply the migrations newer than PRAGMA user_version, each in its own transaction."""
        migrations = load_migrations()
        async with self._lock:
            current = await self._user_version()
            if current > len(migrations):
                raise StorageError(
                    f"the database schema is version {current}, newer than this bot "
                    f"({len(migrations)}); upgrade the bot"
                )
            for migration in migrations[current:]:
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

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """Run the block in one SQLite transaction: committed on success, rolled back on error."""
        async with self._lock:
            write_hook = crashpoints.write_hook  # None unless a crash test armed one
            try:
                # Inside the try: a task cancelled while BEGIN is on its way still has it run
                # on the connection's thread, and must roll it back like any other error.
                await self._connection.execute("BEGIN IMMEDIATE")
                crashpoints.reach("db.begun")
                if write_hook is not None:
                    await self._connection.set_progress_handler(write_hook, crashpoints.WRITE_STEPS)
                yield self._connection
                crashpoints.reach("db.committing")
            except BaseException:
                await self._connection.rollback()
                raise
            finally:
                if write_hook is not None:
                    await self._connection.set_progress_handler(None, 0)  # type: ignore[arg-type]
            await self._connection.commit()
            crashpoints.reach("db.committed")

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[aiosqlite.Connection]:
        """Read outside any write transaction (a consistent snapshot for the block)."""
        async with self._lock:
            try:
                await self._connection.execute("BEGIN")  # inside the try, as in `transaction`
                yield self._connection
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
