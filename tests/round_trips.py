"""Counting the round trips a database makes: each time the bot waits for its database.

- SQLite: each hand-off to aiosqlite's thread (a statement, BEGIN, COMMIT, a rollback, setting
  the crash tests' progress handler), counted where aiosqlite hands every one of them over;
- PostgreSQL: each asyncpg call on a connection of the database's pool (a statement, BEGIN,
  COMMIT, the ROLLBACK or reset the pool may send when a connection goes back to it). A
  statement's first preparation on a connection is one more exchange, once per connection:
  it is left out, as it is not what a click costs once the bot is running.

`counting(database)` counts them while it is open; the bot runs unchanged meanwhile.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import asyncpg  # type: ignore[import-untyped]

from bot.storage import Database
from bot.storage.postgres import PostgresDatabase
from bot.storage.sqlite import SqliteDatabase

_ASYNCPG_CALLS = ("execute", "executemany", "fetch", "fetchrow", "fetchval", "fetchmany")
"""The asyncpg Connection methods that go to the server (Transaction and the pool use them
too)."""


class RoundTrips:
    """How many round trips the database made since counting began."""

    def __init__(self) -> None:
        self.count = 0


@contextlib.contextmanager
def counting(database: Database) -> Iterator[RoundTrips]:
    """Count the database's round trips while the block runs."""
    trips = RoundTrips()
    if isinstance(database, SqliteDatabase):
        with _counting_sqlite(database, trips):
            yield trips
    elif isinstance(database, PostgresDatabase):
        with _counting_postgres(database, trips):
            yield trips
    else:
        raise TypeError(f"no way to count the round trips of {database!r}")


@contextlib.contextmanager
def _counting_sqlite(database: SqliteDatabase, trips: RoundTrips) -> Iterator[None]:
    raw = database._connection
    # every aiosqlite call hands its work to the thread here
    handed_off: Callable[..., Awaitable[Any]] = raw._execute

    async def counted(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        trips.count += 1
        return await handed_off(fn, *args, **kwargs)

    raw._execute = counted  # type: ignore[method-assign]
    try:
        yield
    finally:
        del raw._execute  # the class's method again


@contextlib.contextmanager
def _counting_postgres(database: PostgresDatabase, trips: RoundTrips) -> Iterator[None]:
    pool = database._pool

    def pooled(connection: object) -> bool:
        return any(holder._con is connection for holder in pool._holders)

    def counted(name: str) -> Callable[..., Any]:
        original = getattr(asyncpg.Connection, name)

        def call(connection: Any, *args: Any, **kwargs: Any) -> Any:
            if pooled(connection):
                trips.count += 1
            return original(connection, *args, **kwargs)

        return call

    with contextlib.ExitStack() as patches:
        for name in _ASYNCPG_CALLS:
            original = getattr(asyncpg.Connection, name)
            setattr(asyncpg.Connection, name, counted(name))
            patches.callback(setattr, asyncpg.Connection, name, original)
        yield
