"""Opening a database: the back end a target names (a SQLite file or a PostgreSQL URL), and the
factory that connects to it and brings its schema up to date.

It sits beside the back ends rather than in bot/storage/database.py, so that the interface the
stores and the back ends are written against imports neither back end.
"""

from __future__ import annotations

from pathlib import Path

from bot.storage.database import Backend, Database, StorageError
from bot.storage.sqlite import SqliteDatabase

_POSTGRES_SCHEMES = ("postgresql://", "postgres://")
_SQLITE_SCHEME = "sqlite:///"


async def open_database(
    target: str | Path, *, schema_version: int | None = None, read_only: bool = False
) -> Database:
    """Open a database and bring its schema up to date (up to `schema_version`, if given: only
    tests of upgrades stop short). `read_only` opens it to look at what it holds and writes
    nothing, not even a migration (a SQLite file must be there: it is not created).

    `target` is a file path or a `sqlite:///path` URL (SQLite; the path after the three slashes
    is relative unless it starts with a fourth one), or a `postgresql://` (or `postgres://`)
    URL in libpq's form (PostgreSQL, through a pool of connections).
    """
    backend, location = parse_target(target)
    if backend == "postgres":
        # Imported here so that a SQLite install never loads asyncpg.
        from bot.storage.postgres import PostgresDatabase

        return await PostgresDatabase.connect(
            location, schema_version=schema_version, read_only=read_only
        )
    return await SqliteDatabase.connect(
        Path(location), schema_version=schema_version, read_only=read_only
    )


def parse_target(target: str | Path) -> tuple[Backend, str]:
    """The back end a database target names, and its location (a URL or a file path)."""
    text = str(target)
    if isinstance(target, str) and text.startswith(_POSTGRES_SCHEMES):
        return "postgres", text
    if isinstance(target, str) and text.startswith(_SQLITE_SCHEME):
        text = text.removeprefix(_SQLITE_SCHEME)
        if not text:
            raise StorageError("a sqlite:/// URL needs a file path after the three slashes")
    return "sqlite", text
