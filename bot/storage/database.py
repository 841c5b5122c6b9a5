"""The storage interface the stores are written against: `Database`, `Connection`, the errors
and the migration scripts. It knows no back end; bot/storage/open.py picks and opens one.

Two back ends implement `Database`: SQLite (bot/storage/sqlite.py, one file, the default) and
PostgreSQL (bot/storage/postgres.py, a pool of connections to a server). The stores see only
what is here: `transaction()`, `reading()`, `single_write()` and `single_read()` hand them a
`Connection` whose SQL is written once, with asyncpg's numbered parameters (`$1`, `$2`, ...),
whose rows are read by column name, and whose constraint failures raise the exceptions of
bot/storage/errors.py (named here too) whatever the driver said. So the SQL in the stores keeps
to what both dialects share (`RETURNING`, `IS [NOT] DISTINCT FROM`, `ON CONFLICT`).

Every statement, BEGIN and COMMIT is a round trip to the database (a hand-off to SQLite's
thread, or a message to the PostgreSQL server and its answer), and round trips are what the
bot's work costs, more than the statements themselves. A store whose work is one statement runs
it alone (`single_write()`, `single_read()`): one round trip, with the same guarantees, as a
statement on its own is all or nothing and reads one consistent snapshot.

Each back end has its own numbered migration scripts, the same number of them, leading to the
same tables and columns: bot/storage/migrations/NNNN_name.sql for SQLite and
bot/storage/migrations/postgres/NNNN_name.sql for PostgreSQL.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from bot.storage.errors import CheckViolation as CheckViolation
from bot.storage.errors import DatabaseUnavailableError as DatabaseUnavailableError
from bot.storage.errors import ForeignKeyViolation as ForeignKeyViolation
from bot.storage.errors import IntegrityError as IntegrityError
from bot.storage.errors import NotNullViolation as NotNullViolation
from bot.storage.errors import StorageError as StorageError
from bot.storage.errors import UniqueViolation as UniqueViolation

if TYPE_CHECKING:
    from bot.storage.availability import Availability

Backend = Literal["sqlite", "postgres"]
BACKENDS: tuple[Backend, ...] = ("sqlite", "postgres")
MIGRATIONS_PACKAGE = "bot.storage.migrations"
_MIGRATION_FOLDERS: dict[Backend, tuple[str, ...]] = {"sqlite": (), "postgres": ("postgres",)}
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
PROBE_KEY = "probed_at"
"""The `bot_meta` key a probe writes: when the database last took a write after an outage."""


class Row(Protocol):
    """A result row: values by column name (`row["id"]`) or by position (`row[0]`)."""

    def __getitem__(self, key: str | int, /) -> Any: ...

    def keys(self) -> Iterable[str]: ...


class Connection(Protocol):
    """What a block inside `transaction()` or `reading()` runs its SQL on.

    Parameters are numbered, `$1` for the first of `args`; a number may appear more than once.
    """

    async def execute(self, sql: str, *args: object) -> int:
        """Run one statement; the number of rows it inserted, updated or deleted."""
        ...

    async def executemany(self, sql: str, args: Iterable[Sequence[object]]) -> None:
        """Run one statement once per parameter tuple."""
        ...

    async def fetch(self, sql: str, *args: object) -> list[Row]:
        """Every row of the statement's result."""
        ...

    async def fetchrow(self, sql: str, *args: object) -> Row | None:
        """The first row of the result, or None when it has none."""
        ...

    async def fetchval(self, sql: str, *args: object) -> Any:
        """The first column of the first row, or None when there is no row."""
        ...


class Database(ABC):
    """An open database with its schema up to date.

    Every write goes through `transaction()`, all or nothing; reads that need a consistent view
    go through `reading()`. bot.storage.open_database opens one.
    """

    backend: ClassVar[Backend]
    availability: Availability
    """Whether it takes work now: gone at a failure that says it is unavailable, back once a
    probe commits (`probe`)."""

    @abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[Connection]:
        """Run the block in one write transaction: committed on success, rolled back on error.

        Passes the crash points `db.begun`, `db.committing` and `db.committed` (bot.crashpoints).
        """

    @abstractmethod
    def reading(self) -> AbstractAsyncContextManager[Connection]:
        """Read outside any write transaction (a consistent snapshot for the block)."""

    @abstractmethod
    def single_write(self) -> AbstractAsyncContextManager[Connection]:
        """Run the block's one write statement on its own, committed as it completes (all or
        nothing, as any statement is): no BEGIN, no COMMIT. A second statement in the block
        raises StorageError. Passes the crash points of `transaction()`, `db.begun` and
        `db.committing` before the statement, `db.committed` after the block."""

    @abstractmethod
    def single_read(self) -> AbstractAsyncContextManager[Connection]:
        """Run the block's one read statement on its own (one statement reads one consistent
        snapshot): no BEGIN, no COMMIT. A second statement in the block raises StorageError."""

    @abstractmethod
    async def schema_version(self) -> int:
        """The number of migrations applied."""

    @abstractmethod
    async def migrate(self, target: int | None = None) -> int:
        """Apply the migrations not yet applied, up to `target` (None: all of them); the
        schema's version after. StorageError if the database is newer than this bot."""

    async def probe(self, now: str) -> None:
        """Commit a small write (the time `now`, in `bot_meta`), and mark the database back if
        it went: DatabaseUnavailableError while it cannot take writes."""
        async with self.transaction() as conn:
            await conn.execute(
                "INSERT INTO bot_meta (key, value) VALUES ($1, $2) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                PROBE_KEY,
                now,
            )
        self.availability.restored()

    @abstractmethod
    async def close(self) -> None:
        """Close the connection (or pool); the object is unusable after."""


class SingleStatement:
    """A `Connection` that lets one statement through, for `single_write()` and
    `single_read()`: a second one would run outside the first one's implicit transaction, so it
    is refused (a store that needs two statements together uses `transaction()`)."""

    __slots__ = ("_connection", "_used")

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._used = False

    def _one(self) -> Connection:
        if self._used:
            raise StorageError("a second statement in a block meant for one")
        self._used = True
        return self._connection

    async def execute(self, sql: str, *args: object) -> int:
        return await self._one().execute(sql, *args)

    async def executemany(self, sql: str, args: Iterable[Sequence[object]]) -> None:
        """Refused: once per tuple is several statements (not all or nothing on SQLite)."""
        raise StorageError("executemany runs several statements: use transaction()")

    async def fetch(self, sql: str, *args: object) -> list[Row]:
        return await self._one().fetch(sql, *args)

    async def fetchrow(self, sql: str, *args: object) -> Row | None:
        return await self._one().fetchrow(sql, *args)

    async def fetchval(self, sql: str, *args: object) -> Any:
        return await self._one().fetchval(sql, *args)


@dataclass(frozen=True, slots=True)
class Migration:
    """A numbered SQL script from a back end's migrations folder."""

    version: int
    name: str
    sql: str


def load_migrations(backend: Backend = "sqlite") -> list[Migration]:
    """Read the back end's numbered migration scripts in order; numbers must run 1, 2, 3, ...
    without gaps."""
    folder: Traversable = resources.files(MIGRATIONS_PACKAGE)
    for part in _MIGRATION_FOLDERS[backend]:
        folder = folder.joinpath(part)
    found: list[Migration] = []
    for entry in folder.iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match and entry.is_file():
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text("utf-8")))
    found.sort(key=lambda migration: migration.version)
    for expected, migration in enumerate(found, start=1):
        if migration.version != expected:
            raise StorageError(f"migration {migration.name} is out of sequence (want {expected})")
    return found


def newer_schema_error(current: int, known: int) -> StorageError:
    """The error for a database migrated by a newer bot than this one."""
    return StorageError(
        f"the database schema is version {current}, newer than this bot ({known}); upgrade the bot"
    )
